import type { Knex } from 'knex';
import type { FastifyBaseLogger } from 'fastify';
import type { Bus, IdentityService, Realtime, ServiceRegistry, UploadService } from '@atendo/sdk';
import type { QueuesService } from '@atendo/plugin-queues/src/services/queues';
import type { ContactsService } from '@atendo/plugin-contacts';
import type { ConnectionsService } from '@atendo/plugin-connections';
import type { TagsService } from '@atendo/plugin-tags';

/**
 * Everything the tickets plugin's services use, built once in `register`. Other plugins' data is reached
 * only through their declared services (never their tables).
 */
export interface TicketsDeps {
  db: Knex;
  bus: Bus;
  realtime: Realtime;
  identity: IdentityService;
  uploads: UploadService;
  log: FastifyBaseLogger;
  queues: QueuesService;
  contacts: ContactsService;
  connections: ConnectionsService;
  tags: TagsService;
  /** The registry, for optional services looked up at call time (e.g. 'channels' for contact profiles). */
  services?: ServiceRegistry;
}

export function buildDeps(ctx: { db: Knex; bus: Bus; realtime: Realtime; identity: IdentityService; uploads: UploadService; log: FastifyBaseLogger; services: ServiceRegistry }): TicketsDeps {
  return {
    db: ctx.db,
    bus: ctx.bus,
    realtime: ctx.realtime,
    identity: ctx.identity,
    uploads: ctx.uploads,
    log: ctx.log,
    queues: ctx.services.get<QueuesService>('queues'),
    contacts: ctx.services.get<ContactsService>('contacts'),
    connections: ctx.services.get<ConnectionsService>('connections'),
    tags: ctx.services.get<TagsService>('tags'),
    services: ctx.services,
  };
}
