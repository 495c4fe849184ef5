import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { AppError, PermanentError, companyEvent, mediaTypeOfPath, UPLOAD_TYPES, type AuthUser, type BusMessage, type StoredFile } from '@atendo/sdk';
import type { Contact } from '@atendo/plugin-contacts';
import type { MessageRow, TicketRow, TicketStatus, Viewer } from '../model';
import { ACTIVE_STATUSES } from '../model';
import { applyVisibility, canSee, isAdmin, ticketAudiences } from '../visibility';
import { emitTicketUnread, emitTicketUpdate, getTicketOr404, isUniqueActiveViolation, loadViewer, logTicket, openTicket, serializeTickets, shouldMask } from './core';
import type { TicketsDeps } from './deps';
import { MESSAGE_MAX, MESSAGES_PAGE_SIZE } from '../schemas/messages';

/**
 * Messages of the tickets plugin (spec 2-tickets.md §2 "Conversation view", §3 "Message", §5, §7
 * "Messages"; wire-shapes §4 GET/POST /messages/:ticketId, §5 `company-{cid}-appMessage`).
 *
 * Outbound flow: the REST call stores the message as pending (ack 0, wid null) in one transaction with the
 * ticket's `lastMessage`; after commit it pushes `appMessage` {action:'create'} and the ticket update, and
 * publishes the `message.send` command. A channel adapter sends it and reports back on `message.sent`,
 * `message.failed` or `message.status`, which move the ack forward (0 pending, 1 sent, 2 delivered, 3 read,
 * 4 played) and push `appMessage` {action:'update'}. Private notes are never published.
 *
 * Every real-time push goes to the socket audiences of the message's ticket (`ticketAudiences`), so live
 * events follow the same visibility rule as the lists.
 */

// ---------------------------------------------------------------------------------------------------
// Constants and shapes

/** Bus topics: commands this module publishes and results it consumes. */
export const MESSAGE_TOPICS = {
  /** Command to channel adapters: send a stored outbound message (payload `SendCommand`). */
  send: 'message.send',
  /** Command: edit a sent message on the provider {companyId, messageId, ticketId, wid, connectionId, channel, to, isGroup, body}. */
  edit: 'message.edit',
  /** Command: delete a sent message on the provider {companyId, messageId, ticketId, wid, connectionId, channel, to, isGroup}. */
  delete: 'message.delete',
  /** Result: the provider accepted the message {companyId, messageId, wid, ack?}. */
  sent: 'message.sent',
  /** Result: sending failed {companyId, messageId, error}. */
  failed: 'message.failed',
  /** Result: a delivery status {companyId, wid, ack (1 sent, 2 delivered, 3 read, 4 played)}. */
  status: 'message.status',
} as const;

/** The consumer queue of the results (`message.sent`, `message.failed`, `message.status`). */
export const RESULTS_QUEUE = 'tickets.message-results';

/** Acks (spec: 0 clock, 1 sent, 2 delivered, 3 and 4 read). */
export const ACK = { pending: 0, sent: 1, delivered: 2, read: 3, played: 4 } as const;

/** `send_error` of a message whose sending failed (the spec's code; the detail goes to the log). */
export const SEND_ERROR = 'ERR_SENDING_WAPP_MSG';

/** Messages of our own that can still be edited, in minutes after creation. */
export const EDIT_WINDOW_MINUTES = 15;
/** A repeated identical forward (same caller, message and contact) within this many seconds is a double click. */
export const FORWARD_DEDUPE_SECONDS = 10;

/** Media types of text messages (editable; signed when the company signs messages). */
export const TEXT_TYPES = ['conversation', 'extendedTextMessage'];

/** Statuses a ticket must have for an attendant to send in it (spec §5). */
const SENDABLE: TicketStatus[] = ['open', 'group'];

/** What the kernel's upload store may keep as message media (checked on the sniffed type). */
export const MESSAGE_MEDIA_TYPES: readonly string[] = [
  ...UPLOAD_TYPES.images,
  'audio/*',
  'video/*',
  ...UPLOAD_TYPES.documents,
  'application/zip',
  ...UPLOAD_TYPES.text,
];

/** The upload area (folder) of message media. */
export const MEDIA_AREA = 'messages';

/** A media file of an outbound message: a stored upload (relative path), its file name and media type. */
export interface OutboundMedia {
  path: string;
  fileName: string;
  mimeType: string;
}

/** A reaction stored on a message. `senderId` is the provider id of the sender (absent for our own). */
export interface Reaction {
  emoji: string;
  fromMe: boolean;
  senderId?: string;
  at: string;
}

/**
 * A message as answers and events show it (wire MessageL): the row without its storage path, plus
 * `mediaUrl` (signed URL or null), `contact` {id, name}|null, `quotedMsg` {id, body, fromMe, mediaType,
 * mediaUrl, isDeleted, contact}|null, `ticket` {id, queueId, queue {id, name, color}|null} and `reactions`.
 */
export type SerializedMessage = Omit<MessageRow, 'mediaPath'> & {
  mediaUrl: string | null;
  contact: { id: number; name: string } | null;
  quotedMsg: {
    id: number;
    body: string;
    fromMe: boolean;
    mediaType: string;
    mediaUrl: string | null;
    isDeleted: boolean;
    contact: { id: number; name: string } | null;
  } | null;
  ticket: { id: number; queueId: number | null; queue: { id: number; name: string; color: string } | null };
};

/**
 * Payload of the `message.send` command: the stored message id (adapters report results with it), the
 * ticket, the connection and its channel, the recipient (`to`: the contact's number or provider id, with
 * `isGroup`, `remoteJid` and `lid` when known), the text (`body`; a vCard text for `mediaType`
 * 'contactMessage'), the media file when any (`path` relative to the company's uploads, with `url` signed
 * for 7 days) and the provider id of the quoted message.
 */
export interface SendCommand {
  companyId: number;
  messageId: number;
  ticketId: number;
  connectionId: number | null;
  channel: string;
  to: string;
  isGroup: boolean;
  remoteJid: string | null;
  lid: string | null;
  body: string;
  mediaType: string;
  media?: { path: string; mimeType: string; fileName: string; url: string };
  quotedWid?: string;
  isForwarded: boolean;
}

// ---------------------------------------------------------------------------------------------------
// Small helpers

const toNum = (v: number | string | null | undefined): number | null => (v === null || v === undefined ? null : Number(v));

/** Normalises a raw `messages` row (bigint ids as numbers, reactions as an array). */
function normalize(row: MessageRow): MessageRow {
  return {
    ...row,
    id: Number(row.id),
    quotedMsgId: toNum(row.quotedMsgId),
    reactions: Array.isArray(row.reactions) ? row.reactions : [],
  };
}

/** The wire media type of a stored file: the MIME top-level type for image/audio/video, else 'application'. */
export function mediaTypeOf(mimeType: string): string {
  const top = mimeType.split('/')[0];
  return top === 'image' || top === 'audio' || top === 'video' ? top : 'application';
}

