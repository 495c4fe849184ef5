import { defineAdminPage, lazyPage } from '../registry';

/** SLA targets per queue (plugins/sla, issue 34 item 5): first response and resolution, in the queue's business hours. */
export default defineAdminPage({
  path: '/sla',
  titleKey: 'menu.sla',
  role: 'admin',
  plugin: 'sla',
  menu: { section: 'admin', key: 'sla', icon: 'clock', order: 25 },
  component: lazyPage(
    () => import('./SlaPage').then((m) => m.SlaPage),
    () => import('./i18n'),
  ),
});
