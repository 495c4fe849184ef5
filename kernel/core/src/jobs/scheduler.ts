import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Knex } from 'knex';
import type { FastifyBaseLogger } from 'fastify';
import { Logger, runMigrations, runTaskList, type LogLevel, type Task, type TaskList, type WorkerEvents, type WorkerPool } from 'graphile-worker';
import type { EveryOptions, JobDefinition, JobHandlerOptions, JobRun, Jobs, ScheduleOptions } from '@atendo/sdk';
import { parseCron, type CronSchedule } from './cron';
import { pgConnectSettings, type PgConnectOptions } from '../db-connect';

/** The PostgreSQL schema of the job queue (graphile-worker's tables and functions). */
export const JOBS_SCHEMA = 'graphile_worker';
const DEFAULT_MAX_ATTEMPTS = 5;
const MAX_KEY_LENGTH = 200;
/** Longest single wake-up timer; a farther job re-arms when it fires. */
const MAX_WAKE_MS = 3_600_000;

/** How a job's data is stored: wrapped, so array data is never merged by the queue on key replace. */
interface Envelope {
  data: unknown;
  /** Set on the runs of a recurring (`every`) job. */
  every?: { cron: string; tz: string };
}

interface Handler {
  fn: (run: JobRun<unknown>) => Promise<void>;
  maxAttempts: number;
}

interface EveryDecl {
  schedule: CronSchedule;
  data: unknown;
}

export interface SchedulerOptions {
  /** The kernel's knex (scheduling runs through it, so it can join a caller's transaction). */
  db: Knex;
  /** Connection string of the same database, for the worker's own small pool and its LISTEN connection. */
  databaseUrl: string;
  log: FastifyBaseLogger;
  /** Jobs run at once on this node, all names together (default 4). */
  concurrency?: number;
  /**
   * Safety-net poll interval in ms (default 30 s). Jobs are found without polling: new due jobs through
   * LISTEN/NOTIFY, future ones through a timer armed for the earliest pending run_at.
   */
  pollIntervalMs?: number;
  /** On stop, how long running jobs may take before they are aborted and failed (retried later); ms, default 5 s. */
  shutdownTimeoutMs?: number;
  /** How often this node writes its workers' heartbeat and sweeps the jobs of dead nodes; ms, default 10 s. */
  heartbeatMs?: number;
  /**
   * A node whose heartbeat is older than this is dead (kill -9, lost host): the jobs its workers held locked
   * (and locked at least this long ago) are released so that a live worker runs them; ms, default 30 s.
   */
  deadAfterMs?: number;
  /** How the worker's pool opens connections (self-connections dropped, reconnect backoff: db-connect.ts). */
  connect?: PgConnectOptions;
}

/** The heartbeat table (kernel migration 20261207000120_job_workers). */
const WORKERS_TABLE = 'kernel_job_workers';

/** Scheduler lag, for /metrics: how late jobs start compared with when they were due. */
export interface SchedulerLag {
  /** Jobs started on this node since boot. */
  started: number;
  /** Seconds between run_at and start of the last job started on this node (null before the first). */
  lastSeconds: number | null;
  /** Largest such lag on this node since boot, in seconds. */
  maxSeconds: number;
  /** Sum of the lags of all jobs started on this node, in seconds (with `started`: the mean). */
  sumSeconds: number;
  /** Jobs due now and not started yet, of the names this node handles (all nodes' queue). */
  due: number;
  /** Seconds the oldest of those has been waiting past its run_at (0 when none). */
  oldestDueSeconds: number;
}

/**
 * The kernel's durable job scheduler on graphile-worker (PostgreSQL: `SKIP LOCKED` job pick-up, keys with
 * replace semantics, exponential retry backoff, LISTEN/NOTIFY). One per kernel node:
 * - `forOwner(pluginId)` gives a plugin its `ctx.jobs` (handlers limited to `<pluginId>.*` names);
 * - `start()` (after every plugin registered) starts the worker when this node has handlers, and stores
 *   the declared cron schedules; `stop()` lets running jobs finish (up to `shutdownTimeoutMs`).
 * Recurring jobs are a chain of keyed jobs (`<name>@every`): a node picking a tick first schedules the
 * next one, so each tick has one row and runs once across nodes.
 */
