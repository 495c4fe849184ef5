/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { session, writeToken } from '@atendo/web-api';
import { SettingsPage } from '../src/pages/settings/SettingsPage';
import { OPTIONS } from '../src/pages/settings/api';
import { answer, API, mockFetch, renderAdmin, type FetchCall } from './helpers';
import { sessionUser } from '../../../shell/test/helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const COMPANY = 3;
const SETTINGS = { scheduleType: 'disabled', userRating: 'disabled', enableLGPD: 'disabled', lgpdMessage: '', timeZone: 'America/Sao_Paulo', requiredTag: 'disabled' };

function api(opts: { fail?: boolean } = {}) {
  return mockFetch((call) => {
    const url = new URL(call.url);
    if (call.method === 'GET' && url.pathname === `/companySettings/${COMPANY}`) return answer(200, SETTINGS);
    if (call.method === 'GET' && url.pathname === '/settings') return answer(200, [{ key: 'userCreation', value: 'enabled', companyId: 1 }]);
    if (call.method === 'GET' && url.pathname === `/companies/${COMPANY}`) return answer(200, { id: COMPANY, schedules: [] });
    if (call.method === 'PUT' && url.pathname === '/companySettings') return opts.fail ? answer(400, { error: 'ERR_VALIDATION', message: 'bad' }) : answer(200, { response: true, result: {} });
    if (call.method === 'PUT') return answer(200, {});
    return answer(404, { error: 'ERR_NOT_FOUND' });
  });
}
const writes = (calls: FetchCall[]) => calls.filter((c) => c.method !== 'GET').map((c) => ({ url: c.url, body: c.body }));

function renderPage(superUser = false) {
  writeToken('jwt');
  act(() => session.signIn(sessionUser({ id: 1, companyId: COMPANY, profile: 'admin', super: superUser }) as never));
  return renderAdmin(<SettingsPage />, { route: '/settings' });
}

afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
});

describe('settings', () => {
  test('each option saves on change with a toast; LGPD texts appear with LGPD on; the company hours tab appears with scheduleType company', async () => {
    const calls = api();
    renderPage();
    const rating = (await screen.findByTestId('setting-userRating')) as HTMLSelectElement;
    expect(screen.queryByTestId('setting-userCreation')).toBeNull();
    expect(screen.queryByTestId('setting-lgpdMessage')).toBeNull();
    expect(Array.from((screen.getByTestId('setting-scheduleType') as HTMLSelectElement).options).map((o) => o.textContent)).toEqual(['Desabilitado', 'Por fila', 'Por empresa', 'Por conexão']);
    fireEvent.change(rating, { target: { value: 'enabled' } });
    await screen.findByText('Operação realizada com sucesso!');
    expect(writes(calls)).toEqual([{ url: `${API}/companySettings`, body: { column: 'userRating', data: 'enabled' } }]);
    fireEvent.change(screen.getByTestId('setting-enableLGPD'), { target: { value: 'enabled' } });
    const message = await screen.findByTestId('setting-lgpdMessage');
    fireEvent.change(message, { target: { value: 'Seus dados são protegidos.' } });
    fireEvent.blur(message);
    await waitFor(() => expect(writes(calls).map((w) => w.body)).toContainEqual({ column: 'lgpdMessage', data: 'Seus dados são protegidos.' }));
    expect(screen.queryByTestId('tab-schedules')).toBeNull();
    fireEvent.change(screen.getByTestId('setting-scheduleType'), { target: { value: 'company' } });
    fireEvent.click(await screen.findByTestId('tab-schedules'));
    await screen.findByTestId('company-hours');
    fireEvent.click(screen.getByTestId('company-hours-save'));
    await screen.findByText('Horários atualizados com sucesso.');
    const put = writes(calls).find((w) => w.url === `${API}/companies/${COMPANY}/schedules`)!;
    expect((put.body as { schedules: unknown[] }).schedules).toHaveLength(7);
  });

  test('a refused value is the translated error and the select goes back; super users get userCreation; live pushes update', async () => {
    const calls = api({ fail: true });
    renderPage(true);
    const rating = (await screen.findByTestId('setting-userRating')) as HTMLSelectElement;
    fireEvent.change(rating, { target: { value: 'enabled' } });
    await screen.findByText('Os dados enviados são inválidos.');
    await waitFor(() => expect(rating.value).toBe('disabled'));
    fireEvent.change(await screen.findByTestId('setting-userCreation'), { target: { value: 'disabled' } });
    await waitFor(() => expect(writes(calls).map((w) => w.url)).toContain(`${API}/settings/userCreation`));
    act(() => mockSocket.push(`company-${COMPANY}-settings`, { action: 'update', setting: { key: 'requiredTag', value: 'enabled' } }));
    await waitFor(() => expect((screen.getByTestId('setting-requiredTag') as HTMLSelectElement).value).toBe('enabled'));
  });

  test('every option of the spec is listed', () => {
    expect(OPTIONS.map((o) => o.key)).toEqual(expect.arrayContaining(['userRating', 'scheduleType', 'chatBotType', 'acceptCallWhatsapp', 'userRandom', 'sendGreetingMessageOneQueues', 'sendSignMessage', 'sendFarewellWaitingTicket', 'sendGreetingAccepted', 'sendQueuePosition', 'acceptAudioMessageContact', 'enableLGPD', 'requiredTag', 'lgpdDeleteMessage', 'lgpdHideNumber', 'lgpdConsent', 'lgpdMessage', 'lgpdLink', 'sendMsgTransfTicket']));
  });
});
