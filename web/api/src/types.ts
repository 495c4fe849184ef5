/** Shapes the web UI reads from the API (wire-shapes.md §2, §3; kernel/sdk identity and plan types). */

import type { PlanFeature } from '@atendo/sdk/wire';

/** The plan flags: one list for the API and the web UI (`@atendo/sdk/wire`). */
export { PLAN_FEATURES, type PlanFeature } from '@atendo/sdk/wire';

/** A plan; `amount` is a decimal string in BRL ("99.90"). */
export interface Plan extends Partial<Record<PlanFeature, boolean>> {
  id: number;
  name: string;
  users: number;
  connections: number;
  queues: number;
  amount: string | number;
  isPublic?: boolean;
}

export interface Company {
  id: number;
  name: string;
  email?: string | null;
  phone?: string | null;
  status?: boolean;
  /** `YYYY-MM-DD` (or an ISO date-time from older servers). */
  dueDate?: string | null;
  recurrence?: string | null;
  planId?: number | null;
  plan?: Plan | null;
  companieSettings?: Record<string, unknown>[];
  [key: string]: unknown;
}

export type Profile = 'admin' | 'user' | 'supervisor';

/** The signed-in user as `POST /auth/login` and `POST /auth/refresh_token` answer it. */
export interface SessionUser {
  id: number;
  companyId: number;
  name: string;
  email: string;
  profile: Profile | string;
  super: boolean;
  profileImage?: string | null;
  defaultTheme?: 'light' | 'dark';
  defaultMenu?: 'open' | 'closed';
  language?: string | null;
  queues?: { id: number; name: string; color: string }[];
  company?: Company | null;
  [key: string]: unknown;
}

/** `{token, user}` of login and refresh. */
export interface AuthAnswer {
  token: string;
  user: SessionUser;
}

/** The body of every API error. */
export interface ApiErrorBody {
  error?: string;
  message?: string;
  [key: string]: unknown;
}

/** True for admins (case-insensitive, spec §6) and super users. */
export function isAdmin(user: Pick<SessionUser, 'profile' | 'super'> | null | undefined): boolean {
  if (!user) return false;
  return Boolean(user.super) || String(user.profile ?? '').toLowerCase() === 'admin';
}

/**
 * An announcement as `GET /announcements/` answers it (plugins/announcements; wire-shapes "GET
 * /announcements/"). `priority`: 1 high, 2 medium, 3 low; `mediaPath`: a signed image URL or null.
 */
export interface Announcement {
  id: number;
  priority: number;
  title: string;
  text: string;
  mediaPath: string | null;
  mediaName: string | null;
  companyId: number;
  /** The companies it is shown to; null: every company. */
  targetCompanyIds?: number[] | null;
  status: boolean;
  createdAt: string;
  updatedAt: string;
}

/** One page of `GET /announcements/` (20 a page). */
export interface AnnouncementsPage {
  records: Announcement[];
  count: number;
  hasMore: boolean;
}

/** `company-announcement` payloads (emitted to every signed-in socket of every company; spec 1-platform.md §9). */
export type AnnouncementEvent = { action: 'create' | 'update'; record: Announcement } | { action: 'delete'; id: number };

/** The event every announcement write emits. */
export const ANNOUNCEMENT_EVENT = 'company-announcement';
