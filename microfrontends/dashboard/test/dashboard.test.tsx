/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { ReactElement } from 'react';
import i18next from 'i18next';
import { session, writeToken } from '@atendo/web-api';
import { answer, mockFetch, renderShell, sessionUser, type FetchCall } from '../../../shell/test/helpers';
import { DashboardPage, highlightedAttendant } from '../src/pages/DashboardPage';
import { ReportsPage } from '../src/pages/ReportsPage';
import { Root } from '../src/root';
import { registerTranslations, resources } from '../src/i18n';
import { currentMonth, formatMinutes, toCsv } from '../src/api';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

class NoResize {
  observe() {}
  unobserve() {}
  disconnect() {}
}
Object.assign(globalThis, { ResizeObserver: NoResize });

const COMPANY = 3;
const counters = (over: Record<string, unknown> = {}) => ({
  avgSupportTime: 41.25, avgWaitTime: 16, supportHappening: 1, supportPending: 1, supportFinished: 4, leads: 4, tickets: 6,
  waitRating: 0, withoutRating: 1, withRating: 3, percRating: 75, npsPromotersPerc: 33.33, npsPassivePerc: 33.33, npsDetractorsPerc: 33.33, npsScore: 0, ...over,
});
const attendants = [
  { id: 7, name: 'Admin', online: true, avgWaitTime: null, avgSupportTime: null, tickets: 0, rating: null, countRating: 0 },
  { id: 11, name: 'Ana', online: false, avgWaitTime: 15, avgSupportTime: 50, tickets: 3, rating: 9, countRating: 2 },
  { id: 12, name: 'Bruno', online: true, avgWaitTime: 17.5, avgSupportTime: 15, tickets: 2, rating: 3, countRating: 1 },
];
const report = (ids: number[], over: Record<string, unknown> = {}) => ({
  tickets: ids.map((id) => ({
    id, uuid: `u${id}`, status: 'closed', isGroup: false, contact: { id: 1, name: `Contato ${id}`, number: '5511' }, queue: { id: 1, name: 'Vendas', color: '#111' }, user: { id: 11, name: 'Ana' },
    whatsapp: { id: 1, name: 'Main' }, createdAt: '2026-11-02T12:00:00.000Z', acceptedAt: '2026-11-02T12:10:00.000Z', closedAt: '2026-11-02T13:40:00.000Z',
    updatedAt: '2026-11-02T13:40:00.000Z', lastMessage: 'Obrigado', waitTime: 10, supportTime: 90, duration: 100, rating: 10,
  })),
  count: 3, hasMore: false, totals: { tickets: 3, contacts: 3, avgWaitTime: 10, avgSupportTime: 90, avgDuration: 100 }, timeZone: 'America/Sao_Paulo', ...over,
});
/** The group attendance report: a group conversation (status group, no attendant) and a group served as a ticket. */
const groupReport = () => ({
  tickets: [
    { ...report([21]).tickets[0], status: 'group', isGroup: true, contact: { id: 5, name: 'Grupo Vendas', number: '120363' }, user: null, queue: null, acceptedAt: null, closedAt: null,
      updatedAt: '2026-11-04T14:00:00.000Z', lastMessage: 'Bom dia, grupo', waitTime: null, supportTime: null, duration: null, rating: null },
    { ...report([22]).tickets[0], isGroup: true, contact: { id: 6, name: 'Grupo Suporte', number: '120364' } },
  ],
  count: 2, hasMore: false, totals: { tickets: 2, contacts: 2, avgWaitTime: 10, avgSupportTime: 90, avgDuration: 100 }, timeZone: 'America/Sao_Paulo',
});
const research = (page: number) => ({
  answers: (page === 1
    ? [{ ticketId: 3, rate: 3, npsClass: 'detractor', ratedAt: '2026-11-03T15:25:00.000Z', user: { id: 12, name: 'Bruno' } }, { ticketId: 2, rate: 8, npsClass: 'passive', ratedAt: '2026-11-02T14:25:00.000Z', user: { id: 11, name: 'Ana' } }]
    : [{ ticketId: 1, rate: 10, npsClass: 'promoter', ratedAt: '2026-11-02T12:45:00.000Z', user: { id: 11, name: 'Ana' } }]
  ).map((a) => ({ ...a, uuid: `u${a.ticketId}`, createdAt: '2026-11-02T12:00:00.000Z', closedAt: '2026-11-02T12:40:00.000Z', contact: { id: 1, name: `Contato ${a.ticketId}`, number: '5511' }, queue: { id: 1, name: 'Vendas', color: '#111' }, whatsapp: { id: 1, name: 'Main' } })),
  count: 3, hasMore: page === 1,
  totals: { answers: 3, average: 7, promoters: 1, passives: 1, detractors: 1, promotersPerc: 33.33, passivesPerc: 33.33, detractorsPerc: 33.33, npsScore: 0 },
  timeZone: 'America/Sao_Paulo',
});

