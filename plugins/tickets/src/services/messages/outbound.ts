import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { AppError, camelRow, companyEvent, deleteTopic, editTopic, messageDelete, messageEdit, messageFailed, messageSend, messageSent, messageStatus, sendTopic, UPLOAD_TYPES, type Channel, type SendCommand } from '@atendo/sdk';
import type { MessageRow, TicketRow, TicketStatus } from '../../model';
import { ticketAudiences } from '../../visibility';
import { emitTicketUpdate, getTicketOr404, ticketRooms, ticketSnapshot } from '../core';
import { messageStored, type MessageStoredEvent, type TicketActor } from '../../contract';
import type { TicketsDeps } from '../deps';
import type { Contact } from '@atendo/plugin-contacts/contract';
import { fillOutgoingVariables } from './variables';
import { ACK, lastMessageOf, mediaTypeOf, mimeOfPath, normalize, serializeMessages, socketTicket, type SerializedMessage } from './serialize';

/**
 * Outbound messages (ours): stored pending in a transaction with the ticket's `lastMessage`; `message.stored` and
 * the `message.send.<channel>` command are written to the outbox in that same transaction (published after it
 * commits, even if the process dies right after); the socket pushes (`appMessage` create, ticket update) follow
 * the commit.
 */

/**
 * The channel topics this module publishes (`message.send`, `message.edit`, `message.delete`) and consumes
 * (`message.sent`, `message.failed`, `message.status`): the SDK's typed topics (kernel/sdk/src/channel.ts),
 * with their payloads (`SendCommand`, `EditCommand`, `ProviderMessageRef`, `MessageSentEvent`, ...).
 */
export const MESSAGE_TOPICS = { send: messageSend, edit: messageEdit, delete: messageDelete, sent: messageSent, failed: messageFailed, status: messageStatus } as const;
/** The per-channel command topics (`message.send.<channel>` ...): one consumer each (the channel's adapter). */
export const CHANNEL_COMMANDS = { send: sendTopic, edit: editTopic, delete: deleteTopic } as const;

/** Statuses a ticket must have for an attendant to send in it (spec §5). */
export const SENDABLE: TicketStatus[] = ['open', 'group'];

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

/** Input of `createOutboundMessage` / `insertOutboundMessage`. */
export interface OutboundInput {
  /** The ticket (its id and company count; its state is re-read under a row lock unless `locked`). */
  ticket: Pick<TicketRow, 'id' | 'companyId'> | TicketRow;
  /** `ticket` is the full row this transaction has locked already (not read again). */
  locked?: boolean;
  /** Plain ticket fields written with the message's ticket update (one write and one push for both). */
  ticketFields?: Partial<Pick<TicketRow, 'isBot' | 'amountUsedBotQueues'>>;
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
  /**
   * Who writes it, for `message.stored` (not stored). Default: the user `userId` unless `automatic`, else
   * the platform (`{kind: 'system', reason: 'automatic'}`).
   */
  by?: TicketActor;
}

/** A stored outbound message with its ticket after the write. */
export interface StoredOutbound {
  message: MessageRow;
  ticket: TicketRow;
  /** Who wrote it (`message.stored`). */
  by: TicketActor;
  /** The ticket's tag ids, read with its update (absent: read when announced). */
  ticketTagIds?: number[];
  /** The ticket's contact (and its tags), read in the transaction for the send command; reused by the pushes. */
  contact?: { contact: Contact | undefined; tags?: Awaited<ReturnType<NonNullable<TicketsDeps['contacts']['getManyWithTags']>>>['tags'] };
}

/**
 * Inserts an outbound message inside `trx` (fromMe, read, ack 0, wid null; private notes wid 'PVT…' and
 * ack 2), locking the ticket row (unless `locked`), and sets the ticket's `lastMessage`, `updatedAt` and
 * `fromMe` (and `ticketFields`). The body's
 * message variables are filled (`fillOutgoingVariables`; not in private notes and contact cards). Nothing
 * is emitted or published: call `announceOutboundMessage` after the transaction commits.
 * 404 ERR_NO_TICKET_FOUND, 400 ERR_TICKET_NOT_OPEN (unless `automatic`).
 */
