import { defineAdminPage, lazyPage } from '../registry';

/** Queues with the chatbot option-tree editor (plugins/queues; spec 2-tickets.md §2 "Queues"): admins. */
export default defineAdminPage({
  path: '/queues',
  titleKey: 'menu.queues',
  role: 'admin',
  plugin: 'queues',
  menu: { section: 'admin', key: 'queues', icon: 'queue', order: 20 },
  component: lazyPage(
    () => import('./QueuesPage').then((m) => m.QueuesPage),
    () => import('./i18n'),
  ),
});
