import { definePage, lazyPage } from '../registry';

/** Quick messages (plugins/quick-messages; spec 2-tickets.md §2 "Quick messages"): every user. */
export default definePage({
  path: '/quick-messages',
  titleKey: 'menu.quickMessages',
  plugin: 'quick-messages',
  menu: { section: 'main', key: 'quickMessages', icon: 'bolt', order: 30 },
  component: lazyPage(
    () => import('./QuickMessagesPage').then((m) => m.QuickMessagesPage),
    () => import('./i18n'),
  ),
});
