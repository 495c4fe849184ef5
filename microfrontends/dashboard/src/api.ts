import Papa from 'papaparse';
import { api, HttpError } from '@atendo/web-api';
import type { Dashboard, DashboardSla, NpsInfo, ReportPage, ResearchPage, TicketsPerDay, TicketsPerQueue, TicketsPerUser } from '@atendo/plugin-dashboard/contract';

export type { Dashboard, DashboardAttendant, DashboardSla, NpsClass, NpsInfo, ReportPage, ReportRow, ResearchAnswer, ResearchPage, TicketsPerDay, TicketsPerQueue, TicketsPerUser } from '@atendo/plugin-dashboard/contract';

/** The period options of the filter (spec 1-platform.md §8). */
export const PERIODS = [3, 7, 15, 30, 60, 90] as const;

/** What the dashboard asks for: the last `days` days, or a range of days (YYYY-MM-DD). */
export type RangeFilter = { kind: 'days'; days: number } | { kind: 'range'; from: string; to: string };

/** The default filter: the current month (first day to today, the browser's calendar). */
export function currentMonth(now: Date = new Date()): RangeFilter {
  const pad = (n: number) => String(n).padStart(2, '0');
  const y = now.getFullYear();
  const m = pad(now.getMonth() + 1);
  return { kind: 'range', from: `${y}-${m}-01`, to: `${y}-${m}-${pad(now.getDate())}` };
}

/** Query string values of a filter for `GET /dashboard` (date_from/date_to) or the chart routes (initialDate/finalDate). */
export function rangeQuery(f: RangeFilter, names: 'dashboard' | 'charts'): Record<string, string | number> {
  if (f.kind === 'days') return { days: f.days };
  return names === 'dashboard' ? { date_from: f.from, date_to: f.to } : { initialDate: f.from, finalDate: f.to };
}

/** react-query keys (prefixed 'dashboard': one invalidation refreshes every figure). */
export const keys = {
  all: ['dashboard'] as const,
  of: (what: string, f: RangeFilter) => ['dashboard', what, f] as const,
};

export const fetchDashboard = (f: RangeFilter, signal?: AbortSignal) => api.get<Dashboard>('/dashboard', { query: rangeQuery(f, 'dashboard'), signal });
export const fetchPerDay = (f: RangeFilter, signal?: AbortSignal) => api.get<TicketsPerDay>('/dashboard/total-atendimentos', { query: rangeQuery(f, 'charts'), signal });
export const fetchPerQueue = (f: RangeFilter, signal?: AbortSignal) => api.get<TicketsPerQueue>('/dashboard/queues', { query: rangeQuery(f, 'charts'), signal });
export const fetchPerUser = (f: RangeFilter, signal?: AbortSignal) => api.get<TicketsPerUser>('/dashboard/ticketsUsers', { query: rangeQuery(f, 'charts'), signal });
export const fetchNpsInfo = (f: RangeFilter, signal?: AbortSignal) => api.get<NpsInfo>('/dashboard/nps-info', { query: rangeQuery(f, 'charts'), signal });
/**
 * `GET /dashboard/sla` (issue 34 item 5): the share of tickets that met each SLA target; null when the SLA plugin
 * is not installed (the route answers 404), so the screen hides its tab.
 */
export async function fetchSla(f: RangeFilter, signal?: AbortSignal): Promise<DashboardSla | null> {
  try {
    return await api.get<DashboardSla>('/dashboard/sla', { query: rangeQuery(f, 'dashboard'), signal });
  } catch (err) {
    if (err instanceof HttpError && err.status === 404) return null;
    throw err;
  }
}
export const fetchClosed = (f: RangeFilter, signal?: AbortSignal) => api.get<number>('/dashboard/atendimentos-encerrados', { query: rangeQuery(f, 'charts'), signal });

/** Filters of the reports page. */
export interface ReportFilter {
  from: string;
  to: string;
  queueId: string;
  userId: string;
  whatsappId: string;
  /** A ticket status (the ticket reports; '' any). */
  status: string;
  /** An NPS class (the research report; '' any). */
  npsClass: string;
}

/** Which conversations a ticket report reads: 1:1 ones (attendance, duration) or groups (group attendance). */
export type ReportScope = 'people' | 'groups';

