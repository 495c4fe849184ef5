/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session, writeToken } from '@atendo/web-api';
import { PromptsPage } from '../src/pages/prompts/PromptsPage';
import { answer, API, mockFetch, renderAdmin, type FetchCall } from './helpers';
import { sessionUser } from '../../../shell/test/helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const COMPANY = 5;
const LONG = 'Você é a assistente virtual da loja. Responda com educação e frases curtas.';
const P1 = { id: 1, name: 'Assistente', prompt: LONG, voice: 'texto', voiceKey: '', voiceRegion: '', maxTokens: 100, temperature: 1, apiKey: 'sk-…1234', queueId: 3, queue: { id: 3, name: 'Vendas' }, maxMessages: 10 };

function api(list: unknown[], write?: (call: FetchCall, url: URL) => ReturnType<typeof answer> | undefined) {
  return mockFetch((call) => {
    const url = new URL(call.url);
    if (call.method === 'GET' && url.pathname === '/prompt') return answer(200, { prompts: list, count: list.length, hasMore: false });
    if (call.method === 'GET' && url.pathname === '/queue') return answer(200, [{ id: 3, name: 'Vendas', color: '#f00' }, { id: 4, name: 'Suporte', color: '#0f0' }]);
    return write?.(call, url) ?? answer(404, { error: 'ERR_NOT_FOUND' });
  });
}
const rows = () => within(screen.getByTestId('prompts-rows')).queryAllByRole('row').map((r) => Array.from(r.querySelectorAll('td')).slice(0, 3).map((c) => c.textContent));

function renderPage(profile = 'admin', language: 'pt-BR' | 'en' = 'pt-BR') {
  writeToken('jwt');
  act(() => session.signIn(sessionUser({ id: 1, companyId: COMPANY, profile }) as never));
  return renderAdmin(<PromptsPage />, { route: '/prompts', language });
}

afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
});

describe('prompts', () => {
  test('name, queue and max tokens; add with "Informe o setor" and the masked key toggle; live events', async () => {
    const calls = api([P1], (call) => (call.method === 'POST' ? answer(200, { ...P1, id: 2, name: 'Suporte IA', queueId: 4, queue: { id: 4, name: 'Suporte' }, maxTokens: 200, apiKey: 'sk-…9999' }) : undefined));
    renderPage();
    await waitFor(() => expect(rows()).toEqual([['Assistente', 'Vendas', '100']]));
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Nome', 'Setor', 'Máximo de tokens na resposta', 'Ações']);
    fireEvent.click(screen.getByTestId('prompt-add'));
    const d = within(screen.getByRole('dialog', { name: 'Adicionar prompt' }));
    fireEvent.change(d.getByTestId('prompt-name'), { target: { value: 'Suporte IA' } });
    fireEvent.change(d.getByTestId('prompt-apikey'), { target: { value: 'sk-new-key-9999' } });
    fireEvent.change(d.getByTestId('prompt-prompt'), { target: { value: LONG } });
    fireEvent.change(d.getByTestId('prompt-maxtokens'), { target: { value: '200' } });
    // The key is masked until shown.
    expect((d.getByTestId('prompt-apikey') as HTMLInputElement).type).toBe('password');
    fireEvent.click(d.getByTestId('prompt-apikey-toggle'));
    expect((d.getByTestId('prompt-apikey') as HTMLInputElement).type).toBe('text');
    fireEvent.click(d.getByTestId('prompt-save'));
    await waitFor(() => expect(d.getByRole('alert').textContent).toBe('Informe o setor'));
    await waitFor(() => expect(d.getAllByRole('option').map((o) => o.textContent)).toContain('Suporte'));
    fireEvent.change(d.getByTestId('prompt-queue'), { target: { value: '4' } });
    fireEvent.click(d.getByTestId('prompt-save'));
    await screen.findByText('Prompt salvo com sucesso.');
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ name: 'Suporte IA', apiKey: 'sk-new-key-9999', prompt: LONG, queueId: 4, voice: 'texto', voiceKey: '', voiceRegion: '', temperature: 1, maxTokens: 200, maxMessages: 10 });
    await waitFor(() => expect(rows()).toEqual([['Assistente', 'Vendas', '100'], ['Suporte IA', 'Suporte', '200']]));
    act(() => mockSocket.push(`company-${COMPANY}-prompt`, { action: 'delete', promptId: 1 }));
    await waitFor(() => expect(rows()).toEqual([['Suporte IA', 'Suporte', '200']]));
  });

  test('edit keeps the masked key; errors show the translated code; delete asks naming the prompt', async () => {
    const calls = api([P1], (call) => {
      if (call.method === 'PUT') return answer(404, { error: 'ERR_NO_QUEUE_FOUND' });
      if (call.method === 'DELETE') return answer(200, { message: 'Prompt deleted' });
      return undefined;
    });
    renderPage('admin', 'en');
    await waitFor(() => expect(rows()).toEqual([['Assistente', 'Vendas', '100']]));
    fireEvent.click(screen.getByRole('button', { name: 'Edit Assistente' }));
    const d = within(screen.getByRole('dialog', { name: 'Edit prompt' }));
    expect((d.getByTestId('prompt-apikey') as HTMLInputElement).value).toBe('sk-…1234');
    fireEvent.click(d.getByTestId('prompt-save'));
    await waitFor(() => expect(calls.find((c) => c.method === 'PUT')?.body).toMatchObject({ apiKey: 'sk-…1234', queueId: 3 }));
    expect(calls.find((c) => c.method === 'PUT')?.url).toBe(`${API}/prompt/1`);
    await screen.findByText('Queue not found.');
    fireEvent.click(d.getByText('Cancel'));
    fireEvent.click(screen.getByRole('button', { name: 'Delete Assistente' }));
    expect(screen.getByRole('dialog', { name: 'Delete Assistente?' })).toBeTruthy();
    fireEvent.click(screen.getByTestId('confirm-button'));
    await screen.findByText('Prompt deleted.');
    await waitFor(() => expect(screen.getByTestId('prompts-empty').textContent).toContain('No prompts yet.'));
  });

  test('attendants see the list only', async () => {
    api([P1]);
    renderPage('user');
    await waitFor(() => expect(rows()).toEqual([['Assistente', 'Vendas', '100']]));
    expect(screen.queryByTestId('prompt-add')).toBeNull();
    act(() => session.signOut());
  });

  test('a failed load shows the error state with a retry', async () => {
    mockFetch(() => answer(500, { error: 'ERR_INTERNAL' }));
    renderPage();
    await waitFor(() => expect(screen.getByTestId('prompts-failed').textContent).toContain('Não foi possível carregar a lista de registros'));
  });
});
