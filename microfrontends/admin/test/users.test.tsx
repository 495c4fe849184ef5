/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session, writeToken } from '@atendo/web-api';
import { UsersPage } from '../src/pages/users/UsersPage';
import type { AdminUser } from '../src/pages/users/api';
import { answer, API, mockFetch, renderAdmin, type FetchCall } from './helpers';
import { FULL_PLAN, sessionUser } from '../../../shell/test/helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const COMPANY = 3;
function user(over: Partial<AdminUser> & { id: number }): AdminUser {
  return {
    companyId: COMPANY,
    name: `Pessoa ${over.id}`,
    email: `p${over.id}@acme.test`,
    profile: 'user',
    super: false,
    online: false,
    startWork: '08:00',
    endWork: '18:00',
    allTicket: 'disable',
    allowGroup: false,
    farewellMessage: null,
    whatsappId: null,
    profileImageUrl: null,
    queues: [],
    createdAt: '2026-11-20T10:00:00.000Z',
    ...over,
  } as AdminUser;
}

const ANA = user({ id: 1, name: 'Ana Admin', email: 'ana@acme.test', profile: 'admin', online: true, queues: [{ id: 7, name: 'Vendas', color: '#ff0000' }] });
const BIA = user({ id: 2, name: 'Bia Souza', email: 'bia@acme.test' });
const QUEUES = [
  { id: 7, name: 'Vendas', color: '#ff0000' },
  { id: 8, name: 'Suporte', color: '#0000ff' },
];

interface Options {
  pages?: AdminUser[][];
  search?: (term: string) => AdminUser[];
  limit?: number;
  write?: (call: FetchCall, url: URL) => ReturnType<typeof answer> | undefined;
}

function api(opts: Options = {}) {
  const pages = opts.pages ?? [[ANA, BIA]];
  return mockFetch((call) => {
    const url = new URL(call.url);
    if (call.method === 'GET' && url.pathname === '/users/') {
      const term = url.searchParams.get('searchParam');
      if (term !== null) {
        const users = opts.search?.(term) ?? [];
        return answer(200, { users, count: users.length, hasMore: false });
      }
      const n = Number(url.searchParams.get('pageNumber'));
      return answer(200, { users: pages[n - 1] ?? [], count: pages.flat().length, hasMore: n < pages.length });
    }
    if (url.pathname === `/companies/listPlan/${COMPANY}`) return answer(200, { id: COMPANY, name: 'Acme', plan: { ...FULL_PLAN, users: opts.limit ?? 10 } });
    if (url.pathname === '/queue') return answer(200, QUEUES);
    if (url.pathname === '/whatsapp/') return answer(200, [{ id: 4, name: 'Principal', status: 'CONNECTED' }]);
    return opts.write?.(call, url) ?? answer(404, { error: 'ERR_NOT_FOUND' });
  });
}

const writes = (calls: FetchCall[]) => calls.filter((c) => c.method !== 'GET');
const names = () => within(screen.getByTestId('users-rows')).queryAllByRole('row').map((r) => r.querySelectorAll('td')[1]?.textContent);

function renderPage() {
  writeToken('jwt');
  act(() => session.signIn(sessionUser({ id: 1, companyId: COMPANY, profile: 'admin' }) as never));
  return renderAdmin(<UsersPage />, { route: '/users' });
}

afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
});

