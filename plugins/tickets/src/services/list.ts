import type { Knex } from 'knex';
import type { Ticket } from '@atendo/sdk/wire';
import { TtlCache, type AuthUser, type IdentityService, type PublicUser } from '@atendo/sdk';
import type { Queue } from '@atendo/plugin-queues/contract';
import type { Connection } from '@atendo/plugin-connections/contract';
import type { Tag } from '@atendo/plugin-tags/contract';
import { ACTIVE_STATUSES, TICKET_STATUSES, type TicketRow, type TicketStatus, type Viewer } from '../model';
import { applyVisibility, isAdmin, seesAll, viewerAudiences } from '../visibility';
import { LIST_PAGE_SIZE, type KanbanQuery, type ListTab, type ListTicketsQuery } from '../schemas/list';
import { loadViewer, serializeTickets, shouldMask } from './core';
import type { TicketsDeps } from './deps';
import { DisplayCache, RELATED_TTL_MS } from './display-cache';

/**
 * The ticket lists: GET /tickets (the ticket manager's tabs open / pending / group / closed and the search
 * tab) and GET /ticket/kanban. Every query goes through `applyVisibility` (src/visibility.ts), so a list
 * shows exactly what the caller may see (spec 2-tickets.md §6).
 *
 * Speed (target: page 1 of each tab under 50 ms p99 for 50 concurrent agents at 100,000 tickets and
 * 1,000,000 messages in one company; measured figures and limits in bench/README.md):
 * - pages are read newest activity first straight from the (company, status, updated_at, id) indexes, 41
 *   rows for 40 shown: `hasMore` comes from the 41st row, not from a count;
 * - `count` is exact up to COUNT_CAP (1,000) and capped there (a LIMITed sub-select; deeper pages report
 *   at least the position reached): counting 10,000 index entries costs 2-4 ms of database time per
 *   request, 1,000 about 0.2 ms, and the client reads only `hasMore`;
 * - `count` and the tab `counts` come from one statement;
 * - a text search reports `count` as a lower bound (what was found so far, plus one when more exist);
 * - the viewer facts (profile, allTicket, allowGroup, queue ids) are cached per (company, user) for
 *   VIEWER_TTL_MS (5 s, at most VIEWER_CACHE_MAX entries): a user's new queues or flags reach the lists
 *   within 5 s;
 * - the records of other plugins the serialization needs that change rarely (queues, the company's
 *   connections, users' names, tags, the lgpdHideNumber setting) are cached per company and id for
 *   RELATED_TTL_MS (5 s; a renamed queue shows in lists within 5 s). Contacts (names, numbers, tags) and
 *   ticket tags are read fresh on every request.
 */

/** Days of `date`/`dateStart`/`dateEnd`/`updatedAt` are calendar days in this time zone. */
export const LIST_TIME_ZONE = 'America/Sao_Paulo';
/** `count` is exact up to this many tickets, then capped. */
export const COUNT_CAP = 1_000;
/** A text search matches at most this many contacts (newest first) by name or number. */
export const CONTACT_MATCH_CAP = 1_000;
/** Terms shorter than this are matched against contacts only (a trigram index needs 3 characters). */
export const MIN_BODY_TERM = 3;
/** Above this many matching messages, a search is answered by scanning the newest tickets instead. */
export const MESSAGE_MATCH_CAP = 20_000;
/** A text search first checks this many newest visible tickets (plus 10 per ticket skipped by paging). */
export const RECENT_WINDOW = 600;
export const VIEWER_TTL_MS = 5_000;
export const VIEWER_CACHE_MAX = 10_000;
export { RELATED_TTL_MS };

/** Status sets of the tabs (`search` and absent are resolved in `resolveStatuses`). */
const TAB_STATUSES: Record<Exclude<ListTab, 'search'>, TicketStatus[]> = {
  open: ['open'],
  pending: ['pending'],
  group: ['group'],
  closed: ['closed'],
};

