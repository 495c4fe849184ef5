/** @jest-environment jsdom */
import '../../../shell/test/jsdom-polyfills';
import { act, screen } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { session } from '@atendo/web-api';
import { routeTable } from '../../../shell/src/App';
import { AREAS } from '../../../shell/src/areas';
import { RouteGate, REFUSED_REDIRECT_MS } from '../../../shell/src/guards';
import { visibleMenu } from '../../../shell/src/menu';
import { answer, mockFetch, renderAdmin } from './helpers';
import { sessionUser } from '../../../shell/test/helpers';

/** The shell's gate of the admin area's /announcements page, around a stand-in for the area's outlet. */
function renderGated(user: Record<string, unknown>) {
  mockFetch(() => answer(404, { error: 'ERR_NOT_FOUND' }));
  act(() => session.signIn(sessionUser(user) as never));
  const admin = routeTable().areas.find((a) => a.area.name === 'admin');
  const page = admin!.pages.find((p) => p.path === '/announcements')!;
  return renderAdmin(
    <Routes>
      <Route path="/" element={<div>painel</div>} />
      <Route path="/tickets" element={<div>atendimentos</div>} />
      <Route
        path="/announcements"
        element={
          <RouteGate path={page.path} role={page.role} features={page.features}>
            <div data-testid="admin-outlet" />
          </RouteGate>
        }
      />
    </Routes>,
  );
}

describe('the admin area in the shell', () => {
  afterEach(() => {
    jest.useRealTimers();
    act(() => session.signOut());
  });

  test('its manifest registers it for /announcements, super users only, and the super menu entry points there', () => {
    expect(AREAS.find((a) => a.name === 'admin')?.routes.find((r) => r.path === '/announcements')).toEqual({ path: '/announcements', titleKey: 'menu.announcements', role: 'super', plugin: 'announcements' });
    const admin = routeTable().areas.find((a) => a.area.name === 'admin');
    expect(admin?.pages.find((p) => p.path === '/announcements')).toEqual({ path: '/announcements', role: 'super', features: [], titleKey: 'menu.announcements' });
    expect(routeTable().comingSoon.map((p) => p.path)).not.toContain('/announcements');
    const entry = (user: { profile: string; super: boolean }) =>
      visibleMenu(user, null).flatMap((s) => s.entries.filter((e) => e.to === '/announcements').map((e) => `${s.key}:${e.key}`));
    expect(entry({ profile: 'admin', super: true })).toEqual(['super:announcements']);
    expect(entry({ profile: 'admin', super: false })).toEqual([]);
    expect(entry({ profile: 'user', super: false })).toEqual([]);
  });

  test.each([
    ['an admin', { profile: 'admin', super: false }, 'painel'],
    ['an attendant', { profile: 'user', super: false }, 'atendimentos'],
  ])('%s never reaches the area: error toast, then home (/ or /tickets) after 1 second', async (_name, user, home) => {
    jest.useFakeTimers();
    renderGated(user);
    expect(screen.queryByTestId('admin-outlet')).toBeNull();
    await act(async () => {
      await jest.advanceTimersByTimeAsync(50);
    });
    expect(screen.getByText('Você não tem permissão para acessar esta página! Estamos lhe redirecionando.')).toBeTruthy();
    await act(async () => {
      await jest.advanceTimersByTimeAsync(REFUSED_REDIRECT_MS);
    });
    expect(screen.getByText(home)).toBeTruthy();
    expect(screen.queryByTestId('admin-outlet')).toBeNull();
  });

  test('a super user gets the area', () => {
    renderGated({ profile: 'admin', super: true });
    expect(screen.getByTestId('admin-outlet')).toBeTruthy();
  });
});
