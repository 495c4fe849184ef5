import { api, apiUrl, HttpError, readToken } from '@atendo/web-api';
import type { ListPageOf } from '@atendo/web-kit';

/**
 * The contacts screen's calls (plugins/contacts, plugins/tags, plugins/tickets, plugins/connections,
 * plugins/queues; spec 2-tickets.md §2 "Contacts", §3 "Contact", §5, §6, §7 "Contacts and notes";
 * wire-shapes "GET /contacts", "POST /contacts", `company-{cid}-contact`). Numbers come masked from the
 * server when the company hides them from the viewer (lgpdHideNumber): the screen never unmasks them, and
 * live events are re-read through `GET /contacts/:id` so a socket payload's number is never shown as is.
 */

export interface ContactTag {
  id: number;
  name: string;
  color: string;
}

export interface ExtraInfo {
  id?: number;
  name: string;
  value: string;
}

/** A contact as `GET /contacts` lists it (`extraInfo` only in `GET /contacts/:id` and write answers). */
export interface Contact {
  id: number;
  name: string;
  number: string;
  email: string;
  isGroup: boolean;
  active: boolean;
  channel: string;
  disableBot: boolean;
  acceptAudioMessage: boolean;
  urlPicture: string | null;
  profilePicUrl: string | null;
  /** The WhatsApp LID (`…@lid`) when known. */
  lid?: string | null;
  tags?: ContactTag[];
  extraInfo?: ExtraInfo[];
}

/** `company-{cid}-contact` payloads (spec §10 "Real-time", plugins/contacts README "Events"). */
export type ContactEvent =
  | { action: 'create' | 'update'; contact: Contact }
  | { action: 'delete'; contactId: number | string }
  | ({ action: 'import-progress' | 'import-done' } & ImportProgress);

/** Progress of a sheet import (`POST /contacts/upload`, `GET /contacts/import/:jobId`, the socket events). */
export interface ImportProgress {
  jobId: string;
  status: 'running' | 'done' | 'failed';
  processed: number;
  total: number;
  created: number;
  updated: number;
  errors: { row: number; error: string }[];
}

export interface ContactInput {
  name: string;
  number: string;
  email: string;
  disableBot: boolean;
  extraInfo: { name: string; value: string }[];
}

export interface QueueOption {
  id: number;
  name: string;
  color?: string;
}

export interface ConnectionOption {
  id: number;
  name: string;
  status?: string;
  channel?: string;
  isDefault?: boolean;
}

/** What the import picker offers (the server reads .xlsx, .xls and .csv by content; spec: .xls and .xlsx). */
export const IMPORT_ACCEPT = '.xlsx,.xls,.csv';
/** Largest sheet the server takes (plugins/contacts MAX_SHEET_BYTES). */
export const IMPORT_MAX_BYTES = 5 * 1024 * 1024;

export const contactsKey = ['agent', 'contacts'] as const;
/** The list is cached per search and tag filter: `[...contactsKey, tagsKey, term]`. */
export const contactsListKey = (tags: number[]) => [...contactsKey, tags.length ? [...tags].sort((a, b) => a - b).join(',') : 'all'] as const;

/** `GET /contacts?searchParam&pageNumber&contactTag` (100 a page, by name; `contactTag`: any of these tags). */
export async function fetchContacts(term: string, tags: number[], pageNumber: number, signal?: AbortSignal): Promise<ListPageOf<Contact>> {
  const page = await api.get<{ contacts: Contact[]; count: number; hasMore: boolean }>('/contacts', {
    query: { searchParam: term || undefined, pageNumber, contactTag: tags.length ? JSON.stringify(tags) : undefined },
    signal,
  });
  return { records: page.contacts, count: page.count, hasMore: page.hasMore };
}

/** `GET /contacts/:id`: the contact with extra info and tags (number masked for the viewer when due). */
export const fetchContact = (id: number, signal?: AbortSignal) => api.get<Contact>(`/contacts/${id}`, { signal });
export const createContact = (body: ContactInput) => api.post<Contact>('/contacts', body);
export const updateContact = (id: number, body: ContactInput) => api.put<Contact>(`/contacts/${id}`, body);
export const deleteContact = (id: number) => api.delete<{ message: string }>(`/contacts/${id}`);
/** `PUT /contacts/block/:id {active}`: block (false) or unblock (true). */
export const setContactActive = (id: number, active: boolean) => api.put<Contact>(`/contacts/block/${id}`, { active });
/** `POST /tags/sync {contactId, tags}`: the contact's tags become exactly these. */
export const syncContactTags = (contactId: number, tagIds: number[]) => api.post<Contact>('/tags/sync', { contactId, tags: tagIds.map((id) => ({ id })) });
/** `GET /tags/list?kanban=0`: the company's normal tags (the filter and the dialog's choices). */
export const fetchTagOptions = (signal?: AbortSignal) => api.get<ContactTag[]>('/tags/list', { query: { kanban: 0 }, signal });
/** `GET /whatsapp?session=0`: the company's connections. */
export const fetchConnections = (signal?: AbortSignal) => api.get<ConnectionOption[]>('/whatsapp', { query: { session: 0 }, signal });
/** `GET /queue`: every queue of the company (admins choose any). */
export const fetchQueues = (signal?: AbortSignal) => api.get<QueueOption[]>('/queue', { signal });

/** `POST /tickets` for the open-ticket action; the created ticket's uuid opens /tickets/{uuid}. */
export const openTicket = (body: { contactId: number; queueId: number | null; whatsappId: number | null; userId: number; status: 'open' }) =>
  api.post<{ id: number; uuid: string }>('/tickets', body);

