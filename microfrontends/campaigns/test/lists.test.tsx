/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session } from '@atendo/web-api';
import { ContactListsPage } from '../src/pages/contact-lists/ContactListsPage';
import { ContactListItemsPage } from '../src/pages/contact-list-items/ContactListItemsPage';
import { answer, API, mockFetch, renderCampaigns, signIn } from './helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const COMPANY = 3;
const at = '2026-11-01T10:00:00Z';
const LIST = { id: 4, name: 'Clientes', companyId: COMPANY, contactsCount: '2', createdAt: at, updatedAt: at };
const item = (id: number, name: string, number: string, valid: boolean | null) => ({ id, name, number, email: '', isWhatsappValid: valid, companyId: COMPANY, contactListId: 4, createdAt: at, updatedAt: at });
const ANA = item(1, 'Ana', '5511999990001', true);
const BRUNO = item(2, 'Bruno', '5511999990002', null);

afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
});

describe('contact lists', () => {
  test('name and contacts count; add with the name rule; open the contacts; live updates; delete with confirmation', async () => {
    const calls = mockFetch((call) => {
      const url = new URL(call.url);
      if (call.method === 'GET' && url.pathname === '/contact-lists') return answer(200, { records: [LIST], count: 1, hasMore: false });
      if (call.method === 'POST' && url.pathname === '/contact-lists') return answer(200, { ...LIST, id: 5, name: (call.body as { name: string }).name, contactsCount: '0' });
      if (call.method === 'DELETE' && url.pathname === '/contact-lists/4') return answer(200, { message: 'ok' });
      return answer(404, { error: 'ERR_NOT_FOUND' });
    });
    signIn({ companyId: COMPANY });
    renderCampaigns(<ContactListsPage />, { route: '/contact-lists' });
    await screen.findByTestId('contact-list-row-4');
    expect(calls[0].url).toBe(`${API}/contact-lists?pageNumber=1`);
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Nome', 'Contatos', 'Ações']);
    expect(screen.getByTestId('contact-list-count-4').textContent).toBe('2');
    fireEvent.click(screen.getByTestId('contact-list-add'));
    const d = within(screen.getByRole('dialog', { name: 'Nova lista de contatos' }));
    fireEvent.change(d.getByTestId('contact-list-name'), { target: { value: 'A' } });
    fireEvent.click(d.getByTestId('contact-list-submit'));
    await waitFor(() => expect(d.getByRole('alert').textContent).toBe('Muito curto!'));
    fireEvent.change(d.getByTestId('contact-list-name'), { target: { value: 'Leads' } });
    fireEvent.click(d.getByTestId('contact-list-submit'));
    await screen.findByText('Lista de contatos salva com sucesso.');
    await screen.findByTestId('contact-list-row-5');
    // An import elsewhere updates the count live.
    act(() => mockSocket.push(`company-${COMPANY}-ContactList`, { action: 'update', record: { ...LIST, contactsCount: '120' } }));
    await waitFor(() => expect(screen.getByTestId('contact-list-count-4').textContent).toBe('120'));
    fireEvent.click(screen.getByTestId('contact-list-open-4'));
    expect(window.location.pathname).toBe('/contact-lists/4/contacts');
    fireEvent.click(screen.getByRole('button', { name: 'Excluir Clientes' }));
    fireEvent.click(screen.getByTestId('confirm-button'));
    await waitFor(() => expect(screen.queryByTestId('contact-list-row-4')).toBeNull());
    act(() => mockSocket.push(`company-${COMPANY}-ContactList`, { action: 'delete', id: 5 }));
    await screen.findByTestId('contact-lists-empty');
  });

  test('a failed load shows the error state with retry', async () => {
    mockFetch(() => answer(500, { error: 'ERR_INTERNAL' }));
    signIn({ companyId: COMPANY });
    renderCampaigns(<ContactListsPage />, { route: '/contact-lists' });
    await screen.findByTestId('contact-lists-failed');
    expect(screen.getByText('Não foi possível carregar a lista de registros')).toBeTruthy();
  });
});

