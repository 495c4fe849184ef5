import type { Knex } from 'knex';
import { iso, type Bus, type IdentityService, type Jobs, type Realtime } from '@atendo/sdk';
import { ticketAudiences } from '@atendo/sdk/wire';
import type { MessageStoredEvent, TicketRow, TicketsService } from '@atendo/plugin-tickets/contract';
import type { QueuesService } from '@atendo/plugin-queues/contract';
import { slaBreached, slaCheckJob, slaEventName, type SlaBreach, type SlaSocketEvent, type SlaState, type SlaTarget, type SlaTargetName, type SlaTicket } from '../contract';
import { addBusinessTime, safeZone } from './business-hours';
import type { PolicyRow, PolicyStore } from './policies';

/** A `sla_tickets` row (camelCase). */
export interface SlaRow {
  ticketId: number;
  companyId: number;
  uuid: string;
  queueId: number;
  userId: number | null;
  startedAt: Date;
  firstResponseMinutes: number | null;
  firstResponseWarnAt: Date | null;
  firstResponseDueAt: Date | null;
  firstResponseAt: Date | null;
  firstResponseUserId: number | null;
  firstResponseBreachedAt: Date | null;
  resolutionMinutes: number | null;
  resolutionWarnAt: Date | null;
  resolutionDueAt: Date | null;
  resolvedAt: Date | null;
  resolutionUserId: number | null;
  resolutionBreachedAt: Date | null;
  createdAt?: Date;
  updatedAt?: Date;
}

/** Statuses whose clock runs (a customer conversation not finished). Group tickets never have an SLA. */
const RUNNING = new Set(['pending', 'open', 'lgpd']);
/** Statuses that finish the conversation (`nps`: closed by the attendant, waiting for the customer's rating). */
const FINISHED = new Set(['closed', 'nps']);

/** The columns of one target. */
const COLUMNS = {
  firstResponse: { minutes: 'firstResponseMinutes', warnAt: 'firstResponseWarnAt', dueAt: 'firstResponseDueAt', doneAt: 'firstResponseAt', breachedAt: 'firstResponseBreachedAt' },
  resolution: { minutes: 'resolutionMinutes', warnAt: 'resolutionWarnAt', dueAt: 'resolutionDueAt', doneAt: 'resolvedAt', breachedAt: 'resolutionBreachedAt' },
} as const satisfies Record<SlaTargetName, Record<string, keyof SlaRow>>;

interface TargetView {
  minutes: number | null;
  warnAt: Date | null;
  dueAt: Date | null;
  doneAt: Date | null;
  breachedAt: Date | null;
}

const d = (v: Date | string | null | undefined): Date | null => (v === null || v === undefined ? null : v instanceof Date ? v : new Date(v));

function target(row: SlaRow, name: SlaTargetName): TargetView {
  const c = COLUMNS[name];
  return { minutes: row[c.minutes] as number | null, warnAt: d(row[c.warnAt] as Date | null), dueAt: d(row[c.dueAt] as Date | null), doneAt: d(row[c.doneAt] as Date | null), breachedAt: d(row[c.breachedAt] as Date | null) };
}

/** The state of a target at `now` (see `SLA_STATES`). */
export function stateOf(t: TargetView, now: Date): SlaState {
  if (t.doneAt) return t.dueAt && t.doneAt > t.dueAt ? 'missed' : 'met';
  if (t.dueAt && (t.dueAt <= now || t.breachedAt)) return 'breached';
  if (t.warnAt && t.warnAt <= now) return 'warning';
  return 'ok';
}

/** A row as the wire shows it (states at `now`). */
export function wireSla(row: SlaRow, now: Date = new Date()): SlaTicket {
  const one = (name: SlaTargetName): SlaTarget | null => {
    const t = target(row, name);
    if (t.minutes === null) return null;
    const s = (v: Date | null) => (v ? iso(v) : null);
    return { minutes: t.minutes, warnAt: s(t.warnAt), dueAt: s(t.dueAt), doneAt: s(t.doneAt), breachedAt: s(t.breachedAt), state: stateOf(t, now) };
  };
  return { ticketId: row.ticketId, uuid: row.uuid, queueId: row.queueId, userId: row.userId, startedAt: iso(row.startedAt), firstResponse: one('firstResponse'), resolution: one('resolution') };
}

