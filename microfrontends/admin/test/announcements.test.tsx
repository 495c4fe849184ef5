/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session } from '@atendo/web-api';
import { AnnouncementsPage } from '../src/pages/announcements/AnnouncementsPage';
import type { Announcement } from '../src/pages/announcements/api';
import { announcement, answer, API, mockFetch, renderAdmin, signInSuper, type FetchCall } from './helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const HIGH = announcement({ id: 1, priority: 1, title: 'Manutenção hoje', text: 'O sistema para às 22h.', mediaPath: 'http://api.test/public/company1/announcements/a.png?e=1&t=x', mediaName: 'aviso.png' });
const MEDIUM = announcement({ id: 2, priority: 2, title: 'Novo painel', status: false });
const LOW = announcement({ id: 3, priority: 3, title: 'Dicas de uso' });
const PAGE2 = announcement({ id: 4, priority: 3, title: 'Antigo' });

interface Options {
  /** Pages of GET /announcements/ by pageNumber (without a search). */
  pages?: Announcement[][];
  /** Records answered for a search. */
  search?: (term: string) => Announcement[];
  /** Answers of the write routes. */
  write?: (call: FetchCall, url: URL) => ReturnType<typeof answer> | undefined;
}

/** The API of these tests. */
function api(opts: Options = {}) {
  const pages = opts.pages ?? [[HIGH, MEDIUM, LOW]];
  return mockFetch((call) => {
    const url = new URL(call.url);
    if (call.method === 'GET' && url.pathname === '/announcements/') {
      const term = url.searchParams.get('searchParam');
      if (term !== null) {
        const records = opts.search?.(term) ?? [];
        return answer(200, { records, count: records.length, hasMore: false });
      }
      const n = Number(url.searchParams.get('pageNumber'));
      const records = pages[n - 1] ?? [];
      return answer(200, { records, count: pages.flat().length, hasMore: n < pages.length });
    }
    return opts.write?.(call, url) ?? answer(404, { error: 'ERR_NOT_FOUND' });
  });
}

const listCalls = (calls: FetchCall[]) => calls.filter((c) => c.method === 'GET' && new URL(c.url).pathname === '/announcements/').map((c) => Object.fromEntries(new URL(c.url).searchParams));
const writes = (calls: FetchCall[]) => calls.filter((c) => c.method !== 'GET');
const rowTitles = () => within(screen.getByTestId('announcements-rows')).queryAllByRole('row').map((r) => r.querySelector('td.title')?.textContent);
const row = (id: number) => screen.getByTestId(`announcement-row-${id}`);

function renderPage() {
  signInSuper();
  return renderAdmin(<AnnouncementsPage />);
}

beforeEach(() => {
  window.localStorage.clear();
});
afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
});

