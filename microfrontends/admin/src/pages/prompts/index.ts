import { defineAdminPage, lazyPage } from '../registry';

/** AI prompts (plugins/prompts; spec 3-campaigns-and-tools.md "AI prompts"): plan useOpenAi; writes for admins. */
export default defineAdminPage({
  path: '/prompts',
  titleKey: 'menu.prompts',
  feature: 'useOpenAi',
  plugin: 'prompts',
  menu: { section: 'main', key: 'prompts', icon: 'ai', order: 120 },
  component: lazyPage(
    () => import('./PromptsPage').then((m) => m.PromptsPage),
    () => import('./i18n'),
  ),
});
