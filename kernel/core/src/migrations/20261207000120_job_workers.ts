import type { Knex } from 'knex';

/**
 * The job workers' heartbeat (kernel/core/src/jobs/scheduler.ts): one row per running kernel process with
 * the ids of its graphile-worker workers and when it last beat. A process that stops beating (kill -9, a
 * lost host) is dead after `JOBS_DEAD_AFTER_MS`; any node's sweep then releases the jobs its workers held
 * locked (graphile-worker alone keeps them locked for 4 hours) and deletes its row.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE kernel_job_workers (
    node_id uuid PRIMARY KEY,
    worker_ids text[] NOT NULL DEFAULT '{}',
    started_at timestamptz NOT NULL DEFAULT now(),
    beat_at timestamptz NOT NULL DEFAULT now()
  )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('kernel_job_workers');
}
