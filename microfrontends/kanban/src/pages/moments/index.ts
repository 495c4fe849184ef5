import { definePage, lazyPage } from '../registry';

/**
 * The real-time attendance panel (spec 2-tickets.md §2 "Real-time attendance panel"; plugins/tickets
 * GET /tickets): every user.
 */
export default definePage({
  path: '/moments',
  titleKey: 'routes.moments',
  plugin: 'tickets',
  menu: { section: 'main', key: 'moments', icon: 'clock', order: 25 },
  component: lazyPage(
    () => import('./MomentsPage').then((m) => m.MomentsPage),
    () => import('./i18n'),
  ),
});
