import { companyEvent, iso, mediaTypeOfPath } from '@atendo/sdk';
import type { DeliveryState, Message, Reaction as WireReaction, Ticket } from '@atendo/sdk/wire';
import type { Contact } from '@atendo/plugin-contacts/contract';
import type { MessageRow, TicketRow } from '../../model';
import { ticketAudiences } from '../../visibility';
import { socketTicketOf, ticketRooms } from '../core';
import type { TicketsDeps } from '../deps';

/**
 * Messages as answers and events show them (wire MessageL), and the small pure helpers every other
 * messages file shares (acks, media types, last-message text).
 */

/** Acks (spec: 0 clock, 1 sent, 2 delivered, 3 and 4 read). */
export const ACK = { pending: 0, sent: 1, delivered: 2, read: 3, played: 4 } as const;

/** `send_error` of a message whose sending failed (the spec's code; the detail goes to the log). */
export const SEND_ERROR = 'ERR_SENDING_WAPP_MSG';

/** Media types of text messages (editable; signed when the company signs messages). */
export const TEXT_TYPES = ['conversation', 'extendedTextMessage'];

/** A reaction stored on a message (wire `Reaction`). `senderId` is the provider id of the sender (absent for our own). */
export type Reaction = WireReaction;

/**
 * A message as answers and events show it (wire `Message`, MessageL): the row without its storage path,
 * timestamps as ISO strings, plus `mediaUrl` (signed URL or null), `contact` {id, name}|null, `quotedMsg`
 * {id, body, fromMe, mediaType, mediaUrl, isDeleted, contact}|null, `ticket` {id, queueId, queue {id, name,
 * color}|null} and `reactions`.
 */
export type SerializedMessage = Message;

/** The delivery state of each ack (0 pending, 1 sent, 2 delivered, 3 read, 4 played). */
const STATE_OF_ACK: DeliveryState[] = ['pending', 'sent', 'delivered', 'read', 'played'];

/**
 * A message's delivery state (wire `deliveryState`): 'failed' while `sendError` is set, else the state of its ack
 * (an ack out of 0..4 counts as the nearest one).
 */
export function deliveryStateOf(r: Pick<MessageRow, 'ack' | 'sendError'>): DeliveryState {
  if (r.sendError) return 'failed';
  return STATE_OF_ACK[Math.max(0, Math.min(STATE_OF_ACK.length - 1, Math.trunc(Number(r.ack) || 0)))];
}

/**
 * The columns of a message row as the wire shows them: no storage path, ISO timestamps, the provider's reason
 * of a failed send (`sendErrorDetail`, null when none) and the derived `deliveryState`.
 */
export function wireMessageRow(r: MessageRow): Omit<Message, 'mediaUrl' | 'contact' | 'quotedMsg' | 'ticket'> {
  const { mediaPath: _path, ...rest } = r;
  return { ...rest, sendErrorDetail: r.sendErrorDetail ?? null, deliveryState: deliveryStateOf(r), createdAt: iso(r.createdAt), updatedAt: iso(r.updatedAt) };
}

const toNum = (v: number | string | null | undefined): number | null => (v === null || v === undefined ? null : Number(v));

