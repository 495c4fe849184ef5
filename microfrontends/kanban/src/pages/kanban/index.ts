import { definePage, lazyPage } from '../registry';

/**
 * The kanban board (spec 2-tickets.md §2 "Kanban", §4 "Kanban drag"; plugins/tickets GET /ticket/kanban,
 * /ticket-tags; plugins/tags GET /tags/kanban): plan useKanban.
 */
export default definePage({
  path: '/kanban',
  titleKey: 'menu.kanban',
  feature: 'useKanban',
  menu: { section: 'main', key: 'kanban', icon: 'kanban', order: 40 },
  component: lazyPage(
    () => import('./KanbanBoard').then((m) => m.KanbanBoard),
    () => import('./i18n'),
  ),
});
