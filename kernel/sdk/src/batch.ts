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
 */
export class BatchLoader<T, R> {
  private readonly queue: { item: T; resolve: (r: R) => void; reject: (err: unknown) => void }[] = [];
  private flushing = false;

  constructor(
    private readonly flush: (items: T[]) => Promise<R[]>,
    private readonly maxBatch = 500,
  ) {
    if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new Error(`${new.target.name}: maxBatch must be a positive integer`);
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

  private async drain(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const results = await this.flush(batch.map((b) => b.item));
          if (results.length !== batch.length) throw new Error(`BatchLoader: flush answered ${results.length} results for ${batch.length} items`);
          for (let i = 0; i < batch.length; i++) batch[i].resolve(results[i]);
        } catch (err) {
          for (const b of batch) b.reject(err);
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
  constructor(flush: (items: T[]) => Promise<unknown>, maxBatch = 500) {
    super(async (items) => {
      await flush(items);
      return new Array<void>(items.length);
    }, maxBatch);
  }

  /** Queues `item`; resolves when it is written. */
  add(item: T): Promise<void> {
    return this.load(item);
  }
}