let state: { tickets: number; failMain?: boolean; failQueues?: boolean; sla?: unknown };
let calls: FetchCall[];

function backend() {
  calls = mockFetch((call) => {
    const url = new URL(call.url);
    switch (url.pathname) {
      case '/companies/listPlan/3':
        return answer(200, { id: 3, name: 'Acme', dueDate: '2999-01-01', plan: { id: 1, name: 'Full', users: 1, connections: 1, queues: 1, amount: '1' } });
      case '/dashboard':
        return state.failMain ? answer(400, { error: 'ERR_DASHBOARD_RANGE', message: 'bad' }) : answer(200, { counters: counters({ supportPending: state.tickets }), attendants });
      case '/dashboard/atendimentos-encerrados':
        return answer(200, 4);
      case '/dashboard/queues':
        return state.failQueues ? answer(500, { error: 'ERR_INTERNAL', message: 'x' }) : answer(200, [{ queueId: 1, name: 'Vendas', color: '#111111', quantidade: 3, queue: { id: 1, name: 'Vendas', color: '#111111' } }, { queueId: 0, name: '', color: '#9e9e9e', quantidade: 1, queue: null }]);
      case '/dashboard/ticketsUsers':
        return answer(200, { data: [] });
      case '/dashboard/total-atendimentos':
        return answer(200, { count: 6, data: [{ data: '2026-11-02', total: 2 }, { data: '2026-11-03', total: 4 }], hours: Array.from({ length: 24 }, (_, h) => ({ horario: h, total: h === 9 ? 6 : 0 })) });
      case '/dashboard/sla':
        return state.sla ? answer(200, state.sla) : answer(404, { error: 'ERR_NOT_FOUND', message: url.pathname });
      case '/dashboard/nps-info':
        return answer(200, [{ total_notas: 6, ruim: 1, media: 2, boa: 3 }]);
      case '/ticket/reports/research':
        return answer(200, research(Number(url.searchParams.get('pageNumber') ?? 1)));
      case '/ticket/reports': {
        if (url.searchParams.get('isGroup') === 'true') return answer(200, groupReport());
        const page = Number(url.searchParams.get('pageNumber') ?? 1);
        const size = Number(url.searchParams.get('pageSize') ?? 50);
        if (size === 500) return answer(200, report(page === 1 ? [1, 2] : [3], { hasMore: page === 1, count: 3 }));
        return answer(200, report(page === 1 ? [1, 2] : [3], { hasMore: page === 1, count: 3 }));
      }
      case '/queue':
        return answer(200, [{ id: 1, name: 'Vendas' }]);
      case '/users/list':
        return answer(200, [{ id: 11, name: 'Ana' }]);
      case '/whatsapp/':
        return answer(200, [{ id: 1, name: 'Main' }]);
      default:
        return answer(404, { error: 'ERR_NOT_FOUND', message: url.pathname });
    }
  });
}

