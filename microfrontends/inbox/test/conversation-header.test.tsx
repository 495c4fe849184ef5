/** @jest-environment jsdom */
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session } from '@atendo/web-api';
import { answer, API, mockFetch, renderWithProviders, type FetchCall } from './conversation-helpers';
import { ConversationHeader } from '../src/conversation/Header';
import { ContactDrawer } from '../src/conversation/ContactDrawer';
import type { Ticket } from '../src/conversation/types';

const ME = { id: 7, companyId: 3, name: 'Ana', email: 'ana@example.com', profile: 'user', super: false, queues: [{ id: 3, name: 'Vendas', color: '#f00' }, { id: 4, name: 'Suporte', color: '#0f0' }] };

function ticket(over: Partial<Ticket> = {}): Ticket {
  return {
    id: 11,
    uuid: '11111111-1111-4111-8111-111111111111',
    status: 'open',
    companyId: 3,
    contactId: 21,
    whatsappId: 2,
    queueId: 3,
    userId: 7,
    isGroup: false,
    channel: 'whatsapp',
    contact: { id: 21, name: 'Maria Cliente', number: '55119****4321', email: 'maria@example.com', active: true, disableBot: false, extraInfo: [{ name: 'CPF', value: '123' }] },
    queue: { id: 3, name: 'Vendas', color: '#f00' },
    user: { id: 7, name: 'Ana' },
    ...over,
  };
}

let calls: FetchCall[];
const puts = () => calls.filter((c) => c.method === 'PUT' && c.url === `${API}/tickets/11`);

function renderHeader(t: Ticket) {
  const props = { onTicketChange: jest.fn(), onLeave: jest.fn(), onOpenTicket: jest.fn(), onToggleContact: jest.fn() };
  renderWithProviders(<ConversationHeader ticket={t} {...props} />);
  return props;
}

beforeEach(() => {
  session.signIn(ME);
});
afterEach(() => {
  cleanup();
  session.signOut();
});

