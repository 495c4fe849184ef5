/**
 * Takes docs/inbox.png, the README's picture of the inbox with replayed tickets, from an `npm start`-like
 * setup on a fresh data directory:
 *
 *   1. builds the web bundles when missing or stale (`node scripts/start.mjs --build-only`);
 *   2. runs the API as `npm start` does (`tsx kernel/core/src/main.ts`, embedded PostgreSQL, SEED_DEMO=true)
 *      with DATA_DIR, PORT and EMBEDDED_PG_PORT of its own, and the web server (shell/serve.ts) next to it;
 *   3. signs in on the login page as the demo attendant ana@example.com (password from
 *      DATA_DIR/initial-credentials.txt) and opens the pending tab;
 *   4. replays the Meta fixtures with `scripts/replay.ts` (API_URL and DATA_DIR set, so it signs with the
 *      generated DATA_DIR/meta-secrets.json), waits for the tickets to arrive live, and saves the picture.
 *
 *   npx tsx scripts/screenshot.ts [--out docs/inbox.png] [--keep]
 *
 * Env: SHOT_DATA_DIR (default /tmp/atendo-shot; wiped first), SHOT_API_PORT (8093), SHOT_PG_PORT (54393),
 * SHOT_WEB_PORT (3093). Needs /usr/bin/chromium.
 * `--keep` leaves the servers running (Ctrl-C stops them) to look around at http://localhost:<SHOT_WEB_PORT>.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium } from 'playwright-core';
import { createWebServer } from '../shell/serve';
import { CHROMIUM, CHROMIUM_ARGS as ARGS } from '../shell/test/harness';

const ROOT = resolve(__dirname, '..');

const argv = process.argv.slice(2);
const outIndex = argv.indexOf('--out');
const OUT = resolve(ROOT, outIndex >= 0 ? argv[outIndex + 1] : 'docs/inbox.png');
const KEEP = argv.includes('--keep');
const DATA_DIR = resolve(process.env.SHOT_DATA_DIR ?? '/tmp/atendo-shot');
const API_PORT = Number(process.env.SHOT_API_PORT ?? 8093);
const PG_PORT = Number(process.env.SHOT_PG_PORT ?? 54393);
const WEB_PORT = Number(process.env.SHOT_WEB_PORT ?? 3093);
const FIXTURES = join(ROOT, 'fixtures', 'channels');
const API = `http://localhost:${API_PORT}`;
const WEB = `http://localhost:${WEB_PORT}`;

const say = (msg: string) => console.log(`[screenshot] ${msg}`);
const tsx = require.resolve('tsx/cli');

/** Runs `script` with tsx as a child process, its output prefixed with `[name]`. */
function run(name: string, script: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, [tsx, script, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [child.stdout!, child.stderr!]) createInterface({ input: stream }).on('line', (line) => console.log(`[${name}] ${line}`));
  return child;
}

async function until<T>(what: string, check: () => Promise<T | undefined>, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function main(): Promise<void> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (apt install chromium)`);
  if (!existsSync(FIXTURES)) throw new Error(`fixtures not found at ${FIXTURES}`);

  say('building the web bundles when missing or stale');
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts/start.mjs'), '--build-only'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('the web build failed');

  rmSync(DATA_DIR, { recursive: true, force: true });
  say(`API on ${API} with a fresh DATA_DIR=${DATA_DIR}`);
  const api = run('api', 'kernel/core/src/main.ts', [], {
    ...process.env,
    DATA_DIR,
    PORT: String(API_PORT),
    EMBEDDED_PG_PORT: String(PG_PORT),
    SEED_DEMO: 'true',
    LOG_LEVEL: 'error',
    FRONTEND_URL: `${WEB},http://127.0.0.1:${WEB_PORT}`,
    BACKEND_URL: API,
  });
  let web: Awaited<ReturnType<typeof createWebServer>> | undefined;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  const stop = async () => {
    await browser.close().catch(() => undefined);
    await web?.close().catch(() => undefined);
    if (api.exitCode === null && api.signalCode === null) {
      api.kill('SIGTERM');
      await new Promise((r) => api.once('exit', r));
    }
  };
  try {
    await until('the API', async () => ((await fetch(`${API}/health`)).ok ? true : undefined), 120_000);
    web = await createWebServer({ apiUrl: API });
    await web.listen({ port: WEB_PORT, host: '127.0.0.1' });
    say(`web UI on ${WEB}`);

    // The demo attendants' password, as `npm start` printed it.
    const credentials = readFileSync(join(DATA_DIR, 'initial-credentials.txt'), 'utf8');
    const password = /demo attendants \([^)]*\): (\S+)/.exec(credentials)?.[1];
    if (!password) throw new Error('no demo attendant password in initial-credentials.txt');

    const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, locale: 'pt-BR', deviceScaleFactor: 1 });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(String(err)));
    await page.goto(`${WEB}/login`);
    await page.getByLabel('E-mail').fill('ana@example.com');
    await page.getByLabel('Senha', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Acessar' }).click();
    await page.waitForURL(`${WEB}/tickets`);
    await page.getByTestId('tickets-manager').waitFor({ timeout: 30_000 });
    await page.getByTestId('subtab-pending').click();
    await page.getByTestId('tickets-empty').waitFor();
    await page.waitForTimeout(500); // the socket joins its rooms

    say(`replaying ${FIXTURES}`);
    const replay = spawnSync(process.execPath, [tsx, 'scripts/replay.ts', FIXTURES], { cwd: ROOT, env: { ...process.env, API_URL: API, DATA_DIR }, encoding: 'utf8' });
    console.log(replay.stdout.trim().split('\n').slice(-1)[0]);
    if (replay.status !== 0) throw new Error(`replay failed: ${replay.stderr || replay.stdout}`);

    // The tickets arrive live (no reload); wait until the list settles.
    await page.getByTestId('ticket-row').first().waitFor({ timeout: 20_000 });
    let last = -1;
    await until('the list to settle', async () => {
      const n = await page.getByTestId('ticket-row').count();
      const settled = n === last && n > 0;
      last = n;
      return settled || undefined;
    }, 20_000);
    await page.waitForTimeout(1000);
    mkdirSync(dirname(OUT), { recursive: true });
    await page.screenshot({ path: OUT });
    say(`${last} tickets in the pending tab; saved ${OUT} (${(statSync(OUT).size / 1024).toFixed(0)} KiB)`);
    if (errors.length) throw new Error(`page errors: ${errors.join('\n')}`);

    if (KEEP) {
      say(`still running: ${WEB} (ana@example.com / ${password}); Ctrl-C stops`);
      await new Promise<void>((r) => process.once('SIGINT', () => r()));
    }
  } finally {
    await stop();
    if (!KEEP) rmSync(DATA_DIR, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
