import { api } from '@atendo/web-api';
import type { SlaPolicy } from '@atendo/plugin-sla/contract';

/** The SLA page's calls (plugins/sla). Shapes: plugins/sla/src/contract.ts (`SlaPolicySchema`). */
export type { SlaPolicy };

/** Longest target the API takes: a year of business minutes. */
export const MAX_MINUTES = 525_600;

export const slaKeys = { policies: ['admin', 'sla', 'policies'] as const };

export const fetchPolicies = (signal?: AbortSignal) => api.get<SlaPolicy[]>('/sla/policies', { signal });
export const savePolicy = (queueId: number, body: { firstResponseMinutes: number | null; resolutionMinutes: number | null; warnPercent?: number }) =>
  api.put<SlaPolicy>(`/sla/policies/${queueId}`, body);

/**
 * A target typed in the form: blank is "no target" (null); whole minutes 1..525600, or `h:mm` (hours and
 * minutes: `1:30` is 90). Undefined when it is not valid.
 */
export function parseMinutes(text: string): number | null | undefined {
  const v = text.trim();
  if (!v) return null;
  let n: number;
  const hm = /^(\d{1,4}):([0-5]\d)$/.exec(v);
  if (hm) n = Number(hm[1]) * 60 + Number(hm[2]);
  else if (/^\d{1,6}$/.test(v)) n = Number(v);
  else return undefined;
  return n >= 1 && n <= MAX_MINUTES ? n : undefined;
}

/** The warn share typed (1..99 percent), or undefined. */
export function parsePercent(text: string): number | undefined {
  const v = text.trim();
  return /^\d{1,2}$/.test(v) && Number(v) >= 1 ? Number(v) : undefined;
}

/** Minutes as `h:mm` (90 -> `1:30`); blank for null. */
export function formatMinutes(n: number | null): string {
  if (n === null) return '';
  return `${Math.floor(n / 60)}:${String(n % 60).padStart(2, '0')}`;
}
