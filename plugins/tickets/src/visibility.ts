import type { Knex } from 'knex';
import type { TicketRow, Viewer } from './model';

/**
 * Who sees which ticket (spec 2-tickets.md §6), one rule for lists and for live events:
 * - admins (profile admin, or the super flag) see every ticket of their company;
 * - a user with allTicket 'enable' sees every ticket of the company;
 * - group tickets are seen by admins, allTicket users and users with allowGroup;
 * - other tickets are seen by a user when their queue is one of the user's queues, when they have no
 *   queue (the "no queue" pseudo-queue), or when they are assigned to the user.
 */
export function isAdmin(v: Pick<Viewer, 'profile' | 'super'>): boolean {
  return v.super || String(v.profile).toLowerCase() === 'admin';
}

export function seesAll(v: Viewer): boolean {
  return isAdmin(v) || v.allTicket === 'enable';
}

export function canSee(v: Viewer, t: Pick<TicketRow, 'companyId' | 'isGroup' | 'queueId' | 'userId'>): boolean {
  if (t.companyId !== v.companyId) return false;
  if (seesAll(v)) return true;
  if (t.isGroup) return v.allowGroup;
  return t.queueId === null || v.queueIds.includes(t.queueId) || t.userId === v.id;
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
      q.where((w) => w.whereIn('tickets.queueId', ids).orWhereNull('tickets.queueId').orWhere('tickets.userId', v.id));
    }
    return q;
  }
  const allowed = opts.queueIds?.length ? opts.queueIds.filter((id) => v.queueIds.includes(id)) : v.queueIds;
  q.where((w) => {
    w.where((n) => {
      n.where('tickets.isGroup', false).where((x) => {
        if (allowed.length) x.whereIn('tickets.queueId', allowed);
        x.orWhereNull('tickets.queueId').orWhere('tickets.userId', v.id);
      });
    });
    if (v.allowGroup) w.orWhere('tickets.isGroup', true);
  });
  return q;
}

/**
 * Socket audiences a ticket's events go to (see RealtimeHub audiences). Sockets join
 * `tickets:all` (admins, allTicket users), `tickets:groups` (allowGroup users), `tickets:queue:<id>` per
 * queue of the user, `tickets:noqueue`, and `tickets:user:<id>`.
 */
export function ticketAudiences(t: Pick<TicketRow, 'isGroup' | 'queueId' | 'userId'>): string[] {
  if (t.isGroup) return ['tickets:all', 'tickets:groups'];
  const out = ['tickets:all', t.queueId === null ? 'tickets:noqueue' : `tickets:queue:${t.queueId}`];
  if (t.userId !== null) out.push(`tickets:user:${t.userId}`);
  return out;
}

/** The audiences a viewer's sockets join. */
export function viewerAudiences(v: Viewer): string[] {
  if (seesAll(v)) return ['tickets:all'];
  const out = ['tickets:noqueue', `tickets:user:${v.id}`, ...v.queueIds.map((q) => `tickets:queue:${q}`)];
  if (v.allowGroup) out.push('tickets:groups');
  return out;
}
