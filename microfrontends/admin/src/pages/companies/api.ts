import { api, type Plan } from '@atendo/web-api';
import type { ListPageOf } from '@atendo/web-kit';

/**
 * The companies screen's calls (kernel routes, kernel/core/src/routes/companies.ts; spec 1-platform.md §2
 * "Companies admin", §3 "Company", §4 renewal, §5, §9). Super users only.
 */
export interface AdminCompany {
  id: number;
  name: string;
  email: string | null;
  phone: string | null;
  document: string | null;
  status: boolean;
  /** `YYYY-MM-DD` or null. */
  dueDate: string | null;
  recurrence: string | null;
  /** Attendants and connections recorded for the company (numeric, default 1). */
  numberAttendants?: number;
  numberConections?: number;
  planId: number | null;
  lastLogin: string | null;
  createdAt: string;
  plan?: Plan | null;
}

export interface CompanyInput {
  name: string;
  email: string;
  password?: string;
  planId: number;
  phone: string | null;
  document: string | null;
  status: boolean;
  dueDate: string | null;
  recurrence: string | null;
  /** Attendants and connections recorded for the company (numeric, default 1). */
  numberAttendants?: number;
  numberConections?: number;
}

/** The five periods (spec 1-platform.md §3) and their months (§9). */
export const RECURRENCES = [
  { value: 'MONTHLY', months: 1 },
  { value: 'BIMONTHLY', months: 2 },
  { value: 'QUARTERLY', months: 3 },
  { value: 'SEMESTER', months: 6 },
  { value: 'YEARLY', months: 12 },
] as const;

export const companiesKeys = { list: ['admin', 'companies'] as const, plans: ['admin', 'plans', 'all'] as const };

/** `GET /companiesPlan/?searchParam&pageNumber` (20 a page, by name). */
export async function fetchCompanies(term: string, pageNumber: number, signal?: AbortSignal): Promise<ListPageOf<AdminCompany>> {
  const page = await api.get<{ companies: AdminCompany[]; count: number; hasMore: boolean }>('/companiesPlan/', { query: { searchParam: term || undefined, pageNumber }, signal });
  return { records: page.companies, count: page.count, hasMore: page.hasMore };
}
export const fetchPlans = (signal?: AbortSignal) => api.get<Plan[]>('/plans/all', { signal });
export const createCompany = (body: CompanyInput) => api.post<AdminCompany>('/companies', body);
export const updateCompany = (id: number, body: CompanyInput) => api.put<AdminCompany>(`/companies/${id}`, body);
export const deleteCompany = (id: number) => api.delete<AdminCompany>(`/companies/${id}`);
/** `POST /companies/:id/renew`: the due date advances by the recurrence. */
export const renewCompany = (id: number) => api.post<AdminCompany>(`/companies/${id}/renew`);

/** Whole days from `today` to `dueDate` (`YYYY-MM-DD`); null without a due date. */
export function daysUntilDue(dueDate: string | null, today: Date = new Date()): number | null {
  if (!dueDate) return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(dueDate);
  if (!m) return null;
  const due = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  const now = Date.UTC(today.getFullYear(), today.getMonth(), today.getDate());
  return Math.round((due - now) / 86_400_000);
}

/** The row tint (spec 1-platform.md §9): yellow 1 to 5 days before the due date, red on or after it. */
export function dueTint(dueDate: string | null, today?: Date): 'warning' | 'danger' | null {
  const days = daysUntilDue(dueDate, today);
  if (days === null) return null;
  if (days <= 0) return 'danger';
  if (days <= 5) return 'warning';
  return null;
}

/** `DD/MM/YYYY` of a date or ISO date-time; '' when absent. */
export function dmy(value: string | null | undefined): string {
  if (!value) return '';
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  if (m && value.length === 10) return `${m[3]}/${m[2]}/${m[1]}`;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getDate())}/${p(d.getMonth() + 1)}/${d.getFullYear()}`;
}
