import type { Knex } from 'knex';
import type { Jobs } from '@atendo/sdk';
import { dispatchJob } from '../contract';
import { CAMPAIGNS } from './campaigns';

/**
 * A connection of the company changed (settings, or its session's status): running campaigns of the company
 * paused for want of a connected connection look again now instead of at their next retry. Idempotent (the
 * dispatch job is keyed per campaign), so every node may call it for the same change.
 */
export async function resumePaused(db: Knex, jobs: Jobs, companyId: number): Promise<void> {
  const paused = (await db(CAMPAIGNS).where({ companyId, status: 'EM_ANDAMENTO', paused: 'connection' }).select('id')) as { id: number }[];
  for (const c of paused) await jobs.schedule(dispatchJob, { companyId, campaignId: c.id }, { key: `dispatch:${c.id}` });
}
