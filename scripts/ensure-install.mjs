// Installs the workspace's dependencies with `npm ci` when they are missing or older than
// package-lock.json, so that `npm start` and `npm test` work on a fresh clone. Uses only Node built-ins.
// There is no `npm install` fallback: `npm ci` installs exactly the lock file (it never rewrites it), and a
// failure is a real problem to report (a lock out of sync with a package.json, no registry).
// Also refuses a Node.js outside the `engines` range of package.json (kept equal to .nvmrc).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { engines } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const wanted = readFileSync(join(root, '.nvmrc'), 'utf8').trim();
const [major, minor] = process.versions.node.split('.').map(Number);
const [, minMinor = '0'] = /\^\d+\.(\d+)/.exec(engines.node) ?? [];
if (String(major) !== wanted || minor < Number(minMinor)) {
  console.error(`[atendo] Node.js ${process.versions.node} is not supported: use Node ${engines.node} (.nvmrc: ${wanted}; e.g. \`nvm use\`).`);
  process.exit(1);
}

const marker = join(root, 'node_modules', '.package-lock.json');
const lock = join(root, 'package-lock.json');
const stale = !existsSync(marker) || statSync(lock).mtimeMs > statSync(marker).mtimeMs + 1000;
if (stale) {
  // Under NODE_ENV=production npm leaves out the dev dependencies, as a production install should.
  console.log('[atendo] installing dependencies (npm ci)…');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) {
    console.error('[atendo] npm ci failed (see above). The lock file is never rewritten here: fix the cause and run npm ci.');
    process.exit(r.status ?? 1);
  }
}
