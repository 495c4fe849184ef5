/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { act, render } from '@testing-library/react';
import { QueryClient, QueryClientProvider, type InfiniteData } from '@tanstack/react-query';
import type { TicketPage } from '../src/types';

const handlers: Record<string, (payload: unknown) => void> = {};
jest.mock('@atendo/web-api', () => ({
  ...jest.requireActual('@atendo/web-api'),
  useSocketEvent: (event: string | null, handler: (payload: unknown) => void) => {
    if (event) handlers[event] = handler;
  },
  getSocket: () => null,
}));

// eslint-disable-next-line import/first
import { inboxKeys, type ListSpec } from '../src/lib/api';
// eslint-disable-next-line import/first
import { clearPresence, getPresence } from '../src/lib/presence';
// eslint-disable-next-line import/first
import { COUNTS_REFRESH_MS, useLiveTickets } from '../src/manager/useLiveTickets';
// eslint-disable-next-line import/first
import { ATTENDANT, ticket } from './helpers';

const pending: ListSpec = { kind: 'pending', showAll: false };
const open: ListSpec = { kind: 'open', showAll: false };
const pages = (tickets: ReturnType<typeof ticket>[]): InfiniteData<TicketPage, unknown> => ({ pages: [{ tickets, count: tickets.length, hasMore: false }], pageParams: [1] });

function setup(openUuid: string | null = null) {
  const client = new QueryClient();
  const a = ticket({ id: 1, status: 'pending', userId: null, user: null, unreadMessages: 0, contactId: 50 });
  const b = ticket({ id: 2, status: 'pending', userId: null, user: null, unreadMessages: 2 });
  const mine = ticket({ id: 3, status: 'open', userId: 7 });
  client.setQueryData(inboxKeys.list(pending), pages([a, b]));
  client.setQueryData(inboxKeys.list(open), pages([mine]));
  function Harness() {
    useLiveTickets(3, ATTENDANT, openUuid);
    return null;
  }
  render(
    <QueryClientProvider client={client}>
      <Harness />
    </QueryClientProvider>,
  );
  const ids = (spec: ListSpec) => (client.getQueryData<InfiniteData<TicketPage, unknown>>(inboxKeys.list(spec))?.pages ?? []).flatMap((p) => p.tickets.map((t) => t.id));
  const get = (spec: ListSpec, id: number) => (client.getQueryData<InfiniteData<TicketPage, unknown>>(inboxKeys.list(spec))?.pages ?? []).flatMap((p) => p.tickets).find((t) => t.id === id);
  const emit = (event: string, payload: unknown) => act(() => handlers[`company-3-${event}`](payload));
  return { client, a, b, mine, ids, get, emit };
}

beforeEach(() => {
  for (const k of Object.keys(handlers)) delete handlers[k];
  act(() => clearPresence());
});

describe('useLiveTickets', () => {
  test('subscribes to the company’s ticket, appMessage, contact and presence events', () => {
    setup();
    expect(Object.keys(handlers).sort()).toEqual(['company-3-appMessage', 'company-3-contact', 'company-3-presence', 'company-3-ticket']);
  });

  test('ticket update: enters, moves between tabs, leaves when out of the viewer’s queues; delete; updateUnread', () => {
    const { a, b, ids, get, emit } = setup();
    const fresh = ticket({ id: 9, status: 'pending', userId: null });
    emit('ticket', { action: 'update', ticket: fresh, ticketId: 9 });
    expect(ids(pending)).toEqual([9, 1, 2]);
    emit('ticket', { action: 'update', ticket: { ...a, status: 'open', userId: 7 } });
    expect(ids(pending)).toEqual([9, 2]);
    expect(ids(open)).toEqual([1, 3]);
    emit('ticket', { action: 'update', ticket: { ...fresh, queueId: 99, queue: { id: 99, name: 'B', color: '#000' } } });
    expect(ids(pending)).toEqual([2]);
    emit('ticket', { action: 'updateUnread', ticketId: String(b.id) });
    expect(get(pending, 2)?.unreadMessages).toBe(0);
    emit('ticket', { action: 'delete', ticketId: '2' });
    expect(ids(pending)).toEqual([]);
  });

  test('appMessage create: to the top with unread + 1 (the sound is the shell’s, on every page)', () => {
    const { b, ids, get, emit } = setup();
    emit('appMessage', { action: 'create', message: { id: 1, ticketId: 2, fromMe: false }, ticket: { ...b, lastMessage: 'novidade', unreadMessages: 2 }, contact: b.contact });
    expect(ids(pending)).toEqual([2, 1]);
    expect(get(pending, 2)?.unreadMessages).toBe(3);
    expect(get(pending, 2)?.lastMessage).toBe('novidade');
  });

  test('our own and private messages add no unread; an inbound one of my open ticket does', () => {
    const { a, mine, get, emit } = setup(null);
    emit('appMessage', { action: 'create', message: { id: 1, ticketId: 1, fromMe: true }, ticket: a });
    emit('appMessage', { action: 'create', message: { id: 2, ticketId: 1, fromMe: false, isPrivate: true }, ticket: a });
    emit('appMessage', { action: 'create', message: { id: 3, ticketId: 4, fromMe: false }, ticket: ticket({ id: 4, status: 'open', userId: 8, queueId: 10 }) });
    emit('appMessage', { action: 'create', message: { id: 4, ticketId: 5, fromMe: false }, ticket: ticket({ id: 5, status: 'pending', userId: null, queueId: 99 }) });
    emit('appMessage', { action: 'update', message: { id: 5, ticketId: 3, fromMe: false } });
    expect(get(open, 1)?.unreadMessages ?? 0).toBe(0);
    emit('appMessage', { action: 'create', message: { id: 6, ticketId: 3, fromMe: false }, ticket: mine });
    expect(get(open, 3)?.unreadMessages).toBe(1);
  });

  test('a message of the open conversation leaves its unread count at 0', () => {
    const { mine, get, emit } = setup(ticket({ id: 3 }).uuid);
    emit('appMessage', { action: 'create', message: { id: 6, ticketId: 3, fromMe: false }, ticket: { ...mine, unreadMessages: 1 } });
    expect(get(open, 3)?.unreadMessages).toBe(0);
  });

  test('contact update merges into the rows; presence feeds the indicators', () => {
    const { get, emit } = setup();
    emit('contact', { action: 'update', contact: { id: 50, name: 'Novo Nome', number: '55' } });
    expect(get(pending, 1)?.contact?.name).toBe('Novo Nome');
    emit('presence', { action: 'update-presence', ticketId: '1', presence: 'composing' });
    expect(getPresence(1)).toBe('composing');
    emit('presence', { action: 'update-presence', ticketId: 1, presence: 'available' });
    expect(getPresence(1)).toBeUndefined();
  });

  test('the tab counts are re-read once after a burst of changes', async () => {
    const { client, emit, b } = setup();
    const spy = jest.spyOn(client, 'invalidateQueries');
    emit('ticket', { action: 'update', ticket: b });
    emit('ticket', { action: 'update', ticket: b });
    emit('appMessage', { action: 'create', message: { id: 1, ticketId: 2, fromMe: true }, ticket: b });
    expect(spy).not.toHaveBeenCalled();
    await act(() => new Promise((r) => setTimeout(r, COUNTS_REFRESH_MS + 100)));
    expect(spy.mock.calls).toEqual([[{ queryKey: ['inbox', 'counts'] }]]);
  });
});