/** The media type of a stored upload path (by the extension the upload store chose; the SDK's table). */
export const mimeOfPath = mediaTypeOfPath;

/** What the ticket list shows as last message: the text, 'Localização', 'Contato' or the media file name. */
export function lastMessageOf(mediaType: string, body: string, mediaName: string | null): string {
  if (mediaType === 'locationMessage') return 'Localização';
  if (mediaType === 'contactMessage' || mediaType === 'multi_vcard') return 'Contato';
  if (mediaName) return mediaName;
  return body;
}

/** Escapes a vCard 3.0 text value (backslash, comma, semicolon, newlines). */
function vcardEscape(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\r?\n|\r/g, '\\n').replace(/,/g, '\\,').replace(/;/g, '\\;');
}

/**
 * A vCard 3.0 contact card for `name` and `number` (digits kept; 400 ERR_VALIDATION without digits), with
 * the WhatsApp id parameter clients use to offer a Chat button.
 */
export function buildVCard(name: string | undefined, number: string): string {
  const digits = number.replace(/\D/g, '');
  if (digits.length < 3 || digits.length > 20) throw new AppError('ERR_VALIDATION', 'vCard.number must have 3 to 20 digits');
  const n = vcardEscape((name ?? '').replace(/[\x00-\x1f\x7f]/g, ' ').trim() || digits);
  return ['BEGIN:VCARD', 'VERSION:3.0', `N:;${n};;;`, `FN:${n}`, `item1.TEL;waid=${digits}:+${digits}`, 'item1.X-ABLabel:Celular', 'END:VCARD'].join('\n');
}

/** The signature prefix of an attendant's text (`*Name:*\n`). */
export function signaturePrefix(userName: string): string {
  return `*${userName}:*\n`;
}

/** Trims a message text and checks 1..MESSAGE_MAX characters; 400 ERR_VALIDATION otherwise. */
export function checkText(raw: string | null | undefined, what = 'body'): string {
  const text = (raw ?? '').trim();
  if (!text) throw new AppError('ERR_VALIDATION', `${what} must not be empty`);
  if ([...text].length > MESSAGE_MAX) throw new AppError('ERR_VALIDATION', `${what} must be at most ${MESSAGE_MAX} characters`);
  return text;
}

/**
 * `text` signed with the caller's name when the company signs messages (setting sendSignMessage enabled)
 * and the caller did not switch it off (`signMessage === false`). Text an old client signed already is not
 * signed twice.
 */
async function signed(deps: TicketsDeps, companyId: number, userId: number, text: string, signMessage: boolean | undefined): Promise<string> {
  if (signMessage === false) return text;
  if ((await deps.identity.getCompanySetting(companyId, 'sendSignMessage')) !== 'enabled') return text;
  const user = await deps.identity.getUser(companyId, userId);
  if (!user) return text;
  const prefix = signaturePrefix(user.name);
  return text.startsWith(prefix) ? text : prefix + text;
}

/** Tickets of the same conversation as `t`: same company, contact, connection and group flag (alias `tickets`). */
function conversationTickets(db: Knex | Knex.Transaction, t: Pick<TicketRow, 'companyId' | 'contactId' | 'whatsappId' | 'isGroup'>): Knex.QueryBuilder {
  const q = db('tickets').where({ 'tickets.companyId': t.companyId, 'tickets.contactId': t.contactId, 'tickets.isGroup': t.isGroup });
  if (t.whatsappId === null) q.whereNull('tickets.whatsappId');
  else q.where('tickets.whatsappId', t.whatsappId);
  return q;
}

// ---------------------------------------------------------------------------------------------------
// Serialization and events

/**
 * Messages as answers and events show them (see `SerializedMessage`), in the given order. One batched query
 * per relation (quoted messages, contacts, tickets, queues) whatever the page size. Scoped to `companyId`.
 */
export async function serializeMessages(deps: TicketsDeps, companyId: number, input: MessageRow[]): Promise<SerializedMessage[]> {
  if (!input.length) return [];
  const rows = input.map(normalize);
  const quotedIds = [...new Set(rows.map((r) => r.quotedMsgId).filter((x): x is number => x !== null))];
  const quoted = quotedIds.length ? ((await deps.db('messages').where({ companyId }).whereIn('id', quotedIds)) as MessageRow[]).map(normalize) : [];
  const quotedById = new Map(quoted.map((q) => [q.id, q]));
  const contactIds = [...new Set([...rows, ...quoted].map((r) => r.contactId).filter((x): x is number => x !== null))];
  const ticketIds = [...new Set(rows.map((r) => r.ticketId))];
  const [contacts, tickets] = await Promise.all([
    contactIds.length ? deps.contacts.getMany(companyId, contactIds) : Promise.resolve([] as Contact[]),
    deps.db('tickets').where({ companyId }).whereIn('id', ticketIds).select('id', 'queueId') as Promise<{ id: number; queueId: number | null }[]>,
  ]);
  const queueIds = [...new Set(tickets.map((t) => t.queueId).filter((x): x is number => x !== null))];
  const queues = await Promise.all(queueIds.map((id) => deps.queues.getQueue(companyId, id)));
  const queueById = new Map(queues.filter((q): q is NonNullable<typeof q> => Boolean(q)).map((q) => [q.id, { id: q.id, name: q.name, color: q.color }]));
  const ticketById = new Map(tickets.map((t) => [t.id, t]));
  const contactById = new Map(contacts.map((c) => [c.id, { id: c.id, name: c.name }]));
  const url = (path: string | null) => (path ? deps.uploads.url(companyId, path) : null);
  const contactOf = (id: number | null) => (id !== null ? (contactById.get(id) ?? null) : null);

  return rows.map((r) => {
    const { mediaPath, ...rest } = r;
    const q = r.quotedMsgId !== null ? quotedById.get(r.quotedMsgId) : undefined;
    const t = ticketById.get(r.ticketId);
    const queueId = t?.queueId ?? null;
    return {
      ...rest,
      mediaUrl: url(mediaPath),
      contact: contactOf(r.contactId),
      quotedMsg: q
        ? { id: q.id, body: q.body, fromMe: q.fromMe, mediaType: q.mediaType, mediaUrl: url(q.mediaPath), isDeleted: q.isDeleted, contact: contactOf(q.contactId) }
        : null,
      ticket: { id: r.ticketId, queueId, queue: queueId !== null ? (queueById.get(queueId) ?? null) : null },
    };
  });
}

/** The ticket as socket payloads show it (numbers masked for everyone when lgpdHideNumber is enabled). */
async function socketTicket(deps: TicketsDeps, ticket: TicketRow): Promise<Record<string, unknown>> {
  const mask = (await deps.identity.getCompanySetting(ticket.companyId, 'lgpdHideNumber')) === 'enabled';
  const [serialized] = await serializeTickets(deps, ticket.companyId, [ticket], { maskNumbers: mask });
  return serialized;
}

