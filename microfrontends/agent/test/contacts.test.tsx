/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpError, session } from '@atendo/web-api';
import { ContactsPage } from '../src/pages/contacts/ContactsPage';
import { contactMatches, otherTicket, type Contact } from '../src/pages/contacts/api';
import { answer, API, mockFetch, renderAgent, signIn, type FetchCall } from './helpers';

// A loaded CI machine renders slowly: give the waits room (a real failure still fails).
configure({ asyncUtilTimeout: 5000 });
jest.setTimeout(60_000);

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const COMPANY = 3;
const VIP = { id: 11, name: 'VIP', color: '#e53935' };
const LEAD = { id: 12, name: 'Lead', color: '#1e88e5' };
const ct = (over: Partial<Contact> & { id: number; name: string; number: string }): Contact => ({
  email: '',
  isGroup: false,
  active: true,
  channel: 'whatsapp',
  disableBot: false,
  acceptAudioMessage: true,
  urlPicture: null,
  profilePicUrl: null,
  tags: [],
  ...over,
});
const ANA = ct({ id: 1, name: 'Ana Souza', number: '5511987650001', email: 'ana@example.com', tags: [VIP] });
const BRUNO = ct({ id: 2, name: 'Bruno Lima', number: '5511987650002', active: false });
const CARLA = ct({ id: 3, name: 'Carla Dias', number: '5521987650003', tags: [LEAD] });

function api(extra?: (call: FetchCall, url: URL) => ReturnType<typeof answer> | undefined, rows: Contact[] = [ANA, BRUNO, CARLA]) {
  return mockFetch((call) => {
    const url = new URL(call.url);
    const own = extra?.(call, url);
    if (own) return own;
    if (call.method === 'GET' && url.pathname === '/contacts') {
      const term = url.searchParams.get('searchParam') ?? '';
      const tags = JSON.parse(url.searchParams.get('contactTag') ?? '[]') as number[];
      const contacts = rows.filter((c) => contactMatches(c, term, tags));
      return answer(200, { contacts, count: contacts.length, hasMore: false });
    }
    if (call.method === 'GET' && url.pathname === '/tags/list') return answer(200, [VIP, LEAD]);
    if (call.method === 'GET' && url.pathname === '/whatsapp') return answer(200, [{ id: 4, name: 'Loja', status: 'CONNECTED' }, { id: 5, name: 'Off', status: 'DISCONNECTED' }]);
    if (call.method === 'GET' && url.pathname === '/queue') return answer(200, [{ id: 1, name: 'Vendas' }, { id: 2, name: 'Suporte' }]);
    return answer(404, { error: 'ERR_NOT_FOUND' });
  });
}
const names = () => within(screen.getByTestId('contacts-rows')).queryAllByRole('row').map((r) => r.querySelector('td')?.textContent);

afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
});

describe('contacts: rules', () => {
  test('search matching as the server does; the existing-ticket answer read as in the inbox', () => {
    expect(contactMatches(ANA, 'souza', [])).toBe(true);
    expect(contactMatches(ANA, '98765', [])).toBe(true);
    expect(contactMatches(ANA, 'souza', [LEAD.id])).toBe(false);
    expect(contactMatches(CARLA, '', [LEAD.id, VIP.id])).toBe(true);
    expect(contactMatches(ANA, 'a1', [])).toBe(false);
    const conflict = new HttpError(409, { error: 'ERR_OTHER_OPEN_TICKET', uuid: 'u-1', userId: 9, user: { name: 'Rita' }, queue: { name: 'Vendas' } }, 'POST', '/tickets');
    expect(otherTicket(conflict)).toEqual({ uuid: 'u-1', userId: 9, userName: 'Rita', queueName: 'Vendas' });
    const legacy = new HttpError(400, { error: JSON.stringify({ id: 5, uuid: 'u-2', userId: 7, user: { name: 'Eu' }, queue: null }) }, 'POST', '/tickets');
    expect(otherTicket(legacy)).toEqual({ uuid: 'u-2', userId: 7, userName: 'Eu', queueName: null });
    expect(otherTicket(new HttpError(400, { error: 'ERR_VALIDATION' }, 'POST', '/tickets'))).toBeUndefined();
  });
});

