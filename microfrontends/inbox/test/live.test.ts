import type { InfiniteData } from '@tanstack/react-query';
import { EMPTY_SEARCH, type ListSpec } from '../src/lib/api';
import { applyToList, applyToPages, belongsTo, flattenPages, unreadAfterMessage } from '../src/manager/live';
import { specFromKey } from '../src/manager/cache';
import { canSeeTicket, notifiesViewer, type Viewer } from '../src/lib/viewer';
import type { TicketPage } from '../src/types';
import { ADMIN, ATTENDANT, ticket } from './helpers';

const open: ListSpec = { kind: 'open', showAll: false };
const pending: ListSpec = { kind: 'pending', showAll: false };
const closed: ListSpec = { kind: 'closed', showAll: false };
const ids = (list: { id: number }[]) => list.map((t) => t.id);

describe('visibility (spec §6)', () => {
  test('an attendant sees tickets of their queues, without a queue, or assigned to them; groups only with allowGroup', () => {
    expect(canSeeTicket(ATTENDANT, { isGroup: false, queueId: 10, userId: null })).toBe(true);
    expect(canSeeTicket(ATTENDANT, { isGroup: false, queueId: null, userId: null })).toBe(true);
    expect(canSeeTicket(ATTENDANT, { isGroup: false, queueId: 99, userId: null })).toBe(false);
    expect(canSeeTicket(ATTENDANT, { isGroup: false, queueId: 99, userId: 7 })).toBe(true);
    expect(canSeeTicket(ATTENDANT, { isGroup: true, queueId: 10, userId: null })).toBe(false);
    expect(canSeeTicket({ ...ATTENDANT, allowGroup: true }, { isGroup: true, queueId: 99, userId: null })).toBe(true);
    expect(canSeeTicket(ADMIN, { isGroup: true, queueId: 99, userId: 3 })).toBe(true);
    expect(canSeeTicket({ ...ATTENDANT, allTicket: true }, { isGroup: false, queueId: 99, userId: 3 })).toBe(true);
  });

  test('new-message notifications: unassigned or mine, in my queues or none', () => {
    expect(notifiesViewer(ATTENDANT, { isGroup: false, queueId: 10, userId: null, status: 'pending' })).toBe(true);
    expect(notifiesViewer(ATTENDANT, { isGroup: false, queueId: 10, userId: 7, status: 'open' })).toBe(true);
    expect(notifiesViewer(ATTENDANT, { isGroup: false, queueId: 10, userId: 8, status: 'open' })).toBe(false);
    expect(notifiesViewer(ATTENDANT, { isGroup: false, queueId: null, userId: null, status: 'pending' })).toBe(true);
    expect(notifiesViewer(ATTENDANT, { isGroup: false, queueId: 99, userId: null, status: 'pending' })).toBe(false);
    expect(notifiesViewer({ ...ATTENDANT, allTicket: true }, { isGroup: false, queueId: 99, userId: null, status: 'pending' })).toBe(true);
    expect(notifiesViewer({ ...ATTENDANT, allTicket: true }, { isGroup: false, queueId: 99, userId: null, status: 'open' })).toBe(false);
  });
});