export class JobScheduler {
  private readonly handlers = new Map<string, Handler>();
  private readonly everies = new Map<string, EveryDecl>();
  private readonly everySerial = new Map<string, Promise<unknown>>();
  private readonly pool: pg.Pool;
  private readonly log: FastifyBaseLogger;
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private readonly shutdownTimeoutMs: number;
  private workerPool?: WorkerPool;
  private state: 'idle' | 'running' | 'stopping' | 'closed' = 'idle';
  private wakeTimer?: NodeJS.Timeout;
  /** Epoch ms the wake-up timer fires at. */
  private wakeAt = 0;
  private rearming = false;
  private rearmAgain = false;
  private readonly stats = { started: 0, lastSeconds: null as number | null, maxSeconds: 0, sumSeconds: 0 };
  /** This process's row in the heartbeat table. */
  private readonly nodeId = randomUUID();
  /** Ids of this node's graphile-worker workers (they lock jobs under these ids). */
  private readonly workerIds = new Set<string>();
  private readonly heartbeatMs: number;
  private readonly deadAfterMs: number;
  private heartbeatTimer?: NodeJS.Timeout;
  private beating?: Promise<void>;

  constructor(private readonly opts: SchedulerOptions) {
    this.log = opts.log;
    this.concurrency = opts.concurrency ?? 4;
    this.pollIntervalMs = opts.pollIntervalMs ?? 30_000;
    this.shutdownTimeoutMs = opts.shutdownTimeoutMs ?? 5_000;
    this.heartbeatMs = opts.heartbeatMs ?? 10_000;
    this.deadAfterMs = opts.deadAfterMs ?? 30_000;
    // Connections open on first use: a node without handlers only uses this pool to migrate.
    this.pool = new pg.Pool({ connectionString: opts.databaseUrl, max: this.concurrency + 2, idleTimeoutMillis: 10_000, ...pgConnectSettings({ log: opts.log, ...opts.connect }) });
    this.pool.on('error', (err) => this.log.warn({ err }, 'jobs: idle pool connection failed'));
    this.pool.on('connect', (client) => client.on('error', (err) => this.log.warn({ err }, 'jobs: pool connection failed')));
  }

  /** Creates or upgrades the job queue's schema (graphile-worker's own migrations, idempotent). */
  async migrate(): Promise<void> {
    await runMigrations({ pgPool: this.pool, schema: JOBS_SCHEMA, logger: graphileLogger(this.log) });
  }

  /** The `ctx.jobs` of plugin `owner` (the kernel's own jobs use `kernel`). */
  forOwner(owner: string): Jobs {
    const own = (job: JobDefinition<unknown>, what: string) => {
      if (!job.name.startsWith(`${owner}.`)) throw new Error(`${owner} cannot ${what} ${job.name}: only jobs named ${owner}.* are its own`);
    };
    return {
      handle: (job, handler, o: JobHandlerOptions = {}) => {
        own(job, 'handle job');
        if (this.state !== 'idle') throw new Error(`jobs.handle(${job.name}) after the worker started: register handlers in register()`);
        if (this.handlers.has(job.name)) throw new Error(`job ${job.name} already has a handler`);
        this.handlers.set(job.name, { fn: handler as Handler['fn'], maxAttempts: checkAttempts(o.maxAttempts) ?? DEFAULT_MAX_ATTEMPTS });
      },
      schedule: (job, data, o) => this.schedule(job, data, o),
      every: async (job, cron, data, o: EveryOptions = {}) => {
        own(job, 'declare a recurring job');
        const decl: EveryDecl = { schedule: parseCron(cron, o.tz ?? 'UTC'), data: roundTrip(data) };
        this.everies.set(job.name, decl);
        if (this.state === 'running') await this.ensureEvery(job.name);
      },
      cancel: (job, key, o) => this.cancel(job, key, o?.trx),
    };
  }

  /** See `Jobs.schedule`. */
  async schedule<Data>(job: JobDefinition<Data>, data: Data, o: ScheduleOptions = {}): Promise<string> {
    if (this.state === 'stopping' || this.state === 'closed') throw new Error('job scheduler closed');
    if (o.runAt !== undefined && (!(o.runAt instanceof Date) || Number.isNaN(o.runAt.getTime()))) throw new Error('schedule: runAt must be a valid Date');
    if (o.delayMs !== undefined && (typeof o.delayMs !== 'number' || !Number.isFinite(o.delayMs) || o.delayMs < 0)) throw new Error('schedule: delayMs must be a finite number >= 0');
    const attempts = checkAttempts(o.maxAttempts) ?? this.handlers.get(job.name)?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    const key = o.key === undefined ? null : `${job.name}:${checkKey(o.key)}`;
    const env: Envelope = { data: roundTrip(data) };
    return this.addJob(o.trx ?? this.opts.db, job.name, env, { runAt: o.runAt, delayMs: o.delayMs ?? 0, attempts, key, mode: 'replace' });
  }

