// `npm run build`: the production build.
//
// 1. Server code: every workspace package that is not a web bundle (kernel/*, plugins/*, channels/*) is
//    transpiled file by file with esbuild to CommonJS JavaScript beside its sources:
//    `<package>/src/**/*.ts` -> `<package>/dist/src/**/*.js` and `<package>/migrations/*.ts` ->
//    `<package>/dist/migrations/*.js`, with sourcemaps. Relative paths between src/ and migrations/ stay
//    as in the sources, so `join(__dirname, '..', 'migrations')` keeps working. The compiled kernel maps
//    workspace imports to these files (kernel/core/src/runtime/compiled.ts). The web server
//    (shell/serve.ts) goes to shell/dist-server/serve.js.
// 2. The web UI: the shell and every area of shell/areas.json (rspack; what scripts/start.mjs builds when
//    stale), unless --server-only.
//
// Type-checking is not part of the build (esbuild strips types; tsconfig has isolatedModules): it is
// `npm run typecheck`, run by `npm test` and CI.
//
//   node scripts/build.mjs                 server code + web UI
//   node scripts/build.mjs --server-only   server code only (a few seconds)
//   node scripts/build.mjs --force         rebuild everything even when fresh
//   node scripts/build.mjs --strict        fail when any web area fails to build (npm test), not only the shell
//
// 3. External plugin packages: every plugin package in node_modules (`"atendo": {"role": "plugin"}`) that
//    is not a workspace (installed from a tarball or a registry, or linked from a folder with
//    `npm install <folder>`) and whose entry is TypeScript is transpiled the same way into its own folder:
//    every `.ts` of the package (tests and node_modules aside) -> `<package>/dist/<same path>.js`, other
//    files beside them copied. The compiled kernel maps the package's `.ts` files there
//    (kernel/core/src/runtime/compiled.ts). A package whose entry is JavaScript runs as it is.
//
// The server code is rebuilt only when a source is newer than the last build (the stamp
// shell/dist-server/.server-build.json), the web UI likewise per package, an external plugin when its
// content (file names and bytes) changed (the stamp <package>/dist/.atendo-build.json, which also marks the
// folder as ours: a dist/ the package ships itself is never overwritten). Builds hold the checkout's build
// lock (scripts/build-lock.mjs), so parallel test workers never write the same dist/ at once.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { withBuildLock } from './build-lock.mjs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const say = (msg) => console.log(`[build] ${msg}`);

/** Workspace package folders (relative), from package.json's workspace globs (`dir/*` or a folder). */
export function workspaceDirs(root = ROOT) {
  const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const dirs = [];
  for (const w of workspaces) {
    if (w.endsWith('/*')) {
      const base = join(root, w.slice(0, -2));
      if (!existsSync(base)) continue;
      for (const name of readdirSync(base).sort()) if (existsSync(join(base, name, 'package.json'))) dirs.push(`${w.slice(0, -2)}/${name}`);
    } else if (existsSync(join(root, w, 'package.json'))) dirs.push(w);
  }
  return dirs;
}

/** Server packages: workspace packages with TypeScript under src/ that are not rspack web bundles. */
export function serverPackages(root = ROOT) {
  return workspaceDirs(root).filter((d) => existsSync(join(root, d, 'src')) && !existsSync(join(root, d, 'rspack.config.mjs')) && !existsSync(join(root, d, 'rspack.config.js')) && !isWebLibrary(root, d));
}

/** Web-only libraries (React code shared by the areas, bundled by rspack, never run by Node). */
function isWebLibrary(root, dir) {
  const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
  const deps = { ...pkg.dependencies, ...pkg.peerDependencies };
  return Boolean(deps.react || deps['react-dom']);
}

function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'node_modules' && name !== 'dist' && name !== 'test' && name !== '__tests__') walk(p, out);
    } else out.push(p);
  }
  return out;
}

const ESBUILD = { format: 'cjs', platform: 'node', target: 'node20', sourcemap: true, logLevel: 'warning' };

