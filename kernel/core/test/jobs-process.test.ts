import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import pino from 'pino';
import { createTestKernel, type TestKernel, waitFor } from '@atendo/testing';
import { withDb } from '@atendo/testing/src/global-setup';
import { createKnex, dropDatabase, ensureDatabase } from '../src/db';
import { JOBS_SCHEMA, JobScheduler } from '../src/jobs/scheduler';
import { HITS_DDL, Hit, jobNodePlugin } from './fixtures/jobs/plugin';

/**
 * Durable jobs across processes on one database: a job scheduled by a kernel killed (SIGKILL) before it
 * is due runs once on the kernel started afterwards; two kernel processes handling one job name run each
 * of N jobs exactly once; jobs running on a kernel killed at their due time run again within a minute of
 * restart (the workers' heartbeat sweep releases their locks; graphile-worker alone keeps them 4 hours).
 */

const ROOT = resolve(__dirname, '../../..');
const NODE_SCRIPT = resolve(__dirname, 'fixtures/jobs/node.ts');

interface Node {
  child: ChildProcess;
  /** What the node printed after `ready` (the scheduled job id, or `-`). */
  ready: Promise<string>;
  exited: Promise<number | null>;
}

/** Starts a kernel node process (tsx) on `url`; `delayMs` makes it schedule the `restart` job. */
function startNode(url: string, label: string, delayMs?: number): Node {
  const child = spawn(process.execPath, ['--import', 'tsx', NODE_SCRIPT, url, label, ...(delayMs ? [String(delayMs)] : [])], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: 'test' },
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const ready = new Promise<string>((resolveReady, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (line.startsWith('ready ')) resolveReady(line.slice(6).trim());
    });
    void exited.then((code) => reject(new Error(`node ${label} exited (${code}) before ready: ${stderr.slice(-2000)}`)));
  });
  return { child, ready, exited };
}

const hits = async (db: ReturnType<typeof createKnex>, key?: string): Promise<{ key: string; node: string }[]> => {
  const q = db('jobnodeHits').select('key', 'node').orderBy('id');
  return key ? q.where({ key }) : q;
};

