import type { Knex } from 'knex';

/**
 * Durable jobs and timers (`ctx.jobs`), backed by a PostgreSQL job queue in the kernel (graphile-worker):
 * a scheduled job is a row in the database, so it survives restarts and runs once across kernel nodes.
 * Business timers (bot timeouts, schedules, campaign dispatch, on-duty checks) live here, never in
 * `setTimeout`/`setInterval` (UI debounce and network retries are fine there).
 *
 * - Job names are namespaced by the owning plugin: `defineJob('automation.ticket-timeout')`.
 * - Only the owning plugin registers the handler (`handle`), during `register`; any plugin may `schedule`
 *   or `cancel` a job it knows the definition of (import it from the owner's `contract`).
 * - A job runs *at least once*: a node that dies mid-run leaves the job locked; it is retried after the
 *   lock expires (4 hours). Handlers should be idempotent (check state before acting).
 * - Data is stored as JSON: pass plain objects (a `Date` arrives as its ISO string).
 *
 * @example
 * ```ts
 * // contract.ts
 * export const TicketTimeout = defineJob<{ companyId: number; ticketId: number }>('automation.ticket-timeout');
 * // register(ctx)
 * ctx.jobs.handle(TicketTimeout, async ({ data }) => closeIfIdle(data.companyId, data.ticketId));
 * await ctx.jobs.every(DailyReport, '0 8 * * *', {}, { tz: 'America/Sao_Paulo' });
 * // anywhere: (re)start the ticket's 5-minute timer; a later call with the same key moves it
 * await ctx.jobs.schedule(TicketTimeout, { companyId, ticketId }, { delayMs: 5 * 60_000, key: `ticket-${ticketId}` });
 * await ctx.jobs.cancel(TicketTimeout, `ticket-${ticketId}`); // the customer answered
 * ```
 */

/** A typed job handle. */
export interface JobDefinition<Data> {
  readonly kind: 'job';
  /** `<plugin id>.<name>` (the kernel's own jobs use `kernel.<name>`). */
  readonly name: string;
  readonly __data?: Data;
}

/**
 * Declares a typed job. Call once, in the owning plugin's `contract.ts` (or next to its handler).
 * Throws on a name that is not `<plugin id>.<name>` in lower-case kebab case.
 */
export function defineJob<Data = Record<string, never>>(name: string): JobDefinition<Data> {
  if (!/^[a-z][a-z0-9-]*\.[a-z][a-z0-9.-]*$/.test(name) || name.length > 200) throw new Error(`invalid job name: ${name}`);
  return Object.freeze({ kind: 'job', name }) as JobDefinition<Data>;
}

/** What a job handler receives. */
export interface JobRun<Data> {
  /** The queue's job id (a decimal string). */
  id: string;
  /** The job name (`<plugin id>.<name>`). */
  name: string;
  /** The data given to `schedule` (or `every`), after a JSON round trip. */
  data: Data;
  /** Attempt number, starting at 1. */
  attempt: number;
  /** Attempts in all before the job fails for good. */
  maxAttempts: number;
  /** The key given to `schedule`, if any (`every` runs have none). */
  key?: string;
  /** When this attempt was due (for `every`: the cron tick; for a retry: the end of its backoff). */
  runAt: Date;
  /** Aborts when the node is shutting down and the grace period ran out: stop early, the job is retried. */
  signal: AbortSignal;
}

export interface JobHandlerOptions {
  /**
   * Attempts in all before a job of this name fails for good (default 5; 1 = no retry). Used when
   * `schedule` does not give `maxAttempts`. A throw waits e^attempt seconds (2.7 s, 7.4 s, 20 s, 55 s, ...,
   * at most e^10 ≈ 6 h) before the next attempt. A job failed for good stays in the queue table, its
   * error kept, and frees its key.
   */
  maxAttempts?: number;
}

export interface ScheduleOptions {
  /** When to run (default now). A past time runs as soon as possible. */
  runAt?: Date;
  /** Run this many milliseconds from now (database clock); ignored when `runAt` is given. >= 0. */
  delayMs?: number;
  /**
   * Singleton key (1-200 characters), per job name: at most one pending job per (name, key). Scheduling
   * again with the same key replaces the pending job's data, time and attempts (a timer reset);
   * `cancel(job, key)` removes it. If the keyed job is already running, the new schedule is a new pending
   * job and the running one is not retried.
   */
  key?: string;
  /** Attempts in all (default: the handler's `maxAttempts`, else 5). Retries back off exponentially. */
  maxAttempts?: number;
  /**
   * Schedule inside this transaction: the job exists only if the transaction commits (and no node sees
   * it before). Use it when the job belongs to rows written in the same transaction.
   */
  trx?: Knex.Transaction;
}

export interface EveryOptions {
  /** IANA time zone the cron fields are read in (default `UTC`), e.g. `America/Sao_Paulo`. */
  tz?: string;
}

export interface Jobs {
  /**
   * Registers the handler of a job this plugin owns. Call during `register` (the worker starts after
   * every plugin registered). The handler's resolution completes the job; a throw (or rejection) is
   * retried with exponential backoff up to `maxAttempts`.
   * Throws (synchronously) when the job belongs to another plugin, already has a handler, or the worker
   * already started.
   */
  handle<Data>(job: JobDefinition<Data>, handler: (run: JobRun<Data>) => Promise<void>, opts?: JobHandlerOptions): void;
  /**
   * Schedules one run of `job` with `data`. Resolves with the job id once it is durably stored (or, with
   * `trx`, once it is written in that transaction). Works before the worker starts (seeds) and on nodes
   * without the handler; the job waits until a node that handles it is running.
   * Rejects on invalid options (`runAt` not a valid Date, negative `delayMs`, empty or too long `key`,
   * `maxAttempts` not an integer in 1..1000) or when the scheduler was closed.
   */
  schedule<Data>(job: JobDefinition<Data>, data: Data, opts?: ScheduleOptions): Promise<string>;
  /**
   * Runs this plugin's `job` on a cron schedule, once per tick across all nodes. `cron` has 5 fields
   * (minute hour day-of-month month day-of-week) or 6 (a leading seconds field), read in `opts.tz`
   * (default UTC; DST handled). Declare it during `register`, next to `handle`; the schedule is stored
   * at worker start (or at once when declared later). Re-declaring (same job, new cron, tz or data, e.g.
   * in a new release) replaces it; a node whose code no longer declares it ends it when it picks a tick.
   * A failing tick is logged and not retried (the next tick runs). Ticks missed while no node ran
   * are not back-filled: one catch-up run happens at start.
   * Rejects on an invalid cron or time zone, or a job of another plugin.
   */
  every<Data>(job: JobDefinition<Data>, cron: string, data: Data, opts?: EveryOptions): Promise<void>;
  /**
   * Removes the pending job of `job` with this key. Resolves true when a pending job was removed, false
   * when none was pending (a run already in progress finishes, but is not retried).
   */
  cancel(job: JobDefinition<unknown>, key: string, opts?: { trx?: Knex.Transaction }): Promise<boolean>;
}
