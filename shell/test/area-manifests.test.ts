import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PLAN_FEATURES } from '@atendo/sdk/wire';
import type { PluginDefinition } from '@atendo/sdk';
import { ICON_NAMES } from '@atendo/web-ui';
import { expandPath, loadAreaManifests, ROOT_DIR, validateManifest, type AreaManifest } from '../area-manifests.cjs';
import { stricterRole } from '../src/access';
import { routeTable } from '../src/App';
import { AREAS } from '../src/areas';
import { ptBR } from '../src/i18n/locales/pt-BR';
import { MENU, SHELL_MENU } from '../src/menu';
import { COMING_SOON_ROUTES } from '../src/routes';

const MANIFESTS = loadAreaManifests();

/** The plan flag of a backend plugin (`featureFlag` of its definition), or null; `kernel` has none. */
function pluginFeature(id: string): string | null {
  if (id === 'kernel') return null;
  const dir = join(ROOT_DIR, 'plugins', id);
  if (!existsSync(join(dir, 'package.json'))) throw new Error(`no plugin ${id} (plugins/${id})`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(dir) as { default?: PluginDefinition };
  const def = mod.default;
  if (!def || def.id !== id) throw new Error(`plugins/${id} does not export its definition`);
  return def.featureFlag ?? null;
}

function hasText(key: string): boolean {
  let node: unknown = ptBR;
  for (const part of key.split('.')) node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  return typeof node === 'string' && node.length > 0;
}

describe('area manifests (microfrontends/*/area.json)', () => {
  test('every area folder has one, and the shell registers exactly them', () => {
    expect(MANIFESTS.map((m) => m.name)).toEqual(expect.arrayContaining(['admin', 'chats', 'dashboard', 'inbox']));
    expect(AREAS.map((a) => a.name)).toEqual(MANIFESTS.map((m) => m.name));
    for (const m of MANIFESTS) expect(existsSync(join(ROOT_DIR, m.package, 'package.json'))).toBe(true);
  });

  test('plan features are known flags, icons are web-ui icons, titles and labels have texts', () => {
    const features = new Set<string>(PLAN_FEATURES);
    for (const m of MANIFESTS) {
      const gates = [m.feature, ...m.routes.map((r) => r.feature), ...m.menu.map((e) => e.feature)].filter((f) => f != null);
      for (const f of gates) expect([m.name, f, features.has(f!)]).toEqual([m.name, f, true]);
      for (const e of m.menu) expect([m.name, e.icon, (ICON_NAMES as string[]).includes(e.icon)]).toEqual([m.name, e.icon, true]);
      for (const key of [...m.routes.map((r) => r.titleKey), ...m.menu.map((e) => e.labelKey ?? `menu.${e.key}`)]) expect([m.name, key, hasText(key)]).toEqual([m.name, key, true]);
    }
  });

  /** Where an area's or a route's plan feature differs from its plugin's featureFlag: `area path: ours != plugin's`. */
  function featureMismatches(manifests: Omit<AreaManifest, 'package'>[]): { checked: number; mismatches: string[] } {
    const mismatches: string[] = [];
    let checked = 0;
    for (const m of manifests) {
      if (m.plugin) {
        checked++;
        const flag = pluginFeature(m.plugin);
        if (m.feature !== flag) mismatches.push(`${m.name}: ${m.feature} != ${m.plugin}'s ${flag}`);
      }
      for (const r of m.routes) {
        const plugin = r.plugin ?? m.plugin;
        if (!plugin) continue;
        checked++;
        const flag = pluginFeature(plugin);
        const gates = [...new Set([m.feature, r.feature].filter((f) => f != null))];
        if (JSON.stringify(gates) !== JSON.stringify(flag ? [flag] : [])) mismatches.push(`${m.name} ${r.path}: ${gates.join('+') || 'none'} != ${plugin}'s ${flag}`);
      }
    }
    return { checked, mismatches };
  }

  test("each area's plan feature, and each route's, equals its backend plugin's featureFlag", () => {
    const { checked, mismatches } = featureMismatches(MANIFESTS);
    expect(mismatches).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(4);
    // The check bites: the chats area without its plugin's flag, or a route adding one its plugin lacks.
    const chats = MANIFESTS.find((m) => m.name === 'chats')!;
    expect(featureMismatches([{ ...chats, feature: null }]).mismatches).toEqual(["chats: null != chats's useInternalChat", "chats /chats/:id?: none != chats's useInternalChat"]);
    const inbox = MANIFESTS.find((m) => m.name === 'inbox')!;
    expect(featureMismatches([{ ...inbox, routes: [{ ...inbox.routes[0], feature: 'useKanban' }] }]).mismatches).toEqual(["inbox /tickets/:ticketId?: useKanban != tickets's null"]);
    expect(() => pluginFeature('no-such-plugin')).toThrow(/no plugin no-such-plugin/);
  });

  test('no path is served twice: not by two areas, not by an area and a "coming soon" placeholder', () => {
    const owner = new Map<string, string>();
    for (const m of MANIFESTS) {
      for (const p of m.routes.flatMap((r) => expandPath(r.path))) {
        expect([p, owner.get(p.toLowerCase())]).toEqual([p, undefined]);
        owner.set(p.toLowerCase(), m.name);
      }
    }
    for (const r of COMING_SOON_ROUTES) for (const p of expandPath(r.path)) expect([p, owner.get(p.toLowerCase())]).toEqual([p, undefined]);
    for (const e of SHELL_MENU) expect([e.to, owner.get(e.to.toLowerCase())]).toEqual([e.to, undefined]);
    const table = routeTable();
    const all = [...table.areas.flatMap((a) => a.pages), ...table.comingSoon].map((p) => p.path.toLowerCase());
    expect(new Set(all).size).toBe(all.length);
  });

  test('menu entries: unique keys, each opens a page with the same gate as the entry', () => {
    const entries = MENU.flatMap((s) => s.entries.map((e) => ({ ...e, role: stricterRole(s.role, e.role) ?? 'user' })));
    expect(new Set(entries.map((e) => e.key)).size).toBe(entries.length);
    const table = routeTable();
    const pages = [...table.areas.flatMap((a) => a.pages), ...table.comingSoon];
    for (const e of entries) {
      const page = pages.find((p) => p.path.toLowerCase() === e.to.toLowerCase());
      expect([e.key, Boolean(page)]).toEqual([e.key, true]);
      // An entry is never shown to someone its page refuses: its role (with its section's) is at least the
      // page's, and it needs every plan feature the page needs.
      expect([e.key, stricterRole(e.role, page!.role)]).toEqual([e.key, e.role]);
      expect([e.key, page!.features.filter((f) => !e.features.includes(f))]).toEqual([e.key, []]);
    }
    // Sorted by order inside each section.
    for (const s of MENU) expect(s.entries.map((e) => e.order)).toEqual([...s.entries.map((e) => e.order)].sort((a, b) => a - b));
  });

  describe('the loader refuses bad manifests', () => {
    const good = (): Omit<AreaManifest, 'package'> => ({
      name: 'demo',
      role: 'user',
      feature: null,
      routes: [{ path: '/demo/:id?', titleKey: 'menu.demo' }],
      menu: [{ section: 'main', key: 'demo', to: '/demo', icon: 'tag', order: 5 }],
    });

    test.each([
      ['a bad name', (m: Record<string, unknown>) => (m.name = 'Demo Area'), /bad name/],
      ['an unknown role', (m: Record<string, unknown>) => (m.role = 'owner'), /role must be/],
      ['no routes', (m: Record<string, unknown>) => (m.routes = []), /routes must be/],
      ['a route without a title', (m: Record<string, unknown>) => ((m.routes as object[])[0] = { path: '/demo' }), /titleKey required/],
      ['a path twice', (m: Record<string, unknown>) => (m.routes as object[]).push({ path: '/Demo', titleKey: 'x' }), /declared twice/],
      ['a menu entry to another area', (m: Record<string, unknown>) => ((m.menu as Record<string, unknown>[])[0].to = '/tickets'), /not a route of this area/],
      ['a menu entry without order', (m: Record<string, unknown>) => delete (m.menu as Record<string, unknown>[])[0].order, /order must be a number/],
      ['an unknown section', (m: Record<string, unknown>) => ((m.menu as Record<string, unknown>[])[0].section = 'top'), /section must be/],
    ])('%s', (_name, spoil, message) => {
      expect(validateManifest(good(), 'demo/area.json')).toBeTruthy();
      const m = good() as unknown as Record<string, unknown>;
      spoil(m);
      expect(() => validateManifest(m, 'demo/area.json')).toThrow(message);
    });

    test('a name used by two folders, and unreadable JSON', () => {
      const root = mkdtempSync(join(tmpdir(), 'areas-'));
      try {
        for (const dir of ['one', 'two']) {
          mkdirSync(join(root, 'microfrontends', dir), { recursive: true });
          writeFileSync(join(root, 'microfrontends', dir, 'area.json'), JSON.stringify(good()));
        }
        expect(() => loadAreaManifests(root)).toThrow(/used twice/);
        writeFileSync(join(root, 'microfrontends', 'two', 'area.json'), '{');
        expect(() => loadAreaManifests(root)).toThrow(/microfrontends\/two\/area.json/);
        rmSync(join(root, 'microfrontends', 'two'), { recursive: true });
        expect(loadAreaManifests(root)).toEqual([{ ...good(), package: 'microfrontends/one' }]);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });
  });
});
