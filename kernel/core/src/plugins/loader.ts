import { join } from 'node:path';
import { createRequire } from 'node:module';
import { asExternal, useHostResolution, type PluginPackage } from '../runtime/plugin-packages';
import {
  registerErrorCodes,
  type Contributions,
  type ExtensionPoint,
  type ExtensionRegistry,
  type PluginDefinition,
  type ServiceRef,
  type ServiceRegistry,
  type Topic,
} from '@atendo/sdk';

export { discoverPlugins, externalPlugins, type ExternalPlugin, type PluginPackage } from '../runtime/plugin-packages';

/** Loads a plugin package's definition (its entry's default export, or `plugin` export). */
export async function loadDefinition(rootDir: string, pkg: PluginPackage): Promise<PluginDefinition> {
  const req = createRequire(join(rootDir, 'package.json'));
  // A package that is not a workspace of the checkout gets the host's SDK and contracts (and its peers).
  const external = asExternal(rootDir, pkg);
  if (external) useHostResolution(rootDir, external);
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
 * Orders plugins so each comes after everything in its `dependsOn` (and its `optionalDependsOn` ids that are loaded).
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
    for (const soft of d.optionalDependsOn ?? []) {
      const target = byId.get(soft);
      if (target) visit(target, [...path, d.id]);
    }
    state.set(d.id, 'done');
    out.push(d);
  };
  for (const d of [...defs].sort((a, b) => a.id.localeCompare(b.id))) visit(d, []);
  return out;
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

/** Ids a plugin may use services and extension points of: itself, the kernel, and its declared dependencies. */
export function declaredDependencies(def: Pick<PluginDefinition, 'id' | 'dependsOn' | 'optionalDependsOn'>): Set<string> {
  return new Set(['kernel', def.id, ...(def.dependsOn ?? []), ...(def.optionalDependsOn ?? [])]);
}

/**
 * The id behind a service ref. Refs are plain `{kind: 'service', id}` objects (`defineService`), so plain
 * JavaScript plugins can build one without importing the SDK; string ids are refused.
 */
function refId(ref: ServiceRef<unknown>): string {
  const r = ref as Partial<ServiceRef<unknown>> | string | null | undefined;
  if (!r || typeof r !== 'object' || r.kind !== 'service' || typeof r.id !== 'string') {
    throw new Error(`services are provided and looked up by a ref from defineService(id), not by ${typeof r === 'string' ? `the string '${r}'` : String(r)}`);
  }
  return r.id;
}

/**
 * Every service provided in this kernel, with its provider. The kernel and tests use it unrestricted;
 * each plugin gets `scoped(def)`, which refuses services of plugins it did not declare.
 */
export class Services {
  private readonly map = new Map<string, { owner: string; impl: unknown }>();

  /** Provides a service as `owner` (the kernel or a plugin id). */
  provideAs<T>(owner: string, ref: ServiceRef<T>, service: T): void {
    const id = refId(ref);
    const known = this.map.get(id);
    if (known) throw new Error(`service ${id} is already provided by ${known.owner}`);
    this.map.set(id, { owner, impl: service });
  }
  provide<T>(ref: ServiceRef<T>, service: T): void {
    this.provideAs('kernel', ref, service);
  }
  /** The service behind `ref`, whoever provided it (kernel code and tests; plugins get `scoped`). */
  get<T>(ref: ServiceRef<T>): T {
    const id = refId(ref);
    const entry = this.map.get(id);
    if (!entry) throw new Error(`service ${id} is not provided (is its plugin loaded?)`);
    return entry.impl as T;
  }
  has(ref: ServiceRef<unknown>): boolean {
    return this.map.has(refId(ref));
  }
  /** The plugin that provided a service, if any. */
  ownerOf(ref: ServiceRef<unknown>): string | undefined {
    return this.map.get(refId(ref))?.owner;
  }

