/** @jest-environment jsdom */
import './jsdom-polyfills';
import { act, fireEvent, screen, within } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { api, session } from '@atendo/web-api';
import { ExpiredGate } from '../src/App';
import { RequireAuth } from '../src/guards';
import { ExpiredPage, expiredPageNavigation } from '../src/pages/ExpiredPage';
import { answer, API, FULL_PLAN, mockFetch, renderShell, sessionUser } from './helpers';

const EXPIRED = { id: 3, name: 'Acme', dueDate: '2020-01-31', recurrence: 'MONTHLY' };

function App() {
  return (
    <Routes>
      <Route element={<RequireAuth><ExpiredGate><div /></ExpiredGate></RequireAuth>} />
      <Route path="/tickets" element={<RequireAuth><ExpiredGate><div>TICKETS PAGE</div></ExpiredGate></RequireAuth>} />
      <Route path="/users" element={<RequireAuth><ExpiredGate><UsersProbe /></ExpiredGate></RequireAuth>} />
      <Route path="/financeiro-aberto" element={<RequireAuth><ExpiredGate><ExpiredPage /></ExpiredGate></RequireAuth>} />
    </Routes>
  );
}

/** A page whose API call answers 403 ERR_SUBSCRIPTION_EXPIRED (the company expired while signed in). */
function UsersProbe() {
  return (
    <button type="button" onClick={() => void api.get('/users/').catch(() => undefined)}>
      LOAD USERS
    </button>
  );
}

beforeEach(() => {
  act(() => session.signOut());
  window.localStorage.clear();
  window.localStorage.setItem('token', JSON.stringify('jwt-1'));
});

describe('/financeiro-aberto', () => {
  test('an expired company opening another page is sent to the open-invoices page with its plan, amount and due date', async () => {
    const calls = mockFetch((c) => (c.url.includes('/companies/listPlan/3') ? answer(200, { ...EXPIRED, plan: { ...FULL_PLAN, name: 'Ouro', amount: '149.90' } }) : answer(404, {})));
    act(() => session.signIn(sessionUser({ company: EXPIRED }) as never));
    renderShell(<App />, { route: '/tickets' });
    const facts = await screen.findByTestId('expired-facts');
    expect(screen.queryByText('TICKETS PAGE')).toBeNull();
    expect(within(facts).getByText('Acme')).toBeTruthy();
    expect(within(facts).getByText('Ouro')).toBeTruthy();
    expect(within(facts).getByText(/R\$\s149,90 \/ mês/)).toBeTruthy();
    expect(within(facts).getByText('31/01/2020')).toBeTruthy();
    expect(screen.getByText('Sua assinatura venceu em 31/01/2020.')).toBeTruthy();
    expect(screen.getByText('Envie o comprovante ao suporte do Atendo.')).toBeTruthy();
    expect(calls.some((c) => c.url === `${API}/companies/listPlan/3`)).toBe(true);
  });

  test('"check again" while still expired says so; after a renewal it reloads on /tickets', async () => {
    let renewed = false;
    mockFetch((c) => {
      if (c.url.endsWith('/auth/refresh_token')) return answer(200, { token: 'jwt-2', user: sessionUser({ company: renewed ? { ...EXPIRED, dueDate: '2999-01-01' } : EXPIRED }) });
      if (c.url.includes('/companies/listPlan/3')) return answer(200, { ...EXPIRED, plan: FULL_PLAN });
      return answer(404, {});
    });
    const assign = jest.fn();
    expiredPageNavigation.reload = assign;
    act(() => session.signIn(sessionUser({ company: EXPIRED }) as never));
    renderShell(<App />, { route: '/financeiro-aberto' });
    await screen.findByTestId('expired-facts');
    await act(async () => {
      fireEvent.click(screen.getByTestId('expired-check'));
    });
    expect(await screen.findByTestId('still-expired')).toBeTruthy();
    expect(assign).not.toHaveBeenCalled();
    renewed = true;
    await act(async () => {
      fireEvent.click(screen.getByTestId('expired-check'));
    });
    expect(assign).toHaveBeenCalledWith('/tickets');
  });

  test('the plan failing to load shows the translated error with a retry', async () => {
    mockFetch(() => answer(500, { error: 'ERR_INTERNAL' }));
    act(() => session.signIn(sessionUser({ company: EXPIRED }) as never));
    renderShell(<App />, { route: '/financeiro-aberto' });
    expect(await screen.findByTestId('expired-plan-error')).toBeTruthy();
  });

  test('a 403 ERR_SUBSCRIPTION_EXPIRED mid-session sends the user there, without a token refresh', async () => {
    const calls = mockFetch((c) => {
      if (c.url.endsWith('/users/')) return answer(403, { error: 'ERR_SUBSCRIPTION_EXPIRED', message: 'expired' });
      if (c.url.includes('/companies/listPlan/3')) return answer(200, { ...EXPIRED, plan: FULL_PLAN });
      return answer(404, {});
    });
    act(() => session.signIn(sessionUser() as never));
    renderShell(<App />, { route: '/users' });
    await act(async () => {
      fireEvent.click(await screen.findByText('LOAD USERS'));
    });
    expect(await screen.findByTestId('subscription-expired')).toBeTruthy();
    expect(calls.some((c) => c.url.endsWith('/auth/refresh_token'))).toBe(false);
  });
});
