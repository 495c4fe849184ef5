/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session } from '@atendo/web-api';
import { applyTicketEvent, MomentsPage, panelCards } from '../src/pages/moments/MomentsPage';
import type { BoardTicket } from '../src/lib/api';
import { answer, mockFetch, renderKanban, signIn, type FetchCall } from './helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const VENDAS = { id: 1, name: 'Vendas', color: '#1e88e5' };
const SUPORTE = { id: 2, name: 'Suporte', color: '#8e24aa' };

const ticket = (id: number, over: Partial<BoardTicket> = {}): BoardTicket => ({
  id,
  uuid: `uuid-${id}`,
  status: 'open',
  lastMessage: `Mensagem ${id}`,
  updatedAt: new Date(Date.now() - 5 * 60_000).toISOString(),
  queueId: 1,
  userId: 7,
  contact: { id: 100 + id, name: `Cliente ${id}`, number: '5511' },
  queue: VENDAS,
  user: { id: 7, name: 'Ana' },
  tags: [],
  ...over,
});

/** GET /tickets over `state.tickets`: statusFilter and queueIds applied, 40 a page. */
function api(state: { tickets: BoardTicket[]; status?: number }) {
  return mockFetch((call: FetchCall) => {
    const url = new URL(call.url);
    if (url.pathname === '/queue') return answer(200, [VENDAS, SUPORTE]);
    if (url.pathname !== '/tickets') return answer(404, { error: 'ERR_NOT_FOUND' });
    if (state.status) return answer(state.status, { error: 'ERR_NO_PERMISSION' });
    const statuses = JSON.parse(url.searchParams.get('statusFilter') ?? '[]') as string[];
    const queues = JSON.parse(url.searchParams.get('queueIds') ?? '[]') as number[];
    const page = Number(url.searchParams.get('pageNumber') ?? 1);
    const all = state.tickets.filter((t) => statuses.includes(t.status) && (!queues.length || queues.includes(t.queueId ?? 0)));
    return answer(200, { tickets: all.slice((page - 1) * 40, page * 40), count: all.length, hasMore: all.length > page * 40, counts: { open: 0, pending: 0, group: 0 } });
  });
}

const cardTitles = () => within(screen.getByTestId('moments-cards')).getAllByRole('region').map((r) => `${r.getAttribute('aria-label')}:${within(r).queryAllByRole('listitem').length}`);

