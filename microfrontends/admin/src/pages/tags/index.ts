import { defineAdminPage, lazyPage } from '../registry';

/** Tags (plugins/tags; spec 2-tickets.md §2 "Tags"): every user (edit and delete for admins). */
export default defineAdminPage({
  path: '/tags',
  titleKey: 'menu.tags',
  plugin: 'tags',
  menu: { section: 'main', key: 'tags', icon: 'tag', order: 70 },
  component: lazyPage(
    () => import('./TagsPage').then((m) => m.NormalTagsPage),
    () => import('./i18n'),
  ),
});
