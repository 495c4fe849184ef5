/**
 * Shapes the inbox reads from the API (wire-shapes.md §4 "GET /tickets", "GET /tickets/u/:uuid", "POST
 * /tickets", "PUT /tickets/:id"; §5 socket events). Only the fields the inbox reads are typed; the rest
 * passes through.
 */

export type TicketStatus = 'pending' | 'open' | 'group' | 'closed' | 'nps' | 'lgpd';

/** Channels a ticket can come from (spec 2-tickets.md §3 "Ticket"). */
export type Channel = 'whatsapp' | 'whatsappapi' | 'facebook' | 'instagram';

export interface TagRef {
  id: number;
  name: string;
  color: string;
}

export interface QueueRef {
  id: number;
  name: string;
  color: string;
}

export interface UserRef {
  id: number;
  name: string;
}

/** A contact as ticket rows carry it. */
export interface TicketContact {
  id: number;
  name: string;
  number: string;
  email?: string | null;
  isGroup?: boolean;
  channel?: string;
  /** The picture to show (stored file or the provider's URL). */
  urlPicture?: string | null;
  profilePicUrl?: string | null;
  tags?: TagRef[];
  [key: string]: unknown;
}

/** A ticket as the lists and socket events carry it (TicketL). */
export interface Ticket {
  id: number;
  uuid: string;
  status: TicketStatus | string;
  companyId: number;
  contactId: number;
  whatsappId: number | null;
  queueId: number | null;
  userId: number | null;
  unreadMessages: number;
  lastMessage: string | null;
  isGroup: boolean;
  channel: Channel | string;
  /** Customer rating 1..5 (closed tickets), or null. */
  userRating?: number | null;
  /** ISO date-time. */
  updatedAt: string;
  contact: TicketContact | null;
  queue: QueueRef | null;
  user: UserRef | null;
  tags: TagRef[];
  whatsapp: { id: number; name: string; channel?: string; groupAsTicket?: string } | null;
  [key: string]: unknown;
}

/** Per-tab badge counts of GET /tickets. */
export interface TabCounts {
  open: number;
  pending: number;
  group: number;
}

/** One page of GET /tickets. */
export interface TicketPage {
  tickets: Ticket[];
  count: number;
  hasMore: boolean;
  counts?: TabCounts;
}

export interface Queue {
  id: number;
  name: string;
  color: string;
}

/** A connection of GET /whatsapp. */
export interface Connection {
  id: number;
  name: string;
  channel: string;
  status?: string;
  isDefault?: boolean;
}

/** A user of GET /users/list (with the queues they serve). */
export interface UserListItem {
  id: number;
  name: string;
  profile?: string;
  queues?: QueueRef[];
}

export interface Tag {
  id: number;
  name: string;
  color: string;
}

/** A contact of GET /contacts (the new-ticket search). */
export interface ContactListItem {
  id: number;
  name: string;
  number: string;
  channel?: string;
  isGroup?: boolean;
}

/** Presence values of `company-{cid}-presence`. */
export type Presence = 'composing' | 'recording' | 'available' | 'unavailable' | 'paused';

/** Payloads of the socket events the manager follows (wire-shapes §5). */
export type TicketEvent =
  | { action: 'update'; ticket: Ticket; ticketId?: number }
  | { action: 'delete'; ticketId: number | string }
  | { action: 'updateUnread'; ticketId: number | string }
  | { action: 'create'; ticket: Ticket };

export interface AppMessageEvent {
  action: 'create' | 'update' | 'delete';
  message?: { id: number; ticketId: number; fromMe: boolean; body?: string; read?: boolean; isPrivate?: boolean };
  ticket?: Ticket;
  contact?: TicketContact | null;
}

export interface ContactEvent {
  action: 'create' | 'update' | 'delete' | 'reload';
  contact?: TicketContact;
  contactId?: number | string;
}

export interface PresenceEvent {
  action: 'update-presence';
  ticketId: number | string;
  presence: Presence;
}

/** The 409 ERR_OTHER_OPEN_TICKET facts (POST /tickets) and a "different ticket" PUT answer. */
export interface OtherTicketFacts {
  id?: number;
  ticketId?: number;
  uuid?: string;
  userId?: number | null;
  user?: UserRef | null;
  queue?: QueueRef | null;
}
