import { defineAdminPage, lazyPage } from '../registry';

/** Announcements admin (plugins/announcements; spec 3-campaigns-and-tools.md §2): super users only. */
export default defineAdminPage({
  path: '/announcements',
  titleKey: 'menu.announcements',
  role: 'super',
  plugin: 'announcements',
  menu: { section: 'super', key: 'announcements', icon: 'announcement', order: 20 },
  component: lazyPage(
    () => import('./AnnouncementsPage').then((m) => m.AnnouncementsPage),
    () => import('./i18n'),
  ),
});
