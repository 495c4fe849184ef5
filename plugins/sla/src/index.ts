import { join } from 'node:path';
import { definePlugin } from '@atendo/sdk';
import { messageStored, ticketChanged, ticketCreated, ticketDeleted, ticketsService, type MessageStoredEvent, type TicketBusEvent, type TicketChangedEvent } from '@atendo/plugin-tickets/contract';
import { queuesService } from '@atendo/plugin-queues/contract';
import { errors, slaBreached, slaCheckJob, slaService, type SlaBreachedEvent } from './contract';
import { PolicyStore } from './services/policies';
import { SlaTracker, wireSla } from './services/tracker';
import { BreachNotifier } from './services/notifier';
import { shares } from './services/stats';
import { slaRoutes } from './routes/sla';

/** Ticket statuses that finish a conversation, and those whose clock runs (a reopening goes from one to the other). */
const FINISHED = new Set(['closed', 'nps']);
const RUNNING = new Set(['pending', 'open', 'lgpd']);

/**
 * The SLA plugin (issue 34 item 5): per-queue targets (`sla_policies`), each ticket's due times (`sla_tickets`,
 * kept from the tickets plugin's events and checked by the durable `sla.check` job), breach notifications to the
 * queue's supervisors (`sla.breached` -> `company-{id}-sla`), and the `sla` service the dashboard reads the
 * shares from. See README.md. Definition only.
 */
export default definePlugin({
  id: 'sla',
  dependsOn: ['tickets', 'queues'],
  topics: [slaBreached],
  errors,
  migrationsDir: join(__dirname, '..', 'migrations'),
  async register(ctx) {
    const tickets = ctx.services.get(ticketsService);
    const queues = ctx.services.get(queuesService);
    const policies = new PolicyStore(ctx.db, queues, ctx.audit);
    const tracker = new SlaTracker({ db: ctx.db, tickets, queues, identity: ctx.identity, policies, jobs: ctx.jobs, bus: ctx.bus, realtime: ctx.realtime });
    const notifier = new BreachNotifier(ctx.db, queues, ctx.identity, ctx.realtime);

    ctx.jobs.handle(slaCheckJob, ({ data }) => tracker.check(data.companyId, data.ticketId));
    const opts = { maxRetries: 5, retryDelayMs: 500 };
    const subs = [
      await ctx.bus.subscribe<TicketBusEvent | TicketChangedEvent>(
        [ticketCreated, ticketChanged],
        ({ payload, publishedAt }) => {
          const change = payload as TicketChangedEvent;
          const reopened = Boolean(change.before && FINISHED.has(change.before.status) && RUNNING.has(change.after.status));
          return tracker.reconcile(payload.companyId, payload.ticketId, new Date(publishedAt), reopened);
        },
        { queue: 'sla.tickets', ...opts },
      ),
      await ctx.bus.subscribe<TicketBusEvent>(ticketDeleted, ({ payload }) => tracker.remove(payload.companyId, payload.ticketId), { queue: 'sla.deletions', ...opts }),
      await ctx.bus.subscribe<MessageStoredEvent>(messageStored, ({ payload }) => tracker.onMessage(payload), { queue: 'sla.messages', prefetch: 64, ...opts }),
      await ctx.bus.subscribe<SlaBreachedEvent>(slaBreached, async ({ payload }) => void (await notifier.notify(payload)), { queue: 'sla.notifications', ...opts }),
    ];
    ctx.onClose(async () => {
      for (const s of subs) await s.unsubscribe();
    });

    ctx.services.provide(slaService, {
      shares: (companyId, range, now) => shares(ctx.db, companyId, range, now),
      ticket: async (companyId, ticketId, now) => {
        const row = await tracker.get(companyId, ticketId);
        return row ? wireSla(row, now) : undefined;
      },
      check: (companyId, ticketId, now) => tracker.check(companyId, ticketId, now),
    });
    await slaRoutes(ctx.app, { policies, tracker, notifier, identity: ctx.identity, queues });
  },
});
