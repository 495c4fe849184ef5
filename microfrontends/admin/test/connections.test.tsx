/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session, writeToken } from '@atendo/web-api';
import { ConnectionsPage } from '../src/pages/connections/ConnectionsPage';
import { generateToken, shortDateTime } from '../src/pages/connections/api';
import { answer, API, mockFetch, renderAdmin, type FetchCall } from './helpers';
import { FULL_PLAN, sessionUser } from '../../../shell/test/helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const COMPANY = 3;
const conn = (over: Record<string, unknown> & { id: number }) => ({
  companyId: COMPANY,
  name: `Conexão ${over.id}`,
  channel: 'whatsapp',
  status: 'CONNECTED',
  qrcode: '',
  retries: 0,
  number: '5511999990000',
  isDefault: false,
  allowGroup: false,
  queues: [],
  updatedAt: '2026-11-20T13:45:00.000Z',
  createdAt: '2026-11-20T10:00:00.000Z',
  ...over,
});
const MAIN = conn({ id: 1, name: 'Principal', isDefault: true });
const LOJA = conn({ id: 2, name: 'Loja', status: 'DISCONNECTED' });
const QUEUES = [
  { id: 7, name: 'Vendas', color: '#ff0000' },
  { id: 8, name: 'Suporte', color: '#0000ff' },
];

const HISTORY = [
  { id: 12, status: 'CONNECTED', previousStatus: 'DISCONNECTED', reason: null, retries: 0, createdAt: '2026-11-20T13:45:00.000Z' },
  { id: 11, status: 'DISCONNECTED', previousStatus: 'CONNECTED', reason: 'livenessProbe', retries: 1, createdAt: '2026-11-20T13:40:00.000Z' },
  { id: 10, status: 'CONNECTED', previousStatus: 'qrcode', reason: null, retries: 0, createdAt: '2026-11-20T10:05:00.000Z' },
];

function api(opts: { plan?: Record<string, unknown>; write?: (call: FetchCall, url: URL) => ReturnType<typeof answer> | undefined; history?: () => unknown[] } = {}) {
  return mockFetch((call) => {
    const url = new URL(call.url);
    if (call.method === 'GET') {
      if (url.pathname === '/whatsapp/1/status-history') return answer(200, { records: opts.history ? opts.history() : HISTORY });
      if (url.pathname === '/whatsapp/') return answer(200, [MAIN, LOJA]);
      if (url.pathname === '/queue') return answer(200, QUEUES);
      if (url.pathname === '/companySettingOne') return answer(200, { scheduleType: 'disabled' });
      if (url.pathname === `/companies/listPlan/${COMPANY}`) return answer(200, { id: COMPANY, name: 'Acme', plan: { ...FULL_PLAN, connections: 5, ...opts.plan } });
      return answer(404, { error: 'ERR_NOT_FOUND' });
    }
    return opts.write?.(call, url) ?? answer(200, { message: 'ok' });
  });
}

const writes = (calls: FetchCall[]) => calls.filter((c) => c.method !== 'GET');

function renderPage() {
  writeToken('jwt');
  act(() => session.signIn(sessionUser({ id: 1, companyId: COMPANY, profile: 'admin' }) as never));
  return renderAdmin(<ConnectionsPage />, { route: '/connections' });
}

afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
});

describe('connections helpers', () => {
  test('tokens are 30 upper-case letters and digits, different each time; dates are dd/MM/yy HH:mm', () => {
    const a = generateToken();
    expect(a).toMatch(/^[A-Z0-9]{30}$/);
    expect(generateToken()).not.toBe(a);
    expect(shortDateTime('2026-03-04T05:06:00')).toBe('04/03/26 05:06');
    expect(shortDateTime(null)).toBe('');
  });
});