/**
 * Emits `company-{cid}-appMessage` {action:'update', message} (after commit) to the audiences of the
 * message's ticket. No-op when the ticket is gone.
 */
export async function emitMessageUpdate(deps: TicketsDeps, row: MessageRow, action: 'update' | 'delete' = 'update'): Promise<SerializedMessage> {
  const ticket = (await deps.db('tickets').where({ id: row.ticketId, companyId: row.companyId }).first()) as TicketRow | undefined;
  const [message] = await serializeMessages(deps, row.companyId, [row]);
  if (ticket) deps.realtime.emitToCompany(row.companyId, companyEvent(row.companyId, 'appMessage'), { action, message }, { audiences: ticketAudiences(ticket) });
  return message;
}

// ---------------------------------------------------------------------------------------------------
// Outbound messages

/** Input of `createOutboundMessage` / `insertOutboundMessage`. */
export interface OutboundInput {
  /** The ticket (its id and company count; its state is re-read under a row lock). */
  ticket: Pick<TicketRow, 'id' | 'companyId'>;
  /** The text, a caption for media, or a vCard text (mediaType 'contactMessage'). Stored as given. */
  body: string;
  /** The sending user (null for messages of the system). */
  userId: number | null;
  /** An internal note: stored with wid 'PVT…' and ack 2, never published. */
  isPrivate?: boolean;
  /** A stored upload to send. */
  media?: OutboundMedia;
  /** The id of a message of the same company this one replies to. */
  quotedMsgId?: number | null;
  /**
   * Messages of the system (greeting, farewell, transfer, forwards): the open/group status is not required.
   * Otherwise 400 ERR_TICKET_NOT_OPEN unless the ticket is open or group.
   */
  automatic?: boolean;
  /** Overrides the media type ('contactMessage' for vCards, 'locationMessage', ...). */
  mediaType?: string;
  isForwarded?: boolean;
  dataJson?: string | null;
}

/** A stored outbound message with its ticket after the write. */
export interface StoredOutbound {
  message: MessageRow;
  ticket: TicketRow;
}

/**
 * Inserts an outbound message inside `trx` (fromMe, read, ack 0, wid null; private notes wid 'PVT…' and
 * ack 2), locking the ticket row, and sets the ticket's `lastMessage`, `updatedAt` and `fromMe`. Nothing
 * is emitted or published: call `announceOutboundMessage` after the transaction commits.
 * 404 ERR_NO_TICKET_FOUND, 400 ERR_TICKET_NOT_OPEN (unless `automatic`).
 */
export async function insertOutboundMessage(trx: Knex.Transaction, input: OutboundInput): Promise<StoredOutbound> {
  const t = await getTicketOr404(trx, input.ticket.companyId, input.ticket.id, true);
  if (!input.automatic && !SENDABLE.includes(t.status)) throw new AppError('ERR_TICKET_NOT_OPEN');
  const isPrivate = Boolean(input.isPrivate);
  const mediaType = input.mediaType ?? (input.media ? mediaTypeOf(input.media.mimeType) : 'conversation');
  const [raw] = (await trx('messages')
    .insert({
      companyId: t.companyId,
      ticketId: t.id,
      contactId: null,
      wid: isPrivate ? `PVT${randomBytes(10).toString('hex').toUpperCase()}` : null,
      ack: isPrivate ? ACK.delivered : ACK.pending,
      read: true,
      fromMe: true,
      body: input.body,
      mediaPath: input.media?.path ?? null,
      mediaName: input.media?.fileName ?? null,
      mediaType,
      isPrivate,
      isForwarded: Boolean(input.isForwarded),
      quotedMsgId: input.quotedMsgId ?? null,
      queueId: t.queueId,
      userId: input.userId,
      dataJson: input.dataJson ?? null,
    })
    .returning('*')) as MessageRow[];
  const [ticket] = (await trx('tickets')
    .where({ id: t.id, companyId: t.companyId })
    .update({ lastMessage: lastMessageOf(mediaType, input.body, input.media?.fileName ?? null), fromMe: true, updatedAt: trx.fn.now() })
    .returning('*')) as TicketRow[];
  return { message: normalize(raw), ticket };
}

/**
 * After commit: pushes `company-{cid}-appMessage` {action:'create', message, ticket, contact} to the ticket's
 * audiences, pushes the ticket update (unless `emitTicket` is false) and, for non-private messages,
 * publishes `message.send`. A failed publish marks the message `send_error` and pushes an update. Never
 * throws for a failed side effect (the message is stored); returns the serialized message.
 */
export async function announceOutboundMessage(deps: TicketsDeps, stored: StoredOutbound, opts: { emitTicket?: boolean } = {}): Promise<SerializedMessage> {
  const { message, ticket } = stored;
  const [serialized] = await serializeMessages(deps, ticket.companyId, [message]);
  try {
    const wireTicket = await socketTicket(deps, ticket);
    deps.realtime.emitToCompany(
      ticket.companyId,
      companyEvent(ticket.companyId, 'appMessage'),
      { action: 'create', message: serialized, ticket: wireTicket, contact: wireTicket.contact ?? null },
      { audiences: ticketAudiences(ticket) },
    );
    if (opts.emitTicket !== false) await emitTicketUpdate(deps, ticket);
  } catch (err) {
    deps.log.error({ err, messageId: message.id }, 'messages: real-time push failed');
  }
  if (message.isPrivate) return serialized;
  try {
    await deps.bus.publish(MESSAGE_TOPICS.send, await sendCommand(deps, ticket, message), { id: `message.send:${ticket.companyId}:${message.id}` });
  } catch (err) {
    deps.log.error({ err, messageId: message.id }, 'messages: publishing message.send failed');
    const [failed] = (await deps.db('messages')
      .where({ id: message.id, companyId: message.companyId, ack: ACK.pending })
      .update({ sendError: SEND_ERROR, updatedAt: deps.db.fn.now() })
      .returning('*')) as MessageRow[];
    if (failed) return emitMessageUpdate(deps, failed);
  }
  return serialized;
}

