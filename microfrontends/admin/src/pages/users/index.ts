import { defineAdminPage, lazyPage } from '../registry';

/** Users (kernel routes; spec 2-tickets.md §2 "Users"): admins. */
export default defineAdminPage({
  path: '/users',
  titleKey: 'menu.users',
  role: 'admin',
  plugin: 'kernel',
  menu: { section: 'admin', key: 'users', icon: 'users', order: 10 },
  component: lazyPage(
    () => import('./UsersPage').then((m) => m.UsersPage),
    () => import('./i18n'),
  ),
});
