/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session, writeToken } from '@atendo/web-api';
import { DeliveriesPage } from '../src/pages/deliveries/DeliveriesPage';
import type { DeadLetter, FailedSend } from '../src/pages/deliveries/api';
import { answer, API, mockFetch, renderAdmin, type FetchCall } from './helpers';
import { sessionUser } from '../../../shell/test/helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const COMPANY = 3;
const failed = (id: number, over: Partial<FailedSend> = {}): FailedSend => ({
  id, ticketId: 70 + id, contactId: 9, contactName: `Cliente ${id}`, channel: 'whatsappapi', body: `mensagem ${id}`, mediaType: 'conversation',
  sendError: 'ERR_SENDING_WAPP_MSG', sendErrorDetail: `Message undeliverable (${131000 + id})`, createdAt: '2026-12-07T10:00:00.000Z', ...over,
});
const dead = (n: number, over: Partial<DeadLetter> = {}): DeadLetter => ({
  id: `bus:${n}`, kind: 'bus', queue: 'automation.turns', topic: 'message.stored', messageId: `m-${n}`, companyId: COMPANY, error: `boom ${n}`,
  attempt: 4, deadAt: '2026-12-07T11:00:00.000Z', redriving: false, payload: {}, ...over,
});

/** The API as the screen uses it: failed sends in pages of `failedPages`, dead letters in `deadPages`; writes recorded. */
function api(failedPages: FailedSend[][], deadPages: DeadLetter[][], writes: { resent?: number; redriven?: number; skippedOptedOut?: number } = {}): FetchCall[] {
  return mockFetch((call) => {
    const url = new URL(call.url);
    const page = Number(url.searchParams.get('pageNumber') ?? 1);
    if (call.method === 'GET' && url.pathname === '/messages/failed') {
      const records = failedPages[page - 1] ?? [];
      return answer(200, { records, count: failedPages.flat().length, hasMore: page < failedPages.length });
    }
    if (call.method === 'GET' && url.pathname === '/dead-letters') {
      const records = deadPages[page - 1] ?? [];
      return answer(200, { records, count: deadPages.flat().length, hasMore: page < deadPages.length });
    }
    if (call.method === 'POST' && /^\/messages\/\d+\/resend$/.test(url.pathname)) return answer(200, { id: Number(url.pathname.split('/')[2]) });
    if (call.method === 'POST' && url.pathname === '/messages/failed/resend') return answer(200, { resent: writes.resent ?? 0, skippedOptedOut: writes.skippedOptedOut ?? 0 });
    if (call.method === 'POST' && url.pathname === '/dead-letters/redrive') return answer(200, { redriven: writes.redriven ?? 0 });
    return answer(404, { error: 'ERR_NOT_FOUND' });
  });
}

function renderPage(o: { superUser?: boolean; language?: 'pt-BR' | 'en' } = {}) {
  writeToken('jwt');
  act(() => session.signIn(sessionUser({ id: 1, companyId: COMPANY, profile: 'admin', super: Boolean(o.superUser) }) as never));
  return renderAdmin(<DeliveriesPage />, { route: '/deliveries', language: o.language ?? 'pt-BR' });
}
const cells = (testId: string) => screen.queryAllByTestId(testId).map((r) => Array.from(r.querySelectorAll('td')).map((c) => c.textContent));
const posts = (calls: FetchCall[]) => calls.filter((c) => c.method === 'POST').map((c) => [new URL(c.url).pathname, c.body]);

afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
});

