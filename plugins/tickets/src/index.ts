import { join } from 'node:path';
import { audienceResolvers, chatBoxGuards, definePlugin, userExtensions } from '@atendo/sdk';
import { tagCounters } from '@atendo/plugin-tags/contract';
import { conversationHandlers, errors, TICKETS_TOPICS, ticketsService, type ConversationHandler } from './contract';
import { AnswerCache } from './services/answer-cache';
import { TicketsConfig } from './config';
import { buildDeps } from './services/deps';
import { DisplayCache } from './services/display-cache';
import { loadViewer } from './services/core';
import { canSee, viewerAudiences } from './visibility';
import type { TicketRow } from './model';
import { ticketsServiceImpl } from './services/service';
import { ticketRoutes } from './routes/tickets';
import { ticketLogRoutes } from './routes/logs';
import { ticketNoteRoutes } from './routes/notes';
import { ticketTagRoutes } from './routes/ticket-tags';
import { listRoutes } from './routes/list';
import { messageRoutes } from './routes/messages';
import { deliveryRoutes } from './routes/delivery';
import { subscribeMessageResults } from './services/messages';
import { subscribeRatings } from './services/ratings';
import { subscribeInbound } from './services/inbound';
import { subscribeConversation } from './services/conversation';
import { InboundPressure } from './services/pressure';
import { ticketsPerTag } from './services/tag-counter';
import { contactTickets, userTickets } from './services/wire-decorators';
import { contactDecorators, contactMergers } from '@atendo/plugin-contacts/contract';
import { mergeContacts, previewContactMerge } from './services/contact-merge';

/**
 * The tickets plugin: tickets (the full state machine), messages, ticket notes, ticket logs and ticket
 * tags (kanban lanes). See README.md for routes, events and the service it provides.
 */
export default definePlugin<TicketsConfig>({
  id: 'tickets',
  dependsOn: ['queues', 'contacts', 'connections', 'tags'],
  // Contact profiles of Messenger and Instagram senders come from the channels service when it is loaded.
  optionalDependsOn: ['channels'],
  migrationsDir: join(__dirname, '../migrations'),
  configSchema: TicketsConfig,
  errors,
  topics: [...TICKETS_TOPICS],
  async register(ctx) {
    const deps = buildDeps(ctx);
    const display = new DisplayCache(deps);
    deps.display = display.deps;
    // Sockets join the ticket audiences of their user, so live events follow the list's visibility rule.
    ctx.extensions.contribute(audienceResolvers, async (user) => viewerAudiences(await loadViewer(deps, user)));
    // The product family's `joinChatBox(ticketId)`: only a ticket of the caller's company that the caller may see.
    ctx.extensions.contribute(chatBoxGuards, async (user, ticketId) => {
      const t = (await deps.db('tickets').where({ id: ticketId, companyId: user.companyId }).first('id', 'companyId', 'isGroup', 'queueId', 'userId')) as TicketRow | undefined;
      return Boolean(t) && canSee(await loadViewer(deps, user), t!);
    });
    ctx.services.provide(ticketsService, ticketsServiceImpl(deps));
    const handlers = ctx.extensions.declare(conversationHandlers);
    const handlerIds = new Map<string, string>();
    handlers.onContribute((h: ConversationHandler, contributor) => {
      if (!h || typeof h.id !== 'string' || !h.id || !Number.isFinite(h.order) || typeof h.onMessage !== 'function') {
        throw new Error(`plugin ${contributor}: a conversation handler needs an id, a numeric order and onMessage`);
      }
      const other = handlerIds.get(h.id);
      if (other) throw new Error(`conversation handler ${h.id} is contributed by both ${other} and ${contributor}`);
      handlerIds.set(h.id, contributor);
    });
    ctx.extensions.contribute(tagCounters, ticketsPerTag(ctx.db));
    // Keys the product family's client reads on other owners' lists: users[].tickets, contacts[].tickets.
    ctx.extensions.contribute(contactDecorators, contactTickets(ctx.db));
    // One contact per person (issue 33 item 5): a merge of duplicate contacts moves their tickets and messages, in its transaction.
    ctx.extensions.contribute(contactMergers, {
      id: 'tickets',
      preview: (companyId, targetId, sourceIds) => previewContactMerge(deps, companyId, targetId, sourceIds),
      merge: (companyId, targetId, sourceIds, trx) => mergeContacts(deps, companyId, targetId, sourceIds, trx),
    });
    deps.handlers = () => [...handlers.all()].sort((a, b) => a.order - b.order || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    ctx.extensions.contribute(userExtensions, userTickets(deps));
    await ticketRoutes(ctx.app, deps);
    await ticketLogRoutes(ctx.app, deps);
    await ticketNoteRoutes(ctx.app, deps);
    await ticketTagRoutes(ctx.app, deps);
    await listRoutes(ctx.app, deps, new AnswerCache(ctx.config.listCacheMs), display);
    await messageRoutes(ctx.app, deps);
    await deliveryRoutes(ctx.app, deps);
    ctx.onClose(await subscribeMessageResults(deps));
    // A customer's rating (automation's NPS step) shows on the ticket's row: `userRating`.
    ctx.onClose(await subscribeRatings(deps));
    // Ingestion first: the conversation turns run fewer at once while the inbound pipeline is busy.
    const pressure = new InboundPressure();
    ctx.onClose((await subscribeInbound(deps, pressure)).close);
    const conversation = await subscribeConversation(deps, handlers, pressure);
    ctx.onClose(conversation.close);
    ctx.metrics.gauge<'state'>({
      name: 'atendo_conversation_turns',
      help: 'Conversation turns (the bot and other handlers answering) of this node: running, or waiting for a slot (fewer run while the inbound pipeline is busy)',
      labelNames: ['state'],
      collect: (g) => {
        const n = conversation.chain.turnCounts();
        g.set({ state: 'running' }, n.running);
        g.set({ state: 'waiting' }, n.waiting);
      },
    });
    ctx.metrics.gauge({
      name: 'atendo_inbound_busy',
      help: '1 while the inbound pipeline of this node counts as busy (4 or more deliveries at once, and 30 ms after), 0 otherwise',
      collect: (g) => g.set({}, pressure.busy() ? 1 : 0),
    });
  },
});