/** Transpiles one server package into `<package>/dist`. Returns the number of files written. */
async function buildPackage(dir) {
  const abs = join(ROOT, dir);
  const outdir = join(abs, 'dist');
  rmSync(outdir, { recursive: true, force: true });
  const files = [...walk(join(abs, 'src')), ...walk(join(abs, 'migrations'))];
  const ts = files.filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts') && !/\.test\.tsx?$/.test(f));
  if (ts.length) await build({ ...ESBUILD, entryPoints: ts, outdir, outbase: abs, bundle: false });
  // Anything else under src/ or migrations/ (JSON, SQL, plain JS migrations) is copied as it is.
  const other = files.filter((f) => !/\.tsx?$/.test(f));
  for (const f of other) cpSync(f, join(outdir, relative(abs, f)));
  return ts.length + other.length;
}

const STAMP = join(ROOT, 'shell/dist-server/.server-build.json');

/** Newest modification time (ms) of the files the server build reads. */
function newestServerSource(pkgs) {
  let max = statSync(fileURLToPath(import.meta.url)).mtimeMs;
  const consider = (f) => {
    if (existsSync(f)) max = Math.max(max, statSync(f).mtimeMs);
  };
  for (const dir of pkgs) {
    consider(join(ROOT, dir, 'package.json'));
    for (const f of [...walk(join(ROOT, dir, 'src')), ...walk(join(ROOT, dir, 'migrations'))]) consider(f);
  }
  consider(join(ROOT, 'shell/serve.ts'));
  for (const name of readdirSync(join(ROOT, 'shell'))) if (name.endsWith('.cjs')) consider(join(ROOT, 'shell', name));
  return max;
}

/** Whether the last server build (its stamp) is newer than every source, for the same packages. */
function serverFresh(pkgs, newest) {
  if (!existsSync(STAMP)) return false;
  try {
    const stamp = JSON.parse(readFileSync(STAMP, 'utf8'));
    return stamp.newest >= newest && JSON.stringify(stamp.packages) === JSON.stringify(pkgs) && pkgs.every((d) => existsSync(join(ROOT, d, 'dist')));
  } catch {
    return false;
  }
}

/**
 * Plugin packages in `root`'s node_modules that are not its workspaces (the rule of
 * kernel/core/src/runtime/plugin-packages.ts): `{name, dir}` with `dir` the package's real folder (a linked
 * folder resolved), and `entry`, the file Node resolves the package name to.
 */
export function externalPluginPackages(root = ROOT) {
  const nm = join(root, 'node_modules');
  if (!existsSync(nm)) return [];
  const workspaces = new Set(workspaceDirs(root).map((d) => realpathSync(join(root, d))));
  const req = createRequire(join(root, 'package.json'));
  const out = [];
  const check = (at) => {
    let pkg;
    try {
      pkg = JSON.parse(readFileSync(join(at, 'package.json'), 'utf8'));
    } catch {
      return;
    }
    if (pkg?.atendo?.role !== 'plugin' || !pkg.name) return;
    const dir = realpathSync(at);
    if (workspaces.has(dir)) return;
    let entry;
    try {
      entry = req.resolve(pkg.name);
    } catch {
      entry = undefined; // no resolvable entry: the kernel reports it when it loads the package
    }
    out.push({ name: pkg.name, version: pkg.version ?? '', dir, entry });
  };
  for (const name of readdirSync(nm)) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) for (const sub of readdirSync(join(nm, name))) check(join(nm, name, sub));
    else check(join(nm, name));
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** The files of an external package the build reads: all but node_modules, dist, tests and dot files. */
function packageFiles(dir, at = dir, out = []) {
  for (const name of readdirSync(at).sort()) {
    if (name.startsWith('.')) continue;
    const p = join(at, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'node_modules' && !(at === dir && name === 'dist') && name !== 'test' && name !== '__tests__') packageFiles(dir, p, out);
    } else if (!/\.test\.[cm]?[jt]sx?$/.test(name)) out.push(p);
  }
  return out;
}

const EXTERNAL_STAMP = '.atendo-build.json';

/**
 * Compiles one external plugin package into `<dir>/dist` when its entry is TypeScript and its content
 * changed since the last build (or `force`). Answers `'built'`, `'fresh'` or `'javascript'` (nothing to do).
 * Refuses to replace a dist/ folder the package ships itself.
 */