/** Builds the `message.send` payload of a stored message. */
async function sendCommand(deps: TicketsDeps, ticket: TicketRow, message: MessageRow): Promise<SendCommand> {
  const contact = await deps.contacts.get(ticket.companyId, ticket.contactId);
  let quotedWid: string | undefined;
  if (message.quotedMsgId !== null) {
    const q = (await deps.db('messages').where({ id: message.quotedMsgId, companyId: message.companyId }).first('wid', 'isPrivate')) as { wid: string | null; isPrivate: boolean } | undefined;
    if (q?.wid && !q.isPrivate) quotedWid = q.wid;
  }
  const cmd: SendCommand = {
    companyId: ticket.companyId,
    messageId: message.id,
    ticketId: ticket.id,
    connectionId: ticket.whatsappId,
    channel: ticket.channel,
    to: contact?.number ?? '',
    isGroup: contact?.isGroup ?? ticket.isGroup,
    remoteJid: contact?.remoteJid ?? null,
    lid: contact?.lid ?? null,
    body: message.body,
    mediaType: message.mediaType,
    isForwarded: message.isForwarded,
  };
  if (message.mediaPath) {
    cmd.media = { path: message.mediaPath, mimeType: mimeOfPath(message.mediaPath), fileName: message.mediaName ?? 'file', url: deps.uploads.url(ticket.companyId, message.mediaPath) };
  }
  if (quotedWid) cmd.quotedWid = quotedWid;
  return cmd;
}

/**
 * Creates one outbound message in its own transaction and announces it (see `insertOutboundMessage` and
 * `announceOutboundMessage`). Used by the ticket state machine for greeting, farewell and transfer messages
 * (`automatic: true`) and by POST /messages. Returns the serialized message and the ticket after the write.
 */
export async function createOutboundMessage(deps: TicketsDeps, input: OutboundInput): Promise<{ message: SerializedMessage; row: MessageRow; ticket: TicketRow }> {
  const stored = await deps.db.transaction((trx) => insertOutboundMessage(trx, input));
  const message = await announceOutboundMessage(deps, stored);
  return { message, row: stored.message, ticket: stored.ticket };
}

// ---------------------------------------------------------------------------------------------------
// Conversation (GET /messages/:ticketId)

/** Parses `selectedQueues` (a JSON number[]); undefined when absent or empty; 400 ERR_VALIDATION when malformed. */
export function parseSelectedQueues(raw: string | undefined): number[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw new AppError('ERR_VALIDATION', 'selectedQueues must be a JSON array of queue ids');
  }
  if (!Array.isArray(v) || v.length > 500 || !v.every((x) => Number.isInteger(Number(x)) && Number(x) >= 0 && Number(x) <= 2147483647)) {
    throw new AppError('ERR_VALIDATION', 'selectedQueues must be a JSON array of queue ids');
  }
  return v.length ? v.map(Number) : undefined;
}

/**
 * A ticket the caller may see, or 404 ERR_NO_TICKET_FOUND (other companies' ids are unknown) / 403
 * ERR_NO_PERMISSION. Returns the viewer facts too.
 */
async function visibleTicket(deps: TicketsDeps, auth: AuthUser, ticketId: number): Promise<{ ticket: TicketRow; viewer: Viewer }> {
  const ticket = await getTicketOr404(deps.db, auth.companyId, ticketId);
  const viewer = await loadViewer(deps, auth);
  if (!canSee(viewer, ticket)) throw new AppError('ERR_NO_PERMISSION', 'You cannot see this ticket');
  return { ticket, viewer };
}

/**
 * GET /messages/:ticketId: the conversation of the ticket's contact on its connection, i.e. the messages of
 * every ticket with the same contact, connection and group flag that the caller may see (the ticket itself
 * always; `selectedQueues` narrows the others to those queues and tickets without a queue). Page
 * `pageNumber` of 20, page 1 the newest, each page in ascending `createdAt` order; private notes included.
 * Side effect: the ticket's inbound messages are marked read and its `unreadMessages` set to 0, emitting
 * `company-{cid}-ticket` {action:'updateUnread', ticketId} when something changed.
 * Errors: 404 ERR_NO_TICKET_FOUND, 403 ERR_NO_PERMISSION, 400 ERR_VALIDATION (selectedQueues).
 */
export async function listMessages(
  deps: TicketsDeps,
  auth: AuthUser,
  ticketId: number,
  query: { pageNumber?: number; selectedQueues?: string },
): Promise<{ messages: SerializedMessage[]; ticket: Record<string, unknown>; count: number; hasMore: boolean }> {
  const selected = parseSelectedQueues(query.selectedQueues);
  let { ticket, viewer } = await visibleTicket(deps, auth, ticketId);

  // Read marking first, so the page shows the messages as read.
  const changed = await deps.db.transaction(async (trx) => {
    const marked = await trx('messages').where({ companyId: ticket.companyId, ticketId: ticket.id, read: false, fromMe: false }).update({ read: true });
    const [t] = (await trx('tickets').where({ id: ticket.id, companyId: ticket.companyId }).whereNot('unreadMessages', 0).update({ unreadMessages: 0 }).returning('*')) as TicketRow[];
    if (t) ticket = t;
    return marked > 0 || Boolean(t);
  });
  if (changed) emitTicketUnread(deps, ticket);

  const ids = conversationTickets(deps.db, ticket).select('tickets.id');
  applyVisibility(ids, viewer);
  if (selected) {
    const queueIds = selected.filter((q) => q > 0);
    ids.where((w) => {
      if (queueIds.length) w.whereIn('tickets.queueId', queueIds);
      w.orWhereNull('tickets.queueId').orWhere('tickets.id', ticket.id);
    });
  }
  const scope = () => deps.db('messages').where('messages.companyId', ticket.companyId).where((w) => w.whereIn('messages.ticketId', ids.clone()).orWhere('messages.ticketId', ticket.id));

  const size = MESSAGES_PAGE_SIZE;
  const offset = ((query.pageNumber ?? 1) - 1) * size;
  const [countRow, rows] = await Promise.all([
    scope().count<{ count: string }[]>({ count: '*' }).first(),
    scope().orderBy([{ column: 'messages.createdAt', order: 'desc' }, { column: 'messages.id', order: 'desc' }]).offset(offset).limit(size).select('messages.*') as Promise<MessageRow[]>,
  ]);
  const count = Number(countRow?.count ?? 0);
  const messages = await serializeMessages(deps, ticket.companyId, rows.reverse());
  const mask = await shouldMask(deps, auth.companyId, viewer.profile, viewer.super);
  const [wireTicket] = await serializeTickets(deps, auth.companyId, [ticket], { maskNumbers: mask });
  return { messages, ticket: wireTicket, count, hasMore: count > offset + rows.length };
}

// ---------------------------------------------------------------------------------------------------
// Sending (POST /messages/:ticketId)

/**
 * The ticket `ticketId` if `auth` may send in it: 404 ERR_NO_TICKET_FOUND (not the caller's company), 403
 * ERR_NO_PERMISSION (cannot see it), 400 ERR_TICKET_NOT_OPEN (not open or group), 403 ERR_NO_PERMISSION
 * (assigned to another user and the caller is not an admin).
 */
export async function assertCanSend(deps: TicketsDeps, auth: AuthUser, ticketId: number): Promise<TicketRow> {
  const { ticket, viewer } = await visibleTicket(deps, auth, ticketId);
  if (!SENDABLE.includes(ticket.status)) throw new AppError('ERR_TICKET_NOT_OPEN');
  if (ticket.userId !== null && ticket.userId !== auth.id && !isAdmin(viewer)) throw new AppError('ERR_NO_PERMISSION', 'The ticket is assigned to another user');
  return ticket;
}

