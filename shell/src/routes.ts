import type { PlanFeature } from '@atendo/web-api';
import type { Role } from './access';

/** A private route of the spec's route table (spec 1-platform.md §2), with its gate. */
export interface RouteDef {
  /** react-router path; matching is exact and case-insensitive (so /Kanban is /kanban). */
  path: string;
  /** i18n key of the page title. */
  titleKey: string;
  role?: Role;
  feature?: PlanFeature;
}

/** Where a signed-in user lands after sign-in. */
export const HOME_AFTER_LOGIN = '/tickets';
/** The open-invoices page an expired company is sent to. */
export const EXPIRED_ROUTE = '/financeiro-aberto';

/**
 * Every private route of the product. A route served by an area (shell/areas.json) mounts that area;
 * the others show the "coming soon" page until their area exists. /financeiro-aberto is the shell's own.
 */
export const PRIVATE_ROUTES: RouteDef[] = [
  { path: '/', titleKey: 'menu.dashboard', role: 'admin' },
  { path: '/tickets/:ticketId?', titleKey: 'menu.tickets' },
  { path: '/moments', titleKey: 'routes.moments' },
  { path: '/quick-messages', titleKey: 'menu.quickMessages' },
  { path: '/kanban', titleKey: 'menu.kanban', feature: 'useKanban' },
  { path: '/tagsKanban', titleKey: 'routes.tagsKanban', feature: 'useKanban' },
  { path: '/contacts', titleKey: 'menu.contacts' },
  { path: '/schedules', titleKey: 'menu.schedules', feature: 'useSchedules' },
  { path: '/tags', titleKey: 'menu.tags' },
  { path: '/chats/:id?', titleKey: 'menu.chats', feature: 'useInternalChat' },
  { path: '/helps', titleKey: 'menu.helps' },
  { path: '/todolist', titleKey: 'routes.todolist' },
  { path: '/campaigns', titleKey: 'menu.campaigns', feature: 'useCampaigns' },
  { path: '/contact-lists', titleKey: 'routes.contactLists', feature: 'useCampaigns' },
  { path: '/contact-lists/:contactListId/contacts', titleKey: 'routes.contactListItems', feature: 'useCampaigns' },
  { path: '/campaign/:campaignId/report', titleKey: 'routes.campaignReport', feature: 'useCampaigns' },
  { path: '/campaigns-config', titleKey: 'routes.campaignsConfig', feature: 'useCampaigns', role: 'admin' },
  { path: '/announcements', titleKey: 'menu.announcements', role: 'super' },
  { path: '/messages-api', titleKey: 'menu.messagesApi', feature: 'useExternalApi' },
  { path: '/users', titleKey: 'menu.users', role: 'admin' },
  { path: '/queues', titleKey: 'menu.queues', role: 'admin' },
  { path: '/prompts', titleKey: 'menu.prompts', feature: 'useOpenAi' },
  { path: '/queue-integration', titleKey: 'menu.queueIntegration', feature: 'useIntegration' },
  { path: '/connections', titleKey: 'menu.connections', role: 'admin' },
  { path: '/plantao', titleKey: 'routes.plantao' },
  { path: '/files', titleKey: 'routes.files' },
  { path: '/settings', titleKey: 'menu.settings', role: 'admin' },
  { path: '/companies', titleKey: 'menu.companies', role: 'super' },
];
