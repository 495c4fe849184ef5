/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { act, render, screen, waitFor } from '@testing-library/react';
import { queryClient, session, writeToken } from '@atendo/web-api';
import { matchRoutePath } from '@atendo/web-kit';
import { ADMIN_PAGES } from '../src/pages';
import { matchAdminPage } from '../src/pages/registry';
import { Root } from '../src/root';
import { answer, mockFetch, renderAdmin } from './helpers';
import { sessionUser } from '../../../shell/test/helpers';

jest.mock('socket.io-client', () => ({ io: jest.fn(() => ({ on() {}, off() {}, connect() {}, disconnect() {}, removeAllListeners() {} })) }));

describe('admin area routing', () => {
  test('matchRoutePath: exact, case-insensitive, optional trailing slash and segments, decoded params', () => {
    expect(matchRoutePath('/announcements', '/announcements')).toEqual({});
    expect(matchRoutePath('/announcements', '/Announcements/')).toEqual({});
    expect(matchRoutePath('/announcements', '/announcements/1')).toBeNull();
    expect(matchRoutePath('/announcements', '/')).toBeNull();
    expect(matchRoutePath('/chats/:id?', '/chats')).toEqual({});
    expect(matchRoutePath('/chats/:id?', '/chats/a%20b')).toEqual({ id: 'a b' });
    expect(matchRoutePath('/contact-lists/:id/contacts', '/contact-lists/7/contacts')).toEqual({ id: '7' });
    expect(matchRoutePath('/contact-lists/:id/contacts', '/contact-lists/7')).toBeNull();
    expect(matchRoutePath('/', '/')).toEqual({});
  });

  test('matchAdminPage finds the registered page of a path, and nothing elsewhere', () => {
    expect(matchAdminPage(ADMIN_PAGES, '/announcements')?.page.path).toBe('/announcements');
    expect(matchAdminPage(ADMIN_PAGES, '/Announcements/')?.page.path).toBe('/announcements');
    expect(matchAdminPage(ADMIN_PAGES, '/announcements/1')).toBeNull();
    expect(matchAdminPage(ADMIN_PAGES, '/tickets')).toBeNull();
  });

  test('Root shows the announcements page on /announcements and nothing once the URL leaves it', async () => {
    mockFetch(() => answer(200, { records: [], count: 0, hasMore: false }));
    writeToken('jwt');
    act(() => session.signIn(sessionUser({ id: 1, companyId: 1, super: true }) as never));
    renderAdmin(null);
    window.history.pushState(null, '', '/announcements');
    const { container } = render(<Root />);
    await screen.findByText('Nenhum anúncio encontrado.');
    act(() => {
      window.history.pushState(null, '', '/tickets');
      window.dispatchEvent(new PopStateEvent('popstate'));
    });
    await waitFor(() => expect(screen.queryByTestId('announcements-page')).toBeNull());
    expect(container.innerHTML).toBe('');
    act(() => session.signOut());
    queryClient.clear();
  });
});
