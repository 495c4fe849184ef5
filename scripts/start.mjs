// `npm start`: builds the web bundles when missing or older than their sources, then runs the API
// (kernel/core/src/main.ts) and the web server (shell/serve.ts) as two child processes with prefixed logs,
// forwarding SIGINT/SIGTERM to both. Node built-ins only.
//
//   node scripts/start.mjs               build if needed, then run API (PORT, default 8080) + web (WEB_PORT, default 3000)
//   node scripts/start.mjs --build-only  only build what is missing or stale (add --force to rebuild everything)
//
// The web server tells the browser the API is at API_URL (default http://localhost:$PORT); the API allows
// the web origin through FRONTEND_URL (default http://localhost:$WEB_PORT and http://127.0.0.1:$WEB_PORT).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code, s) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
const say = (msg) => console.log(`${paint('35', '[start]')} ${msg}`);

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

/** The web packages to build: the shell, then every area of shell/areas.json (each once). */
function webPackages() {
  const shared = ['microfrontends/api/src', 'microfrontends/ui/src', 'shell/federation.mjs', 'shell/areas.json', 'package-lock.json'].map((p) => join(ROOT, p));
  const pkgs = [{ dir: 'shell', output: 'dist/index.html', required: true, shared }];
  const { areas } = JSON.parse(readFileSync(join(ROOT, 'shell/areas.json'), 'utf8'));
  for (const area of areas) {
    if (!pkgs.some((p) => p.dir === area.package)) pkgs.push({ dir: area.package, output: 'dist/remoteEntry.js', required: false, shared, area: area.name });
  }
  return pkgs;
}

/** Builds each web package whose output is missing or older than its sources. Returns false if the shell failed. */
export function buildWeb({ force = false } = {}) {
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
      if (pkg.required) ok = false;
    }
  }
  return ok;
}

/** Runs `script` with tsx as a child process whose output lines are prefixed with `name`. */
function run(name, code, script, env) {
  const tsx = createRequire(import.meta.url).resolve('tsx/cli');
  const child = spawn(process.execPath, [tsx, script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
  const prefix = paint(code, `[${name}]`);
  for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream }).on('line', (line) => console.log(`${prefix} ${line}`));
  return child;
}

function main() {
  if (!buildWeb({ force: args.has('--force') })) {
    say(paint('31', 'the shell could not be built; fix the error above (or run npm run build -w shell)'));
    process.exit(1);
  }
  if (args.has('--build-only')) return;

  const port = process.env.PORT ?? '8080';
  const webPort = process.env.WEB_PORT ?? '3000';
  const apiEnv = {
    ...process.env,
    FRONTEND_URL: process.env.FRONTEND_URL ?? `http://localhost:${webPort},http://127.0.0.1:${webPort}`,
    BACKEND_URL: process.env.BACKEND_URL ?? `http://localhost:${port}`,
  };
  const webEnv = { ...process.env, WEB_PORT: webPort, API_URL: process.env.API_URL ?? `http://localhost:${port}` };
  const children = [
    { name: 'api', proc: run('api', '36', 'kernel/core/src/main.ts', apiEnv) },
    { name: 'web', proc: run('web', '32', 'shell/serve.ts', webEnv) },
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
        say(`${c.name} exited (${signal ?? code}); stopping`);
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
