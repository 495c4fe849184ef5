/**
 * Real processes for the deployment tests (production boot, two nodes): spawn a Node.js entry with its own
 * environment, keep its output lines, wait until an URL answers, stop it with a signal and wait for the
 * exit. Also a fresh, empty database on the test run's PostgreSQL server (kernel/testing's global setup),
 * which the process migrates itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dropDatabase, ensureDatabase } from '@atendo/core/src/db';
import { withDb } from '@atendo/testing/src/global-setup';

export interface NodeProcess {
  name: string;
  proc: ChildProcess;
  /** Every stdout and stderr line so far. */
  lines: string[];
  /** Resolves with the exit code (or the signal name) once the process has exited. */
  exited: Promise<number | string>;
  /** Sends `signal` (default SIGTERM) and waits for the exit; SIGKILL after `timeoutMs`. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | string>;
  /** The output, for failure messages. */
  output(): string;
}

export function startNode(name: string, args: string[], opts: { cwd: string; env: Record<string, string | undefined> }): NodeProcess {
  const proc = spawn(process.execPath, args, { cwd: opts.cwd, env: opts.env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  for (const stream of [proc.stdout!, proc.stderr!]) {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop() ?? '';
      lines.push(...parts);
    });
    stream.on('end', () => rest && lines.push(rest));
  }
  const exited = new Promise<number | string>((resolve) => proc.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const node: NodeProcess = {
    name,
    proc,
    lines,
    exited,
    output: () => lines.map((l) => `[${name}] ${l}`).join('\n'),
    stop: async (signal = 'SIGTERM', timeoutMs = 20_000) => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
  return node;
}

/** Polls `url` until it answers `status` (default 200); rejects with the process output after `timeoutMs`. */
export async function waitForUrl(url: string, node: NodeProcess, timeoutMs = 90_000, status = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (node.proc.exitCode !== null || node.proc.signalCode !== null) throw new Error(`${node.name} exited (${node.proc.exitCode ?? node.proc.signalCode}) before ${url} answered:\n${node.output()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.status === status) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = String(err);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms (last: ${last}):\n${node.output()}`);
}

/** A new empty database on the test run's PostgreSQL server; `drop()` removes it. */
export async function emptyDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.ATENDO_TEST_PG_BASE;
  if (!base) throw new Error('jest globalSetup (kernel/testing) did not run');
  const url = withDb(base, `${prefix}_${process.pid}_${randomBytes(3).toString('hex')}`);
  await ensureDatabase(url);
  return { url, drop: () => dropDatabase(url) };
}

/**
 * A new database on the test run's PostgreSQL server cloned from the run's template, which jest's global setup
 * migrated with the kernel's and every plugin's migrations (a process booting on it has none to run);
 * `drop()` removes it.
 */
export async function migratedDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.ATENDO_TEST_PG_BASE;
  const template = process.env.ATENDO_TEST_TEMPLATE;
  if (!base || !template) throw new Error('jest globalSetup (kernel/testing) did not run');
  const url = withDb(base, `${prefix}_${process.pid}_${randomBytes(3).toString('hex')}`);
  await ensureDatabase(url, template);
  return { url, drop: () => dropDatabase(url) };
}

/** The environment of a child process without the jest and npm variables of this one. */
export function cleanEnv(extra: Record<string, string | undefined>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(JEST_|npm_|NODE_OPTIONS$|TS_|ATENDO_TEST_|DATABASE_URL$|AMQP_URL$|NODE_ENV$)/.test(k)) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}
