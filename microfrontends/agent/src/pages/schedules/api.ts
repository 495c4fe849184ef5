import dayjs from 'dayjs';
import { api } from '@atendo/web-api';
import type { ListPageOf } from '@atendo/web-kit';

/**
 * The schedules screen's calls (plugins/schedules; spec 2-tickets.md §2 "Schedules", §5, §7 "Schedules";
 * wire-shapes "GET /schedules").
 */

export type ScheduleStatus = 'PENDENTE' | 'ENVIADA' | 'ERRO';

/** A schedule as the API answers it; times are ISO 8601. */
export interface Schedule {
  id: number;
  body: string;
  sendAt: string;
  sentAt: string | null;
  contactId: number;
  ticketId: number | null;
  userId: number | null;
  companyId: number;
  status: ScheduleStatus;
  error: string | null;
  createdAt: string;
  updatedAt: string;
  contact: { id: number; name: string } | null;
  user: { id: number; name: string } | null;
}

/** `company-{cid}-schedule` payloads. */
export type ScheduleEvent = { action: 'create' | 'update'; schedule: Schedule } | { action: 'delete'; scheduleId: number | string };

export interface ScheduleInput {
  body: string;
  contactId: number;
  /** ISO 8601 with the browser's offset (the server takes it as it is). */
  sendAt: string;
}

/** A contact of `GET /contacts/list`. */
export interface ContactOption {
  id: number;
  name: string;
  number: string;
}

export const schedulesKey = ['agent', 'schedules'] as const;

/** Body length of the list (spec: cut to 25 characters plus '...'). */
export const BODY_CUT = 25;
/** Shortest body (spec 2-tickets.md §5: 'Mensagem muito curta'). */
export const BODY_MIN = 5;

/** `GET /schedules/?searchParam&pageNumber` (20 a page, newest first). */
export async function fetchSchedules(term: string, pageNumber: number, signal?: AbortSignal): Promise<ListPageOf<Schedule>> {
  const page = await api.get<{ schedules: Schedule[]; count: number; hasMore: boolean }>('/schedules/', { query: { searchParam: term || undefined, pageNumber }, signal });
  return { records: page.schedules, count: page.count, hasMore: page.hasMore };
}

export const createSchedule = (body: ScheduleInput) => api.post<Schedule>('/schedules', body);
export const updateSchedule = (id: number, body: ScheduleInput) => api.put<Schedule>(`/schedules/${id}`, body);
export const deleteSchedule = (id: number) => api.delete<{ message: string }>(`/schedules/${id}`);

/** `GET /contacts/list?searchParam`: contacts by name or number (the dialog shows the first 20). */
export const searchContacts = (term: string, signal?: AbortSignal) => api.get<ContactOption[]>('/contacts/list', { query: { searchParam: term || undefined }, signal });
/** `GET /contacts/{id}` (the contact of `/schedules?contactId=`). */
export const fetchContact = (id: number) => api.get<ContactOption>(`/contacts/${id}`);

/** Whether a schedule matches a (lower-cased) search: body or contact name. */
export const scheduleMatches = (s: Schedule, term: string) => !term || s.body.toLowerCase().includes(term) || (s.contact?.name ?? '').toLowerCase().includes(term);

/** The list's body: cut to 25 characters plus '...'. */
export const cutBody = (body: string) => (body.length > BODY_CUT ? `${body.slice(0, BODY_CUT)}...` : body);

/** `DD/MM/YYYY HH:mm:ss` in the browser's time zone ('' for a bad time). */
export function formatSendAt(iso: string | null | undefined): string {
  const d = iso ? dayjs(iso) : null;
  return d?.isValid() ? d.format('DD/MM/YYYY HH:mm:ss') : '';
}

/** The datetime-local value (`YYYY-MM-DDTHH:mm`) of an ISO time, or of one hour from `now` (the default). */
export function localInput(iso?: string | null, now: Date = new Date()): string {
  const d = iso ? dayjs(iso) : dayjs(now).add(1, 'hour');
  return d.isValid() ? d.format('YYYY-MM-DDTHH:mm') : '';
}

/** The ISO time with the browser's offset of a datetime-local value, or undefined when malformed. */
export function sendAtOf(local: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(local)) return undefined;
  const d = dayjs(local);
  return d.isValid() ? d.format('YYYY-MM-DDTHH:mm:ssZ') : undefined;
}

/** Admins, supervisors and super users change any schedule; users their own (the server's rule). */
export function canChange(user: { id: number; profile?: unknown; super?: unknown } | null | undefined, s: Pick<Schedule, 'userId'>): boolean {
  if (!user) return false;
  const profile = String(user.profile ?? '').toLowerCase();
  return Boolean(user.super) || profile === 'admin' || profile === 'supervisor' || s.userId === user.id;
}
