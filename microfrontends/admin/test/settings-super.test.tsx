/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session, writeToken } from '@atendo/web-api';
import { SettingsPage } from '../src/pages/settings/SettingsPage';
import { parseAmount } from '../src/pages/settings/superApi';
import { answer, API, mockFetch, renderAdmin, type FetchCall } from './helpers';
import { FULL_PLAN, sessionUser } from '../../../shell/test/helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const PLAN = { ...FULL_PLAN, id: 2, name: 'Básico', amount: '49.90', isPublic: true, useKanban: false, createdAt: '2026-11-20T10:00:00.000Z', updatedAt: '2026-11-20T10:00:00.000Z' };
const HELP = { id: 4, title: 'Como conectar', video: 'abc123', description: 'Passo a passo', link: null, createdAt: '2026-11-20T10:00:00.000Z', updatedAt: '2026-11-20T10:00:00.000Z' };

function api(write: (call: FetchCall, url: URL) => ReturnType<typeof answer> | undefined = () => undefined) {
  return mockFetch((call) => {
    const url = new URL(call.url);
    if (call.method === 'GET') {
      if (url.pathname === '/companySettings/1') return answer(200, { scheduleType: 'disabled' });
      if (url.pathname === '/settings') return answer(200, [{ key: 'userCreation', value: 'enabled', companyId: 1 }]);
      if (url.pathname === '/plans') return answer(200, { plans: [PLAN], count: 1, hasMore: false });
      if (url.pathname === '/plans/all') return answer(200, [PLAN]);
      if (url.pathname === '/helps') return answer(200, [HELP]);
      if (url.pathname === '/companiesPlan/') return answer(200, { companies: [{ id: 1, name: 'Atendo', email: 'a@a', status: true, dueDate: '2999-12-31', recurrence: 'YEARLY', planId: 2, plan: PLAN, createdAt: '2026-01-01T00:00:00Z', lastLogin: null }], count: 1, hasMore: false });
      return answer(404, { error: 'ERR_NOT_FOUND' });
    }
    return write(call, url) ?? answer(404, { error: 'ERR_NOT_FOUND' });
  });
}
const writes = (calls: FetchCall[]) => calls.filter((c) => c.method !== 'GET');

function renderPage(superUser: boolean) {
  writeToken('jwt');
  act(() => session.signIn(sessionUser({ id: 1, companyId: 1, profile: 'admin', super: superUser }) as never));
  return renderAdmin(<SettingsPage />, { route: '/settings' });
}

afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
});

test('parseAmount takes 99,90 and 99.9; refuses the rest', () => {
  expect(parseAmount('99,90')).toBe('99.90');
  expect(parseAmount(' 99.9 ')).toBe('99.90');
  expect(parseAmount('100')).toBe('100.00');
  expect(parseAmount('1.000,00')).toBeNull();
  expect(parseAmount('abc')).toBeNull();
});

test('admins who are not super users see no companies, plans or helps tabs', async () => {
  api();
  renderPage(false);
  await screen.findByTestId('setting-scheduleType');
  expect(screen.queryByTestId('tab-plans')).toBeNull();
  expect(screen.queryByTestId('tab-companies')).toBeNull();
});

