/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session } from '@atendo/web-api';
import { ChatsPage } from '../src/ChatsPage';
import type { Chat, ChatMessage } from '../src/api';
import { answer, API, BIA, CAIO, chat, ME, message, mockFetch, renderArea, setNarrow, signIn, uuidOf, type FetchCall } from './helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const EVENT = 'company-3-chat';

interface World {
  chats: Chat[];
  /** Message pages per chat id: index 0 = page 1 (newest). */
  messages: Record<number, { records: ChatMessage[]; hasMore: boolean }[]>;
  users?: { id: number; name: string }[];
  fail?: (call: FetchCall) => ReturnType<typeof answer> | undefined;
}

let nextId = 500;

/** A fake API over `world` (enough of plugins/chats for the screen). */
function serve(world: World) {
  return mockFetch((call) => {
    const failed = world.fail?.(call);
    if (failed) return failed;
    const url = new URL(call.url);
    const path = url.pathname;
    const byId = (raw: string) => world.chats.find((c) => String(c.id) === raw || c.uuid === raw);
    if (path === '/chats' && call.method === 'GET') return answer(200, { records: world.chats, count: world.chats.length, hasMore: false });
    if (path === '/users/list') return answer(200, world.users ?? [{ id: ME, name: 'Ana' }, { id: BIA, name: 'Bia' }, { id: CAIO, name: 'Caio' }]);
    if (path === '/chats' && call.method === 'POST') {
      const body = call.body as { title: string; users: { id: number }[] };
      const created = chat(nextId++, body.title, { ownerId: ME, users: [ME, ...body.users.map((u) => u.id)].map((u) => ({ userId: u, unreads: 0, user: { id: u, name: String(u) } })) });
      world.chats = [created, ...world.chats];
      return answer(200, created);
    }
    let m = /^\/chats\/([^/]+)$/.exec(path);
    if (m) {
      const c = byId(m[1]);
      if (!c) return answer(404, { error: 'ERR_NO_CHAT_FOUND', message: 'no chat' });
      if (call.method === 'GET') return answer(200, c);
      if (call.method === 'PUT') {
        const body = call.body as { title: string; users: { id: number }[] };
        return answer(200, { ...c, title: body.title, users: [ME, ...body.users.map((u) => u.id)].map((u) => ({ userId: u, unreads: 0, user: { id: u, name: String(u) } })) });
      }
      if (call.method === 'DELETE') return answer(200, { message: 'Chat deleted' });
    }
    m = /^\/chats\/(\d+)\/messages$/.exec(path);
    if (m) {
      const id = Number(m[1]);
      if (call.method === 'GET') {
        const page = Number(url.searchParams.get('pageNumber') ?? 1);
        const p = world.messages[id]?.[page - 1] ?? { records: [], hasMore: false };
        return answer(200, { ...p, count: p.records.length });
      }
      const text = (call.body as { message: string }).message;
      return answer(200, message(nextId++, id, ME, text));
    }
    m = /^\/chats\/(\d+)\/read$/.exec(path);
    if (m) {
      const c = byId(m[1])!;
      return answer(200, { ...c, users: c.users.map((u) => (u.userId === ME ? { ...u, unreads: 0 } : u)) });
    }
    return answer(404, { error: 'ERR_NOT_FOUND' });
  });
}

const rowTitles = () => within(screen.getByTestId('chat-list')).getAllByRole('listitem').map((li) => li.querySelector('strong')?.textContent);
const posts = (calls: FetchCall[], suffix: string) => calls.filter((c) => c.method === 'POST' && c.url === `${API}${suffix}`);
const bubbles = () => screen.getAllByTestId('chat-message').map((b) => [b.querySelector('strong')?.textContent, b.querySelector('p')?.textContent, b.getAttribute('data-own')]);

beforeEach(() => {
  setNarrow(false);
  window.localStorage.clear();
});

afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
});

