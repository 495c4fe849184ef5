import type { Knex } from 'knex';
import type { Topic } from './contracts';

/**
 * The message bus contract. Two implementations live in the kernel: RabbitMQ (amqplib, when AMQP_URL is
 * set) and in-process (otherwise). Both pass the same contract test suite (kernel/core/test/bus.contract.ts).
 *
 * Semantics (RabbitMQ topic-exchange semantics, emulated in-process):
 * - `publish(topic, payload, {trx})` writes the event into the kernel's transactional outbox inside the caller's
 *   transaction: it exists only if that transaction commits, and then it is published (by the outbox relay, on
 *   whichever node) even if this process dies right after the commit. This is how a plugin publishes the events of
 *   a state change: never "commit, then publish and log a failure".
 * - `publish(topic, payload)` without `trx` resolves once the message can no longer be lost by a crash of this
 *   process: RabbitMQ's publisher confirm of the persistent message; on the in-process bus, the outbox row written
 *   (its own statement) and removed only once every consumer handled it (or it was dead-lettered, durably). Only
 *   `volatile` publishes (live pushes, cache invalidation, wake-ups) skip that and may be lost in a crash.
 * - `subscribe(pattern, handler, {queue})`: every distinct `queue` gets its own copy of each matching
 *   message; consumers sharing a `queue` name compete (each message goes to one of them). Patterns use
 *   topic wildcards: `*` matches one dot-separated word, `#` zero or more words.
 * - `{broadcast: true}`: the queue is private to this process (exclusive, auto-deleted), so every
 *   process receives every message; used for realtime fan-out across kernel nodes.
 * - A handler that resolves acks the message. A handler that throws a `RetryableError` (or any error
 *   not marked permanent) is retried up to `maxRetries` times with `retryDelayMs` between tries, then the
 *   message goes to the queue's dead-letter queue `<queue>.dlq`. A `PermanentError` dead-letters at once.
 * - Event topics are named `<aggregate>.<past tense>` (`message.received`); commands `<aggregate>.<verb>`.
 */
export interface BusMessage<T = unknown> {
  /** Unique message id (uuid unless the publisher gave one). */
  id: string;
  topic: string;
  payload: T;
  headers: Record<string, string>;
  /** ISO-8601 time of publication. */
  publishedAt: string;
  /** Delivery attempt, starting at 1. */
  attempt: number;
}

export interface PublishOptions {
  /** Message id; a stable id lets consumers dedupe redeliveries. */
  id?: string;
  headers?: Record<string, string>;
  /**
   * Resolve only once the message can no longer be lost by a crash of this process. RabbitMQ: the broker's
   * confirm of the persistent message (what every publish waits for anyway). In-process (nothing survives
   * the process): once every queue it was routed to has handled it (handler resolved, or the message was
   * dead-lettered as a `PermanentError`); rejects when a copy failed for another reason after its retries
   * (it is then not dead-lettered: the publisher keeps it and tries again later). Meant for publishers that
   * hold the message durably themselves until then (the kernel's inbox).
   */
  durable?: boolean;
  /**
   * Write the event inside this transaction (the kernel's outbox): it is published after the transaction commits,
   * and never if it rolls back; a crash after the commit cannot lose it. Nested transactions (savepoints) publish
   * with their outermost transaction. Resolves once the row is written in the transaction.
   */
  trx?: Knex.Transaction;
  /**
   * Best effort: published straight to the bus, never written to the outbox (live pushes, cache invalidations,
   * wake-ups: losing one in a crash is harmless because readers recover on their own). Ignored with `trx`.
   */
  volatile?: boolean;
}

export interface SubscribeOptions {
  /** Queue name; consumers with the same name compete. Required unless `broadcast`. */
  queue?: string;
  /** Private per-process queue: every process gets every message (not durable). */
  broadcast?: boolean;
  /** Messages in flight per consumer (default 32). */
  prefetch?: number;
  /** Retries after the first failed attempt before dead-lettering (default 3). */
  maxRetries?: number;
  /** Delay before a retry in milliseconds (default 200). */
  retryDelayMs?: number;
}

export type BusHandler<T = unknown> = (message: BusMessage<T>) => Promise<void> | void;

export interface Subscription {
  /** Stops consuming; the queue and its messages stay (unless broadcast). */
  unsubscribe(): Promise<void>;
}

/** A topic to publish to: a typed topic (preferred) or its name. */
export type TopicLike<T> = Topic<T> | string;
/** What to subscribe to: typed topics (preferred), or topic patterns with wildcards. */
export type TopicPattern<T> = Topic<T> | Topic<T>[] | string | string[];

/** The name(s) behind a topic or pattern argument. */
export function topicNames(t: TopicPattern<unknown>): string[] {
  const list = Array.isArray(t) ? t : [t];
  return list.map((x) => (typeof x === 'string' ? x : (x as Topic<unknown> | undefined)?.name)).filter((x): x is string => typeof x === 'string');
}

