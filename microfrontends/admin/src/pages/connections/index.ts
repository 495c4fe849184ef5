import { defineAdminPage, lazyPage } from '../registry';

/** Connections with QR codes and live status (plugins/connections, whatsapp-sessions; spec 2-tickets.md §2 "Connections page"): admins. */
export default defineAdminPage({
  path: '/connections',
  titleKey: 'menu.connections',
  role: 'admin',
  plugin: 'connections',
  menu: { section: 'admin', key: 'connections', icon: 'connection', order: 30, badge: 'connections' },
  component: lazyPage(
    () => import('./ConnectionsPage').then((m) => m.ConnectionsPage),
    () => import('./i18n'),
  ),
});
