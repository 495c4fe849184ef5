import { defineAdminPage, lazyPage } from '../registry';

/** Settings (kernel routes; spec 1-platform.md §2 "Settings"): admins. */
export default defineAdminPage({
  path: '/settings',
  titleKey: 'menu.settings',
  role: 'admin',
  plugin: 'kernel',
  menu: { section: 'admin', key: 'settings', icon: 'settings', order: 40 },
  component: lazyPage(
    () => import('./SettingsPage').then((m) => m.SettingsPage),
    () => import('./i18n'),
  ),
});
