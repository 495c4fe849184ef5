import { isAdmin, type Plan, type PlanFeature, type SessionUser } from '@atendo/web-api';

/** Who may open a route or see a menu entry: any signed-in user, admins (and super users), super users. */
export type Role = 'user' | 'admin' | 'super';

/** True when `user` has `role` (spec 1-platform.md §6; the admin check is case-insensitive). */
export function hasRole(user: Pick<SessionUser, 'profile' | 'super'> | null | undefined, role: Role | null | undefined): boolean {
  if (!user) return false;
  if (!role || role === 'user') return true;
  if (role === 'admin') return isAdmin(user);
  return Boolean(user.super);
}

/**
 * Whether the company's plan has `feature`: true/false, or undefined while the plan is not known yet.
 * No feature required: always true.
 */
export function hasFeature(plan: Plan | null | undefined, feature: PlanFeature | null | undefined): boolean | undefined {
  if (!feature) return true;
  if (!plan) return undefined;
  return Boolean(plan[feature]);
}

const RANK: Record<Role, number> = { user: 0, admin: 1, super: 2 };

/** The strictest of `roles` (undefined when none is given). */
export function stricterRole(...roles: (Role | null | undefined)[]): Role | undefined {
  const given = roles.filter((r): r is Role => Boolean(r));
  return given.length ? given.reduce((x, y) => (RANK[y] > RANK[x] ? y : x)) : undefined;
}

/** The distinct plan features of `features` (nulls dropped). */
export function featureSet(...features: (PlanFeature | null | undefined)[]): PlanFeature[] {
  return [...new Set(features.filter((f): f is PlanFeature => Boolean(f)))];
}
