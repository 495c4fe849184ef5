import type { InfiniteData } from '@tanstack/react-query';
import { canSeeTicket, canShowAll, type Viewer } from '../lib/viewer';
import type { ListSpec } from '../lib/api';
import type { Ticket, TicketContact, TicketPage } from '../types';

/**
 * The live-update logic of the ticket lists (spec 2-tickets.md §4 "Live ticket list updates"), as pure
 * functions over the cached pages of one list, so that it is tested without sockets:
 * - `upsert` (`company-{cid}-ticket` update): the ticket replaces its row where it is, or enters the top
 *   of a list it now belongs to; it leaves every list whose tab (status, own-only rule) or visibility
 *   (queues, groups) it no longer matches;
 * - `delete`: the row leaves every list;
 * - `resetUnread` (`updateUnread`): the row's unread count becomes 0;
 * - `message` (`company-{cid}-appMessage` create): the ticket moves to the top of the list it belongs to;
 *   its unread count goes up unless the message is ours or its conversation is the one open;
 * - `contact` (`company-{cid}-contact` update): the contact is merged into the rows of its tickets.
 * Search lists are never entered by live tickets (their matches depend on the search text): their rows
 * are updated in place and leave when they stop matching the search filters.
 */
export type LiveEvent =
  | { type: 'upsert'; ticket: Ticket }
  | { type: 'delete'; ticketId: number }
  | { type: 'resetUnread'; ticketId: number }
  | { type: 'message'; ticket: Ticket; fromMe: boolean; openUuid: string | null }
  | { type: 'contact'; contact: TicketContact };

/**
 * Whether ticket `t` belongs to list `spec` for `viewer`: true (belongs: insert or keep), false (must
 * leave), or 'inPlace' (search lists: update it if present, never insert).
 */
export function belongsTo(spec: ListSpec, viewer: Viewer, t: Ticket): boolean | 'inPlace' {
  if (!canSeeTicket(viewer, t)) return false;
  const f = spec.filters;
  // Departments filter (0 = no queue): a ticket whose queue is not selected leaves (spec §4).
  if (f?.queueIds.length && !f.queueIds.includes(t.queueId ?? 0)) return false;
  if (f?.unread && !(t.unreadMessages > 0)) return false;
  // A period is a past window: live tickets update in place, never enter.
  if (f && (f.dateStart || f.dateEnd)) {
    const base = belongsTo({ ...spec, filters: { ...f, dateStart: '', dateEnd: '' } }, viewer, t);
    return base === false ? false : 'inPlace';
  }
  switch (spec.kind) {
    case 'open':
      return t.status === 'open' && ((spec.showAll && canShowAll(viewer)) || t.userId === viewer.id);
    case 'pending':
    case 'group':
    case 'closed':
      return t.status === spec.kind;
    case 'search': {
      const s = spec.search;
      if (s?.statuses.length && !s.statuses.includes(t.status as never)) return false;
      if (s?.whatsapps.length && (t.whatsappId === null || !s.whatsapps.includes(t.whatsappId))) return false;
      if (viewer.admin && s?.users.length && (t.userId === null || !s.users.includes(t.userId))) return false;
      if (s?.tags.length && !s.tags.every((id) => (t.tags ?? []).some((tag) => tag.id === id))) return false;
      return 'inPlace';
    }
    default:
      return false;
  }
}

/** The unread count of a ticket after a new message (see LiveEvent 'message'). */
export function unreadAfterMessage(existing: Ticket | undefined, ev: { ticket: Ticket; fromMe: boolean; openUuid: string | null }): number {
  if (ev.openUuid && ev.ticket.uuid === ev.openUuid) return 0;
  const before = existing?.unreadMessages ?? 0;
  const server = typeof ev.ticket.unreadMessages === 'number' ? ev.ticket.unreadMessages : undefined;
  if (ev.fromMe) return server ?? before;
  return Math.max(server ?? 0, before + 1);
}

type Pages = InfiniteData<TicketPage, unknown>;

function find(data: Pages, id: number): Ticket | undefined {
  for (const p of data.pages) {
    const t = p.tickets.find((x) => x.id === id);
    if (t) return t;
  }
  return undefined;
}