describe('ConversationHeader', () => {

  test("the schedule action (plan useSchedules) opens /schedules' dialog for the ticket's contact", async () => {
    calls = mockFetch((c) => (c.url === `${API}/companies/listPlan/3` ? answer(200, { id: 3, name: 'Loja', plan: { useSchedules: true } }) : answer(404)));
    renderHeader(ticket({ contactId: 21 }));
    fireEvent.click(await screen.findByRole('button', { name: 'Agendar mensagem' }));
    expect(`${window.location.pathname}${window.location.search}`).toBe('/schedules?contactId=21');
    cleanup();
    calls = mockFetch((c) => (c.url === `${API}/companies/listPlan/3` ? answer(200, { id: 3, name: 'Loja', plan: { useSchedules: false } }) : answer(404)));
    renderHeader(ticket());
    await waitFor(() => expect(calls.some((c) => c.url === `${API}/companies/listPlan/3`)).toBe(true));
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByTestId('action-schedule')).toBeNull();
  });
  test('shows the contact as served, status, queue tag and assigned user', () => {
    calls = mockFetch(() => answer(404));
    renderHeader(ticket());
    expect(screen.getByTestId('contact-name').textContent).toBe('Maria Cliente');
    expect(screen.getByTestId('contact-number').textContent).toBe('55119****4321');
    expect(screen.getByTestId('ticket-status').textContent).toBe('Em atendimento');
    expect(screen.getByTestId('queue-tag').textContent).toBe('Vendas');
    expect(screen.getByTestId('assigned-user').textContent).toBe('Atendente: Ana');
    expect(screen.queryByTestId('action-accept')).toBeNull();
    expect(screen.queryByTestId('action-delete')).toBeNull();
  });

  test("a pending ticket without queue: accept goes through the queue step ('SEM FILA' tag)", async () => {
    calls = mockFetch((c) => (c.method === 'PUT' ? answer(200, ticket({ status: 'open', queueId: 4, queue: { id: 4, name: 'Suporte', color: '#0f0' } })) : answer(404)));
    const props = renderHeader(ticket({ status: 'pending', queueId: null, queue: null, userId: null, user: null }));
    expect(screen.getByTestId('queue-tag').textContent).toBe('SEM FILA');
    expect(screen.getByTestId('ticket-status').textContent).toBe('Aguardando');
    fireEvent.click(screen.getByTestId('action-accept'));
    const step = await screen.findByTestId('queue-step');
    fireEvent.click(within(step).getByTestId('queue-step-confirm'));
    expect(await within(step).findByText('Selecione uma fila', { selector: '[role=alert]' })).toBeTruthy();
    expect(puts()).toHaveLength(0);
    fireEvent.change(within(step).getByTestId('queue-step-select'), { target: { value: '4' } });
    fireEvent.click(within(step).getByTestId('queue-step-confirm'));
    await waitFor(() => expect(puts()).toHaveLength(1));
    expect(puts()[0].body).toEqual({ status: 'open', userId: 7, queueId: 4 });
    await waitFor(() => expect(props.onTicketChange).toHaveBeenCalledWith(expect.objectContaining({ queueId: 4 })));
  });

  test('a pending group ticket with a queue is accepted at once as group', async () => {
    calls = mockFetch((c) => (c.method === 'PUT' ? answer(200, ticket({ status: 'group', isGroup: true })) : answer(404)));
    renderHeader(ticket({ status: 'pending', isGroup: true, userId: null, user: null }));
    fireEvent.click(screen.getByTestId('action-accept'));
    await waitFor(() => expect(puts()).toHaveLength(1));
    expect(puts()[0].body).toEqual({ status: 'group', userId: 7 });
  });

  test('return to queue: status pending without user, then back to the list', async () => {
    calls = mockFetch((c) => (c.method === 'PUT' ? answer(200, ticket({ status: 'pending', userId: null })) : answer(404)));
    const props = renderHeader(ticket());
    fireEvent.click(screen.getByTestId('action-return'));
    await waitFor(() => expect(props.onLeave).toHaveBeenCalled());
    expect(puts()[0].body).toEqual({ status: 'pending', userId: null });
  });

  test('transfer: the department is required; with a user the ticket stays open', async () => {
    calls = mockFetch((c) => {
      if (c.url === `${API}/queue`) return answer(200, [{ id: 3, name: 'Vendas', color: '#f00' }, { id: 4, name: 'Suporte', color: '#0f0' }]);
      if (c.url === `${API}/users/list`) return answer(200, [{ id: 7, name: 'Ana' }, { id: 8, name: 'Bruno' }]);
      if (c.method === 'PUT') return answer(200, ticket({ userId: 8, queueId: 4 }));
      return answer(404);
    });
    const props = renderHeader(ticket());
    fireEvent.click(screen.getByTestId('action-transfer'));
    const form = await screen.findByTestId('transfer-form');
    await within(form).findByRole('option', { name: 'Bruno' });
    fireEvent.change(within(form).getByTestId('transfer-queue'), { target: { value: '' } });
    fireEvent.click(within(form).getByTestId('transfer-confirm'));
    expect(await within(form).findByText('Selecione uma fila', { selector: '[role=alert]' })).toBeTruthy();
    fireEvent.change(within(form).getByTestId('transfer-queue'), { target: { value: '4' } });
    fireEvent.change(within(form).getByTestId('transfer-user'), { target: { value: '8' } });
    fireEvent.click(within(form).getByTestId('transfer-confirm'));
    await waitFor(() => expect(puts()).toHaveLength(1));
    expect(puts()[0].body).toEqual({ queueId: 4, userId: 8, status: 'open' });
    await waitFor(() => expect(props.onLeave).toHaveBeenCalled());
  });

  test('transfer to a department only: pending, no user', async () => {
    calls = mockFetch((c) => {
      if (c.url === `${API}/queue`) return answer(200, [{ id: 4, name: 'Suporte', color: '#0f0' }]);
      if (c.url === `${API}/users/list`) return answer(200, []);
      if (c.method === 'PUT') return answer(200, ticket({ status: 'pending', userId: null, queueId: 4 }));
      return answer(404);
    });
    renderHeader(ticket({ queueId: null, queue: null }));
    fireEvent.click(screen.getByTestId('action-transfer'));
    const form = await screen.findByTestId('transfer-form');
    await within(form).findByRole('option', { name: 'Suporte' });
    fireEvent.change(within(form).getByTestId('transfer-queue'), { target: { value: '4' } });
    fireEvent.click(within(form).getByTestId('transfer-confirm'));
    await waitFor(() => expect(puts()).toHaveLength(1));
    expect(puts()[0].body).toEqual({ queueId: 4, userId: null, status: 'pending' });
  });

  test('resolve: the two choices (without farewell sends sendFarewellMessage false); a required tag opens the tag selector, then it closes', async () => {
    let refuse = true;
    calls = mockFetch((c) => {
      if (c.url === `${API}/tags/list`) return answer(200, [{ id: 4, name: 'VIP', color: '#f00', kanban: 0 }]);
      if (c.url === `${API}/contactTags/21`) return answer(200, { tags: refuse ? [] : [{ id: 4, name: 'VIP', color: '#f00' }] });
      if (c.url === `${API}/tags/sync`) {
        refuse = false;
        return answer(200, { id: 21, tags: [{ id: 4, name: 'VIP', color: '#f00' }] });
      }
      if (c.method !== 'PUT') return answer(404);
      if (refuse) return answer(400, { error: 'ERR_REQUIRED_TAG', message: 'Add a tag' });
      return answer(200, ticket({ status: 'closed' }));
    });
    const props = renderHeader(ticket({ contactId: 21 }));
    fireEvent.click(screen.getByTestId('action-resolve'));
    fireEvent.click(await screen.findByTestId('resolve-normal'));
    expect((await screen.findByTestId('required-tag-message')).textContent).toBe('Adicione uma tag ao contato antes de finalizar o ticket.');
    expect(puts()[0].body).toEqual({ status: 'closed' });
    expect(props.onLeave).not.toHaveBeenCalled();
    fireEvent.click(await screen.findByTestId('tag-option'));
    await waitFor(() => expect(screen.getByTestId('required-tag-close')).toHaveProperty('disabled', false));
    fireEvent.click(screen.getByTestId('required-tag-close'));
    await waitFor(() => expect(props.onLeave).toHaveBeenCalled());
    expect(puts()[1].body).toEqual({ status: 'closed' });
    await screen.findByText('Ticket encerrado com sucesso.');
    fireEvent.click(screen.getByTestId('action-resolve'));
    fireEvent.click(await screen.findByTestId('resolve-without-farewell'));
    await waitFor(() => expect(puts()).toHaveLength(3));
    expect(puts()[2].body).toEqual({ status: 'closed', sendFarewellMessage: false });
  });

  test('reopen answered by another user’s ticket names that user and queue', async () => {
    calls = mockFetch((c) => (c.method === 'PUT' ? answer(200, { ...ticket({ id: 99, uuid: '99999999-9999-4999-8999-999999999999', userId: 8, status: 'open' }), user: { id: 8, name: 'Bruno' }, queue: { id: 4, name: 'Suporte', color: '#0f0' } }) : answer(404)));
    const props = renderHeader(ticket({ status: 'closed' }));
    fireEvent.click(screen.getByTestId('action-reopen'));
    await screen.findByText('Este contato já está em atendimento com Bruno na fila Suporte.');
    expect(puts()[0].body).toEqual({ status: 'open', userId: 7 });
    expect(props.onOpenTicket).not.toHaveBeenCalled();
  });

  test('reopen answered by our own other ticket opens it', async () => {
    calls = mockFetch((c) => (c.method === 'PUT' ? answer(200, ticket({ id: 99, uuid: '99999999-9999-4999-8999-999999999999', userId: 7 })) : answer(404)));
    const props = renderHeader(ticket({ status: 'closed' }));
    fireEvent.click(screen.getByTestId('action-reopen'));
    await waitFor(() => expect(props.onOpenTicket).toHaveBeenCalledWith('99999999-9999-4999-8999-999999999999'));
  });

  test('delete: admins only, with confirmation, success toast and back to the list', async () => {
    session.signIn({ ...ME, profile: 'admin' });
    calls = mockFetch((c) => (c.method === 'DELETE' ? answer(200, { message: 'Ticket deleted' }) : answer(404)));
    const props = renderHeader(ticket());
    fireEvent.click(screen.getByTestId('action-delete'));
    expect(await screen.findByText('Todas as mensagens relacionadas a este ticket serão perdidas.')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'DELETE')).toHaveLength(0);
    fireEvent.click(screen.getByTestId('confirm-dialog-confirm'));
    await screen.findByText('Ticket excluído com sucesso.');
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.url)).toEqual([`${API}/tickets/11`]);
    expect(props.onLeave).toHaveBeenCalled();
  });

  test('the ticket log lists its timeline', async () => {
    calls = mockFetch((c) =>
      c.url === `${API}/tickets-log/11`
        ? answer(200, [
            { id: 1, type: 'create', createdAt: '2026-05-10T10:00:00.000Z', user: null, queue: null },
            { id: 2, type: 'queue', createdAt: '2026-05-10T10:01:00.000Z', user: null, queue: { id: 3, name: 'Vendas', color: '#f00' } },
            { id: 3, type: 'open', createdAt: '2026-05-10T10:02:00.000Z', user: { id: 7, name: 'Ana' }, queue: null },
            { id: 4, type: 'transfered', createdAt: '2026-05-10T10:03:00.000Z', user: { id: 7, name: 'Ana' }, queue: null },
          ])
        : answer(404),
    );
    renderHeader(ticket());
    fireEvent.click(screen.getByTestId('action-log'));
    const log = await screen.findByTestId('ticket-log');
    expect(within(log).getAllByRole('listitem').map((li) => li.firstElementChild?.nextElementSibling?.firstElementChild?.textContent)).toEqual([
      'Ticket criado',
      'Fila definida: Vendas',
      'Atendimento iniciado por Ana',
      'Transferido por Ana',
    ]);
  });
});

