// `npm run redrive`: puts dead-lettered inbox events and bus messages back (kernel/core/src/redrive.ts has
// the options). Runs the compiled command with plain node when NODE_ENV=production (after `npm run build`),
// else the TypeScript source through tsx. Node built-ins only.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const compiled = join(ROOT, 'kernel/core/dist/src/redrive.js');
const production = process.env.NODE_ENV === 'production';
if (production && !existsSync(compiled)) {
  console.error('redrive: NODE_ENV=production runs the compiled build, and kernel/core/dist/src/redrive.js is missing: run npm run build first');
  process.exit(1);
}
const argv = production ? [compiled] : [createRequire(import.meta.url).resolve('tsx/cli'), join(ROOT, 'kernel/core/src/redrive.ts')];
const r = spawnSync(process.execPath, [...argv, ...process.argv.slice(2)], { cwd: ROOT, stdio: 'inherit' });
process.exit(r.status ?? 1);
