import { randomUUID } from 'node:crypto';
import {
  PermanentError,
  topicMatches,
  type Bus,
  type BusHandler,
  type BusMessage,
  type PublishOptions,
  type SubscribeOptions,
  type Subscription,
} from '@atendo/sdk';

/** Minimal pino-compatible logger used by the bus implementations (a pino or Fastify logger fits). */
export interface BusLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Defaults shared by both bus implementations (see `SubscribeOptions`). */
export const BUS_DEFAULTS = { prefetch: 32, maxRetries: 3, retryDelayMs: 200 } as const;

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

/** Stored form of a message inside an in-process queue; the payload is kept as JSON so every delivery gets a fresh copy. */
interface StoredMessage {
  id: string;
  topic: string;
  json: string;
  headers: Record<string, string>;
  publishedAt: string;
  attempt: number;
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
  messages: StoredMessage[];
  consumers: Consumer[];
  next: number;
  deadLetters: StoredMessage[];
  scheduled: boolean;
}

/**
 * The in-memory "broker" behind `InProcessBus`: named queues with their bindings, pending messages and
 * dead letters. Several `InProcessBus` instances may share one broker to emulate several processes
 * connected to the same RabbitMQ (used by the contract tests); by default each bus has its own.
 */
export class InProcessBroker {
  /** @internal */
  readonly queues = new Map<string, QueueState>();

  /** @internal Declares (or returns) a queue. */
  declare(name: string, broadcast: boolean): QueueState {
    let q = this.queues.get(name);
    if (!q) {
      q = { name, broadcast, bindings: new Set(), messages: [], consumers: [], next: 0, deadLetters: [], scheduled: false };
      this.queues.set(name, q);
    }
    return q;
  }

  /** @internal Copies `msg` into every queue bound to a matching pattern (topic-exchange routing). */
  route(msg: StoredMessage): void {
    for (const q of this.queues.values()) {
      for (const pattern of q.bindings) {
        if (topicMatches(pattern, msg.topic)) {
          this.enqueue(q, { ...msg });
          break;
        }
      }
    }
  }

  /** @internal */
  enqueue(q: QueueState, msg: StoredMessage): void {
    q.messages.push(msg);
    this.schedule(q);
  }

  /** @internal Schedules a dispatch pass on the next macrotask, never synchronously. */
  schedule(q: QueueState): void {
    if (q.scheduled) return;
    q.scheduled = true;
    setImmediate(() => {
      q.scheduled = false;
      this.dispatch(q);
    });
  }

