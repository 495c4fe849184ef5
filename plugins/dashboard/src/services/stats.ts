import type { Knex } from 'knex';
import { AppError, iso, page, type IdentityService } from '@atendo/sdk';
import type { QueuesService } from '@atendo/plugin-queues/contract';
import type { ConnectionsService } from '@atendo/plugin-connections/contract';
import type { ContactsService } from '@atendo/plugin-contacts/contract';
import type { Dashboard, MomentTicket, NpsClass, NpsInfo, ReportPage, ResearchPage, TicketsPerDay, TicketsPerQueue, TicketsPerUser, UserInfo } from '../contract';
import { eachDay, safeTimeZone, type DayRange } from './range';
import type { ReadModel } from './read-model';
import type { Rollups } from './rollups';

/** Minutes with two decimals, from a mean of seconds (null stays null). */
function minutes(seconds: unknown): number | null {
  if (seconds === null || seconds === undefined) return null;
  return Math.round((Number(seconds) / 60) * 100) / 100;
}

/** Percent of `part` in `total`, two decimals (0 when total is 0). */
function perc(part: number, total: number): number {
  return total ? Math.round((part / total) * 10000) / 100 : 0;
}

/** (date_part answers double precision; extract answers numeric, several times slower to average.) */
/** The SQL condition "created in the range" (days of the range's time zone), and its bindings. */
function inRange(column: string, r: DayRange): [string, unknown[]] {
  return [`${column} >= (?::date)::timestamp AT TIME ZONE ? AND ${column} < ((?::date) + 1)::timestamp AT TIME ZONE ?`, [r.from, r.timeZone, r.to, r.timeZone]];
}

const WAIT = `date_part('epoch', accepted_at - created_at)`;
const SUPPORT = `date_part('epoch', closed_at - accepted_at)`;
const SUPPORT_WHEN = `status = 'closed' AND accepted_at IS NOT NULL AND closed_at IS NOT NULL`;

/** How long cached figures are kept at most (they are dropped earlier when the company's tickets change). */
const CACHE_TTL_MS = 60_000;
/** Cached answers per company at most (the oldest goes first). */
const CACHE_MAX_KEYS = 200;
/** How long a company's time zone is kept. */
const ZONE_TTL_MS = 30_000;

/** Filters of `GET /ticket/reports`. */
export interface ReportFilters {
  range: DayRange;
  queueIds?: number[];
  userIds?: number[];
  connectionIds?: number[];
  statuses?: string[];
  /** true: group conversations only (the group attendance report); false: 1:1 conversations only; undefined: both. */
  isGroup?: boolean;
  pageNumber?: number;
  pageSize: number;
}

/** Filters of `GET /ticket/reports/research` (the range is over the days the customers answered). */
export interface ResearchFilters {
  range: DayRange;
  queueIds?: number[];
  userIds?: number[];
  connectionIds?: number[];
  /** Only answers of these NPS classes. */
  classes?: NpsClass[];
  pageNumber?: number;
  pageSize: number;
}

/** The SQL condition of an NPS class on `rating` (0..10). */
const CLASS_SQL: Record<NpsClass, string> = { promoter: 'rating >= 9', passive: 'rating BETWEEN 7 AND 8', detractor: 'rating <= 6' };

/** The NPS class of a rate 0..10. */
export function npsClassOf(rate: number): NpsClass {
  return rate >= 9 ? 'promoter' : rate >= 7 ? 'passive' : 'detractor';
}

/** Narrows `q` to queues (0: without a queue), users and connections, each when given. */
function whereRefs(q: Knex.QueryBuilder, f: { queueIds?: number[]; userIds?: number[]; connectionIds?: number[] }): void {
  if (f.queueIds) {
    const ids = f.queueIds.filter((x) => x !== 0);
    const none = f.queueIds.includes(0);
    void q.where((w) => {
      if (ids.length) void w.orWhereIn('queueId', ids);
      if (none) void w.orWhereNull('queueId');
    });
  }
  if (f.userIds) void q.whereIn('userId', f.userIds);
  if (f.connectionIds) void q.whereIn('connectionId', f.connectionIds);
}

