/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { session } from '@atendo/web-api';
import { CampaignsConfigPage, variablesProblem } from '../src/pages/campaigns-config/CampaignsConfigPage';
import { parseSettings } from '../src/lib/api';
import { answer, API, mockFetch, renderCampaigns, signIn } from './helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const COMPANY = 3;
const row = (key: string, value: unknown) => ({ id: 1, key, value: JSON.stringify(value), companyId: COMPANY, createdAt: '', updatedAt: '' });

afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
});

describe('campaign settings', () => {
  test('parsing: defaults 20/20/60, stored JSON values, variables', () => {
    expect(parseSettings([])).toEqual({ messageInterval: 20, longerIntervalAfter: 20, greaterInterval: 60, variables: [] });
    expect(parseSettings([row('messageInterval', 0), row('variables', [{ key: 'a', value: 'b' }]), { key: 'greaterInterval', value: 'not json' }])).toEqual({ messageInterval: 0, longerIntervalAfter: 20, greaterInterval: 60, variables: [{ key: 'a', value: 'b' }] });
    expect(variablesProblem([{ key: 'a', value: '' }, { key: 'a', value: '' }])).toEqual({ index: 1, key: 'config.errors.duplicated' });
    expect(variablesProblem([{ key: '{a}', value: '' }])).toEqual({ index: 0, key: 'config.errors.badKey' });
  });

  test('interval selects with the spec choices, the variables editor (unique keys), save as {settings}, live updates', async () => {
    const calls = mockFetch((call) => {
      const url = new URL(call.url);
      if (call.method === 'GET' && url.pathname === '/campaign-settings') return answer(200, [row('messageInterval', 5), row('variables', [{ key: 'cupom', value: 'BF10' }])]);
      if (call.method === 'POST' && url.pathname === '/campaign-settings') {
        const s = (call.body as { settings: Record<string, unknown> }).settings;
        return answer(200, Object.entries(s).map(([k, v]) => row(k, v)));
      }
      return answer(404, { error: 'ERR_NOT_FOUND' });
    });
    signIn({ companyId: COMPANY });
    renderCampaigns(<CampaignsConfigPage />, { route: '/campaigns-config' });
    const mi = (await screen.findByTestId('config-messageInterval')) as HTMLSelectElement;
    expect(mi.value).toBe('5');
    expect([...mi.options].map((o) => o.textContent)).toEqual(['Sem intervalo', '5 segundos', '10 segundos', '15 segundos', '20 segundos']);
    expect([...(screen.getByTestId('config-greaterInterval') as HTMLSelectElement).options].map((o) => o.value)).toEqual(['0', '20', '30', '40', '50', '60']);
    expect((screen.getByTestId('config-longerIntervalAfter') as HTMLSelectElement).value).toBe('20');
    expect((screen.getByTestId('config-variable-key-0') as HTMLInputElement).value).toBe('cupom');
    fireEvent.change(mi, { target: { value: '0' } });
    fireEvent.click(screen.getByTestId('config-variable-add'));
    fireEvent.change(screen.getByTestId('config-variable-key-1'), { target: { value: 'cupom' } });
    fireEvent.click(screen.getByTestId('config-save'));
    await screen.findByText('Chave repetida');
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    fireEvent.change(screen.getByTestId('config-variable-key-1'), { target: { value: 'loja' } });
    fireEvent.change(screen.getByTestId('config-variable-value-1'), { target: { value: 'Centro' } });
    fireEvent.click(screen.getByTestId('config-save'));
    await screen.findByText('Configurações salvas.');
    const post = calls.find((c) => c.method === 'POST');
    expect(post?.url).toBe(`${API}/campaign-settings`);
    expect(post?.body).toEqual({ settings: { messageInterval: 0, longerIntervalAfter: 20, greaterInterval: 60, variables: [{ key: 'cupom', value: 'BF10' }, { key: 'loja', value: 'Centro' }] } });
    // Another admin's save shows here.
    act(() => mockSocket.push(`company-${COMPANY}-campaign-settings`, { action: 'update', settings: [row('messageInterval', 15)] }));
    await waitFor(() => expect((screen.getByTestId('config-messageInterval') as HTMLSelectElement).value).toBe('15'));
  });

  test('a failed load shows the error state', async () => {
    mockFetch(() => answer(403, { error: 'ERR_FEATURE_NOT_IN_PLAN' }));
    signIn({ companyId: COMPANY });
    renderCampaigns(<CampaignsConfigPage />, { route: '/campaigns-config' });
    await screen.findByTestId('config-failed');
  });
});
