import { defineJob, type JobDefinition, type Jobs, type PluginDefinition } from '@atendo/sdk';
import { createTestKernel, waitFor, type TestKernel } from '@atendo/testing';
import { parseCron } from '../src/jobs/cron';
import { JOBS_SCHEMA } from '../src/jobs/scheduler';
import { RateLimitsSweep } from '../src/routes/auth';

/** Durable jobs (ctx.jobs) on a real PostgreSQL: schedule, delay, runAt, keys, cancel, retries, scoping, cron. */

const Hit = defineJob<{ v: number }>('jobtest.hit');
const Flaky = defineJob<{ v: number }>('jobtest.flaky');
const Broken = defineJob<{ v: number }>('jobtest.broken');
const Tick = defineJob<{ every: string }>('jobtest.tick');
const Unhandled = defineJob<{ v: number }>('jobtest.unhandled');
const Slow = defineJob<{ v: number; ms: number }>('jobtest.slow');

interface RunRow {
  job: string;
  jobId: string;
  key: string | null;
  v: number | null;
  attempt: number;
  maxAttempts: number;
  runAt: Date;
  startedAt: Date;
  node: string;
}

const DDL = `CREATE TABLE IF NOT EXISTS jobtest_runs (
  id serial PRIMARY KEY, job text NOT NULL, job_id text NOT NULL, key text, v int, attempt int NOT NULL,
  max_attempts int NOT NULL, run_at timestamptz NOT NULL, started_at timestamptz NOT NULL, node text NOT NULL)`;

/** The test plugin: every handler records its run in `jobtest_runs`; `cron` also declares `Tick` every second. */
function jobTestPlugin(node: string, opts: { cron?: string; slow?: boolean; grab?: (jobs: Jobs) => void } = {}): PluginDefinition {
  return {
    id: 'jobtest',
    async register(ctx) {
      await ctx.db.raw(DDL);
      const record = (job: JobDefinition<unknown>, run: { id: string; key?: string; data: unknown; attempt: number; maxAttempts: number; runAt: Date }) =>
        ctx.db('jobtestRuns').insert({
          job: job.name,
          jobId: run.id,
          key: run.key ?? null,
          v: (run.data as { v?: number } | null)?.v ?? null,
          attempt: run.attempt,
          maxAttempts: run.maxAttempts,
          runAt: run.runAt,
          startedAt: new Date(),
          node,
        });
      ctx.jobs.handle(Hit, async (run) => {
        await record(Hit, run);
      });
      ctx.jobs.handle(Flaky, async (run) => {
        await record(Flaky, run);
        if (run.attempt === 1) throw new Error('flaky: first attempt fails');
      });
      ctx.jobs.handle(
        Broken,
        async (run) => {
          await record(Broken, run);
          throw new Error(`broken: attempt ${run.attempt}`);
        },
        { maxAttempts: 2 },
      );
      ctx.jobs.handle(Tick, async (run) => {
        await record(Tick, run);
      });
      if (opts.slow) {
        // Records its start (attempt row) and, after `ms`, its end (v + 1000).
        ctx.jobs.handle(Slow, async (run) => {
          await record(Slow, run);
          await sleep(run.data.ms);
          await record(Slow, { ...run, data: { v: run.data.v + 1000 } });
        });
      }
      if (opts.cron) await ctx.jobs.every(Tick, opts.cron, { every: opts.cron });
      opts.grab?.(ctx.jobs);
    },
  };
}

const runs = (k: TestKernel, job: JobDefinition<unknown>, extra: Record<string, unknown> = {}): Promise<RunRow[]> =>
  k.db('jobtestRuns').where({ job: job.name, ...extra }).orderBy('id');
