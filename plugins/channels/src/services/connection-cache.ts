import type { FastifyBaseLogger } from 'fastify';
import type { Bus, Subscription } from '@atendo/sdk';
import { CONNECTION_TOPICS, type Connection, type ConnectionSecrets, type ConnectionsService } from '@atendo/plugin-connections/contract';

type WithSecrets = Connection & ConnectionSecrets;

/**
 * A short-lived cache of `connections.getWithSecrets` for the outbound consumer: a bulk send (a campaign)
 * through one connection looks it up once every `ttlMs` (5 s) instead of three queries per message.
 * `connection.created|updated|deleted` (broadcast: every node) drop the connection's entry at once, so a new
 * token is used from the next send; a session status change that publishes nothing is seen within `ttlMs`.
 * Misses and errors are not cached. At most `maxEntries` entries (oldest stored evicted first).
 */
export class ConnectionCache {
  private readonly entries = new Map<string, { conn: WithSecrets; expiresAt: number }>();
  private generation = 0;

  constructor(
    private readonly connections: Pick<ConnectionsService, 'getWithSecrets'>,
    private readonly ttlMs = 5_000,
    private readonly maxEntries = 1_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The connection with its secrets (cached), or undefined when it does not exist in that company. */
  async get(companyId: number, id: number): Promise<WithSecrets | undefined> {
    const key = `${companyId}:${id}`;
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > this.now()) return hit.conn;
    if (hit) this.entries.delete(key);
    const generation = this.generation;
    const conn = await this.connections.getWithSecrets(companyId, id);
    if (conn && generation === this.generation) {
      if (this.entries.size >= this.maxEntries) {
        const oldest = this.entries.keys().next();
        if (!oldest.done) this.entries.delete(oldest.value);
      }
      this.entries.set(key, { conn, expiresAt: this.now() + this.ttlMs });
    }
    return conn;
  }

  /** Drops connection `id` (every company key ending in it), or everything. */
  invalidate(id?: number): void {
    this.generation++;
    if (id === undefined) {
      this.entries.clear();
      return;
    }
    for (const key of this.entries.keys()) if (key.endsWith(`:${id}`)) this.entries.delete(key);
  }

  subscribe(bus: Bus, log: FastifyBaseLogger): Promise<Subscription> {
    return bus.subscribe(
      [...CONNECTION_TOPICS],
      (message) => {
        const id: unknown = message.payload?.id;
        this.invalidate(typeof id === 'number' && Number.isInteger(id) ? id : undefined);
        log.debug({ topic: message.topic, connectionId: id }, 'channels: connection cache invalidated');
      },
      { broadcast: true },
    );
  }
}
