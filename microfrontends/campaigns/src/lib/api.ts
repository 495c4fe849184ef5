import { api, apiUrl, readToken, type Query } from '@atendo/web-api';
import type { ListPageOf } from '@atendo/web-kit';
import type {
  Campaign,
  CampaignEvent,
  CampaignSettingRow,
  CampaignStatus,
  CampaignVariable,
  ContactList,
  ContactListEvent,
  ContactListItem,
  ContactListItemEvent,
  ContactListItemsOfListEvent,
  ImportProgress,
} from '@atendo/plugin-campaigns/contract';
import type { Connection } from '@atendo/plugin-connections/contract';

export type { Campaign, CampaignEvent, CampaignSettingRow, CampaignStatus, CampaignVariable, Connection, ContactList, ContactListEvent, ContactListItem, ContactListItemEvent, ContactListItemsOfListEvent, ImportProgress };

/**
 * The campaigns plugin's calls (plugins/campaigns README "Routes"; spec 3-campaigns-and-tools.md §7
 * "Contact lists", "Contact list items", "Campaigns", "Campaign settings") and the look-ups the campaign
 * dialog needs (connections, tags). Query keys start with 'campaigns' (sign-out clears the shared cache).
 * Types come from the plugin's contract (type-only imports: nothing of the server is bundled).
 */

/** Campaign statuses in the order of the spec's table (§4). */
export const STATUSES: readonly CampaignStatus[] = ['INATIVA', 'PROGRAMADA', 'EM_ANDAMENTO', 'CANCELADA', 'FINALIZADA'];
/** Message variants per campaign (spec §9). */
export const VARIANTS = [1, 2, 3, 4, 5] as const;
/** A scheduled campaign stays editable until this long before its time (spec §4, §9): 1 hour. */
export const EDIT_LEAD_MS = 60 * 60 * 1000;
/** The choices the settings screen offers (spec §9; the API takes any whole number up to 3600 s). */
export const SETTING_CHOICES = {
  messageInterval: [0, 5, 10, 15, 20],
  longerIntervalAfter: [0, 5, 10, 15, 20],
  greaterInterval: [0, 20, 30, 40, 50, 60],
} as const;
/** Defaults of the settings (spec §3 "Campaign settings"). */
export const SETTING_DEFAULTS = { messageInterval: 20, longerIntervalAfter: 20, greaterInterval: 60 } as const;
/** Largest campaign media and spreadsheet (the plugin's limits; the server checks them too). */
export const MEDIA_MAX_BYTES = 16 * 1024 * 1024;
export const SHEET_MAX_BYTES = 10 * 1024 * 1024;

export const keys = {
  lists: ['campaigns', 'contact-lists'] as const,
  listOptions: ['campaigns', 'contact-lists', '~all'] as const,
  list: (id: number) => ['campaigns', 'contact-list', id] as const,
  items: (listId: number) => ['campaigns', 'contact-list-items', listId] as const,
  campaigns: ['campaigns', 'campaigns'] as const,
  campaign: (id: number) => ['campaigns', 'campaign', id] as const,
  settings: ['campaigns', 'settings'] as const,
  connections: ['campaigns', 'connections'] as const,
  tags: ['campaigns', 'tags'] as const,
};

// ------------------------------------------------------------------------------------------ contact lists

/** `GET /contact-lists?searchParam&pageNumber` (20 a page, by name). */
export async function fetchLists(term: string, pageNumber: number, signal?: AbortSignal): Promise<ListPageOf<ContactList>> {
  const page = await api.get<{ records: ContactList[]; count: number; hasMore: boolean }>('/contact-lists', { query: { searchParam: term || undefined, pageNumber }, signal });
  return { records: page.records, count: page.count, hasMore: page.hasMore };
}
/** `GET /contact-lists/list`: every list of the company (selects). */
export const fetchAllLists = (signal?: AbortSignal) => api.get<ContactList[]>('/contact-lists/list', { signal });
export const fetchList = (id: number, signal?: AbortSignal) => api.get<ContactList>(`/contact-lists/${id}`, { signal });
export const createList = (name: string) => api.post<ContactList>('/contact-lists', { name });
export const updateList = (id: number, name: string) => api.put<ContactList>(`/contact-lists/${id}`, { name });
export const deleteList = (id: number) => api.delete<{ message: string }>(`/contact-lists/${id}`);