function mapTickets(data: Pages, fn: (t: Ticket) => Ticket): Pages {
  let changed = false;
  const pages = data.pages.map((p) => {
    let pageChanged = false;
    const tickets = p.tickets.map((t) => {
      const n = fn(t);
      if (n !== t) pageChanged = true;
      return n;
    });
    if (!pageChanged) return p;
    changed = true;
    return { ...p, tickets };
  });
  return changed ? { ...data, pages } : data;
}

function remove(data: Pages, id: number): Pages {
  if (!find(data, id)) return data;
  return { ...data, pages: data.pages.map((p) => (p.tickets.some((t) => t.id === id) ? { ...p, tickets: p.tickets.filter((t) => t.id !== id) } : p)) };
}

function prepend(data: Pages, t: Ticket): Pages {
  const without = remove(data, t.id);
  if (!without.pages.length) return { ...without, pages: [{ tickets: [t], count: 1, hasMore: false }], pageParams: [1] };
  const [first, ...rest] = without.pages;
  return { ...without, pages: [{ ...first, tickets: [t, ...first.tickets] }, ...rest] };
}

/** The server's copy of a ticket over the row the list had (contact fields the payload lacks are kept). */
function merged(existing: Ticket | undefined, incoming: Ticket): Ticket {
  if (!existing) return incoming;
  // Socket payloads may lack the picture (wire-shapes §6.5): keep the one the list had.
  const contact = incoming.contact && existing.contact ? { ...existing.contact, ...dropNullish(incoming.contact) } : (incoming.contact ?? existing.contact);
  return { ...existing, ...incoming, contact };
}

function dropNullish<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== null) (out as Record<string, unknown>)[k] = v;
  return out;
}

/** Applies one live event to the cached pages of list `spec` (returns `data` itself when nothing changed). */
export function applyToPages(data: Pages, spec: ListSpec, viewer: Viewer, ev: LiveEvent): Pages {
  switch (ev.type) {
    case 'delete':
      return remove(data, ev.ticketId);
    case 'resetUnread':
      return mapTickets(data, (t) => (t.id === ev.ticketId && t.unreadMessages !== 0 ? { ...t, unreadMessages: 0 } : t));
    case 'contact':
      return mapTickets(data, (t) => (t.contactId === ev.contact.id ? { ...t, contact: { ...(t.contact ?? {}), ...ev.contact } as TicketContact } : t));
    case 'upsert': {
      const fit = belongsTo(spec, viewer, ev.ticket);
      const existing = find(data, ev.ticket.id);
      if (fit === false) return remove(data, ev.ticket.id);
      if (existing) return mapTickets(data, (t) => (t.id === ev.ticket.id ? merged(t, ev.ticket) : t));
      return fit === true ? prepend(data, ev.ticket) : data;
    }
    case 'message': {
      const existing = find(data, ev.ticket.id);
      const next = { ...merged(existing, ev.ticket), unreadMessages: unreadAfterMessage(existing, ev) };
      const fit = belongsTo(spec, viewer, next);
      if (fit === false) return remove(data, ev.ticket.id);
      if (fit === true) return prepend(data, next);
      return existing ? mapTickets(data, (t) => (t.id === next.id ? next : t)) : data;
    }
    default:
      return data;
  }
}

/** Applies one live event to a plain list of tickets (the same rules; for tests and simple callers). */
export function applyToList(tickets: Ticket[], spec: ListSpec, viewer: Viewer, ev: LiveEvent): Ticket[] {
  const data: Pages = { pages: [{ tickets, count: tickets.length, hasMore: false }], pageParams: [1] };
  const next = applyToPages(data, spec, viewer, ev);
  return next === data ? tickets : next.pages.flatMap((p) => p.tickets);
}

/** The rows of all loaded pages, each ticket once (a page fetched after live inserts may repeat rows). */
export function flattenPages(data: Pages | undefined): Ticket[] {
  if (!data) return [];
  const seen = new Set<number>();
  const out: Ticket[] = [];
  for (const p of data.pages) {
    for (const t of p.tickets) {
      if (seen.has(t.id)) continue;
      seen.add(t.id);
      out.push(t);
    }
  }
  return out;
}