/** The normalised filters of one list request. */
export interface ListFilters {
  /** Statuses to list; undefined = any status. */
  statuses?: TicketStatus[];
  /** Only tickets assigned to the viewer (the open tab without a permitted show-all). */
  ownOnly: boolean;
  showAll: boolean;
  queueIds?: number[];
  /** The ticket must carry every one of these tags. */
  tags?: number[];
  /** The ticket must carry none of these tags (the kanban's default lane: none of the kanban tags). */
  withoutTags?: number[];
  /** Assigned users (already dropped for non-admins). */
  users?: number[];
  whatsapps?: number[];
  unread: boolean;
  /** Inclusive day range on updated_at (YYYY-MM-DD, in LIST_TIME_ZONE). */
  fromDay?: string;
  toDay?: string;
  /** Lower-cased, trimmed search term ('' = none). */
  term: string;
  pageNumber: number;
}

export interface TabCounts {
  open: number;
  pending: number;
  group: number;
}

export interface ListAnswer {
  tickets: Ticket[];
  count: number;
  hasMore: boolean;
}

/** Escapes `%`, `_` and `\` for a LIKE / ILIKE pattern (escape character `\`). */
export function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}


/** Counts entries live at most this long (the answer cache's safety net for an event lost between nodes). */
export const STATS_TTL_MS = 10_000;
const STATS_CACHE_MAX = 5_000;

/** A stats entry: the version of its scopes when its statement started, and the statement's promise. */
interface StatsEntry {
  version: number;
  at: number;
  value: Promise<{ count?: number; counts?: TabCounts }>;
}

/**
 * The tab counts and the capped count of the lists, kept per company, visibility and filters (not the page
 * and not the viewer when two viewers see the same tickets), validated by the answer cache's version
 * counters (`versionOf(companyId, scopes)`: the company's and the viewer's audiences'): every page of a
 * tab, and every admin of a company, share one counting statement until a ticket event of their
 * audiences or a company event changes the version. An entry computed across a change is used by the
 * requests that started before it and never served after (its version is older).
 */
export class StatsCache {
  private readonly map = new Map<string, StatsEntry>();
  hits = 0;
  misses = 0;

  constructor(
    private readonly versionOf: (companyId: number, scopes: readonly string[]) => number,
    private readonly ttlMs = STATS_TTL_MS,
    private readonly max = STATS_CACHE_MAX,
  ) {}

  get(companyId: number, key: string, scopes: readonly string[], load: () => Promise<{ count?: number; counts?: TabCounts }>): Promise<{ count?: number; counts?: TabCounts }> {
    const version = this.versionOf(companyId, scopes);
    const now = Date.now();
    const hit = this.map.get(key);
    if (hit && hit.version === version && now - hit.at < this.ttlMs) {
      this.hits++;
      return hit.value;
    }
    this.misses++;
    const entry: StatsEntry = { version, at: now, value: load() };
    this.map.delete(key);
    if (this.map.size >= this.max) {
      const oldest = this.map.keys().next().value;
      if (oldest !== undefined) this.map.delete(oldest);
    }
    this.map.set(key, entry);
    entry.value.catch(() => {
      if (this.map.get(key) === entry) this.map.delete(key);
    });
    return entry.value;
  }

  clear(): void {
    this.map.clear();
  }
}

/**
 * Which tickets `v` sees with the list filters `f` (and whose own-only rules apply), as a key: equal keys
 * select the same tickets. Viewers who see the whole company share one key; others carry their id,
 * queues and group permission.
 */
function visibilityKey(v: Viewer, f: Omit<ListFilters, 'term' | 'pageNumber'>): string {
  const own = f.ownOnly || !(f.showAll && seesAll(v)) ? `o${v.id}` : '';
  if (seesAll(v)) return f.showAll || !f.queueIds?.length ? `all${own}` : `q${f.queueIds.join(',')}u${v.id}`;
  return `u${v.id}q${v.queueIds.join(',')}g${v.allowGroup ? 1 : 0}f${f.queueIds?.join(',') ?? ''}`;
}

/** Statuses a GET /tickets request lists (see ListTicketsQuery.status). */
export function resolveStatuses(tab: ListTab | undefined, statusFilter: TicketStatus[] | undefined): TicketStatus[] | undefined {
  if (tab && tab !== 'search') return TAB_STATUSES[tab];
  const wanted = statusFilter?.length ? [...new Set(statusFilter)] : undefined;
  if (tab === 'search') return wanted;
  return wanted ?? ACTIVE_STATUSES;
}

const uniq = (ids: number[] | undefined): number[] | undefined => (ids?.length ? [...new Set(ids)] : undefined);

