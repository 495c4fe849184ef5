/**
 * Shapes the inbox reads from the API (wire-shapes.md §4 "GET /tickets", "GET /tickets/u/:uuid", "POST
 * /tickets", "PUT /tickets/:id"; §5 socket events). Only the fields the inbox reads are typed; the rest
 * passes through.
 */

import type { Presence, QueueRef, TagRef, Ticket, TicketChannel, TicketContact, TicketStatus, UserRef } from '@atendo/sdk/wire';

/** The ticket, contact and presence shapes and the visibility rule are the API's own (`@atendo/sdk/wire`). */
export type { Presence, QueueRef, TagRef, Ticket, TicketContact, TicketStatus, UserRef };

/** Channels a ticket can come from (spec 2-tickets.md §3 "Ticket"). */
export type Channel = TicketChannel;

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
