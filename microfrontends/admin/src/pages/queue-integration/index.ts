import { defineAdminPage, lazyPage } from '../registry';

/** Queue integrations (plugins/integrations; spec 3-campaigns-and-tools.md "Queue integrations"): plan useIntegration; writes for admins. */
export default defineAdminPage({
  path: '/queue-integration',
  titleKey: 'menu.queueIntegration',
  feature: 'useIntegration',
  plugin: 'integrations',
  menu: { section: 'main', key: 'queueIntegration', icon: 'integration', order: 130 },
  component: lazyPage(
    () => import('./QueueIntegrationPage').then((m) => m.QueueIntegrationPage),
    () => import('./i18n'),
  ),
});
