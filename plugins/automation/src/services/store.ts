import type { Knex } from 'knex';
import { BatchLoader, WriteBatcher, camelRow } from '@atendo/sdk';
import type { BotState, NpsQuery, NpsRating, NpsSummary } from '../contract';
import { summarizeNps } from '../rules/answers';

/** Where the bot is with a ticket (`null`: it has not spoken in it yet). */
export type Stage = BotState['stage'] | null;

/** A row of `automation_bot_states`. */
export interface StateRow {
  ticketId: number;
  companyId: number;
  stage: Stage;
  queueId: number | null;
  path: number[];
  menuUses: number;
  npsUses: number;
  lgpdUses: number;
  positionQueueId: number | null;
  lastPosition: number | null;
  queueEnteredAt: Date | null;
  inactiveSent: boolean;
  leaseUntil: Date | null;
  updatedAt: Date;
}

/** The state fields a turn may change. */
export type StatePatch = Partial<Pick<StateRow, 'stage' | 'queueId' | 'path' | 'menuUses' | 'npsUses' | 'lgpdUses' | 'positionQueueId' | 'lastPosition' | 'queueEnteredAt' | 'inactiveSent'>>;

/** How long one turn may hold a ticket before another node may take it (a crashed node's lease expires). */
export const LEASE_MS = 15_000;
/** How long a waiting turn polls for another node's lease on the same ticket. */
const LEASE_WAIT_MS = 10_000;
const LEASE_POLL_MS = 25;
/** Processed inbound ids are kept this long (redeliveries come within minutes). */
export const PROCESSED_KEEP_DAYS = 7;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The state of a ticket with no row (what the table's defaults give). */
function emptyState(companyId: number, ticketId: number): StateRow {
  return { ticketId, companyId, stage: null, queueId: null, path: [], menuUses: 0, npsUses: 0, lgpdUses: 0, positionQueueId: null, lastPosition: null, queueEnteredAt: null, inactiveSent: false, leaseUntil: null, updatedAt: new Date() };
}

function toRow(r: Record<string, unknown>): StateRow {
  return { ...(r as unknown as StateRow), path: Array.isArray(r.path) ? (r.path as number[]) : [] };
}

/**
 * The automation plugin's own tables (see the migrations). Every method is scoped to `companyId`.
 */
export class AutomationStore {
  /** Turns of one ticket in this process run one after the other. */
  private readonly local = new Map<number, Promise<unknown>>();

  /**
   * Stage reads waiting together (the chain's pre-checks of concurrent messages) go in one statement; a row
   * of another company than asked counts as no state.
   */
  private readonly stages: BatchLoader<{ companyId: number; ticketId: number }, Stage | undefined>;

  /**
   * The other round trips of every turn, shared by the turns making them at the same time: taking a lease
   * (with the claim of the turn's inbound message: at most one reply per message), releasing it (with the
   * state the turn saved). Rows are written in key order, so two nodes' statements
   * lock them in the same order.
   */
  private readonly leases: BatchLoader<{ companyId: number; ticketId: number; messageId?: number }, { state: StateRow; claimed: boolean | undefined } | undefined>;
  private readonly releases: WriteBatcher<{ companyId: number; ticketId: number; patch: StatePatch }>;
  /**
   * The turns this process runs now, by ticket: the state fields saved during a turn are kept here and
   * written with the lease's release (one statement for both); reads of the ticket's state see them.
   */
  private readonly turnsRunning = new Map<number, { companyId: number; patch: StatePatch; forgotten: boolean }>();

  constructor(private readonly db: Knex) {
    this.leases = new BatchLoader(async (items) => {
      // One try per ticket and statement (ON CONFLICT DO UPDATE may touch a row once): a repeated ticket
      // gets no lease this time and polls again.
      const first = new Map<number, number>();
      items.forEach((i, idx) => first.has(i.ticketId) || first.set(i.ticketId, idx));
      const tries = [...first.values()].sort((a, b) => items[a].ticketId - items[b].ticketId);
      // A message named by two turns of this batch (never the case for real messages, which have one ticket):
      // the first one claims it, the other is told it is taken.
      const named = new Set<string>();
      const dupe = new Set<number>();
      for (const i of tries) {
        const m = items[i].messageId;
        if (m === undefined) continue;
        const key = `${items[i].companyId}:${m}`;
        if (named.has(key)) dupe.add(i);
        named.add(key);
      }
      // One statement: creates each row leased, or takes the lease of a free (or expired) one; where a lease
      // was had and the turn names its inbound message, claims the message too (the lease keeps another
      // node from claiming it at the same time).
      const { rows } = (await this.db.raw(
        `WITH v AS (SELECT * FROM unnest(?::int[], ?::int[], ?::bigint[]) AS v(t, c, m)),
         l AS (
           INSERT INTO automation_bot_states (ticket_id, company_id, lease_until)
           SELECT t, c, now() + interval '${LEASE_MS} milliseconds' FROM v
           ON CONFLICT (ticket_id) DO UPDATE SET lease_until = EXCLUDED.lease_until
           WHERE automation_bot_states.company_id = EXCLUDED.company_id
             AND (automation_bot_states.lease_until IS NULL OR automation_bot_states.lease_until < now())
           RETURNING *
         ),
         claimed AS (
           INSERT INTO automation_processed_messages (company_id, message_id)
           SELECT v.c, v.m FROM v JOIN l ON l.ticket_id = v.t WHERE v.m IS NOT NULL
           ON CONFLICT (company_id, message_id) DO NOTHING
           RETURNING company_id, message_id
         )
         SELECT l.*, EXISTS (SELECT 1 FROM claimed WHERE claimed.company_id = v.c AND claimed.message_id = v.m) AS claimed
         FROM l JOIN v ON v.t = l.ticket_id`,
        [tries.map((i) => items[i].ticketId), tries.map((i) => items[i].companyId), tries.map((i) => (dupe.has(i) ? null : (items[i].messageId ?? null)))] as unknown as readonly string[],
      )) as { rows: Record<string, unknown>[] };
      const got = new Map(rows.map((r) => [Number(r.ticket_id), r]));
      return items.map((i, idx) => {
        const r = first.get(i.ticketId) === idx ? got.get(i.ticketId) : undefined;
        if (!r) return undefined;
        const { claimed, ...row } = r;
        return { state: toRow(camelRow(row)), claimed: i.messageId === undefined ? undefined : Boolean(claimed) && !dupe.has(idx) };
      });
    });
    this.releases = new WriteBatcher((items) => {
      const sorted = [...items].sort((a, b) => a.ticketId - b.ticketId);
      // One statement: each turn's state fields (the ones it saved, as JSON) written with its lease's release.
      return this.db.raw(
        `UPDATE automation_bot_states AS s SET
           lease_until = NULL,
           stage = CASE WHEN jsonb_exists(v.p, 'stage') THEN v.p->>'stage' ELSE s.stage END,
           queue_id = CASE WHEN jsonb_exists(v.p, 'queueId') THEN (v.p->>'queueId')::int ELSE s.queue_id END,
           path = CASE WHEN jsonb_exists(v.p, 'path') THEN v.p->'path' ELSE s.path END,
           menu_uses = CASE WHEN jsonb_exists(v.p, 'menuUses') THEN (v.p->>'menuUses')::int ELSE s.menu_uses END,
           nps_uses = CASE WHEN jsonb_exists(v.p, 'npsUses') THEN (v.p->>'npsUses')::int ELSE s.nps_uses END,
           lgpd_uses = CASE WHEN jsonb_exists(v.p, 'lgpdUses') THEN (v.p->>'lgpdUses')::int ELSE s.lgpd_uses END,
           position_queue_id = CASE WHEN jsonb_exists(v.p, 'positionQueueId') THEN (v.p->>'positionQueueId')::int ELSE s.position_queue_id END,
           last_position = CASE WHEN jsonb_exists(v.p, 'lastPosition') THEN (v.p->>'lastPosition')::int ELSE s.last_position END,
           queue_entered_at = CASE WHEN jsonb_exists(v.p, 'queueEnteredAt') THEN (v.p->>'queueEnteredAt')::timestamptz ELSE s.queue_entered_at END,
           inactive_sent = CASE WHEN jsonb_exists(v.p, 'inactiveSent') THEN (v.p->>'inactiveSent')::boolean ELSE s.inactive_sent END,
           updated_at = CASE WHEN v.p = '{}'::jsonb THEN s.updated_at ELSE now() END
         FROM unnest(?::int[], ?::int[], ?::jsonb[]) AS v(t, c, p) WHERE s.ticket_id = v.t AND s.company_id = v.c`,
        [sorted.map((i) => i.ticketId), sorted.map((i) => i.companyId), sorted.map((i) => JSON.stringify(i.patch))],
      );
    });
    this.stages = new BatchLoader(async (items) => {
      const ids = [...new Set(items.map((i) => i.ticketId))];
      const rows = (await this.db.raw('SELECT ticket_id, company_id, stage FROM automation_bot_states WHERE ticket_id = ANY(?::int[])', [ids])) as {
        rows: { ticket_id: number; company_id: number; stage: Stage }[];
      };
      const byTicket = new Map(rows.rows.map((r) => [r.ticket_id, r]));
      return items.map((i) => {
        const r = byTicket.get(i.ticketId);
        return r && r.company_id === i.companyId ? r.stage : undefined;
      });
    });
  }

  /**
   * Runs `fn` holding the ticket's turn: one at a time per ticket in this process (a promise chain) and
   * across nodes (a lease on the ticket's state row, taken with a conditional UPDATE and released after;
   * another node waits for it, up to 10 s, or takes it once it expired). `fn` gets the state as of the
   * lease and, with `opts.claim` (an inbound message id), whether the bot may act on that message: true the
   * first time, false when it already did (a redelivery); the claim is made in the lease's statement.
   * State fields `save`d during the turn are written with the release (one statement), also when `fn`
   * throws. Throws when the lease cannot be had in time (the caller's bus delivery is retried).
   */
  async withTurn<T>(companyId: number, ticketId: number, fn: (state: StateRow, claimed?: boolean) => Promise<T>, opts: { claim?: number } = {}): Promise<T> {
    const prev = this.local.get(ticketId) ?? Promise.resolve();
    const run = prev.catch(() => undefined).then(async () => {
      const { state, claimed } = await this.lease(companyId, ticketId, opts.claim);
      const scope = { companyId, patch: {} as StatePatch, forgotten: false };
      this.turnsRunning.set(ticketId, scope);
      try {
        return await fn(state, claimed);
      } finally {
        this.turnsRunning.delete(ticketId);
        // Forgotten during the turn (the ticket closed): what was saved after it re-creates the row.
        if (scope.forgotten && Object.keys(scope.patch).length) await this.write(companyId, ticketId, scope.patch);
        await this.releases.add({ companyId, ticketId, patch: scope.forgotten ? {} : scope.patch });
      }
    });
    this.local.set(ticketId, run);
    try {
      return await run;
    } finally {
      if (this.local.get(ticketId) === run) this.local.delete(ticketId);
    }
  }

  private async lease(companyId: number, ticketId: number, messageId?: number): Promise<{ state: StateRow; claimed: boolean | undefined }> {
    const until = Date.now() + LEASE_WAIT_MS;
    for (;;) {
      const got = await this.leases.load({ companyId, ticketId, messageId });
      if (got) return got;
      if (Date.now() > until) throw new Error(`automation: ticket ${ticketId} is busy on another node`);
      await sleep(LEASE_POLL_MS);
    }
  }

  /** The stage of a ticket (undefined: no state yet); concurrent reads share one statement. */
  stageOf(companyId: number, ticketId: number): Promise<Stage | undefined> {
    return this.stages.load({ companyId, ticketId });
  }

  /** The state of a ticket, or undefined (with what the turn running on it in this process saved so far). */
  async get(companyId: number, ticketId: number): Promise<StateRow | undefined> {
    const row = await this.db('automationBotStates').where({ ticketId, companyId }).first();
    const scope = this.turnsRunning.get(ticketId);
    const state = row ? toRow(row) : undefined;
    if (!scope || scope.companyId !== companyId || !Object.keys(scope.patch).length) return state;
    return { ...(state ?? emptyState(companyId, ticketId)), ...scope.patch };
  }

  /**
   * Writes state fields (creating the row when missing). While this process runs the ticket's turn, they
   * are kept and written with the turn's release (see `withTurn`).
   */
  async save(companyId: number, ticketId: number, patch: StatePatch): Promise<void> {
    const scope = this.turnsRunning.get(ticketId);
    if (scope && scope.companyId === companyId) {
      Object.assign(scope.patch, patch);
      return;
    }
    await this.write(companyId, ticketId, patch);
  }

  private async write(companyId: number, ticketId: number, patch: StatePatch): Promise<void> {
    const values: Record<string, unknown> = { ...patch, updatedAt: this.db.fn.now() };
    if (patch.path) values.path = JSON.stringify(patch.path);
    await this.db('automationBotStates')
      .insert({ ticketId, companyId, ...values })
      .onConflict('ticketId')
      .merge(values);
  }

  /** Forgets a ticket's state (when it closes); what its running turn saved so far goes too. */
  async forget(companyId: number, ticketId: number): Promise<void> {
    const scope = this.turnsRunning.get(ticketId);
    if (scope && scope.companyId === companyId) {
      scope.patch = {};
      scope.forgotten = true;
    }
    await this.db('automationBotStates').where({ ticketId, companyId }).del();
  }

  /** Gives a claim back (the turn failed before anything was sent: a redelivery may try again). */
  async unclaim(companyId: number, messageId: number): Promise<void> {
    await this.db('automationProcessedMessages').where({ companyId, messageId }).del();
  }

  /** Deletes processed ids older than PROCESSED_KEEP_DAYS; returns how many. */
  async purgeProcessed(): Promise<number> {
    return this.db('automationProcessedMessages').where('createdAt', '<', this.db.raw(`now() - interval '${PROCESSED_KEEP_DAYS} days'`)).del();
  }

  /**
   * True (and recorded) when the out-of-hours message of `scope` was not yet sent to this contact on this
   * connection in the window `windowKey`; false when it was (do not repeat it).
   */
  async firstInWindow(companyId: number, contactId: number, whatsappId: number, scope: string, windowKey: string): Promise<boolean> {
    const rows = await this.db.raw(
      `INSERT INTO automation_out_of_hours (company_id, contact_id, whatsapp_id, scope, window_key, sent_at)
       VALUES (?, ?, ?, ?, ?, now())
       ON CONFLICT (company_id, contact_id, whatsapp_id, scope)
       DO UPDATE SET window_key = EXCLUDED.window_key, sent_at = now()
       WHERE automation_out_of_hours.window_key <> EXCLUDED.window_key
       RETURNING window_key`,
      [companyId, contactId, whatsappId, scope, windowKey],
    );
    return rows.rows.length > 0;
  }

  /** Stores a rating (one per ticket; a second one for the same ticket is ignored). Resolves the stored rating or undefined. */
  async addRating(r: Omit<NpsRating, 'id' | 'createdAt'>): Promise<NpsRating | undefined> {
    const [row] = await this.db('automationNpsRatings')
      .insert({ companyId: r.companyId, ticketId: r.ticketId, userId: r.userId, queueId: r.queueId, whatsappId: r.whatsappId, contactId: r.contactId, rate: r.rate })
      .onConflict(['companyId', 'ticketId'])
      .ignore()
      .returning('*');
    return row ? ratingOut(row) : undefined;
  }

  async ratingOf(companyId: number, ticketId: number): Promise<NpsRating | undefined> {
    const row = await this.db('automationNpsRatings').where({ companyId, ticketId }).first();
    return row ? ratingOut(row) : undefined;
  }

  private ratingsQuery(companyId: number, q: NpsQuery = {}): Knex.QueryBuilder {
    const query = this.db('automationNpsRatings').where({ companyId });
    if (q.from) query.where('createdAt', '>=', new Date(q.from));
    if (q.to) query.where('createdAt', '<=', new Date(q.to));
    if (q.userId !== undefined) query.where({ userId: q.userId });
    if (q.queueId !== undefined) query.where({ queueId: q.queueId });
    return query;
  }

  async listRatings(companyId: number, q: NpsQuery & { limit?: number } = {}): Promise<NpsRating[]> {
    const limit = Math.max(1, Math.min(10_000, Math.floor(q.limit ?? 1000)));
    const rows = await this.ratingsQuery(companyId, q).orderBy('createdAt', 'desc').orderBy('id', 'desc').limit(limit);
    return rows.map(ratingOut);
  }

  async npsSummary(companyId: number, q: NpsQuery = {}): Promise<NpsSummary> {
    const rows: { userId: number | null; rate: number }[] = await this.ratingsQuery(companyId, q).select('userId', 'rate');
    const byUser = new Map<number, number[]>();
    for (const r of rows) if (r.userId !== null) byUser.set(r.userId, [...(byUser.get(r.userId) ?? []), r.rate]);
    return {
      ...summarizeNps(rows.map((r) => r.rate)),
      byUser: [...byUser.entries()].sort((a, b) => a[0] - b[0]).map(([userId, rates]) => ({ userId, ...summarizeNps(rates) })),
    };
  }

  /**
   * Router bookkeeping of a queue, under a row lock: `fn` gets the last user given a ticket and when the
   * next run is planned, and returns the new values.
   */
  async withRouter<T>(
    companyId: number,
    queueId: number,
    fn: (s: { lastUserId: number | null; nextRunAt: Date | null }) => Promise<{ lastUserId?: number | null; nextRunAt?: Date | null; result: T }>,
  ): Promise<T> {
    return this.db.transaction(async (trx) => {
      await trx('automationRouterStates').insert({ companyId, queueId }).onConflict(['companyId', 'queueId']).ignore();
      const s = await trx('automationRouterStates').where({ companyId, queueId }).forUpdate().first('lastUserId', 'nextRunAt');
      const out = await fn({ lastUserId: s.lastUserId ?? null, nextRunAt: s.nextRunAt ?? null });
      const patch: Record<string, unknown> = { updatedAt: trx.fn.now() };
      if (out.lastUserId !== undefined) patch.lastUserId = out.lastUserId;
      if (out.nextRunAt !== undefined) patch.nextRunAt = out.nextRunAt;
      await trx('automationRouterStates').where({ companyId, queueId }).update(patch);
      return out.result;
    });
  }
}

function ratingOut(r: Record<string, unknown>): NpsRating {
  const at = r.createdAt;
  return {
    id: r.id as number,
    companyId: r.companyId as number,
    ticketId: r.ticketId as number,
    userId: (r.userId as number | null) ?? null,
    queueId: (r.queueId as number | null) ?? null,
    whatsappId: (r.whatsappId as number | null) ?? null,
    contactId: r.contactId as number,
    rate: Number(r.rate),
    createdAt: at instanceof Date ? at.toISOString() : String(at),
  };
}