describe('ContactDrawer', () => {
  const contactAnswer = { id: 21, name: 'Maria Cliente', number: '55119****4321', email: 'maria@example.com', active: true, disableBot: false, extraInfo: [{ id: 1, name: 'CPF', value: '123.456.789-00' }] };

  test('block and unblock with toasts; bot toggle; extra info', async () => {
    let active = true;
    calls = mockFetch((c) => {
      if (c.url === `${API}/contacts/21` && c.method === 'GET') return answer(200, contactAnswer);
      if (c.url === `${API}/contacts/block/21`) {
        active = (c.body as { active: boolean }).active;
        return answer(200, { ...contactAnswer, active });
      }
      if (c.url === `${API}/contacts/toggleDisableBot/21`) return answer(200, { ...contactAnswer, active, disableBot: true });
      if (c.url.startsWith(`${API}/ticket-notes/list`)) return answer(200, []);
      return answer(404);
    });
    const onContactChange = jest.fn();
    renderWithProviders(<ContactDrawer ticket={ticket()} onClose={jest.fn()} onContactChange={onContactChange} />);
    expect(screen.getByTestId('drawer-number').textContent).toBe('55119****4321');
    await screen.findByText('123.456.789-00');
    fireEvent.click(screen.getByTestId('contact-block'));
    await screen.findByText('Contato bloqueado');
    expect(calls.find((c) => c.url === `${API}/contacts/block/21`)!.body).toEqual({ active: false });
    await waitFor(() => expect(screen.getByTestId('contact-block').textContent).toBe('Desbloquear'));
    fireEvent.click(screen.getByTestId('contact-block'));
    await screen.findByText('Contato desbloqueado');
    fireEvent.click(screen.getByTestId('contact-disable-bot'));
    await waitFor(() => expect((screen.getByTestId('contact-disable-bot') as HTMLInputElement).checked).toBe(true));
    expect(onContactChange).toHaveBeenCalledWith(expect.objectContaining({ disableBot: true }));
  });

  test('notes: minimum 2 characters, add, delete with confirmation', async () => {
    const notes = [{ id: 5, note: 'Cliente VIP', createdAt: '2026-05-10T10:00:00.000Z', user: { id: 7, name: 'Ana' }, ticketId: 11, contactId: 21 }];
    calls = mockFetch((c) => {
      if (c.url === `${API}/contacts/21`) return answer(200, contactAnswer);
      if (c.url === `${API}/ticket-notes/list?ticketId=11&contactId=21`) return answer(200, notes);
      if (c.url === `${API}/ticket-notes` && c.method === 'POST') return answer(200, { id: 6, note: (c.body as { note: string }).note, createdAt: new Date().toISOString(), user: { id: 7, name: 'Ana' }, ticketId: 11, contactId: 21 });
      if (c.url === `${API}/ticket-notes/5` && c.method === 'DELETE') return answer(200, { message: 'Note deleted' });
      return answer(404);
    });
    renderWithProviders(<ContactDrawer ticket={ticket()} onClose={jest.fn()} onContactChange={jest.fn()} />);
    await screen.findByText('Cliente VIP');
    fireEvent.change(screen.getByTestId('note-text'), { target: { value: ' a ' } });
    fireEvent.click(screen.getByTestId('note-add'));
    expect((await screen.findByRole('alert')).textContent).toBe('Muito curto!');
    expect(calls.filter((c) => c.url === `${API}/ticket-notes`)).toHaveLength(0);
    fireEvent.change(screen.getByTestId('note-text'), { target: { value: 'Prefere contato à tarde' } });
    fireEvent.click(screen.getByTestId('note-add'));
    await screen.findByText('Observação adicionada com sucesso!');
    expect(calls.find((c) => c.url === `${API}/ticket-notes`)!.body).toEqual({ note: 'Prefere contato à tarde', ticketId: 11, contactId: 21 });
    expect(screen.getAllByTestId('note').map((n) => n.textContent?.split(' · ')[0])).toEqual(['Prefere contato à tardeAna', 'Cliente VIPAna']);
    fireEvent.click(within(screen.getAllByTestId('note')[1]).getByRole('button', { name: 'Excluir observação' }));
    expect(await screen.findByText('Deseja realmente excluir este registro?')).toBeTruthy();
    fireEvent.click(screen.getByTestId('confirm-dialog-confirm'));
    await screen.findByText('Observação excluída com sucesso!');
    expect(screen.getAllByTestId('note')).toHaveLength(1);
  });

  test('edit: name required 2..50, email valid, PUT name/email', async () => {
    calls = mockFetch((c) => {
      if (c.url === `${API}/contacts/21` && c.method === 'GET') return answer(200, contactAnswer);
      if (c.url === `${API}/contacts/21` && c.method === 'PUT') return answer(200, { ...contactAnswer, ...(c.body as object) });
      if (c.url.startsWith(`${API}/ticket-notes/list`)) return answer(200, []);
      return answer(404);
    });
    const onContactChange = jest.fn();
    renderWithProviders(<ContactDrawer ticket={ticket()} onClose={jest.fn()} onContactChange={onContactChange} />);
    fireEvent.click(screen.getByTestId('contact-edit'));
    const form = screen.getByTestId('contact-edit-form');
    fireEvent.change(within(form).getByLabelText('Nome'), { target: { value: 'M' } });
    fireEvent.change(within(form).getByLabelText('E-mail'), { target: { value: 'not-an-email' } });
    fireEvent.submit(form);
    expect(await within(form).findByText('Muito curto!')).toBeTruthy();
    expect(within(form).getByText('E-mail inválido')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(0);
    fireEvent.change(within(form).getByLabelText('Nome'), { target: { value: 'Maria Souza' } });
    fireEvent.change(within(form).getByLabelText('E-mail'), { target: { value: 'maria@souza.com' } });
    fireEvent.submit(form);
    await screen.findByText('Contato salvo com sucesso.');
    expect(calls.find((c) => c.method === 'PUT')!.body).toEqual({ name: 'Maria Souza', email: 'maria@souza.com', extraInfo: [{ name: 'CPF', value: '123' }] });
    expect(onContactChange).toHaveBeenCalledWith(expect.objectContaining({ name: 'Maria Souza' }));
  });

  test('edit: the number (8..50, the masked number kept as shown) and the extra info fields; accept-audio toggle; contact tags', async () => {
    calls = mockFetch((c) => {
      if (c.url === `${API}/contacts/21` && c.method === 'GET') return answer(200, { ...contactAnswer, acceptAudioMessage: true });
      if (c.url === `${API}/contacts/21` && c.method === 'PUT') return answer(200, { ...contactAnswer, ...(c.body as object) });
      if (c.url === `${API}/contacts/toggleAcceptAudio/21`) return answer(200, { ...contactAnswer, acceptAudioMessage: false });
      if (c.url === `${API}/tags/list`) return answer(200, [{ id: 4, name: 'VIP', color: '#f00', kanban: 0 }]);
      if (c.url === `${API}/contactTags/21`) return answer(200, { tags: [] });
      if (c.url === `${API}/tags/sync`) return answer(200, { id: 21, tags: [{ id: 4, name: 'VIP', color: '#f00' }] });
      if (c.url.startsWith(`${API}/ticket-notes/list`)) return answer(200, []);
      return answer(404);
    });
    const onContactChange = jest.fn();
    renderWithProviders(<ContactDrawer ticket={ticket()} onClose={jest.fn()} onContactChange={onContactChange} />);
    // Accept-audio toggle.
    const audio = await screen.findByTestId('contact-accept-audio');
    await waitFor(() => expect((audio as HTMLInputElement).checked).toBe(true));
    fireEvent.click(audio);
    await waitFor(() => expect(calls.some((c) => c.url.endsWith('/contacts/toggleAcceptAudio/21') && c.method === 'PUT')).toBe(true));
    // Contact tags.
    fireEvent.click(await within(screen.getByTestId('contact-tags')).findByTestId('tag-option'));
    await waitFor(() => expect(calls.find((c) => c.url.endsWith('/tags/sync'))?.body).toEqual({ contactId: 21, tags: [{ id: 4 }] }));
    await waitFor(() => expect(onContactChange).toHaveBeenCalledWith(expect.objectContaining({ tags: [expect.objectContaining({ id: 4 })] })));
    // Number and extra info.
    fireEvent.click(screen.getByTestId('contact-edit'));
    const form = screen.getByTestId('contact-edit-form');
    fireEvent.change(within(form).getByTestId('contact-edit-number'), { target: { value: '123' } });
    fireEvent.click(within(form).getByTestId('extra-add'));
    fireEvent.submit(form);
    expect(await within(form).findByText('O número precisa ter de 8 a 50 dígitos')).toBeTruthy();
    expect(within(form).getByText('Preencha o nome e o valor do campo')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'PUT' && c.url.endsWith('/contacts/21'))).toHaveLength(0);
    fireEvent.change(within(form).getByTestId('contact-edit-number'), { target: { value: '5511987654321' } });
    const names = within(form).getAllByTestId('extra-name');
    const values = within(form).getAllByTestId('extra-value');
    fireEvent.change(names[1], { target: { value: 'Plano' } });
    fireEvent.change(values[1], { target: { value: 'Ouro' } });
    fireEvent.click(within(form).getAllByTestId('extra-remove')[0]);
    fireEvent.submit(form);
    await screen.findByText('Contato salvo com sucesso.');
    expect(calls.find((c) => c.method === 'PUT' && c.url.endsWith('/contacts/21'))!.body).toEqual({ name: 'Maria Cliente', email: 'maria@example.com', number: '5511987654321', extraInfo: [{ name: 'Plano', value: 'Ouro' }] });
  });

  test('issue 34: admins see the opt-out state and reverse it (confirmed), export the contact and anonymize it after ticking the confirmation', async () => {
    session.signIn({ ...ME, profile: 'admin' });
    const created: string[] = [];
    (URL as unknown as { createObjectURL: (b: Blob) => string }).createObjectURL = () => {
      created.push('blob');
      return 'blob:x';
    };
    (URL as unknown as { revokeObjectURL: () => void }).revokeObjectURL = () => undefined;
    // The download link's click (jsdom cannot navigate).
    const click = jest.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    let anonymized = false;
    let optedOut = true;
    calls = mockFetch((c) => {
      const anon = { ...contactAnswer, name: '#21', number: 'anon-21', email: '', extraInfo: [] };
      if (c.url === `${API}/contacts/21` && c.method === 'GET') return answer(200, anonymized ? anon : contactAnswer);
      if (c.url === `${API}/contacts/21/privacy`) return answer(200, { contactId: 21, lgpdAcceptedAt: null, anonymizedAt: anonymized ? '2026-05-10T10:00:00.000Z' : null, optedOutAt: optedOut ? '2026-05-01T12:00:00.000Z' : null, optOutKeyword: optedOut ? 'SAIR' : null });
      if (c.url === `${API}/contacts/21/opt-out` && c.method === 'DELETE') {
        optedOut = false;
        return answer(200, { contactId: 21, optedOutAt: null, optOutKeyword: null, anonymizedAt: null });
      }
      if (c.url === `${API}/contacts/21/export`) return answer(200, { format: 'atendo.contact-export', contact: contactAnswer });
      if (c.url === `${API}/contacts/21/anonymize` && c.method === 'POST') {
        anonymized = true;
        return answer(200, { contactId: 21, tickets: 1, messages: 4, schedules: 0, listItems: 1, campaignRecipients: 1 });
      }
      if (c.url.startsWith(`${API}/ticket-notes/list`)) return answer(200, []);
      return answer(404);
    });
    const onContactChange = jest.fn();
    renderWithProviders(<ContactDrawer ticket={ticket()} onClose={jest.fn()} onContactChange={onContactChange} />);
    const section = within(await screen.findByTestId('contact-privacy'));
    await waitFor(() => expect(section.getByTestId('contact-opt-out-state').textContent).toMatch(/^Descadastrado em .* pela palavra SAIR$/));
    // Reversal at the customer's request: confirmed first.
    fireEvent.click(section.getByTestId('contact-opt-out-reverse'));
    const reverse = within(await screen.findByRole('dialog', { name: 'Reverter o descadastro?' }));
    fireEvent.click(reverse.getByTestId('confirm-dialog-confirm'));
    await screen.findByText('Descadastro revertido.');
    expect(calls.filter((c) => c.url.endsWith('/opt-out')).map((c) => c.method)).toEqual(['DELETE']);
    await waitFor(() => expect(section.getByTestId('contact-opt-out-state').textContent).toBe('Recebe campanhas e envios em massa'));
    expect(section.getByTestId('contact-opt-out-record')).toBeTruthy();

    // Export: the JSON document downloaded.
    fireEvent.click(section.getByTestId('contact-export'));
    await waitFor(() => expect(created).toEqual(['blob']));
    await screen.findByText('Dados exportados.');
    // Anonymize: nothing is sent until the irreversible action is ticked.
    await waitFor(() => expect((section.getByTestId('contact-anonymize') as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(section.getByTestId('contact-anonymize'));
    const dialog = within(await screen.findByRole('dialog', { name: 'Anonimizar este contato?' }));
    const confirm = dialog.getByTestId('anonymize-confirm') as HTMLButtonElement;
    expect(confirm.disabled).toBe(true);
    fireEvent.click(confirm);
    expect(calls.some((c) => c.url.endsWith('/anonymize'))).toBe(false);
    fireEvent.click(dialog.getByTestId('anonymize-check'));
    fireEvent.click(confirm);
    await screen.findByText('Contato anonimizado.');
    expect(calls.filter((c) => c.url.endsWith('/anonymize')).map((c) => [c.method, c.body])).toEqual([['POST', { confirm: true }]]);
    // The contact is read again: the drawer and the conversation show the anonymized one.
    await waitFor(() => expect(screen.getByTestId('drawer-name').textContent).toBe('#21'));
    expect(onContactChange).toHaveBeenCalledWith(expect.objectContaining({ name: '#21', number: 'anon-21' }));
    await waitFor(() => expect(section.getByTestId('contact-opt-out-state').textContent).toMatch(/^Contato anonimizado em /));
    expect((section.getByTestId('contact-anonymize') as HTMLButtonElement).disabled).toBe(true);
    expect(section.queryByTestId('contact-opt-out-record')).toBeNull();
    expect(click).toHaveBeenCalledTimes(1);
    click.mockRestore();
  });

  test('issue 34: attendants and supervisors see no privacy actions (admin only) and never ask for the privacy state; groups neither', async () => {
    for (const profile of ['user', 'supervisor']) {
      session.signIn({ ...ME, profile });
      calls = mockFetch((c) => {
        if (c.url === `${API}/contacts/21`) return answer(200, contactAnswer);
        if (c.url.startsWith(`${API}/ticket-notes/list`)) return answer(200, []);
        return answer(404);
      });
      renderWithProviders(<ContactDrawer ticket={ticket()} onClose={jest.fn()} onContactChange={jest.fn()} />);
      await screen.findByText('123.456.789-00');
      expect(screen.queryByTestId('contact-privacy')).toBeNull();
      expect(screen.queryByTestId('contact-export')).toBeNull();
      expect(calls.some((c) => c.url.includes('/privacy'))).toBe(false);
      cleanup();
    }
    session.signIn({ ...ME, profile: 'admin' });
    calls = mockFetch((c) => {
      if (c.url === `${API}/contacts/21`) return answer(200, { ...contactAnswer, isGroup: true });
      if (c.url.startsWith(`${API}/ticket-notes/list`)) return answer(200, []);
      return answer(404);
    });
    renderWithProviders(<ContactDrawer ticket={ticket({ isGroup: true, contact: { ...ticket().contact!, isGroup: true } })} onClose={jest.fn()} onContactChange={jest.fn()} />);
    await screen.findByText('123.456.789-00');
    expect(screen.queryByTestId('contact-privacy')).toBeNull();
  });
});
