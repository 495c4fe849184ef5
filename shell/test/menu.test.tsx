/** @jest-environment jsdom */
import './jsdom-polyfills';
import { createFakeSocket } from './fake-socket';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { session, writeToken, type Plan } from '@atendo/web-api';
import { Layout } from '../src/layout/Layout';
import { MENU, visibleMenu } from '../src/menu';
import { applyWhatsappEvent, connectionsNeedAttention } from '../src/hooks/useConnectionsWarning';
import { answer, mockFetch, renderShell, sessionUser, FULL_PLAN } from './helpers';

const mockSocket = createFakeSocket();
jest.mock('socket.io-client', () => ({ io: jest.fn(() => mockSocket) }));

const ALL_ON = FULL_PLAN;

const keys = (user: Parameters<typeof visibleMenu>[0], plan: Plan | null) =>
  visibleMenu(user, plan).flatMap((s) => s.entries.map((e) => `${s.key}:${e.key}`));

describe('visibleMenu', () => {
  const admin = { profile: 'admin', super: false };
  const attendant = { profile: 'user', super: false };
  const superUser = { profile: 'user', super: true };

  test('attendants see no dashboard, no admin section and no super section', () => {
    const k = keys(attendant, ALL_ON);
    expect(k).toEqual(['main:tickets', 'main:moments', 'main:quickMessages', 'main:kanban', 'main:tagsKanban', 'main:contacts', 'main:schedules', 'main:tags', 'main:chats', 'main:helps', 'main:todolist', 'main:campaigns', 'main:contactLists', 'main:messagesApi', 'main:plantao', 'main:prompts', 'main:queueIntegration']);
    expect(visibleMenu({ profile: 'supervisor', super: false }, ALL_ON).map((s) => s.key)).toEqual(['main']);
  });

  test('admins (any case) see the dashboard and the admin section but not the super section', () => {
    const k = keys({ profile: 'Admin', super: false }, ALL_ON);
    expect(k).toContain('main:dashboard');
    expect(k.filter((x) => x.startsWith('admin:'))).toEqual(['admin:users', 'admin:queues', 'admin:sla', 'admin:connections', 'admin:deliveries', 'admin:settings', 'admin:auditLogs', 'admin:files', 'admin:privacy']);
    expect(k.some((x) => x.startsWith('super:'))).toBe(false);
    expect(keys(admin, ALL_ON)).toEqual(k);
  });

  test('super users see every section', () => {
    expect(visibleMenu(superUser, ALL_ON).map((s) => s.key)).toEqual(['main', 'admin', 'super']);
    expect(keys(superUser, ALL_ON).filter((x) => x.startsWith('super:'))).toEqual(['super:companies', 'super:announcements']);
  });

  test('each plan flag hides its entry; an unknown plan hides every gated entry', () => {
    expect(keys(admin, { ...ALL_ON, useKanban: false })).not.toContain('main:kanban');
    expect(keys(admin, { ...ALL_ON, useKanban: false })).not.toContain('main:tagsKanban');
    expect(keys(admin, { ...ALL_ON, useKanban: false })).toContain('main:contacts');
    const gated = MENU.flatMap((s) => s.entries.filter((e) => e.features.length).map((e) => [e.key, e.features[0]] as const));
    expect(gated.map(([k]) => k)).toEqual(['kanban', 'tagsKanban', 'schedules', 'chats', 'campaigns', 'contactLists', 'campaignsConfig', 'messagesApi', 'prompts', 'queueIntegration']);
    for (const [key, feature] of gated) {
      expect(keys(admin, { ...ALL_ON, [feature]: false })).not.toContain(`main:${key}`);
      expect(keys(admin, ALL_ON)).toContain(`main:${key}`);
      expect(keys(admin, null)).not.toContain(`main:${key}`);
    }
    expect(visibleMenu(null, ALL_ON)).toEqual([]);
  });
});

describe('connections warning', () => {
  test('warns on qrcode, PAIRING, DISCONNECTED, TIMEOUT and OPENING only', () => {
    for (const status of ['qrcode', 'PAIRING', 'DISCONNECTED', 'TIMEOUT', 'OPENING']) expect(connectionsNeedAttention([{ id: 1, status: 'CONNECTED' }, { id: 2, status }])).toBe(true);
    expect(connectionsNeedAttention([{ id: 1, status: 'CONNECTED' }, { id: 2, status: 'PENDING' }])).toBe(false);
    const list = [{ id: 1, status: 'CONNECTED' }];
    expect(applyWhatsappEvent(list, { action: 'update', whatsapp: { id: 2, status: 'qrcode' } })).toEqual([{ id: 1, status: 'CONNECTED' }, { id: 2, status: 'qrcode' }]);
    expect(applyWhatsappEvent(list, { action: 'update', whatsapp: { id: 1, status: 'TIMEOUT' } })).toEqual([{ id: 1, status: 'TIMEOUT' }]);
    expect(applyWhatsappEvent(list, { action: 'delete', whatsappId: 1 })).toEqual([]);
  });
});