/** `POST /contact-lists/{id}/upload` (multipart `file`, .xls/.xlsx): the import's final progress (rows refused in `errors`). */
export function importSheet(listId: number, file: File): Promise<ImportProgress> {
  const form = new FormData();
  form.append('file', file);
  return api.post<ImportProgress>(`/contact-lists/${listId}/upload`, form);
}

/**
 * Downloads a file of the API the browser cannot open by link (it needs the bearer token): fetches it and
 * saves it under `name`.
 */
export async function downloadFile(path: string, name: string): Promise<void> {
  const token = readToken();
  const res = await fetch(`${apiUrl().replace(/\/+$/, '')}${path}`, { credentials: 'include', headers: token ? { Authorization: `Bearer ${token}` } : {} });
  if (!res.ok) throw Object.assign(new Error(`HTTP ${res.status}`), { status: res.status });
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
/** `GET /contact-lists/example`: the example spreadsheet (name, number, email). */
export const downloadExample = () => downloadFile('/contact-lists/example', 'planilha_exemplo.xlsx');

// ------------------------------------------------------------------------------------------------- items

export interface ItemInput {
  name: string;
  number: string;
  email: string;
  /** Issue 34: one of `LEGAL_BASES`, or null (none recorded). */
  legalBasis?: string | null;
  /** Issue 34: when the person consented (`YYYY-MM-DD` or ISO 8601), or null. */
  consentAt?: string | null;
  contactListId: number;
}

/** `GET /contact-list-items?contactListId&searchParam&pageNumber` (20 a page, by name; search on name or number). */
export async function fetchItems(listId: number, term: string, pageNumber: number, signal?: AbortSignal): Promise<ListPageOf<ContactListItem>> {
  const page = await api.get<{ contacts: ContactListItem[]; count: number; hasMore: boolean }>('/contact-list-items', { query: { contactListId: listId, searchParam: term || undefined, pageNumber }, signal });
  return { records: page.contacts, count: page.count, hasMore: page.hasMore };
}
export const createItem = (body: ItemInput) => api.post<ContactListItem>('/contact-list-items', body);
export const updateItem = (id: number, body: ItemInput) => api.put<ContactListItem>(`/contact-list-items/${id}`, body);
export const deleteItem = (id: number) => api.delete<{ message: string }>(`/contact-list-items/${id}`);

// --------------------------------------------------------------------------------------------- campaigns

/** The campaign dialog's body (spec §7: ids as strings, '' for none, whatsappId joined by commas, dates `YYYY-MM-DD HH:mm:ss`). */
export type CampaignInput = Partial<Record<`message${1 | 2 | 3 | 4 | 5}` | `confirmationMessage${1 | 2 | 3 | 4 | 5}`, string>> & {
  name?: string;
  confirmation?: boolean;
  scheduledAt?: string | null;
  contactListId?: number | null;
  tagListId?: number | null;
  whatsappId?: string | null;
};

/** `GET /campaigns?searchParam&pageNumber` (20 a page, by name). */
export async function fetchCampaigns(term: string, pageNumber: number, signal?: AbortSignal): Promise<ListPageOf<Campaign>> {
  const page = await api.get<{ records: Campaign[]; count: number; hasMore: boolean }>('/campaigns', { query: { searchParam: term || undefined, pageNumber }, signal });
  return { records: page.records, count: page.count, hasMore: page.hasMore };
}
/** `GET /campaigns/{id}` (`shipping`: with the recipients). */
// `shipping` always sent: without it the server answers as to the product family's report (recipients included).
export const fetchCampaign = (id: number, shipping = false, signal?: AbortSignal) => api.get<Campaign>(`/campaigns/${id}`, { query: { shipping } as Query, signal });
export const createCampaign = (body: CampaignInput) => api.post<Campaign>('/campaigns', body);
export const updateCampaign = (id: number, body: CampaignInput) => api.put<Campaign>(`/campaigns/${id}`, body);
export const deleteCampaign = (id: number) => api.delete<{ message: string }>(`/campaigns/${id}`);
export const cancelCampaign = (id: number) => api.post<Campaign>(`/campaigns/${id}/cancel`);
export const restartCampaign = (id: number) => api.post<Campaign>(`/campaigns/${id}/restart`);
/** `POST /campaigns/{id}/media-upload` (multipart `file`). */
export function uploadCampaignMedia(id: number, file: File): Promise<Campaign> {
  const form = new FormData();
  form.append('file', file);
  return api.post<Campaign>(`/campaigns/${id}/media-upload`, form);
}
export const deleteCampaignMedia = (id: number) => api.delete<Campaign>(`/campaigns/${id}/media-upload`);

/**
 * Whether the dialog may change a campaign (spec §4): every field while INATIVA, or PROGRAMADA more than an
 * hour ahead; only the messages while CANCELADA; nothing otherwise.
 */
export function editScope(c: Pick<Campaign, 'status' | 'scheduledAt'> | null, now: number = Date.now()): 'all' | 'messages' | 'none' {
  if (!c) return 'all';
  if (c.status === 'INATIVA') return 'all';
  if (c.status === 'PROGRAMADA') return c.scheduledAt && Date.parse(c.scheduledAt) - now > EDIT_LEAD_MS ? 'all' : 'none';
  if (c.status === 'CANCELADA') return 'messages';
  return 'none';
}

// -------------------------------------------------------------------------------------------- settings

export interface SettingsInput {
  messageInterval: number;
  longerIntervalAfter: number;
  greaterInterval: number;
  variables: CampaignVariable[];
}

export const fetchSettingRows = (signal?: AbortSignal) => api.get<CampaignSettingRow[]>('/campaign-settings', { signal });
/** `POST /campaign-settings` `{settings}` as the product family's client sends it. */
export const saveSettings = (settings: SettingsInput) => api.post<CampaignSettingRow[]>('/campaign-settings', { settings });

/** The settings from their stored rows (values are JSON text), defaults for the keys not stored. Pure. */
export function parseSettings(rows: readonly Pick<CampaignSettingRow, 'key' | 'value'>[] | undefined): SettingsInput {
  const out: SettingsInput = { ...SETTING_DEFAULTS, variables: [] };
  for (const row of rows ?? []) {
    let value: unknown;
    try {
      value = JSON.parse(row.value);
    } catch {
      continue;
    }
    if ((row.key === 'messageInterval' || row.key === 'longerIntervalAfter' || row.key === 'greaterInterval') && Number.isFinite(Number(value))) out[row.key] = Number(value);
    if (row.key === 'variables' && Array.isArray(value)) out.variables = value.filter((v): v is CampaignVariable => Boolean(v) && typeof v.key === 'string').map((v) => ({ key: v.key, value: String(v.value ?? '') }));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------- look-ups

/** `GET /whatsapp/?session=0`: the company's connections. */
export const fetchConnections = (signal?: AbortSignal) => api.get<Connection[]>('/whatsapp/', { query: { session: 0 }, signal });

export interface TagRef {
  id: number;
  name: string;
  color?: string;
}
/** `GET /tags/list?kanban=0`: the company's (non-kanban) tags, for a campaign to a tag's contacts. */
export async function fetchTags(signal?: AbortSignal): Promise<TagRef[]> {
  const answer = await api.get<TagRef[] | { tags: TagRef[] }>('/tags/list', { query: { kanban: 0 }, signal });
  return Array.isArray(answer) ? answer : (answer.tags ?? []);
}

// ---------------------------------------------------------------------------------------------- display

/** A date-time for people (`dd/mm/yyyy hh:mm` in pt-BR), in the browser's zone; '' for none. */
export function formatDateTime(value: string | null | undefined, language: string): string {
  if (!value) return '';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return '';
  return new Intl.DateTimeFormat(language, { day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit' }).format(d);
}

/** `YYYY-MM-DDTHH:mm` (a datetime-local input's value) of an ISO instant, in the browser's zone; '' for none. */
export function toLocalInput(value: string | null | undefined): string {
  if (!value) return '';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** A datetime-local value as the API takes it (`YYYY-MM-DD HH:mm:ss`, spec §7, §9); null for none. */
export function toApiDate(local: string): string | null {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::(\d{2}))?$/.exec(local.trim());
  return m ? `${m[1]} ${m[2]}:${m[3] ?? '00'}` : null;
}
