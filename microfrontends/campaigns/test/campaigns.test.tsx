/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session } from '@atendo/web-api';
import { CampaignsPage } from '../src/pages/campaigns/CampaignsPage';
import { campaignBody } from '../src/pages/campaigns/CampaignModal';
import { editScope, toApiDate } from '../src/lib/api';
import { answer, API, mockFetch, renderCampaigns, signIn, type FetchCall } from './helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const COMPANY = 3;
const counts = { validContacts: 2, pending: 2, confirmationRequested: 0, confirmed: 0, delivered: 0, failed: 0 };
const messages = { message1: 'Oi {nome}', message2: '', message3: '', message4: '', message5: '', confirmationMessage1: '', confirmationMessage2: '', confirmationMessage3: '', confirmationMessage4: '', confirmationMessage5: '' };
const LIST = { id: 4, name: 'Clientes', companyId: COMPANY, contactsCount: '2', createdAt: '2026-11-01T10:00:00Z', updatedAt: '2026-11-01T10:00:00Z' };
function campaign(over: Record<string, unknown> = {}) {
  return {
    id: 1,
    name: 'Black Friday',
    ...messages,
    status: 'INATIVA',
    confirmation: false,
    scheduledAt: null,
    completedAt: null,
    companyId: COMPANY,
    contactListId: null,
    tagListId: null,
    whatsappId: null,
    whatsappIds: [],
    mediaPath: null,
    mediaName: null,
    paused: null,
    createdAt: '2026-11-20T10:00:00Z',
    updatedAt: '2026-11-20T10:00:00Z',
    contactList: null,
    whatsapp: null,
    whatsapps: [],
    counts,
    ...over,
  };
}
const RUNNING = campaign({ id: 2, name: 'Natal', status: 'EM_ANDAMENTO', contactListId: 4, contactList: LIST, whatsappId: '5', whatsappIds: [5], whatsapp: { id: 5, name: 'Vendas', status: 'CONNECTED' }, whatsapps: [{ id: 5, name: 'Vendas', status: 'CONNECTED' }], scheduledAt: '2026-11-24T12:00:00.000Z', confirmation: true });

function api(records: unknown[], write?: (call: FetchCall, url: URL) => ReturnType<typeof answer> | undefined) {
  return mockFetch((call) => {
    const url = new URL(call.url);
    const w = write?.(call, url);
    if (w) return w;
    if (call.method === 'GET' && url.pathname === '/campaigns') return answer(200, { records, count: records.length, hasMore: false });
    if (url.pathname === '/contact-lists/list') return answer(200, [LIST]);
    if (url.pathname === '/whatsapp/') return answer(200, [{ id: 5, name: 'Vendas', status: 'CONNECTED' }, { id: 6, name: 'Suporte', status: 'DISCONNECTED' }]);
    if (url.pathname === '/tags/list') return answer(200, [{ id: 9, name: 'VIP', color: '#f00' }]);
    if (url.pathname === '/campaign-settings') return answer(200, [{ id: 1, key: 'variables', value: JSON.stringify([{ key: 'cupom', value: 'BF10' }]), companyId: COMPANY, createdAt: '', updatedAt: '' }]);
    return answer(404, { error: 'ERR_NOT_FOUND' });
  });
}
const rowTexts = (id: number) => within(screen.getByTestId(`campaign-row-${id}`)).getAllByRole('cell').map((c) => c.textContent);

afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
});

