// `npm run bundle-size`: the JavaScript a browser downloads for "/login, then sign in and open /tickets",
// measured in real Chromium (Debian's /usr/bin/chromium through playwright-core, as the browser tests).
// Node built-ins and the repository's own packages only.
//
//   node scripts/bundle-size.mjs            build the web bundles if stale, measure, print the table
//   node scripts/bundle-size.mjs --force    rebuild every web bundle first
//   node scripts/bundle-size.mjs --no-build measure the dist/ folders as they are
//   node scripts/bundle-size.mjs --json     print the measurement as JSON (files included)
//
// How: a throw-away API (kernel/core/src/main.ts, embedded PostgreSQL in a temporary DATA_DIR, free ports)
// and the shell's web server (shell/serve.ts) are started; a fresh browser profile (empty cache) opens
// /login and every .js response is recorded until the network is idle (group "login"); then the super
// admin signs in, lands on /tickets and the inbox's ticket manager renders (network idle again). The
// scripts of that second step are grouped as "shell after sign-in" (the shell's lazy chunks) and
// "inbox" (/areas/inbox/: remoteEntry.js + chunks); any other area would be listed on its own. Sizes, in KB
// of 1024 bytes: "sent" is what the web server actually sent for each response body (Chromium's own count
// of the encoded bytes, with the Content-Encoding it got: the build's precompressed brotli twins, see
// shell/serve.ts), then the decoded body raw and gzipped here with zlib level 9 (the comparable figure of
// earlier measurements). The gzip total is compared with the 300 KB target; the exit code is 1 above it.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildWeb } from './start.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const TARGET_KB = 300;
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ADMIN_EMAIL = 'admin@example.com';
const args = new Set(process.argv.slice(2));
const json = args.has('--json');
const log = (msg) => {
  if (!json) console.error(`[bundle-size] ${msg}`);
};

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const require = createRequire(import.meta.url);
const children = [];

