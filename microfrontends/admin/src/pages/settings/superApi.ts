import { api, PLAN_FEATURES, type Plan, type PlanFeature } from '@atendo/web-api';
import type { ListPageOf } from '@atendo/web-kit';

/**
 * The super user's settings tabs' calls: plans (kernel routes, kernel/core/src/routes/plans.ts) and help
 * entries (plugins/helps); spec 1-platform.md §2 "Plans admin and helps admin", §3 "Plan", "Help".
 * Neither pushes socket events (plans publish plan.changed on the bus only): the lists follow their own
 * writes.
 */
export type AdminPlan = Plan & { isPublic: boolean } & Record<PlanFeature, boolean>;

/** Body of `POST /plans` and `PUT /plans/:id`. */
export type PlanInput = { name: string; users: number; connections: number; queues: number; amount: string; isPublic: boolean } & Record<PlanFeature, boolean>;

export interface Help {
  id: number;
  title: string;
  video: string;
  description: string;
  link: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface HelpInput {
  title: string;
  video: string;
  description: string;
  link: string | null;
}

export { PLAN_FEATURES };

export const superKeys = { plans: ['admin', 'plans', 'paged'] as const, plansAll: ['admin', 'plans', 'all'] as const, helps: ['admin', 'helps'] as const };

/** `GET /plans?searchParam&pageNumber` (20 a page, by name). */
export async function fetchPlansPage(term: string, pageNumber: number, signal?: AbortSignal): Promise<ListPageOf<AdminPlan>> {
  const page = await api.get<{ plans: AdminPlan[]; count: number; hasMore: boolean }>('/plans', { query: { searchParam: term || undefined, pageNumber }, signal });
  return { records: page.plans, count: page.count, hasMore: page.hasMore };
}
export const createPlan = (body: PlanInput) => api.post<AdminPlan>('/plans', body);
export const updatePlan = (id: number, body: PlanInput) => api.put<AdminPlan>(`/plans/${id}`, body);
/** 409 ERR_PLAN_IN_USE while a company uses it. */
export const deletePlan = (id: number) => api.delete<AdminPlan>(`/plans/${id}`);

/** `GET /helps`: every help entry, by title. */
export const fetchHelps = (signal?: AbortSignal) => api.get<Help[]>('/helps', { signal });
export const createHelp = (body: HelpInput) => api.post<Help>('/helps', body);
export const updateHelp = (id: number, body: HelpInput) => api.put<Help>(`/helps/${id}`, body);
export const deleteHelp = (id: number) => api.delete<Help>(`/helps/${id}`);

/** A money text as the API takes it ("99,90" or "99.90"), or null when it is not one. */
export function parseAmount(text: string): string | null {
  const m = /^\s*(\d{1,10})(?:[.,](\d{1,2}))?\s*$/.exec(text);
  if (!m) return null;
  return `${m[1]}.${(m[2] ?? '').padEnd(2, '0')}`;
}
