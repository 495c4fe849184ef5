/** @jest-environment jsdom */
import './jsdom-polyfills';
import { act, fireEvent, screen } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { readToken, session } from '@atendo/web-api';
import { PublicOnly, RequireAuth } from '../src/guards';
import { afterLoginTarget, LoginPage } from '../src/pages/LoginPage';
import { ExpiredPage } from '../src/pages/ExpiredPage';
import { subscriptionStatus } from '../src/auth';
import { answer, API, dayFromToday, mockFetch, renderShell, sessionUser } from './helpers';

function App() {
  return (
    <Routes>
      <Route path="/login" element={<PublicOnly><LoginPage /></PublicOnly>} />
      <Route path="/" element={<div>HOME PAGE</div>} />
      <Route path="/tickets" element={<RequireAuth><div>TICKETS PAGE</div></RequireAuth>} />
      <Route path="/contacts" element={<RequireAuth><div>CONTACTS PAGE</div></RequireAuth>} />
      <Route path="/financeiro-aberto" element={<RequireAuth><ExpiredPage /></RequireAuth>} />
    </Routes>
  );
}

const email = () => screen.getByLabelText('E-mail') as HTMLInputElement;
const password = () => screen.getByLabelText('Senha') as HTMLInputElement;
const submit = () => screen.getByRole('button', { name: 'Acessar' });

async function signIn(mail = 'ana@example.com', pass = 'secret-1') {
  fireEvent.change(email(), { target: { value: mail } });
  fireEvent.change(password(), { target: { value: pass } });
  await act(async () => {
    fireEvent.click(submit());
  });
}

beforeEach(() => {
  act(() => session.signOut());
  window.localStorage.clear();
});

describe('LoginPage', () => {
  test('validates before calling the API: required fields and e-mail format', async () => {
    const calls = mockFetch(() => answer(500));
    renderShell(<App />, { route: '/login' });
    await act(async () => {
      fireEvent.click(submit());
    });
    expect(await screen.findAllByText('Obrigatório')).toHaveLength(2);
    fireEvent.change(email(), { target: { value: 'not-an-email' } });
    fireEvent.blur(email());
    expect(await screen.findByText('E-mail inválido')).toBeTruthy();
    expect(calls).toHaveLength(0);
  });

  test('the show/hide toggle switches the password field between hidden and visible', () => {
    mockFetch(() => answer(500));
    renderShell(<App />, { route: '/login' });
    expect(password().type).toBe('password');
    fireEvent.click(screen.getByRole('button', { name: 'Mostrar senha' }));
    expect(password().type).toBe('text');
    fireEvent.click(screen.getByRole('button', { name: 'Ocultar senha' }));
    expect(password().type).toBe('password');
  });

  test('submit calls POST /auth/login, stores the JSON-encoded token and lands on /tickets', async () => {
    const calls = mockFetch(() => answer(200, { token: 'jwt-abc', user: sessionUser() }));
    renderShell(<App />, { route: '/login' });
    await signIn('  ana@example.com ', 'secret-1');
    expect(await screen.findByText('TICKETS PAGE')).toBeTruthy();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ url: `${API}/auth/login`, method: 'POST', credentials: 'include', body: { email: 'ana@example.com', password: 'secret-1' } });
    expect(calls[0].headers.Authorization).toBeUndefined();
    expect(window.localStorage.getItem('token')).toBe('"jwt-abc"');
    expect(readToken()).toBe('jwt-abc');
    expect(window.localStorage.getItem('companyId')).toBe('3');
    expect(session.get()).toMatchObject({ status: 'signedIn', user: { id: 7, name: 'Ana' } });
  });

  test('a private page sends a signed-out visitor to /login and back there after sign-in', async () => {
    mockFetch(() => answer(200, { token: 'jwt-abc', user: sessionUser() }));
    renderShell(<App />, { route: '/contacts' });
    expect(await screen.findByRole('button', { name: 'Acessar' })).toBeTruthy();
    await signIn();
    expect(await screen.findByText('CONTACTS PAGE')).toBeTruthy();
  });

  test('wrong credentials toast the translated backend error and stay signed out', async () => {
    mockFetch(() => answer(401, { error: 'ERR_INVALID_CREDENTIALS', message: 'Authentication error, try again' }));
    renderShell(<App />, { route: '/login' });
    await signIn();
    expect(await screen.findByText('Erro de autenticação. Por favor, tente novamente.')).toBeTruthy();
    expect(session.get().status).toBe('signedOut');
    expect(window.localStorage.getItem('token')).toBeNull();
    expect(screen.getByRole('button', { name: 'Acessar' })).toBeTruthy();
  });

  test('an expired company is signed in, told the expiry date and sent to /financeiro-aberto', async () => {
    mockFetch(() => answer(200, { token: 'jwt-old', user: sessionUser({ company: { id: 3, name: 'Acme', dueDate: '2020-01-31' } }) }));
    renderShell(<App />, { route: '/login' });
    await signIn();
    expect(await screen.findByText('Opss! Sua assinatura venceu em 31/01/2020. Entre em contato com o suporte para mais informações!')).toBeTruthy();
    expect(await screen.findByText('Sua assinatura venceu em 31/01/2020.')).toBeTruthy();
    expect(session.get().status).toBe('signedIn');
  });

  test('fewer than 5 days left warns with the days left (singular for one day)', async () => {
    mockFetch(() => answer(200, { token: 't', user: sessionUser({ company: { id: 3, name: 'Acme', dueDate: dayFromToday(1) } }) }));
    renderShell(<App />, { route: '/login' });
    await signIn();
    expect(await screen.findByText('Sua assinatura vence em 1 dia.')).toBeTruthy();
    expect(await screen.findByText('TICKETS PAGE')).toBeTruthy();
  });

  test('a signed-in user opening /login goes to /', async () => {
    act(() => session.signIn(sessionUser() as never));
    renderShell(<App />, { route: '/login' });
    expect(await screen.findByText('HOME PAGE')).toBeTruthy();
  });
});

describe('subscription rules', () => {
  const now = new Date(2025, 5, 10, 15, 0); // 10 June 2025, local time
  test('company 1 never expires; others expire the day after the due date; warnings under 5 days', () => {
    expect(subscriptionStatus({ id: 1, dueDate: '2000-01-01' }, now)).toMatchObject({ dueDate: '2999-12-31', expired: false, dueSoon: false });
    expect(subscriptionStatus({ id: 2, dueDate: '2025-06-09' }, now)).toMatchObject({ expired: true, daysLeft: -1 });
    expect(subscriptionStatus({ id: 2, dueDate: '2025-06-10T00:00:00.000Z' }, now)).toMatchObject({ expired: false, dueSoon: true, daysLeft: 0 });
    expect(subscriptionStatus({ id: 2, dueDate: '2025-06-14' }, now)).toMatchObject({ expired: false, dueSoon: true, daysLeft: 4 });
    expect(subscriptionStatus({ id: 2, dueDate: '2025-06-15' }, now)).toMatchObject({ expired: false, dueSoon: false, daysLeft: 5 });
    expect(subscriptionStatus({ id: 2, dueDate: null }, now)).toMatchObject({ expired: false, dueSoon: false, daysLeft: undefined });
  });

  test('the remembered location is used unless it is a public page', () => {
    expect(afterLoginTarget({ from: { pathname: '/contacts', search: '?q=1', hash: '' } })).toBe('/contacts?q=1');
    expect(afterLoginTarget({ from: { pathname: '/login' } })).toBe('/tickets');
    expect(afterLoginTarget(null)).toBe('/tickets');
  });
});