describe('ctx.jobs across kernel processes', () => {
  let url: string;
  let dbName: string;
  let db: ReturnType<typeof createKnex>;
  const nodes: Node[] = [];
  beforeAll(async () => {
    dbName = `t_${process.pid}_jobs_proc_${Date.now().toString(36)}`;
    url = withDb(process.env.ATENDO_TEST_PG_BASE!, dbName);
    await ensureDatabase(url, process.env.ATENDO_TEST_TEMPLATE!);
    db = createKnex(url, 2);
    await db.raw(HITS_DDL);
  });
  afterAll(async () => {
    for (const n of nodes) if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
    await db?.destroy();
    if (url) await dropDatabase(url);
  });

  test('RESTART: a job scheduled by a kernel killed before it is due runs exactly once after a new kernel starts', async () => {
    const a = startNode(url, 'killed', 3000);
    nodes.push(a);
    const jobId = await a.ready;
    a.child.kill('SIGKILL');
    await a.exited;
    expect(a.child.signalCode).toBe('SIGKILL');
    // Durably stored, not run.
    const pending = await db.raw(`SELECT run_at > now() AS future FROM ${JOBS_SCHEMA}._private_jobs WHERE id = ?`, [jobId]);
    expect(pending.rows).toEqual([{ future: true }]);
    expect(await hits(db, 'restart')).toHaveLength(0);

    let b: TestKernel | undefined;
    try {
      b = await createTestKernel({ dbName, plugins: [jobNodePlugin('restarted')] });
      await waitFor(async () => (await hits(db, 'restart')).length > 0, 8000, 50);
      await new Promise((r) => setTimeout(r, 1000));
      expect(await hits(db, 'restart')).toEqual([{ key: 'restart', node: 'restarted' }]);
      expect((await db.raw(`SELECT 1 FROM ${JOBS_SCHEMA}._private_jobs WHERE id = ?`, [jobId])).rows).toHaveLength(0);
    } finally {
      await b?.close();
    }
  });

  test('KILL -9 AT THE DUE TIME: jobs running on a killed kernel are released by the heartbeat sweep and each runs once more within a minute of restart', async () => {
    // Due in 2 s; on the `dying` node the handler records its start then runs for 10 minutes.
    const scheduler = new JobScheduler({ db, databaseUrl: url, log: pino({ level: 'silent' }) });
    const keys = ['due-0', 'due-1', 'due-2', 'due-3'];
    try {
      for (const key of keys) await scheduler.forOwner('test').schedule(Hit, { key, sleepMs: 600_000, sleepOn: 'dying' }, { delayMs: 2000 });
    } finally {
      await scheduler.stop();
    }
    const a = startNode(url, 'dying');
    nodes.push(a);
    await a.ready;
    const dueHits = async () => (await hits(db)).filter((h) => h.key.startsWith('due-'));
    // Each job started on `dying` (JOBS_CONCURRENCY 4: all four at once), then kill -9 while they run.
    await waitFor(async () => (await dueHits()).length === keys.length, 20000, 50);
    a.child.kill('SIGKILL');
    await a.exited;
    const locked = await db.raw(`SELECT count(*)::int AS n FROM ${JOBS_SCHEMA}._private_jobs WHERE locked_by IS NOT NULL`);
    expect(locked.rows[0].n).toBe(keys.length);

    // Restart with the default heartbeat settings: every job runs again on the new kernel within a minute.
    const t0 = Date.now();
    let b: TestKernel | undefined;
    try {
      b = await createTestKernel({ dbName, plugins: [jobNodePlugin('after')] });
      await waitFor(async () => (await dueHits()).filter((h) => h.node === 'after').length >= keys.length, 60_000, 200);
      const took = Date.now() - t0;
      await new Promise((r) => setTimeout(r, 1000));
      const after = (await dueHits()).filter((h) => h.node === 'after');
      expect(after.map((h) => h.key).sort()).toEqual(keys);
      expect(took).toBeLessThan(60_000);
      expect((await db.raw(`SELECT count(*)::int AS n FROM ${JOBS_SCHEMA}._private_jobs WHERE key IS NULL AND payload::text LIKE '%due-%'`)).rows[0].n).toBe(0);
      // The dead node's heartbeat row was swept; the live one remains.
      expect((await db.raw('SELECT count(*)::int AS n FROM kernel_job_workers')).rows[0].n).toBe(1);
    } finally {
      await b?.close();
    }
    expect((await db.raw('SELECT count(*)::int AS n FROM kernel_job_workers')).rows[0].n).toBe(0);
  }, 120_000);

  test('TWO PROCESSES: both handle jobnode.hit; each of N jobs runs exactly once', async () => {
    const n1 = startNode(url, 'p1');
    const n2 = startNode(url, 'p2');
    nodes.push(n1, n2);
    await Promise.all([n1.ready, n2.ready]);
    // Schedule from a third party without a worker (any node can schedule).
    const scheduler = new JobScheduler({ db, databaseUrl: url, log: pino({ level: 'silent' }) });
    const jobs = scheduler.forOwner('test');
    const N = 40;
    try {
      await Promise.all(Array.from({ length: N }, (_, i) => jobs.schedule(Hit, { key: `job-${i}`, sleepMs: 50 })));
    } finally {
      await scheduler.stop();
    }
    await waitFor(async () => (await hits(db)).filter((h) => h.key.startsWith('job-')).length >= N, 15000, 50);
    await new Promise((r) => setTimeout(r, 1000));
    const rows = (await hits(db)).filter((h) => h.key.startsWith('job-'));
    expect(rows).toHaveLength(N);
    expect(new Set(rows.map((r) => r.key)).size).toBe(N);
    const byNode = { p1: rows.filter((r) => r.node === 'p1').length, p2: rows.filter((r) => r.node === 'p2').length };
    expect(byNode.p1 + byNode.p2).toBe(N);
    expect(byNode.p1).toBeGreaterThan(0);
    expect(byNode.p2).toBeGreaterThan(0);

    // SIGTERM: both close gracefully.
    n1.child.kill('SIGTERM');
    n2.child.kill('SIGTERM');
    expect(await Promise.all([n1.exited, n2.exited])).toEqual([0, 0]);
    // Every node is down: a job still locked would be one a graceful stop abandoned.
    expect((await db.raw(`SELECT count(*)::int AS n FROM ${JOBS_SCHEMA}._private_jobs WHERE locked_at IS NOT NULL`)).rows[0].n).toBe(0);
  }, 90_000);
});
