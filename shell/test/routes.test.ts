import { expandPath, routeTable } from '../src/App';
import { AREAS, areaForPath, remoteName } from '../src/areas';
import { PRIVATE_ROUTES } from '../src/routes';
import areasFile from '../areas.json';

describe('route table', () => {
  test('optional segments expand', () => {
    expect(expandPath('/tickets/:ticketId?')).toEqual(['/tickets', '/tickets/:ticketId']);
    expect(expandPath('/')).toEqual(['/']);
    expect(expandPath('/contact-lists/:contactListId/contacts')).toEqual(['/contact-lists/:contactListId/contacts']);
  });

  test('paths served by an area mount it (stricter role, both features); the rest are "coming soon"', () => {
    const areas = [
      { name: 'inbox', package: 'x', routes: ['/tickets', '/tickets/:ticketId'], role: 'user' as const, feature: null },
      { name: 'campaigns', package: 'y', routes: ['/campaigns', '/campaigns-config', '/brand-new'], role: 'user' as const, feature: 'useCampaigns' as const },
    ];
    const table = routeTable(PRIVATE_ROUTES, areas);
    expect(table.areas[0].pages).toEqual([
      { path: '/tickets', role: 'user', features: [], titleKey: 'menu.tickets' },
      { path: '/tickets/:ticketId', role: 'user', features: [], titleKey: 'menu.tickets' },
    ]);
    expect(table.areas[1].pages).toEqual([
      { path: '/campaigns', role: 'user', features: ['useCampaigns'], titleKey: 'menu.campaigns' },
      { path: '/campaigns-config', role: 'admin', features: ['useCampaigns'], titleKey: 'routes.campaignsConfig' },
      { path: '/brand-new', role: 'user', features: ['useCampaigns'], titleKey: undefined },
    ]);
    const soon = table.comingSoon.map((p) => p.path);
    expect(soon).not.toContain('/tickets');
    expect(soon).not.toContain('/campaigns');
    expect(soon).toContain('/contacts');
    expect(soon).toContain('/');
    expect(table.comingSoon.find((p) => p.path === '/kanban')).toEqual({ path: '/kanban', role: undefined, features: ['useKanban'], titleKey: 'menu.kanban' });
    expect(new Set(soon).size).toBe(soon.length);
  });

  test('areas.json drives the registered areas; the dashboard serves / for admins', () => {
    expect(AREAS).toEqual(areasFile.areas);
    expect(AREAS.find((a) => a.name === 'dashboard')).toMatchObject({ routes: ['/'], role: 'admin', package: 'microfrontends/dashboard' });
    expect(areaForPath('/')?.name).toBe('dashboard');
    expect(areaForPath('/nowhere')).toBeUndefined();
    expect(remoteName('my-area')).toBe('atendo_my_area');
    for (const a of AREAS) expect(a.name).toMatch(/^[a-z][a-z0-9-]*$/);
  });
});