/**
 * When the ticket's check job should run next: the earliest warn or due time still ahead of a target not done
 * and not breached yet; `now` when a due time already passed unrecorded; null when nothing is left to watch.
 */
export function nextCheckAt(row: SlaRow, now: Date): Date | null {
  if (row.resolvedAt) return null;
  let next: number | null = null;
  const take = (t: number) => (next = next === null ? t : Math.min(next, t));
  for (const name of ['firstResponse', 'resolution'] as const) {
    const t = target(row, name);
    if (t.minutes === null || t.doneAt || t.breachedAt || !t.dueAt) continue;
    if (t.warnAt && t.warnAt > now) take(t.warnAt.getTime());
    else if (t.dueAt > now) take(t.dueAt.getTime());
    else take(now.getTime());
  }
  return next === null ? null : new Date(next);
}

/** Warn and due times of the policy's targets for a clock started at `start` in the queue's hours. */
export function dueTimes(start: Date, policy: Pick<PolicyRow, 'firstResponseMinutes' | 'resolutionMinutes' | 'warnPercent'>, schedules: Parameters<typeof addBusinessTime>[2], timeZone: string) {
  const at = (minutes: number | null, share: number) => (minutes === null ? null : addBusinessTime(start, minutes * 60_000 * share, schedules, timeZone));
  const warn = policy.warnPercent / 100;
  return {
    firstResponseMinutes: policy.firstResponseMinutes,
    firstResponseWarnAt: at(policy.firstResponseMinutes, warn),
    firstResponseDueAt: at(policy.firstResponseMinutes, 1),
    resolutionMinutes: policy.resolutionMinutes,
    resolutionWarnAt: at(policy.resolutionMinutes, warn),
    resolutionDueAt: at(policy.resolutionMinutes, 1),
  };
}

export interface TrackerDeps {
  db: Knex;
  tickets: TicketsService;
  queues: QueuesService;
  identity: IdentityService;
  policies: PolicyStore;
  jobs: Jobs;
  bus: Bus;
  realtime: Realtime;
}

/** What a change leaves to do after its transaction committed. */
interface Outcome {
  row?: SlaRow;
  deleted?: SlaRow;
  /** The row before the change (its audiences also get the update). */
  previous?: SlaRow;
}

/**
 * Keeps each ticket's SLA row (`sla_tickets`) in step with the tickets plugin's events, schedules the ticket's
 * `sla.check` job at its next warn or due time (in the same transaction as the row), records breaches and
 * publishes `sla.breached`, and pushes `company-{id}-sla` to the ticket's audiences after each commit.
 *
 * The clock of a ticket starts at its creation (or at its reopening: a new cycle replaces the previous one's
 * times) when it is a customer conversation (pending, open or lgpd; not a group) in a queue with targets; the
 * first response is the first message an attendant sends (from Atendo or from the phone; not bots, automatic
 * texts or private notes); the resolution is the close (or the move to `nps`). A transfer to another queue
 * recomputes the targets not yet done with that queue's targets and hours, from the same start; a move to a
 * queue without targets (or to no queue) drops the ticket's SLA. The ticket is always re-read through the tickets
 * service, so events arriving late or twice change nothing.
 */
export class SlaTracker {
  constructor(private readonly deps: TrackerDeps) {}

  /** The company's time zone (setting `timeZone`; America/Sao_Paulo when missing or unknown). */
  async timeZone(companyId: number): Promise<string> {
    return safeZone(await this.deps.identity.getCompanySetting(companyId, 'timeZone').catch(() => ''));
  }

  /** The rows of the company's tickets among `ticketIds` (unknown ids skipped), by ticket id. */
  async rows(companyId: number, ticketIds: number[]): Promise<SlaRow[]> {
    return (await this.deps.db('slaTickets').where({ companyId }).whereIn('ticketId', ticketIds).orderBy('ticketId')) as SlaRow[];
  }

  /** The ticket's row, or undefined. */
  async get(companyId: number, ticketId: number): Promise<SlaRow | undefined> {
    return (await this.deps.db('slaTickets').where({ companyId, ticketId }).first()) as SlaRow | undefined;
  }