describe('connections admin', () => {
  test('the table and the buttons of each status; session pushes change them live; the QR dialog renders the pushed qrcode and closes when it empties', async () => {
    const calls = api();
    renderPage();
    await screen.findByTestId('connection-row-1');
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Canal', 'Nome', 'Número', 'Status', 'Sessão', 'Última atualização', 'Padrão', 'Ações']);
    const main = within(screen.getByTestId('connection-row-1'));
    expect(main.getByText('Conectado')).toBeTruthy();
    expect(main.getByText('Sim')).toBeTruthy();
    expect(main.getByTestId('disconnect-1')).toBeTruthy();
    const loja = within(screen.getByTestId('connection-row-2'));
    expect(loja.getByText('Desconectado')).toBeTruthy();
    fireEvent.click(loja.getByTestId('retry-2'));
    await waitFor(() => expect(writes(calls).map((c) => `${c.method} ${c.url}`)).toEqual([`POST ${API}/whatsappsession/2`]));

    // The session opens, then pushes a QR code.
    act(() => mockSocket.push(`company-${COMPANY}-whatsappSession`, { action: 'update', session: { id: 2, status: 'OPENING', qrcode: '' } }));
    await waitFor(() => expect((screen.getByTestId('connecting-2') as HTMLButtonElement).disabled).toBe(true));
    act(() => mockSocket.push(`company-${COMPANY}-whatsappSession`, { action: 'update', session: { id: 2, status: 'qrcode', qrcode: '2@abc,def,ghi', retries: 1 } }));
    fireEvent.click(await screen.findByTestId('qr-2'));
    const dialog = screen.getByRole('dialog', { name: 'QR code de Loja' });
    const qr = within(dialog).getByTestId('qr-code');
    expect(qr.getAttribute('data-value')).toBe('2@abc,def,ghi');
    expect(qr.querySelectorAll('path').length).toBeGreaterThan(0);
    const first = qr.innerHTML;
    act(() => mockSocket.push(`company-${COMPANY}-whatsappSession`, { action: 'update', session: { id: 2, status: 'qrcode', qrcode: '2@xyz,uvw,rst', retries: 2 } }));
    await waitFor(() => expect(screen.getByTestId('qr-code').innerHTML).not.toBe(first));
    // Scanned: the qrcode empties, the dialog closes, the row is connected.
    act(() => mockSocket.push(`company-${COMPANY}-whatsappSession`, { action: 'update', session: { id: 2, status: 'CONNECTED', qrcode: '' } }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(within(screen.getByTestId('connection-row-2')).getByText('Conectado')).toBeTruthy();

    // Disconnect asks first.
    fireEvent.click(within(screen.getByTestId('connection-row-1')).getByTestId('disconnect-1'));
    fireEvent.click(within(screen.getByRole('dialog', { name: 'Desconectar Principal?' })).getByTestId('confirm-button'));
    await waitFor(() => expect(writes(calls).map((c) => `${c.method} ${c.url}`)).toContain(`DELETE ${API}/whatsappsession/1`));

    fireEvent.click(screen.getByTestId('restart-all'));
    await waitFor(() => expect(writes(calls).map((c) => `${c.method} ${c.url}`)).toContain(`POST ${API}/whatsapp-restart/`));

    // A connection deleted elsewhere leaves the table.
    act(() => mockSocket.push(`company-${COMPANY}-whatsapp`, { action: 'delete', whatsappId: 1 }));
    await waitFor(() => expect(screen.queryByTestId('connection-row-1')).toBeNull());
  });

  test('the new-connection menu follows the plan; a WhatsApp Cloud connection needs its account id and token, a greeting with two queues', async () => {
    const created = conn({ id: 9, name: 'Cloud', channel: 'whatsappapi', queues: QUEUES });
    const calls = api({ plan: { useFacebook: false }, write: (call, url) => (call.method === 'POST' && url.pathname === '/whatsapp' ? answer(200, created) : undefined) });
    renderPage();
    await screen.findByTestId('connection-row-1');
    fireEvent.click(screen.getByTestId('connection-new'));
    await waitFor(() => expect((screen.getByTestId('new-facebook') as HTMLButtonElement).disabled).toBe(true));
    expect((screen.getByTestId('new-instagram') as HTMLButtonElement).disabled).toBe(false);
    fireEvent.click(screen.getByTestId('new-whatsappapi'));
    const d = within(screen.getByRole('dialog', { name: 'Nova conexão: WhatsApp Cloud API' }));
    expect(d.getAllByRole('tab').map((tab) => tab.textContent)).toEqual(['Geral', 'Integrações', 'Mensagens', 'Chatbot', 'Avaliações (NPS)']);
    fireEvent.change(d.getByTestId('connection-name'), { target: { value: 'Cloud' } });
    fireEvent.click(d.getByTestId('connection-submit'));
    await waitFor(() => expect(d.getAllByRole('alert').map((a) => a.textContent)).toEqual(['Obrigatório', 'Obrigatório']));
    fireEvent.change(d.getByTestId('connection-account'), { target: { value: '1234567890' } });
    fireEvent.change(d.getByTestId('connection-access-token'), { target: { value: 'EAAB-token' } });
    await waitFor(() => expect(d.getByRole('button', { name: 'Vendas' })).toBeTruthy());
    fireEvent.click(d.getByRole('button', { name: 'Vendas' }));
    fireEvent.click(d.getByRole('button', { name: 'Suporte' }));
    fireEvent.click(d.getByTestId('token-generate'));
    expect((d.getByTestId('connection-token') as HTMLInputElement).value).toMatch(/^[A-Z0-9]{30}$/);
    fireEvent.click(d.getByTestId('connection-submit'));
    // Two queues and no greeting: the messages tab opens with the error; nothing sent.
    await waitFor(() => expect(d.getByTestId('tab-messages').getAttribute('aria-selected')).toBe('true'));
    expect(d.getByText('A mensagem de saudação é obrigatória quando a conexão tem mais de uma fila.')).toBeTruthy();
    expect(writes(calls)).toEqual([]);
    fireEvent.change(d.getByTestId('connection-greeting'), { target: { value: 'Olá! Escolha: 1 Vendas, 2 Suporte' } });
    fireEvent.click(d.getByTestId('connection-submit'));
    await screen.findByText('Conexão salva com sucesso.');
    expect(writes(calls)[0]).toMatchObject({
      method: 'POST',
      url: `${API}/whatsapp`,
      body: { name: 'Cloud', channel: 'whatsappapi', queueIds: [7, 8], greetingMessage: 'Olá! Escolha: 1 Vendas, 2 Suporte', facebookPageUserId: '1234567890', facebookUserToken: 'EAAB-token', maxUseBotQueues: 3 },
    });
    await screen.findByTestId('connection-row-9');
  });

  test('the dialog shows no raw i18n key on any tab: no integrations, no prompts, minutes (issue 31)', async () => {
    api();
    renderPage();
    await screen.findByTestId('connection-row-1');
    fireEvent.click(screen.getByTestId('connection-new'));
    fireEvent.click(await screen.findByTestId('new-whatsappapi'));
    const dialog = screen.getByRole('dialog', { name: 'Nova conexão: WhatsApp Cloud API' });
    const d = within(dialog);
    const raw = /\b(queues|connections|common)\.[A-Za-z]+\.[A-Za-z.]+/;
    for (const tab of ['general', 'integrations', 'messages', 'chatbot', 'nps']) {
      fireEvent.click(d.getByTestId(`tab-${tab}`));
      await waitFor(() => expect(d.getByTestId(`tab-${tab}`).getAttribute('aria-selected')).toBe('true'));
      const texts = [dialog.textContent ?? '', ...Array.from(dialog.querySelectorAll('option')).map((o) => o.textContent ?? '')];
      expect(texts.filter((x) => raw.test(x))).toEqual([]);
      if (tab === 'integrations') {
        expect(d.getAllByText('Nenhuma integração cadastrada').length).toBeGreaterThan(0);
        expect(d.getAllByText('Nenhum prompt cadastrado').length).toBeGreaterThan(0);
      }
      if (tab === 'chatbot') expect(d.getAllByText('5 minutos').length).toBeGreaterThan(0);
    }
  });

  test('greeting media: a file picked in the messages tab is uploaded after the save; too big a file is refused before', async () => {
    const created = conn({ id: 9, name: 'Com mídia', channel: 'whatsappapi' });
    const calls = api({
      write: (call, url) => {
        if (call.method === 'POST' && url.pathname === '/whatsapp') return answer(200, created);
        if (call.method === 'POST' && url.pathname === '/whatsapp/9/media-upload') return answer(200, { ...created, greetingMediaAttachment: 'greeting/abc.png' });
        return undefined;
      },
    });
    renderPage();
    await screen.findByTestId('connection-row-1');
    fireEvent.click(screen.getByTestId('connection-new'));
    fireEvent.click(await screen.findByTestId('new-whatsappapi'));
    const d = within(screen.getByRole('dialog', { name: 'Nova conexão: WhatsApp Cloud API' }));
    fireEvent.change(d.getByTestId('connection-name'), { target: { value: 'Com mídia' } });
    fireEvent.change(d.getByTestId('connection-account'), { target: { value: '1234567890' } });
    fireEvent.change(d.getByTestId('connection-access-token'), { target: { value: 'EAAB-token' } });
    fireEvent.click(d.getByTestId('tab-messages'));
    const big = new File(['x'], 'grande.mp4', { type: 'video/mp4' });
    Object.defineProperty(big, 'size', { value: 16 * 1024 * 1024 + 1 });
    fireEvent.change(d.getByTestId('connection-greeting-media'), { target: { files: [big] } });
    expect(d.getByTestId('connection-greeting-media-error').textContent).toBe('O arquivo passa de 16 MB.');
    const png = new File([new Uint8Array([137, 80, 78, 71])], 'ola.png', { type: 'image/png' });
    fireEvent.change(d.getByTestId('connection-greeting-media'), { target: { files: [png] } });
    expect(d.queryByTestId('connection-greeting-media-error')).toBeNull();
    fireEvent.click(d.getByTestId('connection-submit'));
    await screen.findByText('Conexão salva com sucesso.');
    expect(writes(calls).map((c) => `${c.method} ${c.url}`)).toEqual([`POST ${API}/whatsapp`, `POST ${API}/whatsapp/9/media-upload`]);
    const form = writes(calls)[1].body as unknown as FormData;
    expect((form.get('file') as File).name).toBe('ola.png');
  });

  test('pairing by phone code: the QR dialog asks for the number, the pushed PAIRING code shows as ABCD-1234, the dialog closes once connected', async () => {
    const calls = api();
    renderPage();
    await screen.findByTestId('connection-row-2');
    act(() => mockSocket.push(`company-${COMPANY}-whatsappSession`, { action: 'update', session: { id: 2, status: 'qrcode', qrcode: '2@abc,def,ghi', retries: 0 } }));
    fireEvent.click(await screen.findByTestId('qr-2'));
    const dialog = within(screen.getByRole('dialog', { name: 'QR code de Loja' }));
    fireEvent.change(dialog.getByTestId('pairing-phone'), { target: { value: '123' } });
    fireEvent.click(dialog.getByTestId('pairing-submit'));
    expect(await dialog.findByText('Informe o número com o código do país e o DDD (10 a 15 dígitos).')).toBeTruthy();
    expect(writes(calls)).toEqual([]);
    fireEvent.change(dialog.getByTestId('pairing-phone'), { target: { value: '+55 11 98888-7777' } });
    fireEvent.click(dialog.getByTestId('pairing-submit'));
    await waitFor(() => expect(writes(calls)).toEqual([expect.objectContaining({ method: 'POST', url: `${API}/whatsappsession/2/pairing-code`, body: { phoneNumber: '+55 11 98888-7777' } })]));
    // The session restarts (qrcode empties): the dialog waits for the code instead of closing.
    act(() => mockSocket.push(`company-${COMPANY}-whatsappSession`, { action: 'update', session: { id: 2, status: 'OPENING', qrcode: '' } }));
    expect(screen.getByRole('dialog', { name: 'QR code de Loja' })).toBeTruthy();
    act(() => mockSocket.push(`company-${COMPANY}-whatsappSession`, { action: 'update', session: { id: 2, status: 'PAIRING', qrcode: 'ABCD1234' } }));
    expect((await screen.findByTestId('pairing-code')).textContent).toBe('ABCD-1234');
    expect(screen.queryByTestId('qr-code')).toBeNull();
    act(() => mockSocket.push(`company-${COMPANY}-whatsappSession`, { action: 'update', session: { id: 2, status: 'CONNECTED', qrcode: '' } }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'QR code de Loja' })).toBeNull());
  });

  test('the status history of a connection: each change with when, from and to, the reason in words, the attempts; refreshed by a status push', async () => {
    let history: unknown[] = HISTORY;
    const calls = api({ history: () => history });
    renderPage();
    await screen.findByTestId('connection-row-1');
    fireEvent.click(within(screen.getByTestId('connection-row-1')).getByRole('button', { name: 'Histórico de status de Principal' }));
    const dialog = await screen.findByRole('dialog', { name: 'Histórico de Principal' });
    await within(dialog).findByTestId('history-11');
    expect(within(dialog).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Quando', 'Mudança', 'Motivo', 'Tentativas']);
    const dead = within(within(dialog).getByTestId('history-11'));
    expect(dead.getByText('Conectada mas sem resposta (verificação de vida)')).toBeTruthy();
    expect(dead.getByText('Conectado')).toBeTruthy();
    expect(dead.getByText('Desconectado')).toBeTruthy();
    expect(dead.getByText('1')).toBeTruthy();
    expect(within(within(dialog).getByTestId('history-11')).getByText(shortDateTime('2026-11-20T13:40:00.000Z'))).toBeTruthy();
    expect(calls.filter((c) => c.url.includes('status-history')).map((c) => new URL(c.url).search)).toEqual(['?limit=50']);
    // A new change arrives: the history is read again.
    history = [{ id: 13, status: 'DISCONNECTED', previousStatus: 'CONNECTED', reason: 'loggedOut', retries: 0, createdAt: '2026-11-20T14:00:00.000Z' }, ...HISTORY];
    act(() => mockSocket.push(`company-${COMPANY}-whatsappSession`, { action: 'update', session: { id: 1, status: 'DISCONNECTED', qrcode: '' } }));
    expect(await within(dialog).findByText('Desconectada no celular (novo QR code)')).toBeTruthy();
  });

  test('the status history of a connection without changes says so', async () => {
    api({ history: () => [] });
    renderPage();
    await screen.findByTestId('connection-row-1');
    fireEvent.click(within(screen.getByTestId('connection-row-1')).getByRole('button', { name: 'Histórico de status de Principal' }));
    const dialog = await screen.findByRole('dialog', { name: 'Histórico de Principal' });
    expect(await within(dialog).findByText('Nenhuma mudança de status registrada ainda.')).toBeTruthy();
  });

  test('the import progress card follows importMessages-{id}', async () => {
    api();
    renderPage();
    await screen.findByTestId('connection-row-1');
    expect(screen.queryByTestId('import-card')).toBeNull();
    act(() => mockSocket.push(`importMessages-${COMPANY}`, { action: 'update', status: { this: -1, all: 0 } }));
    expect((await screen.findByTestId('import-card')).textContent).toContain('Preparando a importação…');
    act(() => mockSocket.push(`importMessages-${COMPANY}`, { action: 'update', status: { this: 40, all: 120, date: '20/11/2026' } }));
    await waitFor(() => expect(screen.getByTestId('import-card').textContent).toBe('Importadas 40 de 120 mensagens · 20/11/2026'));
    act(() => mockSocket.push(`importMessages-${COMPANY}`, { action: 'refresh' }));
    await waitFor(() => expect(screen.queryByTestId('import-card')).toBeNull());
  });
});
