import { useQuery } from '@tanstack/react-query';
import { api, type Query } from '@atendo/web-api';
import type { Connection, ContactListItem, Queue, TabCounts, Tag, Ticket, TicketPage, TicketStatus, UserListItem } from '../types';

/**
 * The inbox's API calls (spec 2-tickets.md §7; wire-shapes §4) and their react-query keys. Every key
 * starts with 'inbox' so sign-out (which clears the shared cache) and invalidations reach them all.
 */

/** The lists of the ticket manager: the open tab's three sub-tabs, the closed tab and the search tab. */
export type ListKind = 'open' | 'pending' | 'group' | 'closed' | 'search';

/** Filters of the search tab. */
export interface SearchFilters {
  /** The (debounced) search text. */
  term: string;
  tags: number[];
  whatsapps: number[];
  statuses: TicketStatus[];
  /** Assigned users (admins only; the server ignores it for others). */
  users: number[];
}

export const EMPTY_SEARCH: SearchFilters = { term: '', tags: [], whatsapps: [], statuses: [], users: [] };

/**
 * The filters of every tab (issue 20 item 4), sent as GET /tickets' existing parameters: departments
 * (`queueIds`, JSON; 0 = no queue; empty = every department the viewer sees), unread only
 * (`withUnreadMessages`), and a period of last activity (`dateStart` / `dateEnd`, `YYYY-MM-DD`).
 */
export interface ListFilters {
  queueIds: number[];
  unread: boolean;
  dateStart: string;
  dateEnd: string;
}

export const NO_FILTERS: ListFilters = { queueIds: [], unread: false, dateStart: '', dateEnd: '' };

/** True when any filter narrows the lists. */
export function hasFilters(f: ListFilters | undefined): boolean {
  return Boolean(f && (f.queueIds.length || f.unread || f.dateStart || f.dateEnd));
}

/** One list of the manager: which tab, whether show-all is on, the search filters and the list filters. */
export interface ListSpec {
  kind: ListKind;
  showAll: boolean;
  search?: SearchFilters;
  filters?: ListFilters;
}

/** True when the search tab has something to search for (search starts on input). */
export function hasSearchInput(s: SearchFilters | undefined): boolean {
  return Boolean(s && (s.term.trim() || s.tags.length || s.whatsapps.length || s.statuses.length || s.users.length));
}

export const inboxKeys = {
  all: ['inbox'] as const,
  lists: ['inbox', 'tickets'] as const,
  list: (spec: ListSpec) => ['inbox', 'tickets', spec.kind, spec.showAll, spec.kind === 'search' ? (spec.search ?? EMPTY_SEARCH) : null, hasFilters(spec.filters) ? spec.filters : null] as const,
  counts: (showAll: boolean, filters?: ListFilters) => ['inbox', 'counts', showAll, hasFilters(filters) ? filters : null] as const,
  ticket: (uuid: string) => ['inbox', 'ticket', uuid] as const,
  queues: ['inbox', 'queues'] as const,
  connections: ['inbox', 'connections'] as const,
  users: ['inbox', 'users'] as const,
  tags: ['inbox', 'tags'] as const,
  contacts: (term: string) => ['inbox', 'contacts', term] as const,
};

/** The query parameters of GET /tickets for one page of a list (arrays as JSON strings, as the API reads them). */
export function listQuery(spec: ListSpec, pageNumber: number): Query {
  const q: Query = { status: spec.kind, pageNumber, showAll: spec.showAll ? 'true' : 'false', ...filterQuery(spec.filters) };
  if (spec.kind === 'search' && spec.search) {
    const s = spec.search;
    if (s.term.trim()) q.searchParam = s.term.trim();
    if (s.tags.length) q.tags = JSON.stringify(s.tags);
    if (s.whatsapps.length) q.whatsapps = JSON.stringify(s.whatsapps);
    if (s.statuses.length) q.statusFilter = JSON.stringify(s.statuses);
    if (s.users.length) q.users = JSON.stringify(s.users);
  }
  return q;
}

/** The GET /tickets parameters of the list filters. */
export function filterQuery(f: ListFilters | undefined): Query {
  const q: Query = {};
  if (!f) return q;
  if (f.queueIds.length) q.queueIds = JSON.stringify(f.queueIds);
  if (f.unread) q.withUnreadMessages = 'true';
  if (f.dateStart) q.dateStart = f.dateStart;
  if (f.dateEnd) q.dateEnd = f.dateEnd;
  return q;
}

/** `GET /tickets`: one page (40 tickets) of a list. */
export function fetchTicketPage(spec: ListSpec, pageNumber: number, signal?: AbortSignal): Promise<TicketPage> {
  return api.get<TicketPage>('/tickets', { query: listQuery(spec, pageNumber), signal });
}

