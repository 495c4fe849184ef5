import type { Knex } from 'knex';
import type { FastifyBaseLogger } from 'fastify';

/** The lease table (migrations/20261210003300_session_leases.ts). */
export const LEASE_TABLE = 'whatsapp_session_leases';

/** Lease timings, milliseconds. */
export interface LeaseTimings {
  /** How long a lease lasts without renewal: a dead node's sessions are free this long after its last renewal. */
  ttlMs: number;
  /** How often a node renews its leases (well under `ttlMs`). */
  renewMs: number;
  /** How often a node looks for expired leases to take over. */
  scanMs: number;
}

/** Defaults: a dead node's sessions move within ttl + scan = 25 s (issue 33: within 30 s). */
export const DEFAULT_LEASE_TIMINGS: LeaseTimings = { ttlMs: 20_000, renewMs: 5_000, scanMs: 5_000 };

/** An expired lease: a session that should run but whose node stopped renewing it. */
export interface OrphanLease {
  connectionId: number;
  companyId: number;
}

/** What happens to a lease row when this node lets a session go. */
export type ReleaseMode =
  /** The session must not run anywhere (disconnect, logout, TIMEOUT, deletion): the row is deleted. */
  | 'delete'
  /** The session should go on elsewhere (this node shuts down): the row expires now, another node takes it. */
  | 'handover'
  /** The lease was lost (another node has it, or it could not be renewed in time): the row is left alone. */
  | 'forget';

export interface SessionLeasesOptions {
  db: Knex;
  log: FastifyBaseLogger;
  /** This node's id (unique per process). */
  nodeId: string;
  timings?: Partial<LeaseTimings>;
  /** Leases this node held and lost (taken over, deleted, or not renewed in time): stop those sessions. */
  onLost(ids: number[]): void;
  /** Expired leases seen by the scan (only when `takeOver` is on): start those sessions here. */
  onOrphans?(leases: OrphanLease[]): void | Promise<void>;
  /** Scan for expired leases (the node takes sessions over). Default true. */
  takeOver?: boolean;
}

/**
 * Session ownership across kernel nodes (issue 33 item 4): a lease per connection in PostgreSQL
 * (`whatsapp_session_leases`). A node runs a session only while it holds the connection's lease; it renews
 * its leases every `renewMs` (one UPDATE for all of them), and a lease not renewed for `ttlMs` expires.
 * Every node scans for expired leases every `scanMs` and takes them over (the epoch goes up by one), so the
 * sessions of a node killed with SIGKILL, or cut off from the database, move to a live node within
 * `ttlMs + scanMs`. A node that cannot renew stops its sessions before its leases can expire (it fences
 * itself), so two nodes never run one session. Clocks: expiry is compared with the database's `now()`
 * only; the node's own clock only measures how long ago its last successful renewal began.
 */
