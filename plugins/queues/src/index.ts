import { join } from 'node:path';
import { definePlugin, userExtensions, referencesService } from '@atendo/sdk';
import { errors, queuesService } from './contract';
import { chatbotRoutes } from './routes/chatbots';
import { queuesRoutes } from './routes/queues';
import { seedQueues } from './seed';
import { ChatbotStore } from './services/chatbots';
import { QueueStore } from './services/queues';

/**
 * The queues plugin: owns `queues`, `user_queues` and `chatbots`; serves the `/queue` and `/chatbot`
 * routes; adds `queues` to users (user extension) and saves `queueIds` of the users routes; provides the
 * `queues` service. Contract: `./contract.ts` (`@atendo/plugin-queues/contract`); demo seed: `./seed.ts`.
 */
export default definePlugin({
  id: 'queues',
  errors,
  migrationsDir: join(__dirname, '..', 'migrations'),
  async register(ctx) {
    // Other plugins' bodies refer to queues by id: checked against the caller's company here (issue 37 item 5).
    ctx.services.get(referencesService).provide('queue', {
      code: 'ERR_NO_QUEUE_FOUND',
      existing: (companyId, ids) => ctx.db('queues').where({ companyId }).whereIn('id', ids).pluck('id'),
    });
    const refs = ctx.services.get(referencesService);
    const chatbots = new ChatbotStore(ctx.db, ctx.identity, refs);
    const store = new QueueStore(ctx.db, ctx.identity, chatbots, refs);
    ctx.services.provide(queuesService, store.service());
    ctx.extensions.contribute(userExtensions, store.userExtension());
    await queuesRoutes(ctx.app, { store, realtime: ctx.realtime, audit: ctx.audit });
    await chatbotRoutes(ctx.app, { store, chatbots, realtime: ctx.realtime, audit: ctx.audit });
  },
  seed: seedQueues,
});
