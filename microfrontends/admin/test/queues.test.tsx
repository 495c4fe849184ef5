/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session, writeToken } from '@atendo/web-api';
import { QueuesPage } from '../src/pages/queues/QueuesPage';
import { canAddChild, emptyOption, moveOption, optionErrors, toBody, toDrafts, treeValid, updateOption } from '../src/pages/queues/tree';
import { answer, API, mockFetch, renderAdmin, type FetchCall } from './helpers';
import { FULL_PLAN, sessionUser } from '../../../shell/test/helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const COMPANY = 3;
const queue = (over: Record<string, unknown> & { id: number }) => ({
  companyId: COMPANY,
  name: `Fila ${over.id}`,
  color: '#ff0000',
  greetingMessage: null,
  outOfHoursMessage: null,
  orderQueue: null,
  ativarRoteador: false,
  tempoRoteador: 0,
  schedules: [],
  integrationId: null,
  fileListId: null,
  promptId: null,
  closeTicket: false,
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:00.000Z',
  ...over,
});
const VENDAS = queue({ id: 1, name: 'Vendas', color: '#e53935', orderQueue: 1, greetingMessage: 'Olá! Bem-vindo às vendas.' });
const SUPORTE = queue({ id: 2, name: 'Suporte', color: '#1e88e5', orderQueue: 2 });

function api(opts: { scheduleType?: string; write?: (call: FetchCall, url: URL) => ReturnType<typeof answer> | undefined; limit?: number } = {}) {
  return mockFetch((call) => {
    const url = new URL(call.url);
    if (call.method === 'GET') {
      if (url.pathname === '/queue') return answer(200, [VENDAS, SUPORTE]);
      if (url.pathname === '/queue/1') return answer(200, { ...VENDAS, chatbots: [{ id: 11, name: 'Comprar', greetingMessage: 'Escolha', queueType: 'text', optQueueId: null, optUserId: null, optIntegrationId: null, optFileId: null, closeTicket: false, options: [] }] });
      if (url.pathname === '/companySettingOne') return answer(200, { scheduleType: opts.scheduleType ?? 'disabled' });
      if (url.pathname === '/users/list') return answer(200, [{ id: 5, name: 'Ana' }]);
      if (url.pathname === `/companies/listPlan/${COMPANY}`) return answer(200, { id: COMPANY, name: 'Acme', plan: { ...FULL_PLAN, queues: opts.limit ?? 10 } });
      return answer(404, { error: 'ERR_NOT_FOUND' });
    }
    return opts.write?.(call, url) ?? answer(404, { error: 'ERR_NOT_FOUND' });
  });
}

const writes = (calls: FetchCall[]) => calls.filter((c) => c.method !== 'GET');
const names = () => within(screen.getByTestId('queues-rows')).queryAllByRole('row').map((r) => r.querySelectorAll('td')[1]?.textContent);

function renderPage() {
  writeToken('jwt');
  act(() => session.signIn(sessionUser({ id: 1, companyId: COMPANY, profile: 'admin' }) as never));
  return renderAdmin(<QueuesPage />, { route: '/queues' });
}

afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
});

describe('chatbot tree helpers', () => {
  test('edit, move, remove in place; a message is needed for a sub-option; names of 4+ characters; targets by type', () => {
    let tree = [emptyOption(), emptyOption()];
    const [a, b] = tree;
    tree = updateOption(tree, a.key, (o) => ({ ...o, name: 'Vendas', greetingMessage: 'Escolha' }));
    expect(canAddChild(tree[0], 1)).toBe(true);
    expect(canAddChild(tree[1], 1)).toBe(false);
    expect(canAddChild(tree[0], 5)).toBe(false);
    tree = updateOption(tree, a.key, (o) => ({ ...o, options: [{ ...emptyOption(), name: 'Pix à vista', queueType: 'queue', optQueueId: 2 }] }));
    expect(optionErrors(tree[1])).toEqual(['queues.chatbot.errors.nameRequired']);
    expect(treeValid(tree)).toBe(false);
    tree = updateOption(tree, b.key, (o) => ({ ...o, name: 'Sup', queueType: 'attendent' }));
    expect(optionErrors(tree[1])).toEqual(['queues.chatbot.errors.nameShort', 'queues.chatbot.errors.userRequired']);
    tree = updateOption(tree, b.key, (o) => ({ ...o, name: 'Suporte', optUserId: 5, optQueueId: 9 }));
    expect(treeValid(tree)).toBe(true);
    tree = moveOption(tree, b.key, -1);
    expect(tree.map((o) => o.name)).toEqual(['Suporte', 'Vendas']);
    expect(toBody(tree)).toEqual([
      { name: 'Suporte', greetingMessage: null, queueType: 'attendent', optQueueId: null, optUserId: 5, optIntegrationId: null, optFileId: null, closeTicket: false, options: [] },
      {
        name: 'Vendas',
        greetingMessage: 'Escolha',
        queueType: 'text',
        optQueueId: null,
        optUserId: null,
        optIntegrationId: null,
        optFileId: null,
        closeTicket: false,
        options: [{ name: 'Pix à vista', greetingMessage: null, queueType: 'queue', optQueueId: 2, optUserId: null, optIntegrationId: null, optFileId: null, closeTicket: false, options: [] }],
      },
    ]);
    // Removing the message of an option with sub-options makes it invalid again.
    tree = updateOption(tree, a.key, (o) => ({ ...o, greetingMessage: ' ' }));
    expect(optionErrors(tree[1])).toEqual(['queues.chatbot.errors.messageRequired']);
    tree = updateOption(tree, a.key, () => null);
    expect(tree.map((o) => o.name)).toEqual(['Suporte']);
    const back = toDrafts([{ id: 3, name: 'Raiz', greetingMessage: null, queueType: 'text', options: [{ id: 4, name: 'Filho', options: [] }] } as never]);
    expect(toBody(back)[0]).toMatchObject({ id: 3, name: 'Raiz', options: [{ id: 4, name: 'Filho' }] });
  });
});

