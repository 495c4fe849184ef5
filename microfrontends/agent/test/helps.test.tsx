/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { createFakeSocket } from '../../../shell/test/fake-socket';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { session } from '@atendo/web-api';
import { HelpsPage, type Help } from '../src/pages/helps/HelpsPage';
import { helpVideo, youtubeId } from '../src/pages/helps/video';
import { answer, mockFetch, renderAgent, signIn } from './helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const help = (over: Partial<Help> & { id: number }): Help => ({ title: `Vídeo ${over.id}`, video: 'dQw4w9WgXcQ', description: '', link: null, createdAt: '', updatedAt: '', ...over });

describe('help videos: where a video plays from', () => {
  test('YouTube ids and URLs, direct video files, anything else', () => {
    for (const v of ['dQw4w9WgXcQ', 'https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=3', 'https://youtu.be/dQw4w9WgXcQ', 'https://www.youtube.com/embed/dQw4w9WgXcQ', 'https://m.youtube.com/shorts/dQw4w9WgXcQ']) expect([v, youtubeId(v)]).toEqual([v, 'dQw4w9WgXcQ']);
    expect(helpVideo('dQw4w9WgXcQ')).toEqual({ kind: 'youtube', id: 'dQw4w9WgXcQ', thumbnail: 'https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg', embed: 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?autoplay=1&rel=0' });
    expect(helpVideo('https://cdn.example.com/help/intro.mp4')).toEqual({ kind: 'file', url: 'https://cdn.example.com/help/intro.mp4' });
    for (const v of ['', 'abc', 'https://evil.example.com/watch?v=dQw4w9WgXcQ', 'javascript:alert(1)', 'https://youtube.com/watch?v=short']) expect([v, helpVideo(v).kind]).toEqual([v, 'none']);
  });
});

describe('the help videos page', () => {
  afterEach(() => act(() => session.signOut()));

  test('a grid with the count, search by title or description, a player dialog closed by Escape', async () => {
    signIn({ profile: 'user' });
    const calls = mockFetch((call) =>
      new URL(call.url).pathname === '/helps'
        ? answer(200, [help({ id: 1, title: 'Primeiros passos', description: 'Como atender' }), help({ id: 2, title: 'Etiquetas', video: 'https://youtu.be/aaaaaaaaaaa', link: 'https://docs.example.com/tags' }), help({ id: 3, title: 'Sem vídeo', video: '' })])
        : answer(404, { error: 'ERR_NOT_FOUND' }),
    );
    renderAgent(<HelpsPage />, { route: '/helps' });
    await screen.findByTestId('help-1');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toContain('Ajuda (3)');
    expect(screen.getByTestId('help-1').querySelector('img')?.getAttribute('src')).toBe('https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg');
    expect(screen.queryByTestId('help-play-3')).toBeNull();
    expect(screen.getByRole('link', { name: 'Abrir link' }).getAttribute('href')).toBe('https://docs.example.com/tags');
    expect(calls.filter((c) => c.method === 'GET')).toHaveLength(1);

    fireEvent.change(screen.getByTestId('helps-search'), { target: { value: 'ATENDER' } });
    await waitFor(() => expect(screen.queryByTestId('help-2')).toBeNull());
    expect(screen.getByTestId('help-1')).toBeTruthy();
    fireEvent.change(screen.getByTestId('helps-search'), { target: { value: 'nada disso' } });
    await screen.findByTestId('helps-empty');
    expect(screen.getByTestId('helps-empty').textContent).toContain('Nenhum vídeo encontrado.');
    fireEvent.change(screen.getByTestId('helps-search'), { target: { value: '' } });

    fireEvent.click(await screen.findByRole('button', { name: 'Assistir Etiquetas' }));
    const dialog = screen.getByRole('dialog', { name: 'Etiquetas' });
    expect(dialog.querySelector('iframe')?.getAttribute('src')).toBe('https://www.youtube-nocookie.com/embed/aaaaaaaaaaa?autoplay=1&rel=0');
    fireEvent.keyDown(document, { key: 'Escape' });
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  test('empty and failed loads', async () => {
    signIn();
    mockFetch(() => answer(200, []));
    const { unmount } = renderAgent(<HelpsPage />, { route: '/helps' });
    expect((await screen.findByTestId('helps-empty')).textContent).toContain('Nenhum vídeo de ajuda cadastrado.');
    unmount();
    mockFetch(() => answer(500, { error: 'ERR_INTERNAL' }));
    renderAgent(<HelpsPage />, { route: '/helps', language: 'es' });
    expect((await screen.findByTestId('helps-failed')).textContent).toContain('No se pudo cargar la lista de registros');
  });
});