/** The id of `quotedMsgId` when it is a message of `ticket`'s conversation, else 404 ERR_NO_MESSAGE_FOUND. */
async function resolveQuoted(deps: TicketsDeps, ticket: TicketRow, quotedMsgId: number | undefined): Promise<number | null> {
  if (quotedMsgId === undefined) return null;
  const hit = await conversationTickets(deps.db, ticket)
    .join('messages', 'messages.ticketId', 'tickets.id')
    .where({ 'messages.id': quotedMsgId, 'messages.companyId': ticket.companyId })
    .first('messages.id');
  if (!hit) throw new AppError('ERR_NO_MESSAGE_FOUND', 'The quoted message is not part of this conversation');
  return quotedMsgId;
}

/** Input of `sendMessage` (the normalised JSON body of POST /messages/:ticketId). */
export interface SendInput {
  body?: string | null;
  quotedMsgId?: number;
  isPrivate?: boolean;
  vCard?: { name?: string; number: string } | null;
  signMessage?: boolean;
}

/**
 * POST /messages/:ticketId (JSON): a text message, a private note (`isPrivate`) or a contact card (`vCard`:
 * mediaType 'contactMessage', body a vCard 3.0 text). Text: trimmed, 1..4096 characters (400
 * ERR_VALIDATION); signed `*{userName}:*\n` when the company setting sendSignMessage is enabled and
 * `signMessage` is not false (not for private notes). `quotedMsgId` must be a message of the same
 * conversation (404 ERR_NO_MESSAGE_FOUND). Permission and status: `assertCanSend`. Returns the serialized
 * message (ack 0; a private note ack 2).
 */
export async function sendMessage(deps: TicketsDeps, auth: AuthUser, ticketId: number, input: SendInput): Promise<SerializedMessage> {
  const isPrivate = Boolean(input.isPrivate);
  let body: string;
  let mediaType: string | undefined;
  if (input.vCard) {
    body = buildVCard(input.vCard.name, input.vCard.number);
    mediaType = 'contactMessage';
  } else {
    body = checkText(input.body);
  }
  const ticket = await assertCanSend(deps, auth, ticketId);
  const quotedMsgId = await resolveQuoted(deps, ticket, input.quotedMsgId);
  if (!mediaType && !isPrivate) body = await signed(deps, auth.companyId, auth.id, body, input.signMessage);
  const { message } = await createOutboundMessage(deps, { ticket, body, userId: auth.id, isPrivate, quotedMsgId, mediaType });
  return message;
}

/** One file of a multipart send, already stored, with its caption. */
export interface MediaItem {
  file: StoredFile;
  caption: string;
}

/**
 * POST /messages/:ticketId (multipart): one message per stored file (mediaType image/audio/video/application,
 * body the caption, lastMessage the file name), all in one transaction, then announced in order.
 * Captions: at most 4096 characters after trimming (400 ERR_VALIDATION). Permission and status:
 * `assertCanSend` (checked by the caller before storing, and again under the ticket lock). Returns the
 * serialized messages.
 */
export async function sendMedia(deps: TicketsDeps, auth: AuthUser, ticketId: number, items: MediaItem[], opts: { isPrivate: boolean; quotedMsgId?: number }): Promise<SerializedMessage[]> {
  if (!items.length) throw new AppError('ERR_VALIDATION', 'Send at least one file in the multipart field "medias"');
  const captions = items.map((i) => {
    const c = i.caption.trim();
    if ([...c].length > MESSAGE_MAX) throw new AppError('ERR_VALIDATION', `body must be at most ${MESSAGE_MAX} characters`);
    return c;
  });
  const ticket = await assertCanSend(deps, auth, ticketId);
  const quotedMsgId = await resolveQuoted(deps, ticket, opts.quotedMsgId);
  const stored = await deps.db.transaction(async (trx) => {
    const out: StoredOutbound[] = [];
    for (let i = 0; i < items.length; i++) {
      const f = items[i].file;
      out.push(
        await insertOutboundMessage(trx, {
          ticket,
          body: captions[i],
          userId: auth.id,
          isPrivate: opts.isPrivate,
          media: { path: f.path, fileName: f.fileName, mimeType: f.mimeType },
          quotedMsgId: i === 0 ? quotedMsgId : null,
        }),
      );
    }
    return out;
  });
  const result: SerializedMessage[] = [];
  for (let i = 0; i < stored.length; i++) result.push(await announceOutboundMessage(deps, stored[i], { emitTicket: i === stored.length - 1 }));
  return result;
}

// ---------------------------------------------------------------------------------------------------
// Delete and edit (DELETE/PUT /messages/:id)

/** The message `id` of the caller's company and its ticket, if the caller may see the ticket (404 / 403). */
async function visibleMessage(deps: TicketsDeps, auth: AuthUser, id: number): Promise<{ message: MessageRow; ticket: TicketRow; viewer: Viewer }> {
  const raw = (await deps.db('messages').where({ id, companyId: auth.companyId }).first()) as MessageRow | undefined;
  if (!raw) throw new AppError('ERR_NO_MESSAGE_FOUND');
  const message = normalize(raw);
  const ticket = await getTicketOr404(deps.db, auth.companyId, message.ticketId);
  const viewer = await loadViewer(deps, auth);
  if (!canSee(viewer, ticket)) throw new AppError('ERR_NO_PERMISSION', 'You cannot see this ticket');
  return { message, ticket, viewer };
}

/** The provider-side identity of a message, for the `message.edit` / `message.delete` commands. */
async function providerRef(deps: TicketsDeps, ticket: TicketRow, message: MessageRow) {
  const contact = await deps.contacts.get(ticket.companyId, ticket.contactId);
  return {
    companyId: ticket.companyId,
    messageId: message.id,
    ticketId: ticket.id,
    wid: message.wid,
    fromMe: message.fromMe,
    connectionId: ticket.whatsappId,
    channel: ticket.channel,
    to: contact?.number ?? '',
    isGroup: contact?.isGroup ?? ticket.isGroup,
    remoteJid: contact?.remoteJid ?? null,
  };
}

/**
 * DELETE /messages/:id: the author of a message of ours (`fromMe` and `userId` the caller) or an admin.
 * A private note is removed from the table (its media file too) and `appMessage` {action:'delete', message}
 * is pushed. Any other message is marked `isDeleted` (the body is kept for the record), `message.delete` is
 * published for our own sent messages, and `appMessage` {action:'update', message} is pushed. Deleting a
 * deleted message changes nothing. Errors: 404 ERR_NO_MESSAGE_FOUND (not the caller's company), 403
 * ERR_NO_PERMISSION. Returns the serialized message.
 */
