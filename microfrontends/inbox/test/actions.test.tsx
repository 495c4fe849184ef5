/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session } from '@atendo/web-api';
import { TicketsManager } from '../src/manager/TicketsManager';
import { nearBottom } from '../src/manager/TicketsList';
import { usePathname } from '../src/lib/router';
import type { Viewer } from '../src/lib/viewer';
import type { Ticket } from '../src/types';
import { ADMIN, answer, ATTENDANT, mockFetch, renderInbox, signInAs, ticket, type FetchCall } from './helpers';

/** The page's path, as the area reads it (the manager navigates through the page's history). */
function Where() {
  return <output data-testid="location">{usePathname()}</output>;
}

interface Api {
  pending?: Ticket[];
  open?: Ticket[];
  put?: (call: FetchCall) => ReturnType<typeof answer>;
  post?: (call: FetchCall) => ReturnType<typeof answer>;
  pages?: Record<number, { tickets: Ticket[]; hasMore: boolean }>;
  /** GET /queue's answer (default: two departments). */
  queues?: { id: number; name: string; color: string }[];
}

function api(o: Api = {}) {
  return mockFetch((call) => {
    const url = new URL(call.url);
    if (url.pathname === '/tickets' && call.method === 'GET') {
      const status = url.searchParams.get('status');
      const pageNumber = Number(url.searchParams.get('pageNumber'));
      if (o.pages && status === 'open') return answer(200, { ...o.pages[pageNumber], count: 99, counts: { open: 1, pending: 0, group: 0 } });
      const tickets = status === 'pending' ? (o.pending ?? []) : status === 'open' ? (o.open ?? []) : [];
      return answer(200, { tickets, count: tickets.length, hasMore: false, counts: { open: (o.open ?? []).length, pending: (o.pending ?? []).length, group: 0 } });
    }
    if (url.pathname.startsWith('/tickets/') && call.method === 'PUT') return o.put?.(call) ?? answer(200, { ...ticket({ id: Number(url.pathname.split('/')[2]) }), ...(call.body as object) });
    if (url.pathname === '/tickets' && call.method === 'POST') return o.post?.(call) ?? answer(500, { error: 'ERR_X' });
    if (url.pathname === '/queue') return answer(200, o.queues ?? [{ id: 10, name: 'Vendas', color: '#2E7D32' }, { id: 20, name: 'Financeiro', color: '#1565C0' }]);
    if (url.pathname === '/users/list')
      return answer(200, [
        { id: 7, name: 'Ana', queues: [{ id: 10, name: 'Vendas', color: '#2E7D32' }] },
        { id: 8, name: 'Bruno', queues: [{ id: 20, name: 'Financeiro', color: '#1565C0' }] },
        { id: 9, name: 'Carla', queues: [{ id: 10, name: 'Vendas', color: '#2E7D32' }, { id: 20, name: 'Financeiro', color: '#1565C0' }] },
      ]);
    if (url.pathname === '/contacts') return answer(200, { contacts: [{ id: 300, name: 'Marta Souza', number: '5511988887777', channel: 'whatsapp' }], count: 1, hasMore: false });
    if (url.pathname === '/whatsapp') return answer(200, [{ id: 5, name: 'Loja Centro', channel: 'whatsapp', status: 'CONNECTED' }, { id: 6, name: 'Desligada', channel: 'whatsapp', status: 'DISCONNECTED' }]);
    return answer(404, { error: 'ERR_NOT_FOUND' });
  });
}

const puts = (calls: FetchCall[]) => calls.filter((c) => c.method === 'PUT').map((c) => [new URL(c.url).pathname, c.body]);

function renderManager(viewer: Viewer) {
  signInAs({ id: viewer.id, profile: viewer.admin ? 'admin' : 'user', queues: viewer.queueIds.map((id) => ({ id, name: id === 10 ? 'Vendas' : `Q${id}`, color: '#000000' })) });
  return renderInbox(
    <>
      <TicketsManager viewer={viewer} openUuid={null} />
      <Where />
    </>,
  );
}

async function pendingRow(name: string) {
  fireEvent.click(await screen.findByTestId('subtab-pending'));
  return (await screen.findByText(name)).closest('[data-testid="ticket-row"]') as HTMLElement;
}