describe('the contacts page', () => {
  test('an admin: table, search, tag filter, a new contact with extra info and tags, block, delete, live events', async () => {
    signIn({ profile: 'admin' });
    const calls = api((call, url) => {
      if (call.method === 'POST' && url.pathname === '/contacts') {
        const b = call.body as { name: string; number: string; email: string };
        if (b.number === '5511987650001') return answer(409, { error: 'ERR_DUPLICATED_CONTACT' });
        return answer(200, ct({ id: 9, name: b.name, number: b.number, email: b.email, extraInfo: [{ id: 1, name: 'CPF', value: '123' }] }));
      }
      if (call.method === 'POST' && url.pathname === '/tags/sync') return answer(200, ct({ id: 9, name: 'Dora Reis', number: '5511912340009', tags: [LEAD] }));
      if (call.method === 'PUT' && url.pathname === '/contacts/block/3') return answer(200, { ...CARLA, active: false });
      if (call.method === 'DELETE' && url.pathname === '/contacts/1') return answer(200, { message: 'Contact deleted' });
      if (call.method === 'GET' && url.pathname === '/contacts/2') return answer(200, { ...BRUNO, name: 'Bruno Lima Jr', number: '55119******02' });
      return undefined;
    });
    renderAgent(<ContactsPage />, { route: '/contacts' });
    await waitFor(() => expect(names()).toEqual(['Ana Souza', 'Bruno Lima', 'Carla Dias']));
    expect(calls[0].url).toBe(`${API}/contacts?pageNumber=1`);
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Nome', 'WhatsApp', 'E-mail', 'Tags', 'Status', 'Ações']);
    expect(screen.getByTestId('contacts-count').textContent).toBe('3 contatos');
    expect(within(screen.getByTestId('contact-row-1')).getByText('VIP')).toBeTruthy();
    expect(within(screen.getByTestId('contact-row-2')).getByText('Bloqueado')).toBeTruthy();
    expect(within(screen.getByTestId('contact-row-2')).getByRole('button', { name: 'Desbloquear Bruno Lima' })).toBeTruthy();
    expect(within(screen.getByTestId('contact-row-1')).getByRole('button', { name: 'Excluir Ana Souza' })).toBeTruthy();

    fireEvent.change(screen.getByTestId('contacts-search'), { target: { value: 'CARLA' } });
    await waitFor(() => expect(names()).toEqual(['Carla Dias']));
    expect(calls.at(-1)?.url).toBe(`${API}/contacts?searchParam=carla&pageNumber=1`);
    fireEvent.change(screen.getByTestId('contacts-search'), { target: { value: '' } });
    await waitFor(() => expect(names()).toHaveLength(3));

    fireEvent.click(screen.getByTestId('contacts-tag-filter'));
    fireEvent.click(await screen.findByTestId(`contacts-tag-option-${VIP.id}`));
    await waitFor(() => expect(names()).toEqual(['Ana Souza']));
    expect(calls.some((c) => c.url === `${API}/contacts?pageNumber=1&contactTag=${encodeURIComponent('[11]')}`)).toBe(true);
    expect(screen.getByTestId('contacts-tag-filter').textContent).toBe('Tags (1)');
    fireEvent.click(screen.getByTestId(`contacts-tag-option-${VIP.id}`));
    await waitFor(() => expect(names()).toHaveLength(3));
    fireEvent.keyDown(document.activeElement ?? document.body, { key: 'Escape' });

    // A new contact: validation, a duplicate refused with its translated code, then saved with extra info and a tag.
    fireEvent.click(screen.getByTestId('contact-add'));
    const d = within(await screen.findByRole('dialog', { name: 'Adicionar contato' }));
    fireEvent.change(d.getByTestId('contact-name'), { target: { value: 'D' } });
    fireEvent.change(d.getByTestId('contact-number'), { target: { value: '123' } });
    fireEvent.change(d.getByTestId('contact-email'), { target: { value: 'nope' } });
    fireEvent.click(d.getByTestId('contact-submit'));
    await waitFor(() => expect(d.getAllByRole('alert').map((a) => a.textContent)).toEqual(['Muito curto!', 'Muito curto!', 'E-mail inválido']));
    fireEvent.change(d.getByTestId('contact-name'), { target: { value: ' Dora Reis ' } });
    fireEvent.change(d.getByTestId('contact-number'), { target: { value: '5511987650001' } });
    fireEvent.change(d.getByTestId('contact-email'), { target: { value: '' } });
    fireEvent.click(d.getByTestId('contact-submit'));
    await screen.findByText('Já existe um contato com este número.');
    fireEvent.change(d.getByTestId('contact-number'), { target: { value: '5511912340009' } });
    fireEvent.click(d.getByTestId('contact-extra-add'));
    fireEvent.change(within(d.getByTestId('contact-extra-0')).getByLabelText('Nome do campo'), { target: { value: 'CPF' } });
    fireEvent.change(within(d.getByTestId('contact-extra-0')).getByLabelText('Valor'), { target: { value: '123' } });
    await waitFor(() => expect(d.getByRole('button', { name: 'Lead' })).toBeTruthy());
    fireEvent.click(d.getByRole('button', { name: 'Lead' }));
    fireEvent.click(d.getByTestId('contact-submit'));
    await screen.findByText('Contato salvo com sucesso!');
    const posted = calls.filter((c) => c.method === 'POST' && c.url === `${API}/contacts`);
    expect(posted.at(-1)?.body).toEqual({ name: 'Dora Reis', number: '5511912340009', email: '', disableBot: false, extraInfo: [{ name: 'CPF', value: '123' }] });
    expect(calls.find((c) => c.url === `${API}/tags/sync`)?.body).toEqual({ contactId: 9, tags: [{ id: LEAD.id }] });
    await waitFor(() => expect(names()).toEqual(['Dora Reis', 'Ana Souza', 'Bruno Lima', 'Carla Dias']));
    expect(within(screen.getByTestId('contact-row-9')).getByText('Lead')).toBeTruthy();

    // Block (confirmed) and delete (confirmed).
    fireEvent.click(screen.getByRole('button', { name: 'Bloquear Carla Dias' }));
    fireEvent.click(screen.getByTestId('confirm-button'));
    await screen.findByText('Contato bloqueado');
    expect(calls.find((c) => c.url === `${API}/contacts/block/3`)?.body).toEqual({ active: false });
    await waitFor(() => expect(within(screen.getByTestId('contact-row-3')).getByText('Bloqueado')).toBeTruthy());
    fireEvent.click(screen.getByRole('button', { name: 'Excluir Ana Souza' }));
    fireEvent.click(screen.getByTestId('confirm-button'));
    await screen.findByText('Contato excluído com sucesso!');
    await waitFor(() => expect(names()).toEqual(['Dora Reis', 'Bruno Lima', 'Carla Dias']));

    // Live: an update is re-read (the number as the server shows it to this viewer), a delete removes.
    act(() => mockSocket.push(`company-${COMPANY}-contact`, { action: 'update', contact: { ...BRUNO, name: 'Bruno Lima Jr', number: '5511987650002' } }));
    await waitFor(() => expect(names()).toContain('Bruno Lima Jr'));
    expect(within(screen.getByTestId('contact-row-2')).getByTestId('contact-number-cell').textContent).toBe('55119******02');
    act(() => mockSocket.push(`company-${COMPANY}-contact`, { action: 'delete', contactId: 9 }));
    await waitFor(() => expect(names()).toEqual(['Bruno Lima Jr', 'Carla Dias']));
  });

  test('an attendant: masked numbers as answered, no delete; open ticket with a queue; the existing-ticket answers', async () => {
    signIn({ profile: 'user', queues: [{ id: 1, name: 'Vendas', color: '#000' }] });
    const navigate = jest.fn();
    window.singleSpaNavigate = navigate;
    let answerTicket = answer(409, { error: 'ERR_OTHER_OPEN_TICKET', uuid: 'other-uuid', userId: 99, user: { name: 'Rita' }, queue: { name: 'Vendas' } });
    const calls = api(
      (call, url) => (call.method === 'POST' && url.pathname === '/tickets' ? answerTicket : undefined),
      [ct({ id: 1, name: 'Ana Souza', number: '55119******01' })],
    );
    renderAgent(<ContactsPage />, { route: '/contacts' });
    await waitFor(() => expect(names()).toEqual(['Ana Souza']));
    expect(screen.getByTestId('contact-number-cell').textContent).toBe('55119******01');
    expect(screen.queryByRole('button', { name: 'Excluir Ana Souza' })).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Abrir ticket de Ana Souza' }));
    const d = within(await screen.findByRole('dialog', { name: 'Abrir ticket' }));
    await waitFor(() => expect(d.getAllByRole('option').map((o) => o.textContent)).toEqual(['Conexão padrão', 'Loja', '', 'Vendas']));
    fireEvent.click(d.getByTestId('open-ticket-submit'));
    expect(await d.findByText('Selecione uma fila')).toBeTruthy();
    fireEvent.change(d.getByTestId('open-ticket-queue'), { target: { value: '1' } });
    fireEvent.change(d.getByTestId('open-ticket-connection'), { target: { value: '4' } });
    fireEvent.click(d.getByTestId('open-ticket-submit'));
    expect((await screen.findByTestId('other-open-message')).textContent).toBe('Já existe um ticket aberto para este contato com Rita na fila Vendas.');
    expect(calls.find((c) => c.method === 'POST' && c.url === `${API}/tickets`)?.body).toEqual({ contactId: 1, queueId: 1, whatsappId: 4, userId: 7, status: 'open' });
    expect(navigate).not.toHaveBeenCalled();
    fireEvent.click(within(screen.getByRole('dialog', { name: 'Ticket já aberto' })).getAllByRole('button', { name: 'Fechar' }).at(-1)!);
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Ticket já aberto' })).toBeNull());

    // The viewer's own open ticket opens; a new one opens too.
    answerTicket = answer(409, { error: 'ERR_OTHER_OPEN_TICKET', uuid: 'mine-uuid', userId: 7, user: { name: 'Eu' }, queue: null });
    fireEvent.click(screen.getByRole('button', { name: 'Abrir ticket de Ana Souza' }));
    const d2 = within(await screen.findByRole('dialog', { name: 'Abrir ticket' }));
    fireEvent.change(d2.getByTestId('open-ticket-queue'), { target: { value: '1' } });
    fireEvent.click(d2.getByTestId('open-ticket-submit'));
    await waitFor(() => expect(navigate).toHaveBeenCalledWith('/tickets/mine-uuid'));
    answerTicket = answer(200, { id: 50, uuid: 'new-uuid' });
    fireEvent.click(screen.getByRole('button', { name: 'Abrir ticket de Ana Souza' }));
    const d3 = within(await screen.findByRole('dialog', { name: 'Abrir ticket' }));
    fireEvent.change(d3.getByTestId('open-ticket-queue'), { target: { value: '1' } });
    fireEvent.click(d3.getByTestId('open-ticket-submit'));
    await waitFor(() => expect(navigate).toHaveBeenCalledWith('/tickets/new-uuid'));
    delete window.singleSpaNavigate;
  });

  test('import: the sheet uploaded, progress and refused rows from the socket, the list reloaded; a too large file refused', async () => {
    signIn({ profile: 'user' });
    let listed = 0;
    const calls = api((call, url) => {
      if (call.method === 'GET' && url.pathname === '/contacts') listed++;
      if (call.method === 'POST' && url.pathname === '/contacts/upload') return answer(202, { jobId: 'job-1', total: 10 });
      return undefined;
    });
    renderAgent(<ContactsPage />, { route: '/contacts', language: 'en' });
    await waitFor(() => expect(names()).toHaveLength(3));
    const big = new File([new Uint8Array(5 * 1024 * 1024 + 1)], 'big.xlsx');
    fireEvent.change(screen.getByTestId('contacts-import-file'), { target: { files: [big] } });
    await screen.findByText('The spreadsheet must be at most 5 MB.');
    expect(calls.some((c) => c.url.endsWith('/contacts/upload'))).toBe(false);

    const sheet = new File([new Uint8Array([0x50, 0x4b, 0x03, 0x04])], 'contatos.xlsx');
    fireEvent.change(screen.getByTestId('contacts-import-file'), { target: { files: [sheet] } });
    await waitFor(() => expect(screen.getByTestId('contacts-import-status').dataset.status).toBe('running'));
    expect(((calls.find((c) => c.url.endsWith('/contacts/upload'))?.body as FormData).get('file') as File).name).toBe('contatos.xlsx');
    expect(screen.getByTestId('contacts-import-progress').textContent).toBe('0 of 10');
    const before = listed;
    const progress = { jobId: 'job-1', status: 'running', processed: 5, total: 10, created: 4, updated: 0, errors: [{ row: 3, error: 'Invalid email' }] };
    act(() => mockSocket.push(`company-${COMPANY}-contact`, { action: 'import-progress', ...progress, jobId: 'another-job', processed: 9 }));
    act(() => mockSocket.push(`company-${COMPANY}-contact`, { action: 'import-progress', ...progress }));
    expect(screen.getByTestId('contacts-import-progress').textContent).toBe('5 of 10');
    expect(screen.getByTestId('contacts-import-errors').textContent).toBe('Row 3: Invalid email');
    expect((screen.getByTestId('contacts-import') as HTMLButtonElement).disabled).toBe(true);
    act(() => mockSocket.push(`company-${COMPANY}-contact`, { action: 'import-done', ...progress, status: 'done', processed: 10, created: 8, updated: 1 }));
    expect(screen.getByTestId('contacts-import-status').dataset.status).toBe('done');
    expect(screen.getByTestId('contacts-import-counts').textContent).toBe('8 created, 1 updated, 1 with errors');
    await waitFor(() => expect(listed).toBeGreaterThan(before));
    fireEvent.click(screen.getByTestId('contacts-import-close'));
    expect(screen.queryByTestId('contacts-import-status')).toBeNull();
  });

  test('empty, no results, failed loads and a refused upload with its translated code', async () => {
    signIn();
    mockFetch((call) => (call.url.includes('/contacts/upload') ? answer(415, { error: 'ERR_UPLOAD_TYPE' }) : call.url.includes('/tags/list') ? answer(200, []) : answer(200, { contacts: [], count: 0, hasMore: false })));
    const { unmount } = renderAgent(<ContactsPage />, { route: '/contacts' });
    expect((await screen.findByTestId('contacts-empty')).textContent).toContain('Nenhum contato cadastrado.');
    fireEvent.change(screen.getByTestId('contacts-import-file'), { target: { files: [new File(['x'], 'a.pdf')] } });
    await screen.findByText('Tipo de arquivo não permitido.');
    expect(screen.queryByTestId('contacts-import-status')).toBeNull();
    unmount();
    mockFetch(() => answer(500, { error: 'ERR_INTERNAL' }));
    renderAgent(<ContactsPage />, { route: '/contacts', language: 'es' });
    expect((await screen.findByTestId('contacts-failed')).textContent).toBeTruthy();
  });
});

