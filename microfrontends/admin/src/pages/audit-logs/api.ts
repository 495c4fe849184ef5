import { api } from '@atendo/web-api';

/** The audit log's calls (plugins/compliance). Shapes: plugins/compliance/src/contract.ts (AuditEntrySchema). */

export interface AuditEntry {
  id: number;
  companyId: number;
  actorKind: 'user' | 'system' | 'bot' | 'api';
  userId: number | null;
  userName: string | null;
  actorLabel: string | null;
  entity: string;
  entityId: string | null;
  action: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  ip: string | null;
  createdAt: string;
}
export interface AuditPage {
  records: AuditEntry[];
  count: number;
  hasMore: boolean;
}

/** The filters of the page, as the form holds them (dates as `YYYY-MM-DD` in the viewer's time zone). */
export interface AuditFilters {
  entity: string;
  entityId: string;
  userId: string;
  from: string;
  to: string;
}

/** The entities the log records (the filter's options). */
export const AUDIT_ENTITIES = ['ticket', 'message', 'contact', 'user', 'queue', 'chatbot', 'connection', 'api-token', 'setting', 'plan', 'company', 'campaign'] as const;

/**
 * The query string of `GET /audit-logs` for `filters` and page `pageNumber`: blank filters left out, the
 * days turned into instants of the viewer's time zone (`from` at 00:00, `to` at 23:59:59.999).
 */
export function auditQuery(filters: AuditFilters, pageNumber: number): string {
  const q = new URLSearchParams();
  if (filters.entity) q.set('entity', filters.entity);
  if (filters.entityId.trim()) q.set('entityId', filters.entityId.trim());
  if (filters.userId) q.set('userId', filters.userId);
  if (filters.from) q.set('from', new Date(`${filters.from}T00:00:00`).toISOString());
  if (filters.to) q.set('to', new Date(`${filters.to}T23:59:59.999`).toISOString());
  q.set('pageNumber', String(pageNumber));
  return q.toString();
}

export const fetchAuditPage = (filters: AuditFilters, pageNumber: number, signal?: AbortSignal) => api.get<AuditPage>(`/audit-logs?${auditQuery(filters, pageNumber)}`, { signal });

/** `{a: 1}` -> `a: 1`, for the before/after columns. */
export function describeFields(fields: Record<string, unknown> | null): string {
  if (!fields) return '';
  return Object.entries(fields)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ');
}