  /** See `Jobs.cancel`. */
  async cancel(job: JobDefinition<unknown>, key: string, trx?: Knex.Transaction): Promise<boolean> {
    if (this.state === 'closed') throw new Error('job scheduler closed');
    const res = await (trx ?? this.opts.db).raw(`SELECT id, locked_at IS NULL AS pending FROM ${JOBS_SCHEMA}.remove_job(?)`, [`${job.name}:${checkKey(key)}`]);
    const row = res.rows[0] as { id: unknown; pending: boolean } | undefined;
    return Boolean(row && row.id != null && row.pending);
  }

  /**
   * Starts the worker (when this node handles any job) and stores the declared cron schedules. Call once,
   * after every plugin registered its handlers.
   */
  async start(): Promise<void> {
    if (this.state !== 'idle') throw new Error('job scheduler already started');
    const tasks: TaskList = {};
    for (const [name, h] of this.handlers) tasks[name] = this.task(name, h);
    if (this.handlers.size) {
      const events: WorkerEvents = new EventEmitter();
      events.on('pool:listen:notification', ({ message }) => {
        if (message.channel !== 'jobs:insert') return;
        const count = (safeJson(message.payload) as { count?: number } | null)?.count ?? 1;
        if (count > 0) this.requestRearm();
      });
      // A retry waits e^attempts s (graphile-worker's fail_job); its row is written asynchronously, so the
      // wake-up is armed from the formula (and re-checked against the table once the write is likely done).
      events.on('job:error', ({ job }) => {
        if (job.attempts < job.max_attempts) this.armWake(Math.exp(Math.min(job.attempts, 10)) * 1000 + 20);
      });
      events.on('job:complete', ({ error }) => {
        if (error) this.requestRearm();
      });
      events.on('pool:listen:success', () => this.requestRearm());
      events.on('worker:create', ({ worker }) => void this.workerIds.add(worker.workerId));
      this.workerPool = runTaskList(
        {
          pgPool: this.pool,
          schema: JOBS_SCHEMA,
          concurrency: this.concurrency,
          pollInterval: this.pollIntervalMs,
          noHandleSignals: true,
          gracefulShutdownAbortTimeout: this.shutdownTimeoutMs,
          logger: graphileLogger(this.log),
          events,
          // Batched (delay 0) completion and failure writes are flushed by the graceful shutdown; unbatched
          // ones are fire-and-forget, and the last job's completion could be lost when the pool closes.
          preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
        },
        tasks,
        this.pool,
      );
      this.workerPool.promise.catch((err: unknown) => this.log.error({ err }, 'jobs: worker pool failed'));
      for (const w of this.workerPool._workers) this.workerIds.add(w.workerId);
      // The first beat (and sweep: jobs a killed previous process held) now, then every heartbeatMs.
      this.beating = this.heartbeat();
      this.heartbeatTimer = setInterval(() => {
        this.beating ??= this.heartbeat();
      }, this.heartbeatMs);
      this.heartbeatTimer.unref();
    }
    this.state = 'running';
    for (const name of this.everies.keys()) {
      if (!this.handlers.has(name)) this.log.warn({ job: name }, 'jobs: recurring job declared without a handler on this node');
      await this.ensureEvery(name);
    }
    if (this.handlers.size) this.requestRearm();
  }

