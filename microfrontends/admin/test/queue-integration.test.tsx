/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session, writeToken } from '@atendo/web-api';
import { QueueIntegrationPage } from '../src/pages/queue-integration/QueueIntegrationPage';
import { answer, API, mockFetch, renderAdmin, type FetchCall } from './helpers';
import { sessionUser } from '../../../shell/test/helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const COMPANY = 4;
const base = { projectName: '', jsonContent: '', hasJsonContent: false, language: '', urlN8N: '', typebotSlug: '', typebotExpires: 1, typebotDelayMessage: 1000, typebotKeywordFinish: '', typebotKeywordRestart: '', typebotUnknownMessage: '', typebotRestartMessage: '', secretHint: '' };
const HOOK = { ...base, id: 1, type: 'webhook', name: 'Loja', projectName: 'Loja', urlN8N: 'https://hooks.example.com/loja', secretHint: '…abcd' };
const BOT = { ...base, id: 2, type: 'typebot', name: 'Fluxo', projectName: 'Fluxo', urlN8N: 'https://typebot.example.com', typebotSlug: 'meu-bot' };

function api(pages: Record<string, unknown>, write?: (call: FetchCall, url: URL) => ReturnType<typeof answer> | undefined) {
  return mockFetch((call) => {
    const url = new URL(call.url);
    if (call.method === 'GET' && url.pathname === '/queueIntegration/') return answer(200, pages[url.searchParams.get('pageNumber') ?? '1'] ?? { queueIntegrations: [], count: 0, hasMore: false });
    return write?.(call, url) ?? answer(404, { error: 'ERR_NOT_FOUND' });
  });
}
const names = () => within(screen.getByTestId('queue-integration-rows')).queryAllByRole('row').map((r) => Array.from(r.querySelectorAll('td')).slice(1, 3).map((c) => c.textContent));

function renderPage(profile = 'admin', language: 'pt-BR' | 'en' = 'pt-BR') {
  writeToken('jwt');
  act(() => session.signIn(sessionUser({ id: 1, companyId: COMPANY, profile }) as never));
  return renderAdmin(<QueueIntegrationPage />, { route: '/queue-integration', language });
}

afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
});