/** The open / pending / group badge counts (`counts` of GET /tickets, open tab's own-only rule per `showAll`). */
export async function fetchCounts(showAll: boolean, signal?: AbortSignal, filters?: ListFilters): Promise<TabCounts> {
  const page = await api.get<TicketPage>('/tickets', { query: { status: 'open', pageNumber: 1, showAll: showAll ? 'true' : 'false', ...filterQuery(filters) }, signal });
  return page.counts ?? { open: 0, pending: 0, group: 0 };
}

/** `GET /tickets/u/:uuid`: one ticket with its contact. */
export function fetchTicket(uuid: string, signal?: AbortSignal): Promise<Ticket> {
  return api.get<Ticket>(`/tickets/u/${encodeURIComponent(uuid)}`, { signal });
}

/** Body of PUT /tickets/:id. */
export interface UpdateTicketBody {
  status?: 'pending' | 'open' | 'group' | 'closed';
  userId?: number | null;
  queueId?: number | null;
  sendFarewellMessage?: boolean;
  amountUsedBotQueues?: number;
  promptId?: number | null;
}

/** `PUT /tickets/:id`: a transition; answers the ticket (or, for a reopen conflict, the other active ticket). */
export function updateTicket(id: number, body: UpdateTicketBody): Promise<Ticket> {
  return api.put<Ticket>(`/tickets/${id}`, body);
}

/** `POST /tickets` {contactId, queueId, whatsappId}: a ticket opened by and assigned to the caller. */
export function createTicket(body: { contactId: number; queueId: number | null; whatsappId: number | null; userId: number; status: 'open' }): Promise<Ticket> {
  return api.post<Ticket>('/tickets', body);
}

/** `POST /tickets/closeAll` (admin): closes the active tickets of `status` (default open and pending). */
export function closeAllTickets(body: { status?: 'open' | 'pending' } = {}): Promise<{ closed: number }> {
  return api.post<{ closed: number }>('/tickets/closeAll', body);
}

/** `GET /contacts?searchParam=`: contacts for the new-ticket search (at least 3 characters). */
export async function searchContacts(term: string, signal?: AbortSignal): Promise<ContactListItem[]> {
  const answer = await api.get<{ contacts: ContactListItem[] }>('/contacts', { query: { searchParam: term.toLowerCase(), pageNumber: 1 }, signal });
  return answer.contacts ?? [];
}

const LONG = 60_000;

/** `GET /queue`: the company's queues (departments). */
export function useQueues(enabled = true) {
  return useQuery({ queryKey: inboxKeys.queues, queryFn: ({ signal }) => api.get<Queue[]>('/queue', { signal }), staleTime: LONG, enabled });
}

/** `GET /whatsapp?session=0`: the company's connections. */
export function useConnections(enabled = true) {
  return useQuery({ queryKey: inboxKeys.connections, queryFn: ({ signal }) => api.get<Connection[]>('/whatsapp', { query: { session: 0 }, signal }), staleTime: LONG, enabled });
}

/** `GET /users/list`: the company's users with their queues. */
export function useUsersList(enabled = true) {
  return useQuery({ queryKey: inboxKeys.users, queryFn: ({ signal }) => api.get<UserListItem[]>('/users/list', { signal }), staleTime: LONG, enabled });
}

/** `GET /tags/list`: the company's tags (every kind). */
export function useTagsList(enabled = true) {
  return useQuery({ queryKey: inboxKeys.tags, queryFn: ({ signal }) => api.get<Tag[]>('/tags/list', { signal }), staleTime: LONG, enabled });
}

/** `POST /tags` {name, color, kanban 0}: a new plain tag (name at least 3 characters). */
export function createTag(name: string, color: string): Promise<Tag> {
  return api.post<Tag>('/tags', { name, color, kanban: 0 });
}

/** `PUT /ticket-tags/:ticketId/:tagId`: links a tag to a ticket (the ticket's update event follows). */
export function linkTicketTag(ticketId: number, tagId: number): Promise<unknown> {
  return api.put(`/ticket-tags/${ticketId}/${tagId}`);
}

/** `DELETE /ticket-tags/:ticketId/:tagId`: unlinks a tag from a ticket. */
export function unlinkTicketTag(ticketId: number, tagId: number): Promise<unknown> {
  return api.delete(`/ticket-tags/${ticketId}/${tagId}`);
}

/** `GET /contactTags/:contactId`: the contact's tags. */
export async function fetchContactTags(contactId: number, signal?: AbortSignal): Promise<Tag[]> {
  return (await api.get<{ tags: Tag[] }>(`/contactTags/${contactId}`, { signal })).tags ?? [];
}

/** `POST /tags/sync` {contactId, tags}: replaces the contact's tags; answers the contact with them. */
export function syncContactTags(contactId: number, tagIds: number[]): Promise<{ id: number; tags?: Tag[] }> {
  return api.post<{ id: number; tags?: Tag[] }>('/tags/sync', { contactId, tags: tagIds.map((id) => ({ id })) });
}

/** Query key of a contact's tags. */
export const contactTagsKey = (contactId: number) => ['inbox', 'contactTags', contactId] as const;