/** Runs a TypeScript entry with tsx; its output is kept for the error message if it dies. */
function runTs(name, script, env) {
  const child = spawn(process.execPath, [require.resolve('tsx/cli'), script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.output = '';
  for (const s of [child.stdout, child.stderr]) s.on('data', (d) => (child.output = (child.output + d).slice(-20_000)));
  child.on('exit', (code, signal) => {
    if (!child.stopping) child.died = `${name} exited (${signal ?? code}):\n${child.output}`;
  });
  children.push(child);
  return child;
}

/** Waits until `url` answers (any HTTP status). */
async function waitHttp(url, child, timeoutMs = 120_000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (child.died) throw new Error(child.died);
    try {
      await fetch(url, { signal: AbortSignal.timeout(2000) });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`${url} did not answer in ${timeoutMs / 1000} s:\n${child.output}`);
}

async function stopChildren() {
  await Promise.all(
    children.map(
      (c) =>
        new Promise((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          c.stopping = true;
          const t = setTimeout(() => c.kill('SIGKILL'), 15_000);
          c.once('exit', () => {
            clearTimeout(t);
            resolve();
          });
          c.kill('SIGTERM');
        }),
    ),
  );
}

const kb = (n) => n / 1024;

/** Measures: returns `{groups: [{name, files: [{url, raw, gzip}]}]}`. */
async function measure() {
  const { chromium } = require('playwright-core');
  const [apiPort, pgPort, webPort] = [await freePort(), await freePort(), await freePort()];
  const base = `http://127.0.0.1:${webPort}`;
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'atendo-bundle-size-'));
  // Embedded PostgreSQL runs initdb as another user when started by root: it must reach DATA_DIR/pg.
  chmodSync(dataDir, 0o755);
  const profileDir = mkdtempSync(join(tmpdir(), 'atendo-bundle-size-chromium-'));
  const password = `bs-${Math.random().toString(36).slice(2)}-${Date.now().toString(36)}`;
  const env = { ...process.env };
  // A private embedded database and the in-process bus: nothing shared with a running install.
  delete env.DATABASE_URL;
  delete env.AMQP_URL;
  let browser;
  try {
    log('starting a throw-away API (embedded PostgreSQL) and the web server …');
    const api = runTs('api', 'kernel/core/src/main.ts', {
      ...env,
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      PORT: String(apiPort),
      HOST: '127.0.0.1',
      EMBEDDED_PG_PORT: String(pgPort),
      ADMIN_EMAIL,
      ADMIN_PASSWORD: password,
      SEED_DEMO: 'false',
      LOG_LEVEL: 'warn',
      WHATSAPP_SESSIONS_AUTOSTART: 'false',
      FRONTEND_URL: base,
      BACKEND_URL: apiUrl,
    });
    const web = runTs('web', 'shell/serve.ts', { ...env, WEB_PORT: String(webPort), WEB_HOST: '127.0.0.1', API_URL: apiUrl, LOG_LEVEL: 'warn' });
    await Promise.all([waitHttp(`${apiUrl}/`, api), waitHttp(`${base}/env.js`, web)]);

    log('Chromium: /login, then sign in and open /tickets …');
    browser = await chromium.launchPersistentContext(profileDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 800 }, locale: 'pt-BR' });
    const page = browser.pages()[0] ?? (await browser.newPage());
    let phase = 'login';
    const pending = [];
    const seen = new Map();
    page.on('response', (res) => {
      const url = new URL(res.url());
      if (url.origin !== base || !url.pathname.endsWith('.js') || !res.ok()) return;
      if (seen.has(url.pathname)) return;
      const entry = { phase, path: url.pathname, raw: 0, gzip: 0, sent: 0, encoding: res.headers()['content-encoding'] ?? 'identity' };
      seen.set(url.pathname, entry);
      pending.push(
        Promise.all([res.body(), res.request().sizes()]).then(
          ([body, sizes]) => {
            entry.raw = body.length;
            entry.gzip = gzipSync(body, { level: 9 }).length;
            // The body's bytes as they came over the network (encoded), headers excluded.
            entry.sent = sizes.responseBodySize;
          },
          (err) => {
            throw new Error(`could not read ${url.pathname}: ${err?.message ?? err}`);
          },
        ),
      );
    });
    const errors = [];
    page.on('pageerror', (err) => errors.push(String(err?.stack ?? err)));

    await page.goto(`${base}/login`, { waitUntil: 'networkidle' });
    await page.getByRole('button', { name: 'Acessar' }).waitFor();
    await page.waitForLoadState('networkidle');
    await Promise.all(pending);

    phase = 'tickets';
    await page.getByLabel('E-mail').fill(ADMIN_EMAIL);
    await page.getByLabel('Senha', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Acessar' }).click();
    await page.waitForURL(`${base}/tickets`);
    await page.getByTestId('tickets-manager').waitFor({ timeout: 60_000 });
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(1000);
    await Promise.all(pending);
    if (errors.length) throw new Error(`page errors:\n${errors.join('\n')}`);

    const groups = new Map();
    const add = (name, f) => {
      if (!groups.has(name)) groups.set(name, []);
      groups.get(name).push(f);
    };
    for (const f of seen.values()) {
      const area = /^\/areas\/([^/]+)\//.exec(f.path)?.[1];
      const file = { path: f.path, raw: f.raw, gzip: f.gzip, sent: f.sent, encoding: f.encoding };
      if (area) add(area === 'inbox' ? 'inbox (/tickets)' : `area ${area}`, file);
      else if (f.phase === 'login') add('login (shell)', file);
      else add('shell after sign-in', file);
    }
    const order = ['login (shell)', 'shell after sign-in', 'inbox (/tickets)'];
    return [...groups.entries()]
      .sort(([a], [b]) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99))
      .map(([name, files]) => ({ name, files: files.sort((x, y) => y.gzip - x.gzip) }));
  } finally {
    await browser?.close().catch(() => undefined);
    await stopChildren();
    rmSync(profileDir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  if (!args.has('--no-build')) {
    log(args.has('--force') ? 'rebuilding the web bundles …' : 'building the web bundles that are stale …');
    if (!buildWeb({ force: args.has('--force') })) throw new Error('the shell could not be built');
  }
  const groups = await measure();
  const sum = (files, k) => files.reduce((s, f) => s + f[k], 0);
  const total = { raw: 0, gzip: 0, sent: 0, files: 0 };
  for (const g of groups) {
    g.raw = sum(g.files, 'raw');
    g.gzip = sum(g.files, 'gzip');
    g.sent = sum(g.files, 'sent');
    total.raw += g.raw;
    total.gzip += g.gzip;
    total.sent += g.sent;
    total.files += g.files.length;
  }
  const ok = kb(total.gzip) < TARGET_KB;
  if (json) {
    console.log(JSON.stringify({ targetKB: TARGET_KB, ok, total, groups }, null, 2));
  } else {
    const pad = (s, n) => String(s).padEnd(n);
    const num = (n) => kb(n).toFixed(1).padStart(8);
    const lines = ['', `${pad('JavaScript for /login then /tickets', 40)}${'files'.padStart(6)}${'sent KB'.padStart(10)}${'raw KB'.padStart(10)}${'gzip KB'.padStart(10)}`];
    for (const g of groups) {
      lines.push(`${pad(g.name, 40)}${String(g.files.length).padStart(6)}  ${num(g.sent)}  ${num(g.raw)}  ${num(g.gzip)}`);
      for (const f of g.files) lines.push(`  ${pad(f.path, 38)}${(f.encoding === 'identity' ? '' : f.encoding).padStart(6)}  ${num(f.sent)}  ${num(f.raw)}  ${num(f.gzip)}`);
    }
    lines.push(`${pad('total', 40)}${String(total.files).padStart(6)}  ${num(total.sent)}  ${num(total.raw)}  ${num(total.gzip)}`);
    lines.push(`sent: the encoded bytes the web server sent (Content-Encoding after each file name; none = uncompressed)`);
    lines.push(`target: < ${TARGET_KB} KB gzipped: ${ok ? 'met' : 'NOT met'} (${kb(total.gzip).toFixed(1)} KB)`);
    console.log(lines.join('\n'));
  }
  process.exitCode = ok ? 0 : 1;
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    void stopChildren().then(() => process.exit(130));
  });
}

main().catch(async (err) => {
  console.error(err);
  await stopChildren();
  process.exit(2);
});
