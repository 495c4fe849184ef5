import type { Knex } from 'knex';

/** A window's state after a hit or a peek: hits counted so far and milliseconds until the window ends. */
export interface WindowState {
  count: number;
  ttlMs: number;
}

type Callback = (err: Error | null, res?: { current: number; ttl: number }) => void;

/**
 * Client-keyed limits counted in PostgreSQL (table `rate_limits`), so every kernel node sees the same counts:
 * two nodes behind one load balancer do not double an allowance, and a restart forgets nothing.
 *
 * - `hit(key, windowMs)`: one more hit in the key's window; a window that ended starts again at 1 (fixed
 *   window, ends `windowMs` after its first hit). With `slide: true` each hit moves the end to `windowMs`
 *   from now (the failed-login lockout: it lasts a window after the last failure).
 * - `peek(key)`: the live window without counting; `reset(key)`: forgets it.
 * - `fastifyStore()`: the same counts as an `@fastify/rate-limit` store (option `store`), so routes declare
 *   `config: {rateLimit: {max, timeWindow}}` and are limited across the cluster. Keys are prefixed by the
 *   route (or its `groupId`), so two routes never share an allowance by accident.
 *
 * Each call is one statement (an upsert or a select) on the primary key. Ended windows are deleted by the
 * recurring job `kernel.rate-limits-sweep` (routes/auth.ts).
 */
export class RateLimits {
  constructor(private readonly db: Knex) {}

  /** Counts one hit for `key` (at most 400 characters; longer keys are cut) and answers the window's state. */
  async hit(key: string, windowMs: number, opts: { slide?: boolean } = {}): Promise<WindowState> {
    const ms = Math.max(1, Math.round(windowMs));
    const until = opts.slide ? 'excluded.until' : 'CASE WHEN rate_limits.until > now() THEN rate_limits.until ELSE excluded.until END';
    const { rows } = await this.db.raw(
      `INSERT INTO rate_limits (key, count, until) VALUES (?, 1, now() + ?::int * interval '1 millisecond')
       ON CONFLICT (key) DO UPDATE SET count = CASE WHEN rate_limits.until > now() THEN rate_limits.count + 1 ELSE 1 END, until = ${until}
       RETURNING count, greatest(0, ceil(extract(epoch FROM until - now()) * 1000))::float8 AS ttl_ms`,
      [key.slice(0, 400), ms],
    );
    return { count: Number(rows[0].count), ttlMs: Number(rows[0].ttl_ms) };
  }

  /** The live window of `key` (count 0 when there is none), without counting. */
  async peek(key: string): Promise<WindowState> {
    const row = await this.db('rateLimits')
      .where({ key: key.slice(0, 400) })
      .where('until', '>', this.db.fn.now())
      .first('count', this.db.raw('greatest(0, ceil(extract(epoch FROM until - now()) * 1000))::float8 AS ttl_ms'));
    return row ? { count: Number(row.count), ttlMs: Number(row.ttlMs) } : { count: 0, ttlMs: 0 };
  }

  /** Forgets the window of `key`. */
  async reset(key: string): Promise<void> {
    await this.db('rateLimits').where({ key: key.slice(0, 400) }).delete();
  }

  /** Deletes every ended window (the sweep job). Answers how many rows went. */
  async sweep(): Promise<number> {
    return this.db('rateLimits').where('until', '<=', this.db.fn.now()).delete();
  }

  /**
   * The class `@fastify/rate-limit` instantiates from its `store` option (`new Store(globalParams)`, then
   * `child(routeParams)` per limited route). Its callbacks get `{current, ttl}` in ms.
   */
  fastifyStore(): new (params: unknown) => unknown {
    const limits = this;
    class PgStore {
      constructor(_params: unknown, private readonly prefix = 'rl:') {}

      incr(key: string, cb: Callback, timeWindow: number): void {
        limits.hit(this.prefix + key, timeWindow).then((s) => cb(null, { current: s.count, ttl: s.ttlMs }), (err: Error) => cb(err));
      }

      read(key: string, cb: Callback): void {
        limits.peek(this.prefix + key).then((s) => cb(null, { current: s.count, ttl: s.ttlMs }), (err: Error) => cb(err));
      }

      child(routeParams: { groupId?: string; routeInfo?: { method?: string | string[]; url?: string } }): PgStore {
        const route = routeParams.groupId ?? `${[routeParams.routeInfo?.method ?? ''].flat().join(',')} ${routeParams.routeInfo?.url ?? ''}`;
        return new PgStore(routeParams, `rl:${route}|`);
      }
    }
    return PgStore;
  }
}
