import type { Knex } from 'knex';
import { AppError, sendTopic, type AuthUser } from '@atendo/sdk';
import type { MessageRow, TicketRow } from '../../model';
import type { TicketsDeps } from '../deps';
import { guardMessage } from '../guard';
import { sendCommand } from './outbound';
import { emitMessageUpdate, lastMessageOf, normalize, serializeMessages, type SerializedMessage } from './serialize';

/**
 * Failed sends and their resend (issue 30: delivery state and redrive). A failed send is a message of ours
 * (`fromMe`), not a private note, not deleted, with `send_error` set (`message.failed`, or a `failed` status of
 * the provider). Resending it clears the error (ack 0, pending again) and writes a new send command into the
 * outbox in the same transaction, so the command leaves exactly when the message shows pending again.
 */

/** Page size of GET /messages/failed. */
export const FAILED_PAGE_SIZE = 20;
/** Most failed sends one POST /messages/failed/resend resends (the oldest first); call again for more. */
export const RESEND_BATCH_MAX = 1000;
/** Longest body excerpt in the failed sends list. */
const EXCERPT_MAX = 120;

/** True when `m` is a failed send that may be resent (ours, not private, not deleted, `send_error` set). */
export function isResendable(m: Pick<MessageRow, 'fromMe' | 'isPrivate' | 'isDeleted' | 'sendError'>): boolean {
  return m.fromMe && !m.isPrivate && !m.isDeleted && Boolean(m.sendError);
}

/** The failed sends of a company: the condition every query of this module starts from. */
function failedSends(q: Knex.QueryBuilder, companyId: number): Knex.QueryBuilder {
  return q.where({ 'm.companyId': companyId, 'm.fromMe': true, 'm.isPrivate': false, 'm.isDeleted': false }).whereNotNull('m.sendError');
}

/**
 * Resends the failed send `messageId` of `companyId` in one transaction: locks the row, checks it is resendable
 * (else 400 ERR_VALIDATION when `strict`, or nothing), clears `send_error` and `send_error_detail` (ack 0), and writes
 * the send command (`sendCommand`, the same one the first send built) on its channel's topic into the outbox with
 * id `message.send:<companyId>:<messageId>:r<timestamp>` (a resend is a new command: its own id). After commit the
 * `appMessage` update is pushed. Returns the updated row, or undefined when nothing was resent.
 */
export async function resendStored(deps: TicketsDeps, companyId: number, messageId: number, strict = false): Promise<MessageRow | undefined> {
  const done = await deps.db.transaction(async (trx) => {
    const raw = (await trx('messages').where({ id: messageId, companyId }).forUpdate().first()) as MessageRow | undefined;
    if (!raw) {
      if (strict) throw new AppError('ERR_NO_MESSAGE_FOUND');
      return undefined;
    }
    const message = normalize(raw);
    if (!isResendable(message)) {
      if (strict) throw new AppError('ERR_VALIDATION', 'Only a failed send of ours (not a private note, not deleted) can be resent');
      return undefined;
    }
    const ticket = (await trx('tickets').where({ id: message.ticketId, companyId }).first()) as TicketRow | undefined;
    if (!ticket) {
      if (strict) throw new AppError('ERR_NO_TICKET_FOUND');
      return undefined;
    }
    const [contact] = await deps.contacts.getMany(companyId, [ticket.contactId]);
    const [updated] = (await trx('messages')
      .where({ id: message.id, companyId })
      .update({ sendError: null, sendErrorDetail: null, ack: 0, updatedAt: trx.fn.now() })
      .returning('*')) as MessageRow[];
    const row = normalize(updated);
    const cmd = await sendCommand(deps, ticket, row, contact, trx);
    await deps.bus.publish(sendTopic(cmd.channel), cmd, { trx, id: `message.send:${companyId}:${message.id}:r${Date.now()}` });
    return { row, ticket };
  });
  if (!done) return undefined;
  try {
    await emitMessageUpdate(deps, done.row, 'update', done.ticket);
  } catch (err) {
    deps.log.error({ err, messageId }, 'messages: real-time push of a resend failed');
  }
  return done.row;
}

/**
 * POST /messages/:messageId/resend: resends a failed send the caller may see (its ticket: 404 ERR_NO_MESSAGE_FOUND
 * outside the company, 403 ERR_NO_PERMISSION); 400 ERR_VALIDATION unless it is a failed send of ours, not private,
 * not deleted. Returns the serialized message (pending again, `deliveryState` 'pending').
 */
export async function resendMessage(deps: TicketsDeps, auth: AuthUser, messageId: number): Promise<SerializedMessage> {
  const { raw } = await guardMessage(deps, auth, messageId);
  if (!isResendable(normalize(raw))) throw new AppError('ERR_VALIDATION', 'Only a failed send of ours (not a private note, not deleted) can be resent');
  const row = await resendStored(deps, auth.companyId, Number(raw.id), true);
  // `resendStored` pushed the update already: the answer is the same serialization.
  const [m] = await serializeMessages(deps, auth.companyId, [row!]);
  return m;
}

/** A failed send as GET /messages/failed lists it. */
export interface FailedSend {
  id: number;
  ticketId: number;
  contactId: number | null;
  contactName: string | null;
  channel: string;
  /** The text (at most 120 characters), or what the ticket list shows for media ('Localização', the file name...). */
  body: string;
  mediaType: string;
  sendError: string;
  sendErrorDetail: string | null;
  createdAt: string;
}

