import { defineAdminPage, lazyPage } from '../registry';

/**
 * Deliveries (issue 30: failed sends and dead letters, with resend and redrive): admins see their company's, the
 * super admin every company's dead letters. Backends: plugins/tickets (GET /messages/failed, POST
 * /messages/:id/resend, POST /messages/failed/resend) and the kernel (GET /dead-letters, POST /dead-letters/redrive).
 */
export default defineAdminPage({
  path: '/deliveries',
  titleKey: 'menu.deliveries',
  role: 'admin',
  plugin: 'tickets',
  menu: { section: 'admin', key: 'deliveries', icon: 'warning', order: 35 },
  component: lazyPage(
    () => import('./DeliveriesPage').then((m) => m.DeliveriesPage),
    () => import('./i18n'),
  ),
});
