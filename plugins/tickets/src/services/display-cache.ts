import { TtlCache, type IdentityService, type PublicUser } from '@atendo/sdk';
import type { Queue } from '@atendo/plugin-queues/contract';
import type { Connection } from '@atendo/plugin-connections/contract';
import type { Tag } from '@atendo/plugin-tags/contract';
import type { TicketsDeps } from './deps';

/** How long a display record (queue, connections, user name, tag, display setting) is reused, in ms. */
export const RELATED_TTL_MS = 5_000;
const RELATED_CACHE_MAX = 50_000;

/**
 * The records of other plugins that ticket and message payloads show and that change rarely (queues, the
 * company's connections, users' names, tags, the list's lgpdHideNumber setting), cached per company and id
 * for RELATED_TTL_MS (bounded). One instance per kernel serves the lists, the REST answers and every live
 * event, so an inbound message, a bot reply or an ack does not read the same queue and connection rows
 * again for each payload.
 *
 * Kept fresh by the realtime events that announce a change of those records on any node
 * (`company-{id}-user|queue|tag|whatsapp|settings`: the list routes call `clear()`), so the node that made
 * a change never serves the old value; the TTL bounds anything missed. Contacts (names, numbers, tags),
 * ticket tags and the tickets themselves are never cached here.
 */
export class DisplayCache {
  private readonly related = new TtlCache<unknown>(RELATED_TTL_MS, RELATED_CACHE_MAX);
  /** `deps` with the cache in front of `queues.getQueue`, `connections.list`, `identity.listUsers/getCompanySetting` and `tags.getMany`. */
  readonly deps: TicketsDeps;

  constructor(deps: TicketsDeps) {
    const related = <T>(key: string, load: () => Promise<T>) => this.related.get(key, load) as Promise<T>;
    const identity: IdentityService = Object.create(deps.identity) as IdentityService;
    identity.getCompanySetting = (companyId, key) => related(`setting:${companyId}:${key}`, () => deps.identity.getCompanySetting(companyId, key));
    identity.listUsers = async (companyId, ids) => {
      if (!ids) return deps.identity.listUsers(companyId);
      const users = await Promise.all([...new Set(ids)].map((id) => related(`user:${companyId}:${id}`, () => deps.identity.getUser(companyId, id))));
      return users.filter((u): u is PublicUser => u !== undefined);
    };
    this.deps = {
      ...deps,
      display: undefined,
      identity,
      queues: { ...deps.queues, getQueue: (companyId, id) => related<Queue | undefined>(`queue:${companyId}:${id}`, () => deps.queues.getQueue(companyId, id)) },
      connections: { ...deps.connections, list: (companyId) => related<Connection[]>(`connections:${companyId}`, () => deps.connections.list(companyId)) },
      tags: {
        ...deps.tags,
        getMany: async (companyId, ids) => {
          const tags = await Promise.all(
            [...new Set(ids)].map((id) => related<Tag | undefined>(`tag:${companyId}:${id}`, async () => (await deps.tags.getMany(companyId, [id]))[0])),
          );
          return tags.filter((t): t is Tag => t !== undefined).sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || a.id - b.id);
        },
      },
    };
  }

  /** Forgets everything (a related record changed somewhere, or a test wrote rows directly). */
  clear(): void {
    this.related.clear();
  }
}
