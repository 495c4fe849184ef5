import { api } from '@atendo/web-api';

/** The privacy page's calls (plugins/compliance). Shapes: plugins/compliance/src/contract.ts. */

export interface ComplianceSettings {
  optOutKeywords: string[];
  optOutReply: string;
  retentionDays: number | null;
}
export interface OptedOut {
  id: number;
  name: string;
  number: string;
  channel: string;
  optedOutAt: string | null;
  optOutKeyword: string | null;
  anonymizedAt: string | null;
}

export const privacyKeys = { settings: ['admin', 'privacy', 'settings'] as const, optOuts: ['admin', 'privacy', 'opt-outs'] as const };

export const fetchSettings = (signal?: AbortSignal) => api.get<ComplianceSettings>('/compliance/settings', { signal });
export const saveSettings = (body: { optOutKeywords?: string[]; optOutReply?: string | null; retentionDays?: number | null }) => api.put<ComplianceSettings>('/compliance/settings', body);
export const fetchOptOuts = (pageNumber: number, signal?: AbortSignal) => api.get<{ records: OptedOut[]; count: number; hasMore: boolean }>(`/compliance/opt-outs?pageNumber=${pageNumber}`, { signal });
export const reverseOptOut = (contactId: number) => api.delete<{ contactId: number; optedOutAt: string | null }>(`/contacts/${contactId}/opt-out`);

/** The words typed in the form (comma or line separated) as the API takes them: trimmed, blanks dropped. */
export function parseKeywords(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((w) => w.trim())
    .filter(Boolean);
}
export const previewRetention = (days: number) => api.get<{ days: number; contacts: number }>(`/compliance/retention/preview?days=${days}`);
