import type { Knex } from 'knex';
import { AppError, isOutage, PermanentError, type Bus, type Inbox, type InboxEvent, type InboxHandler, type InboxItem } from '@atendo/sdk';
import { OUTAGE_RETRY_MAX_MS, outageDelay, type BusLogger } from '../bus/in-process';
import { LingeringDeletes } from './lingering-deletes';

/** Options of `DurableInbox` (defaults: the kernel config's INBOX_* values). */
export interface DurableInboxOptions {
  db: Knex;
  log: BusLogger & { debug?(obj: object, msg?: string): void };
  /** Wake-ups for other nodes (broadcast `kernel.inbox.wake`); only with more than one node. */
  bus?: Bus;
  /** No other node uses this database (in-process bus): leases left by a previous run are released at start. */
  singleNode: boolean;
  /** Pending events, all nodes together, beyond which `accept` answers 503. */
  maxBacklog: number;
  /** Events processed at once on this node. */
  concurrency: number;
  /** How long a node holds an event it took (ms). */
  leaseMs: number;
  /** Tries of an event that keeps failing (not outages) before it is dead-lettered. */
  maxAttempts: number;
  /** How often an idle node looks for events due (retries, other nodes' leftovers), ms. */
  pollMs?: number;
}

/** Events accepted in one INSERT at most. */
const WRITE_BATCH = 500;
/** Events claimed from the table in one statement. */
const CLAIM_BATCH = 64;
/** Events kept in this node's memory (claimed, waiting for a handler slot); more wait in the table. */
const LOCAL_MAX = 2_000;
/** Longest delay between two tries of an event whose handler fails (not an outage), ms. */
const RETRY_MAX_MS = 60_000;
/** The wake-up topic of the inbox (broadcast: every node looks for events due). */
const WAKE_TOPIC = 'kernel.inbox.wake';

interface Pending {
  source: string;
  key: string;
  payload: Buffer;
  meta: string;
  resolve: (r: { id?: number; duplicate: boolean }) => void;
  reject: (err: unknown) => void;
}

interface Row {
  id: string | number;
  source: string;
  key: string;
  payload: Buffer;
  meta: Record<string, unknown>;
  received_at: Date;
  attempts: number;
}

/**
 * The kernel's durable inbox (`ctx.inbox`, SDK inbox.ts): events are committed to `inbox_events` before
 * `accept` resolves, then handed to their source's handler and deleted once it succeeded.
 *
 * Writes are grouped: the accepts that arrive while an INSERT is in flight go together into the next one
 * (one statement and one commit for all of them). The rows this node writes are leased to it in the same
 * INSERT and handed to the handlers from memory (no read back); rows of other nodes, rows whose lease ran
 * out (a node that died) and retries that became due are claimed with `FOR UPDATE SKIP LOCKED` when this
 * node has room (at start, when idle every `pollMs`, and on a wake-up). Finished rows are deleted in groups
 * too (each waits up to 20 ms for others). A row is deleted only after its handler resolved, so a crash at
 * any point leaves it to be handled again (handlers are idempotent).
 *
 * Back-pressure: `accept` answers 503 ERR_SERVICE_UNAVAILABLE while `maxBacklog` events are pending (an
 * estimate: the table's count read at most every second, plus what this node wrote and finished since), and
 * while the database cannot be written.
 */
export class DurableInbox implements Inbox {
  private readonly handlers = new Map<string, InboxHandler>();
  private readonly writes: Pending[] = [];
  private writing = false;
  /** Claimed events waiting for a handler slot (FIFO with a head index). */
  private local: InboxEvent[] = [];
  private head = 0;
  /** Ids of the events this node holds (waiting locally or running). */
  private readonly held = new Set<number>();
  private running = 0;
  private readonly idle = new Set<() => void>();
  /** Finished rows, deleted in groups (see LingeringDeletes). */
  private readonly deletes: LingeringDeletes;
  /** A backlog count was due while an INSERT was in flight: it runs once that INSERT is done. */
  private countWanted = false;
  private claiming = false;
  /** The last claim filled a whole batch: more are waiting in the table. */
  private more = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private started = false;
  private stopped = false;
  private backlog = { counted: 0, at: 0, since: 0, refreshing: false };
  private lastWake = 0;
  private readonly pollMs: number;
  private outages = 0;