  /** The registry a plugin sees: it provides as itself and gets only what its declared dependencies provide. */
  scoped(def: Pick<PluginDefinition, 'id' | 'dependsOn' | 'optionalDependsOn'>): ServiceRegistry {
    const allowed = declaredDependencies(def);
    const check = (ref: ServiceRef<unknown>): void => {
      const id = refId(ref);
      const owner = this.map.get(id)?.owner;
      if (owner === undefined) {
        throw new Error(`service ${id} is not provided (plugin ${def.id} uses it: declare its plugin in dependsOn, or check has() for an optionalDependsOn)`);
      }
      if (!allowed.has(owner)) {
        throw new Error(`plugin ${def.id} uses service ${id} of plugin ${owner} without declaring ${owner} in dependsOn or optionalDependsOn`);
      }
    };
    return {
      provide: <T>(ref: ServiceRef<T>, service: T) => this.provideAs(def.id, ref, service),
      get: <T>(ref: ServiceRef<T>): T => {
        check(ref);
        return this.get(ref);
      },
      has: (ref: ServiceRef<unknown>) => {
        const owner = this.map.get(refId(ref))?.owner;
        return owner !== undefined && allowed.has(owner);
      },
    };
  }
}

/** Extension points declared in this kernel and their contributions. */
export class Extensions {
  private readonly points = new Map<string, { owner: string; items: { item: unknown; contributor: string }[]; listeners: Set<(item: unknown, contributor: string) => void> }>();

  /**
   * Declares `point` as owned by `owner` (the kernel declares its own points as `kernel`; plugins go through
   * `scoped(def).declare`) and returns its live contributions. A point has one owner: a second declaration throws.
   */
  declareAs<T>(owner: string, point: ExtensionPoint<T>): Contributions<T> {
    const known = this.points.get(point.id);
    if (known) throw new Error(`extension point ${point.id} is already declared by ${known.owner}`);
    const entry = { owner, items: [] as { item: unknown; contributor: string }[], listeners: new Set<(item: unknown, contributor: string) => void>() };
    this.points.set(point.id, entry);
    return {
      all: () => entry.items.map((i) => i.item as T),
      onContribute: (fn) => {
        const l = fn as (item: unknown, contributor: string) => void;
        for (const i of entry.items) l(i.item, i.contributor);
        entry.listeners.add(l);
        return () => entry.listeners.delete(l);
      },
    };
  }

  /** The registry a plugin sees: it declares points as their owner and contributes only to declared dependencies' points (and the kernel's). */
  scoped(def: Pick<PluginDefinition, 'id' | 'dependsOn' | 'optionalDependsOn'>): ExtensionRegistry {
    const allowed = declaredDependencies(def);
    return {
      declare: <T>(point: ExtensionPoint<T>): Contributions<T> => this.declareAs(def.id, point),
      contribute: <T>(point: ExtensionPoint<T>, item: T): void => {
        const entry = this.points.get(point.id);
        if (!entry) throw new Error(`plugin ${def.id} contributes to extension point ${point.id}, which is not declared (is its owner loaded and in dependsOn?)`);
        if (!allowed.has(entry.owner)) {
          throw new Error(`plugin ${def.id} contributes to extension point ${point.id} of plugin ${entry.owner} without declaring ${entry.owner} in dependsOn or optionalDependsOn`);
        }
        entry.items.push({ item, contributor: def.id });
        for (const l of entry.listeners) l(item, def.id);
      },
      has: (point) => {
        const entry = this.points.get(point.id);
        return !!entry && allowed.has(entry.owner);
      },
    };
  }
}

/**
 * Checks what plugins declare about the whole system before any registers: one owner per bus topic and per
 * error code (merged into the catalogue). Throws a boot error naming both owners.
 */
export function checkDeclarations(defs: PluginDefinition[], kernelTopics: readonly Topic<unknown>[] = []): void {
  const topicOwner = new Map<string, string>(kernelTopics.map((t) => [t.name, 'kernel']));
  for (const def of defs) {
    for (const t of def.topics ?? []) {
      const owner = topicOwner.get(t.name);
      if (owner && owner !== def.id) throw new Error(`bus topic ${t.name} is declared by both ${owner} and ${def.id}`);
      topicOwner.set(t.name, def.id);
    }
  }
  for (const def of defs) if (def.errors) registerErrorCodes(def.id, def.errors);
}
