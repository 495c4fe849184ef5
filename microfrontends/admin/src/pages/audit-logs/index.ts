import { defineAdminPage, lazyPage } from '../registry';

/** The audit log (plugins/compliance, issue 34 item 1): admins read their company's entries, super users every company's. */
export default defineAdminPage({
  path: '/audit-logs',
  titleKey: 'menu.auditLogs',
  role: 'admin',
  plugin: 'compliance',
  menu: { section: 'admin', key: 'auditLogs', icon: 'list', order: 45 },
  component: lazyPage(
    () => import('./AuditLogsPage').then((m) => m.AuditLogsPage),
    () => import('./i18n'),
  ),
});
