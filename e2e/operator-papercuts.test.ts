/**
 * What an operator meets first (issue 31, item 13), each checked where it happens:
 * - `npm run replay` posts to the API on PORT (as `npm start` runs it) unless API_URL says otherwise;
 * - deploy/.env.example pre-fills no host name, and the README's fill-in list names every value to fill in,
 *   SITE_ADDRESS and COOKIE_SECURE included; the README's restore command works on an empty database;
 * - a bad LOG_LEVEL stops the API with one line that lists the allowed values (text in development, one JSON
 *   line in production);
 * - a wrong database password prints one JSON line in production, no plain stack before it;
 * - Ctrl-C of `npm start` (SIGINT to scripts/start.mjs, embedded PostgreSQL) closes the API and the web
 *   server quietly: exit 0, no stack trace, no pg client internals (its `secretKey`).
 * (Production `npm start` printing JSON lines only: e2e/production-boot.test.ts.)
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { replayApiUrl } from '../scripts/replay';
import { buildWeb, freePort } from '../shell/test/harness';
import { cleanEnv, startNode, waitForUrl, type NodeProcess } from './support/processes';

jest.setTimeout(300_000);

const ROOT = resolve(__dirname, '..');
const TSX = require.resolve('tsx/cli');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

describe('npm run replay', () => {
  test('targets the API on PORT unless API_URL is set', () => {
    expect(replayApiUrl({})).toBe('http://localhost:8080');
    expect(replayApiUrl({ PORT: '8093' })).toBe('http://localhost:8093');
    expect(replayApiUrl({ PORT: '8093', API_URL: 'https://api.example.com/' })).toBe('https://api.example.com');
  });
});

describe('deploy/.env.example and the README', () => {
  const example = readFileSync(join(ROOT, 'deploy/.env.example'), 'utf8');
  const set = new Map([...example.matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => [m[1], m[2]]));

  test('no host-specific value is pre-filled: SITE_ADDRESS and PUBLIC_URL are the operator’s', () => {
    expect(set.get('SITE_ADDRESS') ?? '').toBe('');
    expect(set.get('PUBLIC_URL')).toBe('');
    expect(example).toMatch(/^# SITE_ADDRESS=/m);
  });

  test('the fill-in list of the compose steps names every empty value, SITE_ADDRESS and COOKIE_SECURE', () => {
    const line = /cp deploy\/\.env\.example deploy\/\.env\s+#(.*)/.exec(README)?.[1] ?? '';
    const toFill = [...set.entries()].filter(([, v]) => v === '').map(([k]) => k);
    expect(toFill.length).toBeGreaterThan(4);
    for (const name of [...toFill, 'SITE_ADDRESS', 'COOKIE_SECURE']) expect({ name, listed: line.includes(name) }).toEqual({ name, listed: true });
  });

  test('every pg_restore --clean of the README also says --if-exists (restoring into an empty database)', () => {
    const restores = README.split('\n').filter((l) => /pg_restore\b.*--clean/.test(l));
    expect(restores.length).toBeGreaterThan(0);
    for (const l of restores) expect(l).toContain('--if-exists');
  });
});

/** Runs the API entry (TypeScript) until it exits; returns its exit code and output lines. */
async function bootOnce(env: Record<string, string | undefined>): Promise<{ code: number | string; lines: string[] }> {
  const api = startNode('api', [TSX, 'kernel/core/src/main.ts'], { cwd: ROOT, env: cleanEnv({ PORT: '0', HOST: '127.0.0.1', ...env }) });
  const code = await Promise.race([api.exited, new Promise<string>((r) => setTimeout(() => r('still running'), 60_000))]);
  if (code === 'still running') await api.stop('SIGKILL');
  await new Promise((r) => setTimeout(r, 50));
  return { code, lines: api.lines.filter((l) => l.trim()) };
}

