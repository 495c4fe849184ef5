/**
 * `npm run bench:plugins`: what running a TypeScript plugin package from outside the workspaces costs in
 * production, with the approach the product takes (scripts/build.mjs compiles it into its own dist/ at
 * build time; plain node at run time) and with the alternative it did not take (loading its TypeScript at
 * every start through tsx's register API, which also puts tsx and esbuild in the production install).
 *
 * In a hard-linked copy of this checkout (e2e/support/checkout-copy.ts) with examples/echo-integration
 * linked from a folder outside it (what `npm install <folder>` makes):
 * 1. build: the time `npm run build` adds for the plugin (its own line of the build's output);
 * 2. boot: `NODE_ENV=production node kernel/core/dist/src/main.js` from spawn to `GET /ready` 200, and the API
 *    process's resident memory (VmRSS) then, median of BENCH_BOOTS (default 3) boots, without and with the
 *    plugin (the database migrated by a first, unmeasured boot);
 * 3. load: loading the plugin's definition alone in a fresh process (the product's compiled SDK and
 *    contracts already loaded), from the build's JavaScript, and through tsx's register API with an empty
 *    tsx cache (first start after a deploy) and a warm one: milliseconds and resident memory added.
 *
 * Needs DATABASE_URL (a PostgreSQL server; the benchmark creates and drops a database of its own).
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkoutCopy, ROOT } from '../e2e/support/checkout-copy';

const NAME = 'atendo-plugin-echo-integration';
const BOOTS = Number(process.env.BENCH_BOOTS ?? 3);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** One production boot of the copy: ms from spawn to /ready, RSS (MB) then; stops it with SIGTERM. */
async function boot(copy: string, env: Record<string, string>): Promise<{ ms: number; rssMb: number }> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, ['kernel/core/dist/src/main.js'], { cwd: copy, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the API exited (${child.exitCode}): ${err}`);
      try {
        if ((await fetch(`http://127.0.0.1:${port}/ready`)).status === 200) break;
      } catch {
        /* not listening yet */
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return { ms: performance.now() - t0, rssMb: rssOf(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

/** The child of the "load" measurement: loads the plugin's definition and prints {ms, rssMb} added. */
const LOAD_CHILD = `
const { existsSync, rmSync, symlinkSync } = require('node:fs');
const { join } = require('node:path');
const [root, name, target, mode] = process.argv.slice(2);
const link = join(root, 'node_modules', name);
// For tsx, the compiled mapping is installed while the plugin is not linked (so its .ts is not mapped).
if (mode !== 'compiled') rmSync(link, { force: true });
require(join(root, 'kernel/core/dist/src/runtime/register.js'));
const { loadDefinition } = require(join(root, 'kernel/core/dist/src/plugins/loader.js'));
const req = require('node:module').createRequire(join(root, 'package.json'));
req('@atendo/sdk'); req('@atendo/sdk/plugins/integrations'); req('@atendo/sdk/plugins/tickets');
if (!existsSync(link)) symlinkSync(target, link, 'dir');
global.gc?.();
const rss0 = process.memoryUsage().rss;
const t0 = performance.now();
(async () => {
  if (mode !== 'compiled') {
    // The loader imports the entry with import(): both of tsx's hooks (require and import) are needed.
    require(require.resolve('tsx/cjs/api', { paths: [root] })).register();
    (await import(require('node:url').pathToFileURL(join(root, 'node_modules/tsx/dist/esm/api/index.mjs')).href)).register();
  }
  const def = await loadDefinition(root, { packageName: name, dir: link });
  const ms = performance.now() - t0;
  global.gc?.();
  console.log(JSON.stringify({ id: def.id, ms, rssMb: (process.memoryUsage().rss - rss0) / 2 ** 20 }));
})();
`;

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL is required');
  execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--server-only'], { cwd: ROOT, stdio: 'pipe' });
  const copy = checkoutCopy({ prefix: 'atendo-bench-plugins-' });
  const work = mkdtempSync(join(tmpdir(), 'atendo-bench-plugin-src-'));
  const plugin = join(work, 'echo-integration');
  cpSync(join(ROOT, 'examples/echo-integration'), plugin, { recursive: true, filter: (f) => !/[\\/](node_modules|dist)$/.test(f) });
  const link = join(copy, 'node_modules', NAME);
  const { dropDatabase, ensureDatabase } = await import('@atendo/core/src/db');
  const u = new URL(process.env.DATABASE_URL);
  u.pathname = `/atendo_bench_plugins_${process.pid}`;
  const dbUrl = u.toString();
  await ensureDatabase(dbUrl);
  try {
    symlinkSync(plugin, link, 'dir');
    const out = execFileSync(process.execPath, ['scripts/build.mjs', '--server-only'], { cwd: copy, encoding: 'utf8' });
    const compiled = /external plugins: .* compiled in ([\d.]+) s/.exec(out)?.[1];

    const env = {
      PATH: '/usr/bin:/bin',
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      DATABASE_URL: dbUrl,
      DATA_DIR: join(copy, '.data'),
      JWT_SECRET: randomBytes(32).toString('hex'),
      JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
      ADMIN_EMAIL: 'owner@example.com',
      ADMIN_PASSWORD: randomBytes(8).toString('hex'),
      WHATSAPP_SESSIONS_AUTOSTART: 'false',
      LOG_LEVEL: 'warn',
    };
    await boot(copy, env); // migrates the database
    const withPlugin: { ms: number; rssMb: number }[] = [];
    const without: { ms: number; rssMb: number }[] = [];
    for (let i = 0; i < BOOTS; i++) {
      rmSync(link, { force: true });
      without.push(await boot(copy, env));
      symlinkSync(plugin, link, 'dir');
      withPlugin.push(await boot(copy, env));
    }

    const childFile = join(work, 'load.cjs');
    writeFileSync(childFile, LOAD_CHILD);
    const load = (mode: string, tmp: string) =>
      JSON.parse(execFileSync(process.execPath, ['--expose-gc', childFile, copy, NAME, plugin, mode], { cwd: copy, encoding: 'utf8', env: { ...process.env, TMPDIR: tmp } }).trim()) as { ms: number; rssMb: number };
    const tsxCache = mkdtempSync(join(tmpdir(), 'atendo-bench-tsx-'));
    let loads: Record<'compiled' | 'tsxCold' | 'tsxWarm', { ms: number; rssMb: number }>;
    try {
      loads = { compiled: load('compiled', tmpdir()), tsxCold: load('tsx', tsxCache), tsxWarm: load('tsx', tsxCache) };
    } finally {
      rmSync(tsxCache, { recursive: true, force: true });
    }

    const f = (n: number) => n.toFixed(0);
    console.log(`third-party plugin ${NAME} (linked folder), production build, ${BOOTS} boots each (median)`);
    console.log(`  build:  the plugin compiled by npm run build in ${compiled ?? '?'} s`);
    console.log(`  boot:   product only        ${f(median(without.map((b) => b.ms)))} ms to /ready, RSS ${f(median(without.map((b) => b.rssMb)))} MB`);
    console.log(`          product + plugin    ${f(median(withPlugin.map((b) => b.ms)))} ms to /ready, RSS ${f(median(withPlugin.map((b) => b.rssMb)))} MB`);
    console.log(`  load:   compiled JavaScript ${loads.compiled.ms.toFixed(1)} ms, +${loads.compiled.rssMb.toFixed(1)} MB RSS`);
    console.log(`          tsx register, cold  ${loads.tsxCold.ms.toFixed(1)} ms, +${loads.tsxCold.rssMb.toFixed(1)} MB RSS (not taken)`);
    console.log(`          tsx register, warm  ${loads.tsxWarm.ms.toFixed(1)} ms, +${loads.tsxWarm.rssMb.toFixed(1)} MB RSS (not taken)`);
  } finally {
    await dropDatabase(dbUrl);
    rmSync(copy, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