  constructor(private readonly opts: DurableInboxOptions) {
    this.pollMs = opts.pollMs ?? 1_000;
    this.deletes = new LingeringDeletes(opts.db, 'inbox_events', (err, rows) =>
      opts.log.warn({ err, events: rows }, 'inbox: could not delete finished events; retrying (until then they may be handled again)'),
    );
  }

  /** Events this node holds (waiting for a handler or running). */
  get inFlight(): number {
    return this.held.size;
  }

  /** The estimated number of pending events of all nodes (see the class comment). */
  get pendingEstimate(): number {
    return Math.max(0, this.backlog.counted + this.backlog.since);
  }

  process(source: string, handler: InboxHandler): void {
    if (this.handlers.has(source)) throw new Error(`inbox: source ${source} already has a handler`);
    this.handlers.set(source, handler);
    if (this.started) this.kick();
  }

  accept(source: string, item: InboxItem): Promise<{ id?: number; duplicate: boolean }> {
    if (this.stopped) return Promise.reject(new AppError('ERR_SERVICE_UNAVAILABLE', 'Shutting down, deliver again'));
    if (typeof item?.key !== 'string' || item.key.length === 0 || item.key.length > 200) return Promise.reject(new TypeError('inbox.accept: key must be 1-200 characters'));
    if (!Buffer.isBuffer(item.payload)) return Promise.reject(new TypeError('inbox.accept: payload must be a Buffer'));
    this.refreshBacklog();
    if (this.pendingEstimate + this.writes.length >= this.opts.maxBacklog) {
      return Promise.reject(new AppError('ERR_SERVICE_UNAVAILABLE', `Inbox backlog full (${this.opts.maxBacklog} events waiting), deliver again later`));
    }
    return new Promise((resolve, reject) => {
      this.writes.push({ source, key: item.key, payload: item.payload, meta: JSON.stringify(item.meta ?? {}), resolve, reject });
      if (!this.writing) {
        this.writing = true;
        setImmediate(() => void this.write());
      }
    });
  }

