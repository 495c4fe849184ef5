import { defineAdminPage, lazyPage } from '../registry';

/** Companies (kernel routes; spec 1-platform.md §2 "Companies admin"): super users. */
export default defineAdminPage({
  path: '/companies',
  titleKey: 'menu.companies',
  role: 'super',
  plugin: 'kernel',
  menu: { section: 'super', key: 'companies', icon: 'business', order: 10 },
  component: lazyPage(
    () => import('./CompaniesPage').then((m) => m.CompaniesPage),
    () => import('./i18n'),
  ),
});