  /**
   * Brings the ticket's SLA in step with the ticket as it is now; `at` is when the event that asked for it was
   * published (the start of a new cycle on a reopening, the resolution time of an `nps` move); `reopened`: the
   * event was a finished ticket becoming active again.
   *
   * A ticket without a row gets one when it runs in a queue with targets, its clock started at its creation, or
   * at the targets' last change when the ticket is older (tickets that were open when the targets were set do not
   * start breached), or at `at` when it was just reopened.
   */
  async reconcile(companyId: number, ticketId: number, at: Date, reopened = false): Promise<void> {
    const ticket = await this.deps.tickets.get(companyId, ticketId);
    if (!ticket) return this.remove(companyId, ticketId);
    const out = await this.deps.db.transaction(async (trx): Promise<Outcome> => {
      const row = (await trx('slaTickets').where({ companyId, ticketId }).forUpdate().first()) as SlaRow | undefined;
      const running = RUNNING.has(ticket.status) && !ticket.isGroup;
      if (!row) {
        if (!running || ticket.queueId === null) return {};
        const policy = await this.deps.policies.get(companyId, ticket.queueId, trx);
        if (!policy) return {};
        const start = reopened ? at : new Date(Math.max(new Date(ticket.createdAt).getTime(), new Date(policy.updatedAt).getTime()));
        const created = await this.newCycle(ticket, ticket.queueId, policy, start);
        const [inserted] = (await trx('slaTickets').insert(created).onConflict('ticketId').ignore().returning('*')) as SlaRow[];
        if (!inserted) return {};
        await this.scheduleNext(trx, inserted);
        return { row: inserted };
      }
      if (FINISHED.has(ticket.status)) return row.resolvedAt ? {} : this.resolve(trx, row, ticket, at);
      if (!running) return this.drop(trx, row);
      if (row.resolvedAt) {
        // Reopened: a new cycle from the reopening (an event older than the close changes nothing).
        if (at <= new Date(row.resolvedAt)) return {};
        if (ticket.queueId === null) return this.drop(trx, row);
        const policy = await this.deps.policies.get(companyId, ticket.queueId, trx);
        if (!policy) return this.drop(trx, row);
        const fresh = await this.newCycle(ticket, ticket.queueId, policy, at);
        return this.save(trx, row, { ...fresh, firstResponseBreachedAt: null, resolvedAt: null, resolutionUserId: null, resolutionBreachedAt: null });
      }
      if (ticket.queueId === null) return this.drop(trx, row);
      if (ticket.queueId !== row.queueId) return this.transfer(trx, row, ticket, ticket.queueId);
      if (ticket.userId !== row.userId) return this.save(trx, row, { userId: ticket.userId });
      return {};
    });
    this.announce(companyId, out);
  }

  /**
   * An attendant's message (`message.stored`, ours, not private, by a user or from the phone): the ticket's first
   * response when its clock runs and none was recorded since the clock started. One conditional UPDATE per
   * message; a ticket without a row costs one more read (its queue's targets) when it runs in a queue.
   */
  async onMessage(e: MessageStoredEvent): Promise<void> {
    if (!e.fromMe || e.isPrivate || (e.by.kind !== 'user' && e.by.kind !== 'device')) return;
    const at = new Date(e.createdAt);
    if (Number.isNaN(at.getTime())) return;
    const userId = e.by.kind === 'user' ? e.by.userId : null;
    const [answered] = (await this.deps.db('slaTickets')
      .where({ companyId: e.companyId, ticketId: e.ticketId })
      .whereNotNull('firstResponseMinutes')
      .whereNull('firstResponseAt')
      .whereNull('resolvedAt')
      .where('startedAt', '<=', at)
      .update({ firstResponseAt: at, firstResponseUserId: userId, updatedAt: this.deps.db.fn.now() })
      .returning('*')) as SlaRow[];
    if (answered) {
      // Outside a transaction: a check left at the old time finds the target done and moves on by itself.
      await this.scheduleNext(undefined, answered);
      return this.announce(e.companyId, { row: answered });
    }
    // No row yet (the ticket's events are still on their way, or it existed before its queue had targets)?
    const t = e.ticket;
    if (t.queueId === null || !RUNNING.has(t.status) || t.isGroup || !(await this.deps.policies.get(e.companyId, t.queueId))) return;
    if (!(await this.get(e.companyId, e.ticketId))) await this.reconcile(e.companyId, e.ticketId, at);
  }

