/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session } from '@atendo/web-api';
import { SchedulesPage } from '../src/pages/schedules/SchedulesPage';
import { cutBody, formatSendAt, localInput, sendAtOf, type Schedule } from '../src/pages/schedules/api';
import { answer, API, mockFetch, renderAgent, signIn, type FetchCall } from './helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const COMPANY = 3;
const sch = (over: Partial<Schedule> & { id: number }): Schedule => ({
  body: 'Lembrete da sua consulta amanhã às 10h',
  sendAt: '2030-01-02T13:04:05.000Z',
  sentAt: null,
  contactId: 4,
  ticketId: null,
  userId: 7,
  companyId: COMPANY,
  status: 'PENDENTE',
  error: null,
  createdAt: '',
  updatedAt: '',
  contact: { id: 4, name: 'Maria Souza' },
  user: { id: 7, name: 'Ana' },
  ...over,
});
const PENDING = sch({ id: 1 });
const SENT = sch({ id: 2, body: 'Curto', status: 'ENVIADA', sentAt: '2030-01-02T13:04:06.000Z', contact: { id: 5, name: 'João' }, contactId: 5 });
const FAILED = sch({ id: 3, status: 'ERRO', error: 'ERR_NO_DEF_WAPP_FOUND: no connection', userId: 99 });

/** Local DD/MM/YYYY HH:mm:ss computed without dayjs. */
function localText(iso: string): string {
  const d = new Date(iso);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getDate())}/${p(d.getMonth() + 1)}/${d.getFullYear()} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

function api(write?: (call: FetchCall, url: URL) => ReturnType<typeof answer> | undefined) {
  return mockFetch((call) => {
    const url = new URL(call.url);
    if (call.method === 'GET' && url.pathname === '/schedules/') {
      const term = url.searchParams.get('searchParam') ?? '';
      const schedules = [PENDING, SENT, FAILED].filter((s) => !term || s.body.toLowerCase().includes(term) || s.contact!.name.toLowerCase().includes(term));
      return answer(200, { schedules, count: schedules.length, hasMore: false });
    }
    if (call.method === 'GET' && url.pathname === '/contacts/list') return answer(200, [{ id: 4, name: 'Maria Souza', number: '5511999990001' }, { id: 8, name: 'Mariana', number: '5511999990002' }].filter((c) => c.name.toLowerCase().includes(url.searchParams.get('searchParam') ?? '')));
    if (call.method === 'GET' && url.pathname === '/contacts/8') return answer(200, { id: 8, name: 'Mariana', number: '5511999990002' });
    return write?.(call, url) ?? answer(404, { error: 'ERR_NOT_FOUND' });
  });
}
const contacts = () => within(screen.getByTestId('schedules-rows')).queryAllByRole('row').map((r) => r.querySelector('td')?.textContent);

afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
});

describe('schedules: formatting', () => {
  test('body cut to 25 plus ..., DD/MM/YYYY HH:mm:ss, one hour ahead by default, ISO with offset sent', () => {
    expect(cutBody('1234567890123456789012345')).toBe('1234567890123456789012345');
    expect(cutBody('12345678901234567890123456')).toBe('1234567890123456789012345...');
    expect(formatSendAt('2030-01-02T13:04:05.000Z')).toBe(localText('2030-01-02T13:04:05.000Z'));
    expect(formatSendAt('nonsense')).toBe('');
    const now = new Date(2030, 0, 2, 23, 30, 0);
    expect(localInput(null, now)).toBe('2030-01-03T00:30');
    const iso = sendAtOf('2030-01-03T00:30');
    expect(iso).toMatch(/^2030-01-03T00:30:00[+-]\d{2}:\d{2}$/);
    expect(new Date(iso as string).getTime()).toBe(new Date(2030, 0, 3, 0, 30, 0).getTime());
    expect(sendAtOf('03/01/2030 00:30')).toBeUndefined();
  });
});

