/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session, writeToken } from '@atendo/web-api';
import { TagsPage } from '../src/pages/tags/TagsPage';
import { answer, API, mockFetch, renderAdmin, type FetchCall } from './helpers';
import { sessionUser } from '../../../shell/test/helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const COMPANY = 3;
const VIP = { id: 1, name: 'VIP', color: '#e53935', kanban: 0, contactsCount: 4, ticketsCount: 2 };
const NOVO = { id: 2, name: 'Novo lead', color: '#1e88e5', kanban: 1, contactsCount: 0, ticketsCount: 7 };

function api(write?: (call: FetchCall, url: URL) => ReturnType<typeof answer> | undefined) {
  return mockFetch((call) => {
    const url = new URL(call.url);
    if (call.method === 'GET' && url.pathname === '/tags/') {
      const kanban = url.searchParams.get('kanban') === '1';
      const tags = kanban ? [NOVO] : [VIP];
      return answer(200, { tags, count: tags.length, hasMore: false });
    }
    return write?.(call, url) ?? answer(404, { error: 'ERR_NOT_FOUND' });
  });
}
const names = () => within(screen.getByTestId('tags-rows')).queryAllByRole('row').map((r) => r.querySelector('td')?.textContent);

function renderPage(kanban: boolean, profile = 'admin') {
  writeToken('jwt');
  act(() => session.signIn(sessionUser({ id: 1, companyId: COMPANY, profile }) as never));
  return renderAdmin(<TagsPage kanban={kanban} />, { route: kanban ? '/tagsKanban' : '/tags' });
}

afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
});

describe('tags', () => {
  test('normal tags with contacts and tickets counts; a new tag needs 3 characters; live events; users cannot edit', async () => {
    const calls = api((call, url) => (call.method === 'POST' && url.pathname === '/tags' ? answer(200, { id: 5, name: 'Atacado', color: '#43a047', kanban: 0 }) : undefined));
    renderPage(false);
    await waitFor(() => expect(names()).toEqual(['VIP']));
    expect(calls[0].url).toBe(`${API}/tags/?pageNumber=1&kanban=0`);
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Nome', 'Contatos', 'Atendimentos', 'Ações']);
    expect(within(screen.getByTestId('tag-row-1')).getByText('4')).toBeTruthy();
    fireEvent.click(screen.getByTestId('tag-add'));
    const d = within(screen.getByRole('dialog', { name: 'Adicionar tag' }));
    fireEvent.change(d.getByTestId('tag-name'), { target: { value: 'At' } });
    fireEvent.click(d.getByTestId('tag-submit'));
    await waitFor(() => expect(d.getByRole('alert').textContent).toBe('Mensagem muito curta'));
    fireEvent.change(d.getByTestId('tag-name'), { target: { value: 'Atacado' } });
    fireEvent.click(d.getByRole('button', { name: '#43a047' }));
    fireEvent.click(d.getByTestId('tag-submit'));
    await screen.findByText('Tag salva com sucesso.');
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ name: 'Atacado', color: '#43a047', kanban: 0 });
    await waitFor(() => expect(names()).toEqual(['Atacado', 'VIP']));
    // A kanban tag created elsewhere does not enter the normal list; a delete does leave it.
    act(() => mockSocket.push(`company-${COMPANY}-tag`, { action: 'create', tag: { id: 9, name: 'Lane', color: '#000', kanban: 1 } }));
    act(() => mockSocket.push(`company-${COMPANY}-tag`, { action: 'delete', tagId: 1 }));
    await waitFor(() => expect(names()).toEqual(['Atacado']));
  });

  test('kanban tags: their own list (kanban=1) and dialog, tickets count only', async () => {
    const calls = api();
    renderPage(true);
    await waitFor(() => expect(names()).toEqual(['Novo lead']));
    expect(calls[0].url).toBe(`${API}/tags/?pageNumber=1&kanban=1`);
    expect(screen.getByRole('heading', { name: 'Tags do Kanban' })).toBeTruthy();
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Nome', 'Atendimentos', 'Ações']);
    fireEvent.click(screen.getByTestId('tag-add'));
    expect(screen.getByRole('dialog', { name: 'Adicionar tag do Kanban' })).toBeTruthy();
  });

  test('attendants list and add but do not edit or delete', async () => {
    api();
    renderPage(false, 'user');
    await waitFor(() => expect(names()).toEqual(['VIP']));
    expect(within(screen.getByTestId('tag-row-1')).queryByRole('button')).toBeNull();
    expect(screen.getByTestId('tag-add')).toBeTruthy();
  });
});
