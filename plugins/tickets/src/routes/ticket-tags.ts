import type { FastifyInstance } from 'fastify';
import type { Knex } from 'knex';
import { AppError, ErrorResponse, type AuthUser } from '@atendo/sdk';
import type { TicketRow } from '../model';
import type { TicketsDeps } from '../services/deps';
import { emitTicketUpdate, getTicketOr404, loadViewer } from '../services/core';
import { canSee } from '../visibility';
import { TicketIdParams, TicketTagAnswer, TicketTagParams, TicketTagsRemovedAnswer } from '../schemas/tickets';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse };

/**
 * Ticket tags (kanban lanes and plain tags on tickets; spec 2-tickets.md §4 "Kanban drag", §7). Each
 * route needs a ticket of the caller's company (404 ERR_NO_TICKET_FOUND) that the caller can see (403
 * ERR_NO_PERMISSION), runs in one transaction holding the ticket's row lock, and emits the ticket update
 * (`company-{id}-ticket` {action:'update'}) after commit.
 * - `PUT /ticket-tags/:ticketId/:tagId` -> {ticketId, tagId}; the tag must be the company's (404
 *   ERR_NO_TAG_FOUND); idempotent.
 * - `DELETE /ticket-tags/:ticketId` -> {message, removed}: removes every tag of the ticket (the kanban move).
 * - `DELETE /ticket-tags/:ticketId/:tagId` -> {message, removed} (removed 0 when it was not linked).
 * Also registers the tags plugin's `ticketsCount` counter (links per tag, scoped to the company).
 */
export async function ticketTagRoutes(app: FastifyInstance, deps: TicketsDeps): Promise<void> {
  deps.tags.registerCounter('ticketsCount', async (companyId, tagIds) => {
    const out = new Map<number, number>();
    if (!tagIds.length) return out;
    const rows: { tagId: number; n: string }[] = await deps.db('ticketTags').where({ companyId }).whereIn('tagId', tagIds).groupBy('tagId').select('tagId').count({ n: '*' });
    for (const r of rows) out.set(r.tagId, Number(r.n));
    return out;
  });

  /** Runs `fn` on the locked, visible ticket, then emits its update. */
  const withTicket = async <T>(auth: AuthUser, ticketId: number, fn: (trx: Knex.Transaction, t: TicketRow) => Promise<T>): Promise<T> => {
    const viewer = await loadViewer(deps, auth);
    const { t, out } = await deps.db.transaction(async (trx) => {
      const row = await getTicketOr404(trx, auth.companyId, ticketId, true);
      if (!canSee(viewer, row)) throw new AppError('ERR_NO_PERMISSION', 'You cannot see this ticket');
      // updatedAt is left alone: moving a kanban card does not move the ticket up the lists.
      return { t: row, out: await fn(trx, row) };
    });
    try {
      await emitTicketUpdate(deps, t);
    } catch (err) {
      deps.log.error({ err }, 'tickets: ticket-tag emit failed');
    }
    return out;
  };

  app.put('/ticket-tags/:ticketId/:tagId', {
    schema: { tags: ['ticket tags'], summary: 'Link a tag to a ticket', params: TicketTagParams, response: { 200: TicketTagAnswer, ...errors } },
  }, async (req) => {
    const { ticketId, tagId } = req.params as TicketTagParams;
    return withTicket(req.auth, ticketId, async (trx, t) => {
      await deps.tags.assertAll(t.companyId, [tagId], trx);
      await trx('ticketTags').insert({ ticketId: t.id, tagId, companyId: t.companyId }).onConflict(['ticketId', 'tagId']).ignore();
      return { ticketId: t.id, tagId };
    });
  });

  app.delete('/ticket-tags/:ticketId', {
    schema: { tags: ['ticket tags'], summary: 'Remove every tag of a ticket', params: TicketIdParams, response: { 200: TicketTagsRemovedAnswer, ...errors } },
  }, async (req) => {
    const { ticketId } = req.params as TicketIdParams;
    return withTicket(req.auth, ticketId, async (trx, t) => {
      const removed = await trx('ticketTags').where({ ticketId: t.id, companyId: t.companyId }).del();
      return { message: 'Ticket tags removed', removed };
    });
  });

  app.delete('/ticket-tags/:ticketId/:tagId', {
    schema: { tags: ['ticket tags'], summary: 'Remove one tag of a ticket', params: TicketTagParams, response: { 200: TicketTagsRemovedAnswer, ...errors } },
  }, async (req) => {
    const { ticketId, tagId } = req.params as TicketTagParams;
    return withTicket(req.auth, ticketId, async (trx, t) => {
      const removed = await trx('ticketTags').where({ ticketId: t.id, companyId: t.companyId, tagId }).del();
      return { message: 'Ticket tag removed', removed };
    });
  });
}
