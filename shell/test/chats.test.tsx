/** @jest-environment jsdom */
import './jsdom-polyfills';
import { createFakeSocket } from './fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { session, writeToken, type Plan } from '@atendo/web-api';
import { applyChatEvent, totalUnreads, type ChatSummary } from '../src/hooks/useChats';
import { Layout } from '../src/layout/Layout';
import { answer, API, mockFetch, renderShell, sessionUser, FULL_PLAN } from './helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const ME = 7;
const PLAN = FULL_PLAN;

const chat = (id: number, title: string, unreadsForMe: number, lastMessage = ''): ChatSummary => ({
  id,
  uuid: `00000000-0000-4000-8000-00000000000${id}`,
  title,
  lastMessage,
  ownerId: 9,
  users: [
    { userId: ME, unreads: unreadsForMe, user: { id: ME, name: 'Ana' } },
    { userId: 9, unreads: 0, user: { id: 9, name: 'Bia' } },
  ],
});

const EVENT = 'company-3-chat';

function mount(chats: ChatSummary[], plan: Plan = PLAN) {
  const calls = mockFetch((c) => {
    if (c.url.includes('/companies/listPlan/3')) return answer(200, { id: 3, name: 'Acme', dueDate: '2999-01-01', plan });
    if (c.url.startsWith(`${API}/chats?`)) return answer(200, { records: chats, count: chats.length, hasMore: false });
    if (c.url.includes('/read')) return answer(200, {});
    return answer(404, { error: 'ERR_NOT_FOUND' });
  });
  writeToken('jwt');
  act(() => session.signIn(sessionUser({ id: ME, profile: 'user' }) as never));
  renderShell(
    <Routes>
      <Route element={<Layout />}>
        <Route path="/tickets" element={<div>TICKETS</div>} />
        <Route path="/chats/:id" element={<div data-testid="chat-page">CHAT PAGE</div>} />
      </Route>
    </Routes>,
    { route: '/tickets' },
  );
  return calls;
}

const dot = () => screen.queryByTestId('chats-unread');
const entryTitles = () => within(screen.getByTestId('chats-list')).getAllByRole('button').map((b) => b.querySelector('strong')?.textContent);

describe('applyChatEvent', () => {
  const a = chat(1, 'A', 0);
  const b = chat(2, 'B', 0);
  test('new-message moves the chat to the top, update keeps its place, delete and removal drop it; idempotent', () => {
    const moved = applyChatEvent([a, b], { action: 'new-message', chat: { ...b, lastMessage: 'hi' } }, ME);
    expect(moved.map((c) => [c.id, c.lastMessage])).toEqual([[2, 'hi'], [1, '']]);
    expect(applyChatEvent(moved, { action: 'new-message', chat: { ...b, lastMessage: 'hi' } }, ME)).toEqual(moved);
    expect(applyChatEvent([a, b], { action: 'update', chat: { ...b, title: 'B2' } }, ME).map((c) => c.title)).toEqual(['A', 'B2']);
    expect(applyChatEvent([a], { action: 'update', chat: b }, ME).map((c) => c.id)).toEqual([2, 1]);
    expect(applyChatEvent([a, b], { action: 'delete', id: '1' }, ME).map((c) => c.id)).toEqual([2]);
    expect(applyChatEvent([a, b], { action: 'update', chat: { ...a, users: [{ userId: 9, unreads: 0 }] } }, ME).map((c) => c.id)).toEqual([2]);
    expect(applyChatEvent([a], { action: 'bogus' }, ME)).toEqual([a]);
    expect(totalUnreads([chat(1, 'x', 2), chat(2, 'y', 3), b], ME)).toBe(5);
  });
});