export async function insertOutboundMessage(trx: Knex.Transaction, input: OutboundInput, deps: TicketsDeps): Promise<StoredOutbound> {
  const t = input.locked ? (input.ticket as TicketRow) : await getTicketOr404(trx, input.ticket.companyId, input.ticket.id, true);
  if (!input.automatic && !SENDABLE.includes(t.status)) throw new AppError('ERR_TICKET_NOT_OPEN');
  const isPrivate = Boolean(input.isPrivate);
  const mediaType = input.mediaType ?? (input.media ? mediaTypeOf(input.media.mimeType) : 'conversation');
  // Every outgoing text gets its message variables filled here, the one place all of them pass.
  const body = isPrivate || mediaType === 'contactMessage' || mediaType === 'multi_vcard' ? input.body : await fillOutgoingVariables(deps, t, input.body, input.userId);
  const [raw] = (await trx('messages')
    .insert({
      companyId: t.companyId,
      ticketId: t.id,
      contactId: null,
      wid: isPrivate ? `PVT${randomBytes(10).toString('hex').toUpperCase()}` : null,
      ack: isPrivate ? ACK.delivered : ACK.pending,
      read: true,
      fromMe: true,
      body,
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
  // The ticket's tag ids come back with its update (the pushes show its tags): no separate read.
  const [{ outboundTagIds, ...ticket }] = (await trx('tickets')
    .where({ id: t.id, companyId: t.companyId })
    .update({ ...input.ticketFields, lastMessage: lastMessageOf(mediaType, body, input.media?.fileName ?? null), fromMe: true, updatedAt: trx.fn.now() })
    .returning(['*', trx.raw('ARRAY(SELECT tt.tag_id FROM ticket_tags tt WHERE tt.ticket_id = tickets.id AND tt.company_id = tickets.company_id) AS outbound_tag_ids')])) as (TicketRow & { outboundTagIds: number[] })[];
  const by: TicketActor = input.by ?? (input.userId !== null && !input.automatic ? { kind: 'user', userId: input.userId } : { kind: 'system', reason: 'automatic' });
  const stored: StoredOutbound = { message: normalize(raw), ticket, by, ticketTagIds: outboundTagIds.map(Number) };
  await publishOutbound(deps, trx, stored);
  return stored;
}

/**
 * Writes the events of a stored outbound message into the outbox of `trx`: `message.stored` (private notes too; id
 * `message.stored:<companyId>:<messageId>`) and, unless private, the send command on its channel's topic
 * (`message.send.<channel>`, id `message.send:<companyId>:<messageId>`). Reads the ticket's contact (with its tags)
 * for the command and keeps it on `stored` for the pushes. Both leave with the transaction: a stored message is
 * always sent, a rolled-back one never.
 */
export async function publishOutbound(deps: TicketsDeps, trx: Knex.Transaction, stored: StoredOutbound): Promise<void> {
  const { message, ticket, by } = stored;
  const withTags = deps.contacts.getManyWithTags;
  const read = withTags
    ? await withTags(ticket.companyId, [ticket.contactId])
    : { contacts: await deps.contacts.getMany(ticket.companyId, [ticket.contactId]), tags: undefined };
  stored.contact = { contact: read.contacts[0], tags: read.tags };
  await deps.bus.publish(messageStored, messageStoredEvent(message, ticket, by), { id: `message.stored:${message.companyId}:${message.id}`, trx });
  if (message.isPrivate) return;
  const cmd = await sendCommand(deps, ticket, message, read.contacts[0], trx);
  await deps.bus.publish(sendTopic(cmd.channel), cmd, { id: `message.send:${ticket.companyId}:${message.id}`, trx });
}

/** The timestamp columns of a ticket row (what a row read as JSON carries as strings). */
const TICKET_DATE_KEYS = ['closedAt', 'acceptedAt', 'createdAt', 'updatedAt'] as const;

/** A ticket row read as JSON (`row_to_json`): camelCase keys, its timestamps as Dates like a row read by knex. */
export function ticketFromJson(json: Record<string, unknown>): TicketRow {
  const row = camelRow<Record<string, unknown>>(json);
  for (const k of TICKET_DATE_KEYS) if (typeof row[k] === 'string') row[k] = new Date(row[k] as string);
  return row as unknown as TicketRow;
}

/** Input of `storeOutboundAtOnce`: a message whose body is final (no message variables to fill, no quote). */
export interface AtOnceInput {
  companyId: number;
  ticketId: number;
  /** The ticket must have one of these statuses, else nothing is written. */
  allowed: readonly TicketStatus[];
  ticketFields: { isBot?: boolean; amountUsedBotQueues?: number };
  body: string;
  media?: OutboundMedia;
  isPrivate: boolean;
  userId: number | null;
  by: TicketActor;
}

/** What `storeOutboundAtOnce` did: the message stored, or why not (the ticket's status, or no ticket). */
export type AtOnceResult =
  | { stored: StoredOutbound; before: Pick<TicketRow, 'isBot' | 'amountUsedBotQueues'> }
  | { stored?: undefined; status: TicketStatus | null };

/**
 * `insertOutboundMessage` in one statement, without a transaction around it: locks the ticket row, checks
 * its status against `input.allowed`, inserts the message (fromMe, read, ack 0; private notes wid 'PVT…'
 * and ack 2) and sets the ticket's `lastMessage`, `fromMe`, `updatedAt` and `ticketFields`, returning
 * both rows, the ticket's tag ids and its fields before the write. For a body that is final: the caller
 * has checked it needs no message variables (`fillOutgoingVariables`) and quotes nothing. Five statements
 * (BEGIN, lock, insert, update, COMMIT) become one round trip on every automatic send (bot replies,
 * campaigns, schedules). Nothing is emitted or published: call `announceOutboundMessage` after it.
 */
export async function storeOutboundAtOnce(deps: TicketsDeps, input: AtOnceInput, trx: Knex.Transaction): Promise<AtOnceResult> {
  const mediaType = input.media ? mediaTypeOf(input.media.mimeType) : 'conversation';
  const { rows } = (await trx.raw(
    `WITH t AS (
       SELECT id, company_id, status, queue_id, is_bot, amount_used_bot_queues FROM tickets
       WHERE id = ? AND company_id = ? FOR NO KEY UPDATE
     ), m AS (
       INSERT INTO messages (company_id, ticket_id, contact_id, wid, ack, read, from_me, body, media_path, media_name, media_type, is_private, is_forwarded, quoted_msg_id, queue_id, user_id, data_json)
       SELECT t.company_id, t.id, NULL, ?, ?, true, true, ?, ?, ?, ?, ?, false, NULL, t.queue_id, ?, NULL FROM t
       WHERE t.status = ANY(?::varchar[])
       RETURNING *
     ), u AS (
       UPDATE tickets SET is_bot = COALESCE(?::boolean, tickets.is_bot), amount_used_bot_queues = COALESCE(?::int, tickets.amount_used_bot_queues),
         last_message = ?, from_me = true, updated_at = now()
       FROM m WHERE tickets.id = m.ticket_id AND tickets.company_id = m.company_id
       RETURNING tickets.*, ARRAY(SELECT tt.tag_id FROM ticket_tags tt WHERE tt.ticket_id = tickets.id AND tt.company_id = tickets.company_id) AS outbound_tag_ids
     )
     SELECT t.status AS before_status, t.is_bot AS before_is_bot, t.amount_used_bot_queues AS before_amount, (SELECT row_to_json(u) FROM u) AS after_ticket, m.*
     FROM t LEFT JOIN m ON true`,
    [
      input.ticketId,
      input.companyId,
      input.isPrivate ? `PVT${randomBytes(10).toString('hex').toUpperCase()}` : null,
      input.isPrivate ? ACK.delivered : ACK.pending,
      input.body,
      input.media?.path ?? null,
      input.media?.fileName ?? null,
      mediaType,
      input.isPrivate,
      input.userId,
      [...input.allowed],
      input.ticketFields.isBot ?? null,
      input.ticketFields.amountUsedBotQueues ?? null,
      lastMessageOf(mediaType, input.body, input.media?.fileName ?? null),
    ] as unknown as readonly string[],
  )) as { rows: (Record<string, unknown> & { before_status: TicketStatus; before_is_bot: boolean; before_amount: number; after_ticket: Record<string, unknown> | null })[] };
  const r = rows[0];
  if (!r) return { status: null };
  const { before_status: status, before_is_bot: isBot, before_amount: amountUsedBotQueues, after_ticket: after, ...message } = r;
  if (!after || message.id === null) return { status };
  const { outboundTagIds, ...ticket } = ticketFromJson(after) as TicketRow & { outboundTagIds?: number[] };
  const stored: StoredOutbound = { message: normalize(camelRow<MessageRow>(message)), ticket: ticket as TicketRow, by: input.by, ticketTagIds: (outboundTagIds ?? []).map(Number) };
  await publishOutbound(deps, trx, stored);
  return { stored, before: { isBot, amountUsedBotQueues } };
}

/**
 * After commit: pushes `company-{cid}-appMessage` {action:'create', message, ticket, contact} to the ticket's
 * audiences and the ticket update (unless `emitTicket` is false). The events (`message.stored`, the send command)
 * already left with the transaction (`publishOutbound`). Never throws for a failed push (clients recover on
 * reconnect); returns the serialized message.
 */
export async function announceOutboundMessage(deps: TicketsDeps, stored: StoredOutbound, opts: { emitTicket?: boolean } = {}): Promise<SerializedMessage> {
  const { message, ticket } = stored;
  // The ticket's contact (with its tags when the contacts plugin offers it): read in the transaction, else now.
  const withTags = deps.contacts.getManyWithTags;
  const [[serialized], { contacts: [contact], tags: contactTags }] = await Promise.all([
    serializeMessages(deps, ticket.companyId, [message], { tickets: [ticket] }),
    stored.contact
      ? Promise.resolve({ contacts: stored.contact.contact ? [stored.contact.contact] : [], tags: stored.contact.tags })
      : withTags
        ? withTags(ticket.companyId, [ticket.contactId])
        : deps.contacts.getMany(ticket.companyId, [ticket.contactId]).then((contacts) => ({ contacts, tags: undefined })),
  ]);
  try {
    const ticketTags = stored.ticketTagIds ? new Map([[ticket.id, stored.ticketTagIds]]) : undefined;
    const wireTicket = await socketTicket(deps, ticket, contact ? { contacts: [contact], contactTags, ticketTags } : undefined);
    deps.realtime.emitToCompany(
      ticket.companyId,
      companyEvent(ticket.companyId, 'appMessage'),
      { action: 'create', message: serialized, ticket: wireTicket, contact: wireTicket.contact ?? null },
      { audiences: ticketAudiences(ticket), rooms: ticketRooms(ticket) },
    );
    // The same payload as the message event's ticket (one serialization for both pushes).
    if (opts.emitTicket !== false) await emitTicketUpdate(deps, ticket, undefined, wireTicket);
  } catch (err) {
    deps.log.error({ err, messageId: message.id }, 'messages: real-time push failed');
  }
  return serialized;
}

/** The `message.stored` payload of a stored message (`ticket`: the row after the write). */
export function messageStoredEvent(message: MessageRow, ticket: TicketRow, by: TicketActor): MessageStoredEvent {
  return {
    companyId: message.companyId,
    ticketId: message.ticketId,
    messageId: message.id,
    fromMe: message.fromMe,
    isPrivate: message.isPrivate,
    by,
    body: message.body,
    mediaType: message.mediaType,
    hasMedia: message.mediaPath !== null,
    createdAt: new Date(message.createdAt).toISOString(),
    ticket: ticketSnapshot(ticket),
  };
}

/** Builds the `message.send` payload (SDK `SendCommand`) of a stored message; `contact`: the ticket's (plain row). */
export async function sendCommand(deps: TicketsDeps, ticket: TicketRow, message: MessageRow, contact: Contact | undefined, trx: Knex.Transaction): Promise<SendCommand> {
  let quotedWid: string | undefined;
  if (message.quotedMsgId !== null) {
    const q = (await trx('messages').where({ id: message.quotedMsgId, companyId: message.companyId }).first('wid', 'isPrivate')) as { wid: string | null; isPrivate: boolean } | undefined;
    if (q?.wid && !q.isPrivate) quotedWid = q.wid;
  }
  const cmd: SendCommand = {
    companyId: ticket.companyId,
    messageId: message.id,
    ticketId: ticket.id,
    connectionId: ticket.whatsappId,
    // A ticket's channel is one of the SDK's channels (it is its connection's).
    channel: ticket.channel as Channel,
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
  // insertOutboundMessage writes the message's events into the same transaction (publishOutbound).
  const stored = await deps.db.transaction((trx) => insertOutboundMessage(trx, input, deps));
  const message = await announceOutboundMessage(deps, stored);
  return { message, row: stored.message, ticket: stored.ticket };
}