describe('announcements admin: list', () => {
  test('shows priority (coloured), title, status, attachment and actions; loads more pages on demand and on scroll, merged by id', async () => {
    // Page 2 repeats LOW (it moved while paging): shown once.
    const calls = api({ pages: [[HIGH, MEDIUM, LOW], [LOW, PAGE2], [announcement({ id: 5, title: 'Mais antigo' })]] });
    renderPage();
    await waitFor(() => expect(rowTitles()).toEqual(['Manutenção hoje', 'Novo painel', 'Dicas de uso']));
    expect(listCalls(calls)).toEqual([{ pageNumber: '1' }]);
    expect(calls[0].url).toBe(`${API}/announcements/?pageNumber=1`);
    expect(screen.getByRole('heading', { name: 'Anúncios' })).toBeTruthy();
    expect(screen.getByTestId('announcements-count').textContent).toBe('6 anúncios');
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Prioridade', 'Título', 'Status', 'Anexo', 'Ações']);

    const high = row(1);
    expect(within(high).getByText('Alta').getAttribute('data-priority')).toBe('1');
    expect(within(high).getByText('Ativo')).toBeTruthy();
    expect(within(high).getByRole('link', { name: 'aviso.png' }).getAttribute('href')).toBe(HIGH.mediaPath);
    expect(within(high).getByRole('button', { name: 'Editar Manutenção hoje' })).toBeTruthy();
    expect(within(high).getByRole('button', { name: 'Excluir Manutenção hoje' })).toBeTruthy();
    expect(within(row(2)).getByText('Média')).toBeTruthy();
    expect(within(row(2)).getByText('Inativo')).toBeTruthy();
    expect(within(row(2)).getByText('Sem anexo')).toBeTruthy();
    expect(within(row(3)).getByText('Baixa')).toBeTruthy();
    // The three priorities are told apart by colour too.
    const colour = (id: number) => window.getComputedStyle(within(row(id)).getByText(/Alta|Média|Baixa/)).color;
    expect(new Set([colour(1), colour(2), colour(3)]).size).toBe(3);

    fireEvent.click(screen.getByTestId('announcements-load-more'));
    await waitFor(() => expect(rowTitles()).toEqual(['Manutenção hoje', 'Novo painel', 'Dicas de uso', 'Antigo']));
    expect(listCalls(calls)).toEqual([{ pageNumber: '1' }, { pageNumber: '2' }]);

    // Scrolling to the bottom of the table loads the next page (jsdom has no layout: always "at the bottom").
    fireEvent.scroll(screen.getByTestId('announcements-scroller'));
    await waitFor(() => expect(rowTitles()).toContain('Mais antigo'));
    expect(listCalls(calls)).toEqual([{ pageNumber: '1' }, { pageNumber: '2' }, { pageNumber: '3' }]);
    expect(screen.queryByTestId('announcements-load-more')).toBeNull();
    fireEvent.scroll(screen.getByTestId('announcements-scroller'));
    expect(listCalls(calls)).toHaveLength(3);
  });

  test('a search (lower-cased, debounced) starts again at page 1; clearing it reloads page 1 only', async () => {
    const calls = api({ pages: [[HIGH, MEDIUM, LOW], [PAGE2]], search: (term) => (term === 'manut' ? [HIGH] : []) });
    renderPage();
    await waitFor(() => expect(rowTitles()).toHaveLength(3));
    fireEvent.click(screen.getByTestId('announcements-load-more'));
    await waitFor(() => expect(rowTitles()).toHaveLength(4));

    const box = screen.getByRole('searchbox', { name: 'Pesquisar' });
    fireEvent.change(box, { target: { value: 'M' } });
    fireEvent.change(box, { target: { value: 'Manut ' } });
    await waitFor(() => expect(rowTitles()).toEqual(['Manutenção hoje']), { timeout: 2000 });
    // One request for the settled term, page 1.
    expect(listCalls(calls).slice(2)).toEqual([{ searchParam: 'manut', pageNumber: '1' }]);
    expect(screen.getByTestId('announcements-count').textContent).toBe('1 anúncio');
    expect(screen.queryByTestId('announcements-load-more')).toBeNull();

    fireEvent.change(box, { target: { value: 'zzz' } });
    await screen.findByText('Nenhum anúncio encontrado.', undefined, { timeout: 2000 });

    fireEvent.change(box, { target: { value: '' } });
    await waitFor(() => expect(rowTitles()).toEqual(['Manutenção hoje', 'Novo painel', 'Dicas de uso']), { timeout: 2000 });
    expect(listCalls(calls).slice(4)).toEqual([{ pageNumber: '1' }]);
    expect(screen.getByTestId('announcements-load-more')).toBeTruthy();
  });

  test('a failed load shows the error toast', async () => {
    mockFetch(() => answer(500, { error: 'ERR_SOMETHING_ODD', message: 'Falhou geral' }));
    renderPage();
    await screen.findByText('Falhou geral');
    expect(screen.getByText('Nenhum anúncio encontrado.')).toBeTruthy();
  });
});

