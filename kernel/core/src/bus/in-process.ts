import { randomUUID } from 'node:crypto';
import {
  BusFullError,
  isOutage,
  PermanentError,
  topicMatches,
  type Bus,
  type BusHandler,
  type BusMessage,
  type PublishOptions,
  type SubscribeOptions,
  type Subscription,
  type TopicLike,
  type TopicPattern,
  topicNames,
} from '@atendo/sdk';

/** Minimal pino-compatible logger used by the bus implementations (a pino or Fastify logger fits). */
export interface BusLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Defaults shared by both bus implementations (see `SubscribeOptions`). */
export const BUS_DEFAULTS = { prefetch: 32, maxRetries: 3, retryDelayMs: 200 } as const;

/** Default bound of one in-process queue (waiting messages); see InProcessBroker. */
export const BUS_MAX_QUEUE_LENGTH = 50_000;

/** Resolved, validated subscribe options. */
export interface ResolvedSubscribeOptions {
  patterns: string[];
  queue: string | undefined;
  broadcast: boolean;
  prefetch: number;
  maxRetries: number;
  retryDelayMs: number;
}

/**
 * Validates and fills in defaults for `subscribe` arguments; shared by both implementations so that they
 * reject the same inputs. Throws `TypeError` for an empty pattern list, a missing `queue` without
 * `broadcast`, or a non-integer / out-of-range prefetch (>= 1), maxRetries (>= 0) or retryDelayMs (>= 0).
 */
export function resolveSubscribeOptions(pattern: string | string[], opts: SubscribeOptions): ResolvedSubscribeOptions {
  const patterns = (Array.isArray(pattern) ? pattern : [pattern]).filter((p) => typeof p === 'string');
  if (patterns.length === 0 || patterns.some((p) => p.length === 0)) {
    throw new TypeError('bus.subscribe: at least one non-empty topic pattern is required');
  }
  const broadcast = opts?.broadcast === true;
  const queue = opts?.queue;
  if (!broadcast && (typeof queue !== 'string' || queue.length === 0)) {
    throw new TypeError('bus.subscribe: `queue` is required unless `broadcast` is true');
  }
  const prefetch = opts?.prefetch ?? BUS_DEFAULTS.prefetch;
  const maxRetries = opts?.maxRetries ?? BUS_DEFAULTS.maxRetries;
  const retryDelayMs = opts?.retryDelayMs ?? BUS_DEFAULTS.retryDelayMs;
  if (!Number.isInteger(prefetch) || prefetch < 1) throw new TypeError('bus.subscribe: prefetch must be an integer >= 1');
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new TypeError('bus.subscribe: maxRetries must be an integer >= 0');
  }
  if (!Number.isFinite(retryDelayMs) || retryDelayMs < 0) throw new TypeError('bus.subscribe: retryDelayMs must be >= 0');
  return { patterns: [...new Set(patterns)], queue: broadcast ? undefined : queue, broadcast, prefetch, maxRetries, retryDelayMs };
}

/**
 * Serialises a payload the way it travels over the wire (JSON). `undefined` becomes `null`; a payload
 * JSON cannot represent (BigInt, circular) throws `TypeError`.
 */
export function encodePayload(payload: unknown): string {
  const json = JSON.stringify(payload);
  return json === undefined ? 'null' : json;
}

/**
 * A published message, shared by every queue it was routed to (immutable): the payload is kept as JSON, so
 * every delivery gets a fresh copy, as over a broker.
 */
interface StoredMessage {
  id: string;
  topic: string;
  json: string;
  headers: Record<string, string>;
  publishedAt: string;
}

