import { defineAdminPage, lazyPage } from '../registry';

/**
 * The external messages API page (spec 3-campaigns-and-tools.md "External messages API page"; API:
 * plugins/messages-api). Any user of a company whose plan has useExternalApi. No `plugin`: the plugin's
 * route checks the plan itself (it is public, authenticated by a connection token), it has no featureFlag.
 */
export default defineAdminPage({
  path: '/messages-api',
  titleKey: 'menu.messagesApi',
  feature: 'useExternalApi',
  menu: { section: 'main', key: 'messagesApi', icon: 'api', order: 110 },
  component: lazyPage(
    () => import('./MessagesApiPage').then((m) => m.MessagesApiPage),
    () => import('./i18n'),
  ),
});