const blobs: Blob[] = [];
const readBlob = (b: Blob) =>
  new Promise<string>((resolve) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result));
    r.readAsText(b);
  });

function renderPage(ui: ReactElement, language: 'pt-BR' | 'en' = 'pt-BR') {
  writeToken('jwt');
  act(() => session.signIn(sessionUser({ id: 7, companyId: COMPANY, profile: 'admin' }) as never));
  const out = renderShell(ui, { route: '/', language: language as 'pt-BR' });
  registerTranslations();
  act(() => {
    void i18next.changeLanguage(language);
  });
  return out;
}
const calledPaths = () => calls.map((c) => new URL(c.url)).map((u) => `${u.pathname}?${u.searchParams.toString()}`);

beforeEach(() => {
  state = { tickets: 1 };
  blobs.length = 0;
  Object.assign(URL, { createObjectURL: jest.fn((b: Blob) => (blobs.push(b), 'blob:csv')), revokeObjectURL: jest.fn() });
  jest.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
  backend();
});
afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
});

test('helpers: minutes, CSV, current month, the highlighted attendant', () => {
  expect(formatMinutes(null)).toBe('—');
  expect(formatMinutes(41.25)).toBe('41 min');
  expect(formatMinutes(125)).toBe('2 h 05 min');
  expect(toCsv(['Nome', 'Tickets'], [['Ana, A.', 3], ['Bruno', null]])).toBe('Nome,Tickets\r\n"Ana, A.",3\r\nBruno,');
  expect(currentMonth(new Date(2026, 10, 25))).toEqual({ kind: 'range', from: '2026-11-01', to: '2026-11-25' });
  expect(highlightedAttendant(attendants)?.name).toBe('Ana');
  expect(highlightedAttendant([{ ...attendants[1], tickets: 2 }, attendants[2]])?.name).toBe('Ana'); // tie on tickets: better rating
  expect(highlightedAttendant([attendants[0]])).toBeUndefined();
});

test('every locale has the same texts', () => {
  const keys = (o: object, p = ''): string[] =>
    Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? keys(v, `${p}${k}.`) : [`${p}${k}`.replace(/_(one|other)$/, '')])).sort();
  const pt = [...new Set(keys(resources['pt-BR']))];
  for (const lng of ['en', 'es', 'tr'] as const) expect([...new Set(keys(resources[lng]))]).toEqual(pt);
});

test('indicators: the cards and charts of the current month, CSV of a chart, empty and failing charts', async () => {
  state.failQueues = true;
  renderPage(<DashboardPage />);
  await waitFor(() => expect(screen.getByTestId('card-pending-value').textContent).toBe('1'));
  const month = currentMonth();
  expect(calledPaths()).toContain(`/dashboard?date_from=${month.kind === 'range' ? month.from : ''}&date_to=${month.kind === 'range' ? month.to : ''}`);
  expect(screen.getByTestId('card-happening-value').textContent).toBe('1');
  expect(screen.getByTestId('card-finished-value').textContent).toBe('4');
  await waitFor(() => expect(screen.getByTestId('card-closed-value').textContent).toBe('4'));
  expect(screen.getByTestId('card-leads-value').textContent).toBe('4');
  expect(screen.getByTestId('card-support-value').textContent).toBe('41 min');
  expect(screen.getByTestId('card-wait-value').textContent).toBe('16 min');
  // Users chart: no rows -> empty state; queues: the failure with its text and a retry.
  await waitFor(() => expect(within(screen.getByTestId('chart-users')).getByText('Nenhum ticket no período.')).toBeTruthy());
  await waitFor(() => expect(within(screen.getByTestId('chart-queues')).getByRole('alert').textContent).toContain('Erro ao buscar informações dos tickets'));
  state.failQueues = false;
  fireEvent.click(within(screen.getByTestId('chart-queues')).getByText('Tentar novamente'));
  await waitFor(() => expect(screen.getByTestId('chart-queues-csv')).toBeTruthy());
  fireEvent.click(screen.getByTestId('chart-queues-csv'));
  expect(await readBlob(blobs[0])).toBe('Departamento,Tickets\r\nVendas,3\r\nSem fila,1');
  await waitFor(() => expect(screen.getByTestId('chart-hours-csv')).toBeTruthy());
  fireEvent.click(screen.getByTestId('chart-hours-csv'));
  expect((await readBlob(blobs[1])).split('\r\n').slice(9, 11)).toEqual(['08:00,0', '09:00,6']);
  fireEvent.click(screen.getByTestId('chart-days-csv'));
  expect(await readBlob(blobs[2])).toBe('Dia,Tickets\r\n2026-11-02,2\r\n2026-11-03,4');
});

