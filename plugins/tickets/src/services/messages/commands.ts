import type { Knex } from 'knex';
import { AppError, companyEvent, type AuthUser, type Channel, type ProviderMessageRef, type StoredFile } from '@atendo/sdk';
import type { Contact } from '@atendo/plugin-contacts/contract';
import type { MessageRow, TicketRow, Viewer } from '../../model';
import { CONVERSATION_STATUSES } from '../../model';
import { isAdmin, ticketAudiences } from '../../visibility';
import { isUniqueActiveViolation, openTicket, ticketBusEvent, ticketChangedEvent, ticketRooms } from '../core';
import { ticketChanged, ticketCreated, ticketUpdated, type TicketActor } from '../../contract';
import type { TicketsDeps } from '../deps';
import { assertVisible, guardMessage } from '../guard';
import { MESSAGE_MAX } from '../../schemas/messages';
import { emitMessageUpdate, mimeOfPath, normalize, serializeMessages, TEXT_TYPES, type SerializedMessage } from './serialize';
import { announceOutboundMessage, CHANNEL_COMMANDS, createOutboundMessage, insertOutboundMessage, SENDABLE, type StoredOutbound } from './outbound';
import { channelCan } from './capabilities';
import { conversationTickets, visibleTicket } from './conversation';
import { isClientGreeting, serverGreeting } from './variables';

/**
 * The attendants' message commands: send text / note / vCard, send media, edit, delete and forward
 * (POST/PUT/DELETE /messages, POST /message/forward).
 */

/** Messages of our own that can still be edited, in minutes after creation. */
export const EDIT_WINDOW_MINUTES = 15;
/** A repeated identical forward (same caller, message and contact) within this many seconds is a double click. */
export const FORWARD_DEDUPE_SECONDS = 10;

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

/** The signature line a signed text starts with (`*Name:*` and a line break). */
export const SIGNATURE_LINE = /^\*[^*\n]{1,100}:\*\n/;

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
export async function resolveQuoted(deps: TicketsDeps, ticket: TicketRow, quotedMsgId: number | undefined): Promise<number | null> {
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
  if (!mediaType && !isPrivate && isClientGreeting(body)) {
    const sent = await serverGreeting(deps, ticket);
    if (sent) return sent;
  }
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
        }, deps),
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
export async function visibleMessage(deps: TicketsDeps, auth: AuthUser, id: number): Promise<{ message: MessageRow; ticket: TicketRow; viewer: Viewer }> {
  const { raw, ticket, viewer } = await guardMessage(deps, auth, id);
  return { message: normalize(raw), ticket, viewer };
}

/** The provider-side identity of a message, for the `message.edit` / `message.delete` commands. */
export async function providerRef(deps: TicketsDeps, ticket: TicketRow, message: MessageRow): Promise<ProviderMessageRef> {
  const contact = await deps.contacts.get(ticket.companyId, ticket.contactId);
  return {
    companyId: ticket.companyId,
    messageId: message.id,
    ticketId: ticket.id,
    wid: message.wid,
    fromMe: message.fromMe,
    connectionId: ticket.whatsappId,
    channel: ticket.channel as Channel,
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
    deps.realtime.emitToCompany(ticket.companyId, companyEvent(ticket.companyId, 'appMessage'), { action: 'delete', message: serialized }, { audiences: ticketAudiences(ticket), rooms: ticketRooms(ticket, true) });
    return serialized;
  }

  if (message.isDeleted) {
    const [serialized] = await serializeMessages(deps, ticket.companyId, [message]);
    return serialized;
  }
  // The provider's copy goes too where the channel can delete for everyone (its adapter consumes
  // `message.delete.<channel>`); the command leaves with the transaction that marks the message.
  const ref = message.fromMe && message.wid && channelCan(ticket.channel, 'deletes') ? await providerRef(deps, ticket, message) : undefined;
  const updated = await deps.db.transaction(async (trx) => {
    const [row] = (await trx('messages')
      .where({ id: message.id, companyId: message.companyId, isDeleted: false })
      .update({ isDeleted: true, updatedAt: trx.fn.now() })
      .returning('*')) as MessageRow[];
    if (row && ref) await deps.bus.publish(CHANNEL_COMMANDS.delete(ticket.channel), ref, { id: `message.delete:${message.companyId}:${message.id}`, trx });
    return row;
  });
  if (!updated) {
    const [serialized] = await serializeMessages(deps, ticket.companyId, [message]);
    return serialized;
  }
  return emitMessageUpdate(deps, updated);
}

/**
 * PUT /messages/:id {body}: edits the text of a message the caller sent (fromMe, userId the caller) within
 * 15 minutes of its creation (a signed message keeps its `*Name:*` line when the new text has none); sets `isEdited`, publishes `message.edit` (not for private notes) and pushes
 * `appMessage` {action:'update'}. Errors: 404 ERR_NO_MESSAGE_FOUND, 403 ERR_NO_PERMISSION (not the
 * author), 400 ERR_VALIDATION (not a text message, deleted, older than 15 minutes, empty or over 4096
 * characters). Returns the serialized message.
 */
