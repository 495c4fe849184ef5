import { api } from '@atendo/web-api';
import type { WeekSchedule } from '../../lib/schedules';

/**
 * The settings screen's calls (kernel routes, kernel/core/src/routes/settings.ts and companies.ts; spec
 * 1-platform.md §2 "Settings", §3 "Setting"; wire-shapes "GET /companySettings/:companyId", "GET /settings").
 */

/** Every company option of 1-platform.md §3 with its allowed values (`text`: free text, saved on leaving the field). */
export const OPTIONS: { key: string; values: readonly string[] | 'text' }[] = [
  { key: 'userRating', values: ['disabled', 'enabled'] },
  { key: 'scheduleType', values: ['disabled', 'queue', 'company', 'connection'] },
  { key: 'chatBotType', values: ['text', 'button', 'list'] },
  { key: 'acceptCallWhatsapp', values: ['enabled', 'disabled'] },
  { key: 'userRandom', values: ['disabled', 'enabled'] },
  { key: 'sendGreetingMessageOneQueues', values: ['enabled', 'disabled'] },
  { key: 'sendSignMessage', values: ['enabled', 'disabled'] },
  { key: 'sendFarewellWaitingTicket', values: ['disabled', 'enabled'] },
  { key: 'sendGreetingAccepted', values: ['enabled', 'disabled'] },
  { key: 'sendQueuePosition', values: ['disabled', 'enabled'] },
  { key: 'acceptAudioMessageContact', values: ['enabled', 'disabled'] },
  { key: 'sendMsgTransfTicket', values: ['disabled', 'enabled'] },
  { key: 'CheckMsgIsGroup', values: ['enabled', 'disabled'] },
  { key: 'requiredTag', values: ['disabled', 'enabled'] },
  { key: 'enableLGPD', values: ['disabled', 'enabled'] },
  { key: 'lgpdDeleteMessage', values: ['disabled', 'enabled'] },
  { key: 'lgpdHideNumber', values: ['disabled', 'enabled'] },
  { key: 'lgpdConsent', values: ['disabled', 'enabled'] },
  { key: 'lgpdMessage', values: 'text' },
  { key: 'lgpdLink', values: 'text' },
  { key: 'hoursCloseTicketsAuto', values: 'text' },
  { key: 'timeZone', values: 'text' },
];
/** The LGPD texts only matter with LGPD on. */
export const LGPD_KEYS = new Set(['lgpdDeleteMessage', 'lgpdHideNumber', 'lgpdConsent', 'lgpdMessage', 'lgpdLink']);

export type CompanySettings = Record<string, unknown>;
/** `company-{id}-settings` payload. */
export interface SettingsEvent {
  action: 'update';
  setting: { key: string; value: string };
}

export const settingsKeys = {
  company: (companyId: number) => ['admin', 'settings', 'company', companyId] as const,
  legacy: ['admin', 'settings', 'legacy'] as const,
  companyRow: (companyId: number) => ['admin', 'settings', 'companyRow', companyId] as const,
};

/** `GET /companySettings/:companyId`: the caller's company options as one object. */
export const fetchCompanySettings = (companyId: number, signal?: AbortSignal) => api.get<CompanySettings>(`/companySettings/${companyId}`, { signal });
/** `PUT /companySettings {column, data}`. */
export const saveCompanySetting = (column: string, data: string) => api.put<{ response: boolean }>('/companySettings', { column, data });
/** `GET /settings`: the legacy key/value rows (userCreation). */
export const fetchLegacySettings = (signal?: AbortSignal) => api.get<{ key: string; value: string }[]>('/settings', { signal });
/** `PUT /settings/:key {key, value}`. */
export const saveLegacySetting = (key: string, value: string) => api.put<{ key: string; value: string }>(`/settings/${key}`, { key, value });
/** `GET /companies/:id`: the company row (its opening hours). */
export const fetchCompany = (id: number, signal?: AbortSignal) => api.get<{ id: number; schedules: Partial<WeekSchedule>[] }>(`/companies/${id}`, { signal });
/** `PUT /companies/:id/schedules {schedules}`. */
export const saveCompanySchedules = (id: number, schedules: WeekSchedule[]) => api.put(`/companies/${id}/schedules`, { schedules });