/**
 * The list service of one kernel: `list` (GET /tickets), `kanban` (GET /ticket/kanban), `viewer` (cached
 * viewer facts) and `query` (the visibility-filtered tickets query other list-like features may reuse).
 */
export class TicketListService {
  private readonly viewers = new TtlCache<Viewer>(VIEWER_TTL_MS, VIEWER_CACHE_MAX);
  /** The display records cache (shared with the live events when the plugin passes its own). */
  private readonly display: DisplayCache;
  /** `deps` with short-TTL caches in front of the other plugins' rarely changing records. */
  private readonly cached: TicketsDeps;

  private readonly opts: { recentWindow: number; messageMatchCap: number };
  /** The counts cache (when the caller gives the answer cache's version counters), else none. */
  readonly stats?: StatsCache;

  /**
   * `opts` overrides the search plan's sizes (tests exercise every step with small ones); `versionOf`
   * (the answer cache's version counters) turns the counts cache on; `display` is the plugin's display
   * records cache (default: one of its own).
   */
  constructor(
    private readonly deps: TicketsDeps,
    opts: Partial<{ recentWindow: number; messageMatchCap: number; versionOf: (companyId: number, scopes: readonly string[]) => number; statsTtlMs: number; display: DisplayCache }> = {},
  ) {
    this.opts = { recentWindow: opts.recentWindow ?? RECENT_WINDOW, messageMatchCap: opts.messageMatchCap ?? MESSAGE_MATCH_CAP };
    if (opts.versionOf && opts.statsTtlMs !== 0) this.stats = new StatsCache(opts.versionOf, opts.statsTtlMs ?? STATS_TTL_MS);
    this.display = opts.display ?? new DisplayCache(deps);
    this.cached = this.display.deps;
  }

  /** The viewer facts of `auth`, cached VIEWER_TTL_MS per (company, user). 403 ERR_NO_PERMISSION for a vanished user. */
  viewer(auth: AuthUser): Promise<Viewer> {
    return this.viewers.get(`${auth.companyId}:${auth.id}`, () => loadViewer(this.deps, auth));
  }

  /** Forgets cached viewer facts and related records (tests, or after bulk changes). */
  clearCaches(): void {
    this.viewers.clear();
    this.display.clear();
    this.stats?.clear();
  }

  /**
   * GET /tickets. Answers `{tickets (TicketL, updatedAt DESC then id DESC, numbers masked for profile
   * user when lgpdHideNumber is on), count, hasMore, counts: {open, pending, group}}`. Tabs:
   * - open: status open; only tickets assigned to the caller unless `showAll` and the caller may show all
   *   (admin, super or allTicket);
   * - pending / group / closed: tickets of that status the caller sees;
   * - search: any status (or `statusFilter`), with `searchParam` matched against contact names,
   *   contact numbers and message bodies;
   * - absent: active tickets (open, pending, group) the caller sees, or the `statusFilter` statuses.
   * `counts` counts the active tickets of each tab (open with the open tab's rule) with the same
   * visibility and filters, ignoring the search term, in one query.
   */
  async list(auth: AuthUser, query: ListTicketsQuery): Promise<ListAnswer & { counts: TabCounts }> {
    const viewer = await this.viewer(auth);
    const showAll = query.showAll === true;
    const f = this.filters(viewer, query, {
      statuses: resolveStatuses(query.status, query.statusFilter as TicketStatus[] | undefined),
      ownOnly: query.status === 'open' && !(showAll && seesAll(viewer)),
      whatsapps: uniq([...(query.whatsapps ?? []), ...(query.whatsappIds ?? [])]),
    });
    const { counts, ...page } = await this.page(viewer, f, true);
    return { ...page, counts: counts! };
  }

  /**
   * GET /ticket/kanban: pending and open tickets the caller sees (narrowed by `queueIds`, the caller's
   * queues in the kanban client), with their tags, newest activity first, 40 a page: `{tickets, count,
   * hasMore}`. `lane` narrows to one lane: 0 = tickets linked to none of the company's kanban tags (the
   * default lane), a tag id = tickets linked to that tag; `count` is then the lane's (capped at COUNT_CAP).
   */
  async kanban(auth: AuthUser, query: KanbanQuery): Promise<ListAnswer> {
    const viewer = await this.viewer(auth);
    const f = this.filters(viewer, query, { statuses: ['pending', 'open'], ownOnly: false });
    if (query.lane !== undefined && query.lane > 0) f.tags = [...new Set([...(f.tags ?? []), query.lane])];
    if (query.lane === 0) {
      const kanbanIds = await this.deps.tags.kanbanIds(viewer.companyId);
      if (kanbanIds.length) f.withoutTags = kanbanIds;
    }
    const { tickets, count, hasMore } = await this.page(viewer, f, false);
    return { tickets, count, hasMore };
  }