/** Normalises a raw `messages` row (bigint ids as numbers, reactions as an array). */
export function normalize(row: MessageRow): MessageRow {
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

/**
 * True when `companyId` erases what customers delete (company settings `enableLGPD` and `lgpdDeleteMessage`
 * both enabled): such messages are then shown without their content. Read only when `rows` hold one.
 */
export async function erasesDeletedMessages(deps: TicketsDeps, companyId: number, rows: Pick<MessageRow, 'isDeleted' | 'fromMe'>[]): Promise<boolean> {
  if (!rows.some((m) => m.isDeleted && !m.fromMe)) return false;
  const [lgpd, erase] = await Promise.all([deps.identity.getCompanySetting(companyId, 'enableLGPD'), deps.identity.getCompanySetting(companyId, 'lgpdDeleteMessage')]);
  return lgpd === 'enabled' && erase === 'enabled';
}

/**
 * Messages as answers and events show them (see `SerializedMessage`), in the given order. A message the
 * customer deleted keeps its content readable (marked `isDeleted`) unless the company erases them
 * (`erasesDeletedMessages`: LGPD settings), then it comes with an empty body and no media or raw data. One batched query
 * per relation (quoted messages, contacts, tickets, queues) whatever the page size. Scoped to `companyId`.
 */
export async function serializeMessages(
  deps: TicketsDeps,
  companyId: number,
  input: MessageRow[],
  opts: {
    /** The messages' tickets when the caller has them already (their queue is shown; no re-read when every one is there). */
    tickets?: Pick<TicketRow, 'id' | 'queueId'>[];
  } = {},
): Promise<SerializedMessage[]> {
  if (!input.length) return [];
  const rows = input.map(normalize);
  const quotedIds = [...new Set(rows.map((r) => r.quotedMsgId).filter((x): x is number => x !== null))];
  const quoted = quotedIds.length ? ((await deps.db('messages').where({ companyId }).whereIn('id', quotedIds)) as MessageRow[]).map(normalize) : [];
  const quotedById = new Map(quoted.map((q) => [q.id, q]));
  const contactIds = [...new Set([...rows, ...quoted].map((r) => r.contactId).filter((x): x is number => x !== null))];
  const ticketIds = [...new Set(rows.map((r) => r.ticketId))];
  const [contacts, tickets] = await Promise.all([
    contactIds.length ? deps.contacts.getMany(companyId, contactIds) : Promise.resolve([] as Contact[]),
    opts.tickets && ticketIds.every((id) => opts.tickets!.some((t) => t.id === id))
      ? Promise.resolve(opts.tickets.map((t) => ({ id: t.id, queueId: t.queueId })))
      : (deps.db('tickets').where({ companyId }).whereIn('id', ticketIds).select('id', 'queueId') as Promise<{ id: number; queueId: number | null }[]>),
  ]);
  const queueIds = [...new Set(tickets.map((t) => t.queueId).filter((x): x is number => x !== null))];
  const queues = await Promise.all(queueIds.map((id) => (deps.display ?? deps).queues.getQueue(companyId, id)));
  const queueById = new Map(queues.filter((q): q is NonNullable<typeof q> => Boolean(q)).map((q) => [q.id, { id: q.id, name: q.name, color: q.color }]));
  const ticketById = new Map(tickets.map((t) => [t.id, t]));
  const contactById = new Map(contacts.map((c) => [c.id, { id: c.id, name: c.name }]));
  const url = (path: string | null) => (path ? deps.uploads.url(companyId, path) : null);
  const contactOf = (id: number | null) => (id !== null ? (contactById.get(id) ?? null) : null);
  const erase = await erasesDeletedMessages(deps, companyId, [...rows, ...quoted]);
  const hidden = (m: MessageRow) => erase && m.isDeleted && !m.fromMe;

  return rows.map((r) => {
    const shown = hidden(r) ? { ...r, body: '', mediaPath: null, mediaName: null, dataJson: null } : r;
    const q0 = r.quotedMsgId !== null ? quotedById.get(r.quotedMsgId) : undefined;
    const q = q0 && hidden(q0) ? { ...q0, body: '', mediaPath: null } : q0;
    const t = ticketById.get(r.ticketId);
    const queueId = t?.queueId ?? null;
    return {
      ...wireMessageRow(shown),
      mediaUrl: url(shown.mediaPath),
      contact: contactOf(r.contactId),
      quotedMsg: q
        ? { id: q.id, body: q.body, fromMe: q.fromMe, mediaType: q.mediaType, mediaUrl: url(q.mediaPath), isDeleted: q.isDeleted, contact: contactOf(q.contactId) }
        : null,
      ticket: { id: r.ticketId, queueId, queue: queueId !== null ? (queueById.get(queueId) ?? null) : null },
    };
  });
}

/** The ticket as socket payloads show it (numbers masked for everyone when lgpdHideNumber is enabled). */
export const socketTicket = socketTicketOf;

/**
 * Emits `company-{cid}-appMessage` {action:'update', message} (after commit) to the audiences of the
 * message's ticket. No-op when the ticket is gone. `known`: the message's ticket row when the caller read it
 * with the message (null: gone); read here otherwise.
 */
export async function emitMessageUpdate(deps: TicketsDeps, row: MessageRow, action: 'update' | 'delete' = 'update', known?: TicketRow | null): Promise<SerializedMessage> {
  const ticket = known !== undefined ? (known ?? undefined) : ((await deps.db('tickets').where({ id: row.ticketId, companyId: row.companyId }).first()) as TicketRow | undefined);
  const [message] = await serializeMessages(deps, row.companyId, [row], { tickets: ticket ? [ticket] : undefined });
  if (ticket) deps.realtime.emitToCompany(row.companyId, companyEvent(row.companyId, 'appMessage'), { action, message }, { audiences: ticketAudiences(ticket), rooms: ticketRooms(ticket, true) });
  return message;
}