export async function deleteMessage(deps: TicketsDeps, auth: AuthUser, id: number): Promise<SerializedMessage> {
  const { message, ticket, viewer } = await visibleMessage(deps, auth, id);
  const own = message.fromMe && message.userId === auth.id;
  if (!own && !isAdmin(viewer)) throw new AppError('ERR_NO_PERMISSION', 'Only the author or an admin may delete a message');

  if (message.isPrivate) {
    const [serialized] = await serializeMessages(deps, ticket.companyId, [message]);
    const removed = await deps.db('messages').where({ id: message.id, companyId: message.companyId }).del();
    if (!removed) throw new AppError('ERR_NO_MESSAGE_FOUND');
    if (message.mediaPath) {
      // Forwards never copy private notes, so no other message points at this file.
      await deps.uploads.remove(message.companyId, message.mediaPath).catch((err: unknown) => deps.log.warn({ err }, 'messages: media removal failed'));
    }
    deps.realtime.emitToCompany(ticket.companyId, companyEvent(ticket.companyId, 'appMessage'), { action: 'delete', message: serialized }, { audiences: ticketAudiences(ticket) });
    return serialized;
  }

  if (message.isDeleted) {
    const [serialized] = await serializeMessages(deps, ticket.companyId, [message]);
    return serialized;
  }
  const [updated] = (await deps.db('messages')
    .where({ id: message.id, companyId: message.companyId, isDeleted: false })
    .update({ isDeleted: true, updatedAt: deps.db.fn.now() })
    .returning('*')) as MessageRow[];
  if (!updated) {
    const [serialized] = await serializeMessages(deps, ticket.companyId, [message]);
    return serialized;
  }
  if (message.fromMe) {
    await deps.bus.publish(MESSAGE_TOPICS.delete, await providerRef(deps, ticket, message)).catch((err: unknown) => deps.log.error({ err, messageId: message.id }, 'messages: publishing message.delete failed'));
  }
  return emitMessageUpdate(deps, updated);
}

/**
 * PUT /messages/:id {body}: edits the text of a message the caller sent (fromMe, userId the caller) within
 * 15 minutes of its creation; sets `isEdited`, publishes `message.edit` (not for private notes) and pushes
 * `appMessage` {action:'update'}. Errors: 404 ERR_NO_MESSAGE_FOUND, 403 ERR_NO_PERMISSION (not the
 * author), 400 ERR_VALIDATION (not a text message, deleted, older than 15 minutes, empty or over 4096
 * characters). Returns the serialized message.
 */
export async function editMessage(deps: TicketsDeps, auth: AuthUser, id: number, rawBody: string): Promise<SerializedMessage> {
  const body = checkText(rawBody);
  const { message, ticket } = await visibleMessage(deps, auth, id);
  if (!message.fromMe || message.userId !== auth.id) throw new AppError('ERR_NO_PERMISSION', 'Only the author may edit a message');
  if (!TEXT_TYPES.includes(message.mediaType) || message.mediaPath) throw new AppError('ERR_VALIDATION', 'Only text messages can be edited');
  if (message.isDeleted) throw new AppError('ERR_VALIDATION', 'A deleted message cannot be edited');
  const [updated] = (await deps.db('messages')
    .where({ id: message.id, companyId: message.companyId, isDeleted: false })
    .where('createdAt', '>', deps.db.raw(`now() - interval '${EDIT_WINDOW_MINUTES} minutes'`))
    .update({ body, isEdited: true, updatedAt: deps.db.fn.now() })
    .returning('*')) as MessageRow[];
  if (!updated) throw new AppError('ERR_VALIDATION', `Messages can be edited only within ${EDIT_WINDOW_MINUTES} minutes`);
  if (!message.isPrivate) {
    await deps.bus
      .publish(MESSAGE_TOPICS.edit, { ...(await providerRef(deps, ticket, message)), body })
      .catch((err: unknown) => deps.log.error({ err, messageId: message.id }, 'messages: publishing message.edit failed'));
  }
  return emitMessageUpdate(deps, updated);
}

// ---------------------------------------------------------------------------------------------------
// Forward (POST /message/forward)

/** A ticket opened or reopened by a forward, announced after commit. */
interface OpenedTicket {
  ticket: TicketRow;
  topic: 'ticket.created' | 'ticket.updated';
}

/**
 * The active ticket of `contact` on `connectionId` (locked), or one opened for the caller by `openTicket`
 * (core.ts: new with queue `queueId`, or a recently closed one reopened keeping its queue). Race-safe
 * through the one-active-ticket unique index.
 */
async function ticketForForward(
  trx: Knex.Transaction,
  auth: AuthUser,
  contact: Contact,
  connection: { id: number; channel: string; timeCreateNewTicket?: number | null },
  queueId: number | null,
): Promise<{ ticket: TicketRow; opened?: OpenedTicket }> {
  const companyId = auth.companyId;
  const findActive = () =>
    trx('tickets').where({ companyId, contactId: contact.id, whatsappId: connection.id }).whereIn('status', ACTIVE_STATUSES).orderBy('id', 'desc').forUpdate().first() as Promise<TicketRow | undefined>;
  const active = await findActive();
  if (active) return { ticket: active };

  try {
    // A savepoint: a unique violation (another request opened the pair's ticket) must not abort `trx`.
    const { ticket, reopened } = await trx.transaction((sp) =>
      openTicket(sp, { companyId, userId: auth.id, contact, connection, queueId, queueOnReopen: (previous) => previous ?? queueId }),
    );
    return { ticket, opened: { ticket, topic: reopened ? 'ticket.updated' : 'ticket.created' } };
  } catch (err) {
    if (!isUniqueActiveViolation(err)) throw err;
    // Another request opened the contact's ticket on this connection first: use it.
    const raced = await findActive();
    if (!raced) throw new AppError('ERR_CREATING_TICKET');
    return { ticket: raced };
  }
}

/**
 * POST /message/forward {messageId, contactId, signMessage?}: forwards a text or media message the caller
 * can see to a contact. The target ticket is the contact's active ticket on the source ticket's connection
 * (or, when the contact is on another channel, the company's default connection of that channel), else a
 * ticket opened for the caller (see `ticketForForward`; queue: the source ticket's). The copy is stored
 * with `isForwarded` (same media file, text signed like a sent message) and published as `message.send`.
 * An identical forward (same caller, message and contact) within 10 seconds returns the first copy and
 * does nothing else (double clicks; serialized with a transaction-scoped advisory lock).
 * Errors: 404 ERR_NO_MESSAGE_FOUND / ERR_NO_CONTACT_FOUND / ERR_NO_DEF_WAPP_FOUND, 403 ERR_NO_PERMISSION
 * (cannot see the source ticket), 400 ERR_VALIDATION (private notes and deleted messages are not forwarded).
 */