  private filters(viewer: Viewer, q: KanbanQuery, extra: Pick<ListFilters, 'statuses' | 'ownOnly'> & { whatsapps?: number[] }): ListFilters {
    return {
      ...extra,
      showAll: q.showAll === true,
      queueIds: uniq(q.queueIds),
      tags: uniq(q.tags),
      users: isAdmin(viewer) ? uniq(q.users) : undefined,
      unread: q.withUnreadMessages === true,
      fromDay: q.dateStart ?? q.date ?? q.updatedAt,
      toDay: q.dateEnd ?? q.date ?? q.updatedAt,
      term: (q.searchParam ?? '').trim().toLowerCase(),
      pageNumber: q.pageNumber ?? 1,
    };
  }

  /**
   * The tickets `viewer` may see with `f` applied (statuses, own-only, filters; not the search term and
   * not paging), as a query on `tickets` selecting nothing yet. `statuses: false` leaves statuses and
   * own-only out (the tab counts); `extra` adds conditions.
   */
  query(viewer: Viewer, f: Omit<ListFilters, 'term' | 'pageNumber'>, opts: { statuses?: boolean; extra?: (q: Knex.QueryBuilder) => void } = {}): Knex.QueryBuilder {
    const db = this.deps.db;
    const q = db('tickets');
    applyVisibility(q, viewer, { showAll: f.showAll, queueIds: f.queueIds });
    if (opts.statuses !== false && f.statuses) {
      if (f.statuses.length === 1) q.where('tickets.status', f.statuses[0]);
      else q.whereRaw('tickets.status = ANY(CAST(? AS text[]))', [f.statuses]);
    }
    if (opts.statuses !== false && f.ownOnly) q.where('tickets.userId', viewer.id);
    if (f.unread) q.where('tickets.unreadMessages', '>', 0);
    if (f.users) q.whereRaw('tickets.user_id = ANY(CAST(? AS int[]))', [f.users]);
    if (f.whatsapps) q.whereRaw('tickets.whatsapp_id = ANY(CAST(? AS int[]))', [f.whatsapps]);
    for (const tagId of f.tags ?? []) {
      q.whereExists(db('ticketTags').select(db.raw('1')).whereRaw('ticket_tags.ticket_id = tickets.id').where('ticketTags.tagId', tagId));
    }
    if (f.withoutTags?.length) {
      q.whereNotExists(db('ticketTags').select(db.raw('1')).whereRaw('ticket_tags.ticket_id = tickets.id').whereRaw('ticket_tags.tag_id = ANY(CAST(? AS int[]))', [f.withoutTags]));
    }
    if (f.fromDay) q.whereRaw('tickets.updated_at >= (CAST(? AS date)::timestamp AT TIME ZONE ?)', [f.fromDay, LIST_TIME_ZONE]);
    if (f.toDay) q.whereRaw('tickets.updated_at < ((CAST(? AS date) + 1)::timestamp AT TIME ZONE ?)', [f.toDay, LIST_TIME_ZONE]);
    opts.extra?.(q);
    return q;
  }

  /**
   * The visible tickets of `f` newest first (`tickets.*`, alias `tickets`), at most `limit` when given
   * (callers paging inside that window set their own `.offset().limit()` on the result).
   * One status reads the (company, status, updated_at, id) index in order; several statuses (and "any
   * status") are one such ordered scan per status merged by PostgreSQL (UNION ALL under ORDER BY: a
   * Merge Append), so a page reads about as many index entries as it shows, whatever the mix.
   */
  ordered(viewer: Viewer, f: Omit<ListFilters, 'term' | 'pageNumber'>, opts: { limit?: number; extra?: (q: Knex.QueryBuilder) => void } = {}): Knex.QueryBuilder {
    const db = this.deps.db;
    const statuses = f.statuses ?? [...TICKET_STATUSES];
    const branch = (status: TicketStatus) => {
      const q = newestFirst(this.query(viewer, { ...f, statuses: [status] }, { extra: opts.extra }).select('tickets.*'));
      if (opts.limit !== undefined) q.limit(opts.limit);
      return q;
    };
    if (statuses.length === 1) return branch(statuses[0]);
    const merged = newestFirst(db.select('tickets.*').from(db.queryBuilder().unionAll(statuses.map(branch), true).as('tickets')));
    if (opts.limit !== undefined) merged.limit(opts.limit);
    return merged;
  }

