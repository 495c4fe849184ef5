// Installs the workspace's dependencies when they are missing or older than package-lock.json,
// so that `npm start` and `npm test` work on a fresh clone. Uses only Node built-ins.
import { existsSync, statSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const marker = join(root, 'node_modules', '.package-lock.json');
const lock = join(root, 'package-lock.json');
const stale = !existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs + 1000);
if (stale) {
  console.log('[atendo] installing dependencies (npm ci)…');
  // `npm ci` refuses a lock that lacks optional platform packages some registries do not serve
  // (e.g. @swc/core-darwin-arm64); `npm install` then installs the same locked versions.
  try {
    if (!existsSync(lock)) throw new Error('no lock');
    execSync('npm ci --no-audit --no-fund', { cwd: root, stdio: 'inherit' });
  } catch {
    execSync('npm install --no-audit --no-fund', { cwd: root, stdio: 'inherit' });
  }
}
