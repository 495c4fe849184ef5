import type { Knex } from 'knex';
import { errorResponses, type AuthUser, type PluginApp } from '@atendo/sdk';
import type { TicketRow } from '../model';
import type { TicketsDeps } from '../services/deps';
import { emitTicketUpdate } from '../services/core';
import { guardTicket } from '../services/guard';
import { TicketIdParams, TicketTagAnswer, TicketTagParams, TicketTagsRemovedAnswer } from '../schemas/tickets';

const errors = errorResponses(400, 401, 403, 404);

/**
 * Ticket tags (kanban lanes and plain tags on tickets; spec 2-tickets.md §4 "Kanban drag", §7). Each
 * route needs a ticket of the caller's company (404 ERR_NO_TICKET_FOUND) that the caller can see (403
 * ERR_NO_PERMISSION), runs in one transaction holding the ticket's row lock, and emits the ticket update
 * (`company-{id}-ticket` {action:'update'}) after commit.
 * - `PUT /ticket-tags/:ticketId/:tagId` -> {ticketId, tagId}; the tag must be the company's (404
 *   ERR_NO_TAG_FOUND); idempotent.
 * - `DELETE /ticket-tags/:ticketId` -> {message, removed}: removes every tag of the ticket (the kanban move).
 * - `DELETE /ticket-tags/:ticketId/:tagId` -> {message, removed} (removed 0 when it was not linked).
 */
export async function ticketTagRoutes(app: PluginApp, deps: TicketsDeps): Promise<void> {
  /** Runs `fn` on the locked, visible ticket, then emits its update. */
  const withTicket = async <T>(auth: AuthUser, ticketId: number, fn: (trx: Knex.Transaction, t: TicketRow) => Promise<T>): Promise<T> => {
    const { t, out } = await deps.db.transaction(async (trx) => {
      const { ticket: row } = await guardTicket(deps, auth, ticketId, { trx, lock: true });
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
    const { ticketId, tagId } = req.params;
    return withTicket(req.auth, ticketId, async (trx, t) => {
      await deps.tags.assertAll(t.companyId, [tagId], trx);
      await trx('ticketTags').insert({ ticketId: t.id, tagId, companyId: t.companyId }).onConflict(['ticketId', 'tagId']).ignore();
      return { ticketId: t.id, tagId };
    });
  });

  app.delete('/ticket-tags/:ticketId', {
    schema: { tags: ['ticket tags'], summary: 'Remove every tag of a ticket', params: TicketIdParams, response: { 200: TicketTagsRemovedAnswer, ...errors } },
  }, async (req) => {
    const { ticketId } = req.params;
    return withTicket(req.auth, ticketId, async (trx, t) => {
      const removed = await trx('ticketTags').where({ ticketId: t.id, companyId: t.companyId }).del();
      return { message: 'Ticket tags removed', removed };
    });
  });

  app.delete('/ticket-tags/:ticketId/:tagId', {
    schema: { tags: ['ticket tags'], summary: 'Remove one tag of a ticket', params: TicketTagParams, response: { 200: TicketTagsRemovedAnswer, ...errors } },
  }, async (req) => {
    const { ticketId, tagId } = req.params;
    return withTicket(req.auth, ticketId, async (trx, t) => {
      const removed = await trx('ticketTags').where({ ticketId: t.id, companyId: t.companyId, tagId }).del();
      return { message: 'Ticket tag removed', removed };
    });
  });
}