describe('queue integrations', () => {
  test('list with logos and a count, infinite scroll, live events; a webhook added shows its signing secret once', async () => {
    const calls = api({ '1': { queueIntegrations: [HOOK], count: 2, hasMore: true }, '2': { queueIntegrations: [BOT], count: 2, hasMore: false } }, (call, url) =>
      call.method === 'POST' && url.pathname === '/queueIntegration' ? answer(200, { ...base, id: 7, type: 'n8n', name: 'Automação', urlN8N: 'https://n8n.example.com/w', secretHint: '…WXYZ', secret: 'generated-secret-WXYZ' }) : undefined,
    );
    renderPage();
    await waitFor(() => expect(names()).toEqual([['1', 'Loja']]));
    expect(calls[0].url).toBe(`${API}/queueIntegration/?pageNumber=1`);
    expect(screen.getByTestId('queue-integration-count').textContent).toBe('2 integrações');
    expect(screen.getByTestId('logo-webhook')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Carregar mais' }));
    await waitFor(() => expect(names()).toEqual([['1', 'Loja'], ['2', 'Fluxo']]));

    fireEvent.click(screen.getByTestId('queue-integration-add'));
    const d = within(screen.getByRole('dialog', { name: 'Adicionar integração' }));
    // Typebot by default: the slug is required.
    expect(d.getByTestId('qi-slug')).toBeTruthy();
    fireEvent.change(d.getByTestId('qi-type'), { target: { value: 'n8n' } });
    expect(d.queryByTestId('qi-slug')).toBeNull();
    fireEvent.click(d.getByTestId('qi-save'));
    await waitFor(() => expect(d.getAllByRole('alert').map((a) => a.textContent)).toEqual(['Obrigatório', 'Obrigatório']));
    fireEvent.change(d.getByTestId('qi-name'), { target: { value: 'Automação' } });
    fireEvent.change(d.getByTestId('qi-url'), { target: { value: 'ftp://x' } });
    fireEvent.click(d.getByTestId('qi-save'));
    await waitFor(() => expect(d.getByRole('alert').textContent).toBe('Informe uma URL http(s)'));
    fireEvent.change(d.getByTestId('qi-url'), { target: { value: 'https://n8n.example.com/w' } });
    fireEvent.click(d.getByTestId('qi-save'));
    await screen.findByText('Integração adicionada com sucesso.');
    expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({ type: 'n8n', name: 'Automação', urlN8N: 'https://n8n.example.com/w', typebotExpires: 1, typebotDelayMessage: 1000 });
    expect((await screen.findByTestId('queue-integration-secret')).textContent).toBe('generated-secret-WXYZ');
    fireEvent.click(screen.getByTestId('queue-integration-secret-done'));
    await waitFor(() => expect(names()).toEqual([['7', 'Automação'], ['1', 'Loja'], ['2', 'Fluxo']]));
    // Live: another admin renamed one and deleted another.
    act(() => mockSocket.push(`company-${COMPANY}-queueIntegration`, { action: 'update', queueIntegration: { ...HOOK, name: 'Loja 2' } }));
    act(() => mockSocket.push(`company-${COMPANY}-queueIntegration`, { action: 'delete', integrationId: 2 }));
    await waitFor(() => expect(names()).toEqual([['7', 'Automação'], ['1', 'Loja 2']]));
  });

  test('edit a typebot, Dialogflow test button, delete with confirmation, translated error codes', async () => {
    const calls = api({ '1': { queueIntegrations: [BOT], count: 1, hasMore: false } }, (call, url) => {
      if (call.method === 'PUT') return answer(400, { error: 'ERR_INTEGRATION_URL_NOT_ALLOWED' });
      if (call.method === 'POST' && url.pathname === '/queueIntegration/testSession') return answer(400, { error: 'ERR_INTEGRATION_TEST_FAILED' });
      if (call.method === 'DELETE') return answer(200, { message: 'Integration deleted' });
      return undefined;
    });
    renderPage('admin', 'en');
    await waitFor(() => expect(names()).toEqual([['2', 'Fluxo']]));
    fireEvent.click(screen.getByRole('button', { name: 'Edit Fluxo' }));
    const d = within(screen.getByRole('dialog', { name: 'Edit integration' }));
    expect((d.getByTestId('qi-slug') as HTMLInputElement).value).toBe('meu-bot');
    fireEvent.change(d.getByTestId('qi-url'), { target: { value: 'http://10.0.0.1/' } });
    fireEvent.click(d.getByTestId('qi-save'));
    await screen.findByText('The integration URL must be a public http(s) address.');
    expect(calls.find((c) => c.method === 'PUT')?.url).toBe(`${API}/queueIntegration/2`);
    // Dialogflow: fields by type and the Test button with the typed credentials.
    fireEvent.change(d.getByTestId('qi-type'), { target: { value: 'dialogflow' } });
    fireEvent.change(d.getByTestId('qi-project'), { target: { value: 'proj' } });
    fireEvent.change(d.getByTestId('qi-json'), { target: { value: '{"client_email":"a@b","private_key":"k"}' } });
    fireEvent.click(d.getByTestId('qi-test'));
    await screen.findByText('The integration did not answer the test.');
    expect(calls.find((c) => c.url.endsWith('/testSession'))?.body).toEqual({ projectName: 'proj', jsonContent: '{"client_email":"a@b","private_key":"k"}', language: 'pt-BR' });
    fireEvent.click(d.getByText('Cancel'));
    fireEvent.click(screen.getByRole('button', { name: 'Delete Fluxo' }));
    expect(screen.getByRole('dialog', { name: 'Delete Fluxo?' })).toBeTruthy();
    fireEvent.click(screen.getByTestId('confirm-button'));
    await screen.findByText('Integration deleted.');
    await waitFor(() => expect(screen.getByTestId('queue-integration-empty').textContent).toContain('No integrations found.'));
  });

  test('attendants read the list without add, edit or delete', async () => {
    api({ '1': { queueIntegrations: [HOOK], count: 1, hasMore: false } });
    renderPage('user');
    await waitFor(() => expect(names()).toEqual([['1', 'Loja']]));
    expect(screen.queryByTestId('queue-integration-add')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Editar Loja' })).toBeNull();
  });

  test('a failed load shows the error state with a retry', async () => {
    mockFetch(() => answer(500, { error: 'ERR_INTERNAL' }));
    renderPage();
    await waitFor(() => expect(screen.getByTestId('queue-integration-failed').textContent).toContain('Não foi possível carregar a lista de registros'));
    expect(within(screen.getByTestId('queue-integration-failed')).getByRole('button', { name: 'Tentar novamente' })).toBeTruthy();
  });
});