/** Settles a `durable` publish once every queue copy is settled (see PublishOptions.durable). */
interface DurableTracker {
  pending: number;
  /**
   * A copy that failed after its retries is dead-lettered (stored by the sink) and counts as settled, instead of
   * rejecting the publish (the outbox relay: the event is done once every copy is handled or durably dead).
   */
  settleOnDeadLetter?: boolean;
  failed: unknown;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** One queue's copy of a message. */
interface QueueEntry {
  msg: StoredMessage;
  attempt: number;
  /** Tries that failed on an outage (they do not count as attempts). */
  outages?: number;
  tracker?: DurableTracker;
}

interface Consumer {
  bus: InProcessBus;
  handler: BusHandler<unknown>;
  opts: ResolvedSubscribeOptions;
  active: boolean;
  inFlight: number;
  /** Settles when the handler (and any retry wait) of each in-flight message is done. */
  running: Set<Promise<void>>;
  /** Pending retry waits; `fire()` re-enqueues now and cancels the timer. */
  retries: Set<{ fire: () => void }>;
}

interface QueueState {
  name: string;
  broadcast: boolean;
  bindings: Set<string>;
  /** Waiting entries are `entries[head..]`; the consumed prefix is dropped in chunks (no Array.shift). */
  entries: QueueEntry[];
  head: number;
  consumers: Consumer[];
  next: number;
  deadLetters: QueueEntry[];
  scheduled: boolean;
  /** Bound `dispatch` of this queue (one closure per queue, not per schedule). */
  run: () => void;
}

/** Waiting messages in a queue. */
const depthOf = (q: QueueState): number => q.entries.length - q.head;

/** Most topics kept in the routing cache before it starts over (topic names are a small, fixed set). */
const ROUTE_CACHE_MAX = 10_000;

/**
 * The in-memory "broker" behind `InProcessBus`: named queues with their bindings, pending messages and
 * dead letters. Several `InProcessBus` instances may share one broker to emulate several processes
 * connected to the same RabbitMQ (used by the contract tests); by default each bus has its own.
 *
 * Routing: the queues a topic goes to are computed once per topic and cached; the cache is dropped
 * whenever a binding is added or a queue is deleted, so a publish costs one map lookup. Every queue holds
 * at most `maxQueueLength` waiting messages: a publish that would exceed it on any queue is refused
 * (`BusFullError`, nothing enqueued anywhere).
 */
export class InProcessBroker {
  /** @internal */
  readonly queues = new Map<string, QueueState>();
  private readonly routes = new Map<string, QueueState[]>();
  /** Waiting messages one queue may hold. */
  readonly maxQueueLength: number;

  constructor(opts: { maxQueueLength?: number } = {}) {
    this.maxQueueLength = opts.maxQueueLength ?? BUS_MAX_QUEUE_LENGTH;
  }

  /** @internal Declares (or returns) a queue. */
  declare(name: string, broadcast: boolean): QueueState {
    let q = this.queues.get(name);
    if (!q) {
      const state: QueueState = {
        name,
        broadcast,
        bindings: new Set(),
        entries: [],
        head: 0,
        consumers: [],
        next: 0,
        deadLetters: [],
        scheduled: false,
        run: () => {
          state.scheduled = false;
          this.dispatch(state);
        },
      };
      q = state;
      this.queues.set(name, q);
    }
    return q;
  }

  /** @internal Adds bindings to a queue (the routing cache starts over). */
  bind(q: QueueState, patterns: string[]): void {
    let added = false;
    for (const p of patterns) {
      if (q.bindings.has(p)) continue;
      q.bindings.add(p);
      added = true;
    }
    if (added) this.routes.clear();
  }

  /** @internal Deletes a queue with its messages and bindings (the routing cache starts over). */
  delete(q: QueueState): void {
    if (this.queues.get(q.name) !== q) return;
    this.queues.delete(q.name);
    this.routes.clear();
  }

  /** The queues `topic` is routed to (topic-exchange semantics: a queue once, whichever bindings match). */
  routeOf(topic: string): QueueState[] {
    let targets = this.routes.get(topic);
    if (targets) return targets;
    targets = [];
    for (const q of this.queues.values()) {
      for (const pattern of q.bindings) {
        if (topicMatches(pattern, topic)) {
          targets.push(q);
          break;
        }
      }
    }
    if (this.routes.size >= ROUTE_CACHE_MAX) this.routes.clear();
    this.routes.set(topic, targets);
    return targets;
  }