  /** The ticket was deleted: its SLA goes too. */
  async remove(companyId: number, ticketId: number): Promise<void> {
    const out = await this.deps.db.transaction(async (trx): Promise<Outcome> => {
      const row = (await trx('slaTickets').where({ companyId, ticketId }).forUpdate().first()) as SlaRow | undefined;
      return row ? this.drop(trx, row) : {};
    });
    this.announce(companyId, out);
  }

  /**
   * The `sla.check` job: records the breach of every target past due and not done (once: `breachedAt`), publishes
   * `sla.breached` for each in the same transaction, schedules the next check, and pushes the update (also when
   * only a warn time passed, so the screens turn the badge).
   */
  async check(companyId: number, ticketId: number, now: Date = new Date()): Promise<void> {
    const out = await this.deps.db.transaction(async (trx): Promise<Outcome> => {
      const row = (await trx('slaTickets').where({ companyId, ticketId }).forUpdate().first()) as SlaRow | undefined;
      if (!row || row.resolvedAt) return {};
      const patch: Partial<SlaRow> = {};
      const breaches: SlaBreach[] = [];
      for (const name of ['firstResponse', 'resolution'] as const) {
        const t = target(row, name);
        if (t.minutes === null || t.doneAt || t.breachedAt || !t.dueAt || t.dueAt > now) continue;
        (patch as Record<string, unknown>)[COLUMNS[name].breachedAt] = now;
        breaches.push({ ticketId: row.ticketId, uuid: row.uuid, queueId: row.queueId, userId: row.userId, target: name, dueAt: iso(t.dueAt), breachedAt: iso(now) });
      }
      let saved = row;
      if (breaches.length) {
        [saved] = (await trx('slaTickets').where({ companyId, ticketId }).update({ ...patch, updatedAt: trx.fn.now() }).returning('*')) as SlaRow[];
        for (const b of breaches) await this.deps.bus.publish(slaBreached, { companyId, ...b }, { trx, id: `sla.breached:${ticketId}:${b.target}:${iso(row.startedAt)}` });
      }
      await this.scheduleNext(trx, saved, now);
      return { row: saved };
    });
    this.announce(companyId, out);
  }

  // ---- changes (inside the caller's transaction)

  /** The row of a new clock started at `start` in `queueId` with its targets `policy`. */
  private async newCycle(ticket: TicketRow, queueId: number, policy: PolicyRow, start: Date): Promise<SlaRow> {
    const times = await this.times(ticket.companyId, queueId, policy, start);
    const reply = policy.firstResponseMinutes === null ? undefined : await this.firstReply(ticket.companyId, ticket.id, start);
    return {
      ticketId: ticket.id,
      companyId: ticket.companyId,
      uuid: ticket.uuid,
      queueId,
      userId: ticket.userId,
      startedAt: start,
      ...times,
      firstResponseAt: reply?.at ?? null,
      firstResponseUserId: reply?.userId ?? null,
      firstResponseBreachedAt: null,
      resolvedAt: null,
      resolutionUserId: null,
      resolutionBreachedAt: null,
    };
  }

  /** Warn and due times of `policy` in the queue's hours and the company's time zone. */
  private async times(companyId: number, queueId: number, policy: PolicyRow, start: Date) {
    const [queue, zone] = await Promise.all([this.deps.queues.getQueue(companyId, queueId), this.timeZone(companyId)]);
    return dueTimes(start, policy, queue?.schedules ?? [], zone);
  }

  /**
   * An attendant's message already stored since `start` (its events may have been handled before the row
   * existed): the earliest one among the ticket's last 100 messages, or undefined.
   */
  private async firstReply(companyId: number, ticketId: number, start: Date): Promise<{ at: Date; userId: number | null } | undefined> {
    const recent = (await this.deps.tickets.recentMessages?.(companyId, ticketId, 100)) ?? [];
    const reply = recent.find((m) => m.fromMe && !m.isPrivate && m.userId !== null && new Date(m.createdAt) >= start);
    return reply ? { at: new Date(reply.createdAt), userId: reply.userId } : undefined;
  }