describe('internal chat in the shell (top bar popover and menu dot)', () => {
  afterEach(() => {
    act(() => session.signOut());
    mockSocket.handlers.clear();
  });

  test('the popover lists the chats with last message and unread count, live on new messages', async () => {
    const calls = mount([chat(1, 'Plantão', 2, 'Quem cobre sábado?'), chat(2, 'Financeiro', 0)]);
    const button = await screen.findByTestId('chats-button');
    await waitFor(() => expect(screen.getByTestId('chats-unread-total').textContent).toBe('2'));
    expect(calls.some((c) => c.url === `${API}/chats?pageNumber=1` && c.method === 'GET')).toBe(true);
    expect(button.getAttribute('aria-label')).toBe('Chat interno: 2 mensagens não lidas');

    fireEvent.click(button);
    const dialog = screen.getByRole('dialog', { name: 'Chat interno' });
    expect(entryTitles()).toEqual(['Plantão', 'Financeiro']);
    expect(within(dialog).getByTestId('chat-entry-1').textContent).toContain('Quem cobre sábado?');
    expect(within(dialog).getByTestId('chat-entry-2').textContent).toContain('Nenhuma mensagem ainda');
    expect(within(dialog).getByTestId('chat-unread-1').textContent).toBe('2');
    expect(within(dialog).queryByTestId('chat-unread-2')).toBeNull();

    act(() => mockSocket.push(EVENT, { action: 'new-message', newMessage: { message: 'Fechamento hoje' }, chat: chat(2, 'Financeiro', 1, 'Fechamento hoje') }));
    await waitFor(() => expect(entryTitles()).toEqual(['Financeiro', 'Plantão']));
    expect(within(dialog).getByTestId('chat-entry-2').textContent).toContain('Fechamento hoje');
    expect(within(dialog).getByTestId('chat-unread-2').textContent).toBe('1');
    expect(screen.getByTestId('chats-unread-total').textContent).toBe('3');

    act(() => mockSocket.push(EVENT, { action: 'update', chat: chat(3, 'Nova conversa', 0) }));
    await waitFor(() => expect(entryTitles()).toEqual(['Nova conversa', 'Financeiro', 'Plantão']));
    act(() => mockSocket.push(EVENT, { action: 'delete', id: '1' }));
    await waitFor(() => expect(entryTitles()).toEqual(['Nova conversa', 'Financeiro']));
  });

  test('the menu dot appears on an unread message and goes away once read; an entry opens /chats/{uuid}', async () => {
    const calls = mount([chat(1, 'Plantão', 0, 'ok')]);
    const entry = await screen.findByTestId('menu-chats');
    await screen.findByTestId('chats-button');
    expect(dot()).toBeNull();

    act(() => mockSocket.push(EVENT, { action: 'new-message', chat: chat(1, 'Plantão', 1, 'novidade') }));
    await waitFor(() => expect(within(entry).getByTestId('chats-unread')).toBeTruthy());
    expect(dot()?.getAttribute('aria-label')).toBe('Há mensagens não lidas no chat interno');
    // Another user's unread messages are not the caller's.
    act(() => mockSocket.push(EVENT, { action: 'update', chat: { ...chat(1, 'Plantão', 1), users: [{ userId: ME, unreads: 1 }, { userId: 9, unreads: 4 }] } }));

    fireEvent.click(screen.getByTestId('chats-button'));
    fireEvent.click(await screen.findByTestId('chat-entry-1'));
    expect(await screen.findByTestId('chat-page')).toBeTruthy();
    const read = calls.find((c) => c.method === 'POST' && c.url === `${API}/chats/1/read`);
    expect(read?.body).toEqual({ userId: ME });
    expect(dot()).not.toBeNull();

    // The server confirms the read (the `update` event POST /chats/{id}/read emits).
    act(() => mockSocket.push(EVENT, { action: 'update', chat: { ...chat(1, 'Plantão', 0), users: [{ userId: ME, unreads: 0 }, { userId: 9, unreads: 4 }] } }));
    await waitFor(() => expect(dot()).toBeNull());
    expect(screen.queryByTestId('chats-unread-total')).toBeNull();
  });

  test('the dot shows on load when a chat has unread messages', async () => {
    mount([chat(1, 'Plantão', 0), chat(2, 'Suporte', 3)]);
    await waitFor(() => expect(dot()).not.toBeNull());
  });

  test('without useInternalChat: no top-bar button, no menu entry, no request, no subscription', async () => {
    const calls = mount([chat(1, 'Plantão', 5)], { ...PLAN, useInternalChat: false });
    await screen.findByTestId('menu-tickets');
    await waitFor(() => expect(calls.some((c) => c.url.includes('/companies/listPlan/3'))).toBe(true));
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByTestId('chats-button')).toBeNull();
    expect(screen.queryByTestId('chats-button-loading')).toBeNull();
    expect(screen.queryByTestId('menu-chats')).toBeNull();
    expect(dot()).toBeNull();
    expect(calls.some((c) => c.url.includes('/chats'))).toBe(false);
    expect(mockSocket.handlers.get(EVENT)?.size ?? 0).toBe(0);
  });
});
