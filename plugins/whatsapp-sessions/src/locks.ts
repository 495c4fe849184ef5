import type { Knex } from 'knex';
import type { FastifyBaseLogger } from 'fastify';

/** First key of the two-key advisory locks of WhatsApp sessions ('WASS'); the second key is the connection id. */
export const SESSION_LOCK_CLASS = 0x57415353;

/** The raw pg client knex hands out (`acquireRawConnection`), as far as this module uses it. */
interface RawClient {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  on(event: 'error' | 'end', listener: (err?: Error) => void): void;
  removeAllListeners?(event?: string): void;
}

/**
 * Session ownership across kernel nodes: `pg_try_advisory_lock(SESSION_LOCK_CLASS, connectionId)` taken on
 * ONE dedicated PostgreSQL connection of this node (outside the pool) and held while the session runs, so a
 * second node cannot run the same socket. Locks die with that connection: when it is lost, `onLost` gets
 * the ids this node held (their sessions must stop; they can be taken again on a new connection).
 * Advisory locks are scoped to the database, so several databases on one server do not collide.
 */
export class SessionLocks {
  private client: RawClient | undefined;
  private connecting: Promise<RawClient> | undefined;
  private readonly held = new Set<number>();
  private readonly pending = new Map<number, Promise<boolean>>();
  private closed = false;
  /** Queries on the dedicated connection run one at a time (pg wants no overlapping queries on a client). */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Knex,
    private readonly log: FastifyBaseLogger,
    private readonly onLost: (ids: number[]) => void,
  ) {}

  /** True when this node holds the lock of `connectionId`. */
  holds(connectionId: number): boolean {
    return this.held.has(connectionId);
  }

  /** Takes the lock of `connectionId` if free (or already ours); false when another node holds it. */
  tryAcquire(connectionId: number): Promise<boolean> {
    if (this.held.has(connectionId)) return Promise.resolve(true);
    const inFlight = this.pending.get(connectionId);
    if (inFlight) return inFlight;
    const run = (async () => {
      if (this.closed) return false;
      const client = await this.connection();
      const { rows } = await this.query(client, 'SELECT pg_try_advisory_lock($1::int, $2::int) AS ok', [SESSION_LOCK_CLASS, connectionId]);
      const ok = rows[0]?.ok === true;
      if (ok) this.held.add(connectionId);
      return ok;
    })().finally(() => this.pending.delete(connectionId));
    this.pending.set(connectionId, run);
    return run;
  }

  /** Releases the lock of `connectionId` (no-op when not held). */
  async release(connectionId: number): Promise<void> {
    if (!this.held.delete(connectionId)) return;
    const client = this.client;
    if (!client) return;
    try {
      await this.query(client, 'SELECT pg_advisory_unlock($1::int, $2::int)', [SESSION_LOCK_CLASS, connectionId]);
    } catch (err) {
      this.log.warn({ err, connectionId }, 'whatsapp-sessions: releasing a session lock failed');
    }
  }

  /** True when some other connection (another node) holds the lock of `connectionId`. */
  async heldElsewhere(connectionId: number): Promise<boolean> {
    if (this.held.has(connectionId)) return false;
    const res = await this.db.raw(
      `SELECT EXISTS (
         SELECT 1 FROM pg_locks
          WHERE locktype = 'advisory' AND granted AND classid = ?::int::oid AND objid = ?::int::oid AND objsubid = 2
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
       ) AS held`,
      [SESSION_LOCK_CLASS, connectionId],
    );
    return res.rows[0]?.held === true;
  }

  /** Releases every lock (closes the dedicated connection). */
  async close(): Promise<void> {
    this.closed = true;
    this.held.clear();
    const client = this.client;
    this.client = undefined;
    if (client) {
      client.removeAllListeners?.('end');
      await (this.db.client as { destroyRawConnection(c: unknown): Promise<void> }).destroyRawConnection(client).catch(() => undefined);
    }
  }

  private query(client: RawClient, text: string, values: unknown[]): Promise<{ rows: Record<string, unknown>[] }> {
    const run = this.chain.then(() => client.query(text, values));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private connection(): Promise<RawClient> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client = (await (this.db.client as { acquireRawConnection(): Promise<RawClient> }).acquireRawConnection()) as RawClient;
      const lost = (err?: Error) => {
        if (this.client !== client) return;
        this.client = undefined;
        const ids = [...this.held];
        this.held.clear();
        if (!this.closed) {
          this.log.error({ err, ids }, 'whatsapp-sessions: the lock connection was lost; stopping the sessions it guarded');
          if (ids.length) this.onLost(ids);
        }
      };
      client.on('error', lost);
      client.on('end', () => lost());
      this.client = client;
      return client;
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }
}