describe('campaigns list', () => {
  test("the spec's columns with their placeholders, translated statuses, live updates and deletes", async () => {
    api([campaign(), RUNNING]);
    signIn({ companyId: COMPANY });
    renderCampaigns(<CampaignsPage />, { route: '/campaigns' });
    await screen.findByTestId('campaign-row-1');
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Nome', 'Status', 'Lista de contatos', 'Conexão', 'Agendamento', 'Conclusão', 'Confirmação', 'Ações']);
    expect(rowTexts(1).slice(0, 7)).toEqual(['Black Friday', 'Inativa', 'Não definida', 'Não definido', 'Sem agendamento', 'Não concluída', 'Desabilitada']);
    expect(rowTexts(2).slice(0, 3)).toEqual(['Natal', 'Em andamento', 'Clientes']);
    expect(rowTexts(2)[3]).toBe('Vendas');
    expect(rowTexts(2)[6]).toBe('Habilitada');
    // Stop only while running, restart only when cancelled, no report before it started.
    expect(screen.queryByTestId('campaign-stop-1')).toBeNull();
    expect(screen.getByTestId('campaign-stop-2')).toBeTruthy();
    expect(screen.queryByTestId('campaign-report-1')).toBeNull();
    act(() => mockSocket.push(`company-${COMPANY}-campaign`, { action: 'update', record: { ...RUNNING, status: 'FINALIZADA', completedAt: '2026-11-24T13:00:00.000Z' } }));
    await waitFor(() => expect(rowTexts(2)[1]).toBe('Finalizada'));
    expect(rowTexts(2)[5]).not.toBe('Não concluída');
    expect(screen.queryByTestId('campaign-stop-2')).toBeNull();
    act(() => mockSocket.push(`company-${COMPANY}-campaign`, { action: 'delete', id: 1 }));
    await waitFor(() => expect(screen.queryByTestId('campaign-row-1')).toBeNull());
  });

  test('stop and restart call the API; a refused restart shows the translated error code', async () => {
    const calls = api([RUNNING], (call, url) => {
      if (call.method === 'POST' && url.pathname === '/campaigns/2/cancel') return answer(200, { ...RUNNING, status: 'CANCELADA' });
      if (call.method === 'POST' && url.pathname === '/campaigns/2/restart') return answer(400, { error: 'ERR_CAMPAIGN_INVALID_TRANSITION' });
      return undefined;
    });
    signIn({ companyId: COMPANY });
    renderCampaigns(<CampaignsPage />, { route: '/campaigns' });
    fireEvent.click(await screen.findByTestId('campaign-stop-2'));
    await waitFor(() => expect(rowTexts(2)[1]).toBe('Cancelada'));
    expect(calls.some((c) => c.method === 'POST' && c.url === `${API}/campaigns/2/cancel`)).toBe(true);
    fireEvent.click(screen.getByTestId('campaign-restart-2'));
    await screen.findByText('A campanha não está em um status que permita esta ação.');
    expect(rowTexts(2)[1]).toBe('Cancelada');
  });

  test('the dialog: name rule, recipients, connections, five message tabs with their confirmations, variables; the body sent', async () => {
    const created = campaign({ id: 8, name: 'Verão', status: 'PROGRAMADA', scheduledAt: '2099-12-01T12:30:00.000Z' });
    const calls = api([], (call, url) => (call.method === 'POST' && url.pathname === '/campaigns' ? answer(200, created) : undefined));
    signIn({ companyId: COMPANY });
    renderCampaigns(<CampaignsPage />, { route: '/campaigns' });
    await screen.findByTestId('campaigns-empty');
    fireEvent.click(screen.getByTestId('campaign-add'));
    const d = within(await screen.findByRole('dialog', { name: 'Nova campanha' }));
    fireEvent.change(d.getByTestId('campaign-name'), { target: { value: 'V' } });
    fireEvent.click(d.getByTestId('campaign-submit'));
    await waitFor(() => expect(d.getByRole('alert').textContent).toBe('Muito curto!'));
    fireEvent.change(d.getByTestId('campaign-name'), { target: { value: 'Verão' } });
    await waitFor(() => expect(d.getAllByRole('option', { name: 'Clientes' })).toHaveLength(1));
    fireEvent.change(d.getByTestId('campaign-list'), { target: { value: '4' } });
    fireEvent.click(await d.findByTestId('campaign-connection-5'));
    fireEvent.click(d.getByTestId('campaign-connection-6'));
    fireEvent.change(d.getByTestId('campaign-scheduled'), { target: { value: '2026-12-01T09:30' } });
    expect(d.getAllByRole('tab').map((x) => x.textContent)).toEqual(['Msg. 1', 'Msg. 2', 'Msg. 3', 'Msg. 4', 'Msg. 5']);
    expect(d.queryByTestId('campaign-confirmation1')).toBeNull();
    fireEvent.change(d.getByTestId('campaign-confirmation'), { target: { value: '1' } });
    fireEvent.change(d.getByTestId('campaign-message1'), { target: { value: 'Olá' } });
    fireEvent.focus(d.getByTestId('campaign-message1'));
    // Custom variables of the settings are offered beside {nome}, {numero}, {email}.
    fireEvent.click(await d.findByRole('button', { name: '{cupom}' }));
    fireEvent.change(d.getByTestId('campaign-confirmation1'), { target: { value: 'Quer receber? Responda 1' } });
    fireEvent.click(d.getByTestId('tab-v3'));
    fireEvent.change(d.getByTestId('campaign-message3'), { target: { value: 'Terceira' } });
    expect(d.getByText('Salve a campanha para anexar uma mídia.')).toBeTruthy();
    fireEvent.click(d.getByTestId('campaign-submit'));
    await screen.findByText('Campanha salva com sucesso.');
    const body = calls.find((c) => c.method === 'POST' && c.url === `${API}/campaigns`)?.body as Record<string, unknown>;
    expect(body).toMatchObject({ name: 'Verão', confirmation: true, contactListId: 4, tagListId: null, whatsappId: '5,6', scheduledAt: '2026-12-01 09:30:00', message1: 'Olá {cupom}', confirmationMessage1: 'Quer receber? Responda 1', message3: 'Terceira', message2: '' });
    // The new campaign is listed, and the dialog stays open to attach media.
    await waitFor(() => expect(screen.getByTestId('campaign-row-8')).toBeTruthy());
    expect(d.getByTestId('campaign-media-input')).toBeTruthy();
  });

  test('read-only while running (title says so, no save); a cancelled campaign sends only its messages', async () => {
    const cancelled = { ...RUNNING, id: 3, name: 'Parada', status: 'CANCELADA' };
    const calls = api([RUNNING, cancelled], (call, url) => (call.method === 'PUT' && url.pathname === '/campaigns/3' ? answer(200, { ...cancelled, message1: 'Novo texto' }) : undefined));
    signIn({ companyId: COMPANY });
    renderCampaigns(<CampaignsPage />, { route: '/campaigns' });
    fireEvent.click(await screen.findByTestId('campaign-edit-2'));
    let d = within(await screen.findByRole('dialog', { name: 'Campanha - somente leitura' }));
    expect(d.queryByTestId('campaign-submit')).toBeNull();
    expect((d.getByTestId('campaign-message1') as HTMLTextAreaElement).disabled).toBe(true);
    fireEvent.click(d.getAllByRole('button', { name: 'Fechar' })[0]);
    fireEvent.click(screen.getByTestId('campaign-edit-3'));
    d = within(await screen.findByRole('dialog', { name: 'Editar campanha' }));
    expect((d.getByTestId('campaign-name') as HTMLInputElement).disabled).toBe(true);
    fireEvent.change(d.getByTestId('campaign-message1'), { target: { value: 'Novo texto' } });
    fireEvent.click(d.getByTestId('campaign-submit'));
    await screen.findByText('Campanha salva com sucesso.');
    const body = calls.find((c) => c.method === 'PUT')?.body as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(Object.keys(messages).sort());
    expect(body.message1).toBe('Novo texto');
  });
});

