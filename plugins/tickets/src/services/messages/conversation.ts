import type { Knex } from 'knex';
import type { Ticket } from '@atendo/sdk/wire';
import { AppError, type AuthUser } from '@atendo/sdk';
import type { MessageRow, TicketRow, Viewer } from '../../model';
import { applyVisibility, canSee } from '../../visibility';
import { emitTicketUnread, getTicketOr404, loadViewer, serializeTickets, shouldMask } from '../core';
import type { TicketsDeps } from '../deps';
import { guardTicket } from '../guard';
import { MESSAGES_PAGE_SIZE } from '../../schemas/messages';
import { serializeMessages, type SerializedMessage } from './serialize';

/** The conversation view (GET /messages/:ticketId) and the visibility checks the message commands share. */

/** Tickets of the same conversation as `t`: same company, contact, connection and group flag (alias `tickets`). */
export function conversationTickets(db: Knex | Knex.Transaction, t: Pick<TicketRow, 'companyId' | 'contactId' | 'whatsappId' | 'isGroup'>): Knex.QueryBuilder {
  const q = db('tickets').where({ 'tickets.companyId': t.companyId, 'tickets.contactId': t.contactId, 'tickets.isGroup': t.isGroup });
  if (t.whatsappId === null) q.whereNull('tickets.whatsappId');
  else q.where('tickets.whatsappId', t.whatsappId);
  return q;
}

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
export async function visibleTicket(deps: TicketsDeps, auth: AuthUser, ticketId: number): Promise<{ ticket: TicketRow; viewer: Viewer }> {
  return guardTicket(deps, auth, ticketId);
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
): Promise<{ messages: SerializedMessage[]; ticket: Ticket; count: number; hasMore: boolean }> {
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
