/**
 * What the benchmarks run, imported first by every benchmark entry (before anything of the workspace):
 *
 * - BENCH_BUILD=compiled (the default): what production runs (`NODE_ENV=production npm start`): the
 *   JavaScript of `npm run build` (scripts/build.mjs --server-only, about a second, run once by the first
 *   benchmark process; its children inherit BENCH_BUILT=1), mapped in for every workspace import by the
 *   kernel's own `useCompiledWorkspace` (kernel/core/src/runtime/compiled.ts). The benchmark's own file
 *   still runs through tsx; the kernel, SDK, plugins and channels it loads do not.
 * - BENCH_BUILD=tsx: the TypeScript sources through tsx, as `npm start` runs in development (esbuild's
 *   keep-names `__name` wrapper around every named function and arrow: slower, more garbage).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');

/** "compiled" or "tsx" (printed with each benchmark's figures). */
export const BENCH_BUILD: 'compiled' | 'tsx' = process.env.BENCH_BUILD === 'tsx' ? 'tsx' : 'compiled';

if (BENCH_BUILD === 'compiled') {
  if (process.env.BENCH_BUILT !== '1') {
    execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--server-only'], { cwd: ROOT, stdio: 'pipe' });
    process.env.BENCH_BUILT = '1';
  }
  const { useCompiledWorkspace } = require(join(ROOT, 'kernel/core/dist/src/runtime/compiled.js')) as { useCompiledWorkspace(root: string): void };
  useCompiledWorkspace(ROOT);
}
