import { definePage, lazyPage } from '../registry';

/** /campaign/:campaignId/report (spec 3-campaigns-and-tools.md §2 "Campaign report"). */
export default definePage({
  path: '/campaign/:campaignId/report',
  titleKey: 'routes.campaignReport',
  plugin: 'campaigns',
  component: lazyPage(
    () => import('./CampaignReportPage').then((m) => m.CampaignReportPage),
    () => import('./i18n'),
  ),
});