describe('belongsTo', () => {
  test('list filters: a ticket outside the selected departments or without unread leaves; a period never takes new tickets in', () => {
    const f = (o: Partial<NonNullable<ListSpec['filters']>>) => ({ ...pending, filters: { queueIds: [], unread: false, dateStart: '', dateEnd: '', ...o } });
    const t10 = ticket({ status: 'pending', userId: null, queueId: 10, unreadMessages: 2 });
    const none = ticket({ status: 'pending', userId: null, queueId: null, unreadMessages: 0 });
    expect(belongsTo(f({ queueIds: [10] }), ATTENDANT, t10)).toBe(true);
    expect(belongsTo(f({ queueIds: [0] }), ATTENDANT, t10)).toBe(false);
    expect(belongsTo(f({ queueIds: [0] }), ATTENDANT, none)).toBe(true);
    expect(belongsTo(f({ unread: true }), ATTENDANT, none)).toBe(false);
    expect(belongsTo(f({ unread: true }), ATTENDANT, t10)).toBe(true);
    expect(belongsTo(f({ dateStart: '2026-01-01' }), ATTENDANT, t10)).toBe('inPlace');
    expect(belongsTo(f({ dateStart: '2026-01-01', queueIds: [0] }), ATTENDANT, t10)).toBe(false);
  });

  test('tabs follow status, the open tab only the viewer’s tickets unless show-all is permitted', () => {
    const mine = ticket({ status: 'open', userId: 7 });
    const others = ticket({ status: 'open', userId: 8 });
    expect(belongsTo(open, ATTENDANT, mine)).toBe(true);
    expect(belongsTo(open, ATTENDANT, others)).toBe(false);
    expect(belongsTo({ kind: 'open', showAll: true }, ATTENDANT, others)).toBe(false); // attendants may not show all
    expect(belongsTo({ kind: 'open', showAll: true }, ADMIN, others)).toBe(true);
    expect(belongsTo({ kind: 'open', showAll: false }, ADMIN, others)).toBe(false);
    expect(belongsTo(pending, ATTENDANT, ticket({ status: 'pending', userId: null }))).toBe(true);
    expect(belongsTo(pending, ATTENDANT, mine)).toBe(false);
    expect(belongsTo(closed, ATTENDANT, ticket({ status: 'closed' }))).toBe(true);
    expect(belongsTo({ kind: 'group', showAll: false }, ADMIN, ticket({ status: 'group', isGroup: true }))).toBe(true);
  });

  test('search lists are updated in place only, and left when a filter no longer matches', () => {
    const spec: ListSpec = { kind: 'search', showAll: false, search: { ...EMPTY_SEARCH, term: 'maria', statuses: ['open'] } };
    expect(belongsTo(spec, ATTENDANT, ticket({ status: 'open' }))).toBe('inPlace');
    expect(belongsTo(spec, ATTENDANT, ticket({ status: 'closed' }))).toBe(false);
    const byTag: ListSpec = { kind: 'search', showAll: false, search: { ...EMPTY_SEARCH, tags: [1, 2] } };
    expect(belongsTo(byTag, ATTENDANT, ticket({ tags: [{ id: 1, name: 'a', color: '#000' }, { id: 2, name: 'b', color: '#000' }] }))).toBe('inPlace');
    expect(belongsTo(byTag, ATTENDANT, ticket({ tags: [{ id: 1, name: 'a', color: '#000' }] }))).toBe(false);
  });
});