test('the dashboard error shows the translated catalogue code', async () => {
  state.failMain = true;
  renderPage(<DashboardPage />, 'en');
  await waitFor(() => expect(within(screen.getByTestId('counters')).getByRole('alert').textContent).toContain('Invalid period: the start must be before the end'));
});

test('filters by period and refuses an empty range with "Parametrize o filtro"', async () => {
  renderPage(<DashboardPage />);
  await waitFor(() => expect(screen.getByTestId('card-pending-value').textContent).toBe('1'));
  fireEvent.change(screen.getByTestId('filter-mode'), { target: { value: 'days' } });
  fireEvent.change(screen.getByTestId('filter-days'), { target: { value: '7' } });
  fireEvent.click(screen.getByTestId('filter-apply'));
  await waitFor(() => expect(calledPaths()).toContain('/dashboard?days=7'));
  expect(calledPaths()).toContain('/dashboard/total-atendimentos?days=7');
  fireEvent.change(screen.getByTestId('filter-mode'), { target: { value: 'range' } });
  fireEvent.change(screen.getByTestId('filter-from'), { target: { value: '' } });
  fireEvent.click(screen.getByTestId('filter-apply'));
  expect(await screen.findByText('Parametrize o filtro')).toBeTruthy();
  fireEvent.change(screen.getByTestId('filter-from'), { target: { value: '2026-10-01' } });
  fireEvent.change(screen.getByTestId('filter-to'), { target: { value: '2026-10-31' } });
  fireEvent.click(screen.getByTestId('filter-apply'));
  await waitFor(() => expect(calledPaths()).toContain('/dashboard?date_from=2026-10-01&date_to=2026-10-31'));
  expect(calledPaths()).toContain('/dashboard/queues?initialDate=2026-10-01&finalDate=2026-10-31');
});

test('refreshes live on the company ticket events', async () => {
  renderPage(<DashboardPage />);
  await waitFor(() => expect(screen.getByTestId('card-pending-value').textContent).toBe('1'));
  state.tickets = 2;
  act(() => mockSocket.push(`company-${COMPANY}-ticket`, { action: 'update', ticket: { id: 9 } }));
  await waitFor(() => expect(screen.getByTestId('card-pending-value').textContent).toBe('2'), { timeout: 4000 });
});

test('NPS tab: the NPS cards and the rating pie with its table', async () => {
  renderPage(<DashboardPage />);
  fireEvent.click(screen.getByTestId('tab-nps'));
  await waitFor(() => expect(screen.getByTestId('card-promoters-value').textContent).toMatch(/33[.,]33%/));
  expect(screen.getByTestId('card-perc-value').textContent).toBe('75%');
  expect(screen.getByTestId('card-unrated-value').textContent).toBe('1');
  await waitFor(() => expect(screen.getByTestId('ratings-table')).toBeTruthy());
  const rows = [...screen.getByTestId('ratings-table').querySelectorAll('tr')].map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent));
  expect(rows).toEqual([['Ótimo', '3'], ['Bom', '2'], ['Ruim', '1']]);
});

