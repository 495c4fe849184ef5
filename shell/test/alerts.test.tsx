/** @jest-environment jsdom */
import './jsdom-polyfills';
import { createFakeSocket } from './fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { session, writeToken } from '@atendo/web-api';
import { AdminAlerts, type AdminAlert } from '../src/layout/AdminAlerts';
import { answer, API, mockFetch, renderShell, sessionUser } from './helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const COMPANY = 4;
const alert = (over: Partial<AdminAlert> & { id: number }): AdminAlert => ({
  kind: 'connection.dropped',
  title: `Conexão "Loja" caiu`,
  body: 'A conexão "Loja" caiu às 20/11/2026 10:00 (livenessProbe) e ainda não voltou.',
  link: '/connections',
  readAt: null,
  createdAt: '2026-11-20T13:00:00.000Z',
  ...over,
});

function setup(list: () => { records: AdminAlert[]; unread: number } | null) {
  const calls = mockFetch((c) => {
    if (c.url === `${API}/notifications` && c.method === 'GET') {
      const l = list();
      return l ? answer(200, { ...l, count: l.records.length, hasMore: false }) : answer(404, { error: 'ERR_NOT_FOUND', message: 'Not found' });
    }
    if (c.method === 'PUT') return answer(200, c.url.endsWith('read-all') ? { updated: 1 } : alert({ id: 1, readAt: '2026-11-20T14:00:00.000Z' }));
    return answer(404, { error: 'ERR_NOT_FOUND' });
  });
  writeToken('jwt');
  act(() => session.signIn(sessionUser({ id: 7, companyId: COMPANY, profile: 'admin' }) as never));
  renderShell(
    <Routes>
      <Route path="/" element={<AdminAlerts companyId={COMPANY} />} />
      <Route path="/connections" element={<div data-testid="connections-page">connections</div>} />
    </Routes>,
  );
  return calls;
}

afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
});

describe("admins' alerts in the top bar", () => {
  test('the badge counts the unread; the list shows each alert; opening one marks it read and goes to its page', async () => {
    const calls = setup(() => ({ records: [alert({ id: 1 }), alert({ id: 2, kind: 'connection.needs-qr', title: 'Conexão "Vendas" precisa de um novo QR code', readAt: '2026-11-20T12:00:00.000Z' })], unread: 1 }));
    const button = await screen.findByTestId('alerts-button');
    await waitFor(() => expect(screen.getByTestId('alerts-badge').textContent).toBe('1'));
    expect(button.getAttribute('aria-label')).toBe('Alertas: 1 não lidos');
    fireEvent.click(button);
    const dialog = screen.getByRole('dialog', { name: 'Alertas' });
    expect(within(dialog).getAllByRole('heading').map((h) => h.textContent)).toEqual(['Conexão "Loja" caiu', 'Conexão "Vendas" precisa de um novo QR code']);
    expect(within(dialog).getByTestId('alert-1').getAttribute('data-unread')).toBe('true');
    expect(within(dialog).getByTestId('alert-2').getAttribute('data-unread')).toBe('false');
    fireEvent.click(within(within(dialog).getByTestId('alert-1')).getByRole('button'));
    await screen.findByTestId('connections-page');
    expect(calls.filter((c) => c.method === 'PUT').map((c) => c.url)).toEqual([`${API}/notifications/1/read`]);
  });

  test('a pushed alert is fetched at once; "mark all as read" clears the badge', async () => {
    let state = { records: [] as AdminAlert[], unread: 0 };
    const calls = setup(() => state);
    await screen.findByTestId('alerts-button');
    expect(screen.queryByTestId('alerts-badge')).toBeNull();
    fireEvent.click(screen.getByTestId('alerts-button'));
    expect(await screen.findByTestId('alerts-empty')).toBeTruthy();
    state = { records: [alert({ id: 3 })], unread: 1 };
    act(() => mockSocket.push(`company-${COMPANY}-notification`, { action: 'create', record: alert({ id: 3 }) }));
    await waitFor(() => expect(screen.getByTestId('alerts-badge').textContent).toBe('1'));
    state = { records: [alert({ id: 3, readAt: '2026-11-20T14:00:00.000Z' })], unread: 0 };
    fireEvent.click(await screen.findByTestId('alerts-read-all'));
    await waitFor(() => expect(screen.queryByTestId('alerts-badge')).toBeNull());
    expect(calls.filter((c) => c.method === 'PUT').map((c) => c.url)).toEqual([`${API}/notifications/read-all`]);
  });

  test('nothing is shown without the notifications plugin (the list does not load)', async () => {
    const calls = setup(() => null);
    await waitFor(() => expect(calls.some((c) => c.url === `${API}/notifications`)).toBe(true));
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByTestId('alerts-button')).toBeNull();
  });
});
