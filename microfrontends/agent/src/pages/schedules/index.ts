import { definePage, lazyPage } from '../registry';

/** Scheduled messages (plugins/schedules; spec 2-tickets.md §2 "Schedules"): plan useSchedules. */
export default definePage({
  path: '/schedules',
  titleKey: 'menu.schedules',
  feature: 'useSchedules',
  plugin: 'schedules',
  menu: { section: 'main', key: 'schedules', icon: 'calendar', order: 60 },
  component: lazyPage(
    () => import('./SchedulesPage').then((m) => m.SchedulesPage),
    () => import('./i18n'),
  ),
});