export async function forwardMessage(deps: TicketsDeps, auth: AuthUser, input: { messageId: number; contactId: number; signMessage?: boolean }): Promise<SerializedMessage> {
  const companyId = auth.companyId;
  const { message: src, ticket: srcTicket } = await visibleMessage(deps, auth, input.messageId);
  if (src.isPrivate) throw new AppError('ERR_VALIDATION', 'Private notes cannot be forwarded');
  if (src.isDeleted) throw new AppError('ERR_VALIDATION', 'Deleted messages cannot be forwarded');
  const contact = await deps.contacts.get(companyId, input.contactId);
  if (!contact) throw new AppError('ERR_NO_CONTACT_FOUND');

  let connection = srcTicket.whatsappId !== null ? await deps.connections.get(companyId, srcTicket.whatsappId) : undefined;
  if (!connection || connection.channel !== contact.channel) connection = await deps.connections.getDefault(companyId, contact.channel);
  if (!connection) throw new AppError('ERR_NO_DEF_WAPP_FOUND');
  const conn = connection;

  let body = src.body;
  if (TEXT_TYPES.includes(src.mediaType) && !src.mediaPath) body = await signed(deps, companyId, auth.id, body, input.signMessage);
  const marker = JSON.stringify({ forwardedFrom: src.id });

  const result = await deps.db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`tickets:forward:${companyId}:${auth.id}:${src.id}:${contact.id}`]);
    const dup = (await trx('messages')
      .join('tickets', 'tickets.id', 'messages.ticketId')
      .where({ 'messages.companyId': companyId, 'messages.userId': auth.id, 'messages.isForwarded': true, 'messages.dataJson': marker, 'tickets.contactId': contact.id, 'tickets.companyId': companyId })
      .where('messages.createdAt', '>', trx.raw(`now() - interval '${FORWARD_DEDUPE_SECONDS} seconds'`))
      .orderBy('messages.id', 'desc')
      .first('messages.*')) as MessageRow | undefined;
    if (dup) return { dup: normalize(dup) };
    const { ticket, opened } = await ticketForForward(trx, auth, contact, conn, srcTicket.queueId);
    const stored = await insertOutboundMessage(trx, {
      ticket,
      body,
      userId: auth.id,
      media: src.mediaPath ? { path: src.mediaPath, fileName: src.mediaName ?? 'file', mimeType: mimeOfPath(src.mediaPath) } : undefined,
      mediaType: src.mediaType,
      isForwarded: true,
      dataJson: marker,
      automatic: true,
    });
    return { stored, opened };
  });

  if ('dup' in result && result.dup) {
    const [serialized] = await serializeMessages(deps, companyId, [result.dup]);
    return serialized;
  }
  const { stored, opened } = result as { stored: StoredOutbound; opened?: OpenedTicket };
  if (opened) {
    await deps.bus
      .publish(opened.topic, { companyId, ticketId: opened.ticket.id, status: opened.ticket.status, queueId: opened.ticket.queueId, userId: opened.ticket.userId })
      .catch((err: unknown) => deps.log.error({ err }, `messages: publishing ${opened.topic} failed`));
  }
  return announceOutboundMessage(deps, stored);
}

// ---------------------------------------------------------------------------------------------------
// Provider results and inbound changes (bus consumers, and the later inbound pipeline)

const isPositiveInt = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= Number.MAX_SAFE_INTEGER;
const isWid = (v: unknown): v is string => typeof v === 'string' && v.length >= 1 && v.length <= 255;
const isAck = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 4;

/** Runs `fn` on the message row locked inside a transaction; emits the update after commit when `fn` wrote. */
async function changeMessage(
  deps: TicketsDeps,
  where: Record<string, unknown>,
  fn: (row: MessageRow, trx: Knex.Transaction) => Promise<MessageRow | undefined>,
): Promise<MessageRow | undefined> {
  const changed = await deps.db.transaction(async (trx) => {
    const raw = (await trx('messages').where(where).forUpdate().first()) as MessageRow | undefined;
    if (!raw) return undefined;
    return fn(normalize(raw), trx);
  });
  if (changed) {
    const row = normalize(changed);
    await emitMessageUpdate(deps, row);
    return row;
  }
  return undefined;
}

/**
 * `message.sent` {companyId, messageId, wid, ack?}: the provider accepted our message. Sets `wid` and
 * ack max(current, ack ?? 1), clears `send_error`, pushes `appMessage` update. Idempotent (a repeated result
 * changes nothing and pushes nothing); private notes and unknown messages are ignored. Throws PermanentError
 * for a malformed payload or a `wid` already used by another message of the company.
 * Returns the updated row, or undefined when nothing changed.
 */
export async function applySent(deps: TicketsDeps, p: { companyId: number; messageId: number; wid: string; ack?: number }): Promise<MessageRow | undefined> {
  if (isSystemMessage(p)) return undefined;
  if (!isPositiveInt(p?.companyId) || !isPositiveInt(p.messageId) || !isWid(p.wid) || (p.ack !== undefined && !isAck(p.ack))) {
    throw new PermanentError('message.sent: malformed payload');
  }
  try {
    return await changeMessage(deps, { id: p.messageId, companyId: p.companyId }, async (row, trx) => {
      if (row.isPrivate) return undefined;
      const ack = Math.max(row.ack, p.ack ?? ACK.sent);
      if (row.wid === p.wid && row.ack === ack && row.sendError === null) return undefined;
      const [u] = (await trx('messages').where({ id: row.id, companyId: row.companyId }).update({ wid: p.wid, ack, sendError: null, updatedAt: trx.fn.now() }).returning('*')) as MessageRow[];
      return u;
    });
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw new PermanentError(`message.sent: wid already used by another message`, { cause: err });
    throw err;
  }
}

/**
 * `messageId` 0 marks a send that is not a ticket message (a password-reset code from the connections
 * plugin, SDK `SendCommand`): its `message.sent` / `message.failed` results are not ours and are ignored.
 */
const isSystemMessage = (p: unknown): boolean => Boolean(p) && typeof p === 'object' && (p as { messageId?: unknown }).messageId === 0;

/**
 * `message.failed` {companyId, messageId, error}: sending failed. A message still pending (ack 0) gets
 * `send_error` 'ERR_SENDING_WAPP_MSG' (the provider's detail goes to the log) and an `appMessage` update is
 * pushed; messages already sent, private notes and unknown ids are ignored. Idempotent.
 */
export async function applyFailed(deps: TicketsDeps, p: { companyId: number; messageId: number; error?: unknown }): Promise<MessageRow | undefined> {
  if (isSystemMessage(p)) return undefined;
  if (!isPositiveInt(p?.companyId) || !isPositiveInt(p.messageId)) throw new PermanentError('message.failed: malformed payload');
  deps.log.warn({ companyId: p.companyId, messageId: p.messageId, error: (typeof p.error === 'string' ? p.error : JSON.stringify(p.error ?? '')).slice(0, 1000) }, 'messages: sending failed');
  return changeMessage(deps, { id: p.messageId, companyId: p.companyId }, async (row, trx) => {
    if (row.isPrivate || row.ack > ACK.pending || row.sendError === SEND_ERROR) return undefined;
    const [u] = (await trx('messages').where({ id: row.id, companyId: row.companyId }).update({ sendError: SEND_ERROR, updatedAt: trx.fn.now() }).returning('*')) as MessageRow[];
    return u;
  });
}

