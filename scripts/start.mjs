// `npm start`: runs the API and the web server as two child processes, forwarding SIGINT/SIGTERM to both.
// Node built-ins only. In development their lines are prefixed ([api], [web]); in production they pass
// through as they are (one JSON object per line, as a log collector reads them) and this script's own
// lines are JSON objects too (`"name":"start"`).
//
// - Development (NODE_ENV unset or development): builds the web bundles when missing or older than their
//   sources, then runs the TypeScript sources with tsx (kernel/core/src/main.ts, shell/serve.ts), with demo
//   data on first start (SEED_DEMO, default true here).
// - Production (NODE_ENV=production): runs the compiled build of `npm run build` with plain node
//   (kernel/core/dist/src/main.js, shell/dist-server/serve.js): no dev dependency (tsx, rspack) is used and
//   nothing is built; a missing build is an error that says so.
//
//   node scripts/start.mjs               run API (PORT, default 8080) + web (WEB_PORT, default 3000)
//   node scripts/start.mjs --build-only  only build the web UI where missing or stale (add --force to rebuild everything)
//
// The browser talks to the API at its own origin: the web server proxies /backend (REST and socket.io) to
// the API (API_PROXY_TARGET, default http://127.0.0.1:$PORT), so any host name works (localhost, 127.0.0.1,
// a LAN address). An explicit API_URL makes the browser call that URL instead; the API then allows the web
// origin through FRONTEND_URL (default http://localhost:$WEB_PORT and http://127.0.0.1:$WEB_PORT).
// Media URLs follow the same path: BACKEND_URL defaults to `/backend` (see mediaBaseUrl).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { withBuildLock } from './build-lock.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code, s) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
const productionLogs = process.env.NODE_ENV === 'production' && !args.has('--build-only');
/** One line of this script: `[start] …`, or in production a JSON log line (pino's shape; level 30 info, 50 error). */
const say = (msg, level = 30) =>
  console.log(productionLogs ? JSON.stringify({ level, time: Date.now(), pid: process.pid, name: 'start', msg: msg.replace(/\x1b\[[0-9;]*m/g, '') }) : `${paint('35', '[start]')} ${msg}`);

/** Newest modification time (ms) of the files under `paths` (folders walked, node_modules/dist skipped). */
function newest(paths) {
  let max = 0;
  const walk = (p) => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const name of readdirSync(p)) if (name !== 'node_modules' && name !== 'dist') walk(join(p, name));
    } else if (st.mtimeMs > max) max = st.mtimeMs;
  };
  for (const p of paths) walk(p);
  return max;
}

/** The web packages to build: the shell, then every area with a manifest (microfrontends/*\/area.json). */
function webPackages() {
  const require = createRequire(import.meta.url);
  const areas = require('../shell/area-manifests.cjs').loadAreaManifests(ROOT);
  const manifests = areas.map((a) => join(ROOT, a.package, 'area.json'));
  // The plugins' error texts, workspace and external packages (a newly installed plugin rebuilds the shell).
  const errorTexts = require('../shell/plugin-error-texts.cjs').pluginErrorTextFiles(ROOT);
  const shared = ['web/api/src', 'web/ui/src', 'web/kit/src', 'kernel/sdk/src/wire', 'shell/federation.mjs', 'shell/area-manifests.cjs', 'package-lock.json'].map((p) => join(ROOT, p));
  const pkgs = [{ dir: 'shell', output: 'dist/index.html', required: true, shared: [...shared, 'shell/plugin-error-texts.cjs', ...manifests, ...errorTexts].map((p) => (p.startsWith('/') ? p : join(ROOT, p))) }];
  for (const area of areas) {
    if (!pkgs.some((p) => p.dir === area.package)) pkgs.push({ dir: area.package, output: 'dist/remoteEntry.js', required: false, shared, area: area.name });
  }
  return pkgs;
}

/**
 * Builds each web package whose output is missing or older than its sources. Returns false if the shell failed.
 * Holds the checkout's build lock (scripts/build-lock.mjs): a second caller waits, then finds the UI fresh.
 */
export function buildWeb({ force = false, strict = false } = {}) {
  return withBuildLock(() => buildWebUnlocked(force, strict));
}

