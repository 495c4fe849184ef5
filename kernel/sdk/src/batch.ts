/** Options of a BatchLoader / WriteBatcher (see BatchLoader). */
export interface BatchOptions {
  /** The most items one flush gets (default 500). */
  maxBatch?: number;
  /** Which errors of a flush of several items are retried item by item (default isDataError). */
  isolate?: (err: unknown) => boolean;
  /** Milliseconds a flush of fewer than maxBatch items waits for more first (default 0). */
  lingerMs?: number;
}

/** True for a PostgreSQL data or constraint error (SQLSTATE class 22 or 23): what one item's values can cause. */
export function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^2[23][0-9A-Z]{3}$/.test(code);
}

/**
 * Group commit for work that arrives one item at a time (a bus handler per message): `load(item)` queues
 * the item and resolves with its result once the `flush` that carried it has finished, or rejects with that
 * flush's error. While a flush is in flight, the items added meanwhile wait and go together into the next
 * one: under load, N reads or writes cost one statement and one round trip; an idle batcher flushes the
 * first item at once (no added latency).
 *
 * `flush` receives the items in the order they were added (at most `maxBatch`, default 500, per call) and
 * answers one result per item, in the same order (an answer of another length rejects the whole batch).
 * It should do its work in one statement (e.g. `SELECT ... WHERE id = ANY($1)`,
 * `INSERT ... SELECT * FROM unnest(...)`); a write should be idempotent, since a caller whose flush failed
 * is told so and may retry (the bus redelivers).
 *
 * One bad item does not fail the others: when a flush of several items throws an error `isolate` accepts
 * (default `isDataError`: a PostgreSQL data or constraint error, SQLSTATE class 22 or 23, which one item's
 * values can cause), each of them is flushed again on its own, in order, so only the items that fail alone
 * are rejected. Other errors (connection, timeout) reject the whole batch at once.
 *
 * `lingerMs` (default 0) trades latency for batch size where nobody waits for the answer (a read model, a
 * bookkeeping row): each flush of fewer than `maxBatch` items first waits that long for more.
 */
export class BatchLoader<T, R> {
  private readonly queue: { item: T; resolve: (r: R) => void; reject: (err: unknown) => void }[] = [];
  private flushing = false;

  private readonly maxBatch: number;
  private readonly isolate: (err: unknown) => boolean;
  private readonly lingerMs: number;

  /** `options`: the largest batch (a number, default 500), or `{maxBatch, isolate, lingerMs}`. */
  constructor(
    private readonly flush: (items: T[]) => Promise<R[]>,
    options: number | BatchOptions = {},
  ) {
    const o = typeof options === 'number' ? { maxBatch: options } : options;
    this.maxBatch = o.maxBatch ?? 500;
    this.isolate = o.isolate ?? isDataError;
    this.lingerMs = o.lingerMs ?? 0;
    if (!Number.isInteger(this.maxBatch) || this.maxBatch < 1) throw new Error(`${new.target.name}: maxBatch must be a positive integer`);
    if (!Number.isFinite(this.lingerMs) || this.lingerMs < 0) throw new Error(`${new.target.name}: lingerMs must be a non-negative number`);
  }

  /** Queues `item`; resolves with its result (see the class docstring). */
  load(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.flushing) void this.drain();
    });
  }

  /** Items waiting for a flush (not counting the ones in flight). */
  get pending(): number {
    return this.queue.length;
  }

  private async run(items: T[]): Promise<R[]> {
    const results = await this.flush(items);
    if (results.length !== items.length) throw new Error(`BatchLoader: flush answered ${results.length} results for ${items.length} items`);
    return results;
  }

  private async drain(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length) {
        if (this.lingerMs > 0 && this.queue.length < this.maxBatch) await new Promise((r) => setTimeout(r, this.lingerMs));
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const results = await this.run(batch.map((b) => b.item));
          for (let i = 0; i < batch.length; i++) batch[i].resolve(results[i]);
        } catch (err) {
          if (batch.length === 1 || !this.isolate(err)) {
            for (const b of batch) b.reject(err);
            continue;
          }
          // Which item failed? Each on its own.
          for (const b of batch) {
            try {
              b.resolve((await this.run([b.item]))[0]);
            } catch (one) {
              b.reject(one);
            }
          }
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}

/**
 * A `BatchLoader` for writes: `add(item)` resolves once the item is written (see BatchLoader); `flush`
 * writes the items and answers nothing.
 */
export class WriteBatcher<T> extends BatchLoader<T, void> {
  constructor(flush: (items: T[]) => Promise<unknown>, options: number | BatchOptions = {}) {
    super(async (items) => {
      await flush(items);
      return new Array<void>(items.length);
    }, options);
  }

  /** Queues `item`; resolves when it is written. */
  add(item: T): Promise<void> {
    return this.load(item);
  }
}
