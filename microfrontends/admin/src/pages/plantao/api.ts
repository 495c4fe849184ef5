import { api } from '@atendo/web-api';

/** The roster's calls (plugins/plantao; spec calls "On-duty roster"). Shapes: plugins/plantao/src/contract.ts. */

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
/** The Portuguese weekday names the API stores next to `weekdayEn`. */
export const WEEKDAY_PT: Record<(typeof WEEKDAYS)[number], string> = {
  monday: 'Segunda-feira', tuesday: 'Terça-feira', wednesday: 'Quarta-feira', thursday: 'Quinta-feira', friday: 'Sexta-feira', saturday: 'Sábado', sunday: 'Domingo',
};

export interface PlantaoDay {
  weekday: string;
  weekdayEn: (typeof WEEKDAYS)[number];
  startTime: string | null;
  endTime: string | null;
}
export interface Plantao {
  id: number;
  companyId: number;
  userId: number;
  user: { id: number; name: string };
  phone: string;
  interval: number;
  days: PlantaoDay[];
  lastNotifiedAt: string | null;
  createdAt: string;
  updatedAt: string;
}
export interface PlantaoInput {
  userId: number;
  phone: string;
  interval: number;
  days: PlantaoDay[];
}
/** `company-{id}-plantao` payload. */
export type PlantaoEvent = { action: 'create' | 'update'; record: Plantao } | { action: 'delete'; id: number };

export const plantaoKeys = { list: ['admin', 'plantao'] as const };

export const fetchPlantoes = (signal?: AbortSignal) => api.get<Plantao[]>('/plantao', { signal });
export const createPlantao = (body: PlantaoInput) => api.post<Plantao>('/plantao', body);
export const updatePlantao = (id: number, body: PlantaoInput) => api.put<Plantao>(`/plantao/${id}`, body);
export const deletePlantao = (id: number) => api.delete<{ message: string }>(`/plantao/${id}`);

/** The HH:MM mask: digits only, a colon after the hours (`0930` -> `09:30`). */
export function maskTime(value: string): string {
  const d = value.replace(/\D/g, '').slice(0, 4);
  return d.length > 2 ? `${d.slice(0, 2)}:${d.slice(2)}` : d;
}
const HHMM = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

/**
 * The spec's checks (3-campaigns-and-tools.md §5 Plantão) as translation keys: user, phone and interval
 * required; a day with one time needs the other; at least one day with both; times as HH:MM.
 */
export function plantaoErrors(v: { userId: string; phone: string; interval: string; days: PlantaoDay[] }): { field: string; key: string }[] {
  const out: { field: string; key: string }[] = [];
  if (!v.userId) out.push({ field: 'userId', key: 'plantao.errors.user' });
  if (!v.phone.replace(/\D/g, '')) out.push({ field: 'phone', key: 'plantao.errors.phone' });
  if (!/^\d+$/.test(v.interval.trim()) || Number(v.interval) < 1) out.push({ field: 'interval', key: 'plantao.errors.interval' });
  for (const d of v.days) {
    if (d.startTime && !d.endTime) out.push({ field: `end-${d.weekdayEn}`, key: 'plantao.errors.end' });
    else if (!d.startTime && d.endTime) out.push({ field: `start-${d.weekdayEn}`, key: 'plantao.errors.start' });
    if (d.startTime && !HHMM.test(d.startTime)) out.push({ field: `start-${d.weekdayEn}`, key: 'plantao.errors.time' });
    if (d.endTime && !HHMM.test(d.endTime)) out.push({ field: `end-${d.weekdayEn}`, key: 'plantao.errors.time' });
  }
  if (!v.days.some((d) => d.startTime && d.endTime)) out.push({ field: 'days', key: 'plantao.errors.oneDay' });
  return out;
}

/** Seven days without hours (a new entry). */
export function emptyDays(): PlantaoDay[] {
  return WEEKDAYS.map((weekdayEn) => ({ weekday: WEEKDAY_PT[weekdayEn], weekdayEn, startTime: null, endTime: null }));
}
