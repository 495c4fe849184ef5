/**
 * Plugin packages on disk, and how their imports resolve. Node built-ins only, and no import of
 * `@atendo/sdk`: the process entry uses this module before the compiled mapping is installed (compiled.ts).
 *
 * A plugin package is found in the root's `node_modules` (scoped or not) by its package.json's
 * `"atendo": {"role": "plugin"}`. It is one of:
 * - a workspace package of the checkout (npm links `plugins/<id>` there);
 * - an external package: installed from a tarball or a registry (a folder under `node_modules`), or linked
 *   from a folder anywhere (`npm install <folder>`: a symlink to it, e.g. `examples/echo-integration` or
 *   a folder outside the checkout).
 *
 * The host provides `@atendo/*` (one SDK, one instance of each plugin contract for the whole process) and
 * the packages an external plugin lists in `peerDependencies`: those always resolve from the root, even
 * when the package has copies of its own (a linked folder where the author installed the SDK tarball to
 * type-check). Any other import resolves from the package first (its own dependencies), then from the
 * root (a linked folder with no node_modules of its own uses the host's knex or TypeBox).
 */
import Module from 'node:module';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** A discovered plugin package: its name and the folder it is found at under `node_modules`. */
export interface PluginPackage {
  packageName: string;
  dir: string;
}

/** A plugin package that is not a workspace of the checkout, with its real folder (symlinks resolved). */
export interface ExternalPlugin extends PluginPackage {
  realDir: string;
  /** Its `peerDependencies` names: provided by the host. */
  peers: string[];
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/**
 * Finds plugin packages: every package under `node_modules` (scoped or not) whose package.json has
 * `"atendo": {"role": "plugin"}`, sorted by name. npm links workspace packages there too, so workspace
 * plugins and plugins installed from a tarball, a registry or a folder load the same way.
 */
export function discoverPlugins(rootDir: string): PluginPackage[] {
  const nm = join(rootDir, 'node_modules');
  if (!existsSync(nm)) return [];
  const found: PluginPackage[] = [];
  const check = (dir: string) => {
    const pkg = readJson(join(dir, 'package.json')) as { name?: string; atendo?: { role?: string } } | undefined;
    if (pkg?.atendo?.role === 'plugin' && pkg.name) found.push({ packageName: pkg.name, dir });
  };
  for (const entry of readdirSync(nm)) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) for (const sub of readdirSync(join(nm, entry))) check(join(nm, entry, sub));
    else check(join(nm, entry));
  }
  return found.sort((a, b) => a.packageName.localeCompare(b.packageName));
}

/** Real folders of the root's workspace packages (package.json `workspaces`: `dir/*` globs or folders). */
export function workspacePackageDirs(rootDir: string): Set<string> {
  const root = readJson(join(rootDir, 'package.json')) as { workspaces?: string[] } | undefined;
  const out = new Set<string>();
  const add = (dir: string) => {
    if (existsSync(join(dir, 'package.json'))) out.add(realpathSync(dir));
  };
  for (const w of root?.workspaces ?? []) {
    if (w.endsWith('/*')) {
      const base = join(rootDir, w.slice(0, -2));
      if (existsSync(base)) for (const name of readdirSync(base)) add(join(base, name));
    } else add(join(rootDir, w));
  }
  return out;
}

/** The plugin packages of `rootDir` that are not its workspace packages (see the module comment). */
export function externalPlugins(rootDir: string): ExternalPlugin[] {
  const workspaces = workspacePackageDirs(rootDir);
  return discoverPlugins(rootDir).flatMap((pkg) => asExternal(rootDir, pkg, workspaces) ?? []);
}

/** `pkg` as an external plugin of `rootDir`, or undefined when it is one of the root's workspace packages. */
export function asExternal(rootDir: string, pkg: PluginPackage, workspaces = workspacePackageDirs(rootDir)): ExternalPlugin | undefined {
  const realDir = realpathSync(pkg.dir);
  if (workspaces.has(realDir)) return undefined;
  const json = readJson(join(realDir, 'package.json')) as { peerDependencies?: Record<string, string> } | undefined;
  return { ...pkg, realDir, peers: Object.keys(json?.peerDependencies ?? {}) };
}

/** Whether `file` lies inside `dir` (both absolute, real paths). */
export function isInside(dir: string, file: string): boolean {
  const rel = relative(dir, file);
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel);
}

/** The package name of a bare request (`@scope/name/sub` -> `@scope/name`), or undefined for a path. */
export function packageOf(request: string): string | undefined {
  if (request.startsWith('.') || request.startsWith('/') || request.startsWith('node:') || /^[A-Za-z]:[\\/]/.test(request)) return undefined;
  const parts = request.split('/');
  return request.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

type Resolve = (request: string, parent: unknown, isMain: boolean, options?: unknown) => string;
interface Tracked {
  realDir: string;
  peers: Set<string>;
  host: Module;
}

const tracked: Tracked[] = [];
let hooked = false;

/** A module standing at `rootDir` (as `createRequire` builds one): resolutions from it walk up from the root. */
function hostModule(rootDir: string): Module {
  const file = join(rootDir, 'package.json');
  const m = new Module(file);
  m.filename = file;
  m.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(rootDir);
  return m;
}

/**
 * Makes the imports of an external plugin package resolve as the module comment says (idempotent per
 * package). Installed by the loader before it loads the package, in development (tsx) and production.
 */
export function useHostResolution(rootDir: string, plugin: Pick<ExternalPlugin, 'realDir' | 'peers'>): void {
  if (tracked.some((t) => t.realDir === plugin.realDir)) return;
  tracked.push({ realDir: plugin.realDir, peers: new Set(plugin.peers), host: hostModule(rootDir) });
  if (hooked) return;
  hooked = true;
  const mod = Module as unknown as { _resolveFilename: Resolve };
  const original = mod._resolveFilename;
  mod._resolveFilename = function resolveForPlugins(this: unknown, request, parent, isMain, options) {
    const from = (parent as { filename?: string } | undefined)?.filename;
    const name = from ? packageOf(request) : undefined;
    const owner = name ? tracked.find((t) => isInside(t.realDir, from!)) : undefined;
    if (!owner || !name) return original.call(this, request, parent, isMain, options);
    if (name.startsWith('@atendo/') || owner.peers.has(name)) return original.call(this, request, owner.host, isMain, options);
    try {
      return original.call(this, request, parent, isMain, options);
    } catch (err) {
      if ((err as { code?: string }).code !== 'MODULE_NOT_FOUND') throw err;
      return original.call(this, request, owner.host, isMain, options);
    }
  };
}
