import { performance } from 'node:perf_hooks';

/**
 * Ingestion first: how busy this process's inbound pipeline is, and a gate that lets the conversation
 * turns (the bot's answers) run fewer at once while it is.
 *
 * Why: a turn that answers costs the kernel several times an inbound message (the turn, then its reply:
 * stored, pushed, sent, acknowledged). When webhooks arrive faster than one process stores them, turns
 * running 8 at once took the CPU the inbound pipeline needed (bench/inbound.ts `BENCH_BOT=on`, 50 in
 * flight: -43 % stored messages). Inbound messages are what must never wait (providers time out and
 * retry, Baileys buffers them in memory); turns are durable in their queue and catch up. So while the
 * pipeline is busy, turns run one at a time, each followed by a rest 4 times as long as it ran (the bot still
 * answers, at a bounded share of the process); otherwise up to `TURN_CONCURRENCY` at once, and a reply
 * leaves within tens of milliseconds.
 */

/**
 * While the pipeline is busy, a turn's slot rests 4 times as long as the turn ran (up to
 * BUSY_TURN_REST_MAX_MS): one turn at a time, at most a fifth of the time (the turn's reply is sent,
 * acknowledged and pushed after the turn, so it costs more than the turn's own time). Measured
 * (bench/inbound.ts, 1,000 contacts starting conversations with the bot's menu, 10 / 20 / 50 webhooks in
 * flight, against the same load without the bot): one at a time without a rest, -15 % stored messages at
 * 50; a rest 1.5 times the turn, -9 / -10 / -8 %; 2.5 times, -11 / -10 / -7 % at worst; 4 times, -4 / -8 /
 * +2 %, the bot answering 15-19 turns a second meanwhile, and at full speed again once webhooks stop
 * queueing.
 */
export const BUSY_TURN_REST_RATIO = 4;
export const BUSY_TURN_REST_MAX_MS = 500;
/**
 * Deliveries the inbound consumer handles at once from which the pipeline counts as busy: more than the one
 * or two of a steady flow (a bot reply then leaves within tens of milliseconds, see bench/README.md), as
 * soon as webhooks queue up. At 16 the pipeline lost 57 % with 10 webhooks in flight.
 */
export const INBOUND_BUSY_DELIVERIES = 4;
/**
 * How long the pipeline still counts as busy after it last was (milliseconds): no flapping between batches.
 * At 1 ms, 10 webhooks in flight lost 20 % (turns ran between batches); at 250 ms, a steady 75 new
 * conversations a second (each answered) left the bot seconds behind, as a passing queue of four held it
 * back for long after; at 30 ms, replies at 75 a second have p99 68 ms.
 */
export const INBOUND_BUSY_HOLD_MS = 30;

/** The inbound consumer's load in this process (see the module docstring). */
export class InboundPressure {
  private inFlight = 0;
  private busyAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly threshold = INBOUND_BUSY_DELIVERIES,
    private readonly holdMs = INBOUND_BUSY_HOLD_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** `handler` counted: its calls in progress are the deliveries being handled. */
  track<T>(handler: (m: T) => Promise<void>): (m: T) => Promise<void> {
    return async (m: T) => {
      if (++this.inFlight >= this.threshold) this.busyAt = this.now();
      try {
        await handler(m);
      } finally {
        this.inFlight--;
      }
    };
  }

  /** True while `threshold` or more deliveries are in progress, and for `holdMs` after. */
  busy(): boolean {
    return this.inFlight >= this.threshold || this.now() - this.busyAt < this.holdMs;
  }
}

/**
 * Runs tasks at most `limit()` at a time (at least 1), asking `limit()` again each time one starts or
 * ends: a concurrency limit that follows the load. Tasks start in the order they were given. With
 * `rest`, a finished task's slot stays taken `rest(ms it ran)` milliseconds more (its promise settles at
 * once): a duty cycle, so tasks take at most about ran / (ran + rest) of the time of their slots.
 */
export class AdaptiveLimit {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly limit: () => number,
    private readonly rest?: (ranMs: number) => number,
  ) {}

  /** Runs `fn` once a slot is free; resolves or rejects with it. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push(() => {
        this.running++;
        const started = performance.now();
        const free = () => {
          this.running--;
          this.next();
        };
        let task: Promise<T>;
        try {
          task = fn();
        } catch (err) {
          task = Promise.reject(err);
        }
        task
          .then(resolve, reject)
          .finally(() => {
            const ms = this.rest ? this.rest(performance.now() - started) : 0;
            if (ms > 0) setTimeout(free, ms).unref();
            else free();
          });
      });
      this.next();
    });
  }

  /** Tasks running now. */
  get active(): number {
    return this.running;
  }

  /** Tasks waiting for a slot. */
  get pending(): number {
    return this.waiting.length;
  }

  private next(): void {
    while (this.waiting.length && this.running < Math.max(1, this.limit())) this.waiting.shift()!();
  }
}