export class SessionLeases {
  private readonly db: Knex;
  private readonly log: FastifyBaseLogger;
  readonly nodeId: string;
  readonly timings: LeaseTimings;
  /** Held leases -> local time (ms) until which they are surely ours (start of the last renewal + ttl). */
  private readonly held = new Map<number, number>();
  private readonly pending = new Map<number, Promise<boolean>>();
  /** The last lease write of each connection: acquire and release of one connection apply in call order. */
  private readonly writes = new Map<number, Promise<unknown>>();
  private renewTimer: NodeJS.Timeout | undefined;
  private scanTimer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> | undefined;
  private scanning: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly opts: SessionLeasesOptions) {
    this.db = opts.db;
    this.log = opts.log;
    this.nodeId = opts.nodeId;
    this.timings = { ...DEFAULT_LEASE_TIMINGS, ...opts.timings };
    if (this.timings.renewMs >= this.timings.ttlMs) throw new Error('whatsapp-sessions: the lease renewal interval must be shorter than its ttl');
  }

  /** Starts renewing (and, with `takeOver`, scanning). */
  start(): void {
    if (this.closed || this.renewTimer) return;
    this.renewTimer = setInterval(() => void this.renew(), this.timings.renewMs);
    this.renewTimer.unref?.();
    if (this.opts.takeOver !== false) {
      this.scanTimer = setInterval(() => void this.scan(), this.timings.scanMs);
      this.scanTimer.unref?.();
    }
  }

  /** True when this node holds the lease of `connectionId`. */
  holds(connectionId: number): boolean {
    return this.held.has(connectionId);
  }

  /** Connection ids whose leases this node holds. */
  heldIds(): number[] {
    return [...this.held.keys()];
  }

  /**
   * Takes the lease of `connectionId` (of `companyId`) when it is free, expired or already ours; false when
   * another node holds a live lease (or the connection no longer exists).
   */
  tryAcquire(connectionId: number, companyId: number): Promise<boolean> {
    if (this.held.has(connectionId)) return Promise.resolve(true);
    const inFlight = this.pending.get(connectionId);
    if (inFlight) return inFlight;
    const run = this.serial(connectionId, async () => {
      if (this.closed) return false;
      const started = Date.now();
      const ttl = this.timings.ttlMs;
      try {
        const res = await this.db.raw(
          `INSERT INTO ${LEASE_TABLE} AS l (connection_id, company_id, node_id, expires_at, acquired_at, epoch)
           VALUES (?, ?, ?, now() + (? * interval '1 millisecond'), now(), 1)
           ON CONFLICT (connection_id) DO UPDATE
             SET node_id = EXCLUDED.node_id,
                 expires_at = EXCLUDED.expires_at,
                 acquired_at = CASE WHEN l.node_id = EXCLUDED.node_id THEN l.acquired_at ELSE now() END,
                 epoch = l.epoch + CASE WHEN l.node_id = EXCLUDED.node_id THEN 0 ELSE 1 END
             WHERE l.company_id = EXCLUDED.company_id AND (l.node_id = EXCLUDED.node_id OR l.expires_at <= now())
           RETURNING l.epoch AS epoch`,
          [connectionId, companyId, this.nodeId, ttl],
        );
        const ok = (res.rows as unknown[]).length === 1;
        if (ok && !this.closed) this.held.set(connectionId, started + ttl);
        return ok && !this.closed;
      } catch (err) {
        // 23503: the connection (or company) is gone.
        if ((err as { code?: string })?.code === '23503') return false;
        throw err;
      }
    }).finally(() => this.pending.delete(connectionId));
    this.pending.set(connectionId, run);
    return run;
  }

  /** Lets the lease of `connectionId` go (see `ReleaseMode`); no-op when this node does not hold it. */
  async release(connectionId: number, mode: ReleaseMode): Promise<void> {
    if (!this.held.delete(connectionId) || mode === 'forget') return;
    await this.serial(connectionId, async () => {
      try {
        const q = this.db(LEASE_TABLE).where({ connectionId, nodeId: this.nodeId });
        if (mode === 'delete') await q.del();
        else await q.update({ expiresAt: this.db.fn.now() });
      } catch (err) {
        this.log.warn({ err, connectionId, mode }, 'whatsapp-sessions: releasing a session lease failed');
      }
    });
  }

  /** Runs `fn` after the previous lease write of `connectionId` settled (a release then an acquire keep their order). */
  private serial<T>(connectionId: number, fn: () => Promise<T>): Promise<T> {
    const run = (this.writes.get(connectionId) ?? Promise.resolve()).then(fn, fn);
    const tail = run.catch(() => undefined);
    this.writes.set(connectionId, tail);
    void tail.then(() => {
      if (this.writes.get(connectionId) === tail) this.writes.delete(connectionId);
    });
    return run;
  }

  /** True when another node holds a live lease of `connectionId`. */
  async heldElsewhere(connectionId: number): Promise<boolean> {
    if (this.held.has(connectionId)) return false;
    const row = await this.db(LEASE_TABLE)
      .where({ connectionId })
      .whereNot({ nodeId: this.nodeId })
      .where('expiresAt', '>', this.db.fn.now())
      .first('connectionId');
    return Boolean(row);
  }

  /** The lease row of a connection (tests, diagnostics). */
  async lease(connectionId: number): Promise<{ nodeId: string; expiresAt: Date; epoch: number } | undefined> {
    const row = await this.db(LEASE_TABLE).where({ connectionId }).first('nodeId', 'expiresAt', 'epoch');
    return row ? { nodeId: row.nodeId, expiresAt: new Date(row.expiresAt), epoch: Number(row.epoch) } : undefined;
  }

  /**
   * Renews every held lease in one UPDATE. Leases the UPDATE did not find as ours are lost at once. When the
   * UPDATE fails (database unreachable), leases that could expire before the next renewal are given up, so
   * their sessions stop before another node may take them.
   */
  renew(): Promise<void> {
    if (this.renewing) return this.renewing;
    this.renewing = (async () => {
      const ids = [...this.held.keys()];
      if (!ids.length || this.closed) return;
      const started = Date.now();
      try {
        const rows = (await this.db(LEASE_TABLE)
          .where({ nodeId: this.nodeId })
          .whereIn('connectionId', ids)
          .update({ expiresAt: this.db.raw(`now() + (? * interval '1 millisecond')`, [this.timings.ttlMs]) })
          .returning('connectionId')) as { connectionId: number }[];
        const renewed = new Set(rows.map((r) => Number(r.connectionId)));
        const lost: number[] = [];
        for (const id of ids) {
          if (!this.held.has(id)) continue; // released meanwhile
          if (renewed.has(id)) this.held.set(id, started + this.timings.ttlMs);
          else lost.push(id);
        }
        this.lose(lost, 'another node holds it now, or it was deleted');
      } catch (err) {
        const deadline = Date.now() + this.timings.renewMs;
        const lost = [...this.held].filter(([, until]) => until <= deadline).map(([id]) => id);
        this.log.error({ err, lost }, 'whatsapp-sessions: renewing the session leases failed');
        this.lose(lost, 'it could not be renewed before expiring');
      }
    })().finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  /** Looks for expired leases and hands them to `onOrphans` (oldest first, at most 50 a scan). */
  scan(): Promise<void> {
    if (this.scanning) return this.scanning;
    this.scanning = (async () => {
      if (this.closed || !this.opts.onOrphans) return;
      try {
        const rows = (await this.db(LEASE_TABLE).where('expiresAt', '<=', this.db.fn.now()).orderBy('expiresAt').limit(50).select('connectionId', 'companyId')) as OrphanLease[];
        const orphans = rows.filter((r) => !this.held.has(r.connectionId));
        if (orphans.length && !this.closed) await this.opts.onOrphans(orphans);
      } catch (err) {
        this.log.error({ err }, 'whatsapp-sessions: scanning for expired session leases failed');
      }
    })().finally(() => {
      this.scanning = undefined;
    });
    return this.scanning;
  }

  /** Stops renewing and scanning; leases still held are handed over (they expire now). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.renewTimer) clearInterval(this.renewTimer);
    if (this.scanTimer) clearInterval(this.scanTimer);
    this.renewTimer = this.scanTimer = undefined;
    await Promise.all([this.renewing, this.scanning]);
    const ids = [...this.held.keys()];
    this.held.clear();
    if (ids.length) {
      await this.db(LEASE_TABLE)
        .where({ nodeId: this.nodeId })
        .whereIn('connectionId', ids)
        .update({ expiresAt: this.db.fn.now() })
        .catch((err: unknown) => this.log.warn({ err }, 'whatsapp-sessions: handing the session leases over failed'));
    }
  }

  private lose(ids: number[], why: string): void {
    if (!ids.length) return;
    for (const id of ids) this.held.delete(id);
    if (this.closed) return;
    this.log.warn({ ids, nodeId: this.nodeId }, `whatsapp-sessions: session leases lost (${why}); stopping those sessions here`);
    this.opts.onLost(ids);
  }
}
