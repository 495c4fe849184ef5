import { definePage, lazyPage } from '../registry';

/** /campaigns-config (spec 3-campaigns-and-tools.md §2 "Campaign settings"; admins). */
export default definePage({
  path: '/campaigns-config',
  titleKey: 'routes.campaignsConfig',
  plugin: 'campaigns',
  role: 'admin',
  menu: { section: 'main', key: 'campaignsConfig', icon: 'settings', order: 102, labelKey: 'routes.campaignsConfig' },
  component: lazyPage(
    () => import('./CampaignsConfigPage').then((m) => m.CampaignsConfigPage),
    () => import('./i18n'),
  ),
});