describe('the real-time attendance panel', () => {
  afterEach(() => act(() => session.signOut()));

  test("one card per user with open tickets plus Pendentes, filtered by the viewer's queues and the no-queue pseudo-queue", async () => {
    signIn({ profile: 'user', queues: [VENDAS] });
    const calls = api({
      tickets: [
        ticket(1),
        ticket(2, { userId: 8, user: { id: 8, name: 'Bruno' } }),
        ticket(3, { userId: 8, user: { id: 8, name: 'Bruno' }, queueId: null, queue: null }),
        ticket(4, { status: 'pending', userId: null, user: null }),
        ticket(5, { queueId: 2, queue: SUPORTE, userId: 9, user: { id: 9, name: 'Carla' } }),
        ticket(6, { status: 'closed' }),
      ],
    });
    renderKanban(<MomentsPage />, { route: '/moments' });
    await screen.findByTestId('moments-card-pending');
    expect(cardTitles()).toEqual(['Ana:1', 'Bruno:2', 'Pendentes:1']);
    expect(screen.getByTestId('moments-summary').textContent).toBe('Em atendimento: 3 · Pendentes: 1');
    const q = new URL(calls.find((c) => new URL(c.url).pathname === '/tickets')!.url).searchParams;
    expect(JSON.parse(q.get('statusFilter')!)).toEqual(['open', 'pending']);
    expect(JSON.parse(q.get('queueIds')!)).toEqual([0, 1]);
    const row = screen.getByTestId('moments-ticket-3');
    expect(row.textContent).toContain('Cliente 3');
    expect(row.textContent).toContain('Sem fila');
    expect(row.textContent).toContain('há 5 min');
    expect(screen.getByTestId('moments-card-user-8-count').textContent).toBe('2');
    // the no-queue pseudo-queue can be switched off
    fireEvent.click(screen.getByTestId('moments-queue-0'));
    await waitFor(() => expect(cardTitles()).toEqual(['Ana:1', 'Bruno:1', 'Pendentes:1']));
    fireEvent.click(screen.getByTestId('moments-ticket-1'));
    expect(window.location.pathname).toBe('/tickets/uuid-1');
  });

  test('live: an accepted ticket leaves Pendentes for its user\'s card at once; a closed one leaves the panel', async () => {
    signIn({ queues: [VENDAS] });
    const state = { tickets: [ticket(1), ticket(4, { status: 'pending', userId: null, user: null })] };
    api(state);
    renderKanban(<MomentsPage />, { route: '/moments' });
    await screen.findByTestId('moments-card-pending');
    expect(cardTitles()).toEqual(['Ana:1', 'Pendentes:1']);
    const accepted = ticket(4, { status: 'open', userId: 8, user: { id: 8, name: 'Bruno' } });
    state.tickets = [state.tickets[0], accepted];
    act(() => mockSocket.push('company-3-ticket', { action: 'update', ticket: accepted, ticketId: 4 }));
    // placed from the event itself, well before the reload that follows a burst (1 s later)
    const soon = { timeout: 400 };
    await waitFor(() => expect(cardTitles()).toEqual(['Ana:1', 'Bruno:1', 'Pendentes:0']), soon);
    expect(within(screen.getByTestId('moments-card-pending')).getByText('Nenhum ticket')).toBeTruthy();
    const closed = { ...state.tickets[0], status: 'closed' };
    state.tickets = [accepted];
    act(() => mockSocket.push('company-3-ticket', { action: 'update', ticket: closed }));
    await waitFor(() => expect(cardTitles()).toEqual(['Bruno:1', 'Pendentes:0']), soon);
    act(() => mockSocket.push('company-3-ticket', { action: 'delete', ticketId: 4 }));
    await waitFor(() => expect(cardTitles()).toEqual(['Pendentes:0']), soon);
    // the reload after the burst agrees with the server
    await waitFor(() => expect(cardTitles()).toEqual(['Bruno:1', 'Pendentes:0']), { timeout: 3000 });
  });

  test('an admin without queues sees every queue; empty and failed states', async () => {
    signIn({ queues: [] });
    const state: { tickets: BoardTicket[]; status?: number } = { tickets: [], status: 403 };
    api(state);
    renderKanban(<MomentsPage />, { route: '/moments', language: 'es' });
    expect((await screen.findByTestId('moments-failed')).textContent).toContain(String(await import('i18next').then((m) => m.default.t('backendErrors.ERR_NO_PERMISSION'))));
    state.status = undefined;
    fireEvent.click(screen.getByRole('button', { name: 'Reintentar' }));
    expect((await screen.findByTestId('moments-empty')).textContent).toContain('No hay atenciones en curso');
    await waitFor(() => expect(within(screen.getByTestId('moments-queues')).getAllByRole('button').map((b) => `${b.textContent}:${b.getAttribute('aria-pressed')}`)).toEqual(['Vendas:true', 'Suporte:true', 'Sin cola:true']));
  });

  test('building blocks: panelCards and applyTicketEvent', () => {
    const list = [ticket(1), ticket(2, { status: 'pending' }), ticket(3, { queueId: 2 })];
    expect(panelCards(list, [1], 'P', '?').map((c) => `${c.title}:${c.tickets.map((t) => t.id).join(',')}`)).toEqual(['Ana:1', 'P:2']);
    expect(applyTicketEvent(list, { action: 'update', ticket: ticket(2, { status: 'open' }) }, [1]).map((t) => `${t.id}${t.status}`)).toEqual(['2open', '1open', '3open']);
    expect(applyTicketEvent(list, { action: 'update', ticket: ticket(2, { queueId: 2 }) }, [1]).map((t) => t.id)).toEqual([1, 3]);
    expect(applyTicketEvent(list, { action: 'updateUnread', ticketId: 1 }, [1])).toBe(list);
  });
});
