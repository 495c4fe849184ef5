import type { Knex } from 'knex';
import { PermanentError, type BusMessage } from '@atendo/sdk';
import type { MessageRow, TicketRow } from '../../model';
import { camelRow } from '@atendo/sdk';
import type { TicketsDeps } from '../deps';
import { ACK, SEND_ERROR, emitMessageUpdate, normalize, type Reaction } from './serialize';
import { MESSAGE_TOPICS } from './outbound';

/**
 * Provider results (`message.sent`, `message.failed`, `message.status` on the bus) and the changes the
 * inbound pipeline applies to stored messages (failed statuses, reactions, edits, remote deletes).
 */

/** The consumer queue of the results (`message.sent`, `message.failed`, `message.status`). */
export const RESULTS_QUEUE = 'tickets.message-results';

const isPositiveInt = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= Number.MAX_SAFE_INTEGER;
const isWid = (v: unknown): v is string => typeof v === 'string' && v.length >= 1 && v.length <= 255;
const isAck = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 4;

/** Longest provider reason kept on a message (`send_error_detail`). */
export const SEND_ERROR_DETAIL_MAX = 1000;

/**
 * The provider's reason of a failed send as stored in `send_error_detail`: the `error` of `message.failed` (a string,
 * or `{code, text, retryable}`: "text (code)", the text or the code alone when only one is there; another object
 * as JSON). Null when there is none. At most SEND_ERROR_DETAIL_MAX characters.
 */
export function sendErrorDetailOf(error: unknown): string | null {
  let detail: string;
  if (error === null || error === undefined) return null;
  if (typeof error === 'string') detail = error;
  else if (typeof error === 'object') {
    const { code, text, message } = error as { code?: unknown; text?: unknown; message?: unknown };
    const t = typeof text === 'string' && text.trim() ? text.trim() : typeof message === 'string' && message.trim() ? message.trim() : '';
    const c = typeof code === 'string' || typeof code === 'number' ? String(code).trim() : '';
    detail = t && c ? `${t} (${c})` : t || c || JSON.stringify(error);
  } else detail = String(error);
  detail = detail.trim();
  return detail ? detail.slice(0, SEND_ERROR_DETAIL_MAX) : null;
}

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
  const ack = p.ack ?? ACK.sent;
  try {
    // One conditional statement (no explicit transaction): the row changes only when something differs,
    // so a repeated result writes and pushes nothing; ack never goes down. The message's ticket comes back
    // with it, for the push's audiences.
    const { rows } = (await deps.db.raw(
      `UPDATE messages SET wid = ?, ack = GREATEST(ack, ?), send_error = NULL, send_error_detail = NULL, updated_at = now()
       WHERE id = ? AND company_id = ? AND is_private = false AND (wid IS DISTINCT FROM ? OR ack < ? OR send_error IS NOT NULL)
       RETURNING messages.*, (SELECT row_to_json(t) FROM tickets t WHERE t.id = messages.ticket_id AND t.company_id = messages.company_id) AS ticket_row`,
      [p.wid, ack, p.messageId, p.companyId, p.wid, ack],
    )) as { rows: (Record<string, unknown> & { ticket_row: Record<string, unknown> | null })[] };
    if (!rows[0]) return undefined;
    const { ticket_row: ticketRow, ...changed } = rows[0];
    const row = normalize(camelRow<MessageRow>(changed));
    await emitMessageUpdate(deps, row, 'update', ticketRow ? camelRow<TicketRow>(ticketRow) : null);
    return row;
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
 * `send_error` 'ERR_SENDING_WAPP_MSG' and `send_error_detail` the provider's reason (`sendErrorDetailOf`), and an `appMessage` update is
 * pushed; messages already sent, private notes and unknown ids are ignored. Idempotent.
 */
export async function applyFailed(deps: TicketsDeps, p: { companyId: number; messageId: number; error?: unknown }): Promise<MessageRow | undefined> {
  if (isSystemMessage(p)) return undefined;
  if (!isPositiveInt(p?.companyId) || !isPositiveInt(p.messageId)) throw new PermanentError('message.failed: malformed payload');
  deps.log.warn({ companyId: p.companyId, messageId: p.messageId, error: (typeof p.error === 'string' ? p.error : JSON.stringify(p.error ?? '')).slice(0, 1000) }, 'messages: sending failed');
  return changeMessage(deps, { id: p.messageId, companyId: p.companyId }, async (row, trx) => {
    if (row.isPrivate || row.ack > ACK.pending || row.sendError === SEND_ERROR) return undefined;
    const [u] = (await trx('messages').where({ id: row.id, companyId: row.companyId }).update({ sendError: SEND_ERROR, sendErrorDetail: sendErrorDetailOf(p.error), updatedAt: trx.fn.now() }).returning('*')) as MessageRow[];
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
    const [u] = (await trx('messages').where({ id: row.id, companyId: row.companyId }).update({ sendError: SEND_ERROR, sendErrorDetail: sendErrorDetailOf(p.error), updatedAt: trx.fn.now() }).returning('*')) as MessageRow[];
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
    const [u] = (await trx('messages').where({ id: row.id, companyId: row.companyId }).update({ ack: p.ack, sendError: null, sendErrorDetail: null, updatedAt: trx.fn.now() }).returning('*')) as MessageRow[];
    return u;
  });
}

/**
 * A reaction on the message `wid` of `companyId`: replaces the sender's previous reaction (a sender holds at
 * most one: ourselves when `fromMe`, else `senderId`); an empty `emoji` removes it. Pushes an
 * `appMessage` update when something changed. Returns the updated row, or undefined (unknown wid, no change).
 */
export async function applyReaction(
  deps: TicketsDeps,
  companyId: number,
  wid: string,
  r: { emoji: string; fromMe: boolean; senderId?: string | null },
  /** Runs in the change's transaction when the reaction changed (our reaction's send command). */
  withChange?: (trx: Knex.Transaction) => Promise<void>,
): Promise<MessageRow | undefined> {
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
    if (u && withChange) await withChange(trx);
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
    [MESSAGE_TOPICS.sent.name, MESSAGE_TOPICS.failed.name, MESSAGE_TOPICS.status.name],
    async (m: BusMessage<Record<string, unknown>>) => {
      // Payloads come from other processes: each apply* validates its own (PermanentError when malformed).
      const p = m.payload as never;
      if (m.topic === MESSAGE_TOPICS.sent.name) await applySent(deps, p);
      else if (m.topic === MESSAGE_TOPICS.failed.name) await applyFailed(deps, p);
      else if (m.topic === MESSAGE_TOPICS.status.name) await applyStatus(deps, p);
    },
    { queue: RESULTS_QUEUE, maxRetries: 3 },
  );
  return () => sub.unsubscribe();
}
