import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import {
  BusFullError,
  isOutage,
  type Bus,
  type BusHandler,
  type BusMessage,
  type PublishOptions,
  type SubscribeOptions,
  type Subscription,
  type TopicLike,
  type TopicPattern,
} from '@atendo/sdk';
import { encodePayload, InProcessBus, type BusLogger } from './in-process';
import { LingeringDeletes } from '../inbox/lingering-deletes';

/** Options of `Outbox` (defaults: the kernel config's OUTBOX_* values). */
export interface OutboxOptions {
  db: Knex;
  /** The raw bus the relay publishes to. */
  bus: Bus;
  log: BusLogger & { debug?(obj: object, msg?: string): void };
  /** No other node uses this database (in-process bus): leases a previous run left are released at start. */
  singleNode: boolean;
  /** How long a node holds a row it took, milliseconds (renewed while it holds it). */
  leaseMs: number;
  /** How often an idle node looks for rows due (other nodes' leftovers, retries), milliseconds. */
  pollMs?: number;
  /** Rows held in this node's memory at most (more wait in the table). */
  maxHeld?: number;
}

/** One event on its way out. */
interface Entry {
  id: number;
  messageId: string;
  topic: string;
  json: string;
  headers: Record<string, string>;
  publishedAt: string;
  companyId: number | null;
  /** Failed hand-overs (a full queue, the broker away): the next try waits longer. */
  tries: number;
}

interface Pending {
  entry: Omit<Entry, 'id'>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Rows written in one INSERT at most. */
const WRITE_BATCH = 500;
/** Rows claimed from the table in one statement. */
const CLAIM_BATCH = 200;
/** The wake-up topic of the outbox (broadcast: every node looks for rows due). */
const WAKE_TOPIC = 'kernel.outbox.wake';

/** The company a payload belongs to (`companyId`), for the operators' screens; null when it has none. */
function companyOf(payload: unknown): number | null {
  const c = (payload as { companyId?: unknown } | null)?.companyId;
  return typeof c === 'number' && Number.isInteger(c) && c > 0 && c <= 2147483647 ? c : null;
}

/**
 * Settles once `trx` and every transaction around it completed: resolves when all committed (a savepoint released
 * and its outermost transaction committed), rejects when any rolled back (a savepoint's rows go with its rollback
 * even when the transaction around it commits). Undefined when `trx` is not a knex transaction object.
 */
function committedChain(trx: Knex.Transaction): Promise<unknown> | undefined {
  const waits: Promise<unknown>[] = [];
  let t: (Knex.Transaction & { parentTransaction?: Knex.Transaction; executionPromise?: Promise<unknown> }) | undefined = trx;
  while (t) {
    if (!t.executionPromise) return undefined;
    waits.push(t.executionPromise);
    t = t.parentTransaction as typeof t;
  }
  return Promise.all(waits);
}

/**
 * The kernel's transactional outbox (`outbox_events`): what a plugin publishes is a row first, written in the
 * plugin's own transaction (`publish(..., {trx})`) or on its own (`publish(...)` on the in-process bus), and the
 * relay publishes it to the bus and deletes it once it is safe:
 *
 * - RabbitMQ: after the broker confirmed the persistent message (it is then the broker's to keep);
 * - in-process: once every queue it was routed to handled it, or dead-lettered it into `bus_dead_letters`
 *   (nothing lives only in memory: a crash at any point leaves the row, published again at the next start).
 *
 * Rows this node writes are leased to it in the same INSERT and handed to the bus from memory once their
 * transaction committed (no read back, commit order kept within a node). Rows of a node that died (lease run
 * out), rows written while this node's memory was full (`maxHeld`) and hand-overs that failed are claimed with
 * `FOR UPDATE SKIP LOCKED` when this node has room (at start, when idle every `pollMs`, and on a wake-up), so
 * each row is published by one node at a time. A full in-process queue is back-pressure, never a loss: the row
 * waits (in memory, then in the table) until the queue has room. Delivery is at least once: consumers dedupe on
 * the message id (a row published again after a crash keeps its id).
 */
export class Outbox {
  private readonly writes: Pending[] = [];
  private writing = false;
  /** Entries waiting to be handed to the bus (FIFO: `queue[head..]`). */
  private queue: Entry[] = [];
  private head = 0;
  /** The hand-over is paused (a full queue, the broker away). */
  private pauseTimer: NodeJS.Timeout | undefined;
  private pauses = 0;
  /** Ids of the rows this node holds (waiting, in flight, or waiting for a retry). */
  private readonly held = new Set<number>();
  /** Published rows, deleted in groups (see LingeringDeletes). */
  private readonly deletes: LingeringDeletes;
  private pollTimer: NodeJS.Timeout | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  private claiming = false;
  private more = false;
  private started = false;
  private stopped = false;
  private lastWake = 0;
  private failures = 0;
  private readonly pollMs: number;
  private readonly maxHeld: number;
  private readonly inProcess: InProcessBus | undefined;
  /** Hand-overs in flight (published, not settled yet). */
  private inFlight = 0;

