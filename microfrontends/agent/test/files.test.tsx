/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { session } from '@atendo/web-api';
import { FilesPage } from '../src/pages/files/FilesPage';
import type { FileList, FileOption } from '../src/pages/files/api';
import { answer, API, mockFetch, renderAgent, signIn, type FetchCall } from './helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const COMPANY = 3;
const opt = (over: Partial<FileOption> & { id: number; name: string }): FileOption => ({ fileId: 1, path: null, mediaType: null, mediaName: null, createdAt: '', updatedAt: '', ...over });
const fl = (over: Partial<FileList> & { id: number; name: string }): FileList => ({ companyId: COMPANY, userId: 1, message: 'Segue o material', options: [], createdAt: '', updatedAt: '', ...over });
const CATALOGO = fl({ id: 1, name: 'Catálogo', options: [opt({ id: 11, name: 'Preços', path: 'http://api.test/public/p.pdf', mediaName: 'precos.pdf', mediaType: 'application/pdf' }), opt({ id: 12, name: 'Fotos' })] });
const MANUAL = fl({ id: 2, name: 'Manual' });

function api(write?: (call: FetchCall, url: URL) => ReturnType<typeof answer> | undefined) {
  return mockFetch((call) => {
    const url = new URL(call.url);
    if (call.method === 'GET' && url.pathname === '/files/') {
      const term = url.searchParams.get('searchParam') ?? '';
      const files = [CATALOGO, MANUAL].filter((f) => !term || f.name.toLowerCase().includes(term));
      return answer(200, { files, count: files.length, hasMore: false });
    }
    return write?.(call, url) ?? answer(404, { error: 'ERR_NOT_FOUND' });
  });
}
const names = () => within(screen.getByTestId('files-rows')).queryAllByRole('row').map((r) => r.querySelector('td')?.textContent);
const pdf = (name: string) => new File([new Uint8Array([0x25, 0x50, 0x44, 0x46])], name, { type: 'application/pdf' });

afterEach(() => {
  act(() => session.signOut());
  mockSocket.handlers.clear();
});