describe('Layout (side menu gating with the plan from GET /companies/listPlan)', () => {
  function mountLayout(user: Record<string, unknown>, plan: Plan, whatsapps: unknown[] = []) {
    const calls = mockFetch((c) => {
      if (c.url.includes('/companies/listPlan/3')) return answer(200, { id: 3, name: 'Acme', dueDate: '2999-01-01', plan });
      if (c.url.includes('/whatsapp/')) return answer(200, whatsapps);
      return answer(404, { error: 'ERR_NOT_FOUND' });
    });
    writeToken('jwt');
    act(() => session.signIn(user as never));
    renderShell(
      <Routes>
        <Route element={<Layout />}>
          <Route path="/tickets" element={<div>TICKETS</div>} />
        </Route>
      </Routes>,
      { route: '/tickets' },
    );
    return calls;
  }

  afterEach(() => {
    act(() => session.signOut());
    mockSocket.handlers.clear();
  });

  test('an attendant (profile user) does not see the admin section', async () => {
    mockSocket.emitted.length = 0;
    mountLayout(sessionUser({ profile: 'user' }), ALL_ON);
    expect(mockSocket.emitted).toContain('userStatus');
    const menu = await screen.findByTestId('side-menu');
    await within(menu).findByTestId('menu-kanban');
    expect(within(menu).getByTestId('menu-tickets')).toBeTruthy();
    for (const id of ['menu-dashboard', 'menu-users', 'menu-queues', 'menu-connections', 'menu-settings', 'menu-companies']) expect(within(menu).queryByTestId(id)).toBeNull();
    expect(screen.queryByText('Administração')).toBeNull();
  });

  test('an admin sees the admin section; Kanban is hidden when plan.useKanban is false', async () => {
    const calls = mountLayout(sessionUser({ profile: 'admin' }), { ...ALL_ON, useKanban: false });
    const menu = await screen.findByTestId('side-menu');
    await within(menu).findByTestId('menu-contacts');
    expect(within(menu).getByTestId('menu-users')).toBeTruthy();
    expect(within(menu).getByTestId('menu-connections')).toBeTruthy();
    expect(within(menu).queryByTestId('menu-kanban')).toBeNull();
    expect(calls.some((c) => c.url === 'http://api.test/companies/listPlan/3' && c.headers.Authorization === 'Bearer jwt')).toBe(true);
  });

  test('the connections entry gets the warning badge 2 s after load, and follows company-{id}-whatsapp', async () => {
    mountLayout(sessionUser({ profile: 'admin' }), ALL_ON, [{ id: 1, status: 'CONNECTED' }]);
    await screen.findByTestId('menu-connections');
    await waitFor(() => expect(mockSocket.handlers.get('company-3-whatsapp')?.size).toBe(1));
    await act(async () => {
      await new Promise((r) => setTimeout(r, 2300));
    });
    expect(screen.queryByTestId('connections-warning')).toBeNull();
    act(() => mockSocket.push('company-3-whatsapp', { action: 'update', whatsapp: { id: 1, status: 'DISCONNECTED' } }));
    expect(await screen.findByTestId('connections-warning')).toBeTruthy();
    act(() => mockSocket.push('company-3-whatsapp', { action: 'delete', whatsappId: 1 }));
    await waitFor(() => expect(screen.queryByTestId('connections-warning')).toBeNull());
  });

  test('a connection already waiting for a QR code shows the badge after the first check', async () => {
    const calls = mountLayout(sessionUser({ profile: 'admin' }), ALL_ON, [{ id: 4, status: 'qrcode' }]);
    await screen.findByTestId('menu-connections');
    await act(async () => {
      await new Promise((r) => setTimeout(r, 2300));
    });
    expect(await screen.findByTestId('connections-warning')).toBeTruthy();
    expect(calls.filter((c) => c.url === 'http://api.test/whatsapp/?session=0')).toHaveLength(1);
  });

  test('an attendant never loads the connections', async () => {
    const calls = mountLayout(sessionUser({ profile: 'user' }), ALL_ON, [{ id: 4, status: 'qrcode' }]);
    await screen.findByTestId('menu-tickets');
    await act(async () => {
      await new Promise((r) => setTimeout(r, 2300));
    });
    expect(calls.some((c) => c.url.includes('/whatsapp'))).toBe(false);
  });

  test('the top bar greets the user with the company, shows admins the due date, and switches language', async () => {
    mountLayout(sessionUser({ profile: 'admin' }), ALL_ON);
    expect((await screen.findByTestId('greeting')).textContent).toBe('Olá Ana, bem-vindo a AcmeVencimento: 01/01/2999');
    fireEvent.click(screen.getByTestId('language-button'));
    await act(async () => {
      fireEvent.click(screen.getByRole('menuitem', { name: 'English' }));
    });
    expect(screen.getByTestId('greeting').textContent).toBe('Hello Ana, welcome to AcmeDue date: 01/01/2999');
    await act(async () => {
      fireEvent.click(screen.getByTestId('language-button'));
    });
    await act(async () => {
      fireEvent.click(screen.getByRole('menuitem', { name: 'Português (Brasil)' }));
    });
  });
});