/** Filters of `GET /dashboard/moments`. */
export interface MomentsFilters {
  statuses: string[];
  /** Allowed queues (0: without a queue); undefined: every queue. */
  queueIds?: number[];
  userId?: number;
  range?: DayRange;
  /** Updated since (the 30-day window) when no range is given. */
  since: Date;
}

/**
 * The dashboard's figures, read from its own `dashboard_tickets` (see ReadModel) with names from the
 * kernel's identity (users, online state), the queues, connections and contacts services. Every query is
 * scoped to `companyId`; days and hours are the company's time zone. Figures over the days of the
 * company's time zone come from the per-day rollups (see Rollups: a row per day and user, queue or hour,
 * so a year costs little more than a day); the distinct contacts (`leads`), the panel and the report read
 * the rows (through the covering index).
 */
export class DashboardStats {
  private readonly cache = new Map<number, Map<string, { at: number; value: Promise<unknown> }>>();
  private readonly zones = new Map<number, { zone: string; at: number }>();

  constructor(
    private readonly db: Knex,
    private readonly model: ReadModel,
    private readonly rollups: Rollups,
    private readonly identity: IdentityService,
    private readonly queues: QueuesService,
    private readonly connections: ConnectionsService,
    private readonly contacts: ContactsService,
  ) {}

  /** The company's time zone (setting `timeZone`, else America/Sao_Paulo), cached for ZONE_TTL_MS. */
  async timeZone(companyId: number): Promise<string> {
    const hit = this.zones.get(companyId);
    if (hit && Date.now() - hit.at < ZONE_TTL_MS) return hit.zone;
    const zone = safeTimeZone(await this.identity.getCompanySetting(companyId, 'timeZone').catch(() => ''));
    this.zones.set(companyId, { zone, at: Date.now() });
    return zone;
  }

  /** Drops the company's cached figures (on `dashboard.changed`, on every node). */
  forget(companyId: number): void {
    this.cache.delete(companyId);
  }

  /**
   * The figures of `key` for the company: computed once, then answered from memory until the company's
   * read model changes (`forget`) or CACHE_TTL_MS passed. A computation in flight when the company changes
   * is not kept.
   */
  private memo<T>(companyId: number, key: string, compute: () => Promise<T>): Promise<T> {
    let entries = this.cache.get(companyId);
    if (!entries) {
      entries = new Map();
      this.cache.set(companyId, entries);
    }
    const hit = entries.get(key);
    if (hit && Date.now() - hit.at < CACHE_TTL_MS) return hit.value as Promise<T>;
    const value = compute();
    const mine = entries;
    mine.set(key, { at: Date.now(), value });
    if (mine.size > CACHE_MAX_KEYS) mine.delete(mine.keys().next().value as string);
    value.catch(() => {
      if (mine.get(key)?.value === value) mine.delete(key);
    });
    return value;
  }

  private async rows<T>(sql: string, bindings: unknown[]): Promise<T[]> {
    const res = (await this.db.raw(sql, bindings as Knex.RawBinding[])) as { rows: T[] };
    return res.rows;
  }

  /**
   * The rows of `sql`, a query over the company's day rollups bound to (companyId, first day, last day) of
   * `r`, memoized under `key` (see `memo`): the read model is backfilled and the rollups kept in r's time
   * zone first.
   */
  private async fromRollups<T>(companyId: number, r: DayRange, key: string, sql: string): Promise<T[]> {
    await this.model.ensureBackfilled(companyId);
    return this.memo(companyId, `${key}:${r.from}:${r.to}:${r.timeZone}`, async () => {
      await this.rollups.ensure(companyId, r.timeZone);
      return this.rows<T>(sql, [companyId, r.from, r.to]);
    });
  }

  /** Tickets created in `r` per `column` of rollup `table` (0: none), leaving out the ids with none. */
  private ticketsBy(companyId: number, r: DayRange, table: 'dashboard_day_queues' | 'dashboard_day_users', column: 'queue_id' | 'user_id'): Promise<{ id: number; total: string }[]> {
    return this.fromRollups(companyId, r, table, `SELECT ${column} AS "id", sum(tickets) AS "total" FROM ${table}
      WHERE company_id = ? AND day BETWEEN ?::date AND ?::date GROUP BY 1 HAVING sum(tickets) > 0`);
  }

