import { defineAdminPage, lazyPage } from '../registry';

/** Privacy (plugins/compliance, issue 34 item 4): the opt-out words and reply, and the opted-out contacts (reversible). */
export default defineAdminPage({
  path: '/privacy',
  titleKey: 'menu.privacy',
  role: 'admin',
  plugin: 'compliance',
  menu: { section: 'admin', key: 'privacy', icon: 'eyeOff', order: 46 },
  component: lazyPage(
    () => import('./PrivacyPage').then((m) => m.PrivacyPage),
    () => import('./i18n'),
  ),
});
