/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session } from '@atendo/web-api';
import { TicketsManager } from '../src/manager/TicketsManager';
import { queuesFilterKey, SHOW_ALL_KEY } from '../src/manager/TicketsManager';
import type { Viewer } from '../src/lib/viewer';
import { ADMIN, answer, ATTENDANT, mockFetch, renderInbox, signInAs, ticket, type FetchCall } from './helpers';

const COUNTS = { open: 2, pending: 5, group: 1 };

/** The API of these tests: GET /tickets answers per status; lists of tags, connections, users. */
function api(over: { counts?: typeof COUNTS; empty?: boolean } = {}) {
  return mockFetch((call: FetchCall) => {
    const url = new URL(call.url);
    if (url.pathname === '/tickets' && call.method === 'GET') {
      const status = url.searchParams.get('status') ?? '';
      const tickets = over.empty
        ? []
        : status === 'pending'
          ? [ticket({ id: 21, status: 'pending', userId: null, user: null, contact: { id: 1, name: 'Pedro Pendente', number: '55' } })]
          : status === 'closed'
            ? [ticket({ id: 31, status: 'closed', userRating: 4, contact: { id: 2, name: 'Clara Fechada', number: '55' } })]
            : status === 'search'
              ? [ticket({ id: 41, status: 'open', contact: { id: 3, name: 'Sara Busca', number: '55' } })]
              : [ticket({ id: 11, status: 'open', contact: { id: 4, name: 'Otávio Aberto', number: '55' } })];
      return answer(200, { tickets, count: tickets.length, hasMore: false, counts: over.counts ?? COUNTS });
    }
    if (url.pathname === '/tags/list') return answer(200, [{ id: 3, name: 'VIP', color: '#FF0000' }]);
    if (url.pathname === '/whatsapp') return answer(200, [{ id: 5, name: 'Loja Centro', channel: 'whatsapp', status: 'CONNECTED' }]);
    if (url.pathname === '/users/list') return answer(200, [{ id: 7, name: 'Ana', queues: [] }]);
    if (url.pathname === '/tickets/closeAll') return answer(200, { closed: 3 });
    return answer(404, { error: 'ERR_NOT_FOUND' });
  });
}

const ticketCalls = (calls: FetchCall[]) => calls.filter((c) => new URL(c.url).pathname === '/tickets').map((c) => Object.fromEntries(new URL(c.url).searchParams));

function renderManager(viewer: Viewer) {
  signInAs({ id: viewer.id, profile: viewer.admin ? 'admin' : 'user', allTicket: viewer.allTicket ? 'enable' : 'disable', queues: viewer.queueIds.map((id) => ({ id, name: `Q${id}`, color: '#000000' })) });
  return renderInbox(<TicketsManager viewer={viewer} openUuid={null} />);
}

beforeEach(() => {
  window.localStorage.clear();
  act(() => session.signOut());
});