  constructor(private readonly opts: OutboxOptions) {
    this.pollMs = opts.pollMs ?? 1_000;
    this.maxHeld = opts.maxHeld ?? 10_000;
    this.inProcess = opts.bus instanceof InProcessBus ? opts.bus : undefined;
    this.deletes = new LingeringDeletes(opts.db, 'outbox_events', (err, rows) => opts.log.warn({ err, events: rows }, 'outbox: could not delete published events; retrying'));
  }

  /** Rows this node holds (waiting, in flight or between tries). */
  get holding(): number {
    return this.held.size;
  }

  /** Events written in one transaction this tick, grouped into one INSERT (see `writeIn`). */
  private readonly trxWrites = new Map<Knex.Transaction, { entries: Omit<Entry, 'id'>[]; done: Promise<void> }>();

  /**
   * Writes one event in `trx` (leased to this node when it has room) and hands it to the bus once the outermost
   * transaction commits. The events a transaction publishes in the same tick (`Promise.all` of publishes) share
   * one multi-row INSERT. Resolves once the row is written; rejects when the INSERT fails (the caller's
   * transaction then fails too, as any statement of it would).
   */
  writeIn(trx: Knex.Transaction, topic: string, payload: unknown, opts: PublishOptions): Promise<void> {
    let e: Omit<Entry, 'id'>;
    try {
      e = this.entryOf(topic, payload, opts);
    } catch (err) {
      return Promise.reject(err);
    }
    const pending = this.trxWrites.get(trx);
    if (pending) {
      pending.entries.push(e);
      return pending.done;
    }
    const group = { entries: [e], done: Promise.resolve() };
    this.trxWrites.set(trx, group);
    group.done = Promise.resolve().then(() => {
      this.trxWrites.delete(trx);
      return this.insertIn(trx, group.entries);
    });
    return group.done;
  }

  private async insertIn(trx: Knex.Transaction, entries: Omit<Entry, 'id'>[]): Promise<void> {
    const take = this.hasRoom();
    const { rows } = (await trx.raw(
      `INSERT INTO outbox_events (message_id, topic, payload, headers, company_id, published_at, lease_until)
       SELECT m, t, p, h, c, a, CASE WHEN ? THEN now() + make_interval(secs => ?) END
       FROM unnest(?::text[], ?::text[], ?::jsonb[], ?::jsonb[], ?::int[], ?::timestamptz[]) WITH ORDINALITY AS x(m, t, p, h, c, a, n)
       ORDER BY n
       RETURNING id`,
      this.insertBindings(take, entries),
    )) as { rows: { id: string | number }[] };
    // Ids follow the ordered SELECT.
    const ids = rows.map((r) => Number(r.id)).sort((a, b) => a - b);
    const committed = committedChain(trx);
    if (!take || !committed) {
      // Not leased (memory full), or not a transaction we can watch: a claim takes the rows after the commit.
      committed?.then(() => {
        this.more = true;
        if (this.opts.singleNode) this.schedulePoll();
        else this.wakeOthers();
      }, () => undefined);
      return;
    }
    const list: Entry[] = entries.map((en, i) => ({ ...en, id: ids[i] }));
    for (const en of list) this.held.add(en.id);
    committed.then(
      () => {
        for (const en of list) this.enqueue(en);
      },
      () => {
        for (const en of list) this.held.delete(en.id); // rolled back: the rows are gone with it
      },
    );
  }