/** Waits until `job` has `n` recorded runs matching `extra`, and returns them. */
const waitRuns = async (k: TestKernel, job: JobDefinition<unknown>, extra: Record<string, unknown>, n = 1, ms = 4000): Promise<RunRow[]> => {
  await waitFor(async () => (await runs(k, job, extra)).length >= n, ms);
  return runs(k, job, extra);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('ctx.jobs on one kernel', () => {
  let k: TestKernel;
  let jobs: Jobs;
  beforeAll(async () => {
    k = await createTestKernel({ plugins: [jobTestPlugin('a', { grab: (j) => (jobs = j) })] });
  });
  afterAll(async () => {
    await k?.close();
  });

  test('schedule runs the job once with its data; the handler gets id, attempt, maxAttempts and runAt', async () => {
    const id = await jobs.schedule(Hit, { v: 1 });
    expect(id).toMatch(/^\d+$/);
    const [row] = await waitRuns(k, Hit, { v: 1 });
    expect(row).toMatchObject({ jobId: id, key: null, attempt: 1, maxAttempts: 5, node: 'a' });
    await sleep(300);
    expect(await runs(k, Hit, { v: 1 })).toHaveLength(1);
    // Done jobs leave the queue.
    expect(await k.db.raw(`SELECT 1 FROM ${JOBS_SCHEMA}._private_jobs WHERE id = ?`, [id]).then((r) => r.rows)).toHaveLength(0);
  });

  test('delayMs and runAt: not before the time, and started promptly after it (wake-up timer, not the 30 s poll)', async () => {
    const t0 = Date.now();
    await jobs.schedule(Hit, { v: 2 }, { delayMs: 1200 });
    await jobs.schedule(Hit, { v: 3 }, { runAt: new Date(t0 + 1500) });
    await sleep(900);
    expect(await runs(k, Hit, { v: 2 })).toHaveLength(0);
    expect(await runs(k, Hit, { v: 3 })).toHaveLength(0);
    const [d] = await waitRuns(k, Hit, { v: 2 });
    const [r] = await waitRuns(k, Hit, { v: 3 });
    expect(d.startedAt.getTime()).toBeGreaterThanOrEqual(t0 + 1100);
    expect(new Date(r.runAt).getTime()).toBe(t0 + 1500);
    expect(r.startedAt.getTime()).toBeGreaterThanOrEqual(t0 + 1500);
    // Lateness well under the safety poll.
    expect(d.startedAt.getTime() - new Date(d.runAt).getTime()).toBeLessThan(1000);
    expect(r.startedAt.getTime() - t0 - 1500).toBeLessThan(1000);
  });

  test('a key replaces the pending job (data and time); cancel by key removes it', async () => {
    const first = await jobs.schedule(Hit, { v: 10 }, { key: 'timer', delayMs: 5000 });
    const second = await jobs.schedule(Hit, { v: 11 }, { key: 'timer', delayMs: 600 });
    expect(second).toBe(first);
    const pending = await k.db.raw(`SELECT count(*)::int AS n FROM ${JOBS_SCHEMA}._private_jobs WHERE key = 'jobtest.hit:timer'`);
    expect(pending.rows[0].n).toBe(1);
    await waitFor(async () => (await runs(k, Hit, { v: 11 })).length === 1, 4000);
    expect((await runs(k, Hit, { v: 11 }))[0].key).toBe('timer');
    expect(await runs(k, Hit, { v: 10 })).toHaveLength(0);

    await jobs.schedule(Hit, { v: 12 }, { key: 'cancelled', delayMs: 700 });
    expect(await jobs.cancel(Hit, 'cancelled')).toBe(true);
    expect(await jobs.cancel(Hit, 'cancelled')).toBe(false);
    expect(await jobs.cancel(Hit, 'never-scheduled')).toBe(false);
    // The key is free again after a run: scheduling it anew creates a new job.
    const third = await jobs.schedule(Hit, { v: 13 }, { key: 'timer' });
    expect(third).not.toBe(first);
    await waitFor(async () => (await runs(k, Hit, { v: 13 })).length === 1, 3000);
    await sleep(900);
    expect(await runs(k, Hit, { v: 12 })).toHaveLength(0);
  });

  test('a throw is retried after an exponential backoff; after maxAttempts the job fails for good', async () => {
    const flakyId = await jobs.schedule(Flaky, { v: 20 });
    const brokenId = await jobs.schedule(Broken, { v: 21 });
    const flaky = await waitRuns(k, Flaky, { v: 20 }, 2, 8000);
    expect(flaky.map((r) => r.attempt)).toEqual([1, 2]);
    // First retry waits e^1 ≈ 2.7 s.
    expect(flaky[1].startedAt.getTime() - flaky[0].startedAt.getTime()).toBeGreaterThanOrEqual(2500);
    const broken = await waitRuns(k, Broken, { v: 21 }, 2, 8000);
    expect(broken.map((r) => [r.attempt, r.maxAttempts])).toEqual([[1, 2], [2, 2]]);
    const failed = await waitFor(async () => {
      const r = await k.db.raw(`SELECT attempts, max_attempts AS max, last_error AS error, locked_at IS NULL AS unlocked FROM ${JOBS_SCHEMA}._private_jobs WHERE id = ?`, [brokenId]);
      return r.rows[0]?.unlocked && r.rows[0].attempts === 2 ? r.rows[0] : undefined;
    });
    expect(failed).toMatchObject({ attempts: 2, max: 2 });
    expect(failed.error).toContain('broken: attempt 2');
    // Completed after the retry: gone from the queue.
    expect((await k.db.raw(`SELECT 1 FROM ${JOBS_SCHEMA}._private_jobs WHERE id = ?`, [flakyId])).rows).toHaveLength(0);
    await sleep(500);
    expect(await runs(k, Broken, { v: 21 })).toHaveLength(2);
  });

  test('handlers are scoped to the plugin; bad arguments are refused', async () => {
    const other = defineJob('other.thing');
    expect(() => jobs.handle(other, async () => undefined)).toThrow(/jobtest cannot handle job other\.thing: only jobs named jobtest\.\* are its own/);
    expect(() => jobs.handle(defineJob('jobtest.late'), async () => undefined)).toThrow(/after the worker started/);
    await expect(jobs.every(other, '* * * * *', {})).rejects.toThrow(/jobtest cannot declare a recurring job other\.thing/);
    await expect(jobs.every(Tick, '61 * * * *', { every: 'x' })).rejects.toThrow(/invalid cron/);
    await expect(jobs.every(Tick, '* * *', { every: 'x' })).rejects.toThrow(/5 or 6 fields/);
    await expect(jobs.every(Tick, '* * * * *', { every: 'x' }, { tz: 'Mars/Olympus' })).rejects.toThrow(/invalid time zone/);
    await expect(jobs.schedule(Hit, { v: 0 }, { delayMs: -1 })).rejects.toThrow(/delayMs/);
    await expect(jobs.schedule(Hit, { v: 0 }, { runAt: new Date('nope') })).rejects.toThrow(/runAt/);
    await expect(jobs.schedule(Hit, { v: 0 }, { key: '' })).rejects.toThrow(/key/);
    await expect(jobs.schedule(Hit, { v: 0 }, { maxAttempts: 0 })).rejects.toThrow(/maxAttempts/);
    expect(() => defineJob('NoDot')).toThrow(/invalid job name/);
    // Any plugin may schedule another plugin's job; it waits for a node that handles it.
    const kernelJobs = k.jobs.forOwner('kernel');
    const id = await kernelJobs.schedule(Unhandled, { v: 1 }, { key: 'waits' });
    const row = await k.db.raw(`SELECT id FROM ${JOBS_SCHEMA}._private_jobs WHERE key = 'jobtest.unhandled:waits'`);
    expect(String(row.rows[0].id)).toBe(id);
    expect(await kernelJobs.cancel(Unhandled, 'waits')).toBe(true);
  });

  test('schedule inside a transaction: the job exists only if it commits', async () => {
    await k.db.transaction(async (trx) => {
      await jobs.schedule(Hit, { v: 30 }, { trx, key: 'trx' });
      throw new Error('rollback');
    }).catch(() => undefined);
    await k.db.transaction(async (trx) => {
      await jobs.schedule(Hit, { v: 31 }, { trx });
    });
    await waitFor(async () => (await runs(k, Hit, { v: 31 })).length === 1);
    expect(await runs(k, Hit, { v: 30 })).toHaveLength(0);
    expect(await jobs.cancel(Hit, 'trx')).toBe(false);
  });

  test('the kernel sweeps ended rate-limit windows with a recurring job; lag() reports start lateness', async () => {
    const chain = await k.db.raw(`SELECT run_at AS at FROM ${JOBS_SCHEMA}._private_jobs WHERE key = 'kernel.rate-limits-sweep@every'`);
    expect(chain.rows).toHaveLength(1);
    const at = new Date(chain.rows[0].at);
    expect(at.getUTCSeconds()).toBe(0);
    expect(at.getTime()).toBeGreaterThan(Date.now() - 1000);
    await k.db('rateLimits').insert([
      { key: 'login:1.2.3.4|old@example.com', count: 3, until: new Date(Date.now() - 1000) },
      { key: 'login:1.2.3.4|new@example.com', count: 3, until: new Date(Date.now() + 60_000) },
    ]);
    await k.jobs.forOwner('kernel').schedule(RateLimitsSweep, {});
    await waitFor(async () => !(await k.db('rateLimits').where({ key: 'login:1.2.3.4|old@example.com' }).first()));
    expect(await k.db('rateLimits').where({ key: 'login:1.2.3.4|new@example.com' }).first()).toBeTruthy();

    const lag = await k.jobs.lag();
    expect(lag.started).toBeGreaterThan(5);
    expect(lag.lastSeconds).not.toBeNull();
    expect(lag.maxSeconds).toBeGreaterThanOrEqual(lag.lastSeconds!);
    expect(lag.sumSeconds / lag.started).toBeLessThan(1.5);
    expect(lag.due).toBe(0);
    expect(lag.oldestDueSeconds).toBe(0);
  });
});

describe('ctx.jobs recurring (every) across two kernels on one database', () => {
  let a: TestKernel;
  let b: TestKernel;
  let bClosed = false;
  afterAll(async () => {
    if (!bClosed) await b?.close();
    await a?.close();
  });

  test('each cron tick runs once although both nodes declare and handle it', async () => {
    const cron = '* * * * * *';
    a = await createTestKernel({ plugins: [jobTestPlugin('a', { cron })] });
    b = await createTestKernel({ dbName: a.dbName, plugins: [jobTestPlugin('b', { cron, slow: true })] });
    const chain = await a.db.raw(`SELECT count(*)::int AS n FROM ${JOBS_SCHEMA}._private_jobs WHERE key = 'jobtest.tick@every'`);
    expect(chain.rows[0].n).toBe(1);
    await sleep(4500);
    const ticks = await runs(a, Tick);
    const times = ticks.map((t) => new Date(t.runAt).getTime());
    expect(ticks.length).toBeGreaterThanOrEqual(3);
    expect(new Set(times).size).toBe(times.length);
    for (const t of times) expect(t % 1000).toBe(0);
    for (const t of ticks) expect(t.key).toBeNull();
    // Still one pending tick.
    expect((await a.db.raw(`SELECT count(*)::int AS n FROM ${JOBS_SCHEMA}._private_jobs WHERE key = 'jobtest.tick@every'`)).rows[0].n).toBe(1);

  });

  test('closing a kernel lets its running job finish first (graceful stop)', async () => {
    const id = await a.jobs.forOwner('jobtest').schedule(Slow, { v: 1, ms: 1200 });
    await waitRuns(a, Slow, { v: 1 }); // started on b, the only node handling it
    const t0 = Date.now();
    await b.close();
    bClosed = true;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(500);
    expect(await runs(a, Slow, { v: 1001 })).toHaveLength(1);
    // Its completion was written before close resolved (the job left the queue).
    expect((await a.db.raw(`SELECT 1 FROM ${JOBS_SCHEMA}._private_jobs WHERE id = ?`, [id])).rows).toHaveLength(0);
  });

  test('re-declaring a recurring job with another cron and zone replaces its pending tick', async () => {
    // b is closed: only a (whose ticks run every second) declares it now.
    await a.jobs.forOwner('jobtest').every(Tick, '0 8 * * *', { every: 'daily' }, { tz: 'America/Sao_Paulo' });
    const next = await a.db.raw(`SELECT run_at AS at, payload FROM ${JOBS_SCHEMA}._private_jobs WHERE key = 'jobtest.tick@every'`);
    expect(next.rows).toHaveLength(1);
    expect(next.rows[0].payload).toEqual({ data: { every: 'daily' }, every: { cron: '0 8 * * *', tz: 'America/Sao_Paulo' } });
    const at = new Date(next.rows[0].at);
    expect([at.getUTCHours(), at.getUTCMinutes(), at.getUTCSeconds()]).toEqual([11, 0, 0]);
    expect(at.getTime() - Date.now()).toBeLessThanOrEqual(86_400_000);
  });

  test('cron fields are read in the given time zone', () => {
    const from = new Date('2026-01-01T00:00:00Z');
    expect(parseCron('0 8 * * *').next(from)?.toISOString()).toBe('2026-01-01T08:00:00.000Z');
    expect(parseCron('0 8 * * *', 'America/Sao_Paulo').next(from)?.toISOString()).toBe('2026-01-01T11:00:00.000Z');
    expect(parseCron('30 9 * * 1', 'Europe/Istanbul').next(from)?.toISOString()).toBe('2026-01-05T06:30:00.000Z');
    expect(parseCron('*/10 * * * * *').next(new Date('2026-01-01T00:00:01Z'))?.toISOString()).toBe('2026-01-01T00:00:10.000Z');
  });
});