describe('campaign rules of the screen', () => {
  test('edit scope (spec §4) and the API date format (§9)', () => {
    const now = Date.parse('2026-11-25T12:00:00Z');
    expect(editScope(null, now)).toBe('all');
    expect(editScope({ status: 'INATIVA', scheduledAt: null }, now)).toBe('all');
    expect(editScope({ status: 'PROGRAMADA', scheduledAt: '2026-11-25T13:00:01Z' }, now)).toBe('all');
    expect(editScope({ status: 'PROGRAMADA', scheduledAt: '2026-11-25T12:59:59Z' }, now)).toBe('none');
    expect(editScope({ status: 'CANCELADA', scheduledAt: null }, now)).toBe('messages');
    expect(editScope({ status: 'EM_ANDAMENTO', scheduledAt: null }, now)).toBe('none');
    expect(editScope({ status: 'FINALIZADA', scheduledAt: null }, now)).toBe('none');
    expect(toApiDate('2026-12-01T09:30')).toBe('2026-12-01 09:30:00');
    expect(toApiDate('')).toBeNull();
  });

  test('an unchanged schedule is not sent again on edit; a tag campaign sends tagListId and no list', () => {
    const base = { ...messages, name: 'X', confirmation: false, scheduledAt: '2026-12-01T09:30', recipients: 'tag' as const, contactListId: '4', tagListId: '9', whatsappIds: [5] };
    const body = campaignBody(base, base, 'all', false);
    expect(body.scheduledAt).toBeUndefined();
    expect(body).toMatchObject({ tagListId: 9, contactListId: null, whatsappId: '5' });
    expect(campaignBody({ ...base, scheduledAt: '' }, base, 'all', false).scheduledAt).toBeNull();
  });
});