describe('the schedules page', () => {
  test('table, translated statuses, search; a new schedule with contact search and validation; a sent one is read-only; live updates', async () => {
    signIn({ profile: 'user' });
    const calls = api((call, url) => {
      if (call.method === 'POST' && url.pathname === '/schedules') {
        const b = call.body as { body: string; contactId: number; sendAt: string };
        return answer(200, sch({ id: 9, body: b.body, sendAt: new Date(b.sendAt).toISOString(), contactId: b.contactId, contact: { id: b.contactId, name: 'Mariana' } }));
      }
      return undefined;
    });
    renderAgent(<SchedulesPage />, { route: '/schedules' });
    await waitFor(() => expect(contacts()).toEqual(['Maria Souza', 'João', 'Maria Souza']));
    expect(calls[0].url).toBe(`${API}/schedules/?pageNumber=1`);
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Contato', 'Mensagem', 'Data de envio', 'Status', 'Ações']);
    const row1 = within(screen.getByTestId('schedule-row-1'));
    expect(row1.getByText('Lembrete da sua consulta ...')).toBeTruthy();
    expect(row1.getByText(localText(PENDING.sendAt))).toBeTruthy();
    expect(screen.getByTestId('schedule-status-1').textContent).toBe('Pendente');
    expect(screen.getByTestId('schedule-status-2').textContent).toBe('Enviada');
    expect(screen.getByTestId('schedule-status-3').textContent).toBe('Erro');
    expect(screen.getByTestId('schedule-status-3').getAttribute('title')).toBe('ERR_NO_DEF_WAPP_FOUND: no connection');
    expect(within(screen.getByTestId('schedule-row-3')).queryByRole('button')).toBeNull(); // another user's

    fireEvent.change(screen.getByTestId('schedules-search'), { target: { value: 'JOÃO' } });
    await waitFor(() => expect(contacts()).toEqual(['João']));
    expect(calls.at(-1)?.url).toBe(`${API}/schedules/?searchParam=jo%C3%A3o&pageNumber=1`);
    fireEvent.click(screen.getByRole('button', { name: 'Editar agendamento de João' }));
    let d = within(screen.getByRole('dialog', { name: 'Agendamento enviado' }));
    expect(d.queryByTestId('schedule-submit')).toBeNull();
    expect((d.getByTestId('schedule-body') as HTMLTextAreaElement).readOnly).toBe(true);
    fireEvent.click(d.getAllByRole('button', { name: 'Fechar' }).at(-1) as HTMLElement);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    fireEvent.change(screen.getByTestId('schedules-search'), { target: { value: '' } });
    await waitFor(() => expect(contacts()).toHaveLength(3));

    const before = Date.now();
    fireEvent.click(screen.getByTestId('schedule-add'));
    d = within(screen.getByRole('dialog', { name: 'Novo agendamento' }));
    const defaultAt = (d.getByTestId('schedule-send-at') as HTMLInputElement).value;
    expect(defaultAt).toBe(localInput(null, new Date(before)));
    fireEvent.change(d.getByTestId('schedule-body'), { target: { value: 'Oi' } });
    fireEvent.click(d.getByTestId('schedule-submit'));
    await waitFor(() => expect(d.getAllByRole('alert').map((a) => a.textContent)).toEqual(['Obrigatório', 'Mensagem muito curta']));
    fireEvent.change(d.getByTestId('schedule-contact'), { target: { value: 'maria' } });
    await waitFor(() => expect(d.getByTestId('schedule-contact-8')).toBeTruthy());
    expect(calls.filter((c) => c.url.startsWith(`${API}/contacts/list`)).map((c) => c.url)).toEqual([`${API}/contacts/list?searchParam=maria`]);
    fireEvent.click(d.getByTestId('schedule-contact-8'));
    expect((d.getByTestId('schedule-contact') as HTMLInputElement).value).toBe('Mariana');
    fireEvent.change(d.getByTestId('schedule-body'), { target: { value: 'Olá , sua consulta' } });
    (d.getByTestId('schedule-body') as HTMLTextAreaElement).setSelectionRange(4, 4);
    fireEvent.change(d.getByTestId('variable-picker'), { target: { value: 'firstName' } });
    fireEvent.click(d.getByTestId('schedule-submit'));
    await screen.findByText('Agendamento salvo com sucesso!');
    const post = calls.find((c) => c.method === 'POST')?.body as { body: string; contactId: number; sendAt: string };
    expect(post.body).toBe('Olá {{firstName}}, sua consulta');
    expect(post.contactId).toBe(8);
    expect(post.sendAt).toMatch(/[+-]\d{2}:\d{2}$/);
    const ahead = new Date(post.sendAt).getTime() - before;
    expect(ahead).toBeGreaterThan(58 * 60_000);
    expect(ahead).toBeLessThanOrEqual(60 * 60_000);
    await waitFor(() => expect(contacts()).toEqual(['Mariana', 'Maria Souza', 'João', 'Maria Souza']));

    // The server sends it: the row turns "Enviada"; a deletion elsewhere removes a row.
    act(() => mockSocket.push(`company${COMPANY}-schedule`, { action: 'update', schedule: sch({ id: 9, body: post.body, status: 'ENVIADA', contact: { id: 8, name: 'Mariana' } }) }));
    await waitFor(() => expect(screen.getByTestId('schedule-status-9').textContent).toBe('Enviada'));
    act(() => mockSocket.push(`company${COMPANY}-schedule`, { action: 'delete', scheduleId: 3 }));
    await waitFor(() => expect(contacts()).toEqual(['Mariana', 'Maria Souza', 'João']));
  });

  test('?contactId= opens the new-schedule dialog for that contact; a time in the past shows the translated code', async () => {
    signIn({ profile: 'admin' });
    api((call, url) => (call.method === 'POST' && url.pathname === '/schedules' ? answer(400, { error: 'ERR_SCHEDULE_IN_PAST' }) : undefined));
    renderAgent(<SchedulesPage />, { route: '/schedules?contactId=8', language: 'en' });
    const dialog = await screen.findByRole('dialog', { name: 'New schedule' });
    const d = within(dialog);
    expect((d.getByTestId('schedule-contact') as HTMLInputElement).value).toBe('Mariana');
    fireEvent.change(d.getByTestId('schedule-body'), { target: { value: 'Hello there' } });
    fireEvent.click(d.getByTestId('schedule-submit'));
    await screen.findByText('The send time must be in the future.');
    expect(screen.getByRole('dialog', { name: 'New schedule' })).toBeTruthy();
    expect(screen.getByTestId('schedule-status-1').textContent).toBe('Pending');
    expect(within(screen.getByTestId('schedule-row-3')).getAllByRole('button')).toHaveLength(2); // admins change any
  });

  test('empty and failed loads', async () => {
    signIn();
    mockFetch(() => answer(200, { schedules: [], count: 0, hasMore: false }));
    const { unmount } = renderAgent(<SchedulesPage />, { route: '/schedules' });
    expect((await screen.findByTestId('schedules-empty')).textContent).toContain('Nenhum agendamento cadastrado.');
    unmount();
    mockFetch(() => answer(500, { error: 'ERR_INTERNAL' }));
    renderAgent(<SchedulesPage />, { route: '/schedules', language: 'es' });
    expect((await screen.findByTestId('schedules-failed')).textContent).toContain('No se pudo cargar la lista de registros');
  });
});
