/**
 * Each workspace package's package.json matches what its files import:
 * - a package imported by a source file (anything outside `test/` and the package's root build configs)
 *   is in `dependencies` (or `peerDependencies` / `optionalDependencies`);
 * - a package imported only by tests or build configs (`*.config.*` at the package root, and the root files
 *   its rspack config imports, such as the shell's `federation.mjs`) is in
 *   `dependencies` or `devDependencies`; for tests, the workspace's shared test tooling in the root
 *   package.json's `devDependencies` (jest, socket.io-client, typescript…) also counts;
 * - the browser code of a web package (`src/` of a package built by rspack: an `rspack.config.mjs` at its
 *   root) is bundled at build time, when every dependency is installed, and nothing resolves its imports at
 *   run time: they may be in `devDependencies` too (the module-federation runtime is, so that its build
 *   tools, rspack's native binding and TypeScript, are not production dependencies). The package's other
 *   files (the shell's web server, `serve.ts`) stay sources;
 * - every `@atendo/*` package declared in `dependencies` is imported by a source file, and every one in
 *   `devDependencies` by a test or config (no stale links between workspace packages).
 * Imports are read with TypeScript's pre-processor (static, type-only, dynamic `import()` and `require`);
 * Node built-ins and a package's imports of itself are ignored.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..', '..');
const rootPkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[]; devDependencies?: Record<string, string> };

interface Pkg {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** Workspace package folders, from the root's `workspaces` (`dir/*` or `dir`). */
function workspaceDirs(): string[] {
  const out: string[] = [];
  for (const w of rootPkg.workspaces) {
    const dirs = w.endsWith('/*') ? (existsSync(join(ROOT, w.slice(0, -2))) ? readdirSync(join(ROOT, w.slice(0, -2))).map((e) => join(ROOT, w.slice(0, -2), e)) : []) : [join(ROOT, w)];
    for (const d of dirs) if (existsSync(join(d, 'package.json'))) out.push(d);
  }
  return out.sort();
}

const SKIP_DIRS = new Set(['node_modules', 'dist', 'build', 'coverage', 'public']);
function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir)) {
    if (SKIP_DIRS.has(e) || e.startsWith('.')) continue;
    const p = join(dir, e);
    if (statSync(p).isDirectory()) sourceFiles(p, out);
    else if (/\.(m|c)?[jt]sx?$/.test(e) && !e.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const BUILTINS = new Set(builtinModules);
/** The package a bare specifier names (`@scope/name/sub` -> `@scope/name`), or undefined for paths and built-ins. */
export function packageOf(spec: string): string | undefined {
  if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:')) return undefined;
  const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
  return BUILTINS.has(name) ? undefined : name;
}

type Kind = 'source' | 'test' | 'config' | 'bundled';
function kindOf(rel: string, bundler: boolean, buildHelpers: ReadonlySet<string> = new Set()): Kind {
  if (/(^|\/)(test|tests|__tests__)\//.test(rel) || /\.test\.[cm]?[jt]sx?$/.test(rel)) return 'test';
  if (!rel.includes('/') && (/\.config\.[cm]?[jt]s$/.test(rel) || buildHelpers.has(rel))) return 'config';
  if (bundler && rel.startsWith('src/')) return 'bundled';
  return 'source';
}

/** Imported package -> first file importing it, per kind of file. */
function importsOf(dir: string, self: string): Record<Kind, Map<string, string>> {
  const out: Record<Kind, Map<string, string>> = { source: new Map(), test: new Map(), config: new Map(), bundled: new Map() };
  const bundler = existsSync(join(dir, 'rspack.config.mjs'));
  // Root files the rspack config imports (`./federation.mjs`): build code too.
  const buildHelpers = new Set(
    bundler
      ? ts.preProcessFile(readFileSync(join(dir, 'rspack.config.mjs'), 'utf8'), true, true).importedFiles.map((f) => f.fileName).filter((f) => /^\.\/[^/]+$/.test(f)).map((f) => f.slice(2))
      : [],
  );
  for (const file of sourceFiles(dir)) {
    const rel = relative(dir, file);
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      const p = packageOf(fileName);
      const kind = kindOf(rel, bundler, buildHelpers);
      if (p && p !== self && !out[kind].has(p)) out[kind].set(p, rel);
    }
  }
  return out;
}

/** What is wrong with one package's declarations (empty when they match its imports). */
function problems(dir: string): string[] {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Pkg;
  const runtime = { ...pkg.dependencies, ...pkg.peerDependencies, ...pkg.optionalDependencies };
  const dev = pkg.devDependencies ?? {};
  const shared = rootPkg.devDependencies ?? {};
  const imports = importsOf(dir, pkg.name);
  const out: string[] = [];
  for (const [p, f] of imports.source) if (!(p in runtime)) out.push(`${p} is imported by ${f} but not in dependencies`);
  for (const [p, f] of imports.config) if (!(p in runtime) && !(p in dev)) out.push(`${p} is imported by ${f} but not in dependencies or devDependencies`);
  for (const [p, f] of imports.bundled) if (!(p in runtime) && !(p in dev)) out.push(`${p} is imported by ${f} (bundled) but not in dependencies or devDependencies`);
  for (const [p, f] of imports.test) if (!(p in runtime) && !(p in dev) && !(p in shared)) out.push(`${p} is imported by ${f} but not in dependencies or devDependencies`);
  for (const p of Object.keys(pkg.dependencies ?? {})) if (p.startsWith('@atendo/') && !imports.source.has(p) && !imports.bundled.has(p)) out.push(`${p} is in dependencies but no source file imports it`);
  for (const p of Object.keys(dev)) if (p.startsWith('@atendo/') && !imports.test.has(p) && !imports.config.has(p) && !imports.bundled.has(p)) out.push(`${p} is in devDependencies but no test or config imports it`);
  return out;
}

describe('workspace package.json dependencies match the imports', () => {
  test('the scanner sees the workspace packages', () => {
    const names = workspaceDirs().map((d) => relative(ROOT, d));
    expect(names).toEqual(expect.arrayContaining(['kernel/core', 'kernel/sdk', 'plugins/contacts', 'plugins/tickets', 'shell']));
    expect(packageOf('@atendo/plugin-tags/contract')).toBe('@atendo/plugin-tags');
    expect(packageOf('libphonenumber-js/max')).toBe('libphonenumber-js');
    expect(packageOf('node:fs')).toBeUndefined();
    expect(packageOf('crypto')).toBeUndefined();
    expect(packageOf('../src/index')).toBeUndefined();
    // The shell's browser code is bundled; its web server is a source (needs real dependencies).
    expect(kindOf('src/areas.tsx', true)).toBe('bundled');
    expect(kindOf('serve.ts', true)).toBe('source');
    expect(kindOf('src/db.ts', false)).toBe('source');
    expect(kindOf('federation.mjs', true, new Set(['federation.mjs']))).toBe('config');
  });

  for (const dir of workspaceDirs()) {
    test(relative(ROOT, dir), () => {
      expect(problems(dir)).toEqual([]);
    });
  }
});