describe('applyToList', () => {
  test('upsert: replaces in place, enters at the top, leaves lists it no longer matches', () => {
    const a = ticket({ id: 1, status: 'pending', userId: null });
    const b = ticket({ id: 2, status: 'pending', userId: null });
    const c = ticket({ id: 3, status: 'pending', userId: null });
    const list = [a, b, c];
    // In place (same position), with the new data.
    const renamed = { ...b, lastMessage: 'novo' };
    const r1 = applyToList(list, pending, ATTENDANT, { type: 'upsert', ticket: renamed });
    expect(ids(r1)).toEqual([1, 2, 3]);
    expect(r1[1].lastMessage).toBe('novo');
    // A new pending ticket enters at the top.
    const d = ticket({ id: 4, status: 'pending', userId: null });
    expect(ids(applyToList(list, pending, ATTENDANT, { type: 'upsert', ticket: d }))).toEqual([4, 1, 2, 3]);
    // Accepted: leaves pending, enters the viewer's open list at the top.
    const accepted = { ...b, status: 'open' as const, userId: 7 };
    expect(ids(applyToList(list, pending, ATTENDANT, { type: 'upsert', ticket: accepted }))).toEqual([1, 3]);
    expect(ids(applyToList([ticket({ id: 9, status: 'open', userId: 7 })], open, ATTENDANT, { type: 'upsert', ticket: accepted }))).toEqual([2, 9]);
    // Transferred to a department the attendant does not serve: leaves the list.
    const moved = { ...c, queueId: 99, queue: { id: 99, name: 'Outra', color: '#000' } };
    expect(ids(applyToList(list, pending, ATTENDANT, { type: 'upsert', ticket: moved }))).toEqual([1, 2]);
    // ...but an admin keeps it.
    expect(ids(applyToList(list, pending, ADMIN, { type: 'upsert', ticket: moved }))).toEqual([1, 2, 3]);
    // A ticket that does not belong and is absent changes nothing (same array).
    expect(applyToList(list, closed, ATTENDANT, { type: 'upsert', ticket: d })).toBe(list);
  });

  test('upsert keeps the picture a socket payload lacks', () => {
    const a = ticket({ id: 1, contact: { id: 50, name: 'Maria', number: '55', urlPicture: 'http://x/p.jpg' } });
    const incoming = { ...a, contact: { id: 50, name: 'Maria S', number: '55' } };
    const [row] = applyToList([a], open, ATTENDANT, { type: 'upsert', ticket: incoming });
    expect(row.contact).toEqual({ id: 50, name: 'Maria S', number: '55', urlPicture: 'http://x/p.jpg' });
  });

  test('delete removes the row; resetUnread zeroes the count', () => {
    const list = [ticket({ id: 1, unreadMessages: 3 }), ticket({ id: 2, unreadMessages: 1 })];
    expect(ids(applyToList(list, open, ATTENDANT, { type: 'delete', ticketId: 1 }))).toEqual([2]);
    expect(applyToList(list, open, ATTENDANT, { type: 'delete', ticketId: 77 })).toBe(list);
    const reset = applyToList(list, open, ATTENDANT, { type: 'resetUnread', ticketId: 1 });
    expect(reset.map((t) => t.unreadMessages)).toEqual([0, 1]);
    expect(applyToList(reset, open, ATTENDANT, { type: 'resetUnread', ticketId: 1 })).toBe(reset);
  });

  test('message: moves the ticket to the top and bumps unread unless fromMe or the conversation is open', () => {
    const list = [ticket({ id: 1 }), ticket({ id: 2 }), ticket({ id: 3, unreadMessages: 2 })];
    const inbound = { ...list[2], lastMessage: 'Oi de novo', unreadMessages: 2 };
    const moved = applyToList(list, open, ATTENDANT, { type: 'message', ticket: inbound, fromMe: false, openUuid: null });
    expect(ids(moved)).toEqual([3, 1, 2]);
    expect(moved[0].unreadMessages).toBe(3);
    expect(moved[0].lastMessage).toBe('Oi de novo');
    // The server's count wins when it is ahead.
    expect(applyToList(list, open, ATTENDANT, { type: 'message', ticket: { ...list[2], unreadMessages: 5 }, fromMe: false, openUuid: null })[0].unreadMessages).toBe(5);
    // Our own message: moved, count as the server says.
    const mine = applyToList(list, open, ATTENDANT, { type: 'message', ticket: { ...list[2], unreadMessages: 2 }, fromMe: true, openUuid: null });
    expect(ids(mine)).toEqual([3, 1, 2]);
    expect(mine[0].unreadMessages).toBe(2);
    // The open conversation: no unread.
    expect(applyToList(list, open, ATTENDANT, { type: 'message', ticket: inbound, fromMe: false, openUuid: list[2].uuid })[0].unreadMessages).toBe(0);
    // A message of a ticket new to the list: enters at the top with 1 unread.
    const fresh = ticket({ id: 8, status: 'open', userId: 7, unreadMessages: 0 });
    const withFresh = applyToList(list, open, ATTENDANT, { type: 'message', ticket: fresh, fromMe: false, openUuid: null });
    expect(ids(withFresh)).toEqual([8, 1, 2, 3]);
    expect(withFresh[0].unreadMessages).toBe(1);
    // A message of a ticket whose status is not the list's: it leaves (or never enters) that list.
    expect(ids(applyToList(list, pending, ATTENDANT, { type: 'message', ticket: inbound, fromMe: false, openUuid: null }))).toEqual([1, 2]);
    expect(ids(applyToList(list, closed, ATTENDANT, { type: 'message', ticket: fresh, fromMe: false, openUuid: null }))).toEqual([1, 2, 3]);
  });

  test('unreadAfterMessage', () => {
    const t = ticket({ unreadMessages: 0 });
    expect(unreadAfterMessage({ ...t, unreadMessages: 4 }, { ticket: { ...t, unreadMessages: 4 }, fromMe: false, openUuid: null })).toBe(5);
    expect(unreadAfterMessage(undefined, { ticket: { ...t, unreadMessages: 0 }, fromMe: false, openUuid: null })).toBe(1);
    expect(unreadAfterMessage(undefined, { ticket: { ...t, unreadMessages: 6 }, fromMe: true, openUuid: null })).toBe(6);
    expect(unreadAfterMessage({ ...t, unreadMessages: 4 }, { ticket: t, fromMe: false, openUuid: t.uuid })).toBe(0);
  });

  test('contact update merges into every row of that contact', () => {
    const a = ticket({ id: 1, contactId: 50, contact: { id: 50, name: 'Maria', number: '55' } });
    const b = ticket({ id: 2, contactId: 51, contact: { id: 51, name: 'João', number: '56' } });
    const out = applyToList([a, b], open, ATTENDANT, { type: 'contact', contact: { id: 50, name: 'Maria Silva', number: '55', urlPicture: 'http://x/y.jpg' } });
    expect(out[0].contact).toEqual({ id: 50, name: 'Maria Silva', number: '55', urlPicture: 'http://x/y.jpg' });
    expect(out[1]).toBe(b);
  });

  test('search lists: updated in place, never entered, left on filter mismatch', () => {
    const spec: ListSpec = { kind: 'search', showAll: false, search: { ...EMPTY_SEARCH, term: 'x', statuses: ['pending'] } };
    const a = ticket({ id: 1, status: 'pending', userId: null });
    const b = ticket({ id: 2, status: 'pending', userId: null });
    expect(ids(applyToList([a], spec, ATTENDANT, { type: 'upsert', ticket: b }))).toEqual([1]);
    expect(ids(applyToList([a, b], spec, ATTENDANT, { type: 'message', ticket: { ...b, lastMessage: 'm' }, fromMe: false, openUuid: null }))).toEqual([1, 2]);
    expect(ids(applyToList([a, b], spec, ATTENDANT, { type: 'upsert', ticket: { ...b, status: 'open', userId: 7 } }))).toEqual([1]);
  });
});