export async function editMessage(deps: TicketsDeps, auth: AuthUser, id: number, rawBody: string): Promise<SerializedMessage> {
  let body = checkText(rawBody);
  const { message, ticket } = await visibleMessage(deps, auth, id);
  if (!message.fromMe || message.userId !== auth.id) throw new AppError('ERR_NO_PERMISSION', 'Only the author may edit a message');
  if (!TEXT_TYPES.includes(message.mediaType) || message.mediaPath) throw new AppError('ERR_VALIDATION', 'Only text messages can be edited');
  if (message.isDeleted) throw new AppError('ERR_VALIDATION', 'A deleted message cannot be edited');
  // A signed message stays signed: the edit box shows the text without the signature line.
  const signature = SIGNATURE_LINE.exec(message.body)?.[0];
  if (signature && !SIGNATURE_LINE.test(body)) body = signature + body;
  // A message the provider already has can be edited only where the channel edits (Baileys); elsewhere the edit
  // would stay ours alone, so it is refused (the inbox says so before the attendant edits). Private notes and
  // messages not sent yet are edited here only.
  if (!message.isPrivate && message.wid && !channelCan(ticket.channel, 'edits')) {
    throw new AppError('ERR_VALIDATION', `The ${ticket.channel} channel cannot edit a sent message`);
  }
  const ref = !message.isPrivate && message.wid ? await providerRef(deps, ticket, message) : undefined;
  const updated = await deps.db.transaction(async (trx) => {
    const [row] = (await trx('messages')
      .where({ id: message.id, companyId: message.companyId, isDeleted: false })
      .where('createdAt', '>', trx.raw(`now() - interval '${EDIT_WINDOW_MINUTES} minutes'`))
      .update({ body, isEdited: true, updatedAt: trx.fn.now() })
      .returning('*')) as MessageRow[];
    if (!row) throw new AppError('ERR_VALIDATION', `Messages can be edited only within ${EDIT_WINDOW_MINUTES} minutes`);
    if (ref) await deps.bus.publish(CHANNEL_COMMANDS.edit(ticket.channel), { ...ref, body }, { id: `message.edit:${message.companyId}:${message.id}:${Date.now()}`, trx });
    return row;
  });
  return emitMessageUpdate(deps, updated);
}

// ---------------------------------------------------------------------------------------------------
// Forward (POST /message/forward)

/** A ticket opened or reopened by a forward, announced after commit. */
interface OpenedTicket {
  ticket: TicketRow;
  /** The closed row a reopened ticket was (absent: a new ticket). */
  reopened?: TicketRow;
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
    trx('tickets').where({ companyId, contactId: contact.id, whatsappId: connection.id }).whereIn('status', CONVERSATION_STATUSES).orderBy('id', 'desc').forNoKeyUpdate().first() as Promise<TicketRow | undefined>;
  const active = await findActive();
  if (active) return { ticket: active };

  try {
    // A savepoint: a unique violation (another request opened the pair's ticket) must not abort `trx`.
    const { ticket, reopened } = await trx.transaction((sp) =>
      openTicket(sp, { companyId, userId: auth.id, contact, connection, queueId, queueOnReopen: (previous) => previous ?? queueId }),
    );
    return { ticket, opened: { ticket, reopened } };
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
 * (cannot see the source ticket, or the contact's active target ticket), 400 ERR_VALIDATION (private notes and deleted messages are not forwarded).
 */
export async function forwardMessage(deps: TicketsDeps, auth: AuthUser, input: { messageId: number; contactId: number; signMessage?: boolean }): Promise<SerializedMessage> {
  const companyId = auth.companyId;
  const { message: src, ticket: srcTicket, viewer } = await visibleMessage(deps, auth, input.messageId);
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
    // The target must be visible like any ticket the caller writes to: forwarding into the contact's active
    // ticket of a queue the caller does not serve is refused (a ticket opened here is the caller's).
    if (!opened) assertVisible(viewer, ticket);
    const stored = await insertOutboundMessage(trx, {
      ticket,
      body,
      userId: auth.id,
      media: src.mediaPath ? { path: src.mediaPath, fileName: src.mediaName ?? 'file', mimeType: mimeOfPath(src.mediaPath) } : undefined,
      mediaType: src.mediaType,
      isForwarded: true,
      dataJson: marker,
      automatic: true,
    }, deps);
    if (opened) {
      // ticket.created for a new ticket; ticket.updated and ticket.changed for a reopened one (with the transaction).
      const by: TicketActor = { kind: 'user', userId: auth.id };
      await deps.bus.publish(opened.reopened ? ticketUpdated : ticketCreated, ticketBusEvent(opened.ticket), { trx });
      const change = opened.reopened ? ticketChangedEvent(opened.reopened, opened.ticket, by) : undefined;
      if (change) await deps.bus.publish(ticketChanged, change, { trx });
    }
    return { stored, opened };
  });

  if ('dup' in result && result.dup) {
    const [serialized] = await serializeMessages(deps, companyId, [result.dup]);
    return serialized;
  }
  const { stored } = result as { stored: StoredOutbound; opened?: OpenedTicket };
  return announceOutboundMessage(deps, stored);
}
