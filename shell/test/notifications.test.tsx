/** @jest-environment jsdom */
import './jsdom-polyfills';
import { createFakeSocket } from './fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { Route, Routes, useParams } from 'react-router';
import { session, writeToken } from '@atendo/web-api';
import { answer, API, mockFetch, renderShell, sessionUser, FULL_PLAN, type FetchCall } from './helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));
const played: number[] = [];
jest.mock('@atendo/web-ui', () => ({ ...jest.requireActual('@atendo/web-ui'), playNotificationSound: (v: number) => (played.push(v), true) }));

// eslint-disable-next-line import/first
import { setVolume } from '@atendo/web-ui';
// eslint-disable-next-line import/first
import { Layout } from '../src/layout/Layout';
// eslint-disable-next-line import/first
import { NOTIFICATION_ASKED_KEY, titleWithUnread, unreadTotal, waitingList, WAITING_REFRESH_MS, type WaitingTicket } from '../src/hooks/useTicketNotifications';


const ME = 7;
const QUEUE = 10;
const ticket = (o: Partial<WaitingTicket> & { id: number }): WaitingTicket => ({
  uuid: `00000000-0000-4000-8000-0000000000${String(o.id).padStart(2, '0')}`,
  status: 'pending',
  queueId: QUEUE,
  userId: null,
  isGroup: false,
  unreadMessages: 1,
  lastMessage: 'Olá',
  updatedAt: '2026-11-20T10:00:00.000Z',
  contact: { id: 100 + o.id, name: `Cliente ${o.id}` },
  ...o,
});

/** A fake Notification API: what was shown and asked. */
class FakeNotification {
  static permission: NotificationPermission = 'default';
  static requested = 0;
  static shown: FakeNotification[] = [];
  static requestPermission = jest.fn(async () => {
    FakeNotification.requested++;
    return FakeNotification.permission;
  });
  onclick: (() => void) | null = null;
  closed = false;
  constructor(
    readonly title: string,
    readonly options: NotificationOptions,
  ) {
    FakeNotification.shown.push(this);
  }
  close() {
    this.closed = true;
  }
}

function TicketPage() {
  const { ticketId } = useParams();
  return <div data-testid="ticket-page">{ticketId}</div>;
}

function mount(lists: { pending: WaitingTicket[]; unread: WaitingTicket[] }, route = '/contacts', opts: { profile?: 'user' | 'supervisor' | 'admin'; breaches?: () => unknown[] } = {}) {
  const calls: FetchCall[] = mockFetch((c) => {
    if (c.url.includes('/companies/listPlan/3')) return answer(200, { id: 3, name: 'Acme', plan: FULL_PLAN });
    if (c.url.startsWith(`${API}/tickets?`) && c.url.includes('status=pending')) return answer(200, { tickets: lists.pending, count: lists.pending.length, hasMore: false });
    if (c.url.startsWith(`${API}/tickets?`) && c.url.includes('withUnreadMessages=true')) return answer(200, { tickets: lists.unread, count: lists.unread.length, hasMore: false });
    if (c.url.startsWith(`${API}/chats`)) return answer(200, { records: [], count: 0, hasMore: false });
    if (c.url.startsWith(`${API}/announcements`)) return answer(200, { records: [], count: 0, hasMore: false });
    if (c.url.startsWith(`${API}/sla/breaches`) && opts.breaches) return answer(200, opts.breaches());
    return answer(404, { error: 'ERR_NOT_FOUND' });
  });
  writeToken('jwt');
  act(() => session.signIn(sessionUser({ id: ME, profile: opts.profile ?? 'user', queues: [{ id: QUEUE, name: 'Suporte', color: '#f00' }] }) as never));
  renderShell(
    <Routes>
      <Route element={<Layout />}>
        <Route path="/contacts" element={<div>CONTACTS</div>} />
        <Route path="/tickets/:ticketId" element={<TicketPage />} />
      </Route>
    </Routes>,
    { route },
  );
  return calls;
}