  /** Stops taking jobs and waits for running ones (up to `shutdownTimeoutMs`, then they are failed and retried later). */
  async stop(): Promise<void> {
    if (this.state === 'closed' || this.state === 'stopping') return;
    this.state = 'stopping';
    clearTimeout(this.wakeTimer);
    clearInterval(this.heartbeatTimer);
    const wp = this.workerPool;
    if (wp) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((r) => {
        timer = setTimeout(() => r('timeout'), this.shutdownTimeoutMs + 1000);
      });
      const res = await Promise.race([Promise.resolve(wp.gracefulShutdown('kernel closing')).then(() => 'done' as const, () => 'done' as const), timedOut]);
      clearTimeout(timer);
      if (res === 'timeout') {
        this.log.warn('jobs: running jobs did not finish in time; failing them (they will be retried)');
        await Promise.resolve(wp.forcefulShutdown('kernel closing: shutdown timeout')).catch(() => undefined);
      }
    }
    await this.beating?.catch(() => undefined);
    // Stopped cleanly: nothing of ours is locked any more; the row goes (a failure leaves it to the sweep).
    if (wp) await this.opts.db.raw(`DELETE FROM ${WORKERS_TABLE} WHERE node_id = ?`, [this.nodeId]).catch(() => undefined);
    await this.pool.end().catch(() => undefined);
    this.state = 'closed';
  }

  /** Scheduler lag: this node's start lateness since boot, and the queue's due-but-waiting jobs now. */
  async lag(): Promise<SchedulerLag> {
    const names = [...this.handlers.keys()];
    let due = 0;
    let oldestDueSeconds = 0;
    if (names.length) {
      const res = await this.opts.db.raw(
        `SELECT count(*)::int AS due, coalesce(extract(epoch FROM now() - min(j.run_at)), 0)::float8 AS oldest
           FROM ${JOBS_SCHEMA}._private_jobs j JOIN ${JOBS_SCHEMA}._private_tasks t ON t.id = j.task_id
          WHERE t.identifier = ANY(?::text[]) AND j.is_available AND j.run_at <= now()`,
        [names],
      );
      due = res.rows[0].due;
      oldestDueSeconds = Math.max(0, res.rows[0].oldest);
    }
    return { ...this.stats, due, oldestDueSeconds };
  }

  /**
   * Writes this node's heartbeat, then releases the jobs of dead workers: jobs (and named queues) locked
   * at least `deadAfterMs` ago by a worker that no node beating within `deadAfterMs` lists (a process killed
   * by -9, a lost host, a process from before this table); rows of dead nodes are deleted. Released jobs
   * keep their attempt count (a job that kills its process cannot loop for ever) and run again at once.
   * Runs on every node with workers; database time throughout, so node clocks do not matter.
   * Returns the ids of the workers whose jobs were released.
   */
  async sweepDeadWorkers(): Promise<string[]> {
    const dead = this.deadAfterMs;
    const res = await this.opts.db.raw(
      `WITH live AS (
         SELECT unnest(worker_ids) AS id FROM ${WORKERS_TABLE} WHERE beat_at >= now() - ?::float8 * interval '1 millisecond'
       ), gone AS (
         DELETE FROM ${WORKERS_TABLE} WHERE beat_at < now() - ?::float8 * interval '1 millisecond'
       )
       SELECT DISTINCT locked_by FROM (
         SELECT locked_by, locked_at FROM ${JOBS_SCHEMA}._private_jobs WHERE locked_by IS NOT NULL
         UNION ALL
         SELECT locked_by, locked_at FROM ${JOBS_SCHEMA}._private_job_queues WHERE locked_by IS NOT NULL
       ) l
       WHERE l.locked_at < now() - ?::float8 * interval '1 millisecond' AND l.locked_by NOT IN (SELECT id FROM live)`,
      [dead, dead, dead],
    );
    const ids = (res.rows as { locked_by: string }[]).map((r) => r.locked_by).filter((id) => !this.workerIds.has(id));
    if (!ids.length) return [];
    await this.opts.db.raw(`SELECT ${JOBS_SCHEMA}.force_unlock_workers(?::text[])`, [ids]);
    this.log.warn({ workers: ids }, 'jobs: released the jobs held by workers of a dead node (it stopped beating)');
    this.workerPool?.nudge(this.concurrency);
    this.requestRearm();
    return ids;
  }

  /** One heartbeat: this node's row (its worker ids, beat now), then the sweep; failures are logged. */
  private async heartbeat(): Promise<void> {
    try {
      await this.opts.db.raw(
        `INSERT INTO ${WORKERS_TABLE} (node_id, worker_ids, beat_at) VALUES (?, ?::text[], now())
         ON CONFLICT (node_id) DO UPDATE SET worker_ids = excluded.worker_ids, beat_at = now()`,
        [this.nodeId, [...this.workerIds]],
      );
      await this.sweepDeadWorkers();
    } catch (err) {
      this.log.warn({ err }, 'jobs: heartbeat failed (retried at the next beat)');
    } finally {
      this.beating = undefined;
    }
  }

  // ---- internals

  private async addJob(
    db: Knex | Knex.Transaction,
    name: string,
    env: Envelope,
    o: { runAt?: Date; delayMs: number; attempts: number; key: string | null; mode: 'replace' | 'preserve_run_at' },
  ): Promise<string> {
    const res = await db.raw(
      `SELECT id FROM ${JOBS_SCHEMA}.add_job(
         identifier => ?, payload => ?::json,
         run_at => coalesce(?::timestamptz, now() + ?::float8 * interval '1 millisecond'),
         max_attempts => ?::int, job_key => ?::text, job_key_mode => ?::text)`,
      [name, JSON.stringify(env), o.runAt ? o.runAt.toISOString() : null, o.delayMs, o.attempts, o.key, o.mode],
    );
    return String(res.rows[0].id);
  }

  private task(name: string, h: Handler): Task {
    return async (payload, helpers) => {
      const job = helpers.job;
      const runAt = new Date(job.run_at);
      this.recordLag(runAt);
      const env = (payload ?? { data: null }) as Envelope;
      if (env.every) {
        // The next tick first: a crash or a throw below still leaves the schedule going (this tick is not retried).
        const declared = await this.serial(name, async () => {
          const decl = this.everies.get(name);
          if (decl) await this.scheduleTick(name, decl, runAt);
          return Boolean(decl);
        });
        if (!declared) {
          this.log.info({ job: name }, 'jobs: recurring job no longer declared on this node; its schedule ends');
          return;
        }
      }
      const key = job.key && !env.every ? job.key.slice(name.length + 1) : undefined;
      await h.fn({ id: String(job.id), name, data: env.data, attempt: job.attempts, maxAttempts: job.max_attempts, key, runAt, signal: helpers.abortSignal });
    };
  }

  private recordLag(runAt: Date): void {
    const s = Math.max(0, (Date.now() - runAt.getTime()) / 1000);
    this.stats.started++;
    this.stats.lastSeconds = s;
    this.stats.sumSeconds += s;
    if (s > this.stats.maxSeconds) this.stats.maxSeconds = s;
  }

  private everyKey(name: string): string {
    return `${name}@every`;
  }

  /** Schedules the tick of `decl` after max(now, `after`), replacing the chain's pending job. */
  private async scheduleTick(name: string, decl: EveryDecl, after: Date): Promise<void> {
    const now = new Date();
    const next = decl.schedule.next(after > now ? after : now);
    if (!next) return;
    await this.addJob(this.opts.db, name, { data: decl.data, every: { cron: decl.schedule.cron, tz: decl.schedule.tz } }, {
      runAt: next,
      delayMs: 0,
      attempts: this.handlers.get(name)?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      key: this.everyKey(name),
      mode: 'replace',
    });
  }

  /**
   * Makes sure the chain of `name` exists and follows `decl`: a pending tick of the same cron and zone is
   * kept (its data updated when it changed); otherwise (none, running, or another cron) the next tick from
   * now replaces it. Concurrent boots compute the same tick, so the key leaves one row.
   */
  private ensureEvery(name: string): Promise<void> {
    return this.serial(name, async () => {
      const decl = this.everies.get(name);
      if (decl) await this.ensureEveryNow(name, decl);
    });
  }

  private async ensureEveryNow(name: string, decl: EveryDecl): Promise<void> {
    const res = await this.opts.db.raw(`SELECT payload, locked_at IS NOT NULL AS locked FROM ${JOBS_SCHEMA}._private_jobs WHERE key = ?`, [this.everyKey(name)]);
    const row = res.rows[0] as { payload: Envelope; locked: boolean } | undefined;
    const same = row && !row.locked && row.payload?.every?.cron === decl.schedule.cron && row.payload.every.tz === decl.schedule.tz;
    if (!same) return this.scheduleTick(name, decl, new Date());
    if (JSON.stringify(row.payload.data) === JSON.stringify(decl.data)) return;
    await this.addJob(this.opts.db, name, { data: decl.data, every: row.payload.every }, {
      delayMs: 0,
      attempts: this.handlers.get(name)?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      key: this.everyKey(name),
      mode: 'preserve_run_at',
    });
  }

  /**
   * Runs `fn` after the previous `serial` call of `name` settled: a re-declaration (`every`) and a tick
   * rescheduling on this node never interleave, so the newest declaration is the one left pending.
   */
  private serial<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.everySerial.get(name) ?? Promise.resolve()).then(fn);
    this.everySerial.set(name, run.catch(() => undefined));
    return run;
  }

  /** Re-arms the wake-up timer (coalesced: one query in flight, one more queued at most). */
  private requestRearm(): void {
    if (this.state !== 'running' || !this.workerPool) return;
    if (this.rearming) {
      this.rearmAgain = true;
      return;
    }
    this.rearming = true;
    this.rearm()
      .catch((err: unknown) => this.log.warn({ err }, 'jobs: could not compute the next wake-up (the poll will find due jobs)'))
      .finally(() => {
        this.rearming = false;
        if (this.rearmAgain) {
          this.rearmAgain = false;
          this.requestRearm();
        }
      });
  }

  /** Arms the wake-up timer for the earliest future run_at among the jobs this node handles. */
  private async rearm(): Promise<void> {
    const res = await this.opts.db.raw(
      `SELECT extract(epoch FROM min(j.run_at) - now())::float8 * 1000 AS ms
         FROM ${JOBS_SCHEMA}._private_jobs j JOIN ${JOBS_SCHEMA}._private_tasks t ON t.id = j.task_id
        WHERE t.identifier = ANY(?::text[]) AND j.is_available AND j.run_at > now()`,
      [[...this.handlers.keys()]],
    );
    const ms = res.rows[0]?.ms as number | null;
    if (ms != null) this.armWake(Math.max(0, ms) + 5);
  }

  /**
   * Wakes the workers in `ms` unless the timer is already set to fire earlier (a timer only moves earlier;
   * when it fires it nudges the workers and re-arms from the table). A needless wake costs one empty poll.
   */
  private armWake(ms: number): void {
    if (this.state !== 'running' || !this.workerPool) return;
    const wait = Math.min(MAX_WAKE_MS, ms);
    const at = Date.now() + wait;
    if (this.wakeTimer && this.wakeAt <= at) return;
    clearTimeout(this.wakeTimer);
    this.wakeAt = at;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      if (wait < MAX_WAKE_MS) this.workerPool?.nudge(this.concurrency);
      this.requestRearm();
    }, wait);
    this.wakeTimer.unref();
  }
}

