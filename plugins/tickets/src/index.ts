import { join } from 'node:path';
import { definePlugin } from '@atendo/sdk';
import { AnswerCache, listCacheTtl } from './services/answer-cache';
import { buildDeps } from './services/deps';
import { loadViewer } from './services/core';
import { viewerAudiences } from './visibility';
import { ticketStateService } from './services/tickets';
import { ticketRoutes } from './routes/tickets';
import { ticketLogRoutes } from './routes/logs';
import { ticketNoteRoutes } from './routes/notes';
import { ticketTagRoutes } from './routes/ticket-tags';
import { listRoutes } from './routes/list';
import { messageRoutes } from './routes/messages';
import { subscribeMessageResults } from './services/messages';
import { subscribeInbound } from './services/inbound';

/**
 * The tickets plugin: tickets (the full state machine), messages, ticket notes, ticket logs and ticket
 * tags (kanban lanes). See README.md for routes, events and the service it provides.
 */
export default definePlugin({
  id: 'tickets',
  dependsOn: ['queues', 'contacts', 'connections', 'tags'],
  migrationsDir: join(__dirname, '../migrations'),
  async register(ctx) {
    const deps = buildDeps(ctx);
    // Sockets join the ticket audiences of their user, so live events follow the list's visibility rule.
    ctx.realtime.registerAudienceResolver(async (user) => viewerAudiences(await loadViewer(deps, user)));
    void deps;
    ctx.services.provide('tickets', { ...ticketStateService(deps) });
    await ticketRoutes(ctx.app, deps);
    await ticketLogRoutes(ctx.app, deps);
    await ticketNoteRoutes(ctx.app, deps);
    await ticketTagRoutes(ctx.app, deps);
    await listRoutes(ctx.app, deps, new AnswerCache(listCacheTtl(ctx.config.listCacheMs)));
    await messageRoutes(ctx.app, deps);
    ctx.onClose(await subscribeMessageResults(deps));
    ctx.onClose((await subscribeInbound(deps)).close);
  },
});
