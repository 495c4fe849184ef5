// `npm run pack:sdk`: the packages a third party builds and tests a plugin against, as npm tarballs with
// JavaScript and type declarations, installable outside the repository (`npm install ./atendo-sdk-0.1.0.tgz`):
//
// - @atendo/sdk (kernel/sdk): everything it exports (`.`, `./wire`, `./fetch`), plus `./plugins/<id>`, the
//   public contract of each product plugin (`plugins/<id>/src/contract.ts`, what kernel/sdk/src/plugins/<id>.ts
//   re-exports in the repository) compiled into the package, so a third party reaches e.g. the conversation
//   handler extension point (`@atendo/sdk/plugins/tickets`) or the integration types
//   (`@atendo/sdk/plugins/integrations`) with the SDK alone. Imports between contracts become
//   `@atendo/sdk/plugins/<id>`.
// - @atendo/testing (kernel/testing), its remote kit only (`@atendo/testing/remote`: tests against a running
//   kernel over HTTP and socket.io); `createTestKernel` builds a kernel in-process and needs a checkout.
//
// Each package is staged in a temporary folder (JavaScript by esbuild, CommonJS, one file per source as
// `npm run build` does; declarations by TypeScript's compiler), with a package.json whose entries point at
// dist/ (`types` conditions first), then `npm pack` writes the tarball. In the running product the host's
// own packages are used: a plugin lists `@atendo/sdk` in `peerDependencies` (see README "Third-party plugins").
//
//   node scripts/pack.mjs [--out <dir>]   (default: the current folder); prints the tarballs' paths
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const say = (msg) => console.error(`[pack] ${msg}`);

