import { PermanentError, type BusMessage } from '@atendo/sdk';
import type { TicketRow } from '../model';
import type { TicketsDeps } from './deps';
import { emitTicketUpdate } from './core';

/** The bus queue of the ratings the tickets plugin records on its tickets. */
export const RATINGS_QUEUE = 'tickets.ratings';
/**
 * The topic a customer's rating is published on (`rating.recorded`, by the automation plugin's NPS step:
 * `{companyId, ticketId, userId, queueId, rate}`). Named here rather than imported: automation depends on
 * tickets, not the reverse.
 */
export const RATING_RECORDED_TOPIC = 'rating.recorded';

/**
 * Writes a recorded rating (0..10) on its ticket (`userRating`, what the ticket rows show on closed tickets)
 * and announces the ticket's update. Scoped to the event's company; an unknown ticket is skipped. A payload
 * without a company, a ticket or a rate in 0..10 is refused (PermanentError: not retried).
 */
export async function applyRating(deps: TicketsDeps, p: { companyId?: unknown; ticketId?: unknown; rate?: unknown }): Promise<TicketRow | undefined> {
  const companyId = Number(p.companyId);
  const ticketId = Number(p.ticketId);
  const rate = Number(p.rate);
  if (!Number.isInteger(companyId) || companyId < 1 || !Number.isInteger(ticketId) || ticketId < 1 || !Number.isInteger(rate) || rate < 0 || rate > 10) {
    throw new PermanentError('rating.recorded: malformed payload');
  }
  const [row] = (await deps.db('tickets').where({ companyId, id: ticketId }).update({ userRating: rate }).returning('*')) as TicketRow[];
  if (row) await emitTicketUpdate(deps, row);
  return row;
}

/** Subscribes the tickets plugin to `rating.recorded` (applyRating). Returns the unsubscribe function. */
export async function subscribeRatings(deps: TicketsDeps): Promise<() => Promise<void>> {
  const sub = await deps.bus.subscribe<Record<string, unknown>>(RATING_RECORDED_TOPIC, async (m: BusMessage<Record<string, unknown>>) => {
    await applyRating(deps, m.payload);
  }, { queue: RATINGS_QUEUE, maxRetries: 3 });
  return () => sub.unsubscribe();
}