beforeEach(() => {
  window.localStorage.clear();
  act(() => session.signOut());
});

describe('row actions', () => {
  test('accept (ticket with a department): PUT {status open, userId}, the conversation opens and the open sub-tab shows', async () => {
    const t = ticket({ id: 21, status: 'pending', userId: null, queueId: 10, contact: { id: 1, name: 'Pedro', number: '55' } });
    const calls = api({ pending: [t], put: (c) => answer(200, { ...t, status: 'open', userId: 7, ...(c.body as object) }) });
    renderManager(ATTENDANT);
    const row = await pendingRow('Pedro');
    await act(async () => {
      fireEvent.click(within(row).getByTestId('ticket-accept'));
    });
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe(`/tickets/${t.uuid}`));
    expect(puts(calls)).toEqual([['/tickets/21', { status: 'open', userId: 7 }]]);
    expect(screen.getByTestId('subtab-open').getAttribute('aria-selected')).toBe('true');
    // The answer is applied at once: the ticket is in the open list without waiting for the socket.
    await screen.findByText('Pedro');
    expect(screen.getByTestId('ticket-row').getAttribute('data-status')).toBe('open');
  });

  test('accept a group ticket: status group', async () => {
    const t = ticket({ id: 22, status: 'pending', userId: null, isGroup: true, queueId: null, queue: null, contact: { id: 1, name: 'Grupo X', number: '120' } });
    const calls = api({ pending: [t] });
    renderManager(ADMIN);
    const row = await pendingRow('Grupo X');
    await act(async () => {
      fireEvent.click(within(row).getByTestId('ticket-accept'));
    });
    await waitFor(() => expect(puts(calls)).toEqual([['/tickets/22', { status: 'group', userId: 1 }]]));
  });

  test('accept without a department asks for one first (required)', async () => {
    const t = ticket({ id: 23, status: 'pending', userId: null, queueId: null, queue: null, contact: { id: 1, name: 'Sem Fila', number: '55' } });
    const calls = api({ pending: [t] });
    renderManager(ATTENDANT);
    const row = await pendingRow('Sem Fila');
    fireEvent.click(within(row).getByTestId('ticket-accept'));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('Aceitar ticket')).toBeTruthy();
    fireEvent.click(within(dialog).getByTestId('accept-submit'));
    expect(within(dialog).getByRole('alert').textContent).toBe('Selecione uma fila');
    expect(puts(calls)).toEqual([]);
    fireEvent.change(within(dialog).getByTestId('accept-queue'), { target: { value: '10' } });
    await act(async () => {
      fireEvent.click(within(dialog).getByTestId('accept-submit'));
    });
    await waitFor(() => expect(puts(calls)).toEqual([['/tickets/23', { status: 'open', userId: 7, queueId: 10 }]]));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(screen.getByTestId('location').textContent).toBe(`/tickets/${t.uuid}`);
  });

  test('a company without any queue (fresh from sign-up): accept goes through at once, with no queue step', async () => {
    const t = ticket({ id: 31, status: 'pending', userId: null, queueId: null, queue: null, contact: { id: 1, name: 'Primeiro Cliente', number: '55' } });
    const calls = api({ pending: [t], queues: [], put: (c) => answer(200, { ...t, status: 'open', userId: 1, ...(c.body as object) }) });
    renderManager(ADMIN);
    const row = await pendingRow('Primeiro Cliente');
    await waitFor(() => expect(calls.some((c) => new URL(c.url).pathname === '/queue')).toBe(true));
    await act(async () => {
      fireEvent.click(within(row).getByTestId('ticket-accept'));
    });
    await waitFor(() => expect(puts(calls)).toEqual([['/tickets/31', { status: 'open', userId: 1 }]]));
    expect(screen.queryByRole('dialog')).toBeNull();
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe(`/tickets/${t.uuid}`));
  });

  test('an agent with no queue of their own in a company with queues chooses among the company queues', async () => {
    const t = ticket({ id: 32, status: 'pending', userId: null, queueId: null, queue: null, contact: { id: 1, name: 'Cliente Geral', number: '55' } });
    const calls = api({ pending: [t] });
    renderManager({ ...ATTENDANT, queueIds: [] });
    const row = await pendingRow('Cliente Geral');
    fireEvent.click(within(row).getByTestId('ticket-accept'));
    const dialog = await screen.findByRole('dialog');
    await waitFor(() => expect(within(dialog).getByText('Financeiro')).toBeTruthy());
    fireEvent.change(within(dialog).getByTestId('accept-queue'), { target: { value: '20' } });
    await act(async () => {
      fireEvent.click(within(dialog).getByTestId('accept-submit'));
    });
    await waitFor(() => expect(puts(calls)).toEqual([['/tickets/32', { status: 'open', userId: 7, queueId: 20 }]]));
  });

  test('ignore: PUT {status closed, sendFarewellMessage false, amountUsedBotQueues 0}; the row leaves pending', async () => {
    const t = ticket({ id: 24, status: 'pending', userId: null, contact: { id: 1, name: 'Ignorado', number: '55' } });
    const calls = api({ pending: [t], put: () => answer(200, { ...t, status: 'closed' }) });
    renderManager(ATTENDANT);
    const row = await pendingRow('Ignorado');
    await act(async () => {
      fireEvent.click(within(row).getByTestId('ticket-ignore'));
    });
    await waitFor(() => expect(puts(calls)).toEqual([['/tickets/24', { status: 'closed', sendFarewellMessage: false, amountUsedBotQueues: 0 }]]));
    await waitFor(() => expect(screen.queryByText('Ignorado')).toBeNull());
  });

  test('a failed transition is toasted (translated)', async () => {
    const t = ticket({ id: 25, status: 'open', contact: { id: 1, name: 'Fechar', number: '55' } });
    api({ open: [t], put: () => answer(403, { error: 'ERR_NO_PERMISSION', message: 'x' }) });
    renderManager(ATTENDANT);
    const row = (await screen.findByText('Fechar')).closest('[data-testid="ticket-row"]') as HTMLElement;
    fireEvent.click(within(row).getByTestId('ticket-close'));
    await act(async () => {
      fireEvent.click(await screen.findByTestId('resolve-normal'));
    });
    // The API client retries a 403 once after a refresh; both fail here, and the code's translation shows.
    await screen.findByText('Você não tem permissão para acessar este recurso.', undefined, { timeout: 3000 });
    expect(screen.getByText('Fechar')).toBeTruthy();
  });

  test("the row's Resolver is the header's close: two choices; under requiredTag the contact's tag selector opens, then it closes", async () => {
    const t = ticket({ id: 27, status: 'open', contactId: 61, contact: { id: 61, name: 'Sem Etiqueta', number: '55' } });
    let tagged = false;
    const calls = mockFetch((call) => {
      const url = new URL(call.url);
      if (url.pathname === '/tickets' && call.method === 'GET') return answer(200, { tickets: [t], count: 1, hasMore: false, counts: { open: 1, pending: 0, group: 0 } });
      if (url.pathname === '/tickets/27' && call.method === 'PUT') return tagged ? answer(200, { ...t, status: 'closed' }) : answer(400, { error: 'ERR_REQUIRED_TAG', message: 'x' });
      if (url.pathname === '/tags/list') return answer(200, [{ id: 4, name: 'VIP', color: '#f00', kanban: 0 }, { id: 5, name: 'Lane', color: '#0f0', kanban: 1 }]);
      if (url.pathname === '/contactTags/61') return answer(200, { tags: tagged ? [{ id: 4, name: 'VIP', color: '#f00' }] : [] });
      if (url.pathname === '/tags/sync') {
        tagged = true;
        return answer(200, { id: 61, tags: [{ id: 4, name: 'VIP', color: '#f00' }] });
      }
      return answer(404, { error: 'ERR_NOT_FOUND' });
    });
    renderManager(ATTENDANT);
    const row = (await screen.findByText('Sem Etiqueta')).closest('[data-testid="ticket-row"]') as HTMLElement;
    fireEvent.click(within(row).getByTestId('ticket-close'));
    fireEvent.click(await screen.findByTestId('resolve-without-farewell'));
    expect((await screen.findByTestId('required-tag-message')).textContent).toBe('Adicione uma tag ao contato antes de finalizar o ticket.');
    expect(screen.getByTestId('required-tag-close')).toHaveProperty('disabled', true);
    // Plain tags only (kanban lanes are ticket tags).
    const options = await screen.findAllByTestId('tag-option');
    expect(options.map((o) => o.textContent)).toEqual(['VIP']);
    fireEvent.click(options[0]);
    await waitFor(() => expect(screen.getByTestId('required-tag-close')).toHaveProperty('disabled', false));
    expect(calls.find((c) => c.url.endsWith('/tags/sync'))!.body).toEqual({ contactId: 61, tags: [{ id: 4 }] });
    fireEvent.click(screen.getByTestId('required-tag-close'));
    await screen.findByText('Ticket encerrado com sucesso.');
    expect(puts(calls)).toEqual([
      ['/tickets/27', { status: 'closed', sendFarewellMessage: false }],
      ['/tickets/27', { status: 'closed', sendFarewellMessage: false }],
    ]);
  });

  test('transfer: department required, users of the department only, PUT {queueId, userId, status}', async () => {
    const t = ticket({ id: 26, status: 'open', queueId: 10, contact: { id: 1, name: 'Transferido', number: '55' } });
    const calls = api({ open: [t] });
    renderManager(ATTENDANT);
    const row = (await screen.findByText('Transferido')).closest('[data-testid="ticket-row"]') as HTMLElement;
    fireEvent.click(within(row).getByTestId('ticket-transfer'));
    const dialog = await screen.findByRole('dialog');
    await within(dialog).findByText('Financeiro');
    // The current department is preselected; its users are offered.
    expect((within(dialog).getByTestId('transfer-queue') as HTMLSelectElement).value).toBe('10');
    await waitFor(() => expect(within(within(dialog).getByTestId('transfer-user')).getAllByRole('option').map((o) => o.textContent)).toEqual(['Sem usuário (aguardando na fila)', 'Ana', 'Carla']));
    fireEvent.change(within(dialog).getByTestId('transfer-queue'), { target: { value: '' } });
    fireEvent.click(within(dialog).getByTestId('transfer-submit'));
    expect(within(dialog).getByRole('alert').textContent).toBe('Selecione uma fila');
    fireEvent.change(within(dialog).getByTestId('transfer-queue'), { target: { value: '20' } });
    expect(within(within(dialog).getByTestId('transfer-user')).getAllByRole('option').map((o) => o.textContent)).toEqual(['Sem usuário (aguardando na fila)', 'Bruno', 'Carla']);
    fireEvent.change(within(dialog).getByTestId('transfer-user'), { target: { value: '8' } });
    await act(async () => {
      fireEvent.click(within(dialog).getByTestId('transfer-submit'));
    });
    await waitFor(() => expect(puts(calls)).toEqual([['/tickets/26', { queueId: 20, userId: 8, status: 'open' }]]));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(screen.getByTestId('location').textContent).toBe('/tickets');
  });

  test('transfer to a department only: status pending, no user', async () => {
    const t = ticket({ id: 27, status: 'open', queueId: 10, contact: { id: 1, name: 'Para Fila', number: '55' } });
    const calls = api({ open: [t] });
    renderManager(ATTENDANT);
    const row = (await screen.findByText('Para Fila')).closest('[data-testid="ticket-row"]') as HTMLElement;
    fireEvent.click(within(row).getByTestId('ticket-transfer'));
    const dialog = await screen.findByRole('dialog');
    await within(dialog).findByText('Financeiro');
    fireEvent.change(within(dialog).getByTestId('transfer-queue'), { target: { value: '20' } });
    await act(async () => {
      fireEvent.click(within(dialog).getByTestId('transfer-submit'));
    });
    await waitFor(() => expect(puts(calls)).toEqual([['/tickets/27', { queueId: 20, userId: null, status: 'pending' }]]));
    // The answer (queue 20, which the attendant does not serve) takes the row out of the lists.
    await waitFor(() => expect(screen.queryByText('Para Fila')).toBeNull());
  });

  test('reopen a closed ticket whose contact is served by another user: the info dialog names them', async () => {
    const closed = ticket({ id: 28, status: 'closed', contact: { id: 1, name: 'Reaberto', number: '55' } });
    const calls = mockFetch((call) => {
      const url = new URL(call.url);
      if (url.pathname === '/tickets' && url.searchParams.get('status') === 'closed') return answer(200, { tickets: [closed], count: 1, hasMore: false, counts: { open: 0, pending: 0, group: 0 } });
      if (call.method === 'PUT') return answer(200, ticket({ id: 99, status: 'open', userId: 8, user: { id: 8, name: 'Bruno' }, queue: { id: 20, name: 'Financeiro', color: '#000' } }));
      return answer(200, { tickets: [], count: 0, hasMore: false, counts: { open: 0, pending: 0, group: 0 } });
    });
    renderManager(ATTENDANT);
    fireEvent.click(await screen.findByTestId('tab-closed'));
    const row = (await screen.findByText('Reaberto')).closest('[data-testid="ticket-row"]') as HTMLElement;
    await act(async () => {
      fireEvent.click(within(row).getByTestId('ticket-reopen'));
    });
    expect((await screen.findByTestId('other-open-message')).textContent).toBe('Já existe um ticket aberto para este contato com o usuário Bruno na fila Financeiro.');
    expect(puts(calls)).toEqual([['/tickets/28', { status: 'open', userId: 7 }]]);
    expect(screen.getByTestId('location').textContent).toBe('/tickets');
  });
});