test('attendants tab: the highlighted attendant, the table and its CSV', async () => {
  renderPage(<DashboardPage />);
  fireEvent.click(screen.getByTestId('tab-attendants'));
  await waitFor(() => expect(screen.getByTestId('highlighted-name').textContent).toBe('Ana'));
  const table = screen.getByTestId('attendants-table');
  const rows = [...table.querySelectorAll('tbody tr')].map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent));
  expect(rows).toEqual([
    ['Admin', 'Online', '—', '0', '0', '—', '—'],
    ['Ana', 'Offline', '9', '2', '3', '50 min', '15 min'],
    ['Bruno', 'Online', '3', '1', '2', '15 min', '18 min'],
  ]);
  expect((screen.getByTestId('attendant-11') as HTMLElement).style.fontWeight).toBe('600');
  // The status is text in the flow of its cell (the web-ui Badge, a 10 px dot placed over an icon, hid it).
  for (const status of screen.getAllByTestId('attendant-status')) {
    expect(status.closest('td')).not.toBeNull();
    expect(getComputedStyle(status).position).not.toBe('absolute');
    expect(getComputedStyle(status).height).not.toBe('10px');
  }
  fireEvent.click(screen.getByTestId('attendants-csv'));
  expect((await readBlob(blobs[0])).split('\r\n')).toEqual([
    'Nome,Status,Avaliação,Avaliações,Tickets,Tempo de atendimento,Tempo de espera',
    'Admin,Online,,0,0,,',
    'Ana,Offline,9,2,3,50,15',
    'Bruno,Online,3,1,2,15,17.5',
  ]);
});

test('reports: attendance and duration tables, filters, pages and the CSV of every page', async () => {
  renderPage(<ReportsPage />);
  await waitFor(() => expect(screen.getByTestId('report-table').querySelectorAll('tbody tr')).toHaveLength(2));
  const cells = () => [...screen.getByTestId('report-table').querySelectorAll('tbody tr')].map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent));
  // Times in the company's zone as answered (12:00Z is 09:00 in São Paulo), whatever the browser's zone.
  expect(cells()[0]).toEqual(['1', 'Contato 1', 'Ana', 'Vendas', 'Main', 'Fechado', '02/11/2026 09:00', '02/11/2026 09:10', '02/11/2026 10:40', '10 min', '1 h 30 min', '10']);
  expect(screen.getByTestId('report-totals').textContent).toContain('3 tickets');
  // The attendance report is of the 1:1 conversations (the groups have their own).
  expect(calledPaths().filter((p) => p.startsWith('/ticket/reports?')).every((p) => p.includes('isGroup=false'))).toBe(true);
  fireEvent.click(screen.getByTestId('report-next'));
  await waitFor(() => expect(cells().map((r) => r[0])).toEqual(['3']));
  expect(screen.getByTestId('report-page').textContent).toBe('Página 2');
  fireEvent.click(screen.getByTestId('report-tab-duration'));
  expect(cells()[0].slice(-1)).toEqual(['1 h 40 min']);
  await waitFor(() => expect(screen.getByTestId('report-queue').querySelectorAll('option').length).toBe(3));
  fireEvent.change(screen.getByTestId('report-queue'), { target: { value: '1' } });
  fireEvent.change(screen.getByTestId('report-status'), { target: { value: 'closed' } });
  fireEvent.click(screen.getByTestId('report-apply'));
  await waitFor(() => expect(calledPaths().some((p) => p.startsWith('/ticket/reports?') && p.includes('queueIds=1') && p.includes('status=closed') && p.includes('pageNumber=1'))).toBe(true));
  await waitFor(() => expect(screen.getByTestId('report-csv')).toBeTruthy());
  fireEvent.click(screen.getByTestId('report-csv'));
  await waitFor(() => expect(blobs).toHaveLength(1));
  const csv = (await readBlob(blobs[0])).split('\r\n');
  expect(csv[0]).toBe('Ticket,Contato,Usuário,Departamento,Status,Aberto em,Fechado em,Duração');
  expect(csv.slice(1).map((l) => l.split(',')[0])).toEqual(['1', '2', '3']);
});

