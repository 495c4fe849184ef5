import { join } from 'node:path';
import { definePlugin, messageFailed, referencesService, type MessageFailedEvent } from '@atendo/sdk';
import { connectionsService, connectionUpdated, type ConnectionBusEvent } from '@atendo/plugin-connections/contract';
import { contactsService } from '@atendo/plugin-contacts/contract';
import { conversationHandlers, ticketsService } from '@atendo/plugin-tickets/contract';
import { campaignsService, campaignStatusChanged, CAMPAIGNS_FEATURE, errors, numberCheckers } from './contract';
import { CampaignsDataSubject } from './services/data-subject';
import { CampaignsConfig } from './schemas/config';
import { campaignRoutes } from './routes';
import { CampaignStore } from './services/campaigns';
import { Confirmations, HANDLER_ORDER } from './services/confirmation';
import { Dispatcher, SENDER_ID } from './services/dispatcher';
import { registerJobs } from './services/jobs';
import { ListStore } from './services/lists';
import { SettingsStore } from './services/settings';
import { resumePaused } from './services/resume';

/**
 * The campaigns plugin (issue 14; spec 3-campaigns-and-tools.md "Contact lists", "Contact list items",
 * "Campaigns list", "Campaign report", "Campaign settings"): contact lists imported from spreadsheets, bulk
 * campaigns with five variants and optional confirmation, the paced durable dispatcher on `ctx.jobs`
 * sending through the tickets service, and the campaign settings; every route gated by `useCampaigns`.
 * See README.md. This file is the definition only: wiring, no logic.
 */
export default definePlugin<CampaignsConfig>({
  id: 'campaigns',
  dependsOn: ['tickets', 'contacts', 'connections'],
  featureFlag: CAMPAIGNS_FEATURE,
  topics: [campaignStatusChanged],
  errors,
  configSchema: CampaignsConfig,
  migrationsDir: join(__dirname, '..', 'migrations'),
  async register(ctx) {
    const tickets = ctx.services.get(ticketsService);
    if (!tickets.sendToContacts) throw new Error('campaigns: the tickets service has no sendToContacts');
    const connections = ctx.services.get(connectionsService);
    const checkers = ctx.extensions.declare(numberCheckers);
    const settings = new SettingsStore(ctx.db, ctx.realtime);
    const lists = new ListStore(ctx.db, ctx.realtime, ctx.jobs, ctx.log, connections, () => checkers.all(), ctx.config.importMaxRows);
    const campaigns = new CampaignStore({ db: ctx.db, realtime: ctx.realtime, bus: ctx.bus, jobs: ctx.jobs, uploads: ctx.uploads, identity: ctx.identity, connections, contacts: ctx.services.get(contactsService), refs: ctx.services.get(referencesService), log: ctx.log });
    const dispatcher = new Dispatcher({ db: ctx.db, jobs: ctx.jobs, tickets, contacts: ctx.services.get(contactsService), connections, settings, campaigns, log: ctx.log, batchMax: ctx.config.batchSize, runBudgetMs: ctx.config.runBudgetMs, confirmationTtlMs: ctx.config.confirmationTtlSeconds * 1000 });
    const confirmations = new Confirmations({ db: ctx.db, tickets, settings, campaigns, dispatcher, log: ctx.log });

    ctx.extensions.contribute(conversationHandlers, { id: SENDER_ID, order: HANDLER_ORDER, onMessage: (turn) => confirmations.onMessage(turn), wants: (e) => confirmations.wants(e) });
    await registerJobs({ jobs: ctx.jobs, db: ctx.db, log: ctx.log, campaigns, dispatcher, lists });
    const failed = await ctx.bus.subscribe<MessageFailedEvent>(messageFailed, ({ payload }) => confirmations.onFailed(payload), { queue: 'campaigns.message-failed', maxRetries: 3, retryDelayMs: 500 });
    const reconnected = await ctx.bus.subscribe<ConnectionBusEvent>(connectionUpdated, ({ payload }) => resumePaused(ctx.db, ctx.jobs, payload.companyId), { queue: 'campaigns.connection-updated', maxRetries: 3, retryDelayMs: 500 });
    // Session status changes (CONNECTED again) reach every node as the `company-{id}-whatsappSession` push.
    const stopObserving = ctx.realtime.observe((companyId, event) => {
      if (companyId !== null && event === `company-${companyId}-whatsappSession`) void resumePaused(ctx.db, ctx.jobs, companyId).catch((err: unknown) => ctx.log.warn({ err }, 'campaigns: resume failed'));
    });
    ctx.onClose(async () => {
      stopObserving();
      await failed.unsubscribe();
      await reconnected.unsubscribe();
    });
    // Issue 34: the data subject's export and anonymization reach these tables through this service.
    ctx.services.provide(campaignsService, new CampaignsDataSubject(ctx.db, lists));
    await campaignRoutes(ctx.app, { lists, campaigns, settings, identity: ctx.identity, audit: ctx.audit });
  },
});