  private insertBindings(take: boolean, entries: Omit<Entry, 'id'>[]): readonly string[] {
    return [
      take,
      this.opts.leaseMs / 1000,
      entries.map((b) => b.messageId),
      entries.map((b) => b.topic),
      entries.map((b) => b.json),
      entries.map((b) => JSON.stringify(b.headers)),
      entries.map((b) => b.companyId),
      entries.map((b) => b.publishedAt),
    ] as unknown as readonly string[];
  }

  /**
   * Writes one event on its own (grouped with the other writes of this moment into one INSERT) and resolves once
   * it is committed; it is then handed to the bus. Rejects when the database cannot be written.
   */
  write(topic: string, payload: unknown, opts: PublishOptions): Promise<void> {
    if (this.stopped) return Promise.reject(new Error('outbox is stopped'));
    let entry: Omit<Entry, 'id'>;
    try {
      entry = this.entryOf(topic, payload, opts);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      this.writes.push({ entry, resolve, reject });
      if (!this.writing) {
        this.writing = true;
        setImmediate(() => void this.flushWrites());
      }
    });
  }

  /** Starts the relay: with `singleNode`, the leases of a previous run are released first; then rows due are claimed. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    if (this.opts.singleNode) {
      try {
        const r = await this.opts.db.raw("UPDATE outbox_events SET lease_until = NULL WHERE state = 'pending' AND lease_until IS NOT NULL");
        const n = (r as { rowCount?: number }).rowCount ?? 0;
        if (n) this.opts.log.info({ events: n }, 'outbox: events a previous run had not finished publishing are published again');
      } catch (err) {
        this.opts.log.warn({ err }, 'outbox: could not release the leases of a previous run (they expire by themselves)');
      }
    } else {
      await this.opts.bus.subscribe(WAKE_TOPIC, () => this.kick(), { broadcast: true, maxRetries: 0 });
      this.renewTimer = setInterval(() => void this.renew(), Math.max(1_000, Math.floor(this.opts.leaseMs / 3)));
      this.renewTimer.unref?.();
    }
    this.kick();
  }

  /**
   * Stops handing rows to the bus; waits (at most `graceMs`) for hand-overs in flight to settle and for the
   * writes and deletes in progress, then gives the rest back (lease released) for the next start or another node.
   */
  async stop(graceMs = 5_000): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.pollTimer);
    clearInterval(this.renewTimer);
    clearTimeout(this.pauseTimer);
    // Writes in progress finish; so do RabbitMQ confirms (short). In-process hand-overs are not waited for: their
    // consumers may be gone already, and their rows stay to be published again at the next start.
    const deadline = Date.now() + Math.min(graceMs, 3_000);
    while ((this.writing || (!this.inProcess && this.inFlight > 0)) && Date.now() < deadline) await new Promise<void>((r) => setTimeout(r, 20));
    await this.deletes.stop();
    const rest = [...this.held];
    this.queue = [];
    this.head = 0;
    if (rest.length) await this.opts.db.raw('UPDATE outbox_events SET lease_until = NULL WHERE id = ANY(?::bigint[])', [rest]).catch(() => undefined);
  }

  /** Resolves once this node holds nothing and writes nothing (tests). */
  async drained(): Promise<void> {
    while (this.writing || this.writes.length || this.held.size || this.deletes.waiting) await new Promise<void>((r) => setTimeout(r, 10));
  }

  // ------------------------------------------------------------------ writing

  private entryOf(topic: string, payload: unknown, opts: PublishOptions): Omit<Entry, 'id'> {
    if (typeof topic !== 'string' || topic.length === 0 || topic.length > 255) throw new TypeError('bus.publish: topic is required (at most 255 characters)');
    const messageId = opts.id ?? randomUUID();
    if (messageId.length > 255) throw new TypeError('bus.publish: id is at most 255 characters');
    return { messageId, topic, json: encodePayload(payload), headers: opts.headers ? { ...opts.headers } : {}, publishedAt: new Date().toISOString(), companyId: companyOf(payload), tries: 0 };
  }

  private hasRoom(): boolean {
    return this.started && !this.stopped && this.held.size < this.maxHeld;
  }

  private async flushWrites(): Promise<void> {
    const batch = this.writes.splice(0, WRITE_BATCH);
    try {
      if (!batch.length) return;
      const take = this.hasRoom();
      const { rows } = (await this.opts.db.raw(
        `INSERT INTO outbox_events (message_id, topic, payload, headers, company_id, published_at, lease_until)
         SELECT m, t, p, h, c, a, CASE WHEN ? THEN now() + make_interval(secs => ?) END
         FROM unnest(?::text[], ?::text[], ?::jsonb[], ?::jsonb[], ?::int[], ?::timestamptz[]) WITH ORDINALITY AS x(m, t, p, h, c, a, n)
         ORDER BY n
         RETURNING id`,
        this.insertBindings(take, batch.map((b) => b.entry)),
      )) as { rows: { id: string | number }[] };
      // RETURNING follows the insertion order of the ordered SELECT.
      const ids = rows.map((r) => Number(r.id)).sort((a, b) => a - b);
      batch.forEach((b, i) => {
        if (take) {
          this.held.add(ids[i]);
          this.enqueue({ ...b.entry, id: ids[i] });
        }
        b.resolve();
      });
      if (!take) {
        this.more = true;
        this.wakeOthers();
      }
      this.failures = 0;
    } catch (err) {
      if (this.failures++ % 100 === 0) this.opts.log.error({ err, events: batch.length, outage: isOutage(err) }, 'outbox: events could not be written');
      for (const b of batch) b.reject(err);
    } finally {
      if (this.writes.length) setImmediate(() => void this.flushWrites());
      else this.writing = false;
    }
  }

  // ------------------------------------------------------------------ relaying

  private enqueue(e: Entry): void {
    if (this.stopped) return;
    this.queue.push(e);
    if (this.queue.length - this.head === 1 && !this.pauseTimer) setImmediate(() => this.pump());
  }

  private kick(): void {
    if (!this.started || this.stopped) return;
    this.pump();
    if (this.queue.length - this.head === 0) void this.claim();
  }

  /**
   * Hands the waiting entries to the bus in order (synchronously, so the bus sees them in that order). A full
   * in-process queue stops the hand-over where it is (the rest wait, in order) and pauses it for a moment:
   * back-pressure, never a refusal.
   */
  private pump(): void {
    if (this.stopped || this.pauseTimer) return;
    while (this.head < this.queue.length) {
      const e = this.queue[this.head];
      if (this.inProcess?.wouldRefuse(e.topic)) {
        this.pause();
        break;
      }
      this.queue[this.head++] = undefined as unknown as Entry;
      this.handOver(e);
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    if (this.more && this.held.size < this.maxHeld) void this.claim();
    this.schedulePoll();
  }

  /** Stops handing over for a moment (10 ms doubling to 1 s while it keeps being needed). */
  private pause(): void {
    if (this.pauseTimer || this.stopped) return;
    const delay = Math.min(1_000, 10 * 2 ** Math.min(7, this.pauses++));
    if (this.pauses === 4) this.opts.log.warn({ retryInMs: delay }, 'outbox: a bus queue is full; events wait for room (back-pressure, nothing is dropped)');
    this.pauseTimer = setTimeout(() => {
      this.pauseTimer = undefined;
      this.pump();
    }, delay);
    this.pauseTimer.unref?.();
  }

  private handOver(e: Entry): void {
    this.inFlight++;
    let p: Promise<void>;
    try {
      p = this.inProcess
        ? this.inProcess.publishSettled({ id: e.messageId, topic: e.topic, json: e.json, headers: e.headers, publishedAt: e.publishedAt })
        : this.opts.bus.publish(e.topic, JSON.parse(e.json) as unknown, { id: e.messageId, headers: e.headers });
    } catch (err) {
      p = Promise.reject(err);
    }
    p.then(
      () => {
        this.inFlight--;
        this.pauses = 0;
        this.held.delete(e.id);
        this.deletes.add(e.id, this.stopped);
        // Rows wait in the table (written while memory was full): take more once there is room again.
        if (this.more && this.held.size <= this.maxHeld / 2) void this.claim();
      },
      (err: unknown) => {
        this.inFlight--;
        void this.failed(e, err);
      },
    );
  }

  /**
   * A hand-over failed: a full queue or an unreachable broker puts the entry back first in line and pauses the
   * hand-over (the row stays held); a payload the bus cannot take (not JSON) is dead (state `dead`, kept for the
   * operators' screen).
   */
  private async failed(e: Entry, err: unknown): Promise<void> {
    if (this.stopped) return; // released at stop, published again at the next start
    const transient = err instanceof BusFullError || isOutage(err) || !(err instanceof TypeError);
    if (transient) {
      if (e.tries++ === 0) this.opts.log.warn({ err: err instanceof Error ? err.message : String(err), topic: e.topic, id: e.messageId }, 'outbox: the bus did not take the event; retrying');
      if (this.head > 0) this.queue[--this.head] = e;
      else this.queue.unshift(e);
      this.pause();
      return;
    }
    this.held.delete(e.id);
    const text = (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 2000);
    this.opts.log.error({ err, topic: e.topic, id: e.messageId }, 'outbox: the bus refused the event for good; kept as dead (operators can see and redrive it)');
    await this.opts.db.raw("UPDATE outbox_events SET state = 'dead', last_error = ?, lease_until = NULL WHERE id = ?", [text, e.id]).catch(() => undefined);
  }

  /** Renews the leases of the rows this node holds (several nodes: another would take them after the lease). */
  private async renew(): Promise<void> {
    if (this.stopped || !this.held.size) return;
    await this.opts.db
      .raw('UPDATE outbox_events SET lease_until = now() + make_interval(secs => ?) WHERE id = ANY(?::bigint[])', [this.opts.leaseMs / 1000, [...this.held]])
      .catch((err: unknown) => this.opts.log.warn({ err }, 'outbox: could not renew leases'));
  }

  /** Claims rows due (other nodes' leftovers, a previous run's, those written while memory was full). */
  private async claim(): Promise<void> {
    if (this.claiming || this.stopped || !this.started) return;
    const room = Math.min(CLAIM_BATCH, this.maxHeld - this.held.size);
    if (room <= 0) {
      this.more = true;
      this.schedulePoll();
      return;
    }
    this.claiming = true;
    try {
      const { rows } = (await this.opts.db.raw(
        `UPDATE outbox_events SET lease_until = now() + make_interval(secs => ?)
         WHERE id IN (
           SELECT id FROM outbox_events
           WHERE state = 'pending' AND next_at <= now() AND (lease_until IS NULL OR lease_until < now())
           ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED)
         RETURNING id, message_id, topic, payload::text AS json, headers, company_id, published_at`,
        [this.opts.leaseMs / 1000, room],
      )) as { rows: { id: string; message_id: string; topic: string; json: string; headers: Record<string, string> | null; company_id: number | null; published_at: Date | null }[] };
      this.more = rows.length === room;
      rows.sort((a, b) => Number(a.id) - Number(b.id));
      for (const r of rows) {
        const id = Number(r.id);
        if (this.held.has(id)) continue;
        this.held.add(id);
        this.queue.push({ id, messageId: r.message_id, topic: r.topic, json: r.json, headers: r.headers ?? {}, publishedAt: (r.published_at ?? new Date()).toISOString(), companyId: r.company_id, tries: 0 });
      }
      this.failures = 0;
    } catch (err) {
      this.more = false;
      if (this.failures++ % 100 === 0) this.opts.log.warn({ err }, 'outbox: could not look for waiting events; trying again');
    } finally {
      this.claiming = false;
    }
    if (this.head < this.queue.length) this.pump();
    else this.schedulePoll();
  }

  private schedulePoll(): void {
    if (this.pollTimer || this.stopped || !this.started) return;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = undefined;
      void this.claim();
    }, this.pollMs);
    this.pollTimer.unref?.();
  }

  /** Tells the other nodes (RabbitMQ) that rows wait in the table; at most 10 times a second. */
  private wakeOthers(): void {
    if (this.opts.singleNode) return;
    const now = Date.now();
    if (now - this.lastWake < 100) return;
    this.lastWake = now;
    this.opts.bus.publish(WAKE_TOPIC, {}).catch(() => undefined);
  }
}