test('reports: group attendance, the group conversations with their last activity and message', async () => {
  renderPage(<ReportsPage />);
  await waitFor(() => expect(screen.getByTestId('report-table').querySelectorAll('tbody tr')).toHaveLength(2));
  fireEvent.click(screen.getByTestId('report-next'));
  await waitFor(() => expect(screen.getByTestId('report-page').textContent).toBe('Página 2'));
  fireEvent.click(screen.getByTestId('report-tab-groups'));
  const cells = () => [...screen.getByTestId('report-table').querySelectorAll('tbody tr')].map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent));
  await waitFor(() => expect(cells().map((r) => r[0])).toEqual(['21', '22']));
  // Another report starts on its first page.
  expect(screen.getByTestId('report-page').textContent).toBe('Página 1');
  expect(calledPaths().some((p) => p.startsWith('/ticket/reports?') && p.includes('isGroup=true') && p.includes('pageNumber=1'))).toBe(true);
  const headers = [...screen.getByTestId('report-table').querySelectorAll('th')].map((th) => th.textContent);
  expect(headers).toEqual(['Ticket', 'Grupo', 'Conexão', 'Departamento', 'Usuário', 'Status', 'Aberto em', 'Última atividade', 'Fechado em', 'Última mensagem']);
  expect(cells()[0]).toEqual(['21', 'Grupo Vendas', 'Main', 'Sem fila', '', 'Grupo', '02/11/2026 09:00', '04/11/2026 11:00', '—', 'Bom dia, grupo']);
  expect(screen.getByTestId('report-totals').textContent).toContain('2 tickets · 2 grupos');
  fireEvent.click(screen.getByTestId('report-csv'));
  await waitFor(() => expect(blobs).toHaveLength(1));
  const csv = (await readBlob(blobs[0])).split('\r\n');
  expect(csv[0]).toBe('Ticket,Grupo,Conexão,Departamento,Usuário,Status,Aberto em,Última atividade,Fechado em,Última mensagem');
  expect(csv.slice(1).map((l) => l.split(',')[1])).toEqual(['Grupo Vendas', 'Grupo Suporte']);
});

test('reports: research, the NPS answers with their class, the NPS class filter, pages, totals and CSV (in English too)', async () => {
  renderPage(<ReportsPage />);
  fireEvent.click(screen.getByTestId('report-tab-research'));
  const cells = () => [...screen.getByTestId('report-table').querySelectorAll('tbody tr')].map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent));
  await waitFor(() => expect(cells().map((r) => r[0])).toEqual(['3', '2']));
  expect([...screen.getByTestId('report-table').querySelectorAll('th')].map((th) => th.textContent)).toEqual(['Ticket', 'Respondido em', 'Contato', 'Usuário', 'Departamento', 'Conexão', 'Nota', 'Classificação']);
  expect(cells()[0]).toEqual(['3', '03/11/2026 12:25', 'Contato 3', 'Bruno', 'Vendas', 'Main', '3', 'Detrator (0-6)']);
  expect(screen.getByTestId('report-totals').textContent).toBe('3 respostas · Média: 7 · NPS: 0 · Promotores: 33,33% · Neutros: 33,33% · Detratores: 33,33%');
  // The research has the NPS class filter instead of the ticket status.
  expect(screen.queryByTestId('report-status')).toBeNull();
  fireEvent.click(screen.getByTestId('report-next'));
  await waitFor(() => expect(cells().map((r) => r[0])).toEqual(['1']));
  fireEvent.change(screen.getByTestId('report-nps-class'), { target: { value: 'promoter' } });
  fireEvent.click(screen.getByTestId('report-apply'));
  await waitFor(() => expect(calledPaths().some((p) => p.startsWith('/ticket/reports/research?') && p.includes('npsClass=promoter') && p.includes('pageNumber=1'))).toBe(true));
  await waitFor(() => expect(cells().map((r) => r[0])).toEqual(['3', '2']));
  fireEvent.click(screen.getByTestId('report-csv'));
  await waitFor(() => expect(blobs).toHaveLength(1));
  const csv = (await readBlob(blobs[0])).split('\r\n');
  expect(csv[0]).toBe('Ticket,Respondido em,Contato,Usuário,Departamento,Conexão,Nota,Classificação');
  expect(csv.slice(1).map((l) => l.split(',')[0])).toEqual(['3', '2', '1']);
  act(() => {
    void i18next.changeLanguage('en');
  });
  await waitFor(() => expect(screen.getByTestId('report-totals').textContent).toBe('3 answers · Average: 7 · NPS: 0 · Promoters: 33.33% · Passives: 33.33% · Detractors: 33.33%'));
  expect(cells()[0].slice(-1)).toEqual(['Detractor (0-6)']);
  expect(screen.getByTestId('report-tab-groups').textContent).toBe('Group attendance');
});

