/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session, writeToken } from '@atendo/web-api';
import { PlantaoPage } from '../src/pages/plantao/PlantaoPage';
import { maskTime, plantaoErrors, emptyDays } from '../src/pages/plantao/api';
import { answer, mockFetch, renderAdmin, type FetchCall } from './helpers';
import { sessionUser } from '../../../shell/test/helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const COMPANY = 3;
const WEEK = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const PT = ['Segunda-feira', 'Terça-feira', 'Quarta-feira', 'Quinta-feira', 'Sexta-feira', 'Sábado', 'Domingo'];
const days = (on: Record<string, [string, string]>) => WEEK.map((w, i) => ({ weekday: PT[i], weekdayEn: w, startTime: on[w]?.[0] ?? null, endTime: on[w]?.[1] ?? null }));
const entry = (id: number, name: string, over: Record<string, unknown> = {}) => ({
  id, companyId: COMPANY, userId: id + 10, user: { id: id + 10, name }, phone: '5511999990000', interval: 1,
  days: days({ monday: ['08:00', '18:00'] }), lastNotifiedAt: null, createdAt: '2026-11-20T10:00:00.000Z', updatedAt: '2026-11-20T10:00:00.000Z', ...over,
});

function api(list: unknown[], write?: (call: FetchCall, url: URL) => ReturnType<typeof answer> | undefined) {
  return mockFetch((call) => {
    const url = new URL(call.url);
    if (call.method === 'GET') {
      if (url.pathname === '/plantao') return answer(200, list);
      if (url.pathname === '/users/list') return answer(200, [{ id: 11, name: 'Ana' }, { id: 12, name: 'Bruno' }]);
      return answer(404, { error: 'ERR_NOT_FOUND' });
    }
    return write?.(call, url) ?? answer(404, { error: 'ERR_NOT_FOUND' });
  });
}

function renderPage(language: 'pt-BR' | 'en' = 'pt-BR') {
  writeToken('jwt');
  act(() => session.signIn(sessionUser({ id: 1, companyId: COMPANY, profile: 'admin' }) as never));
  return renderAdmin(<PlantaoPage />, { route: '/plantao', language });
}
const rows = () => within(screen.getByTestId('plantao-rows')).queryAllByRole('row').map((r) => Array.from(r.querySelectorAll('td')).slice(0, 4).map((c) => c.textContent));

afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
});

test('helpers: HH:MM mask and the spec checks', () => {
  expect(maskTime('0930')).toBe('09:30');
  expect(maskTime('9a')).toBe('9');
  expect(maskTime('12:345')).toBe('12:34');
  const base = { userId: '11', phone: '11 99999-0000', interval: '1', days: emptyDays() };
  expect(plantaoErrors(base).map((e) => e.key)).toEqual(['plantao.errors.oneDay']);
  expect(plantaoErrors({ ...base, userId: '', phone: '', interval: '' }).map((e) => e.key)).toEqual(['plantao.errors.user', 'plantao.errors.phone', 'plantao.errors.interval', 'plantao.errors.oneDay']);
});

test('lists id, person, phone and hours; live create and delete; empty state', async () => {
  api([entry(1, 'Ana')]);
  renderPage();
  await waitFor(() => expect(rows()).toEqual([['1', 'Ana', '5511999990000', 'Segunda-feira 08:00–18:00']]));
  act(() => mockSocket.push(`company-${COMPANY}-plantao`, { action: 'create', record: entry(2, 'Bruno', { days: days({ saturday: ['22:00', '06:00'] }) }) }));
  await waitFor(() => expect(rows()).toHaveLength(2));
  expect(rows()[1]).toEqual(['2', 'Bruno', '5511999990000', 'Sábado 22:00–06:00']);
  act(() => mockSocket.push(`company-${COMPANY}-plantao`, { action: 'delete', id: 1 }));
  act(() => mockSocket.push(`company-${COMPANY}-plantao`, { action: 'delete', id: 2 }));
  await waitFor(() => expect(screen.getByText('Nenhum plantonista cadastrado.')).toBeTruthy());
});

test('add: the spec messages, the weekday grid with HH:MM masks, then the POST body', async () => {
  const calls = api([], (call, url) => {
    if (call.method === 'POST' && url.pathname === '/plantao') return answer(200, entry(5, 'Ana', { ...(call.body as object) }));
    return undefined;
  });
  renderPage();
  await waitFor(() => expect(screen.getByText('Nenhum plantonista cadastrado.')).toBeTruthy());
  fireEvent.click(screen.getByTestId('plantao-add'));
  const d = within(screen.getByRole('dialog', { name: 'Adicionar plantonista' }));
  fireEvent.change(d.getByTestId('plantao-interval'), { target: { value: '' } });
  fireEvent.click(d.getByTestId('plantao-save'));
  await waitFor(() => expect(d.getAllByRole('alert').map((a) => a.textContent)).toEqual([
    'Informe o usuário', 'Informe o telefone', 'Informe o intervalo entre notificações', 'Pelo menos um dia da semana deve ter o horário de início e fim preenchido',
  ]));
  await waitFor(() => expect(d.getAllByRole('option').length).toBe(3));
  fireEvent.change(d.getByTestId('plantao-user'), { target: { value: '11' } });
  fireEvent.change(d.getByTestId('plantao-phone'), { target: { value: '+55 11 98888-0001' } });
  fireEvent.change(d.getByTestId('plantao-interval'), { target: { value: '5' } });
  fireEvent.change(d.getByTestId('plantao-start-monday'), { target: { value: '0800' } });
  expect((d.getByTestId('plantao-start-monday') as HTMLInputElement).value).toBe('08:00');
  await waitFor(() => expect(d.getAllByRole('alert').map((a) => a.textContent)).toEqual(['Informe o fim do plantão', 'Pelo menos um dia da semana deve ter o horário de início e fim preenchido']));
  fireEvent.change(d.getByTestId('plantao-end-monday'), { target: { value: '1800' } });
  await waitFor(() => expect(d.queryAllByRole('alert')).toEqual([]));
  fireEvent.click(d.getByTestId('plantao-save'));
  await waitFor(() => expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1));
  expect(calls.find((c) => c.method === 'POST')!.body).toEqual({ userId: 11, phone: '+55 11 98888-0001', interval: 5, days: days({ monday: ['08:00', '18:00'] }) });
  await waitFor(() => expect(rows()).toEqual([['5', 'Ana', '+55 11 98888-0001', 'Segunda-feira 08:00–18:00']]));
});

test('remove asks for confirmation and shows the spec message; texts in English', async () => {
  const calls = api([entry(1, 'Ana')], (call, url) => (call.method === 'DELETE' && url.pathname === '/plantao/1' ? answer(200, { message: 'ok' }) : undefined));
  renderPage('en');
  await waitFor(() => expect(rows()).toHaveLength(1));
  expect(screen.getByRole('heading', { name: 'On duty' })).toBeTruthy();
  fireEvent.click(screen.getByRole('button', { name: 'Remove Ana' }));
  fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Remove' }));
  await waitFor(() => expect(calls.some((c) => c.method === 'DELETE')).toBe(true));
  await waitFor(() => expect(screen.getByText('On-duty entry removed.')).toBeTruthy());
  await waitFor(() => expect(screen.getByText('Nobody is on the roster yet.')).toBeTruthy());
});
