import { join } from 'node:path';
import { definePlugin, referencesService } from '@atendo/sdk';
import { conversationHandlers, ticketClosed, ticketsService } from '@atendo/plugin-tickets/contract';
import { queuesService } from '@atendo/plugin-queues/contract';
import { connectionsService } from '@atendo/plugin-connections/contract';
import { errors, integrationsService, integrationTurnJob, integrationTypes } from './contract';
import { IntegrationsConfig } from './schemas/config';
import { IntegrationStore, toPublic } from './services/store';
import { AllowList, SafeHttp } from './services/safe-http';
import { HANDLER_ID, IntegrationEngine } from './services/engine';
import { builtinTypes } from './types';
import { DialogflowSessions } from './types/dialogflow';
import { testSession } from './services/test-session';
import { integrationRoutes } from './routes/integrations';

/**
 * The integrations plugin: queue integrations (webhook, n8n, Typebot, Dialogflow, and types other plugins
 * contribute to `integrations.types`) taking customers' conversations on `tickets.conversation-handlers`.
 * See README.md. This file is the definition only: wiring, no logic.
 */
export default definePlugin<IntegrationsConfig>({
  id: 'integrations',
  dependsOn: ['tickets'],
  optionalDependsOn: ['queues', 'connections'],
  featureFlag: 'useIntegration',
  errors,
  configSchema: IntegrationsConfig,
  migrationsDir: join(__dirname, '..', 'migrations'),
  async register(ctx) {
    // Other plugins' bodies refer to integrations by id: checked against the caller's company here (issue 37 item 5).
    ctx.services.get(referencesService).provide('integration', {
      code: 'ERR_NO_INTEGRATION_FOUND',
      existing: (companyId, ids) => ctx.db('integrationsQueueIntegrations').where({ companyId }).whereIn('id', ids).pluck('id'),
    });
    const contributions = ctx.extensions.declare(integrationTypes);
    const allow = new AllowList(ctx.config.allowHosts);
    const http = new SafeHttp(allow, ctx.config.timeoutMs);
    ctx.onClose(() => http.close());
    const store = new IntegrationStore(ctx.db, ctx.realtime, ctx.config.pageSize, allow, () => [...contributions.all()]);
    const dialogflow = new DialogflowSessions(ctx.config.dialogflowUrl);
    ctx.onClose(() => dialogflow.close());
    const builtin = builtinTypes(dialogflow);
    const types = () => new Map([...builtin, ...contributions.all()].map((t) => [t.type, t]));
    const engine = new IntegrationEngine({
      db: ctx.db,
      log: ctx.log,
      jobs: ctx.jobs,
      tickets: ctx.services.get(ticketsService),
      queues: ctx.services.has(queuesService) ? ctx.services.get(queuesService) : undefined,
      connections: ctx.services.has(connectionsService) ? ctx.services.get(connectionsService) : undefined,
      uploads: ctx.uploads,
      store,
      http,
      types,
      maxAttempts: ctx.config.maxAttempts,
      maxMediaBytes: ctx.config.maxMediaBytes,
    });
    ctx.services.provide(integrationsService, { get: async (c, id) => { const r = await store.record(c, id); return r ? toPublic(r) : undefined; } });
    ctx.extensions.contribute(conversationHandlers, { id: HANDLER_ID, order: -20, onMessage: (turn) => engine.onMessage(turn), wants: (e) => engine.wants(e) });
    // Attempts are counted per message (INTEGRATIONS_MAX_ATTEMPTS); the job itself may be retried longer.
    ctx.jobs.handle(integrationTurnJob, (run) => engine.runTurn(run), { maxAttempts: 25 });
    await ctx.bus.subscribe(ticketClosed, (m) => engine.forget(m.payload.companyId, m.payload.ticketId), { queue: 'integrations.ticket-closed' });
    await integrationRoutes(ctx.app, { store, test: (companyId, body) => testSession(companyId, body, { store, http, types, dialogflow }) });
  },
});
