import { defineAdminPage, lazyPage } from '../registry';

/** Kanban tags (the tags plugin's routes with kanban=1, plan useKanban; spec 2-tickets.md §2 "Kanban"). */
export default defineAdminPage({
  path: '/tagsKanban',
  titleKey: 'routes.tagsKanban',
  feature: 'useKanban',
  // Beside the board's own entry (order 40), as the family's kanban menu lists board and tags together.
  menu: { section: 'main', key: 'tagsKanban', icon: 'kanban', order: 41, labelKey: 'routes.tagsKanban' },
  component: lazyPage(
    () => import('../tags/TagsPage').then((m) => m.KanbanTagsPage),
    () => import('../tags/i18n'),
  ),
});