export interface Bus {
  readonly kind: 'rabbitmq' | 'in-process';
  /** Publishes `payload` on `topic`; with a typed topic the payload is checked against its type. */
  publish<T>(topic: TopicLike<T>, payload: T, opts?: PublishOptions): Promise<void>;
  /** Consumes messages of `topic` (typed topics or wildcard patterns); see the semantics above. */
  subscribe<T>(topic: TopicPattern<T>, handler: BusHandler<T>, opts: SubscribeOptions): Promise<Subscription>;
  /** Messages currently dead-lettered for `queue` (for operators and tests); does not remove them. */
  deadLetters(queue: string): Promise<BusMessage[]>;
  /** True while the bus can publish (connected, channel open). */
  isReady(): boolean;
  close(): Promise<void>;
}

/** Thrown by a handler for a failure worth retrying (network, lock, provider 5xx). */
export class RetryableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RetryableError';
  }
}

/** Thrown by a handler for a failure that will never succeed (bad payload); dead-lettered at once. */
export class PermanentError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentError';
  }
}

/**
 * Thrown by `publish` when a queue the message would go to is full (the in-process bus bounds every queue;
 * see the kernel's BUS_MAX_QUEUE_LENGTH). Retryable: the publisher should answer 503 / try again later.
 */
export class BusFullError extends RetryableError {
  constructor(message: string) {
    super(message);
    this.name = 'BusFullError';
  }
}

/**
 * Thrown (or detected, see `isOutage`) when a dependency is unreachable (the database down, a connection
 * refused): nothing is wrong with the message, so it is retried with backoff for as long as the outage
 * lasts and never dead-lettered.
 */
export class OutageError extends RetryableError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OutageError';
  }
}

/** PostgreSQL SQLSTATEs of an unreachable or restarting server (class 08 is matched by prefix). */
const OUTAGE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '58P01']);
/** Node.js socket error codes of an unreachable peer. */
const OUTAGE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);
/**
 * Messages of the pg driver and knex when the server went away or no connection could be had (`timeout
 * expired`: pg's connectionTimeoutMillis; `timeout exceeded when trying to connect`: pg-pool's).
 */
const OUTAGE_MESSAGES = /Connection terminated|Client has encountered a connection error|Timeout acquiring a connection|connect ECONNREFUSED|the database system is (starting up|shutting down|in recovery mode)|terminating connection due to administrator command|server closed the connection unexpectedly|Client was closed and is not queryable|Knex: Timeout|^timeout expired$|^timeout exceeded when trying to connect$/;

/**
 * True when `err` (or an error in its `cause` chain) says a dependency is unreachable rather than that the
 * work is wrong: an `OutageError`, a PostgreSQL connection-class SQLSTATE (08xxx, 57P01-57P03 admin/crash
 * shutdown or starting up, 53300 too many connections), a socket errno (ECONNREFUSED, ECONNRESET,
 * ETIMEDOUT...), or the pg driver's / knex's connection messages. The bus retries such failures with backoff
 * (capped at a few seconds) without counting them towards `maxRetries`.
 */
export function isOutage(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 8; depth++) {
    if (e instanceof OutageError) return true;
    const x = e as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    if (typeof x.code === 'string') {
      if (OUTAGE_ERRNOS.has(x.code) || OUTAGE_SQLSTATES.has(x.code) || /^08[0-9A-Z]{3}$/.test(x.code)) return true;
    }
    if (typeof x.message === 'string' && OUTAGE_MESSAGES.test(x.message)) return true;
    // AggregateError (e.g. a connect attempt on IPv4 and IPv6): an outage when every part is one.
    if (Array.isArray(x.errors) && x.errors.length > 0 && x.errors.every((inner) => isOutage(inner))) return true;
    e = x.cause;
  }
  return false;
}

/**
 * True when `topic` matches the RabbitMQ topic `pattern` (`*` one word, `#` zero or more words). Iterative
 * (wildcard matching with one backtrack point per `#`), no allocation beyond the two word lists.
 */
export function topicMatches(pattern: string, topic: string): boolean {
  if (pattern === topic || pattern === '#') return true;
  const p = pattern.split('.');
  const t = topic.split('.');
  let i = 0;
  let j = 0;
  let hashAt = -1;
  let hashFrom = 0;
  while (j < t.length) {
    if (i < p.length && p[i] === '#') {
      hashAt = i++;
      hashFrom = j;
    } else if (i < p.length && (p[i] === '*' || p[i] === t[j])) {
      i++;
      j++;
    } else if (hashAt >= 0) {
      // Let the last `#` take one more word and try again from there.
      i = hashAt + 1;
      j = ++hashFrom;
    } else return false;
  }
  while (i < p.length && p[i] === '#') i++;
  return i === p.length;
}
