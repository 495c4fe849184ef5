import type { FastifyBaseLogger } from 'fastify';
import type { Bus, Jobs, Subscription } from '@atendo/sdk';
import { messageStored, ticketChanged, type MessageStoredEvent, type TicketChangedEvent } from '@atendo/plugin-tickets/contract';
import type { BotEngine } from './engine';
import { JOBS } from './jobs';
import type { AutomationStore } from './store';

/**
 * The bot's bus consumers (competing consumers: each event is handled by one node):
 * - `message.stored` (queue `timersQueue`): restarts the ticket's idle timers (`BotEngine.onStored`);
 * - `ticket.changed` (queue `changesQueue`): a ticket put in status `nps` gets the rating question; a
 *   closed ticket loses its timers and bot state (a rating in progress keeps its own); a ticket leaving
 *   a queue's waiting line moves the others up (positions); a ticket joining the line of a queue with
 *   `ativarRoteador` plans a router run.
 */
export async function subscribeTicketEvents(d: {
  bus: Bus;
  log: FastifyBaseLogger;
  engine: BotEngine;
  store: AutomationStore;
  jobs: Jobs;
  timersQueue: string;
  changesQueue: string;
}): Promise<Subscription[]> {
  const stored = await d.bus.subscribe<MessageStoredEvent>(
    messageStored,
    async ({ payload: m }) => {
      if (m.isPrivate) return;
      await d.engine.onStored(m.companyId, m.ticketId, m.fromMe, m.ticket);
    },
    { queue: d.timersQueue, maxRetries: 3, retryDelayMs: 500 },
  );

  const changed = await d.bus.subscribe<TicketChangedEvent>(
    ticketChanged,
    async ({ payload: e }) => {
      const { companyId, ticketId, before, after } = e;
      if (after.status === 'nps' && before.status !== 'nps') await d.engine.startRating(companyId, ticketId);
      if (after.status === 'closed') {
        for (const [job, key] of [
          [JOBS.botTimeout, `bot:${ticketId}`],
          [JOBS.expire, `expire:${ticketId}`],
          [JOBS.inactive, `inactive:${ticketId}`],
          [JOBS.autoClose, `autoclose:${ticketId}`],
          [JOBS.npsExpire, `nps:${ticketId}`],
        ] as const) {
          await d.jobs.cancel(job, key);
        }
        await d.store.forget(companyId, ticketId);
      }
      const waited = before.status === 'pending' && before.userId === null && before.queueId !== null;
      const waits = after.status === 'pending' && after.userId === null && after.queueId !== null;
      if (waited && (!waits || after.queueId !== before.queueId)) await d.engine.queueMoved(companyId, before.queueId!);
      if (waits && (!waited || after.queueId !== before.queueId) && e.by.kind !== 'bot') await d.engine.queueJoined(companyId, after.queueId!);
    },
    { queue: d.changesQueue, maxRetries: 3, retryDelayMs: 500 },
  );
  return [stored, changed];
}