describe('TicketsManager tabs and badges', () => {
  test('the open tab lists the viewer’s open tickets; sub-tab badges show the counts from one request', async () => {
    const calls = api();
    renderManager(ATTENDANT);
    await screen.findByText('Otávio Aberto');
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['Abertas', 'Resolvidos', 'Busca', 'Atendendo2', 'Aguardando5', 'Grupos1']);
    expect(screen.getByTestId('count-open').textContent).toBe('2');
    expect(screen.getByTestId('count-pending').textContent).toBe('5');
    expect(screen.getByTestId('count-group').textContent).toBe('1');
    expect(screen.getByTestId('count-pending').getAttribute('aria-label')).toBe('5 tickets');
    expect(screen.getByTestId('tab-open').getAttribute('aria-selected')).toBe('true');
    expect(screen.getByTestId('subtab-open').getAttribute('aria-selected')).toBe('true');
    expect(ticketCalls(calls)).toEqual([{ status: 'open', pageNumber: '1', showAll: 'false' }]);
  });

  test('filters on every tab: departments (remembered per user, "no queue" = 0), unread only, period; sent as GET /tickets parameters', async () => {
    const calls = api();
    const { unmount } = renderManager(ATTENDANT);
    await screen.findByText('Otávio Aberto');
    fireEvent.click(screen.getByTestId('filter-queues'));
    const menu = await screen.findByRole('dialog', { name: 'Filas' });
    expect(within(menu).getAllByRole('checkbox').map((c) => c.parentElement?.textContent)).toEqual(['Q10', 'Sem fila']);
    fireEvent.click(within(menu).getAllByRole('checkbox')[0]);
    await waitFor(() => expect(ticketCalls(calls).at(-1)).toMatchObject({ status: 'open', queueIds: '[10]' }));
    expect(window.localStorage.getItem(queuesFilterKey(ATTENDANT.id))).toBe('[10]');
    fireEvent.click(screen.getByTestId('filter-unread'));
    await waitFor(() => expect(ticketCalls(calls).at(-1)).toMatchObject({ queueIds: '[10]', withUnreadMessages: 'true' }));
    fireEvent.click(screen.getByTestId('filter-period'));
    fireEvent.change(await screen.findByTestId('filter-date-from'), { target: { value: '2026-11-01' } });
    fireEvent.change(screen.getByTestId('filter-date-to'), { target: { value: '2026-11-15' } });
    await waitFor(() => expect(ticketCalls(calls).at(-1)).toMatchObject({ dateStart: '2026-11-01', dateEnd: '2026-11-15' }));
    // Another tab keeps the filters; the badges are read with them.
    fireEvent.click(screen.getByTestId('tab-closed'));
    await waitFor(() => expect(ticketCalls(calls).at(-1)).toMatchObject({ status: 'closed', queueIds: '[10]', withUnreadMessages: 'true', dateStart: '2026-11-01', dateEnd: '2026-11-15' }));
    // The departments are remembered for this user (not the other filters).
    unmount();
    const again = api();
    renderManager(ATTENDANT);
    await screen.findByText('Otávio Aberto');
    expect(ticketCalls(again)[0]).toEqual({ status: 'open', pageNumber: '1', showAll: 'false', queueIds: '[10]' });
  });

  test('the pending sub-tab lists pending tickets (not clickable rows with accept/ignore/transfer)', async () => {
    const calls = api();
    renderManager(ATTENDANT);
    await screen.findByText('Otávio Aberto');
    fireEvent.click(screen.getByTestId('subtab-pending'));
    const row = (await screen.findByText('Pedro Pendente')).closest('[data-testid="ticket-row"]') as HTMLElement;
    expect(row.getAttribute('data-status')).toBe('pending');
    expect(within(row).getAllByRole('button').map((b) => b.textContent)).toEqual(['Aceitar', 'Ignorar', 'Transferir']);
    expect(screen.getByTestId('subtab-pending').getAttribute('aria-selected')).toBe('true');
    expect(ticketCalls(calls).map((q) => q.status)).toEqual(['open', 'pending']);
  });

  test('the closed tab', async () => {
    const calls = api();
    renderManager(ATTENDANT);
    await screen.findByText('Otávio Aberto');
    fireEvent.click(screen.getByTestId('tab-closed'));
    await screen.findByText('Clara Fechada');
    expect(screen.queryByTestId('subtab-open')).toBeNull();
    expect(screen.getByTestId('ticket-rating').textContent).toBe('🙂');
    expect(ticketCalls(calls).at(-1)).toEqual({ status: 'closed', pageNumber: '1', showAll: 'false' });
  });

  test('an empty list shows a title and a message', async () => {
    api({ empty: true, counts: { open: 0, pending: 0, group: 0 } });
    renderManager(ATTENDANT);
    const empty = await screen.findByTestId('tickets-empty');
    expect(empty.textContent).toBe('Nada aqui!Nenhum atendimento encontrado com esse status ou termo pesquisado');
    expect(screen.getByTestId('count-open').textContent).toBe('0');
  });

  test('no show-all toggle for an attendant', async () => {
    api();
    renderManager(ATTENDANT);
    await screen.findByText('Otávio Aberto');
    expect(screen.queryByTestId('show-all')).toBeNull();
  });

  test('show-all for an allTicket user and for admins: the open tab lists everyone’s tickets, badges re-read', async () => {
    const calls = api();
    renderManager({ ...ATTENDANT, allTicket: true });
    await screen.findByText('Otávio Aberto');
    const toggle = screen.getByTestId('show-all') as HTMLInputElement;
    expect(toggle.checked).toBe(false);
    fireEvent.click(toggle);
    await waitFor(() => expect(ticketCalls(calls).filter((q) => q.showAll === 'true').length).toBeGreaterThanOrEqual(1));
    expect(ticketCalls(calls).filter((q) => q.showAll === 'true').every((q) => q.status === 'open')).toBe(true);
    expect(window.localStorage.getItem(SHOW_ALL_KEY)).toBe('true');
  });

  test('search tab: a hint until input, then a 500 ms debounced search with the filters', async () => {
    const calls = api();
    renderManager(ADMIN);
    await screen.findByText('Otávio Aberto');
    fireEvent.click(screen.getByTestId('tab-search'));
    expect(screen.getByTestId('search-hint').textContent).toBe('Digite um termo ou escolha um filtro para buscar.');
    expect(screen.getByTestId('filter-users')).toBeTruthy();
    const before = ticketCalls(calls).filter((q) => q.status === 'search').length;
    fireEvent.change(screen.getByTestId('search-input'), { target: { value: 'sar' } });
    fireEvent.change(screen.getByTestId('search-input'), { target: { value: 'sara' } });
    await new Promise((r) => setTimeout(r, 200));
    expect(ticketCalls(calls).filter((q) => q.status === 'search').length).toBe(before);
    await screen.findByText('Sara Busca', undefined, { timeout: 2000 });
    expect(ticketCalls(calls).filter((q) => q.status === 'search')).toEqual([{ status: 'search', pageNumber: '1', showAll: 'false', searchParam: 'sara' }]);

    // Status filter: statusFilter travels as a JSON array.
    fireEvent.click(screen.getByTestId('filter-status'));
    fireEvent.click(await screen.findByLabelText('Pendente'));
    await waitFor(() => expect(ticketCalls(calls).at(-1)).toEqual({ status: 'search', pageNumber: '1', showAll: 'false', searchParam: 'sara', statusFilter: '["pending"]' }));
    // Tags (GET /tags/list) and users (admins) too.
    fireEvent.click(screen.getByTestId('filter-tags'));
    fireEvent.click(await screen.findByLabelText('VIP'));
    await waitFor(() => expect(ticketCalls(calls).at(-1)?.tags).toBe('[3]'));
    fireEvent.click(screen.getByTestId('filter-users'));
    fireEvent.click(await screen.findByLabelText('Ana'));
    await waitFor(() => expect(ticketCalls(calls).at(-1)?.users).toBe('[7]'));
    fireEvent.click(screen.getByTestId('filter-connections'));
    fireEvent.click(await screen.findByLabelText('Loja Centro'));
    await waitFor(() => expect(ticketCalls(calls).at(-1)?.whatsapps).toBe('[5]'));
  });

  test('attendants have no users filter', async () => {
    api();
    renderManager(ATTENDANT);
    await screen.findByText('Otávio Aberto');
    fireEvent.click(screen.getByTestId('tab-search'));
    expect(screen.getByTestId('filter-tags')).toBeTruthy();
    expect(screen.getByTestId('filter-connections')).toBeTruthy();
    expect(screen.getByTestId('filter-status')).toBeTruthy();
    expect(screen.queryByTestId('filter-users')).toBeNull();
  });

  test('speed-dial: new ticket for everyone, close all for admins only', async () => {
    api();
    renderManager(ATTENDANT);
    await screen.findByText('Otávio Aberto');
    fireEvent.click(screen.getByTestId('speed-dial'));
    expect(screen.getByTestId('speed-dial-new')).toBeTruthy();
    expect(screen.queryByTestId('speed-dial-close-all')).toBeNull();
  });

  test('close all asks for confirmation, then POST /tickets/closeAll', async () => {
    const calls = api();
    renderManager(ADMIN);
    await screen.findByText('Otávio Aberto');
    fireEvent.click(screen.getByTestId('speed-dial'));
    fireEvent.click(screen.getByTestId('speed-dial-close-all'));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('Fechar todos os tickets')).toBeTruthy();
    expect(calls.some((c) => c.url.endsWith('/tickets/closeAll'))).toBe(false);
    await act(async () => {
      fireEvent.click(within(dialog).getByTestId('confirm-button'));
    });
    await waitFor(() => expect(calls.filter((c) => c.url.endsWith('/tickets/closeAll')).map((c) => [c.method, c.body])).toEqual([['POST', {}]]));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  test('a failed list load is toasted (translated code) and offers a retry', async () => {
    mockFetch(() => answer(400, { error: 'ERR_VALIDATION', message: 'querystring/status must be ...' }));
    renderManager(ATTENDANT);
    await screen.findByText('Não foi possível carregar a lista de registros');
    await screen.findByText('Os dados enviados são inválidos.');
    expect(screen.getByRole('button', { name: 'Tentar novamente' })).toBeTruthy();
  });

  test('an untranslated error shows its raw text', async () => {
    mockFetch(() => answer(400, { error: 'ERR_SOMETHING_NEW', message: 'Algo novo deu errado' }));
    renderManager(ATTENDANT);
    await screen.findByText('Algo novo deu errado');
  });
});
