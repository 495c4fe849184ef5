import { expandPath, routeTable } from '../src/App';
import { AREAS, areaForPath, remoteName, type AreaDef } from '../src/areas';
import { COMING_SOON_ROUTES } from '../src/routes';
import { loadAreaManifests } from '../area-manifests.cjs';

describe('route table', () => {
  test('optional segments expand', () => {
    expect(expandPath('/tickets/:ticketId?')).toEqual(['/tickets', '/tickets/:ticketId']);
    expect(expandPath('/')).toEqual(['/']);
    expect(expandPath('/contact-lists/:contactListId/contacts')).toEqual(['/contact-lists/:contactListId/contacts']);
  });

  test('paths served by an area mount it (stricter role, both features); the rest are "coming soon"', () => {
    const areas: AreaDef[] = [
      { name: 'inbox', routes: [{ path: '/tickets/:ticketId?', titleKey: 'menu.tickets' }], role: 'user', feature: null, menu: [] },
      {
        name: 'campaigns',
        routes: [
          { path: '/campaigns', titleKey: 'menu.campaigns' },
          { path: '/campaigns-config', titleKey: 'routes.campaignsConfig', role: 'admin' },
          { path: '/brand-new', titleKey: 'routes.brandNew', feature: 'useKanban' },
        ],
        role: 'user',
        feature: 'useCampaigns',
        menu: [],
      },
    ];
    const table = routeTable([...COMING_SOON_ROUTES, { path: '/soon', titleKey: 'menu.kanban', feature: 'useKanban' }], areas);
    expect(table.areas[0].pages).toEqual([
      { path: '/tickets', role: 'user', features: [], titleKey: 'menu.tickets' },
      { path: '/tickets/:ticketId', role: 'user', features: [], titleKey: 'menu.tickets' },
    ]);
    expect(table.areas[1].pages).toEqual([
      { path: '/campaigns', role: 'user', features: ['useCampaigns'], titleKey: 'menu.campaigns' },
      { path: '/campaigns-config', role: 'admin', features: ['useCampaigns'], titleKey: 'routes.campaignsConfig' },
      { path: '/brand-new', role: 'user', features: ['useCampaigns', 'useKanban'], titleKey: 'routes.brandNew' },
    ]);
    const soon = table.comingSoon.map((p) => p.path);
    expect(soon).not.toContain('/tickets');
    expect(soon).not.toContain('/campaigns');
    expect(soon).not.toContain('/contacts');
    expect(soon).toEqual(['/soon']);
    expect(soon).not.toContain('/');
    expect(table.comingSoon.find((p) => p.path === '/soon')).toEqual({ path: '/soon', role: undefined, features: ['useKanban'], titleKey: 'menu.kanban' });
    expect(new Set(soon).size).toBe(soon.length);
  });

  test('the kanban area serves /kanban (plan useKanban) and /moments (every user); neither is "coming soon"', () => {
    const pages = routeTable().areas.find((a) => a.area.name === 'kanban')?.pages;
    expect(pages).toEqual([
      { path: '/kanban', role: 'user', features: ['useKanban'], titleKey: 'menu.kanban' },
      { path: '/moments', role: 'user', features: [], titleKey: 'routes.moments' },
    ]);
    expect(routeTable().comingSoon.map((p) => p.path)).not.toEqual(expect.arrayContaining(['/kanban']));
    expect(routeTable().comingSoon.map((p) => p.path)).not.toContain('/moments');
  });

  test('the area manifests drive the registered areas; the dashboard serves / for admins', () => {
    expect(AREAS).toEqual(loadAreaManifests().map(({ package: _pkg, ...a }) => a));
    expect(AREAS.find((a) => a.name === 'dashboard')).toMatchObject({ routes: [{ path: '/', titleKey: 'menu.dashboard' }, { path: '/reports', titleKey: 'menu.reports' }], role: 'admin' });
    expect(areaForPath('/reports')?.name).toBe('dashboard');
    expect(routeTable().comingSoon.map((p) => p.path)).not.toContain('/');
    expect(areaForPath('/')?.name).toBe('dashboard');
    expect(areaForPath('/nowhere')).toBeUndefined();
    expect(remoteName('my-area')).toBe('atendo_my_area');
    for (const a of AREAS) expect(a.name).toMatch(/^[a-z][a-z0-9-]*$/);
  });
});