describe('queues admin', () => {
  test('lists id, name, colour, order and greeting; the plan limit; live updates and deletes', async () => {
    api({ limit: 2 });
    renderPage();
    await waitFor(() => expect(names()).toEqual(['Vendas', 'Suporte']));
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['ID', 'Nome', 'Cor', 'Ordem', 'Mensagem de saudação', 'Ações']);
    expect(within(screen.getByTestId('queue-row-1')).getByText('#e53935')).toBeTruthy();
    expect(within(screen.getByTestId('queue-row-1')).getByText('Olá! Bem-vindo às vendas.')).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('queues-count').textContent).toBe('2 de 2 filas do plano'));
    expect(screen.getByTestId('queues-limit')).toBeTruthy();
    act(() => mockSocket.push(`company-${COMPANY}-queue`, { action: 'update', queue: { ...queue({ id: 3, name: 'Financeiro', orderQueue: 0 }), chatbots: [] } }));
    await waitFor(() => expect(names()).toEqual(['Financeiro', 'Vendas', 'Suporte']));
    act(() => mockSocket.push(`company-${COMPANY}-queue`, { action: 'delete', queueId: 1 }));
    await waitFor(() => expect(names()).toEqual(['Financeiro', 'Suporte']));
  });

  test('a new queue with a two-level chatbot tree: validated in place, saved with the queue; a taken colour is the translated error', async () => {
    let posted = 0;
    const calls = api({
      write: (call, url) => {
        if (call.method === 'POST' && url.pathname === '/queue') {
          posted++;
          if (posted === 1) return answer(409, { error: 'ERR_QUEUE_COLOR_ALREADY_EXISTS', message: 'Queue colour must be unique' });
          return answer(200, { ...queue({ id: 7, name: 'Financeiro', color: '#43a047' }), chatbots: [] });
        }
        return undefined;
      },
    });
    renderPage();
    await waitFor(() => expect(names()).toHaveLength(2));
    fireEvent.click(screen.getByTestId('queue-add'));
    const d = within(screen.getByRole('dialog', { name: 'Adicionar fila' }));
    expect(d.queryByTestId('tab-schedules')).toBeNull();
    fireEvent.click(d.getByTestId('queue-submit'));
    await waitFor(() => expect(d.getAllByRole('alert').map((a) => a.textContent)).toEqual(['Obrigatório', 'Obrigatório']));
    fireEvent.change(d.getByTestId('queue-name'), { target: { value: 'Financeiro' } });
    fireEvent.change(d.getByTestId('queue-color'), { target: { value: 'verde' } });
    await waitFor(() => expect(d.getAllByRole('alert').map((a) => a.textContent)).toEqual(['Use uma cor hexadecimal, como #ff8800']));
    fireEvent.click(d.getByRole('button', { name: '#43a047' }));
    expect((d.getByTestId('queue-color') as HTMLInputElement).value).toBe('#43a047');
    // The optional plugins are not installed: their selects say so.
    expect(d.getByTestId('queue-promptId').textContent).toBe('Nenhum prompt cadastrado');

    fireEvent.click(d.getByTestId('tab-chatbot'));
    fireEvent.click(d.getByTestId('chatbot-add-root'));
    // No message yet: no next level.
    expect((d.getByTestId('option-1-add') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(d.getByTestId('option-1-name'), { target: { value: 'Boleto' } });
    fireEvent.change(d.getByTestId('option-1-message'), { target: { value: 'Escolha: 1 segunda via, 2 atendente' } });
    fireEvent.click(d.getByTestId('option-1-add'));
    fireEvent.click(d.getByTestId('option-1-add'));
    fireEvent.change(d.getByTestId('option-1.1-name'), { target: { value: 'Segunda via' } });
    fireEvent.change(d.getByTestId('option-1.1-message'), { target: { value: 'Acesse o portal.' } });
    fireEvent.change(d.getByTestId('option-1.2-name'), { target: { value: 'Ana' } });
    fireEvent.change(d.getByTestId('option-1.2-type'), { target: { value: 'attendent' } });
    fireEvent.click(d.getByTestId('queue-submit'));
    // Saved only when every option is right: errors in place, nothing sent.
    await waitFor(() => expect(within(d.getByTestId('option-1.2')).getByRole('alert').textContent).toContain('O nome precisa de pelo menos 4 caracteres.'));
    expect(within(d.getByTestId('option-1.2')).getByRole('alert').textContent).toContain('Escolha o atendente.');
    expect(writes(calls)).toEqual([]);
    fireEvent.change(d.getByTestId('option-1.2-name'), { target: { value: 'Falar com a Ana' } });
    await waitFor(() => expect(d.getByTestId('option-1.2-target').textContent).toContain('Ana'));
    fireEvent.change(d.getByTestId('option-1.2-target'), { target: { value: '5' } });

    fireEvent.click(d.getByTestId('queue-submit'));
    expect(await screen.findByText('Esta cor já está em uso por outra fila, escolha outra.')).toBeTruthy();
    fireEvent.click(d.getByTestId('queue-submit'));
    await screen.findByText('Fila salva com sucesso.');
    const bodies = writes(calls).map((c) => c.body);
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toMatchObject({
      name: 'Financeiro',
      color: '#43a047',
      chatbots: [
        {
          name: 'Boleto',
          greetingMessage: 'Escolha: 1 segunda via, 2 atendente',
          queueType: 'text',
          options: [
            { name: 'Segunda via', greetingMessage: 'Acesse o portal.', queueType: 'text', options: [] },
            { name: 'Falar com a Ana', queueType: 'attendent', optUserId: 5, options: [] },
          ],
        },
      ],
    });
    expect(bodies[1]).not.toHaveProperty('schedules');
    await waitFor(() => expect(names()).toEqual(['Vendas', 'Suporte', 'Financeiro']));
  });

  test('editing loads the tree; with scheduleType "queue" the service-hours tab saves the week', async () => {
    const calls = api({ scheduleType: 'queue', write: (call) => (call.method === 'PUT' ? answer(201, { ...VENDAS, chatbots: [] }) : undefined) });
    renderPage();
    await waitFor(() => expect(names()).toHaveLength(2));
    fireEvent.click(screen.getByRole('button', { name: 'Editar Vendas' }));
    await screen.findByTestId('queue-form');
    const d = within(screen.getByRole('dialog', { name: 'Editar fila' }));
    await waitFor(() => expect(d.getByTestId('tab-schedules')).toBeTruthy());
    fireEvent.click(d.getByTestId('tab-chatbot'));
    expect((d.getByTestId('option-1-name') as HTMLInputElement).value).toBe('Comprar');
    fireEvent.click(d.getByTestId('tab-schedules'));
    const monday = within(d.getByTestId('queue-hours-monday'));
    expect((monday.getByLabelText('Segunda-feira Início (1º turno)') as HTMLInputElement).value).toBe('08:00');
    fireEvent.change(monday.getByLabelText('Segunda-feira Fim (1º turno)'), { target: { value: '07:00' } });
    expect(monday.getByRole('alert').textContent).toBe('O fim deve ser depois do início, e o 2º turno depois do 1º.');
    fireEvent.click(d.getByTestId('queue-submit'));
    expect(await screen.findByText('Corrija os horários antes de salvar.')).toBeTruthy();
    expect(writes(calls)).toEqual([]);
    fireEvent.change(monday.getByLabelText('Segunda-feira Fim (1º turno)'), { target: { value: '11:00' } });
    fireEvent.change(within(d.getByTestId('queue-hours-sunday')).getByLabelText('Domingo Início (2º turno)'), { target: { value: '' } });
    fireEvent.change(within(d.getByTestId('queue-hours-sunday')).getByLabelText('Domingo Fim (2º turno)'), { target: { value: '' } });
    fireEvent.click(d.getByTestId('queue-submit'));
    await screen.findByText('Fila salva com sucesso.');
    const put = writes(calls)[0];
    expect(put.url).toBe(`${API}/queue/1`);
    const body = put.body as { schedules: Record<string, string>[]; chatbots: { id: number }[] };
    expect(body.chatbots[0]).toMatchObject({ id: 11, name: 'Comprar' });
    expect(body.schedules).toHaveLength(7);
    expect(body.schedules[0]).toEqual({ weekday: 'Segunda-feira', weekdayEn: 'monday', startTimeA: '08:00', endTimeA: '11:00', startTimeB: '13:00', endTimeB: '18:00' });
    expect(body.schedules[6]).toEqual({ weekday: 'Domingo', weekdayEn: 'sunday', startTimeA: '08:00', endTimeA: '12:00', startTimeB: '', endTimeB: '' });
  });
});