describe('users admin', () => {
  test('lists users with profile, queues, hours and status; the plan limit next to the total; more on scroll', async () => {
    const calls = api({ pages: [[ANA, BIA], [user({ id: 3, name: 'Caio Lima' })]], limit: 5 });
    renderPage();
    await waitFor(() => expect(names()).toEqual(['Ana Admin', 'Bia Souza']));
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Foto', 'Nome', 'E-mail', 'Perfil', 'Filas', 'Expediente', 'Status', 'Ações']);
    const ana = screen.getByTestId('user-row-1');
    expect(within(ana).getByText('Administrador')).toBeTruthy();
    expect(within(ana).getByText('Vendas')).toBeTruthy();
    expect(within(ana).getByText('Online')).toBeTruthy();
    expect(within(screen.getByTestId('user-row-2')).getByText('08:00 – 18:00')).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('users-count').textContent).toBe('3 de 5 usuários do plano'));
    // The signed-in admin cannot delete itself from here.
    expect((within(ana).getByRole('button', { name: 'Excluir Ana Admin' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.scroll(screen.getByTestId('users-scroller'));
    await waitFor(() => expect(names()).toEqual(['Ana Admin', 'Bia Souza', 'Caio Lima']));
    expect(calls.filter((c) => c.url.startsWith(`${API}/users/`)).map((c) => new URL(c.url).search)).toEqual(['?pageNumber=1', '?pageNumber=2']);
  });

  test('at the plan limit a warning shows; the server refusal is the translated error toast', async () => {
    api({ pages: [[ANA, BIA]], limit: 2, write: () => answer(400, { error: 'ERR_PLAN_LIMIT_REACHED', message: 'limit' }) });
    renderPage();
    expect(await screen.findByTestId('users-limit')).toBeTruthy();
    fireEvent.click(screen.getByTestId('user-add'));
    const d = within(screen.getByRole('dialog', { name: 'Adicionar usuário' }));
    fireEvent.change(d.getByLabelText('Nome'), { target: { value: 'Caio Lima' } });
    fireEvent.change(d.getByLabelText('E-mail'), { target: { value: 'caio@acme.test' } });
    fireEvent.change(d.getByLabelText('Senha'), { target: { value: 'segredo1' } });
    fireEvent.click(d.getByTestId('user-submit'));
    expect(await screen.findByText('O limite do plano da sua empresa foi atingido.')).toBeTruthy();
    expect(screen.getByRole('dialog')).toBeTruthy();
  });

  test('the form validates (required, short name, bad e-mail, short password), then creates with queues and uploads the picture', async () => {
    const created = user({ id: 9, name: 'Caio Lima', email: 'caio@acme.test', queues: [QUEUES[1]] });
    const calls = api({
      write: (call, url) => {
        if (call.method === 'POST' && url.pathname === '/users') return answer(200, created);
        if (call.method === 'POST' && url.pathname === '/users/9/media-upload') return answer(200, { ...created, profileImage: 'a.png', profileImageUrl: 'http://api.test/public/company3/user/a.png?e=1&t=x' });
        return undefined;
      },
    });
    renderPage();
    await waitFor(() => expect(names()).toHaveLength(2));
    fireEvent.click(screen.getByTestId('user-add'));
    const d = within(screen.getByRole('dialog', { name: 'Adicionar usuário' }));
    fireEvent.click(d.getByTestId('user-submit'));
    await waitFor(() => expect(d.getAllByRole('alert').map((a) => a.textContent)).toEqual(['Obrigatório', 'Obrigatório', 'Obrigatório']));
    fireEvent.change(d.getByLabelText('Nome'), { target: { value: 'C' } });
    fireEvent.change(d.getByLabelText('E-mail'), { target: { value: 'caio' } });
    fireEvent.change(d.getByLabelText('Senha'), { target: { value: '123' } });
    await waitFor(() => expect(d.getAllByRole('alert').map((a) => a.textContent)).toEqual(['Muito curto!', 'E-mail inválido', 'Muito curto!']));
    expect(writes(calls)).toEqual([]);

    fireEvent.change(d.getByLabelText('Nome'), { target: { value: ' Caio Lima ' } });
    fireEvent.change(d.getByLabelText('E-mail'), { target: { value: 'caio@acme.test' } });
    fireEvent.change(d.getByLabelText('Senha'), { target: { value: 'segredo1' } });
    await waitFor(() => expect(d.getByRole('button', { name: 'Suporte' })).toBeTruthy());
    fireEvent.click(d.getByRole('button', { name: 'Suporte' }));
    expect(d.getByRole('button', { name: 'Suporte' }).getAttribute('aria-pressed')).toBe('true');
    fireEvent.change(d.getByTestId('user-connection'), { target: { value: '4' } });
    fireEvent.change(d.getByTestId('user-start-work'), { target: { value: '09:00' } });
    fireEvent.change(d.getByTestId('user-image'), { target: { files: [new File(['%PDF'], 'doc.pdf')] } });
    expect(d.getByRole('alert').textContent).toBe('Escolha uma imagem .png, .jpg, .webp ou .gif de até 2 MB');
    fireEvent.change(d.getByTestId('user-image'), { target: { files: [new File(['\x89PNG'], 'eu.png', { type: 'image/png' })] } });
    fireEvent.click(d.getByTestId('user-submit'));
    await screen.findByText('Usuário salvo com sucesso.');
    const [post, upload] = writes(calls);
    expect(post).toMatchObject({
      method: 'POST',
      url: `${API}/users`,
      body: { name: 'Caio Lima', email: 'caio@acme.test', password: 'segredo1', profile: 'user', queueIds: [8], whatsappId: 4, startWork: '09:00', endWork: '23:59', allTicket: 'disable', allowGroup: false },
    });
    expect(upload.url).toBe(`${API}/users/9/media-upload`);
    expect(((upload.body as FormData).get('profileImage') as File).name).toBe('eu.png');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(names()).toEqual(['Caio Lima', 'Ana Admin', 'Bia Souza']);
    expect(screen.getByTestId('user-row-9').querySelector('img')?.getAttribute('src')).toBe('http://api.test/public/company3/user/a.png?e=1&t=x');
  });

  test('editing sends no password when left blank; live events upsert and remove rows; delete asks first', async () => {
    const calls = api({
      write: (call, url) => {
        if (call.method === 'PUT' && url.pathname === '/users/2') return answer(200, { ...BIA, name: 'Bia Lima' });
        if (call.method === 'DELETE' && url.pathname === '/users/2') return answer(200, { message: 'User deleted' });
        return undefined;
      },
    });
    renderPage();
    await waitFor(() => expect(names()).toEqual(['Ana Admin', 'Bia Souza']));
    fireEvent.click(screen.getByRole('button', { name: 'Editar Bia Souza' }));
    const d = within(screen.getByRole('dialog', { name: 'Editar usuário' }));
    expect((d.getByLabelText('E-mail') as HTMLInputElement).value).toBe('bia@acme.test');
    fireEvent.change(d.getByLabelText('Nome'), { target: { value: 'Bia Lima' } });
    fireEvent.click(d.getByTestId('user-submit'));
    await screen.findByText('Usuário salvo com sucesso.');
    const put = writes(calls)[0];
    expect(put.url).toBe(`${API}/users/2`);
    expect(put.body).not.toHaveProperty('password');
    expect(names()).toEqual(['Ana Admin', 'Bia Lima']);

    act(() => mockSocket.push(`company-${COMPANY}-user`, { action: 'create', user: user({ id: 11, name: 'Davi Novo' }) }));
    await waitFor(() => expect(names()).toEqual(['Davi Novo', 'Ana Admin', 'Bia Lima']));
    act(() => mockSocket.push(`company-${COMPANY}-user`, { action: 'delete', userId: '11' }));
    await waitFor(() => expect(names()).toEqual(['Ana Admin', 'Bia Lima']));

    fireEvent.click(screen.getByRole('button', { name: 'Excluir Bia Lima' }));
    expect(screen.getByRole('dialog', { name: 'Excluir Bia Lima?' })).toBeTruthy();
    fireEvent.click(screen.getByTestId('confirm-button'));
    await screen.findByText('Usuário excluído com sucesso.');
    expect(writes(calls).map((c) => `${c.method} ${c.url}`)).toEqual([`PUT ${API}/users/2`, `DELETE ${API}/users/2`]);
    await waitFor(() => expect(names()).toEqual(['Ana Admin']));
  });

  test("the user's WhatsApp number (where password reset codes go) is shown, validated and saved as digits", async () => {
    const calls = api({ write: (call, url) => (call.method === 'PUT' && url.pathname === '/users/2' ? answer(200, { ...BIA, wpp: '5511987654321' }) : undefined) });
    renderPage();
    await waitFor(() => expect(names()).toEqual(['Ana Admin', 'Bia Souza']));
    fireEvent.click(screen.getByRole('button', { name: 'Editar Bia Souza' }));
    const d = within(screen.getByRole('dialog', { name: 'Editar usuário' }));
    const wpp = d.getByLabelText('WhatsApp do usuário') as HTMLInputElement;
    expect(wpp.value).toBe('');
    fireEvent.change(wpp, { target: { value: '9876' } });
    fireEvent.click(d.getByTestId('user-submit'));
    await d.findByText('Telefone inválido');
    expect(writes(calls)).toEqual([]);
    fireEvent.change(wpp, { target: { value: '+55 (11) 98765-4321' } });
    fireEvent.click(d.getByTestId('user-submit'));
    await screen.findByText('Usuário salvo com sucesso.');
    expect(writes(calls)[0].body).toMatchObject({ wpp: '5511987654321' });
  });

  test("an admin changing its own password is asked the current one and sends it; another user's password needs none", async () => {
    const calls = api({
      write: (call, url) => {
        if (call.method === 'PUT' && url.pathname === '/users/1') return answer(200, ANA);
        if (call.method === 'PUT' && url.pathname === '/users/2') return answer(200, BIA);
        return undefined;
      },
    });
    renderPage();
    await waitFor(() => expect(names()).toEqual(['Ana Admin', 'Bia Souza']));
    // Another user: no current password asked nor sent.
    fireEvent.click(screen.getByRole('button', { name: 'Editar Bia Souza' }));
    let d = within(screen.getByRole('dialog', { name: 'Editar usuário' }));
    fireEvent.change(d.getByTestId('user-password'), { target: { value: 'nova-senha-1' } });
    expect(d.queryByTestId('user-current-password')).toBeNull();
    fireEvent.click(d.getByTestId('user-submit'));
    await screen.findByText('Usuário salvo com sucesso.');
    expect(writes(calls)[0].body).toMatchObject({ password: 'nova-senha-1' });
    expect(writes(calls)[0].body).not.toHaveProperty('currentPassword');

    // Oneself: the current password is required, then sent; the session ends (sign in again).
    fireEvent.click(screen.getByRole('button', { name: 'Editar Ana Admin' }));
    d = within(screen.getByRole('dialog', { name: 'Editar usuário' }));
    expect(d.queryByTestId('user-current-password')).toBeNull();
    fireEvent.change(d.getByTestId('user-password'), { target: { value: 'minha-nova-1' } });
    fireEvent.click(d.getByTestId('user-submit'));
    await waitFor(() => expect(d.getByTestId('user-current-password').getAttribute('aria-invalid')).toBe('true'));
    expect(writes(calls)).toHaveLength(1);
    fireEvent.change(d.getByTestId('user-current-password'), { target: { value: 'minha-antiga' } });
    fireEvent.click(d.getByTestId('user-submit'));
    await waitFor(() => expect(writes(calls)).toHaveLength(2));
    expect(writes(calls)[1]).toMatchObject({ method: 'PUT', url: `${API}/users/1`, body: expect.objectContaining({ password: 'minha-nova-1', currentPassword: 'minha-antiga' }) });
    await waitFor(() => expect(session.get().status).toBe('signedOut'));
  });

  test('renders in English', async () => {
    api();
    writeToken('jwt');
    act(() => session.signIn(sessionUser({ id: 1, companyId: COMPANY, profile: 'admin' }) as never));
    renderAdmin(<UsersPage />, { route: '/users', language: 'en' });
    await waitFor(() => expect(screen.getByRole('heading', { name: 'Users' })).toBeTruthy());
    expect(await screen.findByText('Administrator')).toBeTruthy();
  });
});
