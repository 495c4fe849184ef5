import { defineJob, type Jobs } from '@atendo/sdk';
import type { BotEngine } from './engine';
import type { AutomationStore } from './store';

/** A timer of one ticket. */
export interface TicketJob {
  companyId: number;
  ticketId: number;
}

/** A timer of one queue. */
export interface QueueJob {
  companyId: number;
  queueId: number;
}

/**
 * The plugin's durable timers (`ctx.jobs`: stored in PostgreSQL, run once across nodes, survive restarts).
 * Keys make each one a replaceable singleton per ticket or queue (a new message moves the timer).
 */
export const JOBS = {
  /** `timeUseBotQueues` after the bot's last prompt (key `bot:<ticketId>`). */
  botTimeout: defineJob<TicketJob>('automation.bot-timeout'),
  /** `expiresTicketNPS` after the rating question (key `nps:<ticketId>`). */
  npsExpire: defineJob<TicketJob>('automation.nps-expire'),
  /** `expiresTicket` of idleness (key `expire:<ticketId>`). */
  expire: defineJob<TicketJob>('automation.expire'),
  /** `timeInactiveMessage` after our message (key `inactive:<ticketId>`). */
  inactive: defineJob<TicketJob>('automation.inactive'),
  /** The company's `hoursCloseTicketsAuto` (key `autoclose:<ticketId>`). */
  autoClose: defineJob<TicketJob>('automation.auto-close'),
  /** A router run of a queue every `tempoRoteador` minutes while tickets wait (key `router:<companyId>:<queueId>`). */
  router: defineJob<QueueJob>('automation.router'),
  /** Waiting positions of a queue after it moved (key `position:<companyId>:<queueId>`). */
  positions: defineJob<QueueJob>('automation.positions'),
  /** Daily purge of old processed-message ids. */
  purge: defineJob<Record<string, never>>('automation.purge'),
} as const;

/** Registers the handlers and the daily purge. Call during `register`. */
export async function registerJobs(jobs: Jobs, engine: BotEngine, store: AutomationStore): Promise<void> {
  jobs.handle(JOBS.botTimeout, ({ data }) => engine.botTimeout(data.companyId, data.ticketId));
  jobs.handle(JOBS.npsExpire, ({ data }) => engine.npsExpire(data.companyId, data.ticketId));
  jobs.handle(JOBS.expire, ({ data }) => engine.expire(data.companyId, data.ticketId));
  jobs.handle(JOBS.inactive, ({ data }) => engine.inactive(data.companyId, data.ticketId));
  jobs.handle(JOBS.autoClose, ({ data }) => engine.autoClose(data.companyId, data.ticketId));
  jobs.handle(JOBS.router, async ({ data }) => {
    await engine.route(data.companyId, data.queueId);
  });
  jobs.handle(JOBS.positions, ({ data }) => engine.sendPositions(data.companyId, data.queueId));
  jobs.handle(JOBS.purge, async () => {
    await store.purgeProcessed();
  });
  await jobs.every(JOBS.purge, '17 4 * * *', {});
}
