/**
 * Group commit for writes that arrive one at a time (a bus handler per message): `add(item)` queues the item
 * and resolves once the `flush` that carried it has finished, or rejects with that flush's error. While a
 * flush is in flight, the items added meanwhile wait and go together into the next one: under load, N writes
 * cost one statement and one round trip; an idle batcher flushes the first item at once (no added latency).
 *
 * `flush` receives the items in the order they were added (at most `maxBatch`, default 500, per call); it
 * should write them in one statement (e.g. `INSERT ... SELECT * FROM unnest(...)`) and be idempotent, since a
 * caller whose flush failed is told so and may retry (the bus redelivers).
 */
export class WriteBatcher<T> {
  private readonly queue: { item: T; resolve: () => void; reject: (err: unknown) => void }[] = [];
  private flushing = false;

  constructor(
    private readonly flush: (items: T[]) => Promise<unknown>,
    private readonly maxBatch = 500,
  ) {
    if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new Error('WriteBatcher: maxBatch must be a positive integer');
  }

  /** Queues `item`; resolves when it is written (see the class docstring). */
  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.flushing) void this.drain();
    });
  }

  /** Items waiting for a flush (not counting the one in flight). */
  get pending(): number {
    return this.queue.length;
  }

  private async drain(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          await this.flush(batch.map((b) => b.item));
          for (const b of batch) b.resolve();
        } catch (err) {
          for (const b of batch) b.reject(err);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}
