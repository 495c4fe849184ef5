/**
 * The message bus contract. Two implementations live in the kernel: RabbitMQ (amqplib, when AMQP_URL is
 * set) and in-process (otherwise). Both pass the same contract test suite (kernel/core/test/bus.contract.ts).
 *
 * Semantics (RabbitMQ topic-exchange semantics, emulated in-process):
 * - `publish(topic, payload)` resolves once the message is durably accepted (publisher confirm).
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

export interface Bus {
  readonly kind: 'rabbitmq' | 'in-process';
  publish<T>(topic: string, payload: T, opts?: PublishOptions): Promise<void>;
  subscribe<T>(pattern: string | string[], handler: BusHandler<T>, opts: SubscribeOptions): Promise<Subscription>;
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

/** True when `topic` matches the RabbitMQ topic `pattern` (`*` one word, `#` zero or more words). */
export function topicMatches(pattern: string, topic: string): boolean {
  const p = pattern.split('.');
  const t = topic.split('.');
  const match = (i: number, j: number): boolean => {
    if (i === p.length) return j === t.length;
    if (p[i] === '#') {
      for (let k = j; k <= t.length; k++) if (match(i + 1, k)) return true;
      return false;
    }
    if (j === t.length) return false;
    return (p[i] === '*' || p[i] === t[j]) && match(i + 1, j + 1);
  };
  return match(0, 0);
}
