import type { Plan, PlanFeature, SessionUser } from '@atendo/web-api';
import type { IconName } from '@atendo/web-ui';
import { featureSet, hasFeature, hasRole, stricterRole, type Role } from './access';
import { AREAS, expandPath, type AreaDef } from './areas';

/** One side-menu entry, with the gate of the page it opens. */
export interface MenuEntry {
  /** Test id `menu-<key>`. */
  key: string;
  /** i18n key of the label (`menu.<key>` unless the area says otherwise). */
  labelKey: string;
  to: string;
  icon: IconName;
  /** Position in the section. */
  order: number;
  role?: Role;
  /** Plan features the page needs (all of them). */
  features: PlanFeature[];
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

/** The side menu's sections (spec 1-platform.md §2): main, an admin section (admins and super users), a super section. */
export const MENU_SECTIONS: Omit<MenuSection, 'entries'>[] = [
  { key: 'main' },
  { key: 'admin', titleKey: 'menu.sections.admin', role: 'admin' },
  { key: 'super', titleKey: 'menu.sections.super', role: 'super' },
];

type ShellEntry = Omit<MenuEntry, 'labelKey' | 'features'> & { section: MenuSection['key']; feature?: PlanFeature };

/**
 * The shell's own menu entries: the spec's entries whose area does not exist yet (they open the "coming
 * soon" page). An area's entries come from its manifest (`menu` of microfrontends/<area>/area.json) and
 * are placed by `order` on the same scale; when an area takes one of these pages, its line here goes.
 */
export const SHELL_MENU: ShellEntry[] = [
];

/**
 * The whole menu: the shell's entries and every area's, each gated like the page it opens (an area entry
 * takes the strictest of the area's, its route's and its own role, and all their plan features), sorted by
 * `order` within its section.
 */
export function buildMenu(areas: AreaDef[] = AREAS, shell: ShellEntry[] = SHELL_MENU): MenuSection[] {
  const bySection = new Map<MenuSection['key'], MenuEntry[]>(MENU_SECTIONS.map((s) => [s.key, []]));
  for (const { section, feature, ...e } of shell) bySection.get(section)?.push({ ...e, labelKey: `menu.${e.key}`, features: featureSet(feature) });
  for (const area of areas) {
    for (const { section, role, feature, labelKey, ...e } of area.menu) {
      const route = area.routes.find((r) => expandPath(r.path).some((p) => p.toLowerCase() === e.to.toLowerCase()));
      bySection.get(section)?.push({
        ...e,
        icon: e.icon as IconName,
        labelKey: labelKey ?? `menu.${e.key}`,
        role: stricterRole(area.role, route?.role, role),
        features: featureSet(area.feature, route?.feature, feature),
      });
    }
  }
  return MENU_SECTIONS.map((s) => ({ ...s, entries: [...(bySection.get(s.key) ?? [])].sort((a, b) => a.order - b.order) }));
}

/** The side menu (spec 1-platform.md §2), built once from the shell's entries and the area manifests. */
export const MENU: MenuSection[] = buildMenu();

/**
 * The sections and entries `user` may see with `plan`: sections and entries above the user's role are
 * dropped, and entries whose plan features are off, or not known yet (plan still loading), are hidden.
 * Empty sections are dropped.
 */
export function visibleMenu(user: Pick<SessionUser, 'profile' | 'super'> | null | undefined, plan: Plan | null | undefined, menu: MenuSection[] = MENU): MenuSection[] {
  if (!user) return [];
  return menu
    .filter((s) => hasRole(user, s.role))
    .map((s) => ({ ...s, entries: s.entries.filter((e) => hasRole(user, e.role) && e.features.every((f) => hasFeature(plan, f) === true)) }))
    .filter((s) => s.entries.length > 0);
}