beforeEach(() => {
  played.length = 0;
  FakeNotification.shown = [];
  FakeNotification.requested = 0;
  FakeNotification.permission = 'granted';
  (window as unknown as { Notification: unknown }).Notification = FakeNotification;
  window.localStorage.clear();
  document.title = 'Atendo';
  mockSocket.handlers.clear();
});
afterEach(() => act(() => session.signOut()));

describe('pure parts', () => {
  test('waitingList: each ticket once, newest first; unread total; the title prefix', () => {
    const a = ticket({ id: 1, updatedAt: '2026-11-20T10:00:00Z', unreadMessages: 2 });
    const b = ticket({ id: 2, status: 'open', userId: ME, updatedAt: '2026-11-21T10:00:00Z', unreadMessages: 3 });
    const list = waitingList({ pending: [a], unread: [b, a] });
    expect(list.map((t) => t.id)).toEqual([2, 1]);
    expect(unreadTotal(list)).toBe(5);
    expect(titleWithUnread('Atendo', 5)).toBe('(5) Atendo');
    expect(titleWithUnread('Atendo', 0)).toBe('Atendo');
    expect(titleWithUnread('Atendo', 120)).toBe('(99+) Atendo');
  });
});

describe('the bell on every page', () => {
  test('lists pending tickets of my queues and my unread open tickets with a badge; the tab title carries the unread total; a click opens the ticket', async () => {
    const calls = mount({ pending: [ticket({ id: 1, unreadMessages: 2, lastMessage: '*Bot:*\nBem-vindo' })], unread: [ticket({ id: 2, status: 'open', userId: ME, unreadMessages: 3 })] });
    await waitFor(() => expect(screen.getByTestId('notifications-badge').textContent).toBe('2'));
    const pendingCall = calls.find((c) => c.url.includes('status=pending'))!;
    expect(decodeURIComponent(pendingCall.url)).toContain(`queueIds=[${QUEUE},0]`);
    expect(document.title).toBe('(5) Atendo');
    fireEvent.click(screen.getByTestId('notifications-button'));
    const items = within(screen.getByTestId('notifications-list')).getAllByTestId('notification-item');
    expect(items.map((i) => i.querySelector('strong')?.textContent)).toEqual(['Cliente 1', 'Cliente 2']);
    // Formatting is rendered, not shown as markup.
    expect(items[0].textContent).toContain('Bot: Bem-vindo');
    expect(items[0].textContent).toContain('Aguardando');
    fireEvent.click(items[1]);
    await waitFor(() => expect(screen.getByTestId('ticket-page').textContent).toBe(ticket({ id: 2 }).uuid));
  });

  test('an inbound message that notifies me rings at the remembered volume, shows a desktop notification (a click opens the ticket) and refreshes the bell', async () => {
    act(() => setVolume(0.3));
    const calls = mount({ pending: [], unread: [] });
    await waitFor(() => expect(calls.filter((c) => c.url.includes('status=pending'))).toHaveLength(1));
    const t = ticket({ id: 5, status: 'pending', unreadMessages: 1 });
    act(() => mockSocket.push('company-3-appMessage', { action: 'create', message: { id: 1, fromMe: false, body: '*Oi*, tudo bem?' }, ticket: t, contact: t.contact }));
    expect(played).toEqual([0.3]);
    expect(FakeNotification.shown).toHaveLength(1);
    expect(FakeNotification.shown[0].title).toBe('Cliente 5');
    expect(FakeNotification.shown[0].options.body).toBe('Oi, tudo bem?');
    act(() => FakeNotification.shown[0].onclick?.());
    await waitFor(() => expect(screen.getByTestId('ticket-page').textContent).toBe(t.uuid));
    await act(() => new Promise((r) => setTimeout(r, WAITING_REFRESH_MS + 100)));
    expect(calls.filter((c) => c.url.includes('status=pending')).length).toBeGreaterThanOrEqual(2);
  });

  test('our own messages, private notes and tickets of other users or queues do not ring', async () => {
    mount({ pending: [], unread: [] });
    const push = (message: Record<string, unknown>, t: WaitingTicket) => act(() => mockSocket.push('company-3-appMessage', { action: 'create', message, ticket: t }));
    push({ id: 1, fromMe: true }, ticket({ id: 1 }));
    push({ id: 2, fromMe: false, isPrivate: true }, ticket({ id: 2 }));
    push({ id: 3, fromMe: false }, ticket({ id: 3, status: 'open', userId: 99 }));
    push({ id: 4, fromMe: false }, ticket({ id: 4, queueId: 55 }));
    expect(played).toEqual([]);
    expect(FakeNotification.shown).toHaveLength(0);
  });

  test('the desktop permission is asked once per browser', async () => {
    FakeNotification.permission = 'default';
    mount({ pending: [], unread: [] });
    await waitFor(() => expect(FakeNotification.requested).toBe(1));
    expect(window.localStorage.getItem(NOTIFICATION_ASKED_KEY)).toBeTruthy();
    act(() => session.signOut());
    window.localStorage.setItem(NOTIFICATION_ASKED_KEY, 'yes');
    mount({ pending: [], unread: [] });
    await act(() => new Promise((r) => setTimeout(r, 50)));
    expect(FakeNotification.requested).toBe(1);
  });
});