describe('new ticket', () => {
  async function openNew() {
    fireEvent.click(await screen.findByTestId('speed-dial'));
    fireEvent.click(screen.getByTestId('speed-dial-new'));
    return screen.findByRole('dialog');
  }
  const contactCalls = (calls: FetchCall[]) => calls.filter((c) => new URL(c.url).pathname === '/contacts').map((c) => new URL(c.url).searchParams.get('searchParam'));

  test('contact search from 3 characters; department required for attendants; POST /tickets then the ticket opens', async () => {
    const created = ticket({ id: 400, status: 'open', contact: { id: 300, name: 'Marta Souza', number: '55' } });
    const calls = api({ post: () => answer(200, created) });
    renderManager(ATTENDANT);
    const dialog = await openNew();
    fireEvent.change(within(dialog).getByTestId('new-ticket-search'), { target: { value: 'Ma' } });
    await new Promise((r) => setTimeout(r, 700));
    expect(contactCalls(calls)).toEqual([]);
    fireEvent.change(within(dialog).getByTestId('new-ticket-search'), { target: { value: 'Mar' } });
    fireEvent.click(await within(dialog).findByTestId('new-ticket-contact-option', undefined, { timeout: 2000 }));
    expect(contactCalls(calls)).toEqual(['mar']);
    expect(within(dialog).getByTestId('new-ticket-contact').textContent).toContain('Marta Souza');
    // Only connected connections are offered.
    expect(within(within(dialog).getByTestId('new-ticket-connection')).getAllByRole('option').map((o) => o.textContent)).toEqual(['Conexão padrão', 'Loja Centro (WhatsApp)']);
    fireEvent.click(within(dialog).getByTestId('new-ticket-submit'));
    expect(within(dialog).getByRole('alert').textContent).toBe('Selecione uma fila');
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
    fireEvent.change(within(dialog).getByTestId('new-ticket-queue'), { target: { value: '10' } });
    fireEvent.change(within(dialog).getByTestId('new-ticket-connection'), { target: { value: '5' } });
    await act(async () => {
      fireEvent.click(within(dialog).getByTestId('new-ticket-submit'));
    });
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe(`/tickets/${created.uuid}`));
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.body)).toEqual([{ contactId: 300, queueId: 10, whatsappId: 5, userId: 7, status: 'open' }]);
  });

  test('a new number: normalised with the phone library, the contact created (name optional) on the chosen connection\'s channel, then the ticket opens', async () => {
    const created = ticket({ id: 402, status: 'open', contact: { id: 310, name: '+55 11 98765 4321', number: '5511987654321' } });
    const calls = mockFetch((call) => {
      const url = new URL(call.url);
      if (url.pathname === '/tickets' && call.method === 'GET') return answer(200, { tickets: [], count: 0, hasMore: false, counts: { open: 0, pending: 0, group: 0 } });
      if (url.pathname === '/contacts' && call.method === 'POST') return answer(200, { id: 310, ...(call.body as object) });
      if (url.pathname === '/tickets' && call.method === 'POST') return answer(200, created);
      if (url.pathname === '/whatsapp') return answer(200, [{ id: 5, name: 'Loja Centro', channel: 'whatsapp', status: 'CONNECTED' }, { id: 6, name: 'Página', channel: 'facebook', status: 'CONNECTED' }, { id: 7, name: 'Cloud', channel: 'whatsappapi', status: 'CONNECTED' }]);
      return answer(404, { error: 'ERR_NOT_FOUND' });
    });
    renderManager(ATTENDANT);
    const dialog = await openNew();
    fireEvent.click(within(dialog).getByTestId('new-ticket-mode-new'));
    const input = await within(dialog).findByTestId('new-number');
    fireEvent.change(input, { target: { value: '12ab' } });
    await act(async () => {
      fireEvent.click(within(dialog).getByTestId('new-ticket-submit'));
    });
    expect(within(dialog).getAllByText('Número inválido').length).toBeGreaterThan(0);
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
    fireEvent.change(input, { target: { value: '(11) 98765-4321' } });
    expect(await within(dialog).findByText('+55 11 98765 4321')).toBeTruthy();
    // Numbers go on WhatsApp connections only.
    expect(within(within(dialog).getByTestId('new-ticket-connection')).getAllByRole('option').map((o) => o.textContent)).toEqual(['Conexão padrão', 'Loja Centro (WhatsApp)', 'Cloud (WhatsApp API)']);
    fireEvent.change(within(dialog).getByTestId('new-ticket-queue'), { target: { value: '10' } });
    fireEvent.change(within(dialog).getByTestId('new-ticket-connection'), { target: { value: '7' } });
    await act(async () => {
      fireEvent.click(within(dialog).getByTestId('new-ticket-submit'));
    });
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe(`/tickets/${created.uuid}`));
    expect(calls.filter((c) => c.method === 'POST').map((c) => [new URL(c.url).pathname, c.body])).toEqual([
      ['/contacts', { name: '+55 11 98765 4321', number: '5511987654321', channel: 'whatsappapi' }],
      ['/tickets', { contactId: 310, queueId: 10, whatsappId: 7, userId: 7, status: 'open' }],
    ]);
  });

  test('admins may open a ticket without a department', async () => {
    const calls = api({ post: () => answer(200, ticket({ id: 401 })) });
    renderManager(ADMIN);
    const dialog = await openNew();
    fireEvent.change(within(dialog).getByTestId('new-ticket-search'), { target: { value: 'mart' } });
    fireEvent.click(await within(dialog).findByTestId('new-ticket-contact-option', undefined, { timeout: 2000 }));
    await act(async () => {
      fireEvent.click(within(dialog).getByTestId('new-ticket-submit'));
    });
    await waitFor(() => expect(calls.filter((c) => c.method === 'POST').map((c) => c.body)).toEqual([{ contactId: 300, queueId: null, whatsappId: null, userId: 1, status: 'open' }]));
  });

  test('409 ERR_OTHER_OPEN_TICKET of another user: the info dialog names the user and the department', async () => {
    // As the API answers it: the ticket as a JSON string in `error` (for the product family's client), the code in `code`.
    const facts = { ticketId: 5, uuid: 'u-5', userId: 8, user: { id: 8, name: 'Bruno' }, queue: { id: 20, name: 'Financeiro', color: '#000' } };
    api({ post: () => answer(409, { error: JSON.stringify({ code: 'ERR_OTHER_OPEN_TICKET', id: 5, ...facts }), code: 'ERR_OTHER_OPEN_TICKET', message: 'x', ...facts }) });
    renderManager(ADMIN);
    const dialog = await openNew();
    fireEvent.change(within(dialog).getByTestId('new-ticket-search'), { target: { value: 'mart' } });
    fireEvent.click(await within(dialog).findByTestId('new-ticket-contact-option', undefined, { timeout: 2000 }));
    await act(async () => {
      fireEvent.click(within(dialog).getByTestId('new-ticket-submit'));
    });
    expect((await screen.findByTestId('other-open-message')).textContent).toBe('Já existe um ticket aberto para este contato com o usuário Bruno na fila Financeiro.');
    expect(screen.getByTestId('location').textContent).toBe('/tickets');
  });

  test('409 of a ticket of mine: it opens (also the product family’s JSON-in-error form)', async () => {
    api({ post: () => answer(409, { error: JSON.stringify({ id: 6, uuid: 'u-6', userId: 1, user: { id: 1, name: 'Eu' }, queue: null }) }) });
    renderManager(ADMIN);
    const dialog = await openNew();
    fireEvent.change(within(dialog).getByTestId('new-ticket-search'), { target: { value: 'mart' } });
    fireEvent.click(await within(dialog).findByTestId('new-ticket-contact-option', undefined, { timeout: 2000 }));
    await act(async () => {
      fireEvent.click(within(dialog).getByTestId('new-ticket-submit'));
    });
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/tickets/u-6'));
  });

  test('other errors are toasted', async () => {
    api({ post: () => answer(404, { error: 'ERR_NO_DEF_WAPP_FOUND', message: 'x' }) });
    renderManager(ADMIN);
    const dialog = await openNew();
    fireEvent.change(within(dialog).getByTestId('new-ticket-search'), { target: { value: 'mart' } });
    fireEvent.click(await within(dialog).findByTestId('new-ticket-contact-option', undefined, { timeout: 2000 }));
    await act(async () => {
      fireEvent.click(within(dialog).getByTestId('new-ticket-submit'));
    });
    await screen.findByText('Nenhuma conexão padrão encontrada. Verifique a página de conexões.');
    expect(screen.getByRole('dialog')).toBeTruthy();
  });
});