describe('the API refusing to start says why in one line', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'atendo-papercuts-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  test('a bad LOG_LEVEL: one line naming it and listing the allowed values (development and production)', async () => {
    const dev = await bootOnce({ NODE_ENV: 'development', LOG_LEVEL: 'loud', DATA_DIR: dataDir });
    expect(dev.code).toBe(1);
    expect(dev.lines).toHaveLength(1);
    expect(dev.lines[0]).toContain('LOG_LEVEL="loud" is not allowed: use one of fatal, error, warn, info, debug, trace, silent');
    expect(dev.lines[0].match(/LOG_LEVEL/g)).toHaveLength(1);

    const prod = await bootOnce({ NODE_ENV: 'production', LOG_LEVEL: 'loud', DATA_DIR: dataDir, JWT_SECRET: randomBytes(32).toString('hex'), JWT_REFRESH_SECRET: randomBytes(32).toString('hex') });
    expect(prod.code).toBe(1);
    expect(prod.lines).toHaveLength(1);
    const line = JSON.parse(prod.lines[0]) as { level: number; msg: string };
    expect(line.level).toBe(60);
    for (const l of LEVELS) expect(line.msg).toContain(l);
  });

  test('a wrong database password in production: JSON lines only, the fatal one naming the cause, no secret', async () => {
    const base = process.env.ATENDO_TEST_PG_BASE;
    if (!base) throw new Error('jest globalSetup (kernel/testing) did not run');
    const url = new URL(base);
    url.password = `wrong-${randomBytes(4).toString('hex')}`;
    url.pathname = '/postgres';
    const run = await bootOnce({ NODE_ENV: 'production', DATABASE_URL: url.toString(), DATA_DIR: dataDir, JWT_SECRET: randomBytes(32).toString('hex'), JWT_REFRESH_SECRET: randomBytes(32).toString('hex') });
    expect(run.code).toBe(1);
    const parsed = run.lines.map((l) => {
      try {
        return JSON.parse(l) as { level: number; msg: string };
      } catch {
        return l;
      }
    });
    expect(parsed.filter((p) => typeof p === 'string')).toEqual([]);
    const fatal = parsed.filter((p) => typeof p !== 'string' && p.level === 60) as { msg: string }[];
    expect(fatal).toHaveLength(1);
    expect(fatal[0].msg).toMatch(/password authentication failed/);
    expect(run.lines.join('\n')).not.toContain(url.password);
  });
});

describe('Ctrl-C of npm start (development, embedded PostgreSQL)', () => {
  let dataDir: string;
  let start: NodeProcess | undefined;
  beforeAll(() => {
    buildWeb(400_000);
    dataDir = mkdtempSync(join(tmpdir(), 'atendo-ctrl-c-'));
    // Embedded PostgreSQL runs initdb as another user when started by root: it must reach DATA_DIR/pg.
    chmodSync(dataDir, 0o755);
  }, 420_000);
  afterAll(async () => {
    await start?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('SIGINT closes the API and the web server with exit 0, no stack trace and no pg client internals', async () => {
    const [port, webPort, pgPort] = [await freePort(), await freePort(), await freePort()];
    const env = cleanEnv({ NODE_ENV: 'development', DATA_DIR: join(dataDir, 'data'), PORT: String(port), WEB_PORT: String(webPort), HOST: '127.0.0.1', WEB_HOST: '127.0.0.1', EMBEDDED_PG_PORT: String(pgPort), SEED_DEMO: 'false', WHATSAPP_SESSIONS_AUTOSTART: 'false', NO_COLOR: '1' });
    start = startNode('start', ['scripts/start.mjs'], { cwd: ROOT, env });
    await waitForUrl(`http://127.0.0.1:${port}/ready`, start, 180_000);
    await waitForUrl(`http://127.0.0.1:${webPort}/healthz`, start, 60_000);
    // Some work first, so that pools hold connections (the jobs pool, knex).
    expect((await fetch(`http://127.0.0.1:${webPort}/backend/ready`)).status).toBe(200);
    const before = start.lines.length;
    expect(await start.stop('SIGINT', 30_000)).toBe(0);
    const shutdown = start.lines.slice(before);
    const out = shutdown.join('\n');
    expect(out).toContain('closed');
    expect(out).not.toContain('secretKey');
    expect(out).not.toMatch(/terminating connection due to administrator command/);
    expect(shutdown.filter((l) => /^\s*(\[\w+\]\s+)?\s*at .+:\d+:\d+\)?$/.test(l))).toEqual([]);
    expect(shutdown.length).toBeLessThan(15);
  });
});