test('failed sends: contact, channel, message and reason; resend one; pages', async () => {
  const page1 = Array.from({ length: 20 }, (_, i) => failed(i + 1));
  const calls = api([page1, [failed(21)]], []);
  renderPage();
  await waitFor(() => expect(screen.getAllByTestId('failed-row')).toHaveLength(20));
  expect(screen.getByTestId('deliveries-count').textContent).toBe('21 registro(s)');
  const [first] = cells('failed-row');
  expect(first.slice(1, 5)).toEqual(['Cliente 1Atendimento #71', 'whatsappapi', 'mensagem 1', 'Message undeliverable (131001)ERR_SENDING_WAPP_MSG']);

  fireEvent.click(within(screen.getAllByTestId('failed-row')[1]).getByTestId('resend-one'));
  await waitFor(() => expect(posts(calls)).toEqual([['/messages/2/resend', {}]]));
  await screen.findByText('1 mensagem(ns) reenviada(s).');
  // The list is read again after the action.
  await waitFor(() => expect(calls.filter((c) => c.method === 'GET' && c.url.includes('/messages/failed')).length).toBeGreaterThanOrEqual(2));

  fireEvent.click(screen.getByTestId('page-next'));
  await waitFor(() => expect(cells('failed-row').map((r) => r[3])).toEqual(['mensagem 21']));
  expect(screen.getByTestId('page-number').textContent).toBe('Página 2');
  expect(calls.some((c) => c.url === `${API}/messages/failed?pageNumber=2`)).toBe(true);
});

test('resend all asks first, then posts without ids and says how many', async () => {
  const calls = api([[failed(1), failed(2)]], [], { resent: 2 });
  renderPage();
  await waitFor(() => expect(screen.getAllByTestId('failed-row')).toHaveLength(2));
  fireEvent.click(screen.getByTestId('resend-all'));
  expect(await screen.findByText('Reenviar todos os envios com falha?')).toBeTruthy();
  fireEvent.click(screen.getByTestId('confirm-button'));
  await waitFor(() => expect(posts(calls)).toEqual([['/messages/failed/resend', {}]]));
  await screen.findByText('2 mensagem(ns) reenviada(s).');
});

test('issue 34: resend all says how many were left out because the contact opted out', async () => {
  api([[failed(1), failed(2), failed(3)]], [], { resent: 1, skippedOptedOut: 2 });
  renderPage();
  await waitFor(() => expect(screen.getAllByTestId('failed-row')).toHaveLength(3));
  fireEvent.click(screen.getByTestId('resend-all'));
  fireEvent.click(await screen.findByTestId('confirm-button'));
  await screen.findByText('1 mensagem(ns) reenviada(s).');
  await screen.findByText('2 não reenviada(s): o contato pediu para não receber mensagens em massa.');
});

test('dead letters: topic, queue, error, date; redrive one and all; an empty list; no company column for a company admin', async () => {
  const calls = api([[]], [[dead(5), dead(6, { id: 'outbox:6', kind: 'outbox', queue: null, redriving: true })]], { redriven: 1 });
  renderPage();
  expect(await screen.findByText('Nenhum envio com falha.')).toBeTruthy();
  fireEvent.click(screen.getByTestId('tab-dead'));
  await waitFor(() => expect(screen.getAllByTestId('dead-row')).toHaveLength(2));
  expect(screen.queryByTestId('dead-company')).toBeNull();
  expect(cells('dead-row').map((r) => r.slice(1, 5))).toEqual([
    ['message.stored', 'automation.turns', 'boom 5', '4'],
    ['message.stored', '—', 'boom 6', '4'],
  ]);
  // One already marked for redrive shows so instead of the button.
  expect(within(screen.getAllByTestId('dead-row')[1]).getByTestId('redriving').textContent).toBe('Na fila para reprocessar');
  fireEvent.click(within(screen.getAllByTestId('dead-row')[0]).getByTestId('redrive-one'));
  await waitFor(() => expect(posts(calls)).toEqual([['/dead-letters/redrive', { ids: ['bus:5'] }]]));
  await screen.findByText('1 evento(s) reprocessado(s).');
  fireEvent.click(screen.getByTestId('redrive-all'));
  fireEvent.click(await screen.findByTestId('confirm-button'));
  await waitFor(() => expect(posts(calls)).toEqual([['/dead-letters/redrive', { ids: ['bus:5'] }], ['/dead-letters/redrive', {}]]));
});

test('the super admin sees each dead letter\'s company; texts in English', async () => {
  api([[]], [[dead(7, { companyId: 12 })]]);
  renderPage({ superUser: true, language: 'en' });
  fireEvent.click(await screen.findByRole('tab', { name: 'Dead letters' }));
  await waitFor(() => expect(screen.getByTestId('dead-company').textContent).toBe('12'));
  expect(screen.getByRole('button', { name: 'Redrive' })).toBeTruthy();
});