describe('SLA breaches (issue 34 item 5)', () => {
  const breach = (ticketId: number, target: 'firstResponse' | 'resolution' = 'firstResponse') => ({
    ticketId, uuid: ticket({ id: ticketId }).uuid, queueId: QUEUE, userId: null, target, dueAt: '2026-11-20T13:00:00.000Z', breachedAt: '2026-11-20T13:00:05.000Z',
  });

  test("a supervisor's bell lists the open breaches first; a breach event rings, toasts, notifies the desktop and refreshes the list", async () => {
    let open = [breach(4, 'resolution')];
    const calls = mount({ pending: [ticket({ id: 1 })], unread: [] }, '/contacts', { profile: 'supervisor', breaches: () => open });
    await waitFor(() => expect(screen.getByTestId('notifications-badge').textContent).toBe('2'));
    fireEvent.click(screen.getByTestId('notifications-button'));
    const first = within(screen.getByTestId('notifications-sla')).getAllByTestId('notification-sla-item');
    expect(first.map((i) => i.querySelector('strong')?.textContent)).toEqual(['Ticket #4: resolução']);
    fireEvent.click(screen.getByTestId('notifications-button'));

    open = [breach(9), ...open];
    act(() => mockSocket.push('company-3-sla', { action: 'breach', breach: breach(9) }));
    expect(played).toHaveLength(1);
    expect(FakeNotification.shown.map((n) => [n.title, n.options.body])).toEqual([['SLA estourado', 'SLA estourado: ticket #9 (primeira resposta)']]);
    await waitFor(() => expect(screen.getByText('SLA estourado: ticket #9 (primeira resposta)')).toBeTruthy());
    await waitFor(() => expect(screen.getByTestId('notifications-badge').textContent).toBe('3'), { timeout: 3000 });
    expect(calls.filter((c) => c.url.includes('/sla/breaches')).length).toBe(2);
    act(() => FakeNotification.shown[0].onclick?.());
    await waitFor(() => expect(screen.getByTestId('ticket-page').textContent).toBe(ticket({ id: 9 }).uuid));

    // The ticket answered: its update refreshes the list.
    open = [breach(4, 'resolution')];
    act(() => mockSocket.push('company-3-sla', { action: 'update', sla: { ticketId: 9 } }));
    await waitFor(() => expect(screen.getByTestId('notifications-badge').textContent).toBe('2'), { timeout: 3000 });
  });

  test('a plain attendant never asks for breaches', async () => {
    const calls = mount({ pending: [], unread: [] }, '/contacts', { breaches: () => [breach(4)] });
    await waitFor(() => expect(calls.filter((c) => c.url.includes('status=pending'))).toHaveLength(1));
    act(() => mockSocket.push('company-3-sla', { action: 'breach', breach: breach(4) }));
    expect(calls.some((c) => c.url.includes('/sla/breaches'))).toBe(false);
    expect(FakeNotification.shown).toHaveLength(0);
    expect(played).toEqual([]);
  });
});