  /**
   * @internal Enqueues `msg` in every queue bound to a matching pattern. Throws `BusFullError` (nothing
   * enqueued) when one of them holds `maxQueueLength` messages already. Returns the number of copies.
   */
  route(msg: StoredMessage, tracker?: DurableTracker): number {
    const targets = this.routeOf(msg.topic);
    for (const q of targets) {
      if (depthOf(q) >= this.maxQueueLength) {
        throw new BusFullError(`bus: queue ${q.broadcast ? '(broadcast)' : q.name} holds ${this.maxQueueLength} messages; ${msg.topic} refused`);
      }
    }
    if (tracker) tracker.pending = targets.length;
    for (const q of targets) this.enqueue(q, { msg, attempt: 1, tracker });
    return targets.length;
  }

  /** @internal */
  enqueue(q: QueueState, entry: QueueEntry): void {
    q.entries.push(entry);
    this.schedule(q);
  }

  /** @internal Schedules a dispatch pass on the next macrotask, never synchronously. */
  schedule(q: QueueState): void {
    if (q.scheduled) return;
    q.scheduled = true;
    setImmediate(q.run);
  }

  /** @internal Waiting messages of `q`. */
  depth(q: QueueState): number {
    return depthOf(q);
  }

  private dispatch(q: QueueState): void {
    while (q.head < q.entries.length) {
      const consumer = this.pickConsumer(q);
      if (!consumer) break;
      const entry = q.entries[q.head];
      q.entries[q.head++] = undefined as unknown as QueueEntry; // let it be collected
      consumer.bus.deliver(q, consumer, entry);
    }
    // Drop the consumed prefix now and then (amortised O(1) per message).
    if (q.head === q.entries.length) {
      q.entries = [];
      q.head = 0;
    } else if (q.head > 1024 && q.head * 2 > q.entries.length) {
      q.entries = q.entries.slice(q.head);
      q.head = 0;
    }
  }

  /** Round-robin over the active consumers that still have prefetch capacity. */
  private pickConsumer(q: QueueState): Consumer | undefined {
    const n = q.consumers.length;
    for (let i = 0; i < n; i++) {
      const idx = (q.next + i) % n;
      const c = q.consumers[idx];
      if (c.active && c.inFlight < c.opts.prefetch) {
        q.next = (idx + 1) % n;
        return c;
      }
    }
    return undefined;
  }
}

/** A dead letter handed to `InProcessBusOptions.deadLetterSink` (the kernel stores them in PostgreSQL). */
export interface DeadLetter {
  queue: string;
  message: BusMessage;
  error: string;
}

/** Options of `InProcessBus`. */
export interface InProcessBusOptions {
  /** Share a broker between instances to emulate several processes (default: private). */
  broker?: InProcessBroker;
  /** The given `broker` is this bus's alone (default: true when no broker is given). */
  privateBroker?: boolean;
  /** Optional pino-like logger for retries and dead letters. */
  logger?: BusLogger;
  /**
   * Keeps dead letters beyond the process (the kernel writes them to PostgreSQL, where `npm run redrive`
   * finds them). Awaited before a `durable` publish counts the copy as settled; a failure is logged.
   */
  deadLetterSink?: (letter: DeadLetter) => Promise<void>;
}

/**
 * In-process implementation of the `Bus` contract (`kind: 'in-process'`), used when no AMQP_URL is
 * configured. It emulates RabbitMQ topic-exchange semantics in memory:
 * - a named queue receives a copy of every message whose topic matches one of its bound patterns; the
 *   consumers of one queue compete round-robin, each limited to `prefetch` unsettled messages;
 * - a queue and its bindings outlive its consumers (like a durable queue): messages published while it
 *   has no consumer wait and are delivered when a consumer subscribes to that queue name again;
 * - a broadcast subscription gets a private queue, deleted on unsubscribe/close;
 * - a failed handler is retried (`attempt` + 1, re-enqueued at the queue tail after `retryDelayMs`) up to
 *   `maxRetries` times, then the message is dead-lettered into `<queue>.dlq` (kept in memory, see
 *   `deadLetters`, and handed to `deadLetterSink`); a `PermanentError` dead-letters at once. A failure that
 *   is an outage (`isOutage`: the database unreachable...) is retried with a doubling delay capped at
 *   OUTAGE_RETRY_MAX_MS for as long as it lasts, never dead-lettered. Broadcast queues have no dead-letter
 *   queue: exhausted messages are dropped and logged;
 * - every queue holds at most `broker.maxQueueLength` waiting messages; past that `publish` rejects with
 *   `BusFullError`;
 * - `publish(..., {durable: true})` resolves once every copy is handled (see PublishOptions.durable).
 * Payloads travel as JSON (as over RabbitMQ): handlers get a fresh copy, `Date`s arrive as strings.
 * Nothing is persisted across restarts; a message no queue is bound for is dropped (as with RabbitMQ).
 * `unsubscribe()` waits for that consumer's in-flight handlers (pending retries are re-enqueued at once),
 * so do not await it from inside the same subscription's handler.
 */
export class InProcessBus implements Bus {
  readonly kind = 'in-process' as const;
  private readonly broker: InProcessBroker;
  private readonly logger?: BusLogger;
  private readonly deadLetterSink?: (letter: DeadLetter) => Promise<void>;
  private closed = false;
  private closing: Promise<void> | null = null;
  private readonly consumers = new Set<{ consumer: Consumer; queue: QueueState }>();
  /** Durable publishes of this instance not settled yet (rejected on close). */
  private readonly trackers = new Set<DurableTracker>();

