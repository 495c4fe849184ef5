import type { Knex } from 'knex';
import { canSeeTicket, seesAllTickets as seesAll } from '@atendo/sdk/wire';
import type { TicketRow, Viewer } from './model';

/**
 * Who sees which ticket (spec 2-tickets.md §6), one rule for lists and for live events. The rule itself is
 * the wire one (`@atendo/sdk/wire`: `canSeeTicket`, `ticketAudiences`, `viewerAudiences`), shared with the
 * areas; here it gets the company check and its SQL form (`applyVisibility`).
 * - admins (profile admin, or the super flag) see every ticket of their company;
 * - a user with allTicket 'enable' sees every ticket of the company;
 * - group tickets are seen by admins, allTicket users and users with allowGroup;
 * - other tickets are seen by a user when their queue is one of the user's queues, when they have no
 *   queue (the "no queue" pseudo-queue), or when they are assigned to the user.
 */
export { isTicketAdmin as isAdmin, seesAllTickets as seesAll, ticketAudiences, viewerAudiences } from '@atendo/sdk/wire';

/** Whether `v` sees `t`: a ticket of the viewer's company that the wire rule lets them see. */
export function canSee(v: Viewer, t: Pick<TicketRow, 'companyId' | 'isGroup' | 'queueId' | 'userId'>): boolean {
  return t.companyId === v.companyId && canSeeTicket(v, t);
}

/**
 * Narrows a tickets query (table alias `tickets`) to what `v` may see; `showAll` is honoured only for
 * viewers who see everything anyway (admins, allTicket users), otherwise ignored.
 */
export function applyVisibility(q: Knex.QueryBuilder, v: Viewer, opts: { showAll?: boolean; queueIds?: number[] } = {}): Knex.QueryBuilder {
  q.where('tickets.companyId', v.companyId);
  if (seesAll(v)) {
    // Admins narrowing by their own queues when show-all is off (the product family's behaviour).
    if (!opts.showAll && opts.queueIds?.length) {
      const ids = opts.queueIds;
      q.where((w) => w.whereRaw('tickets.queue_id = ANY(CAST(? AS int[]))', [ids]).orWhereNull('tickets.queueId').orWhere('tickets.userId', v.id));
    }
    return q;
  }
  const allowed = opts.queueIds?.length ? opts.queueIds.filter((id) => v.queueIds.includes(id)) : v.queueIds;
  q.where((w) => {
    w.where((n) => {
      n.where('tickets.isGroup', false).where((x) => {
        if (allowed.length) x.whereRaw('tickets.queue_id = ANY(CAST(? AS int[]))', [allowed]);
        x.orWhereNull('tickets.queueId').orWhere('tickets.userId', v.id);
      });
    });
    if (v.allowGroup) w.orWhere('tickets.isGroup', true);
  });
  return q;
}
