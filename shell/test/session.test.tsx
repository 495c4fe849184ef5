/** @jest-environment jsdom */
import './jsdom-polyfills';
import { act, render, screen } from '@testing-library/react';
import { ToastContainer } from 'react-toastify';
import { readToken, session, writeToken } from '@atendo/web-api';
import { AtendoThemeProvider } from '@atendo/web-ui';
import { logout, restoreSession } from '../src/auth';
import { useVersionWatcher, VERSION_POLL_MS } from '../src/hooks/useVersionWatcher';
import { initI18n } from '../src/i18n';
import { answer, API, mockFetch, sessionUser } from './helpers';

beforeAll(() => {
  window.__ATENDO_ENV__ = { API_URL: API };
  initI18n('pt-BR');
});
beforeEach(() => {
  act(() => session.signOut());
  window.localStorage.clear();
});

describe('session restore', () => {
  test('a stored token is exchanged through POST /auth/refresh_token (cookie) for the user', async () => {
    const calls = mockFetch(() => answer(200, { token: 'new-jwt', user: sessionUser({ name: 'Restored' }) }));
    writeToken('old-jwt');
    await act(() => restoreSession());
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ url: `${API}/auth/refresh_token`, method: 'POST', credentials: 'include' });
    expect(calls[0].headers.Authorization).toBeUndefined();
    expect(session.get()).toMatchObject({ status: 'signedIn', user: { name: 'Restored' } });
    expect(readToken()).toBe('new-jwt');
  });

  test('no stored token: signed out without calling the API', async () => {
    const calls = mockFetch(() => answer(500));
    await act(() => restoreSession());
    expect(calls).toHaveLength(0);
    expect(session.get().status).toBe('signedOut');
  });

  test('a refused refresh (401) clears the token and stays signed out', async () => {
    mockFetch(() => answer(401, { error: 'ERR_SESSION_EXPIRED' }));
    writeToken('old-jwt');
    window.localStorage.setItem('companyId', '3');
    await act(() => restoreSession());
    expect(session.get().status).toBe('signedOut');
    expect(readToken()).toBeNull();
    expect(window.localStorage.getItem('companyId')).toBeNull();
  });

  test('a refresh without a verdict (network error, 503) is tried again, keeping the token, and then signs in', async () => {
    let n = 0;
    const calls = mockFetch(() => {
      n++;
      if (n === 1) throw new TypeError('Failed to fetch');
      if (n === 2) return answer(503, { error: 'ERR_SERVICE_UNAVAILABLE' });
      return answer(200, { token: 'new-jwt', user: sessionUser({ name: 'Back' }) });
    });
    writeToken('old-jwt');
    await act(() => restoreSession([1, 1]));
    expect(calls).toHaveLength(3);
    expect(session.get()).toMatchObject({ status: 'signedIn', user: { name: 'Back' } });
    expect(readToken()).toBe('new-jwt');
  });

  test('an API that stays unreachable ends signed out once the retries are spent', async () => {
    const calls = mockFetch(() => answer(502));
    writeToken('old-jwt');
    await act(() => restoreSession([1, 1]));
    expect(calls).toHaveLength(3);
    expect(session.get().status).toBe('signedOut');
  });

  test('logout calls DELETE /auth/logout with the token, then clears the session', async () => {
    const calls = mockFetch(() => answer(204));
    writeToken('jwt');
    act(() => session.signIn(sessionUser() as never));
    await act(() => logout());
    expect(calls[0]).toMatchObject({ url: `${API}/auth/logout`, method: 'DELETE', credentials: 'include' });
    expect(calls[0].headers.Authorization).toBe('Bearer jwt');
    expect(session.get().status).toBe('signedOut');
    expect(readToken()).toBeNull();
  });
});

describe('update-available toast', () => {
  function Watcher() {
    useVersionWatcher();
    return null;
  }

  test('polls GET /version every minute and offers a reload when the version changes', async () => {
    jest.useFakeTimers();
    try {
      let version = '1.0.0';
      const calls = mockFetch(() => answer(200, { version }));
      render(
        <AtendoThemeProvider>
          <Watcher />
          <ToastContainer />
        </AtendoThemeProvider>,
      );
      await act(async () => {
        await Promise.resolve();
      });
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({ url: `${API}/version`, method: 'GET' });
      await act(async () => {
        jest.advanceTimersByTime(VERSION_POLL_MS);
      });
      expect(calls).toHaveLength(2);
      expect(screen.queryByText('Uma nova versão do Atendo está disponível.')).toBeNull();
      version = '1.1.0';
      await act(async () => {
        jest.advanceTimersByTime(VERSION_POLL_MS);
      });
      expect(calls).toHaveLength(3);
      await act(async () => {
        jest.advanceTimersByTime(100);
      });
      expect(screen.getByText('Uma nova versão do Atendo está disponível.')).toBeTruthy();
      expect(screen.getByRole('button', { name: 'Atualizar agora' })).toBeTruthy();
    } finally {
      jest.useRealTimers();
    }
  });
});
