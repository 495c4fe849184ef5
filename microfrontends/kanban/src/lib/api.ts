import { api } from '@atendo/web-api';

/**
 * The calls and wire shapes the kanban area uses (plugins/tickets, plugins/tags, plugins/queues, the
 * kernel's users; wire-shapes.md "GET /ticket/kanban", "GET /tags/kanban", "GET /tickets").
 */

/** A kanban tag (a lane of the board): `GET /tags/kanban` `lista[]`. */
export interface LaneTag {
  id: number;
  name: string;
  color: string;
}

/** A ticket of the lists (the fields these screens read). */
export interface BoardTicket {
  id: number;
  uuid: string;
  status: string;
  lastMessage: string | null;
  updatedAt: string;
  queueId: number | null;
  userId: number | null;
  unreadMessages?: number;
  contact: { id: number; name: string; number: string } | null;
  queue: { id: number; name: string; color: string } | null;
  user: { id: number; name: string } | null;
  tags: { id: number; name: string; color: string }[];
}

/** One page of a ticket list: `{tickets, count, hasMore}`. */
export interface TicketPage {
  tickets: BoardTicket[];
  count: number;
  hasMore: boolean;
}

/** A queue of `GET /queue` (or of the session user's queues). */
export interface QueueRef {
  id: number;
  name: string;
  color: string;
}

/** A user of `GET /users/list`. */
export interface UserRef {
  id: number;
  name: string;
  profile?: string;
  online?: boolean;
}

/** `company-{cid}-ticket` payloads. */
export type TicketEvent =
  | { action: 'update'; ticket: BoardTicket; ticketId?: number }
  | { action: 'delete'; ticketId: number }
  | { action: 'updateUnread'; ticketId: number };

/** The board's filters (queues: none selected = every queue the caller sees). */
export interface BoardFilters {
  queueIds: number[];
  /** An assigned user (admins only; the server ignores it for others), or null for everyone. */
  userId: number | null;
  /** Lower-cased, trimmed search term. */
  term: string;
}

/** The default lane: tickets with no kanban tag (`lane=0`). */
export const DEFAULT_LANE = 0;

const json = (ids: number[]) => (ids.length ? JSON.stringify(ids) : undefined);

/** `GET /tags/kanban`: the lanes beside the default one, ordered by id. */
export async function fetchLaneTags(signal?: AbortSignal): Promise<LaneTag[]> {
  const r = await api.get<{ lista: LaneTag[] }>('/tags/kanban', { signal });
  return r.lista;
}

/** `GET /ticket/kanban?lane&queueIds&users&searchParam&pageNumber`: one page (40) of one lane. */
export function fetchLane(lane: number, f: BoardFilters, pageNumber: number, signal?: AbortSignal): Promise<TicketPage> {
  return api.get<TicketPage>('/ticket/kanban', {
    query: { lane, queueIds: json(f.queueIds), users: f.userId ? json([f.userId]) : undefined, searchParam: f.term || undefined, pageNumber },
    signal,
  });
}

/** `GET /queue`: the company's queues. */
export const fetchQueues = (signal?: AbortSignal) => api.get<QueueRef[]>('/queue', { signal });

/** `GET /users/list`: the company's users (short form). */
export const fetchUsers = (signal?: AbortSignal) => api.get<UserRef[]>('/users/list', { signal });

/** `DELETE /ticket-tags/:ticketId/:tagId`: unlinks one tag of a ticket. */
export const removeTicketTag = (ticketId: number, tagId: number) => api.delete<{ removed: number }>(`/ticket-tags/${ticketId}/${tagId}`);

/** `PUT /ticket-tags/:ticketId/:tagId`: links a tag to a ticket (idempotent). */
export const addTicketTag = (ticketId: number, tagId: number) => api.put<{ ticketId: number; tagId: number }>(`/ticket-tags/${ticketId}/${tagId}`);

/**
 * `GET /tickets?statusFilter&queueIds&pageNumber`: the active tickets of `statuses` the caller sees (every
 * user's, not only the caller's: the list without a tab), one page of 40.
 */
export function fetchTicketsPage(statuses: string[], queueIds: number[], pageNumber: number, signal?: AbortSignal): Promise<TicketPage> {
  return api.get<TicketPage>('/tickets', { query: { statusFilter: JSON.stringify(statuses), queueIds: json(queueIds), pageNumber }, signal });
}
