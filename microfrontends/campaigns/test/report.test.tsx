/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session } from '@atendo/web-api';
import { CampaignReportPage } from '../src/pages/campaign-report/CampaignReportPage';
import { answer, API, mockFetch, renderCampaigns, signIn } from './helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const COMPANY = 3;
const at = '2026-11-01T10:00:00Z';
const messages = { message1: 'Oi', message2: '', message3: '', message4: '', message5: '', confirmationMessage1: '', confirmationMessage2: '', confirmationMessage3: '', confirmationMessage4: '', confirmationMessage5: '' };
const base = {
  id: 2,
  name: 'Natal',
  ...messages,
  status: 'EM_ANDAMENTO',
  confirmation: false,
  scheduledAt: '2026-11-24T12:00:00.000Z',
  completedAt: null,
  companyId: COMPANY,
  contactListId: 4,
  tagListId: null,
  whatsappId: '5',
  whatsappIds: [5],
  mediaPath: null,
  mediaName: null,
  paused: null,
  createdAt: at,
  updatedAt: at,
  contactList: { id: 4, name: 'Clientes', companyId: COMPANY, contactsCount: '4', createdAt: at, updatedAt: at },
  whatsapp: { id: 5, name: 'Vendas', status: 'CONNECTED' },
  whatsapps: [{ id: 5, name: 'Vendas', status: 'CONNECTED' }],
  counts: { validContacts: 4, pending: 3, confirmationRequested: 0, confirmed: 0, delivered: 1, failed: 0 },
};

afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
});

describe('campaign report', () => {
  test('status, delivered of valid, progress and cards; confirmation cards only with confirmation; live to FINALIZADA then reloaded 5 s later', async () => {
    let answerWith = base as Record<string, unknown>;
    const calls = mockFetch((call) => {
      const url = new URL(call.url);
      if (url.pathname === '/campaigns/2' && url.searchParams.get('shipping') === 'true')
        return answer(200, { ...answerWith, shipping: [{ id: 11, number: '5511999990001', name: 'Ana', status: 'delivered', variant: 1, whatsappId: 5, error: null, confirmationRequestedAt: null, confirmedAt: null, deliveredAt: '2026-11-24T12:00:05.000Z' }] });
      if (url.pathname === '/campaigns/2') return answer(200, answerWith);
      return answer(404, { error: 'ERR_NOT_FOUND' });
    });
    signIn({ companyId: COMPANY });
    renderCampaigns(<CampaignReportPage params={{ campaignId: '2' }} />, { route: '/campaign/2/report' });
    await screen.findByTestId('report-status');
    expect(screen.getByTestId('report-status').textContent).toBe('Em andamento');
    expect(screen.getByTestId('report-delivered-of').textContent).toBe('1 de 4 entregues');
    expect(screen.getByTestId('report-progress').getAttribute('aria-valuenow')).toBe('1');
    expect(screen.queryByTestId('report-requested')).toBeNull();
    expect(within(screen.getByTestId('report-valid')).getByText('4')).toBeTruthy();
    expect(screen.getByText('Clientes')).toBeTruthy();
    expect(screen.getByText('Vendas')).toBeTruthy();
    // Live: a confirmation campaign's counts, then FINALIZADA.
    act(() => mockSocket.push(`company-${COMPANY}-campaign`, { action: 'update', record: { ...base, confirmation: true, counts: { ...base.counts, confirmationRequested: 3, confirmed: 2, delivered: 3, pending: 0, failed: 1 } } }));
    await waitFor(() => expect(screen.getByTestId('report-delivered-of').textContent).toBe('3 de 4 entregues'));
    expect(within(screen.getByTestId('report-requested')).getByText('3')).toBeTruthy();
    expect(within(screen.getByTestId('report-confirmed')).getByText('2')).toBeTruthy();
    expect(screen.getByTestId('report-progress').getAttribute('aria-valuenow')).toBe('4');
    // Another campaign's update is ignored.
    act(() => mockSocket.push(`company-${COMPANY}-campaign`, { action: 'update', record: { ...base, id: 9, status: 'CANCELADA' } }));
    const gets = () => calls.filter((c) => c.url === `${API}/campaigns/2?shipping=false`).length;
    const before = gets();
    answerWith = { ...base, confirmation: true, status: 'FINALIZADA', completedAt: '2026-11-24T13:00:00.000Z', counts: { ...base.counts, delivered: 4, pending: 0 } };
    act(() => mockSocket.push(`company-${COMPANY}-campaign`, { action: 'update', record: { ...base, confirmation: true, status: 'FINALIZADA', counts: { ...base.counts, delivered: 3, failed: 1, pending: 0 } } }));
    await waitFor(() => expect(screen.getByTestId('report-status').textContent).toBe('Finalizada'));
    expect(gets()).toBe(before);
    await waitFor(() => expect(gets()).toBe(before + 1), { timeout: 8000 });
    await waitFor(() => expect(screen.getByTestId('report-delivered-of').textContent).toBe('4 de 4 entregues'));
    fireEvent.click(screen.getByTestId('report-show-recipients'));
    const row = await screen.findByTestId('recipient-11');
    expect(within(row).getAllByRole('cell').map((c) => c.textContent).slice(0, 3)).toEqual(['Ana', '5511999990001', 'Entregue']);
  }, 20000);

  test('an unknown campaign shows the error state', async () => {
    mockFetch(() => answer(404, { error: 'ERR_NO_CAMPAIGN_FOUND' }));
    signIn({ companyId: COMPANY });
    renderCampaigns(<CampaignReportPage params={{ campaignId: '99' }} />, { route: '/campaign/99/report' });
    await screen.findByTestId('report-failed');
    await screen.findByText('Campanha não encontrada.');
  });
});
