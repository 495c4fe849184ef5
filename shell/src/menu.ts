import type { Plan, PlanFeature, SessionUser } from '@atendo/web-api';
import type { IconName } from '@atendo/web-ui';
import { hasFeature, hasRole, type Role } from './access';

export interface MenuEntry {
  /** i18n key `menu.<key>` and test id. */
  key: string;
  to: string;
  icon: IconName;
  role?: Role;
  feature?: PlanFeature;
  /** Shows the connections warning badge, or the unread internal-chat dot. */
  badge?: 'connections' | 'chats';
}

export interface MenuSection {
  key: 'main' | 'admin' | 'super';
  /** i18n key of the section title (none for the main section). */
  titleKey?: string;
  /** Who sees the section at all. */
  role?: Role;
  entries: MenuEntry[];
}

/**
 * The side menu (spec 1-platform.md §2): entries gated by plan feature, an admin section for the admin
 * profile (and super users), a super section for super users.
 */
export const MENU: MenuSection[] = [
  {
    key: 'main',
    entries: [
      { key: 'dashboard', to: '/', icon: 'dashboard', role: 'admin' },
      { key: 'tickets', to: '/tickets', icon: 'chat' },
      { key: 'quickMessages', to: '/quick-messages', icon: 'bolt' },
      { key: 'kanban', to: '/kanban', icon: 'kanban', feature: 'useKanban' },
      { key: 'contacts', to: '/contacts', icon: 'contacts' },
      { key: 'schedules', to: '/schedules', icon: 'calendar', feature: 'useSchedules' },
      { key: 'tags', to: '/tags', icon: 'tag' },
      { key: 'chats', to: '/chats', icon: 'forum', feature: 'useInternalChat', badge: 'chats' },
      { key: 'helps', to: '/helps', icon: 'help' },
      { key: 'campaigns', to: '/campaigns', icon: 'campaign', feature: 'useCampaigns' },
      { key: 'messagesApi', to: '/messages-api', icon: 'api', feature: 'useExternalApi' },
      { key: 'prompts', to: '/prompts', icon: 'ai', feature: 'useOpenAi' },
      { key: 'queueIntegration', to: '/queue-integration', icon: 'integration', feature: 'useIntegration' },
    ],
  },
  {
    key: 'admin',
    titleKey: 'menu.sections.admin',
    role: 'admin',
    entries: [
      { key: 'users', to: '/users', icon: 'users' },
      { key: 'queues', to: '/queues', icon: 'queue' },
      { key: 'connections', to: '/connections', icon: 'connection', badge: 'connections' },
      { key: 'settings', to: '/settings', icon: 'settings' },
    ],
  },
  {
    key: 'super',
    titleKey: 'menu.sections.super',
    role: 'super',
    entries: [
      { key: 'companies', to: '/companies', icon: 'business' },
      { key: 'announcements', to: '/announcements', icon: 'announcement' },
    ],
  },
];

/**
 * The sections and entries `user` may see with `plan`: sections and entries above the user's role are
 * dropped, and entries whose plan feature is off, or not known yet (plan still loading), are hidden.
 * Empty sections are dropped.
 */
export function visibleMenu(user: Pick<SessionUser, 'profile' | 'super'> | null | undefined, plan: Plan | null | undefined, menu: MenuSection[] = MENU): MenuSection[] {
  if (!user) return [];
  return menu
    .filter((s) => hasRole(user, s.role))
    .map((s) => ({ ...s, entries: s.entries.filter((e) => hasRole(user, e.role) && hasFeature(plan, e.feature) === true) }))
    .filter((s) => s.entries.length > 0);
}
