import { defineAdminPage, lazyPage } from '../registry';

/** On-duty roster (plugins/plantao; spec 3-campaigns-and-tools.md "On-duty roster (/plantao)"): any user. */
export default defineAdminPage({
  path: '/plantao',
  titleKey: 'routes.plantao',
  role: 'user',
  plugin: 'plantao',
  menu: { section: 'main', key: 'plantao', icon: 'clock', order: 115, labelKey: 'routes.plantao' },
  component: lazyPage(
    () => import('./PlantaoPage').then((m) => m.PlantaoPage),
    () => import('./i18n'),
  ),
});