  /** True when this bus has a broker of its own: no other instance publishes to or consumes from it. */
  readonly privateBroker: boolean;

  constructor(opts: InProcessBusOptions = {}) {
    this.broker = opts.broker ?? new InProcessBroker();
    this.privateBroker = opts.privateBroker ?? !opts.broker;
    this.logger = opts.logger;
    this.deadLetterSink = opts.deadLetterSink;
  }

  /**
   * Enqueues a copy of the message in every queue bound to a matching pattern and resolves; delivery
   * happens asynchronously afterwards. With `durable`, resolves once every copy is handled instead (see
   * PublishOptions.durable). Rejects after `close()`, when the payload is not JSON-serialisable, or with
   * `BusFullError` when a target queue is full.
   */
  publish<T>(topicArg: TopicLike<T>, payload: T, opts: PublishOptions = {}): Promise<void> {
    try {
      if (this.closed) throw new Error('bus is closed');
      const topic = typeof topicArg === 'string' ? topicArg : topicArg?.name;
      if (typeof topic !== 'string' || topic.length === 0) throw new TypeError('bus.publish: topic is required');
      const msg: StoredMessage = {
        id: opts.id ?? randomUUID(),
        topic,
        json: encodePayload(payload),
        headers: opts.headers ? { ...opts.headers } : {},
        publishedAt: new Date().toISOString(),
      };
      if (!opts.durable) {
        this.broker.route(msg);
        return Promise.resolve();
      }
      return this.tracked(false, (tracker) => this.broker.route(msg, tracker));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * The outbox relay's publish: like `durable`, resolves once every copy is handled, but a copy that fails after
   * its retries is dead-lettered (and stored by `deadLetterSink` before it counts) instead of rejecting. Rejects
   * with `BusFullError` (nothing enqueued) when a target queue is full, and when the bus closes first.
   * `json`: the payload already encoded (it is not encoded again).
   */
  publishSettled(m: { id: string; topic: string; json: string; headers?: Record<string, string>; publishedAt?: string }): Promise<void> {
    try {
      if (this.closed) throw new Error('bus is closed');
      const msg: StoredMessage = { id: m.id, topic: m.topic, json: m.json, headers: m.headers ? { ...m.headers } : {}, publishedAt: m.publishedAt ?? new Date().toISOString() };
      return this.tracked(true, (tracker) => this.broker.route(msg, tracker));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * A promise settled by a new tracker: `start` hands the tracker to the queues it goes to and answers how
   * many (0: resolved at once); a throw from `start` rejects. `settleOnDeadLetter`: a dead-lettered message
   * settles it (resolved) instead of failing it back to the publisher.
   */
  private tracked(settleOnDeadLetter: boolean, start: (tracker: DurableTracker) => number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const tracker: DurableTracker = {
        pending: 0,
        ...(settleOnDeadLetter ? { settleOnDeadLetter: true } : {}),
        failed: undefined,
        resolve: () => {
          this.trackers.delete(tracker);
          resolve();
        },
        reject: (err) => {
          this.trackers.delete(tracker);
          reject(err);
        },
      };
      try {
        if (start(tracker) === 0) return resolve();
      } catch (err) {
        return reject(err);
      }
      this.trackers.add(tracker);
    });
  }

  /** True when a publish of `topic` now would be refused because a queue it goes to is full. */
  wouldRefuse(topic: string): boolean {
    for (const q of this.broker.routeOf(topic)) if (this.broker.depth(q) >= this.broker.maxQueueLength) return true;
    return false;
  }

  /**
   * Declares the queue (or a private one for `broadcast`), binds `pattern`, and starts a consumer.
   * Bindings accumulate on a named queue, as with RabbitMQ. Throws `TypeError` on invalid options and
   * rejects after `close()`.
   */
  async subscribe<T>(topic: TopicPattern<T>, handler: BusHandler<T>, opts: SubscribeOptions): Promise<Subscription> {
    if (this.closed) throw new Error('bus is closed');
    const resolved = resolveSubscribeOptions(topicNames(topic), opts);
    const name = resolved.broadcast ? `amq.gen-${randomUUID()}` : resolved.queue!;
    const queue = this.broker.declare(name, resolved.broadcast);
    this.broker.bind(queue, resolved.patterns);
    const consumer: Consumer = {
      bus: this,
      handler: handler as BusHandler<unknown>,
      opts: resolved,
      active: true,
      inFlight: 0,
      running: new Set(),
      retries: new Set(),
    };
    const entry = { consumer, queue };
    queue.consumers.push(consumer);
    this.consumers.add(entry);
    this.broker.schedule(queue);
    let done: Promise<void> | null = null;
    return {
      unsubscribe: () => {
        done ??= this.stopConsumer(entry);
        return done;
      },
    };
  }

  /** Readiness probe (GET /ready): the in-process bus is reachable while it is open. */
  async probe(): Promise<boolean> {
    return this.isReady();
  }

  /** Messages waiting (not yet handed to a consumer) in each named queue this instance consumes. */
  async queueDepths(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const { queue } of this.consumers) if (!queue.broadcast) out[queue.name] = this.broker.depth(queue);
    return out;
  }

  /** Dead-lettered messages of `queue` (oldest first); an unknown queue yields `[]`. Does not remove them. */
  async deadLetters(queue: string): Promise<BusMessage[]> {
    const q = this.broker.queues.get(queue);
    return (q?.deadLetters ?? []).map(toBusMessage);
  }

  /**
   * Puts messages back into their queue `queue` with attempt 1 (an operator's redrive): the given
   * `messages` (dead letters kept elsewhere, e.g. in PostgreSQL), and the in-memory dead letters of `queue`
   * whose id is in `ids` (all of them when neither `ids` nor `messages` is given), removed from the
   * dead-letter list. Returns how many were requeued.
   */
  redrive(queue: string, opts: { ids?: string[]; messages?: BusMessage[] } = {}): number {
    if (this.closed) throw new Error('bus is closed');
    const q = this.broker.queues.get(queue);
    if (!q || q.broadcast) return 0;
    const wanted = opts.ids ? new Set(opts.ids) : opts.messages ? new Set<string>() : undefined;
    // In-memory copies of the given messages leave the list (the given copies are the ones put back).
    const given = new Set((opts.messages ?? []).map((m) => m.id));
    let n = 0;
    const keep: QueueEntry[] = [];
    for (const e of q.deadLetters) {
      if (given.has(e.msg.id)) continue;
      if (wanted && !wanted.has(e.msg.id)) keep.push(e);
      else {
        this.broker.enqueue(q, { msg: e.msg, attempt: 1 });
        n++;
      }
    }
    q.deadLetters = keep;
    for (const m of opts.messages ?? []) {
      this.broker.enqueue(q, { msg: { id: m.id, topic: m.topic, json: encodePayload(m.payload), headers: { ...m.headers }, publishedAt: m.publishedAt }, attempt: 1 });
      n++;
    }
    return n;
  }

  /**
   * Puts one message (a dead letter kept in PostgreSQL) back into `queue` with attempt 1 and answers a promise
   * settled once the queue's consumer handled it (resolved) or dead-lettered it again (resolved: the sink kept
   * the new dead letter); rejected when the bus closes first. Answers null when this instance has no such queue
   * (nothing was put back). The caller deletes its stored copy only when the promise resolves, so a crash
   * while the message waits in memory leaves the stored copy to be put back at the next start.
   */
  redriveTracked(queue: string, m: BusMessage): Promise<void> | null {
    if (this.closed) throw new Error('bus is closed');
    const q = this.broker.queues.get(queue);
    if (!q || q.broadcast) return null;
    return this.tracked(true, (tracker) => {
      tracker.pending = 1;
      this.broker.enqueue(q, { msg: { id: m.id, topic: m.topic, json: encodePayload(m.payload), headers: { ...m.headers }, publishedAt: m.publishedAt }, attempt: 1, tracker });
      return 1;
    });
  }

  /** True until `close()` is called. */
  isReady(): boolean {
    return !this.closed;
  }

  /**
   * Stops delivery to this instance's consumers, fires pending retries (re-enqueued at once), waits for
   * in-flight handlers, and drops its broadcast queues; durable publishes still waiting reject. Publishing
   * or subscribing afterwards rejects. Idempotent. Do not await it from inside a handler of this bus (it
   * would wait for itself).
   */
  close(): Promise<void> {
    if (!this.closing) {
      this.closed = true;
      this.closing = Promise.all([...this.consumers].map((e) => this.stopConsumer(e))).then(() => {
        for (const t of [...this.trackers]) t.reject(new Error('bus is closed'));
      });
    }
    return this.closing;
  }

  private async stopConsumer(entry: { consumer: Consumer; queue: QueueState }): Promise<void> {
    const { consumer, queue } = entry;
    consumer.active = false;
    const idx = queue.consumers.indexOf(consumer);
    if (idx >= 0) {
      queue.consumers.splice(idx, 1);
      if (queue.next > idx) queue.next--;
      if (queue.consumers.length > 0) queue.next %= queue.consumers.length;
      else queue.next = 0;
    }
    for (const r of [...consumer.retries]) r.fire();
    while (consumer.running.size > 0) await Promise.allSettled([...consumer.running]);
    this.consumers.delete(entry);
    if (queue.broadcast) {
      this.broker.delete(queue);
      // A private queue's waiting messages go with it (durable publishes count them as settled).
      for (let i = queue.head; i < queue.entries.length; i++) settle(queue.entries[i]?.tracker);
      queue.entries = [];
      queue.head = 0;
    } else this.broker.schedule(queue); // hand remaining messages to the other consumers, if any
  }

  /** @internal Called by the broker: runs the handler for one message on `consumer`. */
  deliver(queue: QueueState, consumer: Consumer, entry: QueueEntry): void {
    consumer.inFlight++;
    const run = this.handle(queue, consumer, entry).finally(() => {
      consumer.inFlight--;
      consumer.running.delete(run);
      this.broker.schedule(queue);
    });
    consumer.running.add(run);
  }

  private async handle(queue: QueueState, consumer: Consumer, entry: QueueEntry): Promise<void> {
    const { msg, attempt } = entry;
    let delay: number;
    let outage = false;
    try {
      await consumer.handler(toBusMessage(entry));
      settle(entry.tracker);
      return;
    } catch (err) {
      const permanent = err instanceof PermanentError;
      outage = !permanent && isOutage(err);
      const log = { err, queue: queue.broadcast ? undefined : queue.name, topic: msg.topic, id: msg.id, attempt };
      if (!outage && (permanent || attempt > consumer.opts.maxRetries)) {
        if (entry.tracker && !permanent && !entry.tracker.settleOnDeadLetter) {
          // A durable publish: its publisher keeps the message and tries again later.
          this.logger?.warn(log, 'bus: handler failed after its retries; returned to the publisher');
          settle(entry.tracker, err);
        } else if (queue.broadcast) {
          this.logger?.error(log, 'bus: broadcast message failed, dropped');
          settle(entry.tracker);
        } else {
          queue.deadLetters.push({ msg, attempt });
          this.logger?.error(log, 'bus: message dead-lettered');
          const sink = this.deadLetterSink;
          if (sink) {
            await sink({ queue: queue.name, message: toBusMessage(entry), error: errorText(err) }).catch((sinkErr: unknown) =>
              this.logger?.error({ err: sinkErr, queue: queue.name, id: msg.id }, 'bus: storing a dead letter failed'),
            );
          }
          settle(entry.tracker);
        }
        return;
      }
      delay = outage ? outageDelay(consumer.opts.retryDelayMs, (entry.outages ?? 0) + 1) : consumer.opts.retryDelayMs;
      if (outage) outageLog(this.logger, log, delay);
      else this.logger?.warn(log, 'bus: handler failed, will retry');
    }
    // Like the RabbitMQ implementation, the message keeps its consumer slot during the retry wait.
    await new Promise<void>((resolve) => {
      const retry = {
        fire: () => {
          clearTimeout(timer);
          consumer.retries.delete(retry);
          if (!queue.broadcast || this.broker.queues.get(queue.name) === queue) {
            this.broker.enqueue(queue, outage ? { msg, attempt, outages: (entry.outages ?? 0) + 1, tracker: entry.tracker } : { msg, attempt: attempt + 1, tracker: entry.tracker });
          } else settle(entry.tracker);
          resolve();
        },
      };
      const timer = setTimeout(retry.fire, delay);
      consumer.retries.add(retry);
    });
  }
}

/** Longest wait between two tries of a message whose handler failed on an outage (milliseconds). */
export const OUTAGE_RETRY_MAX_MS = 5_000;

/** The delay after the `n`-th failure on an outage: `base` doubling each time, at least 100 ms, capped at OUTAGE_RETRY_MAX_MS. */
export function outageDelay(base: number, n: number): number {
  return Math.min(OUTAGE_RETRY_MAX_MS, Math.max(100, base) * 2 ** Math.min(16, n - 1));
}

/** One warning per second at most for outage retries (a 1,000-message backlog would log 1,000 lines a try). */
let lastOutageLog = 0;
let outageSuppressed = 0;
export function outageLog(logger: BusLogger | undefined, log: Record<string, unknown>, delayMs: number): void {
  const now = Date.now();
  if (now - lastOutageLog < 1_000) {
    outageSuppressed++;
    return;
  }
  lastOutageLog = now;
  logger?.warn({ ...log, err: errorText(log.err), retryInMs: delayMs, suppressed: outageSuppressed }, 'bus: a dependency is unreachable; retrying until it is back (not dead-lettered)');
  outageSuppressed = 0;
}

function errorText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

/** Counts one copy of a durable publish as settled (`failed`: it failed after its retries). */
function settle(tracker: DurableTracker | undefined, failed?: unknown): void {
  if (!tracker) return;
  if (failed !== undefined && tracker.failed === undefined) tracker.failed = failed;
  if (--tracker.pending > 0) return;
  if (tracker.failed !== undefined) tracker.reject(tracker.failed);
  else tracker.resolve();
}

function toBusMessage(entry: QueueEntry): BusMessage {
  const { msg } = entry;
  return {
    id: msg.id,
    topic: msg.topic,
    payload: JSON.parse(msg.json) as unknown,
    headers: { ...msg.headers },
    publishedAt: msg.publishedAt,
    attempt: entry.attempt,
  };
}
