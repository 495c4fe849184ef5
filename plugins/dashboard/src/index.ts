import { join } from 'node:path';
import { definePlugin } from '@atendo/sdk';
import { messageStored, ticketChanged, ticketCreated, ticketDeleted, ticketsService, ticketUpdated, ticketTransferred, ticketClosed } from '@atendo/plugin-tickets/contract';
import { AUTOMATION, RATING_RECORDED } from '@atendo/plugin-automation/contract';
import { queuesService } from '@atendo/plugin-queues/contract';
import { connectionsService } from '@atendo/plugin-connections/contract';
import { contactsService } from '@atendo/plugin-contacts/contract';
import { slaService } from '@atendo/plugin-sla/contract';
import { dashboardChanged, dashboardService, errors } from './contract';
import { ReadModel } from './services/read-model';
import { DashboardStats } from './services/stats';
import { Rollups } from './services/rollups';
import { subscribeEvents } from './services/events';
import { dashboardRoutes } from './routes/dashboard';

/**
 * The dashboard plugin: keeps its own copy of the tickets it counts (`dashboard_tickets`, fed by the
 * tickets plugin's topics and backfilled through its service, ratings from the automation plugin) and
 * serves `GET /dashboard*`, `GET /ticket/reports` and `GET /ticket/reports/research`. See README.md. Definition only.
 */
export default definePlugin({
  id: 'dashboard',
  dependsOn: ['tickets', 'queues', 'connections', 'contacts'],
  optionalDependsOn: ['automation', 'sla'],
  topics: [dashboardChanged],
  errors,
  migrationsDir: join(__dirname, '..', 'migrations'),
  async register(ctx) {
    const tickets = ctx.services.get(ticketsService);
    const hasAutomation = ctx.services.has(AUTOMATION);
    const model = new ReadModel(
      ctx.db,
      tickets,
      () => (hasAutomation ? ctx.services.get(AUTOMATION) : undefined),
      // A cache invalidation: best effort (every node's cache also expires on its own).
      (companyId) => ctx.bus.publish(dashboardChanged, { companyId }, { volatile: true }),
    );
    const stats = new DashboardStats(ctx.db, model, new Rollups(ctx.db), ctx.identity, ctx.services.get(queuesService), ctx.services.get(connectionsService), ctx.services.get(contactsService));
    // Every node drops a company's cached figures when its read model changed (written by whichever node).
    const forget = await ctx.bus.subscribe(dashboardChanged, ({ payload }) => stats.forget(payload.companyId), { broadcast: true });
    const subs = await subscribeEvents({
      bus: ctx.bus,
      model,
      ticketTopics: [ticketCreated, ticketUpdated, ticketTransferred, ticketClosed, ticketDeleted, ticketChanged],
      messageStored,
      ratingRecorded: RATING_RECORDED,
    });
    ctx.onClose(async () => {
      await forget.unsubscribe();
      for (const s of subs) await s.unsubscribe();
    });
    // Issue 34: the data subject's anonymization empties this plugin's copies of the person's texts.
    ctx.services.provide(dashboardService, { anonymizeContact: (companyId, who, trx) => model.anonymizeContact(companyId, who, trx) });
    await dashboardRoutes(ctx.app, {
      stats,
      queues: ctx.services.get(queuesService),
      identity: ctx.identity,
      sla: ctx.services.has(slaService) ? ctx.services.get(slaService) : undefined,
    });
  },
});