/**
 * GET /messages/failed?pageNumber=: the company's failed sends, newest first, FAILED_PAGE_SIZE a page, with their
 * ticket, contact name, channel, a body excerpt and the reason. `{records, count, hasMore}`.
 */
export async function listFailedSends(deps: TicketsDeps, companyId: number, pageNumber = 1): Promise<{ records: FailedSend[]; count: number; hasMore: boolean }> {
  const offset = (pageNumber - 1) * FAILED_PAGE_SIZE;
  const [rows, [{ count }]] = await Promise.all([
    failedSends(deps.db('messages as m').join('tickets as t', function () {
      this.on('t.id', 'm.ticketId').andOn('t.companyId', 'm.companyId');
    }), companyId)
      .orderBy([{ column: 'm.createdAt', order: 'desc' }, { column: 'm.id', order: 'desc' }])
      .limit(FAILED_PAGE_SIZE)
      .offset(offset)
      .select('m.id', 'm.ticketId', 'm.body', 'm.mediaType', 'm.mediaName', 'm.sendError', 'm.sendErrorDetail', 'm.createdAt', 't.contactId', 't.channel') as Promise<
      { id: number | string; ticketId: number; body: string; mediaType: string; mediaName: string | null; sendError: string; sendErrorDetail: string | null; createdAt: Date; contactId: number | null; channel: string }[]
    >,
    failedSends(deps.db('messages as m'), companyId).count({ count: '*' }) as Promise<{ count: string | number }[]>,
  ]);
  const contactIds = [...new Set(rows.map((r) => r.contactId).filter((x): x is number => x !== null))];
  const contacts = contactIds.length ? await deps.contacts.getMany(companyId, contactIds) : [];
  const nameOf = new Map(contacts.map((c) => [c.id, c.name]));
  const total = Number(count);
  return {
    records: rows.map((r) => ({
      id: Number(r.id),
      ticketId: r.ticketId,
      contactId: r.contactId,
      contactName: r.contactId !== null ? (nameOf.get(r.contactId) ?? null) : null,
      channel: r.channel,
      body: lastMessageOf(r.mediaType, r.body ?? '', r.mediaName).slice(0, EXCERPT_MAX),
      mediaType: r.mediaType,
      sendError: r.sendError,
      sendErrorDetail: r.sendErrorDetail,
      createdAt: new Date(r.createdAt).toISOString(),
    })),
    count: total,
    hasMore: offset + rows.length < total,
  };
}

/**
 * POST /messages/failed/resend {ids?}: resends the given failed sends of the company (ids of other companies, or of
 * messages that are not failed sends, are skipped), or every one when `ids` is absent (the oldest first, at most
 * RESEND_BATCH_MAX a call). Each in its own transaction (`resendStored`). A bulk resend skips the failed sends to
 * contacts who opted out (issue 34: bulk sends honour opt-outs; `contacts.privacyOf`), counted in `skippedOptedOut`
 * (one of them can still be resent on its own, POST /messages/:messageId/resend). Returns how many were resent.
 */
export async function resendFailedSends(deps: TicketsDeps, companyId: number, ids?: number[]): Promise<{ resent: number; skippedOptedOut: number }> {
  const targets: number[] = [];
  let skippedOptedOut = 0;
  // Pages of failed sends (oldest first) until RESEND_BATCH_MAX are resendable: opted-out ones do not take the slots.
  for (let after: { createdAt: Date; id: number } | null = null; targets.length < RESEND_BATCH_MAX; ) {
    const q = failedSends(deps.db('messages as m'), companyId)
      .join('tickets as t', 't.id', 'm.ticketId')
      .orderBy([{ column: 'm.createdAt', order: 'asc' }, { column: 'm.id', order: 'asc' }])
      .limit(RESEND_BATCH_MAX);
    if (ids) q.whereIn('m.id', ids);
    if (after) {
      const a = after;
      q.where((w) => w.where('m.createdAt', '>', a.createdAt).orWhere((x) => x.where('m.createdAt', '=', a.createdAt).andWhere('m.id', '>', a.id)));
    }
    const rows = (await q.select('m.id', 'm.createdAt', 't.contactId', 't.isGroup')) as { id: number | string; createdAt: Date; contactId: number; isGroup: boolean }[];
    if (!rows.length) break;
    const people = [...new Set(rows.filter((r) => !r.isGroup).map((r) => r.contactId))];
    const privacy = people.length && deps.contacts.privacyOf ? await deps.contacts.privacyOf(companyId, people) : new Map<number, { optedOutAt: string | null }>();
    for (const r of rows) {
      if (targets.length >= RESEND_BATCH_MAX) break;
      if (!r.isGroup && privacy.get(r.contactId)?.optedOutAt) skippedOptedOut++;
      else targets.push(Number(r.id));
    }
    const last = rows[rows.length - 1];
    after = { createdAt: last.createdAt, id: Number(last.id) };
    if (ids || rows.length < RESEND_BATCH_MAX) break;
  }
  let resent = 0;
  for (const id of targets) if (await resendStored(deps, companyId, id)) resent++;
  return { resent, skippedOptedOut };
}
