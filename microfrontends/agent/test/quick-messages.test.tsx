/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session } from '@atendo/web-api';
import { QuickMessagesPage } from '../src/pages/quick-messages/QuickMessagesPage';
import { canChange, type QuickMessage } from '../src/pages/quick-messages/api';
import { insertAt } from '../src/lib/variables';
import { answer, API, mockFetch, renderAgent, signIn, type FetchCall } from './helpers';

// Deterministic on a loaded machine (issue 31, item 8): every wait is for an event (a request made, an answer
// shown), never for a stretch of wall time, and each is bounded far above what a slow machine needs. The API
// answers every request only after LATENCY_MS, as a loaded machine does, so a wait that only works on a fast
// one (the search's 500 ms debounce plus the request inside testing-library's default 1 s) fails here at once.
configure({ asyncUtilTimeout: 15_000 });
jest.setTimeout(90_000);
const LATENCY_MS = 600;

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const COMPANY = 3;
const qm = (over: Partial<QuickMessage> & { id: number; shortcode: string }): QuickMessage => ({
  companyId: COMPANY,
  userId: 7,
  message: '',
  geral: false,
  status: true,
  isMedia: false,
  mediaPath: null,
  mediaName: null,
  mediaType: null,
  createdAt: '',
  updatedAt: '',
  ...over,
});
const GERAL = qm({ id: 1, shortcode: 'bomdia', message: 'Bom dia {{firstName}}!', geral: true, userId: 1, mediaPath: 'http://api.test/public/x.pdf', mediaName: 'tabela.pdf', isMedia: true });
const MINE = qm({ id: 2, shortcode: 'preco', message: 'Nossos preços' });
const OTHER = qm({ id: 3, shortcode: 'tchau', message: 'Até logo', userId: 99 });

/** Makes the mocked API (mockFetch) answer every request after LATENCY_MS. */
function slowly(): void {
  const answerNow = globalThis.fetch;
  globalThis.fetch = jest.fn(async (...args: Parameters<typeof fetch>) => {
    await new Promise((r) => setTimeout(r, LATENCY_MS));
    return answerNow(...args);
  }) as typeof fetch;
}

function api(write?: (call: FetchCall, url: URL) => ReturnType<typeof answer> | undefined) {
  return slowMock((call) => {
    const url = new URL(call.url);
    if (call.method === 'GET' && url.pathname === '/quick-messages') {
      const term = url.searchParams.get('searchParam') ?? '';
      const records = [GERAL, MINE, OTHER].filter((q) => !term || q.shortcode.includes(term) || q.message.toLowerCase().includes(term));
      return answer(200, { records, count: records.length, hasMore: false });
    }
    return write?.(call, url) ?? answer(404, { error: 'ERR_NOT_FOUND' });
  });
}

/** mockFetch whose answers come after LATENCY_MS; the calls are recorded when made. */
function slowMock(route: Parameters<typeof mockFetch>[0]): FetchCall[] {
  const calls = mockFetch(route);
  slowly();
  return calls;
}
const shortcodes = () => within(screen.getByTestId('quick-messages-rows')).queryAllByRole('row').map((r) => r.querySelector('td')?.textContent);

afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
});

describe('quick messages: rules', () => {
  test('who may change what; variables go in at the caret', () => {
    const user = { id: 7, profile: 'user', super: false };
    expect(canChange(user, MINE)).toBe(true);
    expect(canChange(user, GERAL)).toBe(false);
    expect(canChange(user, OTHER)).toBe(false);
    expect(canChange({ ...user, profile: 'supervisor' }, GERAL)).toBe(true);
    expect(canChange({ ...user, profile: 'Admin' }, OTHER)).toBe(true);
    expect(insertAt('Olá !', '{{firstName}}', 4, 4)).toEqual({ text: 'Olá {{firstName}}!', caret: 17 });
    expect(insertAt('abc', '{{ms}}')).toEqual({ text: 'abc{{ms}}', caret: 9 });
    expect(insertAt('abcdef', '{{date}}', 1, 3)).toEqual({ text: 'a{{date}}def', caret: 9 });
  });
});