/**
 * The bus plugins get (`ctx.bus`): `raw` with publishes going through the outbox (see the SDK's `PublishOptions`):
 * - `{trx}`: a row in the caller's transaction, published after it commits;
 * - `{durable}` (the inbox's handlers, which keep the event themselves until it is handled) and `{volatile}`:
 *   straight to `raw`;
 * - otherwise: RabbitMQ publishes straight to the broker (its confirm is the durability); the in-process bus
 *   writes a row first (nothing in memory only).
 */
export class OutboxBus implements Bus {
  /**
   * @param storedDeadLetters the dead letters the kernel keeps in PostgreSQL for a queue (RabbitMQ's, stored by its
   *   dead-letter sink); listed by `deadLetters` with the broker's own `<queue>.dlq`.
   */
  constructor(
    private readonly raw: Bus,
    private readonly outbox: Outbox,
    private readonly storedDeadLetters?: (queue: string) => Promise<BusMessage[]>,
  ) {}

  get kind(): Bus['kind'] {
    return this.raw.kind;
  }

  publish<T>(topicArg: TopicLike<T>, payload: T, opts: PublishOptions = {}): Promise<void> {
    const topic = typeof topicArg === 'string' ? topicArg : topicArg?.name;
    if (opts.trx) return this.outbox.writeIn(opts.trx, topic, payload, opts);
    if (opts.durable || opts.volatile || this.raw.kind === 'rabbitmq') {
      const { volatile: _v, trx: _t, ...rest } = opts;
      return this.raw.publish(topicArg, payload, rest);
    }
    return this.outbox.write(topic, payload, opts);
  }

  subscribe<T>(topic: TopicPattern<T>, handler: BusHandler<T>, opts: SubscribeOptions): Promise<Subscription> {
    return this.raw.subscribe(topic, handler, opts);
  }

  /** In-process: the bus's own list (it keeps every dead letter in memory too); RabbitMQ: `<queue>.dlq` and the stored ones. */
  async deadLetters(queue: string): Promise<BusMessage[]> {
    const own = await this.raw.deadLetters(queue);
    if (this.raw.kind !== 'rabbitmq' || !this.storedDeadLetters) return own;
    return [...own, ...(await this.storedDeadLetters(queue))];
  }

  isReady(): boolean {
    return this.raw.isReady();
  }

  close(): Promise<void> {
    return this.raw.close();
  }
}
