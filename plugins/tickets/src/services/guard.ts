import type { Knex } from 'knex';
import { AppError, type AuthUser } from '@atendo/sdk';
import type { MessageRow, TicketRow, Viewer } from '../model';
import { canSee } from '../visibility';
import { getTicketOr404, loadViewer, type TicketLock } from './core';
import type { TicketsDeps } from './deps';

/**
 * The one visibility guard of ticket-scoped routes (issue 18 item 4). Every route that reads or writes a
 * ticket, its messages, notes, tags or log names the ticket directly (`:id`, `:ticketId`, `ticketId`) or
 * through a message (`:id`, `messageId`) or a note, and goes through one of these functions before doing
 * anything, so reading and writing follow the same rule as the ticket lists (`canSee`: the wire rule of
 * `@atendo/sdk/wire` plus the company check):
 * - an id of another company is unknown: 404 (ERR_NO_TICKET_FOUND / ERR_NO_MESSAGE_FOUND / ERR_NO_NOTE_FOUND);
 * - a ticket of the caller's company the caller cannot see: 403 ERR_NO_PERMISSION;
 * - a user who vanished (deleted): 403 ERR_NO_PERMISSION.
 * `plugins/tickets/test/guard.test.ts` enumerates every registered route that names a ticket or a
 * message and proves each one refuses a ticket outside the caller's view.
 */

/** What the guard hands back: the visible ticket and the caller's viewer facts. */
export interface Guarded {
  ticket: TicketRow;
  viewer: Viewer;
}

/** Options of a guarded load: inside `trx`, with the ticket's row locked (`lock`, needs `trx`). */
export interface GuardOptions {
  trx?: Knex.Transaction;
  lock?: boolean | TicketLock;
  /** The caller's viewer facts when already loaded (saves a query). */
  viewer?: Viewer;
}

/** Throws 403 ERR_NO_PERMISSION unless `viewer` sees `ticket` (same company and the wire visibility rule). */
export function assertVisible(viewer: Viewer, ticket: Pick<TicketRow, 'companyId' | 'isGroup' | 'queueId' | 'userId'>): void {
  if (!canSee(viewer, ticket)) throw new AppError('ERR_NO_PERMISSION', 'You cannot see this ticket');
}

/** The ticket `key` (id or uuid) of the caller's company if the caller sees it (404 / 403 otherwise). */
export async function guardTicket(deps: TicketsDeps, auth: AuthUser, key: number | { uuid: string }, opts: GuardOptions = {}): Promise<Guarded> {
  const viewer = opts.viewer ?? (await loadViewer(deps, auth));
  const db = opts.trx ?? deps.db;
  let ticket: TicketRow;
  if (typeof key === 'number') ticket = await getTicketOr404(db, auth.companyId, key, opts.trx ? (opts.lock ?? false) : false);
  else {
    const q = db('tickets').where({ companyId: auth.companyId, uuid: key.uuid.toLowerCase() }).first();
    if (opts.trx && opts.lock === 'delete') q.forUpdate();
    else if (opts.trx && opts.lock) q.forNoKeyUpdate();
    const row = (await q) as TicketRow | undefined;
    if (!row) throw new AppError('ERR_NO_TICKET_FOUND');
    ticket = row;
  }
  assertVisible(viewer, ticket);
  return { ticket, viewer };
}

/** The message `id` of the caller's company and its ticket, if the caller sees that ticket (404 ERR_NO_MESSAGE_FOUND / 403). */
export async function guardMessage(deps: TicketsDeps, auth: AuthUser, id: number, opts: GuardOptions = {}): Promise<Guarded & { raw: MessageRow }> {
  const db = opts.trx ?? deps.db;
  const raw = (await db('messages').where({ id, companyId: auth.companyId }).first()) as MessageRow | undefined;
  if (!raw) throw new AppError('ERR_NO_MESSAGE_FOUND');
  const { ticket, viewer } = await guardTicket(deps, auth, Number(raw.ticketId), opts);
  return { raw, ticket, viewer };
}

/** A ticket note of the caller's company and its ticket, if the caller sees that ticket (404 ERR_NO_NOTE_FOUND / 403). */
export async function guardNote<N extends { ticketId: number }>(deps: TicketsDeps, auth: AuthUser, id: number, opts: GuardOptions = {}): Promise<Guarded & { note: N }> {
  const db = opts.trx ?? deps.db;
  const note = (await db('ticketNotes').where({ id, companyId: auth.companyId }).first()) as N | undefined;
  if (!note) throw new AppError('ERR_NO_NOTE_FOUND');
  const { ticket, viewer } = await guardTicket(deps, auth, Number(note.ticketId), opts);
  return { note, ticket, viewer };
}
