import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadAreaManifests } from '../../../shell/area-manifests.cjs';
import { KANBAN_PAGES } from '../src/pages';
import { definePage, matchPage } from '../src/pages/registry';
import { pageFolders } from './helpers';

const manifest = loadAreaManifests().find((m) => m.name === 'kanban')!;

describe('kanban sub-page registry (src/pages/<page>/index.ts) and area.json', () => {
  test('every page folder is registered, once', () => {
    const folders = pageFolders().filter((f) => existsSync(join(__dirname, '../src/pages', f, 'index.ts')));
    expect(folders.length).toBeGreaterThan(1);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const defs = folders.map((f) => (require(join(__dirname, '../src/pages', f, 'index.ts')) as { default: unknown }).default);
    for (const [i, def] of defs.entries()) expect([folders[i], KANBAN_PAGES.includes(def as never)]).toEqual([folders[i], true]);
    expect(KANBAN_PAGES).toHaveLength(folders.length);
    expect(new Set(KANBAN_PAGES.map((p) => p.path.toLowerCase())).size).toBe(KANBAN_PAGES.length);
  });

  test('area.json declares exactly the pages: same paths, titles, roles, plan features and plugins', () => {
    const fromPages = KANBAN_PAGES.map((p) => ({ path: p.path, titleKey: p.titleKey, role: p.role ?? manifest.role, feature: p.feature ?? null, plugin: p.plugin ?? null }));
    const fromManifest = manifest.routes.map((r) => ({ path: r.path, titleKey: r.titleKey, role: r.role ?? manifest.role, feature: r.feature ?? null, plugin: r.plugin ?? manifest.plugin ?? null }));
    const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
    expect(fromManifest.sort(byPath)).toEqual(fromPages.sort(byPath));
  });

  test("area.json has exactly the pages' menu entries", () => {
    const fromPages = KANBAN_PAGES.filter((p) => p.menu).map((p) => ({ to: p.path, ...p.menu }));
    const fromManifest = manifest.menu.map(({ role: _r, feature: _f, ...e }) => e);
    const byKey = (a: { key?: string }, b: { key?: string }) => String(a.key).localeCompare(String(b.key));
    expect(fromManifest.sort(byKey)).toEqual(fromPages.sort(byKey));
  });

  test('paths match case-insensitively; a path must start with /', () => {
    expect(matchPage(KANBAN_PAGES, '/Kanban')?.page.path).toBe('/kanban');
    expect(matchPage(KANBAN_PAGES, '/moments/')?.page.path).toBe('/moments');
    expect(matchPage(KANBAN_PAGES, '/tickets')).toBeNull();
    expect(() => definePage({ ...KANBAN_PAGES[0], path: 'kanban' })).toThrow(/must start with/);
  });

  test('/kanban needs the plan feature useKanban; /moments does not', () => {
    expect(manifest.feature).toBeNull();
    expect(manifest.routes.find((r) => r.path === '/kanban')?.feature).toBe('useKanban');
    expect(manifest.routes.find((r) => r.path === '/moments')?.feature).toBeUndefined();
  });
});