async function buildExternalPlugin(pkg, force) {
  if (!pkg.entry || !/\.tsx?$/.test(pkg.entry) || pkg.entry.endsWith('.d.ts')) return 'javascript';
  const files = packageFiles(pkg.dir);
  const hash = createHash('sha256');
  for (const f of files) hash.update(relative(pkg.dir, f)).update('\0').update(readFileSync(f)).update('\0');
  const digest = hash.digest('hex');
  const outdir = join(pkg.dir, 'dist');
  const stampFile = join(outdir, EXTERNAL_STAMP);
  let stamp;
  if (existsSync(outdir)) {
    try {
      stamp = JSON.parse(readFileSync(stampFile, 'utf8'));
    } catch {
      throw new Error(`${pkg.name} (${pkg.dir}) has a TypeScript entry and a dist/ folder the build did not write: an Atendo plugin package ships either TypeScript sources (the build compiles them into dist/) or JavaScript (its "main" a .js file), not both`);
    }
  }
  if (!force && stamp?.digest === digest) return 'fresh';
  rmSync(outdir, { recursive: true, force: true });
  const ts = files.filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'));
  if (ts.length) await build({ ...ESBUILD, entryPoints: ts, outdir, outbase: pkg.dir, bundle: false });
  // Files beside the sources (JSON, SQL, plain JS) are copied; the package's top-level files are not sources.
  for (const f of files.filter((f) => !/\.tsx?$/.test(f) && relative(pkg.dir, f).includes(sep))) {
    mkdirSync(dirname(join(outdir, relative(pkg.dir, f))), { recursive: true });
    cpSync(f, join(outdir, relative(pkg.dir, f)));
  }
  writeFileSync(stampFile, JSON.stringify({ name: pkg.name, version: pkg.version, digest, files: ts.length }));
  return 'built';
}

/** Compiles the external plugin packages that need it (see buildExternalPlugin). */
export async function buildExternalPlugins({ force = false, root = ROOT } = {}) {
  const t0 = Date.now();
  const built = [];
  for (const pkg of externalPluginPackages(root)) {
    if ((await buildExternalPlugin(pkg, force)) === 'built') built.push(`${pkg.name}@${pkg.version}`);
  }
  if (built.length) say(`external plugins: ${built.join(', ')} compiled in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return built;
}

/** Compiles the server packages, the external plugin packages and the web server (skipped when fresh unless `force`). */
export async function buildServer({ force = false } = {}) {
  return withBuildLock(async () => {
    await buildExternalPlugins({ force });
    const t0 = Date.now();
    const pkgs = serverPackages();
    const newest = newestServerSource(pkgs);
    if (!force && serverFresh(pkgs, newest)) {
      say(`server: ${pkgs.length} packages up to date`);
      return;
    }
    rmSync(STAMP, { force: true });
    let n = 0;
    for (const dir of pkgs) n += await buildPackage(dir);
    // The web server: one file, its dependencies (fastify, @fastify/*) stay in node_modules.
    rmSync(join(ROOT, 'shell/dist-server'), { recursive: true, force: true });
    await build({ ...ESBUILD, entryPoints: [join(ROOT, 'shell/serve.ts')], outdir: join(ROOT, 'shell/dist-server'), bundle: false });
    // The CommonJS helpers it requires beside it (e.g. area-manifests.cjs).
    for (const name of readdirSync(join(ROOT, 'shell'))) if (name.endsWith('.cjs')) cpSync(join(ROOT, 'shell', name), join(ROOT, 'shell/dist-server', name));
    writeFileSync(STAMP, JSON.stringify({ newest, packages: pkgs }));
    say(`server: ${pkgs.length} packages, ${n + 1} files in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  });
}

async function main() {
  await buildServer({ force: args.has('--force') });
  if (args.has('--server-only')) return;
  const { buildWeb } = await import('./start.mjs');
  if (!buildWeb({ force: args.has('--force'), strict: args.has('--strict') })) {
    say('the web UI could not be built (see above)');
    process.exit(1);
  }
  say('web UI built');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
