import { definePage, lazyPage } from '../registry';

/**
 * File lists (plugins/files; spec 3-campaigns-and-tools.md §2 "File lists (/files)"): every user reads
 * (the queue dialog and the chatbot editor use them), admins write; in the menu's admin section.
 */
export default definePage({
  path: '/files',
  titleKey: 'routes.files',
  plugin: 'files',
  menu: { section: 'admin', key: 'files', icon: 'file', labelKey: 'routes.files', order: 45 },
  component: lazyPage(
    () => import('./FilesPage').then((m) => m.FilesPage),
    () => import('./i18n'),
  ),
});
