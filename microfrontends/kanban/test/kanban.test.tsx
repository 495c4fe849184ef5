/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { QueryClient } from '@tanstack/react-query';
import { session } from '@atendo/web-api';
import { boardKeys, KanbanBoard, moveTicket } from '../src/pages/kanban/KanbanBoard';
import type { BoardFilters, BoardTicket, TicketPage } from '../src/lib/api';
import { answer, mockFetch, renderKanban, signIn, type FetchCall } from './helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const ticket = (id: number, over: Partial<BoardTicket> = {}): BoardTicket => ({
  id,
  uuid: `uuid-${id}`,
  status: 'open',
  lastMessage: `Mensagem ${id}`,
  updatedAt: new Date().toISOString(),
  queueId: 1,
  userId: 7,
  contact: { id: 100 + id, name: `Cliente ${id}`, number: `55119000000${id}` },
  queue: { id: 1, name: 'Vendas', color: '#1e88e5' },
  user: { id: 7, name: 'Ana' },
  tags: [],
  ...over,
});

const LANE_A = { id: 11, name: 'Negociação', color: '#e53935' };
const LANE_B = { id: 12, name: 'Fechado', color: '#43a047' };

/** A fake API: lanes, and tickets by lane (lane 0 = no kanban tag), with the request's filters applied. */
function api(state: { tickets: BoardTicket[]; tagsStatus?: number; failPut?: boolean; sla?: Record<number, unknown> }) {
  return mockFetch((call: FetchCall) => {
    const url = new URL(call.url);
    const path = url.pathname;
    if (path === '/tags/kanban') return state.tagsStatus ? answer(state.tagsStatus, { error: 'ERR_FEATURE_NOT_IN_PLAN' }) : answer(200, { lista: [LANE_A, LANE_B] });
    if (path === '/queue') return answer(200, [{ id: 1, name: 'Vendas', color: '#1e88e5' }, { id: 2, name: 'Suporte', color: '#8e24aa' }]);
    if (path === '/users/list') return answer(200, [{ id: 7, name: 'Ana' }, { id: 8, name: 'Bruno' }]);
    if (path === '/sla/tickets') {
      if (!state.sla) return answer(404, { error: 'ERR_NOT_FOUND' });
      const ids = (url.searchParams.get('ticketIds') ?? '').split(',').map(Number);
      return answer(200, ids.map((id) => state.sla![id]).filter(Boolean));
    }
    if (path === '/ticket/kanban') {
      const lane = Number(url.searchParams.get('lane'));
      const term = url.searchParams.get('searchParam');
      const users = url.searchParams.get('users');
      const kanbanIds = [LANE_A.id, LANE_B.id];
      const tickets = state.tickets.filter(
        (t) =>
          (lane === 0 ? !t.tags.some((g) => kanbanIds.includes(g.id)) : t.tags.some((g) => g.id === lane)) &&
          (!term || (t.contact?.name ?? '').toLowerCase().includes(term)) &&
          (!users || (JSON.parse(users) as number[]).includes(t.userId ?? -1)),
      );
      return answer(200, { tickets, count: tickets.length, hasMore: false } satisfies TicketPage);
    }
    const m = /^\/ticket-tags\/(\d+)\/(\d+)$/.exec(path);
    if (m) {
      const t = state.tickets.find((x) => x.id === Number(m[1]))!;
      const tagId = Number(m[2]);
      if (call.method === 'DELETE') {
        t.tags = t.tags.filter((g) => g.id !== tagId);
        return answer(200, { message: 'ok', removed: 1 });
      }
      if (state.failPut) return answer(404, { error: 'ERR_NO_TAG_FOUND' });
      const lane = [LANE_A, LANE_B].find((l) => l.id === tagId)!;
      t.tags = [...t.tags, lane];
      return answer(200, { ticketId: t.id, tagId });
    }
    return answer(404, { error: 'ERR_NOT_FOUND' });
  });
}

const laneCalls = (calls: FetchCall[]) => calls.filter((c) => new URL(c.url).pathname === '/ticket/kanban').map((c) => Object.fromEntries(new URL(c.url).searchParams));