describe('announcements admin: add and edit', () => {
  test('title and text are required ("Obrigatório"); the attachment accepts .png/.jpg/.jpeg; saving creates, then uploads the image', async () => {
    const created = announcement({ id: 9, priority: 1, title: 'Feriado', text: 'Sem expediente.', status: false, createdAt: '2026-11-21T10:00:00.000Z' });
    const withMedia = { ...created, mediaName: 'feriado.jpg', mediaPath: 'http://api.test/public/company1/announcements/f.jpg?e=1&t=y' };
    const calls = api({
      write: (call, url) => {
        if (call.method === 'POST' && url.pathname === '/announcements/') return answer(200, created);
        if (call.method === 'POST' && url.pathname === '/announcements/9/media-upload') return answer(200, withMedia);
        return undefined;
      },
    });
    renderPage();
    await waitFor(() => expect(rowTitles()).toHaveLength(3));
    fireEvent.click(screen.getByTestId('announcement-add'));
    const dialog = screen.getByRole('dialog', { name: 'Novo anúncio' });
    const d = within(dialog);
    // Defaults: low priority, active.
    expect((d.getByLabelText('Prioridade') as HTMLSelectElement).value).toBe('3');
    expect((d.getByLabelText('Status') as HTMLSelectElement).value).toBe('true');
    expect(d.getAllByRole('option').map((o) => o.textContent)).toEqual(['Alta', 'Média', 'Baixa', 'Ativo', 'Inativo']);
    expect(d.getByTestId('announcement-file').getAttribute('accept')).toBe('.png,.jpg,.jpeg');

    fireEvent.click(d.getByRole('button', { name: 'Adicionar' }));
    await waitFor(() => expect(d.getAllByRole('alert').map((a) => a.textContent)).toEqual(['Obrigatório', 'Obrigatório']));
    expect(writes(calls)).toEqual([]);

    // Blank (whitespace) is still missing.
    fireEvent.change(d.getByLabelText('Título'), { target: { value: '   ' } });
    fireEvent.change(d.getByLabelText('Texto'), { target: { value: 'Sem expediente.' } });
    expect(d.getAllByRole('alert').map((a) => a.textContent)).toEqual(['Obrigatório']);
    fireEvent.change(d.getByLabelText('Título'), { target: { value: ' Feriado ' } });
    expect(d.queryAllByRole('alert')).toEqual([]);
    fireEvent.change(d.getByLabelText('Prioridade'), { target: { value: '1' } });
    fireEvent.change(d.getByLabelText('Status'), { target: { value: 'false' } });

    const input = d.getByTestId('announcement-file') as HTMLInputElement;
    fireEvent.change(input, { target: { files: [new File(['%PDF'], 'contrato.pdf', { type: 'application/pdf' })] } });
    expect(d.getByRole('alert').textContent).toBe('Escolha um arquivo .png, .jpg ou .jpeg');
    fireEvent.click(d.getByRole('button', { name: 'Adicionar' }));
    expect(writes(calls)).toEqual([]);
    const image = new File(['\xff\xd8\xff'], 'feriado.jpg', { type: 'image/jpeg' });
    fireEvent.change(input, { target: { files: [image] } });
    expect(d.queryAllByRole('alert')).toEqual([]);
    expect(d.getByTestId('announcement-file-name').textContent).toBe('feriado.jpg');

    fireEvent.click(d.getByRole('button', { name: 'Adicionar' }));
    await screen.findByText('Anúncio salvo com sucesso.');
    const [post, upload] = writes(calls);
    expect(post).toMatchObject({ method: 'POST', url: `${API}/announcements/`, body: { title: 'Feriado', text: 'Sem expediente.', priority: 1, status: false } });
    expect(upload).toMatchObject({ method: 'POST', url: `${API}/announcements/9/media-upload` });
    const form = upload.body as FormData;
    expect(form).toBeInstanceOf(FormData);
    expect((form.get('file') as File).name).toBe('feriado.jpg');
    expect(form.get('typeArch')).toBe('announcements');
    expect(writes(calls)).toHaveLength(2);

    // The dialog closed; the new one is at the top of the list with its attachment.
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(rowTitles()).toEqual(['Feriado', 'Manutenção hoje', 'Novo painel', 'Dicas de uso']);
    expect(within(row(9)).getByRole('link', { name: 'feriado.jpg' })).toBeTruthy();
    expect(screen.getByTestId('announcements-count').textContent).toBe('4 anúncios');

    // Reopening starts from an empty form.
    fireEvent.click(screen.getByTestId('announcement-add'));
    expect((screen.getByLabelText('Título') as HTMLInputElement).value).toBe('');
  });

  test('a refused save keeps the dialog open with the API error as a toast; a refused upload keeps the stored announcement and goes on editing it', async () => {
    const created = announcement({ id: 9, title: 'X', text: 'Y' });
    let refuse = true;
    const calls = api({
      write: (call, url) => {
        if (call.method === 'POST' && url.pathname === '/announcements/') return refuse ? answer(400, { error: 'ERR_VALIDATION', message: 'title is required' }) : answer(200, created);
        if (call.method === 'POST' && url.pathname === '/announcements/9/media-upload') return answer(415, { error: 'ERR_UPLOAD_TYPE', message: 'type' });
        if (call.method === 'PUT' && url.pathname === '/announcements/9') return answer(200, { ...created, title: 'X2' });
        return undefined;
      },
    });
    renderPage();
    await waitFor(() => expect(rowTitles()).toHaveLength(3));
    fireEvent.click(screen.getByTestId('announcement-add'));
    fireEvent.change(screen.getByLabelText('Título'), { target: { value: 'X' } });
    fireEvent.change(screen.getByLabelText('Texto'), { target: { value: 'Y' } });
    fireEvent.click(screen.getByTestId('announcement-submit'));
    await screen.findByText('Os dados enviados são inválidos.');
    expect(screen.getByRole('dialog', { name: 'Novo anúncio' })).toBeTruthy();
    expect(rowTitles()).toHaveLength(3);

    refuse = false;
    fireEvent.change(screen.getByTestId('announcement-file'), { target: { files: [new File(['x'], 'fake.png', { type: 'image/png' })] } });
    fireEvent.click(screen.getByTestId('announcement-submit'));
    await screen.findByText('Tipo de arquivo não permitido.');
    // Stored without its image: listed, and the dialog now edits it (a second save does not create a duplicate).
    await waitFor(() => expect(rowTitles()).toEqual(['X', 'Manutenção hoje', 'Novo painel', 'Dicas de uso']));
    expect(screen.getByRole('dialog', { name: 'Editar anúncio' })).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Título'), { target: { value: 'X2' } });
    fireEvent.click(screen.getByTestId('announcement-submit'));
    await waitFor(() => expect(writes(calls).map((c) => `${c.method} ${new URL(c.url).pathname}`)).toEqual(['POST /announcements/', 'POST /announcements/', 'POST /announcements/9/media-upload', 'PUT /announcements/9', 'POST /announcements/9/media-upload']));
    expect(rowTitles()).toEqual(['X2', 'Manutenção hoje', 'Novo painel', 'Dicas de uso']);
  });

  test('edit: the form is filled in; saving sends PUT and updates the row in place; the current attachment can be removed', async () => {
    const calls = api({
      write: (call, url) => {
        if (call.method === 'PUT' && url.pathname === '/announcements/1') return answer(200, { ...HIGH, ...(call.body as object) });
        if (call.method === 'DELETE' && url.pathname === '/announcements/1/media-upload') return answer(200, { ...HIGH, mediaName: null, mediaPath: null });
        return undefined;
      },
    });
    renderPage();
    await waitFor(() => expect(rowTitles()).toHaveLength(3));
    fireEvent.click(screen.getByRole('button', { name: 'Editar Manutenção hoje' }));
    const d = within(screen.getByRole('dialog', { name: 'Editar anúncio' }));
    expect((d.getByLabelText('Título') as HTMLInputElement).value).toBe('Manutenção hoje');
    expect((d.getByLabelText('Texto') as HTMLTextAreaElement).value).toBe('O sistema para às 22h.');
    expect((d.getByLabelText('Prioridade') as HTMLSelectElement).value).toBe('1');
    expect((d.getByLabelText('Status') as HTMLSelectElement).value).toBe('true');
    expect(d.getByTestId('announcement-current-media').textContent).toBe('aviso.png');

    fireEvent.click(d.getByRole('button', { name: 'Remover anexo' }));
    await screen.findByText('Anexo removido.');
    expect(writes(calls)[0]).toMatchObject({ method: 'DELETE', url: `${API}/announcements/1/media-upload` });
    expect(d.queryByTestId('announcement-current-media')).toBeNull();
    await waitFor(() => expect(within(row(1)).getByText('Sem anexo')).toBeTruthy());

    fireEvent.change(d.getByLabelText('Título'), { target: { value: 'Manutenção amanhã' } });
    fireEvent.change(d.getByLabelText('Prioridade'), { target: { value: '2' } });
    fireEvent.click(d.getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(writes(calls)[1]).toMatchObject({ method: 'PUT', url: `${API}/announcements/1`, body: { title: 'Manutenção amanhã', text: 'O sistema para às 22h.', priority: 2, status: true } });
    expect(writes(calls)).toHaveLength(2); // no upload without a new file
    // Updated where it was (not moved, not duplicated).
    expect(rowTitles()).toEqual(['Manutenção amanhã', 'Novo painel', 'Dicas de uso']);
    expect(within(row(1)).getByText('Média')).toBeTruthy();
  });
});

describe('announcements admin: delete', () => {
  test('asks for confirmation naming the announcement; cancel keeps it; confirm deletes it; a 404 shows the error toast', async () => {
    let missing = false;
    const calls = api({
      write: (call, url) => {
        if (call.method === 'DELETE' && /^\/announcements\/\d+$/.test(url.pathname)) return missing ? answer(404, { error: 'ERR_NO_ANNOUNCEMENT_FOUND', message: 'not found' }) : answer(200, { message: 'Announcement deleted' });
        return undefined;
      },
    });
    renderPage();
    await waitFor(() => expect(rowTitles()).toHaveLength(3));
    fireEvent.click(screen.getByRole('button', { name: 'Excluir Novo painel' }));
    const dialog = screen.getByRole('dialog', { name: 'Excluir Novo painel?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancelar' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(writes(calls)).toEqual([]);

    fireEvent.click(screen.getByRole('button', { name: 'Excluir Novo painel' }));
    fireEvent.click(screen.getByTestId('confirm-button'));
    await screen.findByText('Anúncio excluído com sucesso.');
    expect(writes(calls)).toEqual([expect.objectContaining({ method: 'DELETE', url: `${API}/announcements/2` })]);
    expect(rowTitles()).toEqual(['Manutenção hoje', 'Dicas de uso']);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.getByTestId('announcements-count').textContent).toBe('2 anúncios');

    missing = true;
    fireEvent.click(screen.getByRole('button', { name: 'Excluir Dicas de uso' }));
    fireEvent.click(screen.getByTestId('confirm-button'));
    await screen.findByText('Anúncio não encontrado.');
    expect(screen.getByRole('dialog', { name: 'Excluir Dicas de uso?' })).toBeTruthy();
  });
});

describe('announcements admin: live events', () => {
  test('company-announcement create/update upsert (new ones at the top), delete removes; a search hides non-matching ones', async () => {
    api({ search: (term) => (term === 'manut' ? [HIGH] : []) });
    renderPage();
    await waitFor(() => expect(rowTitles()).toHaveLength(3));
    await waitFor(() => expect(mockSocket.handlers.get('company-announcement')?.size).toBe(1));
    // react-query notifies its observers on the next tick.
    const push = async (payload: unknown) => {
      act(() => mockSocket.push('company-announcement', payload));
      await act(() => new Promise((r) => setTimeout(r, 5)));
    };

    await push({ action: 'create', record: announcement({ id: 20, title: 'Chegou agora', priority: 3 }) });
    expect(rowTitles()).toEqual(['Chegou agora', 'Manutenção hoje', 'Novo painel', 'Dicas de uso']);
    // The same create again (e.g. the writer's own answer, then the event): still once.
    await push({ action: 'create', record: announcement({ id: 20, title: 'Chegou agora', priority: 3 }) });
    expect(rowTitles()).toHaveLength(4);
    await push({ action: 'update', record: { ...LOW, title: 'Dicas de uso (revisado)', status: false } });
    expect(rowTitles()).toEqual(['Chegou agora', 'Manutenção hoje', 'Novo painel', 'Dicas de uso (revisado)']);
    expect(within(row(3)).getByText('Inativo')).toBeTruthy();
    await push({ action: 'update', record: announcement({ id: 21, title: 'Era de outra página' }) });
    expect(rowTitles()[0]).toBe('Era de outra página');
    await push({ action: 'delete', id: 2 });
    expect(rowTitles()).toEqual(['Era de outra página', 'Chegou agora', 'Manutenção hoje', 'Dicas de uso (revisado)']);
    expect(screen.getByTestId('announcements-count').textContent).toBe('4 anúncios');
    await push({ action: 'delete' });
    await push(null);
    expect(rowTitles()).toHaveLength(4);

    fireEvent.change(screen.getByRole('searchbox', { name: 'Pesquisar' }), { target: { value: 'manut' } });
    await waitFor(() => expect(rowTitles()).toEqual(['Manutenção hoje']), { timeout: 2000 });
    await push({ action: 'create', record: announcement({ id: 30, title: 'Outra coisa' }) });
    await push({ action: 'create', record: announcement({ id: 31, title: 'Nova MANUTENÇÃO' }) });
    expect(rowTitles()).toEqual(['Nova MANUTENÇÃO', 'Manutenção hoje']);
    await push({ action: 'update', record: { ...HIGH, title: 'Parada programada' } });
    expect(rowTitles()).toEqual(['Nova MANUTENÇÃO']);
  });
});