describe('the internal chat screen', () => {
  test('lists the chats, opens one (marking it read), shows its messages and sends with Enter', async () => {
    const world: World = {
      chats: [chat(1, 'Plantão', { unreads: 2, lastMessage: 'Quem cobre sábado?' }), chat(2, 'Financeiro')],
      messages: { 1: [{ records: [message(10, 1, BIA, 'Bom dia'), message(11, 1, ME, 'Oi Bia'), message(12, 1, BIA, 'Quem cobre sábado?')], hasMore: false }] },
    };
    const calls = serve(world);
    signIn();
    renderArea(<ChatsPage />);
    await screen.findByTestId('chat-list');
    expect(rowTitles()).toEqual(['Plantão', 'Financeiro']);
    expect(screen.getByTestId('open-chat-1').textContent).toContain('Quem cobre sábado?');
    expect(screen.getByTestId('open-chat-2').textContent).toContain('Sem mensagens');
    expect(screen.getByTestId('unread-1').textContent).toBe('2');
    expect(screen.getByTestId('unread-1').getAttribute('aria-label')).toBe('2 mensagens não lidas');
    expect(screen.queryByTestId('unread-2')).toBeNull();
    expect(screen.getByTestId('select-chat').textContent).toContain('Selecione uma conversa');
    expect(screen.getByTestId('chats-page').getAttribute('data-layout')).toBe('wide');
    expect(screen.queryByRole('tablist')).toBeNull();
    expect(calls.filter((c) => c.method === 'GET').map((c) => c.url)).toEqual([`${API}/chats?pageNumber=1`]);

    fireEvent.click(screen.getByTestId('open-chat-1'));
    expect(window.location.pathname).toBe(`/chats/${uuidOf(1)}`);
    expect((await screen.findByTestId('conversation-title')).textContent).toBe('Plantão');
    await waitFor(() => expect(bubbles()).toEqual([['Bia', 'Bom dia', 'false'], ['Você', 'Oi Bia', 'true'], ['Bia', 'Quem cobre sábado?', 'false']]));
    expect(calls.some((c) => c.method === 'GET' && c.url === `${API}/chats/1/messages?pageNumber=1`)).toBe(true);
    // Opening marks it read for the caller; the answer clears the counter.
    await waitFor(() => expect(posts(calls, '/chats/1/read')).toHaveLength(1));
    expect(posts(calls, '/chats/1/read')[0].body).toEqual({ userId: ME });
    await waitFor(() => expect(screen.queryByTestId('unread-1')).toBeNull());
    expect(screen.getByTestId('open-chat-1').getAttribute('aria-current')).toBe('true');

    const input = screen.getByTestId('message-input') as HTMLTextAreaElement;
    // Blank text is not sent, Shift+Enter is a new line.
    fireEvent.change(input, { target: { value: '   ' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    expect((screen.getByTestId('send-message') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(input, { target: { value: 'Eu cubro' } });
    fireEvent.keyDown(input, { key: 'Enter', shiftKey: true });
    expect(posts(calls, '/chats/1/messages')).toHaveLength(0);
    fireEvent.keyDown(input, { key: 'Enter' });
    await waitFor(() => expect(posts(calls, '/chats/1/messages')).toHaveLength(1));
    expect(posts(calls, '/chats/1/messages')[0].body).toEqual({ message: 'Eu cubro' });
    expect(input.value).toBe('');
    await waitFor(() => expect(bubbles().at(-1)).toEqual(['Você', 'Eu cubro', 'true']));
    // The button sends too.
    fireEvent.change(input, { target: { value: 'e domingo' } });
    fireEvent.click(screen.getByTestId('send-message'));
    await waitFor(() => expect(bubbles().at(-1)).toEqual(['Você', 'e domingo', 'true']));
    expect(screen.getAllByTestId('chat-message')).toHaveLength(5);
  });

  test('live: a new message moves its chat to the top with its unread count, and lands in the open chat (read again); updates and deletes apply', async () => {
    const world: World = {
      chats: [chat(1, 'Plantão'), chat(2, 'Financeiro'), chat(3, 'Suporte')],
      messages: { 1: [{ records: [message(10, 1, BIA, 'Bom dia')], hasMore: false }] },
    };
    const calls = serve(world);
    signIn();
    renderArea(<ChatsPage />, `/chats/${uuidOf(1)}`);
    await waitFor(() => expect(bubbles()).toEqual([['Bia', 'Bom dia', 'false']]));
    await waitFor(() => expect(posts(calls, '/chats/1/read')).toHaveLength(1));

    // Another chat gets a message: it goes first with 1 unread.
    const m1 = message(20, 3, BIA, 'Cliente ligou');
    act(() => mockSocket.push(EVENT, { action: 'new-message', newMessage: { ...m1, chat: chat(3, 'Suporte', { unreads: 1, lastMessage: 'Cliente ligou' }) }, chat: chat(3, 'Suporte', { unreads: 1, lastMessage: 'Cliente ligou' }) }));
    await waitFor(() => expect(rowTitles()).toEqual(['Suporte', 'Plantão', 'Financeiro']));
    expect(screen.getByTestId('unread-3').textContent).toBe('1');
    expect(screen.getByTestId('open-chat-3').textContent).toContain('Cliente ligou');
    expect(bubbles()).toHaveLength(1);

    // The open chat gets one: appended (once, even if the event repeats) and marked read again.
    const m2 = message(21, 1, BIA, 'Tudo certo?');
    const event = { action: 'new-message', newMessage: { ...m2, chat: chat(1, 'Plantão', { unreads: 1, lastMessage: 'Tudo certo?' }) }, chat: chat(1, 'Plantão', { unreads: 1, lastMessage: 'Tudo certo?' }) };
    act(() => mockSocket.push(EVENT, event));
    act(() => mockSocket.push(EVENT, event));
    await waitFor(() => expect(bubbles()).toEqual([['Bia', 'Bom dia', 'false'], ['Bia', 'Tudo certo?', 'false']]));
    expect(rowTitles()).toEqual(['Plantão', 'Suporte', 'Financeiro']);
    await waitFor(() => expect(posts(calls, '/chats/1/read')).toHaveLength(2));

    // An update (rename) keeps the place; a new chat the user is in comes first.
    act(() => mockSocket.push(EVENT, { action: 'update', chat: chat(2, 'Financeiro 2030') }));
    await waitFor(() => expect(rowTitles()).toEqual(['Plantão', 'Suporte', 'Financeiro 2030']));
    act(() => mockSocket.push(EVENT, { action: 'update', chat: chat(4, 'Nova conversa') }));
    await waitFor(() => expect(rowTitles()).toEqual(['Nova conversa', 'Plantão', 'Suporte', 'Financeiro 2030']));
    // Removed from a chat: it leaves the list.
    act(() => mockSocket.push(EVENT, { action: 'update', chat: { ...chat(3, 'Suporte'), users: [{ userId: BIA, unreads: 0 }] } }));
    await waitFor(() => expect(rowTitles()).toEqual(['Nova conversa', 'Plantão', 'Financeiro 2030']));

    // The open chat is deleted: it leaves the list and the conversation closes.
    act(() => mockSocket.push(EVENT, { action: 'delete', id: '1' }));
    await waitFor(() => expect(rowTitles()).toEqual(['Nova conversa', 'Financeiro 2030']));
    expect(window.location.pathname).toBe('/chats');
    expect(await screen.findByTestId('select-chat')).toBeTruthy();
    expect(screen.queryByTestId('conversation')).toBeNull();
  });

  test('only the owner sees edit and delete; edit sends PUT with title and participants; delete asks first', async () => {
    const world: World = { chats: [chat(1, 'Minha', { ownerId: ME, owner: { id: ME, name: 'Ana' } }), chat(2, 'Da Bia')], messages: {} };
    const calls = serve(world);
    signIn();
    renderArea(<ChatsPage />);
    await screen.findByTestId('chat-list');
    expect(screen.getByTestId('edit-chat-1').getAttribute('aria-label')).toBe('Editar conversa Minha');
    expect(screen.getByTestId('delete-chat-1')).toBeTruthy();
    expect(screen.queryByTestId('edit-chat-2')).toBeNull();
    expect(screen.queryByTestId('delete-chat-2')).toBeNull();

    fireEvent.click(screen.getByTestId('edit-chat-1'));
    const dialog = await screen.findByRole('dialog', { name: 'Editar conversa' });
    expect((within(dialog).getByTestId('chat-title') as HTMLInputElement).value).toBe('Minha');
    await within(dialog).findByTestId('user-option-9');
    // The owner is not offered (always a participant); Bia is already in.
    expect(within(dialog).queryByTestId(`user-option-${ME}`)).toBeNull();
    expect((within(dialog).getByTestId('user-option-9') as HTMLInputElement).checked).toBe(true);
    expect((within(dialog).getByTestId('user-option-11') as HTMLInputElement).checked).toBe(false);
    fireEvent.click(within(dialog).getByTestId('user-option-11'));
    fireEvent.change(within(dialog).getByTestId('chat-title'), { target: { value: 'Minha equipe' } });
    fireEvent.click(within(dialog).getByTestId('save-chat'));
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(1));
    const put = calls.find((c) => c.method === 'PUT')!;
    expect(put.url).toBe(`${API}/chats/1`);
    expect(put.body).toEqual({ title: 'Minha equipe', users: [{ id: BIA, name: 'Bia' }, { id: CAIO, name: 'Caio' }] });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(rowTitles()).toEqual(['Minha equipe', 'Da Bia']);

    // Delete: cancel keeps it; confirm deletes it.
    fireEvent.click(screen.getByTestId('delete-chat-1'));
    let confirm = await screen.findByRole('dialog', { name: 'Excluir conversa' });
    expect(within(confirm).getByTestId('confirm-text').textContent).toContain('"Minha equipe"');
    fireEvent.click(within(confirm).getByText('Cancelar'));
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    fireEvent.click(screen.getByTestId('delete-chat-1'));
    confirm = await screen.findByRole('dialog', { name: 'Excluir conversa' });
    fireEvent.click(within(confirm).getByTestId('confirm-delete'));
    await waitFor(() => expect(rowTitles()).toEqual(['Da Bia']));
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.url)).toEqual([`${API}/chats/1`]);
  });

  test('new chat: save is disabled until a title and a participant; creating opens the chat', async () => {
    const world: World = { chats: [chat(2, 'Da Bia')], messages: {} };
    const calls = serve(world);
    signIn();
    renderArea(<ChatsPage />);
    await screen.findByTestId('chat-list');
    fireEvent.click(screen.getByTestId('new-chat'));
    const dialog = await screen.findByRole('dialog', { name: 'Nova conversa' });
    const save = within(dialog).getByTestId('save-chat') as HTMLButtonElement;
    await within(dialog).findByTestId('user-option-11');
    expect(save.disabled).toBe(true);
    fireEvent.change(within(dialog).getByTestId('chat-title'), { target: { value: '   ' } });
    fireEvent.click(within(dialog).getByTestId('user-option-11'));
    expect(save.disabled).toBe(true);
    fireEvent.change(within(dialog).getByTestId('chat-title'), { target: { value: 'Escala' } });
    expect(save.disabled).toBe(false);
    expect(within(dialog).getByTestId('selected-count').textContent).toBe('1 selecionado');
    // The filter narrows the users shown (the choice stays).
    fireEvent.change(within(dialog).getByTestId('user-filter'), { target: { value: 'bi' } });
    expect(within(dialog).queryByTestId('user-option-11')).toBeNull();
    expect(within(dialog).getByTestId('user-option-9')).toBeTruthy();
    fireEvent.click(save);
    await waitFor(() => expect(posts(calls, '/chats')).toHaveLength(1));
    expect(posts(calls, '/chats')[0].body).toEqual({ title: 'Escala', users: [{ id: CAIO, name: 'Caio' }] });
    await waitFor(() => expect(window.location.pathname).toMatch(/^\/chats\/00000000-0000-4000-8000-\d+$/));
    expect((await screen.findByTestId('conversation-title')).textContent).toBe('Escala');
    expect(rowTitles()).toEqual(['Escala', 'Da Bia']);
  });

  test('narrow screens: two tabs, Chats and Mensagens; picking a chat shows its messages', async () => {
    setNarrow(true);
    const world: World = { chats: [chat(1, 'Plantão')], messages: { 1: [{ records: [message(10, 1, BIA, 'Bom dia')], hasMore: false }] } };
    serve(world);
    signIn();
    renderArea(<ChatsPage />);
    await screen.findByTestId('chat-list');
    expect(screen.getByTestId('chats-page').getAttribute('data-layout')).toBe('narrow');
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['Chats', 'Mensagens']);
    expect(screen.getByTestId('tab-chats').getAttribute('aria-selected')).toBe('true');
    const visible = (id: string) => getComputedStyle(screen.getByTestId(id)).display !== 'none';
    expect(visible('chats-pane')).toBe(true);
    expect(visible('messages-pane')).toBe(false);

    fireEvent.click(screen.getByTestId('open-chat-1'));
    await screen.findByTestId('conversation');
    await waitFor(() => expect(screen.getByTestId('tab-messages').getAttribute('aria-selected')).toBe('true'));
    expect(visible('chats-pane')).toBe(false);
    expect(visible('messages-pane')).toBe(true);
    await waitFor(() => expect(bubbles()).toHaveLength(1));
    // The back button (and the tab) return to the list.
    fireEvent.click(screen.getByTestId('back-to-chats'));
    expect(screen.getByTestId('tab-chats').getAttribute('aria-selected')).toBe('true');
    expect(visible('chats-pane')).toBe(true);
    fireEvent.click(screen.getByTestId('tab-messages'));
    expect(visible('messages-pane')).toBe(true);
  });

  test('scrolling near the top loads the older page above', async () => {
    const world: World = {
      chats: [chat(1, 'Plantão')],
      messages: { 1: [{ records: [message(30, 1, BIA, 'terceira'), message(31, 1, ME, 'quarta')], hasMore: true }, { records: [message(28, 1, BIA, 'primeira'), message(29, 1, BIA, 'segunda')], hasMore: false }] },
    };
    const calls = serve(world);
    signIn();
    renderArea(<ChatsPage />, `/chats/${uuidOf(1)}`);
    await waitFor(() => expect(bubbles().map((b) => b[1])).toEqual(['terceira', 'quarta']));
    fireEvent.scroll(screen.getByTestId('message-list'));
    await waitFor(() => expect(bubbles().map((b) => b[1])).toEqual(['primeira', 'segunda', 'terceira', 'quarta']));
    expect(calls.filter((c) => c.url.includes('/messages?')).map((c) => new URL(c.url).searchParams.get('pageNumber'))).toEqual(['1', '2']);
    // No third page.
    fireEvent.scroll(screen.getByTestId('message-list'));
    await new Promise((r) => setTimeout(r, 20));
    expect(calls.filter((c) => c.url.includes('/messages?'))).toHaveLength(2);
  });

  test('a chat that is not listed is read by its uuid; an unknown one says not found; API errors show the toast', async () => {
    const world: World = {
      chats: [chat(1, 'Plantão')],
      messages: {},
      fail: (call) => (call.method === 'POST' && call.url.endsWith('/messages') ? answer(403, { error: 'ERR_NO_PERMISSION', message: 'nope' }) : undefined),
    };
    const calls = serve(world);
    signIn();
    renderArea(<ChatsPage />, `/chats/${uuidOf(99)}`);
    expect(await screen.findByTestId('chat-not-found')).toBeTruthy();
    expect(calls.some((c) => c.method === 'GET' && c.url === `${API}/chats/${uuidOf(99)}`)).toBe(true);
    expect(await screen.findByText('Conversa não encontrada.', { selector: '.Toastify *' })).toBeTruthy();

    // A chat beyond the first page (not in the list) opens through GET /chats/:uuid.
    const old = chat(7, 'Antiga');
    world.fail = (call) => {
      if (call.method === 'GET' && call.url === `${API}/chats/${uuidOf(7)}`) return answer(200, old);
      if (call.method === 'POST' && call.url.endsWith('/messages')) return answer(403, { error: 'ERR_NO_PERMISSION', message: 'nope' });
      if (call.url.includes('/chats/7/read')) return answer(200, old);
      return undefined;
    };
    fireEvent.click(screen.getByTestId('open-chat-1'));
    await screen.findByTestId('conversation');
    act(() => {
      window.history.pushState(null, '', `/chats/${uuidOf(7)}`);
      window.dispatchEvent(new PopStateEvent('popstate'));
    });
    expect((await screen.findByTestId('conversation-title')).textContent).toBe('Antiga');
    fireEvent.change(screen.getByTestId('message-input'), { target: { value: 'oi' } });
    fireEvent.keyDown(screen.getByTestId('message-input'), { key: 'Enter' });
    expect(await screen.findByText('Você não tem permissão para acessar este recurso.', { selector: '.Toastify *' })).toBeTruthy();
    // The text comes back to be sent again.
    await waitFor(() => expect((screen.getByTestId('message-input') as HTMLTextAreaElement).value).toBe('oi'));
  });
});