/** `strict`: an area that fails to build fails the whole build too (npm test: every area must build). */
function buildWebUnlocked(force, strict) {
  let ok = true;
  for (const pkg of webPackages()) {
    const dir = join(ROOT, pkg.dir);
    if (!existsSync(join(dir, 'package.json'))) {
      say(`${pkg.dir}: no package here yet, skipped (area ${pkg.area})`);
      continue;
    }
    const out = join(dir, pkg.output);
    const sources = newest([join(dir, 'src'), join(dir, 'rspack.config.mjs'), join(dir, 'package.json'), join(dir, 'public'), ...pkg.shared]);
    if (!force && existsSync(out) && statSync(out).mtimeMs >= sources) continue;
    say(`building ${pkg.dir} …`);
    const t0 = Date.now();
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const r = spawnSync(npm, ['run', 'build', '-w', pkg.dir, '--silent'], { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
    if (r.status === 0) {
      say(`built ${pkg.dir} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    } else {
      say(paint('31', `building ${pkg.dir} failed (exit ${r.status ?? r.signal})`) + (pkg.required ? '' : ': its routes will show a load error'));
      if (pkg.required || strict) ok = false;
    }
  }
  return ok;
}

/**
 * The base of the media URLs the API writes (BACKEND_URL) under `npm start`: an explicit BACKEND_URL wins;
 * with an explicit API_URL (the browser calls the API directly) that URL; else `/backend`, a path the
 * browser resolves against the origin it uses (the web server proxies /backend to the API). Pictures, voice
 * notes, videos, avatars, announcement images and quick-reply attachments then load from the web origin,
 * whatever host name it is reached by, within its Content-Security-Policy (shell/serve.ts).
 */
export function mediaBaseUrl(env = process.env) {
  return env.BACKEND_URL || env.API_URL || '/backend';
}

/**
 * Runs `script` (TypeScript through tsx, or compiled JavaScript with plain node) as a child process whose
 * output lines are prefixed with `name` (`prefix` false: passed through as they are).
 */
function run(name, code, script, env, prefixLines = true) {
  const argv = script.endsWith('.ts') ? [createRequire(import.meta.url).resolve('tsx/cli'), script] : [script];
  // The children write to pipes: keep their colours when this terminal shows colours.
  const childEnv = color && env.FORCE_COLOR === undefined ? { ...env, FORCE_COLOR: '1' } : env;
  const child = spawn(process.execPath, argv, { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
  const prefix = paint(code, `[${name}]`);
  for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream }).on('line', (line) => console.log(prefixLines ? `${prefix} ${line}` : line));
  return child;
}

/** The compiled entry points of `npm run build`; exits with a message when one is missing. */
function compiledEntries() {
  const entries = { api: 'kernel/core/dist/src/main.js', web: 'shell/dist-server/serve.js', ui: 'shell/dist/index.html' };
  const missing = Object.values(entries).filter((f) => !existsSync(join(ROOT, f)));
  if (missing.length) {
    say(paint('31', `NODE_ENV=production runs the compiled build, and ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} missing: run npm run build first`), 50);
    process.exit(1);
  }
  return entries;
}

/**
 * The API process's environment under `npm start`: `env` with the defaults filled in. TRUST_PROXY (the
 * client address an X-Forwarded-For names is believed) defaults to `loopback` only where the bundled web
 * server is in front of the API, i.e. the browser reaches the API through it (`/backend`, API_URL unset):
 * with API_URL set the browser calls the API directly and a loopback peer is any local process, so nothing
 * is trusted unless TRUST_PROXY says so. In production too: the rule is where the web server is, not the mode.
 */
export function apiEnvironment(env, { production, webPort }) {
  const webInFront = !env.API_URL;
  const out = {
    ...env,
    // Demo attendants and connections on a development first start; never in production.
    SEED_DEMO: env.SEED_DEMO ?? (production ? 'false' : 'true'),
    // The demo's connections cannot reach WhatsApp: reset codes go to the [api] log (never in production).
    DEV_LOG_RESET_CODES: env.DEV_LOG_RESET_CODES ?? (production ? 'false' : 'true'),
    FRONTEND_URL: env.FRONTEND_URL ?? `http://localhost:${webPort},http://127.0.0.1:${webPort}`,
    // Media URLs resolve against the origin the browser uses (see mediaBaseUrl).
    BACKEND_URL: mediaBaseUrl(env),
  };
  if (env.TRUST_PROXY === undefined && webInFront) out.TRUST_PROXY = 'loopback';
  return out;
}

function main() {
  const production = process.env.NODE_ENV === 'production' && !args.has('--build-only');
  if (!production && !buildWeb({ force: args.has('--force') })) {
    say(paint('31', 'the shell could not be built; fix the error above (or run npm run build -w shell)'));
    process.exit(1);
  }
  if (args.has('--build-only')) return;
  const entries = production ? compiledEntries() : undefined;

  const port = process.env.PORT ?? '8080';
  const webPort = process.env.WEB_PORT ?? '3000';
  const apiEnv = apiEnvironment(process.env, { production, port, webPort });
  // The browser reaches the API through the web server (/backend on its own origin) unless API_URL is set.
  const webEnv = { ...process.env, WEB_PORT: webPort, API_PROXY_TARGET: process.env.API_PROXY_TARGET ?? `http://127.0.0.1:${port}` };
  const children = [
    { name: 'api', proc: run('api', '36', entries ? entries.api : 'kernel/core/src/main.ts', apiEnv, !production) },
    { name: 'web', proc: run('web', '32', entries ? entries.web : 'shell/serve.ts', webEnv, !production) },
  ];
  let stopping = false;
  let exitCode = 0;
  const alive = () => children.filter((c) => c.proc.exitCode === null && c.proc.signalCode === null);
  const stop = (signal) => {
    if (stopping) return;
    stopping = true;
    for (const c of alive()) c.proc.kill(signal);
    // Whatever has not closed in 15 s is killed.
    setTimeout(() => {
      for (const c of alive()) c.proc.kill('SIGKILL');
    }, 15_000).unref();
  };
  for (const c of children) {
    c.proc.on('exit', (code, signal) => {
      if (!stopping) {
        say(`${c.name} exited (${signal ?? code}); stopping`, 50);
        exitCode = code || 1;
        stop('SIGTERM');
      }
      if (alive().length === 0) process.exit(exitCode);
    });
  }
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => stop(signal));
  process.on('exit', () => {
    for (const c of alive()) c.proc.kill('SIGKILL');
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