  /** `GET /dashboard`: the counters and every user's figures over the tickets created in the range. */
  async dashboard(companyId: number, r: DayRange): Promise<Dashboard> {
    await this.model.ensureBackfilled(companyId);
    const [cond, b] = inRange('created_at', r);
    const { all, perUser, leads } = await this.memo(companyId, `dashboard:${r.from}:${r.to}:${r.timeZone}`, async () => {
      // One pass over the days' rollups: the company's totals (grouping ()) and each user's (grouping
      // (user_id)), averages from sums of microseconds and counts; the distinct contacts from the rows.
      await this.rollups.ensure(companyId, r.timeZone);
      const groupedQ = this.rows<Record<string, string | number | null>>(
        `SELECT nullif(user_id, 0) AS "userId", GROUPING(user_id) AS "total",
                sum(tickets) FILTER (WHERE status = 'open') AS "happening",
                sum(tickets) FILTER (WHERE status = 'pending') AS "pending",
                sum(tickets) FILTER (WHERE status = 'closed') AS "finished",
                sum(tickets) FILTER (WHERE status = 'nps') AS "waitRating",
                sum(tickets - rated) FILTER (WHERE status = 'closed') AS "withoutRating",
                sum(rated) FILTER (WHERE status = 'closed') AS "withRating",
                sum(tickets) AS "tickets",
                sum(wait_us)::float8 / nullif(sum(wait_n), 0) / 1000000 AS "avgWait",
                sum(support_us)::float8 / nullif(sum(support_n), 0) / 1000000 AS "avgSupport",
                sum(rating_sum)::float8 / nullif(sum(rated), 0) AS "rating",
                sum(rated) AS "rated",
                sum(promoters) AS "promoters",
                sum(passives) AS "passives",
                sum(detractors) AS "detractors"
           FROM dashboard_day_users WHERE company_id = ? AND day BETWEEN ?::date AND ?::date
          GROUP BY GROUPING SETS ((), (user_id))
         HAVING GROUPING(user_id) = 1 OR sum(tickets) > 0`,
        [companyId, r.from, r.to],
      );
      const leadsQ = this.rows<{ n: string }>(
        `SELECT count(*) AS "n" FROM (SELECT contact_id FROM dashboard_tickets WHERE company_id = ? AND ${cond} GROUP BY contact_id) c`,
        [companyId, ...b],
      );
      // Both scans at once (two connections).
      const [grouped, [l]] = await Promise.all([groupedQ, leadsQ]);
      return {
        all: grouped.find((g) => Number(g.total) === 1) ?? {},
        perUser: grouped.filter((g) => Number(g.total) === 0 && g.userId !== null),
        leads: Number(l.n),
      };
    });
    const c = all as Record<string, string | number | null | undefined>;
    const n = (k: string) => Number(c[k] ?? 0);
    const rated = n('rated');
    const withRating = n('withRating');
    const withoutRating = n('withoutRating');
    const promotersPerc = perc(n('promoters'), rated);
    const detractorsPerc = perc(n('detractors'), rated);
    const byUser = new Map(perUser.map((u) => [Number(u.userId), u]));
    const users = await this.identity.listUsers(companyId);
    return {
      counters: {
        avgSupportTime: minutes(c.avgSupport),
        avgWaitTime: minutes(c.avgWait),
        supportHappening: n('happening'),
        supportPending: n('pending'),
        supportFinished: n('finished'),
        leads,
        tickets: n('tickets'),
        waitRating: n('waitRating'),
        withoutRating,
        withRating,
        percRating: perc(withRating, withRating + withoutRating),
        npsPromotersPerc: promotersPerc,
        npsPassivePerc: perc(n('passives'), rated),
        npsDetractorsPerc: detractorsPerc,
        npsScore: Math.round((promotersPerc - detractorsPerc) * 100) / 100,
      },
      attendants: users
        .sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id)
        .map((u) => {
          const s = byUser.get(u.id);
          return {
            id: u.id,
            name: u.name,
            online: Boolean(u.online),
            avgWaitTime: minutes(s?.avgWait),
            avgSupportTime: minutes(s?.avgSupport),
            tickets: Number(s?.tickets ?? 0),
            rating: s && s.rating !== null ? Math.round(Number(s.rating) * 100) / 100 : null,
            countRating: Number(s?.rated ?? 0),
          };
        }),
    };
  }

  /** `GET /dashboard/total-atendimentos`: tickets created per day (every day of the range) and per hour of day. */
  async perDay(companyId: number, r: DayRange): Promise<TicketsPerDay> {
    // Tickets per local day and hour (the rollup), summed per day and per hour of day here.
    const buckets = await this.fromRollups<{ day: string; hour: number; total: string }>(
      companyId,
      r,
      'days',
      `SELECT day::text AS "day", hour AS "hour", sum(tickets) AS "total" FROM dashboard_day_hours
        WHERE company_id = ? AND day BETWEEN ?::date AND ?::date GROUP BY 1, 2 HAVING sum(tickets) > 0`,
    );
    const sum = (key: (c: { day: string; hour: number }) => string | number) => {
      const m = new Map<string | number, number>();
      for (const c of buckets) m.set(key(c), (m.get(key(c)) ?? 0) + Number(c.total));
      return [...m.entries()];
    };
    const days = sum((c) => c.day).map(([day, total]) => ({ day: String(day), total }));
    const hours = sum((c) => Number(c.hour)).map(([hour, total]) => ({ hour: Number(hour), total }));
    const perDay = new Map(days.map((d) => [d.day, Number(d.total)]));
    const perHour = new Map(hours.map((h) => [Number(h.hour), Number(h.total)]));
    return {
      count: days.reduce((s, d) => s + Number(d.total), 0),
      data: eachDay(r).map((data) => ({ data, total: perDay.get(data) ?? 0 })),
      hours: Array.from({ length: 24 }, (_, horario) => ({ horario, total: perHour.get(horario) ?? 0 })),
    };
  }

  /** `GET /dashboard/queues`: tickets created in the range per queue (queueId 0: no queue), most first. */
  async perQueue(companyId: number, r: DayRange): Promise<TicketsPerQueue> {
    const rows = await this.ticketsBy(companyId, r, 'dashboard_day_queues', 'queue_id');
    const queues = new Map((await this.queues.listQueues(companyId)).map((q) => [q.id, q]));
    return rows
      .map((x) => {
        const q = queues.get(Number(x.id));
        const name = q?.name ?? '';
        const color = q?.color ?? '#9e9e9e';
        return { queueId: Number(x.id), name, color, quantidade: Number(x.total), queue: q ? { id: q.id, name, color } : null };
      })
      .sort((a, b) => b.quantidade - a.quantidade || a.queueId - b.queueId);
  }

  /** Tickets created in the range per user (0: without one), most first. */
  private async perUserRows(companyId: number, r: DayRange): Promise<{ userId: number; name: string; total: number }[]> {
    const rows = await this.ticketsBy(companyId, r, 'dashboard_day_users', 'user_id');
    const users = new Map((await this.identity.listUsers(companyId)).map((u) => [u.id, u.name]));
    return rows
      .map((x) => ({ userId: Number(x.id), name: users.get(Number(x.id)) ?? '', total: Number(x.total) }))
      .sort((a, b) => b.total - a.total || a.userId - b.userId);
  }

  /** `GET /dashboard/ticketsUsers`. */
  async perUser(companyId: number, r: DayRange): Promise<TicketsPerUser> {
    return { data: (await this.perUserRows(companyId, r)).map((u) => ({ userId: u.userId, nome: u.name, quantidade: u.total })) };
  }

  /** `GET /dashboard/user-info`: as `perUser`, attendants only. */
  async userInfo(companyId: number, r: DayRange): Promise<UserInfo> {
    return (await this.perUserRows(companyId, r)).filter((u) => u.userId !== 0).map((u) => ({ userId: u.userId, name: u.name, quantidade: u.total }));
  }

  /** `GET /dashboard/atendimentos-encerrados`: tickets closed (now closed) with their close in the range. */
  async closedCount(companyId: number, r: DayRange): Promise<number> {
    const [row] = await this.fromRollups<{ n: string }>(companyId, r, 'closed', `SELECT coalesce(sum(tickets), 0) AS "n" FROM dashboard_day_closed WHERE company_id = ? AND day BETWEEN ?::date AND ?::date`);
    return Number(row.n);
  }

  /** `GET /dashboard/nps-info`: ratings of tickets created in the range, by NPS class. */
  async npsInfo(companyId: number, r: DayRange): Promise<NpsInfo> {
    const [row] = await this.fromRollups<Record<string, string>>(
      companyId,
      r,
      'nps',
      `SELECT coalesce(sum(rated), 0) AS "total", coalesce(sum(detractors), 0) AS "bad", coalesce(sum(passives), 0) AS "mid", coalesce(sum(promoters), 0) AS "good"
         FROM dashboard_day_users WHERE company_id = ? AND day BETWEEN ?::date AND ?::date`,
    );
    return [{ total_notas: Number(row.total), ruim: Number(row.bad), media: Number(row.mid), boa: Number(row.good) }];
  }

  private async names(companyId: number, rows: { userId: number | null; queueId: number | null; connectionId: number | null; contactId: number }[]) {
    const [users, queues, connections, contacts] = await Promise.all([
      this.identity.listUsers(companyId, [...new Set(rows.map((x) => x.userId).filter((x): x is number => x !== null))]),
      this.queues.listQueues(companyId),
      this.connections.list(companyId),
      this.contacts.getMany(companyId, [...new Set(rows.map((x) => x.contactId))]),
    ]);
    const u = new Map(users.map((x) => [x.id, { id: x.id, name: x.name }]));
    const q = new Map(queues.map((x) => [x.id, { id: x.id, name: x.name, color: x.color }]));
    const w = new Map(connections.map((x) => [x.id, { id: x.id, name: x.name }]));
    const c = new Map(contacts.map((x) => [x.id, { id: x.id, name: x.name, number: x.number }]));
    return {
      user: (id: number | null) => (id === null ? null : u.get(id) ?? null),
      queue: (id: number | null) => (id === null ? null : q.get(id) ?? null),
      whatsapp: (id: number | null) => (id === null ? null : w.get(id) ?? null),
      contact: (id: number) => c.get(id) ?? null,
    };
  }

  /** `GET /dashboard/moments`: the company's tickets in the given statuses, newest activity first (at most 1,000). */
  async moments(companyId: number, f: MomentsFilters): Promise<MomentTicket[]> {
    await this.model.ensureBackfilled(companyId);
    const q = this.db('dashboardTickets').where({ companyId }).whereIn('status', f.statuses);
    if (f.queueIds) {
      const ids = f.queueIds.filter((x) => x !== 0);
      const none = f.queueIds.includes(0);
      void q.where((w) => {
        if (ids.length) void w.orWhereIn('queueId', ids);
        if (none) void w.orWhereNull('queueId');
        if (!ids.length && !none) void w.whereRaw('false');
      });
    }
    if (f.userId !== undefined) void q.where({ userId: f.userId });
    if (f.range) {
      const [cond, b] = inRange('created_at', f.range);
      void q.whereRaw(cond, b as Knex.RawBinding[]);
    } else void q.where('sourceUpdatedAt', '>=', f.since);
    const rows = (await q.orderBy('sourceUpdatedAt', 'desc').orderBy('ticketId', 'desc').limit(1000)) as Record<string, unknown>[];
    const mapped = rows.map((x) => ({
      id: Number(x.ticketId),
      uuid: String(x.uuid),
      status: String(x.status),
      userId: (x.userId as number | null) ?? null,
      queueId: (x.queueId as number | null) ?? null,
      connectionId: (x.connectionId as number | null) ?? null,
      contactId: Number(x.contactId),
      lastMessage: (x.lastMessage as string | null) ?? null,
      createdAt: iso(x.createdAt),
      updatedAt: iso(x.sourceUpdatedAt),
    }));
    const n = await this.names(companyId, mapped);
    return mapped.map(({ connectionId, ...t }) => ({
      ...t,
      whatsappId: connectionId,
      user: n.user(t.userId),
      queue: n.queue(t.queueId),
      contact: n.contact(t.contactId),
      whatsapp: n.whatsapp(connectionId),
    }));
  }

  /** `GET /ticket/reports`: one page of the tickets created in the range matching the filters, newest first, with totals. */
  async report(companyId: number, f: ReportFilters): Promise<ReportPage> {
    await this.model.ensureBackfilled(companyId);
    const [cond, b] = inRange('created_at', f.range);
    const base = () => {
      const q = this.db('dashboardTickets').where({ companyId }).whereRaw(cond, b as Knex.RawBinding[]);
      whereRefs(q, f);
      if (f.statuses) void q.whereIn('status', f.statuses);
      if (f.isGroup !== undefined) void q.where({ isGroup: f.isGroup });
      return q;
    };
    const totalsQ = base().select(
      this.db.raw('count(*) AS "n"'),
      this.db.raw('count(DISTINCT contact_id) AS "contacts"'),
      this.db.raw(`avg(${WAIT}) FILTER (WHERE accepted_at IS NOT NULL) AS "avgWait"`),
      this.db.raw(`avg(${SUPPORT}) FILTER (WHERE ${SUPPORT_WHEN}) AS "avgSupport"`),
      this.db.raw(`avg(date_part('epoch', closed_at - created_at)) FILTER (WHERE status = 'closed' AND closed_at IS NOT NULL) AS "avgDuration"`),
    );
    const { offset, limit, hasMore } = page(f.pageNumber, f.pageSize);
    const pageQ = base().orderBy('createdAt', 'desc').orderBy('ticketId', 'desc').offset(offset).limit(limit);
    // The totals and the page at once (two connections).
    const [[t], rows] = (await Promise.all([totalsQ, pageQ])) as [Record<string, unknown>[], Record<string, unknown>[]];
    const mapped = rows.map((x) => ({
      ticketId: Number(x.ticketId),
      uuid: String(x.uuid),
      status: String(x.status),
      isGroup: Boolean(x.isGroup),
      userId: (x.userId as number | null) ?? null,
      queueId: (x.queueId as number | null) ?? null,
      connectionId: (x.connectionId as number | null) ?? null,
      contactId: Number(x.contactId),
      lastMessage: (x.lastMessage as string | null) ?? null,
      updatedAt: x.sourceUpdatedAt as Date,
      createdAt: x.createdAt as Date,
      acceptedAt: (x.acceptedAt as Date | null) ?? null,
      closedAt: (x.closedAt as Date | null) ?? null,
      rating: (x.rating as number | null) ?? null,
    }));
    const n = await this.names(companyId, mapped);
    const span = (a: Date | null, z: Date | null) => (a && z ? minutes((z.getTime() - a.getTime()) / 1000) : null);
    const count = Number(t.n);
    const timeZone = await this.timeZone(companyId);
    return {
      timeZone,
      tickets: mapped.map((x) => {
        const [contact, queue, user, whatsapp] = [n.contact(x.contactId), n.queue(x.queueId), n.user(x.userId), n.whatsapp(x.connectionId)];
        return {
          id: x.ticketId,
          uuid: x.uuid,
          status: x.status,
          isGroup: x.isGroup,
          contact,
          queue,
          user,
          whatsapp,
          createdAt: iso(x.createdAt),
          acceptedAt: x.acceptedAt ? iso(x.acceptedAt) : null,
          closedAt: x.closedAt ? iso(x.closedAt) : null,
          updatedAt: iso(x.updatedAt),
          lastMessage: x.lastMessage,
          waitTime: span(x.createdAt, x.acceptedAt),
          supportTime: x.status === 'closed' ? span(x.acceptedAt, x.closedAt) : null,
          duration: x.status === 'closed' ? span(x.createdAt, x.closedAt) : null,
          rating: x.rating,
          whatsappName: whatsapp?.name ?? null,
          contactName: contact?.name ?? null,
          userName: user?.name ?? null,
          queueName: queue?.name ?? null,
          NPS: x.rating,
        };
      }),
      count,
      totalTickets: { total: count },
      hasMore: hasMore(count, rows.length),
      totals: { tickets: count, contacts: Number(t.contacts), avgWaitTime: minutes(t.avgWait), avgSupportTime: minutes(t.avgSupport), avgDuration: minutes(t.avgDuration) },
    };
  }

  /**
   * `GET /ticket/reports/research`: one page of the customers' NPS answers (0..10) given on the days of the
   * range (the company's time zone), newest first, with the totals over every matching answer. Each answer
   * carries its ticket's contact, attendant, queue and connection as the ticket has them now.
   */
  async research(companyId: number, f: ResearchFilters): Promise<ResearchPage> {
    await this.model.ensureBackfilled(companyId);
    const [cond, b] = inRange('rated_at', f.range);
    const base = () => {
      const q = this.db('dashboardTickets').where({ companyId }).whereNotNull('rating').whereRaw(cond, b as Knex.RawBinding[]);
      whereRefs(q, f);
      if (f.classes) {
        const classes = f.classes;
        void q.where((w) => {
          for (const c of classes) void w.orWhereRaw(CLASS_SQL[c]);
        });
      }
      return q;
    };
    const totalsQ = base().select(
      this.db.raw('count(*) AS "n"'),
      this.db.raw('avg(rating)::float8 AS "average"'),
      this.db.raw(`count(*) FILTER (WHERE ${CLASS_SQL.promoter}) AS "promoters"`),
      this.db.raw(`count(*) FILTER (WHERE ${CLASS_SQL.passive}) AS "passives"`),
      this.db.raw(`count(*) FILTER (WHERE ${CLASS_SQL.detractor}) AS "detractors"`),
    );
    const { offset, limit, hasMore } = page(f.pageNumber, f.pageSize);
    const pageQ = base().orderBy('ratedAt', 'desc').orderBy('ticketId', 'desc').offset(offset).limit(limit);
    const [[t], rows] = (await Promise.all([totalsQ, pageQ])) as [Record<string, unknown>[], Record<string, unknown>[]];
    const mapped = rows.map((x) => ({
      ticketId: Number(x.ticketId),
      uuid: String(x.uuid),
      rate: Number(x.rating),
      ratedAt: x.ratedAt as Date,
      createdAt: x.createdAt as Date,
      closedAt: (x.closedAt as Date | null) ?? null,
      userId: (x.userId as number | null) ?? null,
      queueId: (x.queueId as number | null) ?? null,
      connectionId: (x.connectionId as number | null) ?? null,
      contactId: Number(x.contactId),
    }));
    const n = await this.names(companyId, mapped);
    const count = Number(t.n);
    const [promoters, passives, detractors] = [Number(t.promoters), Number(t.passives), Number(t.detractors)];
    const promotersPerc = perc(promoters, count);
    const detractorsPerc = perc(detractors, count);
    return {
      answers: mapped.map((x) => ({
        ticketId: x.ticketId,
        uuid: x.uuid,
        rate: x.rate,
        npsClass: npsClassOf(x.rate),
        ratedAt: iso(x.ratedAt),
        createdAt: iso(x.createdAt),
        closedAt: x.closedAt ? iso(x.closedAt) : null,
        contact: n.contact(x.contactId),
        queue: n.queue(x.queueId),
        user: n.user(x.userId),
        whatsapp: n.whatsapp(x.connectionId),
      })),
      count,
      hasMore: hasMore(count, rows.length),
      totals: {
        answers: count,
        average: t.average === null || t.average === undefined ? null : Math.round(Number(t.average) * 100) / 100,
        promoters,
        passives,
        detractors,
        promotersPerc,
        passivesPerc: perc(passives, count),
        detractorsPerc,
        npsScore: Math.round((promotersPerc - detractorsPerc) * 100) / 100,
      },
      timeZone: await this.timeZone(companyId),
    };
  }
}

/** A status (or NPS class) filter: one value or a list (JSON or comma); values outside `allowed` are 400 ERR_DASHBOARD_FILTER. */
export function parseStatuses(v: string | undefined, allowed: readonly string[]): string[] | undefined {
  if (v === undefined || !v.trim()) return undefined;
  let items: string[];
  const s = v.trim();
  // The product family's report sends `status=[]` when no status is chosen: no filter.
  if (/^\[\s*\]$/.test(s)) return undefined;
  if (s.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(s);
      if (!Array.isArray(parsed)) throw new Error('not an array');
      items = parsed.map(String);
    } catch {
      throw new AppError('ERR_DASHBOARD_FILTER');
    }
  } else items = s.split(',').map((x) => x.trim());
  if (!items.length || items.some((x) => !allowed.includes(x))) throw new AppError('ERR_DASHBOARD_FILTER');
  return [...new Set(items)];
}
