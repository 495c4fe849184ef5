import { definePage, lazyPage } from '../registry';

/** /campaigns (spec 3-campaigns-and-tools.md §2 "Campaigns list"). */
export default definePage({
  path: '/campaigns',
  titleKey: 'menu.campaigns',
  plugin: 'campaigns',
  menu: { section: 'main', key: 'campaigns', icon: 'campaign', order: 100 },
  component: lazyPage(
    () => import('./CampaignsPage').then((m) => m.CampaignsPage),
    () => import('./i18n'),
  ),
});
