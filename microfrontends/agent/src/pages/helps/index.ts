import { definePage, lazyPage } from '../registry';

/** Help videos (plugins/helps; spec 3-campaigns-and-tools.md §2 "Help videos page"): every user. */
export default definePage({
  path: '/helps',
  titleKey: 'menu.helps',
  plugin: 'helps',
  menu: { section: 'main', key: 'helps', icon: 'help', order: 90 },
  component: lazyPage(
    () => import('./HelpsPage').then((m) => m.HelpsPage),
    () => import('./i18n'),
  ),
});
