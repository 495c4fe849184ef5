/**
 * The install promises of a fresh clone (issue 19, item 1): one Node.js line everywhere (package.json
 * `engines`, `.nvmrc`, the Dockerfile, the README and CI), no installed package that declares an engine
 * outside that line (npm would print EBADENGINE), and a lock file that `npm ci` accepts on Linux x64/arm64
 * and macOS (the optional platform packages of the native tools are in it). `.ci/run` runs
 * `npm ci --dry-run --ignore-scripts` on its fresh clone and checks `git status --porcelain` after the tests.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';

const ROOT = join(__dirname, '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as { engines: { node: string }; workspaces: string[] };
const lock = JSON.parse(read('package-lock.json')) as {
  lockfileVersion: number;
  packages: Record<string, { version?: string; engines?: { node?: string } | string[]; optional?: boolean; os?: string[]; cpu?: string[] }>;
};

describe('one Node.js line', () => {
  const range = pkg.engines.node;
  const major = String(semver.minVersion(range)!.major);

  test('engines is one major line from a minimum (e.g. ^20.19.0)', () => {
    expect(range).toMatch(/^\^\d+\.\d+\.\d+$/);
    expect(semver.validRange(range)).not.toBeNull();
  });

  test('.nvmrc, the Dockerfile, the README and .ci/run name the same major', () => {
    expect(read('.nvmrc').trim()).toBe(major);
    const froms = [...read('deploy/Dockerfile').matchAll(/^FROM\s+node:(\d+)/gm)].map((m) => m[1]);
    expect(froms.length).toBeGreaterThan(0);
    expect(new Set(froms)).toEqual(new Set([major]));
    expect(read('README.md')).toContain(`Node.js ${semver.minVersion(range)!.major}.${semver.minVersion(range)!.minor}`);
    expect(read('.ci/run')).toContain('.nvmrc');
  });

  test('the running Node.js is inside it', () => {
    expect(semver.satisfies(process.versions.node, range)).toBe(true);
  });

  test('no locked package declares an engine outside it (no EBADENGINE)', () => {
    const outside: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const node = entry.engines && !Array.isArray(entry.engines) ? entry.engines.node : undefined;
      if (!path || !node) continue;
      // Every Node version the project accepts must satisfy the package's range.
      if (!semver.validRange(node) || !semver.subset(range, node)) outside.push(`${path}@${entry.version}: node ${node}`);
    }
    expect(outside).toEqual([]);
  });
});

describe('the lock file', () => {
  test('is a v3 lock that lists every workspace', () => {
    expect(lock.lockfileVersion).toBe(3);
    expect(lock.packages['node_modules/@atendo/core']).toBeDefined();
    expect(lock.packages['node_modules/@atendo/sdk']).toBeDefined();
  });

  test('every optional dependency of a locked package is locked too (npm ci refuses a lock without them)', () => {
    const keys = new Set(Object.keys(lock.packages));
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const dep of Object.keys((entry as { optionalDependencies?: Record<string, string> }).optionalDependencies ?? {})) {
        // Node's lookup: <path>/node_modules/<dep>, then each enclosing node_modules up to the root.
        let base = path;
        let found = false;
        for (;;) {
          if (keys.has(`${base ? `${base}/` : ''}node_modules/${dep}`)) {
            found = true;
            break;
          }
          if (!base) break;
          const i = base.lastIndexOf('/node_modules/');
          base = i < 0 ? '' : base.slice(0, i);
        }
        if (!found) missing.push(`${path || '(root)'} -> ${dep}`);
      }
    }
    expect(missing).toEqual([]);
  });

  const PLATFORM_PREFIX: Record<string, string> = {
    '@swc/core': 'node_modules/@swc/core-',
    '@unrs/resolver-binding': 'node_modules/@unrs/resolver-binding-',
    '@rspack/binding': 'node_modules/@rspack/binding-',
    esbuild: 'node_modules/@esbuild/',
  };
  test.each(Object.keys(PLATFORM_PREFIX))('carries the optional platform packages of %s (npm ci on Linux and macOS)', (name) => {
    const platforms = Object.keys(lock.packages).filter((p) => p.includes(PLATFORM_PREFIX[name]));
    const has = (os: string, cpu: string) =>
      platforms.some((p) => {
        const e = lock.packages[p];
        return e.os?.includes(os) && e.cpu?.includes(cpu);
      });
    expect({ linuxX64: has('linux', 'x64'), linuxArm64: has('linux', 'arm64'), darwinArm64: has('darwin', 'arm64'), darwinX64: has('darwin', 'x64') }).toEqual({
      linuxX64: true,
      linuxArm64: true,
      darwinArm64: true,
      darwinX64: true,
    });
  });
});
