// `npm test`: the type-check and the build side by side, then jest on two workers.
//
// 1. scripts/ensure-install.mjs (npm ci when node_modules is missing or older than the lock);
// 2. at the same time: `npm run typecheck` (tsc over every package) and `node scripts/build.mjs` (the server
//    code and the web UI, each skipped when fresh; --strict: an area that does not build fails the run): the
//    e2e and browser tests run the build, so it is made
//    once here, before the workers start, instead of inside the first test that needs it;
// 3. jest with the arguments given to `npm test -- …` (e.g. a path, or `--json --outputFile=…`), on the
//    config's workers (jest.config.js: 2, each restarted past workerIdleMemoryLimit), each with an 8 GiB heap.
// Exits with the first failure's code; jest still runs when the type-check fails, so one run reports both.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const install = spawnSync(process.execPath, [join(ROOT, 'scripts/ensure-install.mjs')], { cwd: ROOT, stdio: 'inherit' });
if (install.status !== 0) process.exit(install.status ?? 1);

/** Runs a command, its output passed through; resolves with its exit code. */
const run = (label, cmd, args) =>
  new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(cmd, args, { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
    child.on('exit', (code, signal) => {
      console.log(`[test] ${label}: ${code === 0 ? 'ok' : `failed (${code ?? signal})`} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
      resolve(code ?? 1);
    });
  });

const [typecheck, build] = await Promise.all([
  run('type-check', npm, ['run', 'typecheck', '--silent']),
  run('build', process.execPath, [join(ROOT, 'scripts/build.mjs'), '--strict']),
]);
const jest = await run('jest', process.execPath, ['--max-old-space-size=8192', require.resolve('jest/bin/jest'), ...process.argv.slice(2)]);
process.exit(typecheck || build || jest);
