import type { CampaignPage } from './registry';
import campaigns from './campaigns';
import contactLists from './contact-lists';
import contactListItems from './contact-list-items';
import campaignReport from './campaign-report';
import campaignsConfig from './campaigns-config';

/**
 * The campaigns area's sub-pages, one folder each under src/pages/ (see registry.ts). A new screen: add the
 * folder, one line here, and its route and menu entry in area.json.
 */
export const CAMPAIGN_PAGES: readonly CampaignPage[] = [campaigns, contactLists, contactListItems, campaignReport, campaignsConfig];