  /**
   * One page (`f.pageNumber`) serialized, with `count` and `hasMore`, and the tab counts when `withCounts`.
   * Two statements run side by side: the page's rows, and the counts.
   */
  private async page(viewer: Viewer, f: ListFilters, withCounts: boolean): Promise<ListAnswer & { counts?: TabCounts }> {
    const offset = (f.pageNumber - 1) * LIST_PAGE_SIZE;
    const want = LIST_PAGE_SIZE + 1;
    const rowsP: Promise<TicketRow[]> = f.term
      ? this.searchRows(viewer, f, offset)
      : (this.ordered(viewer, f, { limit: offset + want }).offset(offset).limit(want) as Promise<TicketRow[]>);
    const [rows, stats] = await Promise.all([rowsP, this.cachedStats(viewer, f, { count: !f.term, counts: withCounts })]);
    const count = stats.count;
    const hasMore = rows.length > LIST_PAGE_SIZE;
    const pageRows = hasMore ? rows.slice(0, LIST_PAGE_SIZE) : rows;
    const reached = offset + pageRows.length + (hasMore ? 1 : 0);
    const mask = await shouldMask(this.cached, viewer.companyId, viewer.profile, viewer.super);
    const tickets = await serializeTickets(this.cached, viewer.companyId, pageRows, { maskNumbers: mask });
    return { tickets, count: Math.max(count ?? 0, reached), hasMore, counts: stats.counts };
  }

  /** `stats`, through the counts cache when it is on: keyed by company, visibility and filters, not by page. */
  private cachedStats(viewer: Viewer, f: ListFilters, opts: { count: boolean; counts: boolean }): Promise<{ count?: number; counts?: TabCounts }> {
    if (!this.stats || (!opts.count && !opts.counts)) return this.countStats(viewer, f, opts);
    const { term: _term, pageNumber: _page, ...filters } = f;
    const key = `${viewer.companyId}|${visibilityKey(viewer, f)}|${opts.count ? 1 : 0}${opts.counts ? 1 : 0}|${JSON.stringify(filters)}`;
    return this.stats.get(viewer.companyId, key, viewerAudiences(viewer), () => this.countStats(viewer, f, opts));
  }

  /**
   * In one statement: the capped `count` of the list (`opts.count`) and the per-tab `counts` of active
   * tickets (`opts.counts`: COUNT(*) FILTER per tab, the open tab with its own-only rule).
   */
  private async countStats(viewer: Viewer, f: ListFilters, opts: { count: boolean; counts: boolean }): Promise<{ count?: number; counts?: TabCounts }> {
    const db = this.deps.db;
    if (!opts.counts) return opts.count ? { count: await this.cappedCount(this.query(viewer, f)) } : {};
    const ownOpen = !(f.showAll && seesAll(viewer));
    const selects = [
      db.raw(
        `count(*) FILTER (WHERE tickets.status = 'open'${ownOpen ? ' AND tickets.user_id = ?' : ''})::int AS open,
         count(*) FILTER (WHERE tickets.status = 'pending')::int AS pending,
         count(*) FILTER (WHERE tickets.status = 'group')::int AS "group"`,
        ownOpen ? [viewer.id] : [],
      ),
    ];
    if (opts.count) selects.push(db.raw('(SELECT count(*) FROM ? AS capped)::int AS n', [this.query(viewer, f).select(db.raw('1')).limit(COUNT_CAP)]));
    const row = (await this.query(viewer, f, { statuses: false })
      .whereRaw('tickets.status = ANY(CAST(? AS text[]))', [ACTIVE_STATUSES])
      .first(selects)) as (TabCounts & { n?: number }) | undefined;
    return {
      count: opts.count ? Number(row?.n ?? 0) : undefined,
      counts: { open: Number(row?.open ?? 0), pending: Number(row?.pending ?? 0), group: Number(row?.group ?? 0) },
    };
  }

