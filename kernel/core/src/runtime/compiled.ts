/**
 * Running the compiled build (`npm run build`, then `node kernel/core/dist/src/main.js`): the workspace
 * packages keep `"main": "src/index.ts"` (what tsc, jest, tsx and rspack read in development), and their
 * JavaScript lives beside the sources in `<package>/dist/<same path>.js` (scripts/build.mjs). Once
 * installed, every CommonJS resolution that lands on a workspace `.ts` file is mapped to that file's
 * compiled twin, so `require('@atendo/sdk')`, `@atendo/plugin-x/contract` and plugin discovery
 * (`require.resolve(packageName)`) load JavaScript, with no TypeScript runtime (tsx) on the path.
 *
 * A `.ts` file without a compiled twin is an error naming the file (a stale or partial build), never a
 * silent fallback to TypeScript.
 */
import Module from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { findPackageDir } from './paths';

type Resolve = (request: string, parent: unknown, isMain: boolean, options?: unknown) => string;

let installed = false;

/**
 * Where `file` (a workspace package's TypeScript source) is compiled to, or undefined for files outside
 * `root` and for the root package's own files (`bench/`, `e2e/`, `scripts/`: the build compiles workspace
 * packages only, so a benchmark run through tsx can load the compiled kernel).
 */
export function compiledPath(root: string, file: string): string | undefined {
  if (!file.endsWith('.ts') || file.endsWith('.d.ts')) return undefined;
  const rel = relative(root, file);
  if (rel.startsWith('..') || rel.split(sep).includes('node_modules')) return undefined;
  const pkgDir = findPackageDir(dirname(file));
  if (relative(root, pkgDir) === '') return undefined;
  return join(pkgDir, 'dist', relative(pkgDir, file)).replace(/\.ts$/, '.js');
}

/** Installs the mapping for the workspace under `root` (idempotent). */
export function useCompiledWorkspace(root: string): void {
  if (installed) return;
  installed = true;
  const mod = Module as unknown as { _resolveFilename: Resolve };
  const original = mod._resolveFilename;
  mod._resolveFilename = function resolveCompiled(this: unknown, request, parent, isMain, options) {
    const file = original.call(this, request, parent, isMain, options);
    const js = compiledPath(root, file);
    if (!js) return file;
    if (!existsSync(js)) throw new Error(`${relative(root, file)} has no compiled JavaScript (${relative(root, js)} is missing): run npm run build`);
    return js;
  };
}