  /**
   * Starts handing out events: with `singleNode`, the leases a previous run of this node left are released
   * first (nobody else could hold them); then the table is read for events due.
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    if (this.opts.singleNode) {
      try {
        const r = await this.opts.db.raw("UPDATE inbox_events SET lease_until = NULL WHERE state = 'pending' AND lease_until IS NOT NULL");
        const n = (r as { rowCount?: number }).rowCount ?? 0;
        if (n) this.opts.log.info({ events: n }, 'inbox: events a previous run had taken and not finished are handled again');
      } catch (err) {
        this.opts.log.warn({ err }, 'inbox: could not release the leases of a previous run (they expire by themselves)');
      }
    }
    if (this.opts.bus && !this.opts.singleNode) {
      await this.opts.bus.subscribe(WAKE_TOPIC, () => this.kick(), { broadcast: true, maxRetries: 0 });
    }
    this.kick();
  }

  /**
   * Stops taking events and waits (at most `graceMs`) for the running handlers; events held but not
   * started are given back (lease released) for another node or the next start.
   */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.pollTimer);
    for (const t of this.retryTimers) clearTimeout(t);
    this.retryTimers.clear();
    const waiting = this.local.slice(this.head).map((e) => e.id);
    this.local = [];
    this.head = 0;
    for (const id of waiting) this.held.delete(id);
    const deadline = Date.now() + graceMs;
    while ((this.running > 0 || this.writing) && Date.now() < deadline) await new Promise<void>((r) => setTimeout(r, 20));
    await this.deletes.stop();
    if (waiting.length) {
      await this.opts.db.raw('UPDATE inbox_events SET lease_until = NULL WHERE id = ANY(?::bigint[])', [waiting]).catch(() => undefined);
    }
  }

  /** Resolves once nothing is waiting or running on this node (tests). */
  async drained(): Promise<void> {
    while (this.writing || this.writes.length || this.held.size || this.deletes.waiting) await new Promise<void>((r) => setTimeout(r, 10));
  }

  // ------------------------------------------------------------------ writing

  private async write(): Promise<void> {
    const batch = this.writes.splice(0, WRITE_BATCH);
    try {
      if (!batch.length) return;
      // Lease the new rows to this node when it can take them now (its handlers are registered and its
      // memory has room): they are handed out from memory, without reading them back.
      const room = this.started && !this.stopped && this.local.length - this.head + this.held.size < LOCAL_MAX;
      const takes = batch.map((b) => room && this.handlers.has(b.source));
      const take = takes.some(Boolean);
      const { rows } = (await this.opts.db.raw(
        `INSERT INTO inbox_events (source, key, payload, meta, lease_until)
         SELECT s, k, p, m, CASE WHEN l THEN now() + make_interval(secs => ?) END
         FROM unnest(?::text[], ?::text[], ?::bytea[], ?::jsonb[], ?::boolean[]) AS t(s, k, p, m, l)
         ON CONFLICT (source, key) DO NOTHING
         RETURNING id, source, key, received_at`,
        [this.opts.leaseMs / 1000, batch.map((b) => b.source), batch.map((b) => b.key), batch.map((b) => b.payload), batch.map((b) => b.meta), takes],
      )) as { rows: { id: string | number; source: string; key: string; received_at: Date }[] };
      this.outages = 0;
      const byKey = new Map<string, { id: number; receivedAt: string }>();
      for (const r of rows) byKey.set(`${r.source}\u0000${r.key}`, { id: Number(r.id), receivedAt: r.received_at.toISOString() });
      this.backlog.since += rows.length;
      const handed = new Set<number>();
      for (const b of batch) {
        const k = `${b.source}\u0000${b.key}`;
        const row = byKey.get(k);
        if (!row) {
          b.resolve({ duplicate: true });
          continue;
        }
        byKey.delete(k); // the same key again in this batch is a duplicate of this one
        if (take && !handed.has(row.id) && this.handlers.has(b.source)) {
          handed.add(row.id);
          this.enqueue({ id: row.id, source: b.source, key: b.key, payload: b.payload, meta: JSON.parse(b.meta) as Record<string, unknown>, receivedAt: row.receivedAt, attempts: 0 });
        }
        b.resolve({ id: row.id, duplicate: false });
      }
      if (handed.size) this.pump();
      if (rows.length > handed.size) this.wakeOthers();
    } catch (err) {
      const outage = isOutage(err);
      if (this.outages++ % 100 === 0) this.opts.log.error({ err, events: batch.length, outage }, 'inbox: events could not be written; answered 503 (the sender delivers again)');
      const refusal = new AppError('ERR_SERVICE_UNAVAILABLE', outage ? 'Database unavailable, deliver again later' : 'Could not store the event, deliver again later');
      for (const b of batch) b.reject(refusal);
    } finally {
      if (this.countWanted) {
        this.countWanted = false;
        this.countBacklog();
      } else if (this.writes.length) setImmediate(() => void this.write());
      else this.writing = false;
    }
  }

  /** Tells the other nodes (RabbitMQ) that events are waiting in the table; at most 10 times a second. */
  private wakeOthers(): void {
    if (!this.opts.bus || this.opts.singleNode) return;
    const now = Date.now();
    if (now - this.lastWake < 100) return;
    this.lastWake = now;
    this.opts.bus.publish(WAKE_TOPIC, {}).catch(() => undefined);
  }

  /** Refreshes the table's count of pending events, at most once a second, in the background. */
  /**
   * Re-reads the table's pending count, at most once a second. Never while an INSERT of this node is in
   * flight, and no INSERT starts until the count is in (a row written during the count would be both in
   * it and on top of it: spurious 503s on a small backlog); asked during a write, it runs right after it.
   */
  private refreshBacklog(): void {
    const b = this.backlog;
    if (b.refreshing || Date.now() - b.at < 1_000) return;
    if (this.writing) {
      this.countWanted = true;
      return;
    }
    this.countBacklog();
  }

  private countBacklog(): void {
    const b = this.backlog;
    b.refreshing = true;
    this.writing = true;
    const since = b.since;
    this.opts.db
      .raw("SELECT count(*)::int AS n FROM (SELECT 1 FROM inbox_events WHERE state = 'pending' LIMIT ?) AS t", [this.opts.maxBacklog + 1])
      .then((r: { rows: { n: number }[] }) => {
        b.counted = r.rows[0]?.n ?? 0;
        b.since -= since; // what finished meanwhile stays counted on top
      })
      .catch(() => undefined)
      .finally(() => {
        b.at = Date.now();
        b.refreshing = false;
        // The accepts that arrived meanwhile are written now.
        if (this.writes.length) setImmediate(() => void this.write());
        else this.writing = false;
      });
  }

  // ------------------------------------------------------------------ handing out

  private enqueue(e: InboxEvent): void {
    if (this.held.has(e.id)) return;
    this.held.add(e.id);
    this.local.push(e);
  }

  private kick(): void {
    if (!this.started || this.stopped) return;
    this.pump();
    if (this.local.length - this.head === 0) void this.claim();
  }

  /** Starts handlers for the waiting events while there are free slots; claims more when it runs dry. */
  private pump(): void {
    while (!this.stopped && this.running < this.opts.concurrency && this.head < this.local.length) {
      const e = this.local[this.head];
      this.local[this.head++] = undefined as unknown as InboxEvent;
      this.running++;
      void this.run(e);
    }
    if (this.head === this.local.length) {
      this.local = [];
      this.head = 0;
      if (this.more && !this.stopped) void this.claim();
    } else if (this.head > 1024 && this.head * 2 > this.local.length) {
      this.local = this.local.slice(this.head);
      this.head = 0;
    }
    this.schedulePoll();
  }

  private async run(e: InboxEvent): Promise<void> {
    const handler = this.handlers.get(e.source);
    try {
      if (!handler) throw new Error(`inbox: no handler for source ${e.source}`);
      await handler(e);
      this.held.delete(e.id);
      this.backlog.since--;
      this.deletes.add(e.id, this.stopped);
    } catch (err) {
      await this.failed(e, err);
    } finally {
      this.running--;
      this.pump();
    }
  }

  /**
   * A handler failed: a PermanentError dead-letters the event; an outage is retried here after a delay
   * doubling up to OUTAGE_RETRY_MAX_MS (the database may be down: nothing is written meanwhile); other
   * errors count as a try and are retried after a doubling delay (in the table, by whichever node is free),
   * until INBOX_MAX_ATTEMPTS.
   */
  private async failed(e: InboxEvent, err: unknown): Promise<void> {
    const log = { err, source: e.source, id: e.id, key: e.key, attempts: e.attempts };
    const permanent = err instanceof PermanentError;
    if (!permanent && isOutage(err)) {
      const n = ((e as { outages?: number }).outages ?? 0) + 1;
      (e as { outages?: number }).outages = n;
      const delay = outageDelay(250, n);
      if (n === 1 || delay >= OUTAGE_RETRY_MAX_MS) this.opts.log.warn({ ...log, retryInMs: delay }, 'inbox: a dependency is unreachable; the event is retried until it is back');
      const t = setTimeout(() => {
        this.retryTimers.delete(t);
        if (this.stopped) return;
        this.local.push(e);
        this.pump();
      }, delay);
      t.unref?.();
      this.retryTimers.add(t);
      return;
    }
    const attempts = e.attempts + 1;
    const dead = permanent || attempts >= this.opts.maxAttempts;
    const text = (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 2000);
    this.held.delete(e.id);
    try {
      if (dead) {
        await this.opts.db.raw("UPDATE inbox_events SET state = 'dead', attempts = ?, last_error = ?, lease_until = NULL WHERE id = ?", [attempts, text, e.id]);
        this.backlog.since--;
        this.opts.log.error({ ...log, attempts }, permanent ? 'inbox: event dead-lettered (it can never be handled); npm run redrive puts it back' : 'inbox: event dead-lettered after its tries; npm run redrive puts it back');
      } else {
        const delay = Math.min(RETRY_MAX_MS, 1_000 * 2 ** Math.min(16, attempts - 1));
        await this.opts.db.raw('UPDATE inbox_events SET attempts = ?, last_error = ?, lease_until = NULL, next_at = now() + make_interval(secs => ?) WHERE id = ?', [attempts, text, delay / 1000, e.id]);
        this.opts.log.warn({ ...log, attempts, retryInMs: delay }, 'inbox: handler failed; the event will be retried');
      }
    } catch (dbErr) {
      // The table cannot be written: the lease runs out and the event is handled again.
      this.opts.log.warn({ err: dbErr, id: e.id }, 'inbox: could not record a failed try; the event is retried after its lease');
    }
  }

  /** Claims due events of the sources with a handler, when this node has room. */
  private async claim(): Promise<void> {
    if (this.claiming || this.stopped || !this.handlers.size) return;
    const room = Math.min(CLAIM_BATCH, LOCAL_MAX - this.held.size);
    if (room <= 0) return;
    this.claiming = true;
    try {
      const { rows } = (await this.opts.db.raw(
        `UPDATE inbox_events SET lease_until = now() + make_interval(secs => ?)
         WHERE id IN (
           SELECT id FROM inbox_events
           WHERE source = ANY(?::text[]) AND state = 'pending' AND next_at <= now() AND (lease_until IS NULL OR lease_until < now())
           ORDER BY next_at, id LIMIT ? FOR UPDATE SKIP LOCKED)
         RETURNING id, source, key, payload, meta, received_at, attempts`,
        [this.opts.leaseMs / 1000, [...this.handlers.keys()], room],
      )) as { rows: Row[] };
      this.more = rows.length === room;
      rows.sort((a, b) => Number(a.id) - Number(b.id));
      for (const r of rows) this.enqueue({ id: Number(r.id), source: r.source, key: r.key, payload: r.payload, meta: r.meta ?? {}, receivedAt: r.received_at.toISOString(), attempts: r.attempts });
    } catch (err) {
      this.more = false;
      if (this.outages++ % 100 === 0) this.opts.log.warn({ err }, 'inbox: could not look for waiting events; trying again');
    } finally {
      this.claiming = false;
    }
    if (this.head < this.local.length) this.pump();
    else this.schedulePoll();
  }

  /** While idle, looks at the table again after `pollMs` (retries that became due, other nodes' leftovers). */
  private schedulePoll(): void {
    if (this.pollTimer || this.stopped || !this.started) return;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = undefined;
      if (this.held.size === 0) void this.claim();
      else this.schedulePoll();
    }, this.pollMs);
    this.pollTimer.unref?.();
  }
}

/** A view of `inbox` for one plugin: its sources must be named `<pluginId>.<name>`. */
export function scopedInbox(inbox: Inbox, pluginId: string): Inbox {
  const check = (source: string) => {
    if (typeof source !== 'string' || !source.startsWith(`${pluginId}.`) || source.length > 100) {
      throw new Error(`plugin ${pluginId}: inbox source ${String(source)} must be named ${pluginId}.<name> (at most 100 characters)`);
    }
  };
  return {
    accept: (source, item) => {
      check(source);
      return inbox.accept(source, item);
    },
    process: (source, handler) => {
      check(source);
      inbox.process(source, handler);
    },
  };
}