/** Every .ts file under `dir` (declarations aside). */
function tsFiles(dir, out = []) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) tsFiles(p, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The plugin contracts the SDK re-exports: `{id, file}` from kernel/sdk/src/plugins/<id>.ts. */
function sdkContracts() {
  const dir = join(ROOT, 'kernel/sdk/src/plugins');
  const req = createRequire(join(ROOT, 'kernel/sdk/package.json'));
  return readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map((f) => {
      const id = f.replace(/\.ts$/, '');
      const text = readFileSync(join(dir, f), 'utf8');
      const m = /export \* from '(@atendo\/plugin-[a-z0-9-]+\/contract)';/.exec(text);
      if (!m || m[1] !== `@atendo/plugin-${id}/contract`) throw new Error(`kernel/sdk/src/plugins/${f} must be \`export * from '@atendo/plugin-${id}/contract';\``);
      return { id, file: req.resolve(m[1]) };
    });
}

/** `@atendo/plugin-<id>/contract` -> `@atendo/sdk/plugins/<id>` in emitted JavaScript or declarations. */
const rewriteContracts = (text) => text.replace(/(["'])@atendo\/plugin-([a-z0-9-]+)\/contract\1/g, '$1@atendo/sdk/plugins/$2$1');

/**
 * Emits declarations of `files` (absolute) with TypeScript's compiler into `outDir`, laid out by `place(file)`
 * (the output path without extension, relative to outDir). Throws on any error.
 */
function emitDeclarations(files, outDir, place) {
  const ts = require('typescript');
  const tmp = join(outDir, '.types');
  const options = {
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.Preserve,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    esModuleInterop: true,
    skipLibCheck: true,
    declaration: true,
    emitDeclarationOnly: true,
    outDir: tmp,
    rootDir: ROOT,
    types: ['node'],
  };
  const program = ts.createProgram(files, options);
  const result = program.emit();
  // Declaration errors only: type errors are `npm run typecheck`'s (part of npm test).
  const errors = result.diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (errors.length) throw new Error(ts.formatDiagnostics(errors, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' }));
  for (const file of files) {
    const emitted = join(tmp, relative(ROOT, file)).replace(/\.ts$/, '.d.ts');
    const target = join(outDir, `${place(file)}.d.ts`);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, rewriteContracts(readFileSync(emitted, 'utf8')));
  }
  rmSync(tmp, { recursive: true, force: true });
}

/** Compiles `files` one by one (CommonJS, like scripts/build.mjs) into `outDir` laid out by `place`. */
async function emitJavaScript(files, outDir, place) {
  const result = await build({ entryPoints: files, bundle: false, write: false, format: 'cjs', platform: 'node', target: 'node20', outdir: outDir, outbase: ROOT, logLevel: 'warning' });
  const byInput = new Map(files.map((f) => [join(outDir, relative(ROOT, f)).replace(/\.ts$/, '.js'), f]));
  for (const out of result.outputFiles) {
    const file = byInput.get(out.path);
    const target = join(outDir, `${place(file)}.js`);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, rewriteContracts(out.text));
  }
}

/** `./src/<p>.ts` (an export target of the workspace package) -> its `{types, default}` in dist/. */
function distEntry(target) {
  const p = target.replace(/^\.\/src\//, './dist/').replace(/\.ts$/, '');
  return { types: `${p}.d.ts`, default: `${p}.js` };
}

/** The staged package.json of a workspace package: entries in dist/, no `private`, only `dependencies` kept. */
function stagedManifest(pkg, exports, dependencies, extra = {}) {
  const rootPkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const out = { name: pkg.name, version: pkg.version, description: pkg.description, license: rootPkg.license, engines: rootPkg.engines };
  if (exports['.']) Object.assign(out, { main: exports['.'].default, types: exports['.'].types });
  return { ...out, exports: { ...exports, './package.json': './package.json' }, files: ['dist', 'README.md'], dependencies, ...extra };
}

/** Packs the staged folder into `outDir`; returns the tarball's path. */
function npmPack(stage, outDir) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['pack', '--json', '--pack-destination', outDir], { cwd: stage, encoding: 'utf8', shell: process.platform === 'win32' });
  if (r.status !== 0) throw new Error(`npm pack in ${stage} failed: ${r.stderr}`);
  const [info] = JSON.parse(r.stdout);
  return join(outDir, info.filename);
}

/** @atendo/sdk with the plugins' contracts compiled in. */
async function packSdk(outDir) {
  const dir = join(ROOT, 'kernel/sdk');
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const stage = mkdtempSync(join(tmpdir(), 'atendo-pack-sdk-'));
  const contracts = sdkContracts();
  const own = tsFiles(join(dir, 'src')).filter((f) => !f.startsWith(join(dir, 'src/plugins') + '/'));
  const contractOf = new Map(contracts.map((c) => [c.file, c.id]));
  const place = (f) => (contractOf.has(f) ? `dist/plugins/${contractOf.get(f)}` : join('dist', relative(join(dir, 'src'), f)).replace(/\.ts$/, ''));
  const files = [...own, ...contracts.map((c) => c.file)];
  await emitJavaScript(files, stage, place);
  emitDeclarations(files, stage, place);
  const exports = {};
  for (const [key, target] of Object.entries(pkg.exports)) if (key !== './package.json') exports[key] = distEntry(target);
  // Only the SDK's own dependencies: the contracts' imports are the SDK itself (or type-only: knex is one of them).
  writeFileSync(join(stage, 'package.json'), JSON.stringify(stagedManifest(pkg, exports, pkg.dependencies), null, 2) + '\n');
  cpSync(join(dir, 'README.md'), join(stage, 'README.md'));
  try {
    return npmPack(stage, outDir);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** @atendo/testing's remote kit. */
async function packTesting(outDir) {
  const dir = join(ROOT, 'kernel/testing');
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const stage = mkdtempSync(join(tmpdir(), 'atendo-pack-testing-'));
  const files = ['remote.ts', 'wait.ts', 'stand-ins.ts'].map((f) => join(dir, 'src', f));
  const place = (f) => join('dist', relative(join(dir, 'src'), f)).replace(/\.ts$/, '');
  await emitJavaScript(files, stage, place);
  emitDeclarations(files, stage, place);
  const sdk = JSON.parse(readFileSync(join(ROOT, 'kernel/sdk/package.json'), 'utf8'));
  const dependencies = { '@atendo/sdk': sdk.version, 'socket.io-client': pkg.dependencies['socket.io-client'] };
  writeFileSync(join(stage, 'package.json'), JSON.stringify(stagedManifest(pkg, { './remote': distEntry('./src/remote.ts') }, dependencies, { description: 'Atendo test kit for plugin packages: tests against a running kernel over HTTP and socket.io (@atendo/testing/remote).' }), null, 2) + '\n');
  writeFileSync(
    join(stage, 'README.md'),
    [
      '# @atendo/testing',
      '',
      'Tests of an Atendo plugin package against a running kernel (the plugin installed in it), over HTTP and',
      'socket.io: `connectKernel(url, {email, password})` signs in as the super admin, then `createCompany()`,',
      '`createUser(admin)`, `as(user, method, path, body)` (answers shaped as Fastify inject\'s), `socket(token)`,',
      'and the helpers `waitFor`, `nextEvent`, `collectEvents`, `Fake` and `Graph` (local HTTP stand-ins).',
      '',
      "```ts\nimport { connectKernel } from '@atendo/testing/remote';\n```",
      '',
      "See the Atendo repository's README, section \"Third-party plugins\".",
      '',
    ].join('\n'),
  );
  try {
    return npmPack(stage, outDir);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

async function main() {
  const args = process.argv.slice(2);
  const at = args.indexOf('--out');
  const outDir = resolve(at >= 0 ? args[at + 1] : process.cwd());
  mkdirSync(outDir, { recursive: true });
  const t0 = Date.now();
  const tarballs = [await packSdk(outDir), await packTesting(outDir)];
  say(`${tarballs.length} packages in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  for (const t of tarballs) console.log(t);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