test('the area shows the reports at /reports and the dashboard at /', async () => {
  window.history.replaceState(null, '', '/reports');
  const first = renderPage(<Root />);
  expect(await screen.findByTestId('reports-page')).toBeTruthy();
  expect(screen.queryByTestId('dashboard-page')).toBeNull();
  first.unmount();
  window.history.replaceState(null, '', '/');
  renderPage(<Root />);
  expect(await screen.findByTestId('dashboard-page')).toBeTruthy();
});

const share = (total: number, met: number, breached: number, value: number | null) => ({ total, met, breached, running: total - met - breached, share: value });

test('SLA tab (issue 34 item 5): hidden without the SLA plugin', async () => {
  renderPage(<DashboardPage />);
  await waitFor(() => expect(calledPaths().some((p) => p.startsWith('/dashboard/sla?'))).toBe(true));
  await waitFor(() => expect(screen.getByTestId('card-pending-value').textContent).toBe('1'));
  expect(screen.queryByTestId('tab-sla')).toBeNull();
  expect(screen.getByTestId('tab-attendants')).toBeTruthy();
});

test('SLA tab: the share that met each target in all, per queue and per attendant, with CSV', async () => {
  state.sla = {
    totals: { firstResponse: share(3, 1, 2, 33.33), resolution: share(3, 1, 1, 50) },
    queues: [
      { queueId: 1, name: 'Vendas', color: '#111111', firstResponse: share(2, 1, 1, 50), resolution: share(2, 0, 1, 0) },
      { queueId: 2, name: '', color: '', firstResponse: share(1, 0, 1, 0), resolution: share(1, 1, 0, 100) },
    ],
    attendants: [{ userId: 11, name: 'Ana', firstResponse: share(2, 1, 1, 50), resolution: share(0, 0, 0, null) }],
  };
  renderPage(<DashboardPage />);
  fireEvent.click(await screen.findByTestId('tab-sla'));
  await waitFor(() => expect(screen.getByTestId('card-sla-first-value').textContent).toMatch(/^33[.,]33% \(1 de 3\)$/));
  expect(screen.getByTestId('card-sla-resolution-value').textContent).toBe('50% (1 de 2)');
  expect(screen.getByTestId('card-sla-first-late-value').textContent).toBe('2');
  const rows = (id: string) => [...screen.getByTestId(id).querySelectorAll('tbody tr')].map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent));
  expect(rows('sla-queue')).toEqual([
    ['Vendas', '50% (1 de 2)', '0% (0 de 1)'],
    ['Sem fila', '0% (0 de 1)', '100% (1 de 1)'],
  ]);
  expect(rows('sla-attendant')).toEqual([['Ana', '50% (1 de 2)', '—']]);
  expect(calledPaths().filter((p) => p.startsWith('/dashboard/sla?'))[0]).toMatch(/date_from=\d{4}-\d{2}-01&date_to=/);
  fireEvent.click(screen.getByTestId('sla-queues-csv'));
  expect((await readBlob(blobs[0])).split('\r\n')[1]).toBe('Vendas,50,1,1,0,0,0,1,1');
});
