import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadAreaManifests } from '../../../shell/area-manifests.cjs';
import { CAMPAIGN_PAGES } from '../src/pages';
import { definePage, matchPage } from '../src/pages/registry';
import { pageFolders } from './helpers';

const manifest = loadAreaManifests().find((m) => m.name === 'campaigns')!;

describe('campaigns sub-page registry (src/pages/<page>/index.ts) and area.json', () => {
  test('every page folder is registered, once', () => {
    const folders = pageFolders().filter((f) => existsSync(join(__dirname, '../src/pages', f, 'index.ts')));
    expect(folders.length).toBeGreaterThan(1);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const defs = folders.map((f) => (require(join(__dirname, '../src/pages', f, 'index.ts')) as { default: unknown }).default);
    for (const [i, def] of defs.entries()) expect([folders[i], CAMPAIGN_PAGES.includes(def as never)]).toEqual([folders[i], true]);
    expect(CAMPAIGN_PAGES).toHaveLength(folders.length);
    expect(new Set(CAMPAIGN_PAGES.map((p) => p.path.toLowerCase())).size).toBe(CAMPAIGN_PAGES.length);
  });

  test('area.json declares exactly the pages: same paths, titles, roles, plan features and plugins', () => {
    const fromPages = CAMPAIGN_PAGES.map((p) => ({ path: p.path, titleKey: p.titleKey, role: p.role ?? manifest.role, feature: p.feature ?? null, plugin: p.plugin ?? null }));
    const fromManifest = manifest.routes.map((r) => ({ path: r.path, titleKey: r.titleKey, role: r.role ?? manifest.role, feature: r.feature ?? null, plugin: r.plugin ?? manifest.plugin ?? null }));
    const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
    expect(fromManifest.sort(byPath)).toEqual(fromPages.sort(byPath));
  });

  test("area.json has exactly the pages' menu entries", () => {
    const fromPages = CAMPAIGN_PAGES.filter((p) => p.menu).map((p) => ({ to: p.path, ...p.menu }));
    const fromManifest = manifest.menu.map(({ role: _r, feature: _f, ...e }) => e);
    const byKey = (a: { key?: string }, b: { key?: string }) => String(a.key).localeCompare(String(b.key));
    expect(fromManifest.sort(byKey)).toEqual(fromPages.sort(byKey));
  });

  test('paths match case-insensitively with their params; a path must start with /', () => {
    expect(matchPage(CAMPAIGN_PAGES, '/Campaigns')?.page.path).toBe('/campaigns');
    expect(matchPage(CAMPAIGN_PAGES, '/contact-lists/12/contacts')).toEqual({ page: CAMPAIGN_PAGES.find((p) => p.path === '/contact-lists/:contactListId/contacts'), params: { contactListId: '12' } });
    expect(matchPage(CAMPAIGN_PAGES, '/campaign/7/report/')?.params).toEqual({ campaignId: '7' });
    expect(matchPage(CAMPAIGN_PAGES, '/campaigns-config')?.page.role).toBe('admin');
    expect(matchPage(CAMPAIGN_PAGES, '/tickets')).toBeNull();
    expect(() => definePage({ ...CAMPAIGN_PAGES[0], path: 'campaigns' })).toThrow(/must start with/);
  });
});