  /** The conversation finished: resolution recorded; a first response never given and not yet due is not counted. */
  private async resolve(trx: Knex.Transaction, row: SlaRow, ticket: TicketRow, at: Date): Promise<Outcome> {
    const closedAt = ticket.status === 'closed' && ticket.closedAt ? new Date(ticket.closedAt) : at;
    const resolvedAt = closedAt < new Date(row.startedAt) ? at : closedAt;
    const patch: Partial<SlaRow> = { resolvedAt, resolutionUserId: ticket.userId, userId: ticket.userId };
    const fr = target(row, 'firstResponse');
    if (fr.minutes !== null && !fr.doneAt && !(fr.dueAt && fr.dueAt <= resolvedAt)) {
      Object.assign(patch, { firstResponseMinutes: null, firstResponseWarnAt: null, firstResponseDueAt: null, firstResponseBreachedAt: null });
    }
    return this.save(trx, row, patch);
  }

  /** Another queue: the targets not done yet follow its targets and hours, from the same start. */
  private async transfer(trx: Knex.Transaction, row: SlaRow, ticket: TicketRow, queueId: number): Promise<Outcome> {
    const policy = await this.deps.policies.get(row.companyId, queueId, trx);
    if (!policy) return this.drop(trx, row);
    const times = await this.times(row.companyId, queueId, policy, new Date(row.startedAt));
    const now = new Date();
    const patch: Partial<SlaRow> = { queueId, userId: ticket.userId };
    for (const name of ['firstResponse', 'resolution'] as const) {
      const c = COLUMNS[name];
      if (target(row, name).doneAt) continue;
      const due = times[c.dueAt as 'firstResponseDueAt' | 'resolutionDueAt'];
      Object.assign(patch, {
        [c.minutes]: times[c.minutes as 'firstResponseMinutes' | 'resolutionMinutes'],
        [c.warnAt]: times[c.warnAt as 'firstResponseWarnAt' | 'resolutionWarnAt'],
        [c.dueAt]: due,
        // A breach already notified stays recorded while the new due time is past too; otherwise it may come again.
        [c.breachedAt]: due && due <= now ? row[c.breachedAt] : null,
      });
    }
    return this.save(trx, row, patch);
  }

  private async save(trx: Knex.Transaction, row: SlaRow, patch: Partial<SlaRow>): Promise<Outcome> {
    const [saved] = (await trx('slaTickets').where({ companyId: row.companyId, ticketId: row.ticketId }).update({ ...patch, updatedAt: trx.fn.now() }).returning('*')) as SlaRow[];
    await this.scheduleNext(trx, saved);
    return { row: saved, previous: row };
  }

  private async drop(trx: Knex.Transaction, row: SlaRow): Promise<Outcome> {
    await trx('slaTickets').where({ companyId: row.companyId, ticketId: row.ticketId }).delete();
    await this.deps.jobs.cancel(slaCheckJob, jobKey(row.ticketId), { trx });
    return { deleted: row };
  }

  /** (Re)schedules the ticket's check at its next warn or due time, or cancels it (inside `trx` when given). */
  private async scheduleNext(trx: Knex.Transaction | undefined, row: SlaRow, now: Date = new Date()): Promise<void> {
    const next = nextCheckAt(row, now);
    const key = jobKey(row.ticketId);
    if (next) await this.deps.jobs.schedule(slaCheckJob, { companyId: row.companyId, ticketId: row.ticketId }, { runAt: next, key, ...(trx ? { trx } : {}) });
    else await this.deps.jobs.cancel(slaCheckJob, key, trx ? { trx } : undefined);
  }

  // ---- pushes (after commit)

  private announce(companyId: number, out: Outcome): void {
    const event = slaEventName(companyId);
    const audiences = (rows: Array<SlaRow | undefined>) => [...new Set(rows.filter((r): r is SlaRow => Boolean(r)).flatMap((r) => ticketAudiences({ isGroup: false, queueId: r.queueId, userId: r.userId })))];
    if (out.deleted) {
      const payload: SlaSocketEvent = { action: 'delete', ticketId: out.deleted.ticketId };
      this.deps.realtime.emitToCompany(companyId, event, payload, { audiences: audiences([out.deleted]) });
    }
    if (out.row) {
      const payload: SlaSocketEvent = { action: 'update', sla: wireSla(out.row) };
      this.deps.realtime.emitToCompany(companyId, event, payload, { audiences: audiences([out.row, out.previous]) });
    }
  }
}

/** The `sla.check` job key of a ticket. */
export const jobKey = (ticketId: number) => `ticket-${ticketId}`;
