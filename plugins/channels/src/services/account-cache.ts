import type { FastifyBaseLogger } from 'fastify';
import type { Bus, Channel, Subscription } from '@atendo/sdk';
import { CONNECTION_TOPICS, type ConnectionRef, type ConnectionsService } from '@atendo/plugin-connections/contract';

/** Bus topics that invalidate the cache (published by plugins/connections after commit). */
export const ACCOUNT_CACHE_TOPICS = CONNECTION_TOPICS;

export interface AccountCacheOptions {
  /** Lifetime of a found connection, in milliseconds (default 30 000). */
  ttlMs?: number;
  /** Lifetime of a miss (unknown account id), in milliseconds (default 5 000). */
  missTtlMs?: number;
  /** Entries kept at most; the least recently stored one is evicted first (default 10 000). */
  maxEntries?: number;
  /** Clock in milliseconds (tests). */
  now?: () => number;
}

interface Entry {
  ref: ConnectionRef | undefined;
  expiresAt: number;
}

/**
 * A bounded in-memory cache of the webhook routing lookup `connections.findByExternalAccount(channel,
 * accountId)`: found connections are kept `ttlMs` (30 s), misses `missTtlMs` (5 s), at most `maxEntries`
 * (oldest stored evicted first). `invalidate(id)` drops the entries pointing to connection `id` and every
 * cached miss (a created or re-pointed connection may own an account id that was unknown); every
 * invalidation also bumps a generation so a lookup that was in flight across it does not store its
 * (possibly stale) answer. Lookup errors are not cached and propagate.
 */
export class AccountCache {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly missTtlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  private generation = 0;

  constructor(
    private readonly connections: Pick<ConnectionsService, 'findByExternalAccount'>,
    opts: AccountCacheOptions = {},
  ) {
    this.ttlMs = opts.ttlMs ?? 30_000;
    this.missTtlMs = opts.missTtlMs ?? 5_000;
    this.maxEntries = Math.max(1, opts.maxEntries ?? 10_000);
    this.now = opts.now ?? Date.now;
  }

  /** Entries currently held (expired ones included until touched or evicted). */
  get size(): number {
    return this.entries.size;
  }

  /** The connection of `channel` owning Meta account `accountId` (cached), or undefined when none does. */
  async find(channel: Channel, accountId: string): Promise<ConnectionRef | undefined> {
    const key = `${channel}:${accountId}`;
    const hit = this.entries.get(key);
    if (hit) {
      if (hit.expiresAt > this.now()) return hit.ref;
      this.entries.delete(key);
    }
    const generation = this.generation;
    const ref = await this.connections.findByExternalAccount(channel, accountId);
    if (generation === this.generation) {
      if (this.entries.size >= this.maxEntries) {
        const oldest = this.entries.keys().next();
        if (!oldest.done) this.entries.delete(oldest.value);
      }
      this.entries.set(key, { ref, expiresAt: this.now() + (ref ? this.ttlMs : this.missTtlMs) });
    }
    return ref;
  }

  /** Drops the entries of connection `connectionId` and all cached misses; `undefined` drops everything. */
  invalidate(connectionId?: number): void {
    this.generation++;
    if (connectionId === undefined) {
      this.entries.clear();
      return;
    }
    for (const [key, entry] of this.entries) {
      if (!entry.ref || entry.ref.id === connectionId) this.entries.delete(key);
    }
  }

  /**
   * Subscribes (broadcast: every node gets every event) to `connection.created|updated|deleted` and
   * invalidates on each (`payload.id`; a payload without a numeric id clears the whole cache).
   */
  subscribe(bus: Bus, log: FastifyBaseLogger): Promise<Subscription> {
    return bus.subscribe(
      [...ACCOUNT_CACHE_TOPICS],
      (message) => {
        const id: unknown = message.payload?.id;
        this.invalidate(typeof id === 'number' && Number.isInteger(id) ? id : undefined);
        log.debug({ topic: message.topic, connectionId: id }, 'channels: account cache invalidated');
      },
      { broadcast: true },
    );
  }
}