describe('infinite scroll', () => {
  test('nearBottom: within 100 px', () => {
    expect(nearBottom({ scrollHeight: 1000, scrollTop: 500, clientHeight: 400 })).toBe(true);
    expect(nearBottom({ scrollHeight: 1000, scrollTop: 499, clientHeight: 400 })).toBe(false);
    expect(nearBottom({ scrollHeight: 300, scrollTop: 0, clientHeight: 400 })).toBe(true);
  });

  test('the next page (pageNumber 2) loads when scrolled within 100 px of the bottom, not before', async () => {
    const page1 = Array.from({ length: 3 }, (_, i) => ticket({ id: 500 + i, contact: { id: 1, name: `Primeira ${i}`, number: '55' } }));
    const page2 = [ticket({ id: 502, contact: { id: 1, name: 'Primeira 2', number: '55' } }), ticket({ id: 600, contact: { id: 1, name: 'Segunda', number: '55' } })];
    let top = 0;
    const props = {
      scrollHeight: { configurable: true, get: () => 1000 },
      clientHeight: { configurable: true, get: () => 400 },
      scrollTop: { configurable: true, get: () => top, set: (v: number) => (top = v) },
    };
    const saved = Object.fromEntries(Object.keys(props).map((k) => [k, Object.getOwnPropertyDescriptor(HTMLElement.prototype, k) ?? Object.getOwnPropertyDescriptor(Element.prototype, k)]));
    Object.defineProperties(HTMLElement.prototype, props);
    try {
      const calls = api({ pages: { 1: { tickets: page1, hasMore: true }, 2: { tickets: page2, hasMore: false } } });
      renderManager(ATTENDANT);
      await screen.findByText('Primeira 0');
      await new Promise((r) => setTimeout(r, 100));
      const pagesAsked = () => calls.filter((c) => new URL(c.url).pathname === '/tickets').map((c) => new URL(c.url).searchParams.get('pageNumber'));
      expect(pagesAsked()).toEqual(['1']);
      const scroller = screen.getByTestId('tickets-scroller');
      top = 499;
      fireEvent.scroll(scroller);
      await new Promise((r) => setTimeout(r, 50));
      expect(pagesAsked()).toEqual(['1']);
      top = 500;
      fireEvent.scroll(scroller);
      await screen.findByText('Segunda');
      expect(pagesAsked()).toEqual(['1', '2']);
      // A row repeated by the next page shows once.
      expect(screen.getAllByTestId('ticket-row').map((r) => r.getAttribute('data-ticket-id'))).toEqual(['500', '501', '502', '600']);
      fireEvent.scroll(scroller);
      await new Promise((r) => setTimeout(r, 50));
      expect(pagesAsked()).toEqual(['1', '2']);
    } finally {
      for (const [k, d] of Object.entries(saved)) {
        if (d) Object.defineProperty(HTMLElement.prototype, k, d);
        else delete (HTMLElement.prototype as unknown as Record<string, unknown>)[k];
      }
    }
  });
});
