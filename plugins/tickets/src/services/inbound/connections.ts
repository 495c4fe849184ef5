import { PermanentError, type Envelope } from '@atendo/sdk';
import type { Connection } from '@atendo/plugin-connections/contract';
import type { TicketsDeps } from '../deps';

/** How long a connection lookup is cached (also invalidated by `connection.updated` / `connection.deleted`). */
const CONNECTION_TTL_MS = 30_000;

/**
 * Connection lookups of the hot path, cached per process for 30 s and dropped on `connection.updated` /
 * `connection.deleted` (broadcast, so every node forgets). Concurrent misses share one lookup.
 */
export class ConnectionCache {
  private readonly entries = new Map<string, { at: number; value: Promise<Connection | undefined> }>();

  constructor(private readonly deps: TicketsDeps) {}

  get(companyId: number, id: number): Promise<Connection | undefined> {
    const key = `${companyId}:${id}`;
    const hit = this.entries.get(key);
    if (hit && Date.now() - hit.at < CONNECTION_TTL_MS) return hit.value;
    const value = this.deps.connections.get(companyId, id).then(
      (c) => {
        if (!c) this.entries.delete(key);
        return c;
      },
      (err: unknown) => {
        this.entries.delete(key);
        throw err;
      },
    );
    this.entries.set(key, { at: Date.now(), value });
    return value;
  }

  invalidate(companyId: number, id: number): void {
    this.entries.delete(`${companyId}:${id}`);
  }

  /**
   * The connection an envelope names: PermanentError when it is not the company's, or is of another
   * channel (dead-lettered at once).
   */
  async of(env: Envelope): Promise<Connection> {
    const conn = await this.get(env.companyId, env.connectionId);
    if (!conn) throw new PermanentError(`unknown connection ${env.connectionId} of company ${env.companyId}`);
    if (conn.channel !== env.channel) throw new PermanentError(`connection ${env.connectionId} is not a ${env.channel} connection`);
    return conn;
  }
}