describe('merging duplicate contacts (issue 33 item 5)', () => {
  const ANA12 = ct({ id: 21, name: 'Ana', number: '551187650001', email: 'ana.2@example.com' });
  const counts = { tickets: 2, ticketsJoined: 1, messages: 5, tags: 1, aliases: 1 };

  test('an admin: the duplicates the server found, the one kept, a preview first, then the merge (a stale preview is shown again); from a row, duplicates searched', async () => {
    signIn({ profile: 'admin' });
    let previews = 0;
    let stale = true;
    const calls = api((call, url) => {
      if (call.method === 'GET' && url.pathname === '/contacts/duplicates') return answer(200, { groups: [{ reasons: ['ninthDigit'], contacts: [ANA, ANA12] }] });
      if (call.method === 'POST' && url.pathname === '/contacts/merge/preview') {
        const b = call.body as { targetId: number; sourceIds: number[] };
        const all = [ANA, ANA12, BRUNO, CARLA];
        const target = all.find((c) => c.id === b.targetId)!;
        return answer(200, { target, sources: all.filter((c) => b.sourceIds.includes(c.id)), result: { ...target, email: target.email || 'ana.2@example.com' }, counts, previewToken: `tok-${++previews}` });
      }
      if (call.method === 'POST' && url.pathname === '/contacts/merge') {
        if (stale) {
          stale = false;
          return answer(409, { error: 'ERR_MERGE_PREVIEW_STALE' });
        }
        return answer(200, { contact: ANA, counts });
      }
      if (call.method === 'GET' && url.pathname === '/contacts/list') return answer(200, [BRUNO, CARLA].map(({ id, name, number, channel, isGroup }) => ({ id, name, number, channel, isGroup })));
      return undefined;
    }, [ANA, ANA12, BRUNO, CARLA]);
    renderAgent(<ContactsPage />, { route: '/contacts' });
    await waitFor(() => expect(names()).toHaveLength(4));

    fireEvent.click(screen.getByTestId('contacts-duplicates'));
    const d = within(await screen.findByRole('dialog', { name: 'Contatos duplicados' }));
    await d.findByText('Mesmo número, com e sem o nono dígito');
    fireEvent.click(d.getByTestId('merge-keep-21'));
    fireEvent.click(d.getByTestId('merge-keep-1'));
    fireEvent.click(d.getByTestId('merge-group-preview-0'));
    const p = within(await screen.findByRole('dialog', { name: 'Prévia da mesclagem' }));
    await p.findByTestId('merge-preview');
    expect(p.getByTestId('merge-preview-target').textContent).toBe('Ana Souza · 5511987650001');
    expect(p.getByTestId('merge-preview-sources').textContent).toBe('Ana · 551187650001');
    expect(['tickets', 'ticketsJoined', 'messages', 'tags', 'aliases'].map((k) => p.getByTestId(`merge-count-${k}`).textContent)).toEqual([
      'Tickets2', 'Conversas abertas unidas em uma1', 'Mensagens5', 'Tags1', 'Números e IDs lembrados1',
    ]);
    // Nothing is merged before the admin confirms the preview.
    const previewCalls = () => calls.filter((c) => c.url === `${API}/contacts/merge/preview`);
    const mergeCalls = () => calls.filter((c) => c.url === `${API}/contacts/merge`);
    expect(previewCalls().map((c) => c.body)).toEqual([{ targetId: 1, sourceIds: [21] }]);
    expect(mergeCalls()).toEqual([]);

    fireEvent.click(p.getByTestId('merge-confirm'));
    await screen.findByText('Os contatos mudaram desde a prévia da mesclagem. Veja a prévia novamente.');
    await waitFor(() => expect(previewCalls()).toHaveLength(2));
    fireEvent.click(await screen.findByTestId('merge-confirm'));
    await screen.findByText('Contatos mesclados em Ana Souza');
    expect(mergeCalls().map((c) => c.body)).toEqual([
      { targetId: 1, sourceIds: [21], previewToken: 'tok-1' },
      { targetId: 1, sourceIds: [21], previewToken: 'tok-2' },
    ]);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

    // From a contact's row: its duplicates searched by name or number, then the preview.
    fireEvent.click(screen.getByTestId('contact-merge-3'));
    const r = within(await screen.findByRole('dialog', { name: 'Mesclar duplicados de Carla Dias' }));
    fireEvent.change(r.getByTestId('merge-search'), { target: { value: 'bru' } });
    fireEvent.click(await r.findByTestId('merge-option-2'));
    expect(r.queryByTestId('merge-option-3')).toBeNull();
    fireEvent.click(r.getByTestId('merge-pick-preview'));
    await waitFor(() => expect(previewCalls().at(-1)?.body).toEqual({ targetId: 3, sourceIds: [2] }));
    expect(calls.some((c) => c.url === `${API}/contacts/list?searchParam=bru`)).toBe(true);
  });

  test('attendants get no merge actions', async () => {
    signIn({ profile: 'user' });
    api();
    renderAgent(<ContactsPage />, { route: '/contacts' });
    await waitFor(() => expect(names()).toHaveLength(3));
    expect(screen.queryByTestId('contacts-duplicates')).toBeNull();
    expect(screen.queryByTestId('contact-merge-1')).toBeNull();
  });
});