describe('the kanban board', () => {
  afterEach(() => act(() => session.signOut()));

  test('the default lane and one lane per kanban tag in its colour, with counts and cards; the open button goes to /tickets/{uuid}', async () => {
    signIn({ queues: [{ id: 1, name: 'Vendas', color: '#1e88e5' }] });
    const calls = api({ tickets: [ticket(1), ticket(2, { tags: [LANE_A] }), ticket(3, { tags: [LANE_A, LANE_B], lastMessage: null }), ticket(4, { tags: [{ id: 99, name: 'Comum', color: '#000' }] })] });
    renderKanban(<KanbanBoard />, { route: '/kanban' });
    await screen.findByTestId('card-1');
    const lanes = screen.getAllByRole('region').filter((el) => el.dataset.testid?.startsWith('lane-'));
    expect(lanes.map((l) => l.getAttribute('aria-label'))).toEqual(['Em aberto', 'Negociação', 'Fechado']);
    await waitFor(() => expect(screen.getByTestId('lane-0-count').textContent).toBe('2'));
    expect(screen.getByTestId('lane-11-count').textContent).toBe('2');
    expect(screen.getByTestId('lane-12-count').textContent).toBe('1');
    expect(within(screen.getByTestId('lane-0')).queryByTestId('card-4')).not.toBeNull(); // a plain tag is no lane
    expect(within(screen.getByTestId('lane-12')).queryByTestId('card-3')).not.toBeNull(); // several lanes: in each
    expect(within(screen.getByTestId('lane-11')).queryByTestId('card-3')).not.toBeNull();
    expect(getComputedStyle(screen.getByTestId('lane-11').querySelector('header')!).backgroundColor).toBe('rgb(229, 57, 53)');
    const card = within(screen.getByTestId('lane-0')).getByTestId('card-1');
    expect(card.textContent).toContain('#1');
    expect(card.textContent).toContain('Cliente 1');
    expect(card.textContent).toContain('551190000001');
    expect(card.textContent).toContain('Mensagem 1');
    expect(within(screen.getByTestId('lane-12')).getByTestId('card-3').textContent).toContain('Sem mensagens');
    // Lanes keep their width whatever their cards hold (the default lane grew to its longest last message).
    for (const lane of lanes) {
      expect([parseFloat(getComputedStyle(lane).minWidth), getComputedStyle(lane).maxWidth]).toEqual([0, '300px']);
      expect(parseFloat(getComputedStyle(lane.querySelector('article')!).minWidth)).toBe(0);
    }
    // each lane asks for its own tickets, scoped to the viewer's queues
    expect(laneCalls(calls).map((q) => [q.lane, q.queueIds]).sort()).toEqual([['0', '[1]'], ['11', '[1]'], ['12', '[1]']]);
    fireEvent.click(within(screen.getByTestId('lane-0')).getByTestId('card-1-open'));
    expect(window.location.pathname).toBe('/tickets/uuid-1');
  });

  test('filters: queues (the viewer\'s at first), assigned user (admins), search', async () => {
    signIn({ queues: [{ id: 1, name: 'Vendas', color: '#1e88e5' }] });
    const calls = api({ tickets: [ticket(1), ticket(2, { userId: 8, user: { id: 8, name: 'Bruno' }, contact: { id: 2, name: 'Zeca', number: '1' } })] });
    renderKanban(<KanbanBoard />, { route: '/kanban' });
    await screen.findByTestId('card-2');
    expect(screen.getByTestId('kanban-queue-1').getAttribute('aria-pressed')).toBe('true');
    expect((await screen.findByTestId('kanban-queue-2')).getAttribute('aria-pressed')).toBe('false');
    fireEvent.click(screen.getByTestId('kanban-queue-2'));
    await waitFor(() => expect(laneCalls(calls).some((q) => q.queueIds === '[1,2]')).toBe(true));
    await waitFor(() => expect(screen.getByTestId('kanban-user').querySelectorAll('option')).toHaveLength(3));
    fireEvent.change(screen.getByTestId('kanban-user'), { target: { value: '8' } });
    await waitFor(() => expect(screen.queryByTestId('card-1')).toBeNull());
    expect(laneCalls(calls).some((q) => q.users === '[8]')).toBe(true);
    fireEvent.change(screen.getByTestId('kanban-user'), { target: { value: '' } });
    await screen.findByTestId('card-1');
    fireEvent.change(screen.getByTestId('kanban-search'), { target: { value: 'ZECA' } });
    await waitFor(() => expect(screen.queryByTestId('card-1')).toBeNull());
    expect(await screen.findByTestId('card-2')).toBeTruthy();
    expect(laneCalls(calls).some((q) => q.searchParam === 'zeca')).toBe(true);
  });

  test('profile user: only their queues to pick, no user filter', async () => {
    signIn({ profile: 'user', queues: [{ id: 2, name: 'Suporte', color: '#8e24aa' }] });
    const calls = api({ tickets: [ticket(1)] });
    renderKanban(<KanbanBoard />, { route: '/kanban' });
    await screen.findByTestId('card-1');
    expect(screen.queryByTestId('kanban-user')).toBeNull();
    expect(within(screen.getByTestId('kanban-queues')).getAllByRole('button').map((b) => b.textContent)).toEqual(['Suporte']);
    expect(calls.some((c) => new URL(c.url).pathname === '/users/list')).toBe(false);
  });

  test('live: a ticket event reloads the lanes; a tag event reloads the lanes list', async () => {
    signIn();
    const state = { tickets: [ticket(1)] };
    api(state);
    renderKanban(<KanbanBoard />, { route: '/kanban' });
    await screen.findByTestId('card-1');
    state.tickets = [ticket(1, { tags: [LANE_B] }), ticket(5)];
    act(() => mockSocket.push('company-3-ticket', { action: 'update', ticket: state.tickets[0] }));
    await waitFor(() => expect(within(screen.getByTestId('lane-12')).queryByTestId('card-1')).not.toBeNull());
    expect(within(screen.getByTestId('lane-0')).queryByTestId('card-5')).not.toBeNull();
    expect(screen.getByTestId('lane-0-count').textContent).toBe('1');
    act(() => mockSocket.push('company-3-ticket', { action: 'delete', ticketId: 5 }));
    state.tickets = [state.tickets[0]];
    await waitFor(() => expect(screen.queryByTestId('card-5')).toBeNull());
    expect(screen.getByTestId('lane-0-empty').textContent).toContain('Nenhum ticket');
  });

  test('SLA (issue 34 item 5): a card shows the badge as a breach nears and once it passed, live', async () => {
    signIn({ queues: [{ id: 1, name: 'Vendas', color: '#1e88e5' }] });
    const min = (n: number) => new Date(Date.now() + n * 60_000).toISOString();
    const sla = (ticketId: number, warn: number, due: number) => ({
      ticketId, uuid: `uuid-${ticketId}`, queueId: 1, userId: 7, startedAt: min(-60),
      firstResponse: { minutes: 60, warnAt: min(warn), dueAt: min(due), doneAt: null, breachedAt: null, state: 'ok' }, resolution: null,
    });
    const calls = api({ tickets: [ticket(1), ticket(2), ticket(3), ticket(4, { status: 'closed' })], sla: { 1: sla(1, -5, 9.5), 2: sla(2, -30, -1), 3: sla(3, 10, 20) } });
    renderKanban(<KanbanBoard />, { route: '/kanban' });
    await waitFor(() => expect(screen.getByTestId('card-1-sla').textContent).toBe('SLA 10 min'));
    expect(screen.getByTestId('card-1-sla').dataset.level).toBe('warning');
    expect(screen.getByTestId('card-2-sla').textContent).toBe('SLA estourado');
    expect(screen.queryByTestId('card-3-sla')).toBeNull();
    // Only the active tickets are asked about.
    const asked = calls.filter((c) => new URL(c.url).pathname === '/sla/tickets').map((c) => new URL(c.url).searchParams.get('ticketIds'));
    expect(asked).toEqual(['1,2,3']);
    // Answered: the update removes the badge without a new request.
    act(() => mockSocket.push('company-3-sla', { action: 'update', sla: { ...sla(2, -30, -1), firstResponse: { ...sla(2, -30, -1).firstResponse, doneAt: min(0) } } }));
    await waitFor(() => expect(screen.queryByTestId('card-2-sla')).toBeNull());
    expect(calls.filter((c) => new URL(c.url).pathname === '/sla/tickets')).toHaveLength(1);
  });

  test('without the SLA plugin the cards have no badge', async () => {
    signIn({ queues: [{ id: 1, name: 'Vendas', color: '#1e88e5' }] });
    api({ tickets: [ticket(1)] });
    renderKanban(<KanbanBoard />, { route: '/kanban' });
    await screen.findByTestId('card-1');
    await act(() => new Promise((r) => setTimeout(r, 50)));
    expect(screen.queryByTestId('card-1-sla')).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  test('load failures show the translated error with a retry', async () => {
    signIn();
    const state = { tickets: [ticket(1)], tagsStatus: 403 as number | undefined };
    api(state);
    renderKanban(<KanbanBoard />, { route: '/kanban', language: 'en' });
    expect((await screen.findByTestId('kanban-failed')).textContent).toContain("Your company's plan does not include this feature.");
    state.tagsStatus = undefined;
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await screen.findByTestId('card-1');
    expect(screen.getByTestId('lane-0').getAttribute('aria-label')).toBe('Open');
  });
});

describe('moving a card (moveTicket)', () => {
  const filters: BoardFilters = { queueIds: [], userId: null, term: '' };
  const seed = (client: QueryClient, lane: number, tickets: BoardTicket[]) =>
    client.setQueryData(boardKeys.laneWith(lane, filters), { pages: [{ tickets, count: tickets.length, hasMore: false }], pageParams: [1] });
  const lane = (client: QueryClient, id: number) => client.getQueryData<{ pages: TicketPage[] }>(boardKeys.laneWith(id, filters))!.pages[0];

  beforeEach(() => signIn());
  afterEach(() => act(() => session.signOut()));

  test("from a tag lane to another: the lane's tag replaced (DELETE then PUT), both toasts, the cache moved at once", async () => {
    renderKanban(<div />);
    const t = ticket(1, { tags: [LANE_A, { id: 99, name: 'Comum', color: '#000' }] });
    const state = { tickets: [t] };
    const calls = api(state);
    const client = new QueryClient();
    seed(client, LANE_A.id, [t]);
    seed(client, LANE_B.id, []);
    const done = moveTicket(client, t, LANE_A.id, LANE_B, { removed: 'Ticket Tag Removido!', added: 'Ticket Tag Adicionado com Sucesso!' });
    await waitFor(() => expect(lane(client, LANE_B.id).tickets.map((x) => x.id)).toEqual([1]));
    expect(lane(client, LANE_A.id)).toMatchObject({ tickets: [], count: 0 });
    expect(lane(client, LANE_B.id).count).toBe(1);
    expect(lane(client, LANE_B.id).tickets[0].tags.map((g) => g.id)).toEqual([99, LANE_B.id]);
    expect(await done).toBe(true);
    expect(calls.filter((c) => c.url.includes('/ticket-tags/')).map((c) => `${c.method} ${new URL(c.url).pathname}`)).toEqual(['DELETE /ticket-tags/1/11', 'PUT /ticket-tags/1/12']);
    expect(state.tickets[0].tags.map((g) => g.id)).toEqual([99, 12]); // the plain tag stays
    expect(await screen.findByText('Ticket Tag Removido!')).toBeTruthy();
    expect(await screen.findByText('Ticket Tag Adicionado com Sucesso!')).toBeTruthy();
  });

  test('to and from the default lane make one call each; a refused link shows the translated error', async () => {
    renderKanban(<div />);
    const t = ticket(2);
    const state = { tickets: [t], failPut: true };
    const calls = api(state);
    const client = new QueryClient();
    expect(await moveTicket(client, t, 0, LANE_A, { removed: 'R', added: 'A' })).toBe(false);
    expect(await screen.findByText('Tag não encontrada.')).toBeTruthy();
    state.failPut = false;
    const tagged = ticket(3, { tags: [LANE_A] });
    state.tickets.push(tagged);
    expect(await moveTicket(client, tagged, LANE_A.id, { id: 0, name: 'Em aberto', color: null }, { removed: 'R', added: 'A' })).toBe(true);
    expect(calls.filter((c) => c.url.includes('/ticket-tags/')).map((c) => `${c.method} ${new URL(c.url).pathname}`)).toEqual(['PUT /ticket-tags/2/11', 'DELETE /ticket-tags/3/11']);
  });
});
