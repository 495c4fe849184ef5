import { join } from 'node:path';
import { definePlugin, referencesService } from '@atendo/sdk';
import { conversationHandlers, ticketClosed, ticketsService } from '@atendo/plugin-tickets/contract';
import { queuesService } from '@atendo/plugin-queues/contract';
import { connectionsService } from '@atendo/plugin-connections/contract';
import { errors, promptsService, promptTurnJob } from './contract';
import { PromptsConfig } from './schemas/config';
import { SecretBox } from './services/crypto';
import { PromptStore } from './services/store';
import { HANDLER_ID, PromptEngine } from './services/engine';
import { promptRoutes } from './routes/prompts';

/**
 * The prompts plugin: AI prompts (chat completions through the official `openai` client, any compatible
 * server) answering customers as a handler on `tickets.conversation-handlers`. See README.md.
 */
export default definePlugin<PromptsConfig>({
  id: 'prompts',
  dependsOn: ['tickets'],
  optionalDependsOn: ['queues', 'connections'],
  featureFlag: 'useOpenAi',
  errors,
  configSchema: PromptsConfig,
  migrationsDir: join(__dirname, '..', 'migrations'),
  async register(ctx) {
    // Other plugins' bodies refer to prompts by id: checked against the caller's company here (issue 37 item 5).
    ctx.services.get(referencesService).provide('prompt', {
      code: 'ERR_NO_PROMPT_FOUND',
      existing: (companyId, ids) => ctx.db('promptsPrompts').where({ companyId }).whereIn('id', ids).pluck('id'),
    });
    const box = new SecretBox(ctx.config.encryptionKey, ctx.kernel.dataDir);
    const queues = ctx.services.has(queuesService) ? ctx.services.get(queuesService) : undefined;
    const store = new PromptStore(ctx.db, ctx.realtime, box, queues);
    const engine = new PromptEngine({
      db: ctx.db,
      log: ctx.log,
      jobs: ctx.jobs,
      tickets: ctx.services.get(ticketsService),
      queues,
      connections: ctx.services.has(connectionsService) ? ctx.services.get(connectionsService) : undefined,
      store,
      baseUrl: ctx.config.baseUrl,
      model: ctx.config.model,
      timeoutMs: ctx.config.timeoutMs,
      maxAttempts: ctx.config.maxAttempts,
      handoverPhrase: ctx.config.handoverPhrase,
      uploads: ctx.uploads,
      ttsUrl: ctx.config.ttsUrl,
    });
    ctx.services.provide(promptsService, { get: (c, id) => store.getPublic(c, id) });
    ctx.extensions.contribute(conversationHandlers, { id: HANDLER_ID, order: -10, onMessage: (turn) => engine.onMessage(turn), wants: (e) => engine.wants(e) });
    ctx.jobs.handle(promptTurnJob, (run) => engine.answer(run), { maxAttempts: ctx.config.maxAttempts });
    await ctx.bus.subscribe(ticketClosed, (m) => engine.forget(m.payload.companyId, m.payload.ticketId), { queue: 'prompts.ticket-closed' });
    await promptRoutes(ctx.app, { store });
  },
});
