/**
 * The one plugin shape of plugins/README.md, checked on every plugin package (and on plugins/_template):
 * - package.json exports "." and "./contract", and src/contract.ts exists;
 * - src/contract.ts imports, at run time, only @atendo/sdk and other plugins' contracts (`import type` of
 *   anything is fine), so importing a contract pulls neither fastify nor knex;
 * - src/index.ts exports the definition only (a default export, nothing else);
 * - README.md has the sections Tables, Routes, Events, Service and Config;
 * - no file of the repository imports another package's `@atendo/plugin-<id>/src/...`.
 * Plugins not yet brought into the shape are listed in PENDING (remove a plugin once it conforms).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..', '..');
const PLUGINS = join(ROOT, 'plugins');
/**
 * Plugins not yet in the shape (issue 10 converts them; remove each one when it conforms). Their `src/` may
 * still be imported by others until then.
 */
const PENDING = new Set<string>([]);

const plugins = readdirSync(PLUGINS)
  .filter((d) => existsSync(join(PLUGINS, d, 'package.json')))
  .filter((d) => d === '_template' || (JSON.parse(readFileSync(join(PLUGINS, d, 'package.json'), 'utf8')) as { atendo?: { role?: string } }).atendo?.role === 'plugin')
  .sort();

const parse = (file: string) => ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);

/** Run-time (not type-only) module specifiers of a file's import and export-from declarations. */
function runtimeImports(file: string): string[] {
  const out: string[] = [];
  for (const st of parse(file).statements) {
    if (ts.isImportDeclaration(st)) {
      const clause = st.importClause;
      const typeOnly = clause && (clause.isTypeOnly || (!clause.name && clause.namedBindings && ts.isNamedImports(clause.namedBindings) && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      if (!typeOnly) out.push((st.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(st) && st.moduleSpecifier && !st.isTypeOnly) {
      out.push((st.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return out;
}

/** What a file exports besides its default export. */
function namedExports(file: string): string[] {
  const out: string[] = [];
  for (const st of parse(file).statements) {
    const mods = ts.canHaveModifiers(st) ? ts.getModifiers(st) ?? [] : [];
    const exported = mods.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    const isDefault = mods.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
    if (ts.isExportAssignment(st)) continue;
    if (ts.isExportDeclaration(st)) out.push(st.getText().slice(0, 80));
    else if (exported && !isDefault) out.push(st.getText().split('\n')[0].slice(0, 80));
  }
  return out;
}

function shapeProblems(dir: string): string[] {
  const base = join(PLUGINS, dir);
  const pkg = JSON.parse(readFileSync(join(base, 'package.json'), 'utf8')) as { exports?: Record<string, string> };
  const out: string[] = [];
  if (pkg.exports?.['.'] !== './src/index.ts' || pkg.exports?.['./contract'] !== './src/contract.ts') out.push('package.json must export "." (src/index.ts) and "./contract" (src/contract.ts)');
  const contract = join(base, 'src', 'contract.ts');
  if (!existsSync(contract)) out.push('src/contract.ts is missing');
  else {
    for (const spec of runtimeImports(contract)) {
      if (spec !== '@atendo/sdk' && !/^@atendo\/plugin-[a-z0-9-]+\/contract$/.test(spec)) out.push(`src/contract.ts imports ${spec} at run time (only @atendo/sdk and other contracts; use import type)`);
    }
  }
  for (const e of namedExports(join(base, 'src', 'index.ts'))) out.push(`src/index.ts exports more than the definition: ${e}`);
  const readme = existsSync(join(base, 'README.md')) ? readFileSync(join(base, 'README.md'), 'utf8') : '';
  for (const section of ['Tables', 'Routes', 'Events', 'Service', 'Config']) {
    if (!new RegExp(`^## ${section}\\b`, 'm').test(readme)) out.push(`README.md has no "## ${section}" section`);
  }
  return out;
}

describe('the one plugin shape', () => {
  test('the checks see the plugins and read type-only imports as such', () => {
    expect(plugins).toEqual(expect.arrayContaining(['_template', 'contacts', 'tags', 'tickets']));
    expect(runtimeImports(join(PLUGINS, 'tags', 'src', 'contract.ts'))).toEqual(['@atendo/sdk']);
    expect(namedExports(join(PLUGINS, 'tags', 'src', 'services', 'tags.ts')).length).toBeGreaterThan(0);
  });

  for (const dir of plugins) {
    (PENDING.has(dir) ? test.skip : test)(`plugins/${dir}`, () => {
      expect(shapeProblems(dir)).toEqual([]);
    });
  }

  test('no package imports another package\'s src/ internals (@atendo/plugin-<id>/src/...)', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir)) {
        if (e === 'node_modules' || e.startsWith('.') || e === 'dist') continue;
        const p = join(dir, e);
        if (statSync(p).isDirectory()) walk(p);
        else if (/\.(m|c)?[jt]sx?$/.test(e)) {
          for (const { fileName } of ts.preProcessFile(readFileSync(p, 'utf8'), true, true).importedFiles) {
            const m = /^@atendo\/plugin-([a-z0-9-]+)\/src(\/|$)/.exec(fileName);
            if (m && !PENDING.has(m[1])) offenders.push(`${relative(ROOT, p)}: ${fileName}`);
          }
        }
      }
    };
    for (const top of ['kernel', 'plugins', 'channels', 'e2e', 'bench', 'scripts', 'shell', 'microfrontends', 'web']) if (existsSync(join(ROOT, top))) walk(join(ROOT, top));
    expect(offenders).toEqual([]);
  });

  test('every migration of the kernel and the plugins has a timestamp of its own', () => {
    const dirs = [join(ROOT, 'kernel', 'core', 'src', 'migrations'), ...readdirSync(PLUGINS).map((d) => join(PLUGINS, d, 'migrations'))].filter((d) => existsSync(d));
    const seen = new Map<string, string[]>();
    for (const d of dirs) {
      for (const f of readdirSync(d)) {
        const stamp = /^(\d{14})_/.exec(f)?.[1];
        if (!stamp) continue;
        seen.set(stamp, [...(seen.get(stamp) ?? []), relative(ROOT, join(d, f))]);
      }
    }
    expect(seen.size).toBeGreaterThan(10);
    expect([...seen.values()].filter((files) => files.length > 1)).toEqual([]);
  });
});