/** Creates or upgrades the job queue's schema in the database at `databaseUrl` (test templates, tools). */
export async function migrateJobs(databaseUrl: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1, ...pgConnectSettings() });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  try {
    await runMigrations({ pgPool: pool, schema: JOBS_SCHEMA, logger: new Logger(() => () => undefined) });
  } finally {
    await pool.end();
  }
}

/** Validates `maxAttempts` (integer 1..1000); undefined passes through. */
function checkAttempts(n: number | undefined): number | undefined {
  if (n === undefined) return undefined;
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new Error('maxAttempts must be an integer from 1 to 1000');
  return n;
}

function checkKey(key: string): string {
  if (typeof key !== 'string' || key.length < 1 || key.length > MAX_KEY_LENGTH) throw new Error(`job key must be a string of 1-${MAX_KEY_LENGTH} characters`);
  return key;
}

/** The value as the handler will see it (JSON); throws on what JSON cannot carry (BigInt, cycles). */
function roundTrip(data: unknown): unknown {
  const s = JSON.stringify(data ?? null);
  if (s === undefined) throw new Error('job data must be JSON-serializable');
  return JSON.parse(s);
}

function safeJson(s: string | undefined): unknown {
  if (!s) return null;
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
}

/** graphile-worker's logger onto pino; its per-job info lines go to debug. */
function graphileLogger(log: FastifyBaseLogger): Logger {
  const child = log.child({ component: 'jobs' });
  return new Logger((scope) => (level: LogLevel, message: string, meta?: unknown) => {
    const obj = { ...scope, ...(meta && typeof meta === 'object' ? (meta as object) : {}) };
    if (level === 'error') child.error(obj, message);
    else if (level === 'warning') child.warn(obj, message);
    else if (level === 'info') child.debug(obj, message);
    else child.trace(obj, message);
  });
}
