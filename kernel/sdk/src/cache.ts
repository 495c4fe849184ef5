/**
 * A small per-process read cache of promises, for records a hot path reads again and again and that change
 * rarely (a queue's name, a company's connections, a setting). The owner of the cache decides how it is
 * kept fresh: entries expire after `ttlMs`, and `delete`/`deletePrefix`/`clear` forget them at once (call
 * them from the bus or realtime events that announce a change, so other nodes forget too).
 *
 * - Concurrent misses of one key share one load (one round trip, whatever the number of callers).
 * - A load that rejects is forgotten: the next call loads again.
 * - At most `max` entries: the oldest insertion is evicted first (Map order), so memory stays bounded.
 *
 * Times are milliseconds from `Date.now()`.
 */
export class TtlCache<V> {
  private readonly map = new Map<string, { value: Promise<V>; at: number }>();

  /** @param ttlMs how long an entry is served, in ms; @param max the most entries kept (>= 1). */
  constructor(
    private readonly ttlMs: number,
    private readonly max = 10_000,
  ) {}

  /** The cached value of `key`, or the result of `load()` (stored for `ttlMs`). */
  get(key: string, load: () => Promise<V>): Promise<V> {
    const now = Date.now();
    const hit = this.map.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    const value = load();
    const entry = { value, at: now };
    this.map.delete(key);
    if (this.map.size >= this.max) {
      const oldest = this.map.keys().next().value;
      if (oldest !== undefined) this.map.delete(oldest);
    }
    this.map.set(key, entry);
    value.catch(() => {
      if (this.map.get(key) === entry) this.map.delete(key);
    });
    return value;
  }

  /** Forgets one key. */
  delete(key: string): void {
    this.map.delete(key);
  }

  /** Forgets every key that starts with `prefix` (for example all entries of one company, `"12:"`). */
  deletePrefix(prefix: string): void {
    for (const k of this.map.keys()) if (k.startsWith(prefix)) this.map.delete(k);
  }

  /** Forgets everything. */
  clear(): void {
    this.map.clear();
  }

  /** The number of entries held (expired ones included until they are replaced or evicted). */
  get size(): number {
    return this.map.size;
  }
}
