import type { Knex } from 'knex';
import type { FastifyBaseLogger } from 'fastify';
import type { AuditService, Bus, IdentityService, Realtime, ServiceRegistry, UploadService } from '@atendo/sdk';
import { queuesService, type QueuesService } from '@atendo/plugin-queues/contract';
import { contactsService, type ContactsService } from '@atendo/plugin-contacts/contract';
import { connectionsService, type ConnectionsService } from '@atendo/plugin-connections/contract';
import { channelsService, type ChannelsService } from '@atendo/plugin-channels/contract';
import { tagsService, type TagsService } from '@atendo/plugin-tags/contract';
import type { ConversationHandler } from '../contract';

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
  /**
   * Contact profiles from the channels plugin (Messenger and Instagram webhooks carry no names), when that
   * optional dependency is loaded (`optionalDependsOn: ['channels']`).
   */
  profiles?: Pick<ChannelsService, 'fetchProfile'>;
  /** The kernel's upload folder (voice notes are converted from the stored file); absent in some unit tests. */
  uploadsDir?: string;
  /**
   * These deps with the display records cache in front (`DisplayCache`: queues, connections, users' names,
   * tags), set in `register`: the serializers read those records through it. Absent in unit tests that
   * build deps by hand (the serializers then read them fresh).
   */
  display?: TicketsDeps;
  /** The contributed conversation handlers, lowest `order` first (set in `register`). */
  handlers?: () => ConversationHandler[];
  /** The kernel's audit log (issue 34): ticket transitions and message edits/deletions are recorded; absent in unit tests. */
  audit?: AuditService;
}

/** Resolves the services the tickets plugin declared (`dependsOn`, `optionalDependsOn`) once, in `register`. */
export function buildDeps(ctx: { db: Knex; bus: Bus; realtime: Realtime; identity: IdentityService; uploads: UploadService; log: FastifyBaseLogger; services: ServiceRegistry; kernel?: { uploadsDir: string }; audit?: AuditService }): TicketsDeps {
  return {
    db: ctx.db,
    bus: ctx.bus,
    realtime: ctx.realtime,
    identity: ctx.identity,
    uploads: ctx.uploads,
    log: ctx.log,
    queues: ctx.services.get(queuesService),
    contacts: ctx.services.get(contactsService),
    connections: ctx.services.get(connectionsService),
    tags: ctx.services.get(tagsService),
    profiles: ctx.services.has(channelsService) ? ctx.services.get(channelsService) : undefined,
    uploadsDir: ctx.kernel?.uploadsDir,
    audit: ctx.audit,
  };
}
