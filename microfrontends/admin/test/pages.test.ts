import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadAreaManifests } from '../../../shell/area-manifests.cjs';
import { ADMIN_PAGES } from '../src/pages';
import { defineAdminPage } from '../src/pages/registry';
import { pageFolders } from './helpers';

const manifest = loadAreaManifests().find((m) => m.name === 'admin')!;

describe('admin sub-page registry (src/pages/<page>/index.ts) and area.json', () => {
  test('every page folder is registered, once', () => {
    const folders = pageFolders().filter((f) => existsSync(join(__dirname, '../src/pages', f, 'index.ts')));
    expect(folders.length).toBeGreaterThan(0);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const defs = folders.map((f) => (require(join(__dirname, '../src/pages', f, 'index.ts')) as { default: unknown }).default);
    for (const [i, def] of defs.entries()) expect([folders[i], ADMIN_PAGES.includes(def as never)]).toEqual([folders[i], true]);
    expect(ADMIN_PAGES).toHaveLength(folders.length);
    expect(new Set(ADMIN_PAGES.map((p) => p.path.toLowerCase())).size).toBe(ADMIN_PAGES.length);
  });

  test('area.json declares exactly the pages: same paths, titles, roles, plan features and plugins', () => {
    const fromPages = ADMIN_PAGES.map((p) => ({ path: p.path, titleKey: p.titleKey, role: p.role ?? manifest.role, feature: p.feature ?? null, plugin: p.plugin }));
    const fromManifest = manifest.routes.map((r) => ({ path: r.path, titleKey: r.titleKey, role: r.role ?? manifest.role, feature: r.feature ?? null, plugin: r.plugin ?? manifest.plugin }));
    const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
    expect(fromManifest.sort(byPath)).toEqual(fromPages.sort(byPath));
  });

  test('area.json has exactly the pages\' menu entries', () => {
    const fromPages = ADMIN_PAGES.filter((p) => p.menu).map((p) => ({ to: p.path, ...p.menu }));
    const fromManifest = manifest.menu.map(({ role: _r, feature: _f, ...e }) => e);
    const byKey = (a: { key?: string }, b: { key?: string }) => String(a.key).localeCompare(String(b.key));
    expect(fromManifest.sort(byKey)).toEqual(fromPages.sort(byKey));
  });

  test('a page path must start with /', () => {
    expect(() => defineAdminPage({ ...ADMIN_PAGES[0], path: 'users' })).toThrow(/must start with/);
  });
});
