/** @jest-environment jsdom */
import './jsdom-polyfills';
import { createFakeSocket } from './fake-socket';
import { act, render, screen } from '@testing-library/react';
import { ToastContainer } from 'react-toastify';
import { session, writeToken } from '@atendo/web-api';
import { useSessionEvents, SECOND_LOGIN_DELAY_MS } from '../src/hooks/useSessionEvents';
import { initI18n } from '../src/i18n';
import { sessionUser } from './helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

function Harness({ reload }: { reload: () => void }) {
  const { user } = session.get();
  useSessionEvents(user, reload);
  return <span>{user?.name}</span>;
}

describe('real-time session events', () => {
  beforeAll(() => initI18n('pt-BR'));
  beforeEach(() => {
    window.localStorage.clear();
    writeToken('jwt');
    act(() => session.signIn(sessionUser({ id: 7, companyId: 3 }) as never));
  });
  afterEach(() => {
    act(() => session.signOut());
    mockSocket.handlers.clear();
  });

  test('a second login of the same account toasts, then after 1 s clears localStorage and reloads', async () => {
    jest.useFakeTimers();
    try {
      const reload = jest.fn();
      window.localStorage.setItem('preferredTheme', 'dark');
      render(
        <>
          <Harness reload={reload} />
          <ToastContainer />
        </>,
      );
      expect(mockSocket.handlers.get('company-3-auth')?.size).toBe(1);
      act(() => mockSocket.push('company-3-auth', { action: 'update', user: { id: 8, email: 'other@x.io', companyId: 3 } }));
      act(() => jest.advanceTimersByTime(2000));
      expect(reload).not.toHaveBeenCalled();
      act(() => mockSocket.push('company-3-auth', { action: 'update', user: { id: 7, email: 'ana@example.com', companyId: 3 } }));
      expect(await screen.findByText('Sua conta foi acessada em outro computador.')).toBeTruthy();
      act(() => jest.advanceTimersByTime(SECOND_LOGIN_DELAY_MS - 50));
      expect(reload).not.toHaveBeenCalled();
      expect(window.localStorage.getItem('token')).not.toBeNull();
      act(() => jest.advanceTimersByTime(100));
      expect(reload).toHaveBeenCalledTimes(1);
      expect(window.localStorage.length).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  test('a company-{id}-user update of oneself merges into the session user; others are ignored', () => {
    render(<Harness reload={jest.fn()} />);
    act(() => mockSocket.push('company-3-user', { action: 'update', user: { id: 9, name: 'Someone else' } }));
    expect(session.get().user?.name).toBe('Ana');
    act(() => mockSocket.push('company-3-user', { action: 'update', user: { id: 7, name: 'Ana Maria', profile: 'user' } }));
    expect(session.get().user).toMatchObject({ id: 7, name: 'Ana Maria', profile: 'user', super: false, company: { id: 3, name: 'Acme' } });
  });
});
