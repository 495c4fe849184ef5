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

/** One list of the manager: which tab, whether show-all is on, and the search filters of the search tab. */
export interface ListSpec {
  kind: ListKind;
  showAll: boolean;
  search?: SearchFilters;
}

/** True when the search tab has something to search for (search starts on input). */
export function hasSearchInput(s: SearchFilters | undefined): boolean {
  return Boolean(s && (s.term.trim() || s.tags.length || s.whatsapps.length || s.statuses.length || s.users.length));
}

export const inboxKeys = {
  all: ['inbox'] as const,
  lists: ['inbox', 'tickets'] as const,
  list: (spec: ListSpec) => ['inbox', 'tickets', spec.kind, spec.showAll, spec.kind === 'search' ? (spec.search ?? EMPTY_SEARCH) : null] as const,
  counts: (showAll: boolean) => ['inbox', 'counts', showAll] as const,
  ticket: (uuid: string) => ['inbox', 'ticket', uuid] as const,
  queues: ['inbox', 'queues'] as const,
  connections: ['inbox', 'connections'] as const,
  users: ['inbox', 'users'] as const,
  tags: ['inbox', 'tags'] as const,
  contacts: (term: string) => ['inbox', 'contacts', term] as const,
};

/** The query parameters of GET /tickets for one page of a list (arrays as JSON strings, as the API reads them). */
export function listQuery(spec: ListSpec, pageNumber: number): Query {
  const q: Query = { status: spec.kind, pageNumber, showAll: spec.showAll ? 'true' : 'false' };
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

/** `GET /tickets`: one page (40 tickets) of a list. */
export function fetchTicketPage(spec: ListSpec, pageNumber: number, signal?: AbortSignal): Promise<TicketPage> {
  return api.get<TicketPage>('/tickets', { query: listQuery(spec, pageNumber), signal });
}

/** The open / pending / group badge counts (`counts` of GET /tickets, open tab's own-only rule per `showAll`). */
export async function fetchCounts(showAll: boolean, signal?: AbortSignal): Promise<TabCounts> {
  const page = await api.get<TicketPage>('/tickets', { query: { status: 'open', pageNumber: 1, showAll: showAll ? 'true' : 'false' }, signal });
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

/** `GET /tags/list`: the company's tags. */
export function useTagsList(enabled = true) {
  return useQuery({ queryKey: inboxKeys.tags, queryFn: ({ signal }) => api.get<Tag[]>('/tags/list', { signal }), staleTime: LONG, enabled });
}
