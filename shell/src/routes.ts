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
 * The shell's own private routes: the pages of the spec's route table (1-platform.md §2) whose area does
 * not exist yet, shown as "coming soon" with their gates. The routes of an area are declared in its
 * manifest (microfrontends/<area>/area.json); when an area takes one of these paths, its line here goes
 * (a test refuses a path declared in both places). /financeiro-aberto is the shell's own page (App.tsx).
 */
export const COMING_SOON_ROUTES: RouteDef[] = [
];
