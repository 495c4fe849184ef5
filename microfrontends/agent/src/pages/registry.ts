import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { PlanFeature } from '@atendo/web-api';
import type { IconName } from '@atendo/web-ui';
import { matchRoutePath } from '@atendo/web-kit';
import { registerTexts, type Texts } from '../i18n';

/** Who may open a page: any signed-in user, admins (and super users), super users. */
export type PageRole = 'user' | 'admin' | 'super';

/** Props every page component gets: the params of its path. */
export interface PageProps {
  params: Record<string, string>;
}

/** The side-menu entry of a page (the shell shows it from area.json). */
export interface PageMenu {
  section: 'main' | 'admin' | 'super';
  /** Test id `menu-<key>`, label `menu.<key>` (the shell's texts) unless labelKey says otherwise. */
  key: string;
  icon: IconName;
  /** Position in the section (the shell's scale: 10, 20, …). */
  order: number;
  labelKey?: string;
}

/**
 * One sub-page of the agent area: `src/pages/<page>/index.ts` default-exports `definePage({...})`, listed
 * in `src/pages/index.ts`; the same path, gate and menu entry are declared in area.json (the shell reads
 * that file without loading the area); test/pages.test.ts checks they agree.
 */
export interface AgentPage {
  /** react-router style path, unique in the area. */
  path: string;
  /** i18n key of the page title (the shell's texts). */
  titleKey: string;
  /** Least role (default: the area's, `user`). */
  role?: PageRole;
  /** Plan flag the page needs (its plugin's `featureFlag`). */
  feature?: PlanFeature;
  /** The backend plugin these are the screens of (none for browser-only pages). */
  plugin?: string;
  menu?: PageMenu;
  /** The screen, loaded when first opened: its code and texts stay out of the area's entry. */
  component: LazyExoticComponent<ComponentType<PageProps>>;
}

/**
 * A page's lazy component: its code and its texts (`pages/<page>/i18n.ts`, exporting `texts`) load together
 * when the page is first opened, the texts added to the `agent` namespace before it renders.
 */
export function lazyPage(load: () => Promise<ComponentType<PageProps>>, texts?: () => Promise<{ texts: Texts }>): AgentPage['component'] {
  return lazy(async () => {
    const [component, t] = await Promise.all([load(), texts?.()]);
    if (t) registerTexts(t.texts);
    return { default: component };
  });
}

/** Types and checks a page definition. */
export function definePage(page: AgentPage): AgentPage {
  if (!page.path.startsWith('/')) throw new Error(`agent page ${page.path}: path must start with /`);
  return page;
}

/** The page serving `pathname` among `pages`, with its params, or null. */
export function matchPage(pages: readonly AgentPage[], pathname: string): { page: AgentPage; params: Record<string, string> } | null {
  for (const page of pages) {
    const params = matchRoutePath(page.path, pathname);
    if (params) return { page, params };
  }
  return null;
}