describe('the quick messages page', () => {
  test('an attendant: table, search, own rows editable only, a new one with a variable and a file, live events', async () => {
    signIn({ profile: 'user' });
    let uploaded: FormData | undefined;
    const calls = api((call, url) => {
      if (call.method === 'POST' && url.pathname === '/quick-messages') return answer(200, qm({ id: 5, shortcode: 'pix', message: (call.body as { message: string }).message }));
      if (call.method === 'POST' && url.pathname === '/quick-messages/5/media-upload') {
        uploaded = call.body as FormData;
        return answer(200, qm({ id: 5, shortcode: 'pix', message: 'Chave {{protocol}}', mediaName: 'pix.png', mediaPath: 'http://api.test/p.png', isMedia: true }));
      }
      return undefined;
    });
    renderAgent(<QuickMessagesPage />, { route: '/quick-messages' });
    await waitFor(() => expect(shortcodes()).toEqual(['bomdia', 'preco', 'tchau']));
    expect(calls[0].url).toBe(`${API}/quick-messages?pageNumber=1`);
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Atalho', 'Mensagem', 'Anexo', 'Geral', 'Ações']);
    expect(within(screen.getByTestId('quick-message-row-1')).getByText('tabela.pdf')).toBeTruthy();
    expect(within(screen.getByTestId('quick-message-row-1')).getByText('Sim')).toBeTruthy();
    expect(within(screen.getByTestId('quick-message-row-1')).queryByRole('button')).toBeNull();
    expect(within(screen.getByTestId('quick-message-row-3')).queryByRole('button')).toBeNull();
    expect(within(screen.getByTestId('quick-message-row-2')).getByRole('button', { name: 'Editar preco' })).toBeTruthy();

    fireEvent.change(screen.getByTestId('quick-messages-search'), { target: { value: 'PRE' } });
    // The debounced request is made, then its answer shown.
    await waitFor(() => expect(calls.at(-1)?.url).toBe(`${API}/quick-messages?searchParam=pre&pageNumber=1`));
    await waitFor(() => expect(shortcodes()).toEqual(['preco']));
    const before = calls.length;
    fireEvent.change(screen.getByTestId('quick-messages-search'), { target: { value: '' } });
    await waitFor(() => expect(calls.slice(before).map((c) => c.url)).toEqual([`${API}/quick-messages?pageNumber=1`]));
    await waitFor(() => expect(shortcodes()).toHaveLength(3));

    fireEvent.click(screen.getByTestId('quick-message-add'));
    const d = within(screen.getByRole('dialog', { name: 'Adicionar resposta rápida' }));
    expect(d.queryByTestId('quick-message-geral')).toBeNull(); // attendants do not set the general flag
    fireEvent.click(d.getByTestId('quick-message-submit'));
    await waitFor(() => expect(d.getByRole('alert').textContent).toBe('Obrigatório'));
    fireEvent.change(d.getByTestId('quick-message-shortcode'), { target: { value: ' pix ' } });
    fireEvent.change(d.getByTestId('quick-message-message'), { target: { value: 'Chave ' } });
    (d.getByTestId('quick-message-message') as HTMLTextAreaElement).setSelectionRange(6, 6);
    fireEvent.change(d.getByTestId('variable-picker'), { target: { value: 'protocol' } });
    expect((d.getByTestId('quick-message-message') as HTMLTextAreaElement).value).toBe('Chave {{protocol}}');
    const file = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'pix.png', { type: 'image/png' });
    fireEvent.change(d.getByTestId('quick-message-file'), { target: { files: [file] } });
    expect(d.getByTestId('quick-message-media').textContent).toContain('pix.png');
    fireEvent.click(d.getByTestId('quick-message-submit'));
    await screen.findByText('Resposta rápida salva com sucesso!');
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ shortcode: 'pix', message: 'Chave {{protocol}}' });
    expect(uploaded?.get('typeArch')).toBe('quickMessage');
    expect((uploaded?.get('file') as File).name).toBe('pix.png');
    await waitFor(() => expect(shortcodes()).toEqual(['pix', 'bomdia', 'preco', 'tchau']));
    expect(within(screen.getByTestId('quick-message-row-5')).getByText('pix.png')).toBeTruthy();

    act(() => mockSocket.push(`company-${COMPANY}-quickmessage`, { action: 'delete', id: 3 }));
    act(() => mockSocket.push(`company-${COMPANY}-quickmessage`, { action: 'update', record: { ...MINE, shortcode: 'precos' } }));
    await waitFor(() => expect(shortcodes()).toEqual(['pix', 'bomdia', 'precos']));
  });

  test('a supervisor edits a general one, removes its attachment and deletes it; a refusal shows the translated code', async () => {
    signIn({ profile: 'supervisor' });
    const calls = api((call, url) => {
      if (call.method === 'DELETE' && url.pathname === '/quick-messages/1/media-upload') return answer(200, { ...GERAL, mediaPath: null, mediaName: null, isMedia: false });
      if (call.method === 'PUT' && url.pathname === '/quick-messages/1') return answer(409, { error: 'ERR_DUPLICATED_NAME' });
      if (call.method === 'DELETE' && url.pathname === '/quick-messages/1') return answer(200, { message: 'ok' });
      return undefined;
    });
    renderAgent(<QuickMessagesPage />, { route: '/quick-messages' });
    await waitFor(() => expect(shortcodes()).toHaveLength(3));
    fireEvent.click(screen.getByRole('button', { name: 'Editar bomdia' }));
    const d = within(screen.getByRole('dialog', { name: 'Editar resposta rápida' }));
    expect((d.getByTestId('quick-message-geral') as HTMLInputElement).checked).toBe(true);
    fireEvent.click(d.getByTestId('quick-message-media-delete'));
    await waitFor(() => expect(d.queryByTestId('quick-message-media')).toBeNull());
    await waitFor(() => expect(within(screen.getByTestId('quick-message-row-1')).getByText('Sem anexo')).toBeTruthy());
    fireEvent.click(d.getByTestId('quick-message-geral'));
    fireEvent.click(d.getByTestId('quick-message-submit'));
    await waitFor(() => expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ shortcode: 'bomdia', message: 'Bom dia {{firstName}}!', geral: false }));
    await screen.findByText('Este nome já está em uso.');
    expect(screen.getByRole('dialog', { name: 'Editar resposta rápida' })).toBeTruthy(); // stays open on failure
    fireEvent.click(within(screen.getByRole('dialog', { name: 'Editar resposta rápida' })).getByRole('button', { name: 'Cancelar' }));

    fireEvent.click(screen.getByRole('button', { name: 'Excluir bomdia' }));
    fireEvent.click(screen.getByTestId('confirm-button'));
    await screen.findByText('Resposta rápida excluída com sucesso!');
    await waitFor(() => expect(shortcodes()).toEqual(['preco', 'tchau']));
  });

  test('empty, no results and failed loads', async () => {
    signIn();
    slowMock(() => answer(200, { records: [], count: 0, hasMore: false }));
    const { unmount } = renderAgent(<QuickMessagesPage />, { route: '/quick-messages' });
    expect((await screen.findByTestId('quick-messages-empty')).textContent).toContain('Nenhuma resposta rápida cadastrada.');
    unmount();
    slowMock(() => answer(500, { error: 'ERR_INTERNAL' }));
    renderAgent(<QuickMessagesPage />, { route: '/quick-messages', language: 'tr' });
    expect((await screen.findByTestId('quick-messages-failed')).textContent).toContain('Kayıt listesi yüklenemedi');
  });
});