/** `GET /ticket/reports` (one page) of the 1:1 conversations or of the groups (`isGroup`). */
export function fetchReport(f: ReportFilter, scope: ReportScope, pageNumber: number, pageSize = 50, signal?: AbortSignal): Promise<ReportPage> {
  return api.get<ReportPage>('/ticket/reports', {
    query: {
      initialDate: f.from,
      finalDate: f.to,
      queueIds: f.queueId || undefined,
      userIds: f.userId || undefined,
      whatsappIds: f.whatsappId || undefined,
      status: f.status || undefined,
      isGroup: scope === 'groups',
      pageNumber,
      pageSize,
    },
    signal,
  });
}

/** `GET /ticket/reports/research` (one page): the customers' NPS answers given on the days of the filter. */
export function fetchResearch(f: ReportFilter, pageNumber: number, pageSize = 50, signal?: AbortSignal): Promise<ResearchPage> {
  return api.get<ResearchPage>('/ticket/reports/research', {
    query: {
      initialDate: f.from,
      finalDate: f.to,
      queueIds: f.queueId || undefined,
      userIds: f.userId || undefined,
      whatsappIds: f.whatsappId || undefined,
      npsClass: f.npsClass || undefined,
      pageNumber,
      pageSize,
    },
    signal,
  });
}

/** Every row of a paged report (pages of 500), for the CSV export. */
async function wholeOf<T>(fetchPage: (page: number) => Promise<{ hasMore: boolean; rows: T[] }>): Promise<T[]> {
  const out: T[] = [];
  for (let page = 1; ; page++) {
    const p = await fetchPage(page);
    out.push(...p.rows);
    if (!p.hasMore || !p.rows.length) return out;
  }
}

/** Every row of a ticket report, for the CSV export. */
export const fetchWholeReport = (f: ReportFilter, scope: ReportScope): Promise<ReportPage['tickets']> =>
  wholeOf(async (page) => {
    const p = await fetchReport(f, scope, page, 500);
    return { hasMore: p.hasMore, rows: p.tickets };
  });

/** Every answer of the research report, for the CSV export. */
export const fetchWholeResearch = (f: ReportFilter): Promise<ResearchPage['answers']> =>
  wholeOf(async (page) => {
    const p = await fetchResearch(f, page, 500);
    return { hasMore: p.hasMore, rows: p.answers };
  });

export interface Ref {
  id: number;
  name: string;
}
export const fetchQueues = (signal?: AbortSignal) => api.get<Ref[]>('/queue', { signal });
export const fetchUsers = (signal?: AbortSignal) => api.get<Ref[]>('/users/list', { signal });
export const fetchConnections = (signal?: AbortSignal) => api.get<Ref[]>('/whatsapp/', { query: { session: 0 }, signal });

/** Minutes as the screens show them: `45 min`, `1 h 05 min`, or a dash. */
export function formatMinutes(m: number | null | undefined): string {
  if (m === null || m === undefined || Number.isNaN(m)) return '—';
  const total = Math.round(m);
  if (total < 60) return `${total} min`;
  return `${Math.floor(total / 60)} h ${String(total % 60).padStart(2, '0')} min`;
}

/**
 * DD/MM/YYYY HH:mm of an ISO instant (spec 1-platform.md §8), in `timeZone` (an IANA name: the company's, as the
 * report answers it) or, without one, the browser's.
 */
export function formatDateTime(value: string | null | undefined, timeZone?: string): string {
  if (!value) return '—';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return '—';
  let parts: Record<string, string>;
  try {
    parts = Object.fromEntries(
      new Intl.DateTimeFormat('en-GB', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
        .formatToParts(d)
        .map((p) => [p.type, p.value]),
    );
  } catch {
    return formatDateTime(value); // an unknown zone name: the browser's
  }
  return `${parts.day}/${parts.month}/${parts.year} ${parts.hour}:${parts.minute}`;
}

/** A CSV text (papaparse; `;`-free commas, quoted when needed) of `rows` under `header`. */
export function toCsv(header: string[], rows: (string | number | null)[][]): string {
  return Papa.unparse({ fields: header, data: rows.map((r) => r.map((v) => (v === null ? '' : v))) });
}

/** Saves `csv` as `name` (a UTF-8 BOM so spreadsheet programs read accents). */
export function downloadCsv(name: string, csv: string): void {
  const blob = new Blob(['\ufeff', csv], { type: 'text/csv;charset=utf-8' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