  /** `min(rows of q, cap)`: a LIMITed sub-select, so at most `cap` rows are visited. */
  private async cappedCount(q: Knex.QueryBuilder, cap = COUNT_CAP): Promise<number> {
    const db = this.deps.db;
    const row = (await db.from(q.select(db.raw('1')).limit(cap).as('capped')).count({ n: '*' }).first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  }

  /**
   * Up to 41 rows of a text search from `offset`, newest activity first. A ticket matches when its
   * contact's name contains the term or its number contains the term's digits (contacts service
   * `searchIds`, at most CONTACT_MATCH_CAP contacts), or when one of its messages' bodies contains the term
   * (ILIKE; terms of MIN_BODY_TERM characters or more). Plan, cheapest first:
   * 1. walk the newest `recentWindow` visible tickets and check each one's messages (a common word fills
   *    the page within a few dozen tickets);
   * 2. otherwise (a rarer word) take the matching messages from the trigram index
   *    (messages_company_body_trgm), at most `messageMatchCap` of them: the exact set, sorted;
   * 3. more matches than that: walk every visible ticket newest first until the page is full.
   */
  private async searchRows(viewer: Viewer, f: ListFilters, offset: number): Promise<TicketRow[]> {
    const db = this.deps.db;
    const want = LIST_PAGE_SIZE + 1;
    // Viewers of masked numbers (lgpdHideNumber) find a contact by its complete number only.
    const exactNumber = await shouldMask(this.cached, viewer.companyId, viewer.profile, viewer.super);
    const contactIds = await this.deps.contacts.searchIds(viewer.companyId, f.term, CONTACT_MATCH_CAP, { exactNumber });
    const byContact = (column: string) => db.raw(`${column} = ANY(CAST(? AS int[]))`, [contactIds]);
    if (f.term.length < MIN_BODY_TERM) {
      if (!contactIds.length) return [];
      return this.ordered(viewer, f, { limit: offset + want, extra: (q) => q.where(byContact('tickets.contact_id')) }).offset(offset).limit(want);
    }
    const pattern = `%${likeEscape(f.term)}%`;
    const walk = (window?: number): Promise<TicketRow[]> =>
      newestFirst(
        db
          .select('tickets.*')
          .from(this.ordered(viewer, f, { limit: window }).as('tickets'))
          .joinRaw('LEFT JOIN LATERAL (SELECT 1 AS hit FROM messages m WHERE m.ticket_id = tickets.id AND m.body ILIKE ? LIMIT 1) h ON true', [pattern])
          .where((w) => w.where(byContact('tickets.contact_id')).orWhereNotNull('h.hit')),
      )
        .offset(offset)
        .limit(want) as Promise<TicketRow[]>;
    // 1. the newest tickets
    const window = this.opts.recentWindow + offset * 10;
    const recent = await walk(window);
    if (recent.length >= want) return recent;
    const visible = await this.cappedCount(this.query(viewer, f), window + 1);
    if (visible <= window) return recent; // the window held every visible ticket: exact
    // 2. the trigram index
    const hits = (await db
      .from(db('messages').where('companyId', viewer.companyId).whereRaw('body ILIKE ?', [pattern]).limit(this.opts.messageMatchCap + 1).select('ticketId').as('m'))
      .first(db.raw('count(*)::int AS n'), db.raw('COALESCE(array_agg(DISTINCT m.ticket_id), ARRAY[]::int[]) AS ids'))) as { n: number; ids: number[] };
    if (hits.n <= this.opts.messageMatchCap) {
      if (!hits.ids.length && !contactIds.length) return [];
      const matching = (q: Knex.QueryBuilder) => q.where((w) => w.where(byContact('tickets.contact_id')).orWhere(db.raw('tickets.id = ANY(CAST(? AS int[]))', [hits.ids])));
      return this.ordered(viewer, f, { limit: offset + want, extra: matching }).offset(offset).limit(want);
    }
    // 3. a very common term on a deep page
    return walk();
  }
}

/** ORDER BY updated_at DESC, id DESC (the order of every list and of the list indexes). */
function newestFirst(q: Knex.QueryBuilder): Knex.QueryBuilder {
  return q.orderBy([
    { column: 'tickets.updatedAt', order: 'desc' },
    { column: 'tickets.id', order: 'desc' },
  ]);
}