test('super users: the plans tab lists, validates and creates a plan with every flag on by default; a plan in use cannot be deleted', async () => {
  const calls = api((call, url) => {
    if (call.method === 'POST' && url.pathname === '/plans') return answer(201, { ...PLAN, ...(call.body as object), id: 9, amount: '199.90' });
    if (call.method === 'DELETE' && url.pathname === '/plans/2') return answer(409, { error: 'ERR_PLAN_IN_USE', message: 'in use' });
    return undefined;
  });
  renderPage(true);
  fireEvent.click(await screen.findByTestId('tab-plans'));
  // The tab's code loads on first open (slow under a busy transform cache).
  const row = await screen.findByTestId('plan-row-2', {}, { timeout: 15_000 });
  expect(row.textContent).toContain('Básico');
  expect(row.textContent).toMatch(/R\$\s49,90/);
  expect(row.textContent).not.toContain('Kanban');

  fireEvent.click(screen.getByTestId('plan-add'));
  const d = within(screen.getByRole('dialog', { name: 'Adicionar plano' }));
  fireEvent.change(d.getByTestId('plan-amount'), { target: { value: 'muito' } });
  fireEvent.change(d.getByTestId('plan-users'), { target: { value: '-1' } });
  fireEvent.click(d.getByTestId('plan-submit'));
  await d.findByText('Informe um valor como 99,90');
  expect(d.getByText('Informe um número inteiro de 0 a 1.000.000')).toBeTruthy();
  expect(writes(calls)).toHaveLength(0);
  fireEvent.change(d.getByTestId('plan-name'), { target: { value: 'Ouro' } });
  fireEvent.change(d.getByTestId('plan-amount'), { target: { value: '199,90' } });
  fireEvent.change(d.getByTestId('plan-users'), { target: { value: '10' } });
  fireEvent.click(d.getByTestId('plan-flag-useOpenAi'));
  fireEvent.click(d.getByTestId('plan-submit'));
  await screen.findByTestId('plan-row-9');
  const post = writes(calls)[0];
  expect(post.url).toBe(`${API}/plans`);
  expect(post.body).toMatchObject({ name: 'Ouro', amount: '199.90', users: 10, connections: 1, queues: 1, isPublic: true, useWhatsapp: true, useKanban: true, useOpenAi: false, useExternalApi: true });

  fireEvent.click(screen.getByRole('button', { name: 'Excluir Básico' }));
  fireEvent.click(screen.getByTestId('confirm-button'));
  await waitFor(() => expect(writes(calls).map((c) => c.method)).toEqual(['POST', 'DELETE']));
  expect(screen.getByTestId('plan-row-2')).toBeTruthy();
});

test('super users: the helps tab adds and edits help entries; the companies tab shows the companies screen', async () => {
  const calls = api((call, url) => {
    if (call.method === 'POST' && url.pathname === '/helps') return answer(201, { ...HELP, ...(call.body as object), id: 5 });
    if (call.method === 'PUT' && url.pathname === '/helps/4') return answer(200, { ...HELP, ...(call.body as object) });
    return undefined;
  });
  renderPage(true);
  fireEvent.click(await screen.findByTestId('tab-helps'));
  await screen.findByTestId('help-row-4', {}, { timeout: 15_000 });
  fireEvent.click(screen.getByTestId('help-add'));
  let d = within(screen.getByRole('dialog', { name: 'Adicionar ajuda' }));
  fireEvent.change(d.getByTestId('help-link'), { target: { value: 'ftp://x' } });
  fireEvent.click(d.getByTestId('help-submit'));
  await d.findByText('Informe um endereço http(s)');
  fireEvent.change(d.getByTestId('help-title'), { target: { value: 'Abrindo tickets' } });
  fireEvent.change(d.getByTestId('help-video'), { target: { value: 'xyz789' } });
  fireEvent.change(d.getByTestId('help-link'), { target: { value: '' } });
  fireEvent.click(d.getByTestId('help-submit'));
  await screen.findByTestId('help-row-5');
  expect(writes(calls)[0].body).toEqual({ title: 'Abrindo tickets', video: 'xyz789', description: '', link: null });
  // Listed by title.
  expect(within(screen.getByTestId('helps-rows')).getAllByRole('row').map((r) => r.querySelector('td')?.textContent)).toEqual(['Abrindo tickets', 'Como conectar']);
  fireEvent.click(screen.getByRole('button', { name: 'Editar Como conectar' }));
  d = within(screen.getByRole('dialog', { name: 'Editar ajuda' }));
  fireEvent.change(d.getByTestId('help-title'), { target: { value: 'Conectando o WhatsApp' } });
  fireEvent.click(d.getByTestId('help-submit'));
  await screen.findByText('Conectando o WhatsApp');
  expect(writes(calls)[1]).toMatchObject({ method: 'PUT', url: `${API}/helps/4` });

  fireEvent.click(screen.getByTestId('tab-companies'));
  await screen.findByTestId('company-row-1', {}, { timeout: 15_000 });
});
