import type { Knex } from 'knex';
import { hasRole, type IdentityService, type PublicUser, type Realtime } from '@atendo/sdk';
import type { QueuesService } from '@atendo/plugin-queues/contract';
import { slaEventName, type SlaBreach, type SlaBreachedEvent, type SlaSocketEvent } from '../contract';

/** A supervisor: profile supervisor or admin, or the super flag. */
const supervises = (u: PublicUser) => hasRole({ id: u.id, companyId: u.companyId, profile: u.profile, super: u.super }, 'supervisor');

/**
 * Breach notifications and the open-breach list of the supervisors.
 *
 * A queue's supervisors are the users with profile supervisor or admin (or the super flag) who serve it (the
 * queues service's `userIdsOfQueue`); a queue nobody supervises falls back to the company's admins, so a breach
 * always reaches someone.
 */
export class BreachNotifier {
  constructor(
    private readonly db: Knex,
    private readonly queues: QueuesService,
    private readonly identity: IdentityService,
    private readonly realtime: Realtime,
  ) {}

  /** Ids of the users told about the queue's breaches (see the class). */
  async supervisorsOf(companyId: number, queueId: number): Promise<number[]> {
    const members = await this.queues.userIdsOfQueue(companyId, queueId);
    const served = members.length ? (await this.identity.listUsers(companyId, members)).filter(supervises) : [];
    if (served.length) return served.map((u) => u.id);
    return (await this.identity.listUsers(companyId)).filter((u) => hasRole({ id: u.id, companyId, profile: u.profile, super: u.super }, 'admin')).map((u) => u.id);
  }

  /** `sla.breached`: `company-{id}-sla` `{action: 'breach', breach}` to each supervisor of the ticket's queue (their sockets only). */
  async notify(e: SlaBreachedEvent): Promise<number[]> {
    const { companyId, ...breach } = e;
    const to = await this.supervisorsOf(companyId, breach.queueId);
    const payload: SlaSocketEvent = { action: 'breach', breach };
    for (const userId of to) this.realtime.emitToCompany(companyId, slaEventName(companyId), payload, { userId });
    return to;
  }

  /**
   * The open breaches (a target past due, recorded, and not done yet) the caller supervises: every queue for admins
   * (and for supervisors who serve no queue), else the caller's queues; newest breach first, at most `limit`.
   */
  async open(user: { id: number; companyId: number; profile: string; super: boolean }, limit = 100): Promise<SlaBreach[]> {
    const { companyId } = user;
    let queueIds: number[] | undefined;
    if (!hasRole(user as Parameters<typeof hasRole>[0], 'admin')) {
      const mine = await this.queues.listQueueIds(companyId, user.id);
      if (mine.length) queueIds = mine;
    }
    const q = this.db('slaTickets')
      .where({ companyId })
      .whereNull('resolvedAt')
      .where((w) => w.where((a) => a.whereNotNull('firstResponseBreachedAt').whereNull('firstResponseAt')).orWhereNotNull('resolutionBreachedAt'));
    if (queueIds) q.whereIn('queueId', queueIds);
    const rows = (await q.orderByRaw('greatest(first_response_breached_at, resolution_breached_at) desc nulls last, ticket_id desc').limit(limit)) as Array<{
      ticketId: number;
      uuid: string;
      queueId: number;
      userId: number | null;
      firstResponseDueAt: Date | null;
      firstResponseAt: Date | null;
      firstResponseBreachedAt: Date | null;
      resolutionDueAt: Date | null;
      resolvedAt: Date | null;
      resolutionBreachedAt: Date | null;
    }>;
    const out: SlaBreach[] = [];
    for (const r of rows) {
      const base = { ticketId: r.ticketId, uuid: r.uuid, queueId: r.queueId, userId: r.userId };
      if (r.resolutionBreachedAt && !r.resolvedAt && r.resolutionDueAt) out.push({ ...base, target: 'resolution', dueAt: new Date(r.resolutionDueAt).toISOString(), breachedAt: new Date(r.resolutionBreachedAt).toISOString() });
      if (r.firstResponseBreachedAt && !r.firstResponseAt && r.firstResponseDueAt) out.push({ ...base, target: 'firstResponse', dueAt: new Date(r.firstResponseDueAt).toISOString(), breachedAt: new Date(r.firstResponseBreachedAt).toISOString() });
    }
    return out.sort((a, b) => b.breachedAt.localeCompare(a.breachedAt)).slice(0, limit);
  }
}