/**
 * Added (additive, for the inbound pipeline): a `failed` status envelope for the message `wid` of
 * `companyId` (the provider gave up after accepting it, e.g. WhatsApp Cloud 131047). A message of ours not
 * yet delivered (ack 0 or 1) gets `send_error` 'ERR_SENDING_WAPP_MSG' (the provider's detail goes to the log)
 * and an `appMessage` update is pushed; delivered/read messages, inbound messages, private notes, messages
 * already marked and unknown wids are left alone. Idempotent. Returns the updated row or undefined.
 */
export async function applyFailedByWid(deps: TicketsDeps, p: { companyId: number; wid: string; error?: unknown }): Promise<MessageRow | undefined> {
  if (!isPositiveInt(p?.companyId) || !isWid(p.wid)) throw new PermanentError('failed status: malformed payload');
  return changeMessage(deps, { companyId: p.companyId, wid: p.wid }, async (row, trx) => {
    if (!row.fromMe || row.isPrivate || row.ack > ACK.sent || row.sendError === SEND_ERROR) return undefined;
    deps.log.warn({ companyId: p.companyId, messageId: row.id, error: String(JSON.stringify(p.error ?? '')).slice(0, 1000) }, 'messages: provider reported a failed send');
    const [u] = (await trx('messages').where({ id: row.id, companyId: row.companyId }).update({ sendError: SEND_ERROR, updatedAt: trx.fn.now() }).returning('*')) as MessageRow[];
    return u;
  });
}

/**
 * `message.status` {companyId, wid, ack}: a delivery status (1 sent, 2 delivered, 3 read, 4 played) of a
 * message of the company. The ack only moves forward (a late 'delivered' after 'read' changes nothing);
 * pushes an `appMessage` update when it moved. Unknown wids are ignored. Returns the updated row or undefined.
 */
export async function applyStatus(deps: TicketsDeps, p: { companyId: number; wid: string; ack: number }): Promise<MessageRow | undefined> {
  if (!isPositiveInt(p?.companyId) || !isWid(p.wid) || !isAck(p.ack)) throw new PermanentError('message.status: malformed payload');
  return changeMessage(deps, { companyId: p.companyId, wid: p.wid }, async (row, trx) => {
    if (p.ack <= row.ack) return undefined;
    const [u] = (await trx('messages').where({ id: row.id, companyId: row.companyId }).update({ ack: p.ack, sendError: null, updatedAt: trx.fn.now() }).returning('*')) as MessageRow[];
    return u;
  });
}

/**
 * A reaction on the message `wid` of `companyId`: replaces the sender's previous reaction (a sender holds at
 * most one: ourselves when `fromMe`, else `senderId`); an empty `emoji` removes it. Pushes an
 * `appMessage` update when something changed. Returns the updated row, or undefined (unknown wid, no change).
 */
export async function applyReaction(deps: TicketsDeps, companyId: number, wid: string, r: { emoji: string; fromMe: boolean; senderId?: string | null }): Promise<MessageRow | undefined> {
  const emoji = String(r.emoji ?? '').trim().slice(0, 32);
  const sender = r.fromMe ? undefined : (r.senderId ?? '').slice(0, 255) || undefined;
  const same = (x: Reaction) => (r.fromMe ? x.fromMe : !x.fromMe && x.senderId === sender);
  return changeMessage(deps, { companyId, wid }, async (row, trx) => {
    const current = row.reactions as Reaction[];
    const previous = current.find(same);
    if (!emoji && !previous) return undefined;
    if (emoji && previous?.emoji === emoji) return undefined;
    const next: Reaction[] = current.filter((x) => !same(x));
    if (emoji) next.push({ emoji, fromMe: r.fromMe, ...(sender ? { senderId: sender } : {}), at: new Date().toISOString() });
    const [u] = (await trx('messages').where({ id: row.id, companyId }).update({ reactions: JSON.stringify(next), updatedAt: trx.fn.now() }).returning('*')) as MessageRow[];
    return u;
  });
}

/**
 * An edit made on the provider side (the contact, or ourselves from the phone) of message `wid`: sets the
 * body and `isEdited`, pushes an `appMessage` update. Unknown wids and unchanged bodies are ignored.
 */
export async function applyEdit(deps: TicketsDeps, companyId: number, wid: string, newBody: string): Promise<MessageRow | undefined> {
  const body = String(newBody ?? '');
  return changeMessage(deps, { companyId, wid }, async (row, trx) => {
    if (row.body === body && row.isEdited) return undefined;
    const [u] = (await trx('messages').where({ id: row.id, companyId }).update({ body, isEdited: true, updatedAt: trx.fn.now() }).returning('*')) as MessageRow[];
    return u;
  });
}

/**
 * A deletion made on the provider side ("deleted for everyone") of message `wid`: marks it `isDeleted`
 * (the body is kept for the record) and pushes an `appMessage` update. Idempotent.
 */
export async function applyRemoteDelete(deps: TicketsDeps, companyId: number, wid: string): Promise<MessageRow | undefined> {
  return changeMessage(deps, { companyId, wid }, async (row, trx) => {
    if (row.isDeleted) return undefined;
    const [u] = (await trx('messages').where({ id: row.id, companyId }).update({ isDeleted: true, updatedAt: trx.fn.now() }).returning('*')) as MessageRow[];
    return u;
  });
}

/**
 * Subscribes the result consumers (queue `tickets.message-results`, 3 retries, then the dead-letter queue):
 * `message.sent` -> applySent, `message.failed` -> applyFailed, `message.status` -> applyStatus.
 * (The kernel's bus namespaces queue names by exchange, so installs sharing a broker never share it.)
 * Returns the unsubscribe function (for `ctx.onClose`).
 */
export async function subscribeMessageResults(deps: TicketsDeps): Promise<() => Promise<void>> {
  const sub = await deps.bus.subscribe<Record<string, unknown>>(
    [MESSAGE_TOPICS.sent, MESSAGE_TOPICS.failed, MESSAGE_TOPICS.status],
    async (m: BusMessage<Record<string, unknown>>) => {
      const p = m.payload as never;
      if (m.topic === MESSAGE_TOPICS.sent) await applySent(deps, p);
      else if (m.topic === MESSAGE_TOPICS.failed) await applyFailed(deps, p);
      else if (m.topic === MESSAGE_TOPICS.status) await applyStatus(deps, p);
    },
    { queue: RESULTS_QUEUE, maxRetries: 3 },
  );
  return () => sub.unsubscribe();
}