describe('contact list items', () => {
  function api(extra?: (method: string, url: URL, body: unknown) => ReturnType<typeof answer> | undefined) {
    return mockFetch((call) => {
      const url = new URL(call.url);
      const e = extra?.(call.method, url, call.body);
      if (e) return e;
      if (call.method === 'GET' && url.pathname === '/contact-lists/4') return answer(200, LIST);
      if (call.method === 'GET' && url.pathname === '/contact-list-items') return answer(200, { contacts: [ANA, BRUNO], count: 2, hasMore: false });
      return answer(404, { error: 'ERR_NOT_FOUND' });
    });
  }

  test("the list's name as title, validity, add (rules, duplicate refused with its translated code), live events of this list only", async () => {
    const calls = api((method, url, body) => {
      if (method !== 'POST' || url.pathname !== '/contact-list-items') return undefined;
      const b = body as { number: string };
      return b.number === '5511999990001' ? answer(409, { error: 'ERR_CONTACT_LIST_ITEM_DUPLICATED' }) : answer(200, item(3, 'Carla', b.number, null));
    });
    signIn({ companyId: COMPANY });
    renderCampaigns(<ContactListItemsPage params={{ contactListId: '4' }} />, { route: '/contact-lists/4/contacts' });
    await screen.findByRole('heading', { name: 'Clientes' });
    await screen.findByTestId('item-row-1');
    expect(calls.find((c) => c.url.includes('/contact-list-items'))?.url).toBe(`${API}/contact-list-items?contactListId=4&pageNumber=1`);
    expect(within(screen.getByTestId('item-row-1')).getByTestId('item-validity').getAttribute('data-valid')).toBe('valid');
    expect(within(screen.getByTestId('item-row-2')).getByTestId('item-validity').getAttribute('data-valid')).toBe('unknown');
    fireEvent.click(screen.getByTestId('item-add'));
    const d = within(screen.getByRole('dialog', { name: 'Adicionar contato' }));
    fireEvent.change(d.getByTestId('item-name'), { target: { value: 'Carla' } });
    fireEvent.change(d.getByTestId('item-number'), { target: { value: '123' } });
    fireEvent.change(d.getByTestId('item-email'), { target: { value: 'x@' } });
    fireEvent.click(d.getByTestId('item-submit'));
    await waitFor(() => expect(d.getAllByRole('alert').map((a) => a.textContent)).toEqual(['Muito curto!', 'E-mail inválido']));
    fireEvent.change(d.getByTestId('item-email'), { target: { value: '' } });
    fireEvent.change(d.getByTestId('item-number'), { target: { value: '5511999990001' } });
    fireEvent.click(d.getByTestId('item-submit'));
    await screen.findByText('Este número já está na lista de contatos.');
    fireEvent.change(d.getByTestId('item-number'), { target: { value: '5511999990003' } });
    fireEvent.click(d.getByTestId('item-submit'));
    await screen.findByTestId('item-row-3');
    expect(calls.filter((c) => c.method === 'POST').at(-1)?.body).toEqual({ name: 'Carla', number: '5511999990003', email: '', legalBasis: null, consentAt: null, contactListId: 4 });
    // Another list's item does not enter; a deleted one leaves.
    act(() => mockSocket.push(`company-${COMPANY}-ContactListItem`, { action: 'create', record: { ...item(7, 'Outro', '5511', null), contactListId: 9 } }));
    act(() => mockSocket.push(`company-${COMPANY}-ContactListItem`, { action: 'delete', id: 2 }));
    await waitFor(() => expect(screen.queryByTestId('item-row-2')).toBeNull());
    expect(screen.queryByTestId('item-row-7')).toBeNull();
  });

  test('import: confirmation, progress from the live events, the rows refused, the list reloaded', async () => {
    let finish: ((v: ReturnType<typeof answer>) => void) | null = null;
    const calls = api((method, url) => {
      if (method === 'POST' && url.pathname === '/contact-lists/4/upload') return new Promise((r) => (finish = r)) as unknown as ReturnType<typeof answer>;
      return undefined;
    });
    signIn({ companyId: COMPANY });
    renderCampaigns(<ContactListItemsPage params={{ contactListId: '4' }} />, { route: '/contact-lists/4/contacts' });
    await screen.findByTestId('item-row-1');
    fireEvent.click(screen.getByTestId('items-import'));
    expect(screen.getByRole('dialog', { name: 'Importar planilha' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Baixar planilha de exemplo' })).toBeTruthy();
    fireEvent.click(screen.getByTestId('confirm-button'));
    const input = screen.getByTestId('items-file') as HTMLInputElement;
    // A file that is not a spreadsheet is refused before upload.
    fireEvent.change(input, { target: { files: [new File(['x'], 'lista.csv', { type: 'text/csv' })] } });
    await screen.findByText('Escolha uma planilha .xls ou .xlsx.');
    fireEvent.change(input, { target: { files: [new File(['x'], 'lista.xlsx')] } });
    await screen.findByTestId('import-status');
    await waitFor(() => expect(finish).not.toBeNull());
    expect(calls.find((c) => c.method === 'POST')?.body).toBeInstanceOf(FormData);
    act(() => mockSocket.push(`company-${COMPANY}-ContactListItem-4`, { action: 'import-progress', contactListId: 4, status: 'running', total: 3000, processed: 1000, created: 1000, updated: 0, errors: [] }));
    await waitFor(() => expect(screen.getByTestId('import-progress').getAttribute('aria-valuenow')).toBe('1000'));
    expect(screen.getByTestId('import-progress').getAttribute('aria-valuemax')).toBe('3000');
    const before = calls.filter((c) => c.url.includes('/contact-list-items')).length;
    act(() => finish!(answer(200, { contactListId: 4, status: 'done', total: 3000, processed: 3000, created: 2990, updated: 8, errors: [{ row: 5, error: 'INVALID_NUMBER' }, { row: 9, error: 'DUPLICATED' }] })));
    await screen.findByText('2998 contatos importados.');
    expect(screen.getByTestId('import-status').getAttribute('data-status')).toBe('done');
    expect(within(screen.getByTestId('import-errors')).getAllByRole('listitem').map((l) => l.textContent)).toEqual(['Linha 5: número inválido', 'Linha 9: número repetido na planilha']);
    await waitFor(() => expect(calls.filter((c) => c.url.includes('/contact-list-items')).length).toBeGreaterThan(before));
  });

  test('issue 34: the legal basis and consent date are shown, chosen in the form (none allowed), a future date refused', async () => {
    const LIA = { ...item(8, 'Lia', '5511999990008', true), legalBasis: 'consent', consentAt: '2026-01-15T00:00:00.000Z' };
    const calls = mockFetch((call) => {
      const url = new URL(call.url);
      if (call.method === 'GET' && url.pathname === '/contact-lists/4') return answer(200, LIST);
      if (call.method === 'GET' && url.pathname === '/contact-list-items') return answer(200, { contacts: [LIA, BRUNO], count: 2, hasMore: false });
      if (call.method === 'PUT' && url.pathname === '/contact-list-items/2') return answer(200, { ...BRUNO, ...(call.body as object) });
      if (call.method === 'PUT' && url.pathname === '/contact-list-items/8') return answer(200, { ...LIA, ...(call.body as object) });
      return answer(404, { error: 'ERR_NOT_FOUND' });
    });
    signIn({ companyId: COMPANY });
    renderCampaigns(<ContactListItemsPage params={{ contactListId: '4' }} />, { route: '/contact-lists/4/contacts' });
    const lia = within(await screen.findByTestId('item-row-8'));
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent).slice(1, 6)).toEqual(['Nome', 'Número', 'E-mail', 'Base legal', 'Consentimento']);
    expect(lia.getByTestId('item-legal-basis').textContent).toBe('Consentimento');
    expect(lia.getByTestId('item-consent-at').textContent).toBe('15/01/2026');
    expect(within(screen.getByTestId('item-row-2')).getByTestId('item-legal-basis').textContent).toBe('');

    fireEvent.click(screen.getByRole('button', { name: 'Editar Bruno' }));
    const d = within(screen.getByRole('dialog', { name: 'Editar contato' }));
    const select = d.getByTestId('item-legal-basis-select') as HTMLSelectElement;
    expect(select.value).toBe('');
    expect(Array.from(select.options).map((o) => o.value)).toEqual(['', 'consent', 'legal-obligation', 'public-policy', 'research', 'contract', 'legal-claims', 'vital-interest', 'health', 'legitimate-interest', 'credit-protection']);
    fireEvent.change(select, { target: { value: 'legitimate-interest' } });
    fireEvent.change(d.getByTestId('item-consent'), { target: { value: '2999-01-01' } });
    fireEvent.click(d.getByTestId('item-submit'));
    await waitFor(() => expect(d.getAllByRole('alert').map((a) => a.textContent)).toEqual(['Data inválida']));
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);
    fireEvent.change(d.getByTestId('item-consent'), { target: { value: '2026-02-10' } });
    fireEvent.click(d.getByTestId('item-submit'));
    await screen.findByText('Contato salvo com sucesso.');
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ name: 'Bruno', number: '5511999990002', email: '', legalBasis: 'legitimate-interest', consentAt: '2026-02-10', contactListId: 4 });
    await waitFor(() => expect(within(screen.getByTestId('item-row-2')).getByTestId('item-legal-basis').textContent).toBe('Interesse legítimo'));

    // An unchanged day keeps the stored instant; clearing the basis sends null.
    fireEvent.click(screen.getByRole('button', { name: 'Editar Lia' }));
    const e = within(screen.getByRole('dialog', { name: 'Editar contato' }));
    expect((e.getByTestId('item-consent') as HTMLInputElement).value).toBe('2026-01-15');
    fireEvent.change(e.getByTestId('item-legal-basis-select'), { target: { value: '' } });
    fireEvent.click(e.getByTestId('item-submit'));
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(2));
    expect(calls.filter((c) => c.method === 'PUT')[1].body).toMatchObject({ legalBasis: null, consentAt: '2026-01-15T00:00:00.000Z' });
  });

  test('attendants do not see delete (contacts-page:deleteContact); supervisors do', async () => {
    api();
    signIn({ companyId: COMPANY, profile: 'user' });
    const view = renderCampaigns(<ContactListItemsPage params={{ contactListId: '4' }} />, { route: '/contact-lists/4/contacts' });
    await screen.findByTestId('item-row-1');
    expect(screen.queryByRole('button', { name: 'Excluir Ana' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Editar Ana' })).toBeTruthy();
    view.unmount();
    act(() => session.signOut());
    signIn({ companyId: COMPANY, profile: 'supervisor' });
    renderCampaigns(<ContactListItemsPage params={{ contactListId: '4' }} />, { route: '/contact-lists/4/contacts' });
    await screen.findByRole('button', { name: 'Excluir Ana' });
  });
});
