import { join } from 'node:path';
import { definePlugin, type PluginDefinition } from '@atendo/sdk';
import { contactMergers, contactsService } from '@atendo/plugin-contacts/contract';
import { conversationHandlers, ticketsService, type ConversationTurn } from '@atendo/plugin-tickets/contract';
import { connectionDeleted, connectionsService, connectionUpdated, type ConnectionBusEvent } from '@atendo/plugin-connections/contract';
import { queuesService } from '@atendo/plugin-queues/contract';
import { filesService } from '@atendo/plugin-files/contract';
import { AUTOMATION, BOT_FILE_REQUESTED, RATING_RECORDED, type AutomationService } from './contract';
import { BotEngine } from './services/engine';
import { AutomationStore } from './services/store';
import { registerJobs } from './services/jobs';
import { botTicket, connectionsPort, contactsPort, HANDLER_ID, queuesPort, ticketsPort } from './services/adapters';
import { subscribeTicketEvents } from './services/events';

/** Options of `createAutomationPlugin`. */
export interface AutomationOptions {
  /** The bot's clock for opening hours and message variables (default: the system clock). Tests fix it. */
  now?: () => Date;
}

/** Queue of the `message.stored` consumer (idle timers); competing consumers across nodes. */
export const TIMERS_QUEUE = 'automation.message-timers';
/** Queue of the `ticket.changed` consumer (NPS, waiting line, router, clean-up). */
export const CHANGES_QUEUE = 'automation.ticket-changes';

/**
 * The automation plugin: the bot that answers customers (greeting and queue menu, option trees, hours,
 * LGPD, NPS, waiting position, router) as the first conversation handler (order 0) of the tickets plugin,
 * and the timers of abandoned, idle and routed tickets on the durable job scheduler. See README.md.
 */
export function createAutomationPlugin(opts: AutomationOptions = {}): PluginDefinition {
  const now = opts.now ?? (() => new Date());
  return definePlugin({
    id: 'automation',
    dependsOn: ['tickets', 'queues', 'connections', 'contacts'],
    // The files plugin, when installed, sends the chatbot's `file` options and queues' `fileListId`.
    optionalDependsOn: ['files'],
    topics: [RATING_RECORDED, BOT_FILE_REQUESTED],
    migrationsDir: join(__dirname, '..', 'migrations'),
    async register(ctx) {
      const store = new AutomationStore(ctx.db);
      const connections = connectionsPort(ctx.services.get(connectionsService));
      const contacts = contactsPort(ctx.services.get(contactsService));
      let engine: BotEngine | undefined;
      const tickets = ticketsPort(ctx.services.get(ticketsService), connections, contacts, async (companyId) => (await engine!.settings(companyId)).timeZone);
      engine = new BotEngine({
        store,
        tickets,
        queues: queuesPort(ctx.services.get(queuesService)),
        connections,
        contacts,
        files: ctx.services.has(filesService) ? ctx.services.get(filesService) : undefined,
        identity: ctx.identity,
        jobs: ctx.jobs,
        bus: ctx.bus,
        log: ctx.log,
        now,
      });
      const bot = engine;

      // One contact per person (issue 33 item 5): a merge of duplicate contacts moves their NPS ratings to the
      // contact kept (ticket-keyed; the reports count them per contact), in the merge's transaction. The
      // out-of-hours marks of the duplicates go with them (the kept contact's own marks stay).
      ctx.extensions.contribute(contactMergers, {
        id: 'automation',
        preview: async (companyId, _targetId, sourceIds) => {
          const [{ n }] = await ctx.db('automationNpsRatings').where({ companyId }).whereIn('contactId', sourceIds).count({ n: '*' });
          return { npsRatings: Number(n) };
        },
        merge: async (companyId, targetId, sourceIds, trx) => {
          const npsRatings = await trx('automationNpsRatings').where({ companyId }).whereIn('contactId', sourceIds).update({ contactId: targetId });
          await trx('automationOutOfHours').where({ companyId }).whereIn('contactId', sourceIds).del();
          return { counts: { npsRatings } };
        },
      });

      ctx.extensions.contribute(conversationHandlers, {
        id: HANDLER_ID,
        order: 0,
        onMessage: (turn: ConversationTurn) =>
          bot.onMessage({
            companyId: turn.companyId,
            ticket: botTicket(turn.companyId, turn.ticket),
            contact: { ...turn.contact, active: true },
            message: { id: turn.message.id, body: turn.message.body, fromMe: false, mediaType: turn.message.mediaType },
          }),
        // The chain's pre-check: the bot's ticket guards on the event's ticket, then whether it still talks there.
        wants: (e) => bot.wants(e.companyId, { ...e.ticket, whatsappId: e.ticket.connectionId }),
        // NPS: an attendant's close becomes status nps when the connection asks for a rating (userRating).
        onClosing: async (companyId, ticket) => ((await bot.wantsRating(botTicket(companyId, ticket))) ? 'rating' : 'close'),
      });

      await registerJobs(ctx.jobs, bot, store);
      const subs = await subscribeTicketEvents({ bus: ctx.bus, log: ctx.log, engine: bot, store, jobs: ctx.jobs, timersQueue: TIMERS_QUEUE, changesQueue: CHANGES_QUEUE });
      const conn = await ctx.bus.subscribe<ConnectionBusEvent>([connectionUpdated, connectionDeleted], (m) => connections.forget(m.payload.companyId, m.payload.id), { broadcast: true });
      ctx.onClose(async () => {
        await conn.unsubscribe();
        for (const s of subs) await s.unsubscribe();
      });

      const service: AutomationService = {
        listRatings: (c, q) => store.listRatings(c, q),
        npsSummary: (c, q) => store.npsSummary(c, q),
        ratingOf: (c, id) => store.ratingOf(c, id),
        botState: async (c, id) => {
          const s = await store.get(c, id);
          return s && s.stage ? { ticketId: s.ticketId, stage: s.stage, queueId: s.queueId, path: s.path, menuUses: s.menuUses, npsUses: s.npsUses } : undefined;
        },
      };
      ctx.services.provide(AUTOMATION, service);
    },
  });
}