/** `POST /contacts/upload` (multipart `file`): 202 `{jobId, total}`; progress follows on the socket. */
export function uploadContactsSheet(file: File): Promise<{ jobId: string; total: number }> {
  const form = new FormData();
  form.append('file', file, file.name);
  return api.post<{ jobId: string; total: number }>('/contacts/upload', form);
}
export const fetchImport = (jobId: string) => api.get<ImportProgress>(`/contacts/import/${jobId}`);

/**
 * `GET /contacts/export`: the company's contacts as an .xlsx (built on the server with exceljs; numbers
 * masked as the viewer sees them), saved as contacts.xlsx. It needs the bearer token, so it is fetched and
 * handed to the browser as a blob. Failures reject with HttpError (its catalogue code when the API sent one).
 */
export async function exportContacts(): Promise<void> {
  const token = readToken();
  const res = await fetch(`${apiUrl().replace(/\/+$/, '')}/contacts/export`, { credentials: 'include', headers: token ? { Authorization: `Bearer ${token}` } : {} });
  if (!res.ok) {
    const body = (await res.json().catch(() => undefined)) as { error: string; message?: string } | undefined;
    throw new HttpError(res.status, body, 'GET', '/contacts/export');
  }
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = 'contacts.xlsx';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// ---------------------------------------------------------------------------------------------------
// Merging duplicates (issue 33 item 5; plugins/contacts: admins only)

/** A group of `GET /contacts/duplicates`: contacts that look like one person, and why. */
export interface DuplicateGroup {
  /** `ninthDigit`: Brazilian numbers with and without the 9th digit; `lid`: one WhatsApp LID. */
  reasons: ('ninthDigit' | 'lid')[];
  contacts: Contact[];
}

/** `POST /contacts/merge/preview`: the merge as it would happen now (nothing changes yet). */
export interface MergePreview {
  target: Contact;
  sources: Contact[];
  /** The contact kept, as it will be (its empty fields filled from the others). */
  result: Contact;
  /** What moves, by kind: tickets, ticketsJoined, messages, ticketNotes, tags, extraInfo, aliases, schedules... */
  counts: Record<string, number>;
  previewToken: string;
}

/** A contact of `GET /contacts/list` (pickers). */
export interface ContactOption {
  id: number;
  name: string;
  number: string;
  channel: string;
  isGroup: boolean;
}

/** The order the preview lists the counts in (others follow, by key). */
export const MERGE_COUNT_KEYS = ['tickets', 'ticketsJoined', 'messages', 'ticketNotes', 'tags', 'extraInfo', 'schedules', 'npsRatings', 'aliases'] as const;

export const fetchDuplicates = (signal?: AbortSignal) => api.get<{ groups: DuplicateGroup[] }>('/contacts/duplicates', { signal });
export const previewMerge = (targetId: number, sourceIds: number[]) => api.post<MergePreview>('/contacts/merge/preview', { targetId, sourceIds });
export const mergeContacts = (targetId: number, sourceIds: number[], previewToken: string) =>
  api.post<{ contact: Contact; counts: Record<string, number> }>('/contacts/merge', { targetId, sourceIds, previewToken });
/** `GET /contacts/list?searchParam`: up to 1000 contacts matching a name or number. */
export const searchContactOptions = (term: string, signal?: AbortSignal) => api.get<ContactOption[]>('/contacts/list', { query: { searchParam: term || undefined }, signal });

/** The ticket already serving a contact, from a POST /tickets 409 ERR_OTHER_OPEN_TICKET (as the inbox reads it). */
export interface OtherTicket {
  uuid?: string;
  userId: number | null;
  userName: string | null;
  queueName: string | null;
}

/** The facts of a 409 ERR_OTHER_OPEN_TICKET answer (Atendo's fields, or the product family's JSON ticket in `error`); undefined otherwise. */
export function otherTicket(err: unknown): OtherTicket | undefined {
  if (!(err instanceof HttpError)) return undefined;
  const data = (err.data ?? {}) as unknown as Record<string, unknown>;
  type Facts = { uuid?: string; userId?: number | null; user?: { name?: string } | null; queue?: { name?: string } | null };
  let facts: Facts | undefined;
  if (data.error === 'ERR_OTHER_OPEN_TICKET' || err.code === 'ERR_OTHER_OPEN_TICKET') {
    const nested = (data.ticket && typeof data.ticket === 'object' ? data.ticket : {}) as Facts;
    facts = { uuid: (data.uuid as string | undefined) ?? nested.uuid, userId: (data.userId as number | null | undefined) ?? nested.userId ?? null, user: (data.user as Facts['user']) ?? nested.user, queue: (data.queue as Facts['queue']) ?? nested.queue };
  } else if (typeof data.error === 'string' && data.error.trim().startsWith('{')) {
    try {
      facts = JSON.parse(data.error) as Facts;
    } catch {
      return undefined;
    }
  }
  if (!facts) return undefined;
  return { uuid: facts.uuid, userId: facts.userId ?? null, userName: facts.user?.name ?? null, queueName: facts.queue?.name ?? null };
}

/** Whether a contact matches a (lower-cased) search as the server searches: name contains, or number contains its digits. */
export function contactMatches(c: Contact, term: string, tags: number[]): boolean {
  if (tags.length && !(c.tags ?? []).some((t) => tags.includes(t.id))) return false;
  if (!term) return true;
  const digits = term.replace(/\D/g, '');
  return c.name.toLowerCase().includes(term) || (digits.length > 0 && digits.length === term.replace(/[\s()+.-]/g, '').length && c.number.includes(digits));
}

/** Admins (and super users) delete contacts (spec §6 contacts-page:deleteContact). */
export function mayDelete(user: { profile?: unknown; super?: unknown } | null | undefined): boolean {
  return Boolean(user && (user.super || String(user.profile ?? '').toLowerCase() === 'admin'));
}
