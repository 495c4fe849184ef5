/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { act, render, screen, waitFor } from '@testing-library/react';
import { queryClient, session, writeToken } from '@atendo/web-api';
import { matchAdminRoute } from '../src/lib/router';
import { Root } from '../src/root';
import { answer, mockFetch, renderAdmin } from './helpers';
import { sessionUser } from '../../../shell/test/helpers';

jest.mock('socket.io-client', () => ({ io: jest.fn(() => ({ on() {}, off() {}, connect() {}, disconnect() {}, removeAllListeners() {} })) }));

describe('admin area routing', () => {
  test('matchAdminRoute: /announcements (any case, optional trailing slash) and nothing else', () => {
    expect(matchAdminRoute('/announcements')).toBe('announcements');
    expect(matchAdminRoute('/Announcements/')).toBe('announcements');
    expect(matchAdminRoute('/announcements/1')).toBeNull();
    expect(matchAdminRoute('/companies')).toBeNull();
    expect(matchAdminRoute('/')).toBeNull();
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