describe('the file lists page', () => {
  test('an admin: count, search, a new list with options and files uploaded to their options, live events', async () => {
    signIn({ profile: 'admin' });
    let upload: { url: string; form: FormData } | undefined;
    const calls = api((call, url) => {
      if (call.method === 'POST' && url.pathname === '/files') {
        const b = call.body as { name: string; message: string; options: { name: string }[] };
        return answer(200, fl({ id: 5, name: b.name, message: b.message, options: b.options.map((o, i) => opt({ id: 50 + i, fileId: 5, name: o.name })) }));
      }
      if (call.method === 'POST' && url.pathname === '/files/uploadList/5') {
        upload = { url: call.url, form: call.body as FormData };
        return answer(200, fl({ id: 5, name: 'Tabelas', options: [opt({ id: 50, fileId: 5, name: 'Varejo', path: 'http://api.test/v.pdf', mediaName: 'varejo.pdf' }), opt({ id: 51, fileId: 5, name: 'Sem arquivo' }), opt({ id: 52, fileId: 5, name: 'Atacado', path: 'http://api.test/a.pdf', mediaName: 'atacado.pdf' })] }));
      }
      return undefined;
    });
    renderAgent(<FilesPage />, { route: '/files' });
    await waitFor(() => expect(names()).toEqual(['Catálogo', 'Manual']));
    expect(calls[0].url).toBe(`${API}/files/?pageNumber=1`);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Listas de arquivos (2)');
    expect(within(screen.getByTestId('file-list-row-1')).getByText('2 opções (1 com arquivo)')).toBeTruthy();
    fireEvent.change(screen.getByTestId('files-search'), { target: { value: 'MAN' } });
    await waitFor(() => expect(names()).toEqual(['Manual']));
    expect(calls.at(-1)?.url).toBe(`${API}/files/?searchParam=man&pageNumber=1`);
    fireEvent.change(screen.getByTestId('files-search'), { target: { value: '' } });
    await waitFor(() => expect(names()).toHaveLength(2));

    fireEvent.click(screen.getByTestId('file-list-add'));
    const d = within(screen.getByRole('dialog', { name: 'Adicionar lista de arquivos' }));
    fireEvent.change(d.getByTestId('file-list-name'), { target: { value: 'Ta' } });
    fireEvent.click(d.getByTestId('file-option-add'));
    fireEvent.click(d.getByTestId('file-list-submit'));
    await waitFor(() => expect(d.getAllByRole('alert').map((a) => a.textContent)).toEqual(['nome muito curto', 'Obrigatório', 'Obrigatório']));
    fireEvent.change(d.getByTestId('file-list-name'), { target: { value: 'Tabelas' } });
    fireEvent.change(d.getByTestId('file-list-message'), { target: { value: 'Nossas tabelas' } });
    fireEvent.change(d.getByTestId('file-option-name-0'), { target: { value: 'Varejo' } });
    fireEvent.change(d.getByTestId('file-option-input-0'), { target: { files: [pdf('varejo.pdf')] } });
    fireEvent.click(d.getByTestId('file-option-add'));
    fireEvent.change(d.getByTestId('file-option-name-1'), { target: { value: 'Removida' } });
    fireEvent.click(d.getByTestId('file-option-add'));
    fireEvent.change(d.getByTestId('file-option-name-2'), { target: { value: 'Sem arquivo' } });
    fireEvent.click(d.getByTestId('file-option-add'));
    fireEvent.change(d.getByTestId('file-option-name-3'), { target: { value: 'Atacado' } });
    fireEvent.change(d.getByTestId('file-option-input-3'), { target: { files: [pdf('atacado.pdf')] } });
    fireEvent.click(d.getByTestId('file-option-remove-1'));
    expect(d.getByTestId('file-option-file-2').textContent).toBe('atacado.pdf');
    fireEvent.click(d.getByTestId('file-list-submit'));
    await screen.findByText('Lista de arquivos salva com sucesso!');
    expect(calls.find((c) => c.method === 'POST' && c.url === `${API}/files`)?.body).toEqual({ name: 'Tabelas', message: 'Nossas tabelas', options: [{ name: 'Varejo' }, { name: 'Sem arquivo' }, { name: 'Atacado' }] });
    expect(upload?.form.get('fileId')).toBe('5');
    expect(upload?.form.get('typeArch')).toBe('fileList');
    expect(upload?.form.getAll('id')).toEqual(['50', '52']);
    expect((upload?.form.getAll('files') as File[]).map((f) => f.name)).toEqual(['varejo.pdf', 'atacado.pdf']);
    expect(upload?.form.getAll('mediaType')).toEqual(['application/pdf', 'application/pdf']);
    await waitFor(() => expect(names()).toEqual(['Tabelas', 'Catálogo', 'Manual']));
    expect(within(screen.getByTestId('file-list-row-5')).getByText('3 opções (2 com arquivo)')).toBeTruthy();

    act(() => mockSocket.push(`company-${COMPANY}-file`, { action: 'delete', fileId: 2 }));
    act(() => mockSocket.push(`company-${COMPANY}-file`, { action: 'update', files: { ...CATALOGO, name: 'Catálogo 2026' } }));
    await waitFor(() => expect(names()).toEqual(['Tabelas', 'Catálogo 2026']));
  });

  test('editing keeps option ids, shows stored files; a refusal shows the translated code; delete confirms', async () => {
    signIn({ profile: 'admin' });
    const calls = api((call, url) => {
      if (call.method === 'PUT' && url.pathname === '/files/1') return answer(403, { error: 'ERR_NO_PERMISSION' });
      if (call.method === 'DELETE' && url.pathname === '/files/1') return answer(200, { message: 'ok' });
      return undefined;
    });
    renderAgent(<FilesPage />, { route: '/files', language: 'en' });
    await waitFor(() => expect(names()).toHaveLength(2));
    fireEvent.click(screen.getByRole('button', { name: 'Edit Catálogo' }));
    const d = within(screen.getByRole('dialog', { name: 'Edit file list' }));
    expect(d.getByTestId('file-option-file-0').getAttribute('href')).toBe('http://api.test/public/p.pdf');
    fireEvent.change(d.getByTestId('file-option-name-1'), { target: { value: 'Fotos 2026' } });
    fireEvent.click(d.getByTestId('file-list-submit'));
    await waitFor(() => expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ name: 'Catálogo', message: 'Segue o material', options: [{ id: 11, name: 'Preços' }, { id: 12, name: 'Fotos 2026' }] }));
    expect(calls.some((c) => c.url.includes('uploadList'))).toBe(false);
    await screen.findByText('You do not have permission to access this resource.');
    fireEvent.click(within(screen.getByRole('dialog', { name: 'Edit file list' })).getByRole('button', { name: 'Cancel' }));
    fireEvent.click(screen.getByRole('button', { name: 'Delete Catálogo' }));
    fireEvent.click(screen.getByTestId('confirm-button'));
    await screen.findByText('File list deleted successfully!');
    await waitFor(() => expect(names()).toEqual(['Manual']));
  });

  test('attendants read only; empty and failed loads', async () => {
    signIn({ profile: 'user' });
    api();
    const { unmount } = renderAgent(<FilesPage />, { route: '/files' });
    await waitFor(() => expect(names()).toHaveLength(2));
    expect(screen.queryByTestId('file-list-add')).toBeNull();
    expect(within(screen.getByTestId('file-list-row-1')).queryByRole('button')).toBeNull();
    unmount();
    mockFetch(() => answer(200, { files: [], count: 0, hasMore: false }));
    const second = renderAgent(<FilesPage />, { route: '/files' });
    expect((await screen.findByTestId('files-empty')).textContent).toContain('Nenhuma lista de arquivos cadastrada.');
    second.unmount();
    mockFetch(() => answer(500, { error: 'ERR_INTERNAL' }));
    renderAgent(<FilesPage />, { route: '/files', language: 'tr' });
    expect((await screen.findByTestId('files-failed')).textContent).toContain('Kayıt listesi yüklenemedi');
  });
});
