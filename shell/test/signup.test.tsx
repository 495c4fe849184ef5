/** @jest-environment jsdom */
import './jsdom-polyfills';
import { act, fireEvent, screen, within } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { session } from '@atendo/web-api';
import { SignupPage } from '../src/pages/SignupPage';
import { answer, API, mockFetch, renderShell } from './helpers';

const PLANS = [
  { id: 2, name: 'Essencial', users: 5, connections: 2, queues: 5, amount: '99.90' },
  { id: 5, name: 'Pro', users: 20, connections: 5, queues: 20, amount: '1299.5' },
];

function App() {
  return (
    <Routes>
      <Route path="/signup" element={<SignupPage />} />
      <Route path="/login" element={<div>LOGIN PAGE</div>} />
    </Routes>
  );
}

const field = (label: string) => screen.getByLabelText(label) as HTMLInputElement;

async function fill() {
  fireEvent.change(field('Nome da empresa'), { target: { value: 'Padaria Central' } });
  fireEvent.change(field('Seu nome'), { target: { value: 'Maria Souza' } });
  fireEvent.change(field('E-mail'), { target: { value: 'maria@padaria.com.br' } });
  fireEvent.change(field('Senha'), { target: { value: 'segredo1' } });
  fireEvent.input(field('Telefone'), { target: { value: '11987654321' } });
  fireEvent.change(screen.getByLabelText('Plano'), { target: { value: '5' } });
}

beforeEach(() => act(() => session.signOut()));

describe('SignupPage', () => {
  test('lists the public plans with their amount in R$ and masks the phone', async () => {
    const calls = mockFetch((c) => (c.url.endsWith('/plans/list') ? answer(200, PLANS) : answer(404)));
    renderShell(<App />, { route: '/signup' });
    const select = screen.getByLabelText('Plano');
    await within(select).findByText(/Essencial/);
    const options = within(select).getAllByRole('option').map((o) => o.textContent!.replace(/\u00a0/g, ' '));
    expect(options).toEqual([
      'Selecione um plano',
      'Essencial — R$ 99,90/mês · 5 usuários · 2 conexões · 5 filas',
      'Pro — R$ 1.299,50/mês · 20 usuários · 5 conexões · 20 filas',
    ]);
    expect(calls[0]).toMatchObject({ url: `${API}/plans/list`, method: 'GET' });
    expect(calls[0].headers.Authorization).toBeUndefined();
    await act(async () => {
      fireEvent.input(field('Telefone'), { target: { value: '11987654321' } });
    });
    expect(field('Telefone').value).toBe('(11) 98765-4321');
  });

  test('validates every field with the spec messages before calling the API', async () => {
    const calls = mockFetch((c) => (c.url.endsWith('/plans/list') ? answer(200, PLANS) : answer(500)));
    renderShell(<App />, { route: '/signup' });
    await within(screen.getByLabelText('Plano')).findByText(/Pro/);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Cadastrar' }));
    });
    expect(await screen.findAllByText('Obrigatório')).toHaveLength(6);
    fireEvent.change(field('Nome da empresa'), { target: { value: 'A' } });
    fireEvent.change(field('Senha'), { target: { value: '1234' } });
    fireEvent.change(field('E-mail'), { target: { value: 'x@' } });
    fireEvent.input(field('Telefone'), { target: { value: '1198' } });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Cadastrar' }));
    });
    expect(await screen.findAllByText('Muito curto!')).toHaveLength(2);
    expect(screen.getByText('E-mail inválido')).toBeTruthy();
    expect(screen.getByText('Telefone inválido')).toBeTruthy();
    expect(calls.filter((c) => c.url.endsWith('/auth/signup'))).toHaveLength(0);
  });

  test('a successful sign-up posts the form, toasts and goes to /login', async () => {
    const calls = mockFetch((c) => (c.url.endsWith('/plans/list') ? answer(200, PLANS) : answer(201, { id: 9, name: 'Padaria Central' })));
    renderShell(<App />, { route: '/signup?companyId=4' });
    await within(screen.getByLabelText('Plano')).findByText(/Pro/);
    await fill();
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Cadastrar' }));
    });
    expect(await screen.findByText('LOGIN PAGE')).toBeTruthy();
    expect(await screen.findByText('Empresa cadastrada com sucesso! Entre para continuar.')).toBeTruthy();
    const post = calls.find((c) => c.url === `${API}/auth/signup`)!;
    expect(post).toMatchObject({
      method: 'POST',
      body: { companyName: 'Padaria Central', name: 'Maria Souza', email: 'maria@padaria.com.br', password: 'segredo1', phone: '11987654321', planId: 5, companyId: '4' },
    });
    expect(post.headers.Authorization).toBeUndefined();
  });

  test('a refused sign-up toasts "check the data provided" and stays', async () => {
    mockFetch((c) => (c.url.endsWith('/plans/list') ? answer(200, PLANS) : answer(409, { error: 'ERR_SIGNUP_REFUSED', message: 'The company could not be created with these data' })));
    renderShell(<App />, { route: '/signup' });
    await within(screen.getByLabelText('Plano')).findByText(/Pro/);
    await fill();
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Cadastrar' }));
    });
    expect(await screen.findByText('Não foi possível concluir o cadastro. Verifique os dados informados.')).toBeTruthy();
    expect(screen.queryByText('LOGIN PAGE')).toBeNull();
  });
});