  private dispatch(q: QueueState): void {
    while (q.messages.length > 0) {
      const consumer = this.pickConsumer(q);
      if (!consumer) return;
      const msg = q.messages.shift()!;
      consumer.bus.deliver(q, consumer, msg);
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
 *   `deadLetters`); a `PermanentError` dead-letters at once. Broadcast queues have no dead-letter queue:
 *   exhausted messages are dropped and logged.
 * Payloads travel as JSON (as over RabbitMQ): handlers get a fresh copy, `Date`s arrive as strings.
 * Nothing is persisted across restarts; a message no queue is bound for is dropped (as with RabbitMQ).
 * `unsubscribe()` waits for that consumer's in-flight handlers (pending retries are re-enqueued at once),
 * so do not await it from inside the same subscription's handler.
 */
export class InProcessBus implements Bus {
  readonly kind = 'in-process' as const;
  private readonly broker: InProcessBroker;
  private readonly logger?: BusLogger;
  private closed = false;
  private closing: Promise<void> | null = null;
  private readonly consumers = new Set<{ consumer: Consumer; queue: QueueState }>();

  /**
   * @param opts.broker share a broker between instances to emulate several processes (default: private).
   * @param opts.logger optional pino-like logger for retries and dead letters.
   */
  constructor(opts: { broker?: InProcessBroker; logger?: BusLogger } = {}) {
    this.broker = opts.broker ?? new InProcessBroker();
    this.logger = opts.logger;
  }

  /**
   * Enqueues a copy of the message in every queue bound to a matching pattern and resolves; delivery
   * happens asynchronously afterwards. Rejects after `close()` or when the payload is not JSON-serialisable.
   */
  async publish<T>(topic: string, payload: T, opts: PublishOptions = {}): Promise<void> {
    if (this.closed) throw new Error('bus is closed');
    if (typeof topic !== 'string' || topic.length === 0) throw new TypeError('bus.publish: topic is required');
    const msg: StoredMessage = {
      id: opts.id ?? randomUUID(),
      topic,
      json: encodePayload(payload),
      headers: { ...(opts.headers ?? {}) },
      publishedAt: new Date().toISOString(),
      attempt: 1,
    };
    this.broker.route(msg);
  }

  /**
   * Declares the queue (or a private one for `broadcast`), binds `pattern`, and starts a consumer.
   * Bindings accumulate on a named queue, as with RabbitMQ. Throws `TypeError` on invalid options and
   * rejects after `close()`.
   */
  async subscribe<T>(pattern: string | string[], handler: BusHandler<T>, opts: SubscribeOptions): Promise<Subscription> {
    if (this.closed) throw new Error('bus is closed');
    const resolved = resolveSubscribeOptions(pattern, opts);
    const name = resolved.broadcast ? `amq.gen-${randomUUID()}` : resolved.queue!;
    const queue = this.broker.declare(name, resolved.broadcast);
    for (const p of resolved.patterns) queue.bindings.add(p);
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

  /** Dead-lettered messages of `queue` (oldest first); an unknown queue yields `[]`. Does not remove them. */
  async deadLetters(queue: string): Promise<BusMessage[]> {
    const q = this.broker.queues.get(queue);
    return (q?.deadLetters ?? []).map(toBusMessage);
  }

  /** True until `close()` is called. */
  isReady(): boolean {
    return !this.closed;
  }

  /**
   * Stops delivery to this instance's consumers, fires pending retries (re-enqueued at once), waits for
   * in-flight handlers, and drops its broadcast queues. Publishing or subscribing afterwards rejects.
   * Idempotent. Do not await it from inside a handler of this bus (it would wait for itself).
   */
  close(): Promise<void> {
    if (!this.closing) {
      this.closed = true;
      this.closing = Promise.all([...this.consumers].map((e) => this.stopConsumer(e))).then(() => undefined);
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
    if (queue.broadcast) this.broker.queues.delete(queue.name);
    else this.broker.schedule(queue); // hand remaining messages to the other consumers, if any
  }

  /** @internal Called by the broker: runs the handler for one message on `consumer`. */
  deliver(queue: QueueState, consumer: Consumer, msg: StoredMessage): void {
    consumer.inFlight++;
    const run = this.handle(queue, consumer, msg).finally(() => {
      consumer.inFlight--;
      consumer.running.delete(run);
      this.broker.schedule(queue);
    });
    consumer.running.add(run);
  }

  private async handle(queue: QueueState, consumer: Consumer, msg: StoredMessage): Promise<void> {
    try {
      await consumer.handler(toBusMessage(msg));
      return;
    } catch (err) {
      const permanent = err instanceof PermanentError;
      const log = { err, queue: queue.broadcast ? undefined : queue.name, topic: msg.topic, id: msg.id, attempt: msg.attempt };
      if (permanent || msg.attempt > consumer.opts.maxRetries) {
        if (queue.broadcast) {
          this.logger?.error(log, 'bus: broadcast message failed, dropped');
        } else {
          queue.deadLetters.push({ ...msg });
          this.logger?.error(log, 'bus: message dead-lettered');
        }
        return;
      }
      this.logger?.warn(log, 'bus: handler failed, will retry');
      // Like the RabbitMQ implementation, the message keeps its consumer slot during the retry wait.
      await new Promise<void>((resolve) => {
        const retry = {
          fire: () => {
            clearTimeout(timer);
            consumer.retries.delete(retry);
            if (!queue.broadcast || this.broker.queues.get(queue.name) === queue) {
              this.broker.enqueue(queue, { ...msg, attempt: msg.attempt + 1 });
            }
            resolve();
          },
        };
        const timer = setTimeout(retry.fire, consumer.opts.retryDelayMs);
        consumer.retries.add(retry);
      });
    }
  }
}

function toBusMessage(msg: StoredMessage): BusMessage {
  return {
    id: msg.id,
    topic: msg.topic,
    payload: JSON.parse(msg.json) as unknown,
    headers: { ...msg.headers },
    publishedAt: msg.publishedAt,
    attempt: msg.attempt,
  };
}
