import { defineAdminPage, lazyPage } from '../registry';

/** Kanban tags (the tags plugin's routes with kanban=1, plan useKanban; spec 2-tickets.md §2 "Kanban"). */
export default defineAdminPage({
  path: '/tagsKanban',
  titleKey: 'routes.tagsKanban',
  feature: 'useKanban',
  component: lazyPage(
    () => import('../tags/TagsPage').then((m) => m.KanbanTagsPage),
    () => import('../tags/i18n'),
  ),
});
