import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { PluginDefinition, ServiceRegistry } from '@atendo/sdk';

/** A discovered plugin package. */
export interface PluginPackage {
  packageName: string;
  dir: string;
}

/**
 * Finds plugin packages: every package under `node_modules` (scoped or not) whose package.json has
 * `"atendo": {"role": "plugin"}`. npm links workspace packages there too, so workspace plugins and plugins
 * installed from the registry load the same way.
 */
export function discoverPlugins(rootDir: string): PluginPackage[] {
  const nm = join(rootDir, 'node_modules');
  if (!existsSync(nm)) return [];
  const found: PluginPackage[] = [];
  const check = (dir: string) => {
    const pj = join(dir, 'package.json');
    if (!existsSync(pj)) return;
    try {
      const pkg = JSON.parse(readFileSync(pj, 'utf8')) as { name?: string; atendo?: { role?: string } };
      if (pkg.atendo?.role === 'plugin' && pkg.name) found.push({ packageName: pkg.name, dir });
    } catch {
      /* not a readable package: skip */
    }
  };
  for (const entry of readdirSync(nm)) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) for (const sub of readdirSync(join(nm, entry))) check(join(nm, entry, sub));
    else check(join(nm, entry));
  }
  return found.sort((a, b) => a.packageName.localeCompare(b.packageName));
}

/** Loads a plugin package's definition (its entry's default export, or `plugin` export). */
export async function loadDefinition(rootDir: string, pkg: PluginPackage): Promise<PluginDefinition> {
  const req = createRequire(join(rootDir, 'package.json'));
  const entry = req.resolve(pkg.packageName);
  const mod = (await import(entry)) as { default?: unknown; plugin?: unknown };
  let def = (mod.default ?? mod.plugin) as PluginDefinition | { default?: PluginDefinition } | undefined;
  if (def && !('register' in def) && 'default' in def) def = def.default; // CJS interop
  if (!def || typeof (def as PluginDefinition).register !== 'function' || typeof (def as PluginDefinition).id !== 'string') {
    throw new Error(`package ${pkg.packageName} is marked as an Atendo plugin but exports no plugin definition`);
  }
  return def as PluginDefinition;
}

/**
 * Orders plugins so each comes after everything in its `dependsOn` (and its `after` ids that are loaded).
 * Throws on duplicate ids, unknown dependencies and cycles. `kernel` is always satisfied.
 */
export function sortPlugins(defs: PluginDefinition[]): PluginDefinition[] {
  const byId = new Map<string, PluginDefinition>();
  for (const d of defs) {
    if (byId.has(d.id)) throw new Error(`duplicate plugin id: ${d.id}`);
    byId.set(d.id, d);
  }
  const out: PluginDefinition[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (d: PluginDefinition, path: string[]) => {
    const s = state.get(d.id);
    if (s === 'done') return;
    if (s === 'visiting') throw new Error(`plugin dependency cycle: ${[...path, d.id].join(' -> ')}`);
    state.set(d.id, 'visiting');
    for (const dep of d.dependsOn ?? []) {
      if (dep === 'kernel') continue;
      const target = byId.get(dep);
      if (!target) throw new Error(`plugin ${d.id} depends on missing plugin ${dep}`);
      visit(target, [...path, d.id]);
    }
    for (const soft of d.after ?? []) {
      const target = byId.get(soft);
      if (target) visit(target, [...path, d.id]);
    }
    state.set(d.id, 'done');
    out.push(d);
  };
  for (const d of [...defs].sort((a, b) => a.id.localeCompare(b.id))) visit(d, []);
  return out;
}

/** The named-service registry shared by plugins. */
export class Services implements ServiceRegistry {
  private readonly map = new Map<string, unknown>();
  provide<T>(name: string, service: T): void {
    if (this.map.has(name)) throw new Error(`service ${name} is already provided`);
    this.map.set(name, service);
  }
  get<T>(name: string): T {
    if (!this.map.has(name)) throw new Error(`service ${name} is not provided (missing dependsOn?)`);
    return this.map.get(name) as T;
  }
  has(name: string): boolean {
    return this.map.has(name);
  }
}

/** Reads a plugin's config slice from env vars `<ID>_<KEY>` (upper snake case). */
export function pluginEnv(id: string, env: Record<string, string | undefined>): Record<string, string> {
  const prefix = id.toUpperCase().replace(/-/g, '_') + '_';
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (k.startsWith(prefix) && v !== undefined) {
      const key = k.slice(prefix.length).toLowerCase().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
      out[key] = v;
    }
  }
  return out;
}