describe('applyToPages', () => {
  const pages = (...lists: number[][]): InfiniteData<TicketPage, unknown> => ({
    pages: lists.map((l, i) => ({ tickets: l.map((id) => ticket({ id, status: 'pending', userId: null })), count: 99, hasMore: i < lists.length - 1 })),
    pageParams: lists.map((_, i) => i + 1),
  });
  const pageIds = (d: InfiniteData<TicketPage, unknown>) => d.pages.map((p) => ids(p.tickets));

  test('moving to the top takes the row out of a later page into the first one', () => {
    const data = pages([1, 2], [3, 4]);
    const moved = applyToPages(data, pending, ATTENDANT, { type: 'message', ticket: ticket({ id: 4, status: 'pending', userId: null }), fromMe: false, openUuid: null });
    expect(pageIds(moved)).toEqual([[4, 1, 2], [3]]);
    expect(moved.pages[1].hasMore).toBe(false);
    expect(pageIds(applyToPages(data, pending, ATTENDANT, { type: 'delete', ticketId: 3 }))).toEqual([[1, 2], [4]]);
    expect(applyToPages(data, pending, ATTENDANT, { type: 'delete', ticketId: 42 })).toBe(data);
    // Untouched pages keep their identity.
    const replaced = applyToPages(data, pending, ATTENDANT, { type: 'upsert', ticket: ticket({ id: 2, status: 'pending', userId: null, lastMessage: 'x' }) });
    expect(replaced.pages[1]).toBe(data.pages[1]);
    expect(replaced.pages[0].tickets[1].lastMessage).toBe('x');
  });

  test('flattenPages shows each ticket once (a later page may repeat a row moved by a live event)', () => {
    const data = pages([5, 1], [1, 2]);
    expect(ids(flattenPages(data))).toEqual([5, 1, 2]);
    expect(flattenPages(undefined)).toEqual([]);
  });

  test('specFromKey reads the list a cached query belongs to', () => {
    expect(specFromKey(['inbox', 'tickets', 'pending', true, null])).toEqual({ kind: 'pending', showAll: true, search: undefined });
    const search = { ...EMPTY_SEARCH, term: 'a' };
    expect(specFromKey(['inbox', 'tickets', 'search', false, search])).toEqual({ kind: 'search', showAll: false, search });
    expect(specFromKey(['inbox', 'counts', false])).toBeUndefined();
    expect(specFromKey(['inbox', 'tickets', 'bogus', false, null])).toBeUndefined();
  });
});

// Keeps the Viewer import used for type-checking of the fixtures above.
export type _V = Viewer;
