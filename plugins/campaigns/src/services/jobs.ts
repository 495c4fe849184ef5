import type { Knex } from 'knex';
import type { FastifyBaseLogger } from 'fastify';
import type { Jobs } from '@atendo/sdk';
import { checkNumbersJob, dispatchJob, startJob, watchdogJob } from '../contract';
import { CAMPAIGNS, type CampaignStore } from './campaigns';
import type { Dispatcher } from './dispatcher';
import type { ListStore } from './lists';

/** A running campaign whose dispatcher has not run for this long (and is not waiting) is re-armed. */
const STALE_SECONDS = 120;

/**
 * Registers the jobs' handlers and the watchdog (every minute). The watchdog covers what a job queue alone
 * cannot: a node killed in the middle of a dispatch run leaves that job locked until its lock expires (hours);
 * a running campaign not ticked for 2 minutes whose next send is due gets a new dispatch job (the campaign's
 * row lock and the recipients' states keep a late second run harmless), and a PROGRAMADA campaign more than
 * a minute late gets its start again.
 */
export async function registerJobs(d: { jobs: Jobs; db: Knex; log: FastifyBaseLogger; campaigns: CampaignStore; dispatcher: Dispatcher; lists: ListStore }): Promise<void> {
  d.jobs.handle(startJob, ({ data }) => d.campaigns.start(data.companyId, data.campaignId), { maxAttempts: 10 });
  d.jobs.handle(dispatchJob, ({ data }) => d.dispatcher.run(data.companyId, data.campaignId), { maxAttempts: 25 });
  d.jobs.handle(checkNumbersJob, ({ data }) => d.lists.checkList(data.companyId, data.contactListId), { maxAttempts: 3 });
  d.jobs.handle(watchdogJob, async () => {
    const stale = (await d.db(CAMPAIGNS)
      .where({ status: 'EM_ANDAMENTO' })
      .where((w) => w.whereNull('tickedAt').orWhereRaw(`ticked_at < now() - interval '${STALE_SECONDS} seconds'`))
      .where((w) => w.whereNull('nextSendAt').orWhereRaw(`next_send_at < now() - interval '60 seconds'`))
      .select('id', 'companyId')
      .limit(1000)) as { id: number; companyId: number }[];
    for (const c of stale) {
      d.log.warn({ campaignId: c.id, companyId: c.companyId }, 'campaigns: re-arming a stalled dispatcher');
      await d.jobs.schedule(dispatchJob, { companyId: c.companyId, campaignId: c.id }, { key: `dispatch:${c.id}` });
    }
    const late = (await d.db(CAMPAIGNS).where({ status: 'PROGRAMADA' }).whereRaw(`scheduled_at < now() - interval '60 seconds'`).select('id', 'companyId').limit(1000)) as { id: number; companyId: number }[];
    for (const c of late) await d.jobs.schedule(startJob, { companyId: c.companyId, campaignId: c.id }, { key: `start:${c.id}` });
  });
  await d.jobs.every(watchdogJob, '* * * * *', {});
}
