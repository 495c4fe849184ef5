/**
 * Running the compiled build (`npm run build`, then `node kernel/core/dist/src/main.js`): the workspace
 * packages keep `"main": "src/index.ts"` (what tsc, jest, tsx and rspack read in development), and their
 * JavaScript lives beside the sources in `<package>/dist/<same path>.js` (scripts/build.mjs). Once
 * installed, every CommonJS resolution that lands on a workspace `.ts` file is mapped to that file's
 * compiled twin, so `require('@atendo/sdk')`, `@atendo/plugin-x/contract` and plugin discovery
 * (`require.resolve(packageName)`) load JavaScript, with no TypeScript runtime (tsx) on the path.
 *
 * Plugin packages from outside the workspaces (installed from a tarball or a registry, or linked from a
 * folder) are compiled by the same build into their own `dist/` (scripts/build.mjs), and mapped the same way.
 *
 * A `.ts` file without a compiled twin is an error naming the file (a stale or partial build, or a plugin
 * installed after the build), never a silent fallback to TypeScript.
 */
import Module from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { findPackageDir } from './paths';
import { externalPlugins, isInside } from './plugin-packages';

type Resolve = (request: string, parent: unknown, isMain: boolean, options?: unknown) => string;

let installed = false;

/**
 * Where `file` (a workspace package's TypeScript source) is compiled to, or undefined for files outside
 * `root` and for the root package's own files (`bench/`, `e2e/`, `scripts/`: the build compiles workspace
 * packages only, so a benchmark run through tsx can load the compiled kernel).
 */
export function compiledPath(root: string, file: string, externalDirs: readonly string[] = []): string | undefined {
  if (!file.endsWith('.ts') || file.endsWith('.d.ts')) return undefined;
  // An external plugin package (tarball, registry or linked folder): scripts/build.mjs compiles it into its own dist/.
  const external = externalDirs.find((dir) => isInside(dir, file));
  if (external) {
    const inPkg = relative(external, file);
    return inPkg.split(sep).includes('node_modules') ? undefined : join(external, 'dist', inPkg).replace(/\.ts$/, '.js');
  }
  const rel = relative(root, file);
  if (rel.startsWith('..') || rel.split(sep).includes('node_modules')) return undefined;
  const pkgDir = findPackageDir(dirname(file));
  if (relative(root, pkgDir) === '') return undefined;
  return join(pkgDir, 'dist', relative(pkgDir, file)).replace(/\.ts$/, '.js');
}

/**
 * Installs the mapping for the workspace under `root` and its external plugin packages (those in its
 * node_modules at this moment; see plugin-packages.ts). Idempotent.
 */
export function useCompiledWorkspace(root: string): void {
  if (installed) return;
  installed = true;
  const externals = externalPlugins(root);
  const externalDirs = externals.map((p) => p.realDir);
  const checked = new Set<string>();
  const mod = Module as unknown as { _resolveFilename: Resolve };
  const original = mod._resolveFilename;
  mod._resolveFilename = function resolveCompiled(this: unknown, request, parent, isMain, options) {
    const file = original.call(this, request, parent, isMain, options);
    const js = compiledPath(root, file, externalDirs);
    if (!js) return file;
    if (!existsSync(js)) throw new Error(`${relative(root, file)} has no compiled JavaScript (${relative(root, js)} is missing): run npm run build`);
    const external = externals.find((p) => isInside(p.realDir, file));
    if (external && !checked.has(external.realDir)) {
      assertBuiltVersion(external.packageName, external.realDir);
      checked.add(external.realDir);
    }
    return js;
  };
}

/**
 * Throws when an external plugin's compiled JavaScript was built from another version of the package than
 * the one installed (a linked folder or a package upgraded without `npm run build`).
 */
export function assertBuiltVersion(name: string, dir: string): void {
  const read = (f: string) => JSON.parse(readFileSync(f, 'utf8')) as { version?: string };
  const installedVersion = read(join(dir, 'package.json')).version ?? '';
  const stamp = join(dir, 'dist', '.atendo-build.json');
  const built = existsSync(stamp) ? (read(stamp).version ?? '') : undefined;
  if (built !== installedVersion) {
    throw new Error(`plugin package ${name} ${installedVersion} (${dir}) ${built === undefined ? 'has no build' : `was compiled from version ${built}`}: run npm run build`);
  }
}
