import { createHash } from 'node:crypto';

/**
 * One answer: the serialized JSON body and, when it was stored (so a later request can be answered 304),
 * its strong ETag (a hash of the body). An answer that is not kept gets no ETag (nothing to hash).
 */
export interface CachedAnswer {
  body: Buffer;
  etag?: string;
}

interface Entry extends CachedAnswer {
  /** The company's version when the computation started. */
  version: number;
  at: number;
}

/** Defaults of AnswerCache: entries live at most 10 s; their bodies take at most 32 MiB (about 650 pages of 50 kB; LRU). */
export const ANSWER_TTL_MS = 10_000;
export const ANSWER_CACHE_MAX_BYTES = 32 * 1024 * 1024;

/**
 * A per-node cache of serialized list answers (GET /tickets, GET /ticket/kanban), keyed by the caller and
 * the normalized query, and invalidated per company by version:
 *
 * - every company has version counters on this node: one for the whole company and one per scope (the
 *   tickets' socket audiences: `tickets:all`, `tickets:queue:3`, ...). The tickets plugin bumps them on
 *   every real-time event of the company this node emits (synchronously, right after the commit that
 *   caused it, before the route answers) or receives from the bus (events emitted by other nodes): ticket
 *   and message events bump the audiences they are pushed to (they change the lists of those viewers
 *   only), every other event (contacts, tags, queues, users, connections, settings, ...) the company;
 * - an answer is stored with the version read *before* its queries ran and is served only while the
 *   company's version is still that one: an answer computed from rows read before a change can never be
 *   served after the change is known here (at worst it is computed, answered once, and dropped);
 * - concurrent requests for the same key and version share one computation (50 agents refreshing the
 *   same tab after one event cost one set of queries);
 * - entries also expire after `ttlMs` (a safety net for an event lost between nodes); their bodies take at
 *   most `maxBytes` bytes, least recently used evicted first.
 *
 * Staleness: on the node that made a change, none; on other nodes, the bus delivery delay of its event
 * (the same delay as the sockets' live update).
 */
export class AnswerCache {
  private readonly versions = new Map<number, { all: number; scopes: Map<string, number> }>();
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<CachedAnswer>>();
  /** Sum of the stored bodies' lengths. */
  private bytes = 0;
  hits = 0;
  misses = 0;

  constructor(
    readonly ttlMs = ANSWER_TTL_MS,
    private readonly maxBytes = ANSWER_CACHE_MAX_BYTES,
  ) {}

  /**
   * Forgets the answers of `companyId` on this node: all of them, or (`scopes`) only those computed for
   * callers in one of these scopes (the tickets' socket audiences: a ticket event changes the lists of the
   * viewers it is pushed to, and no others).
   */
  bump(companyId: number, scopes?: string[]): void {
    let v = this.versions.get(companyId);
    if (!v) this.versions.set(companyId, (v = { all: 0, scopes: new Map() }));
    if (!scopes) v.all++;
    else for (const s of scopes) v.scopes.set(s, (v.scopes.get(s) ?? 0) + 1);
  }

  /**
   * The version of the answers of callers in `scopes`: the company's counter plus those of the scopes.
   * Every counter only grows, so the sum changes exactly when one of them did. Other caches of list
   * parts (the list service's counts) validate their entries with it too.
   */
  version(companyId: number, scopes: readonly string[]): number {
    const v = this.versions.get(companyId);
    if (!v) return 0;
    let n = v.all;
    for (const s of scopes) n += v.scopes.get(s) ?? 0;
    return n;
  }

  /**
   * The answer of `key` (which must identify the company, the caller's visibility and the query) for
   * `companyId`, for a caller in `scopes` (see bump): cached when still valid, else `compute()` (its JSON text or bytes) run once for all concurrent
   * callers. A failed computation is not cached and rejects every waiting caller.
   */
  async get(companyId: number, key: string, scopes: readonly string[], compute: () => Promise<string | Buffer | ArrayBuffer>): Promise<CachedAnswer> {
    const version = this.version(companyId, scopes);
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.version === version && now - hit.at < this.ttlMs) {
      // LRU: move to the newest end.
      this.entries.delete(key);
      this.entries.set(key, hit);
      this.hits++;
      return hit;
    }
    const flightKey = `${version}\u0000${key}`;
    const running = this.inflight.get(flightKey);
    if (running) {
      this.hits++;
      return running;
    }
    this.misses++;
    const p = compute().then((json) => {
      const body = typeof json === 'string' ? Buffer.from(json) : Buffer.isBuffer(json) ? json : Buffer.from(json);
      const entry: Entry = { body, version, at: now };
      if (this.ttlMs > 0 && body.length <= this.maxBytes && this.version(companyId, scopes) === version) {
        entry.etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
        this.remove(key);
        for (const oldest of this.entries.keys()) {
          if (this.bytes + body.length <= this.maxBytes) break;
          this.remove(oldest);
        }
        this.entries.set(key, entry);
        this.bytes += body.length;
      }
      return entry;
    });
    this.inflight.set(flightKey, p);
    try {
      return await p;
    } finally {
      this.inflight.delete(flightKey);
    }
  }

  private remove(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.bytes -= e.body.length;
  }

  /** Stored answers. */
  get size(): number {
    return this.entries.size;
  }

  /** Bytes of the stored answers' bodies. */
  get storedBytes(): number {
    return this.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}
