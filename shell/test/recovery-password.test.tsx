/** @jest-environment jsdom */
import './jsdom-polyfills';
import { act, fireEvent, screen } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { session } from '@atendo/web-api';
import { AppRoutes } from '../src/App';
import { LoginPage } from '../src/pages/LoginPage';
import { EXCEEDED_REDIRECT_MS, RecoveryPasswordPage, SAVED_REDIRECT_MS } from '../src/pages/RecoveryPasswordPage';
import { answer, API, mockFetch, renderShell, type FetchCall } from './helpers';

const RESET_ID = '6f1c2a4e-1b2c-4d5e-8f90-123456789abc';

function App() {
  return (
    <Routes>
      <Route path="/recovery-password" element={<RecoveryPasswordPage />} />
      <Route path="/login" element={<div>LOGIN PAGE</div>} />
    </Routes>
  );
}

const field = (label: string) => screen.getByLabelText(label) as HTMLInputElement;
const click = async (name: string) => {
  await act(async () => {
    fireEvent.click(screen.getByRole('button', { name }));
  });
};

/** Step 1: types the number and asks for the code. */
async function sendCode(wpp = '(11) 98765-4321') {
  fireEvent.change(field('WhatsApp cadastrado'), { target: { value: wpp } });
  await click('Enviar código');
}
async function typeCode(code: string) {
  fireEvent.change(await screen.findByLabelText('Código de verificação'), { target: { value: code } });
  await click('Verificar código');
}

/** The API: POST enviar-email -> reset id; verify and PUT answer from their lists in turn. */
function api(verifyAnswers: ReturnType<typeof answer>[] = [answer(200, { valid: true, userId: RESET_ID, expiresAt: '2030-01-01T00:00:00.000Z' })], puts = [answer(200, { message: 'Password updated' })]): FetchCall[] {
  return mockFetch((c) => {
    if (c.method === 'POST' && c.url === `${API}/api/enviar-email`) return answer(200, { userId: RESET_ID });
    if (c.method === 'GET' && c.url.startsWith(`${API}/api/verificar-code/`)) return verifyAnswers.shift() ?? answer(500);
    if (c.method === 'PUT' && c.url === `${API}/api/atualizar-senha`) return puts.shift() ?? answer(500);
    return answer(404, { error: 'ERR_NOT_FOUND' });
  });
}

beforeEach(() => {
  act(() => session.signOut());
  window.localStorage.clear();
});
afterEach(() => jest.useRealTimers());

describe('RecoveryPasswordPage', () => {
  test('number -> code -> verified -> new password twice -> saved -> /login after 1 s; the code never comes from the API', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    const calls = api();
    renderShell(<App />, { route: '/recovery-password' });
    expect(screen.getByRole('link', { name: 'Voltar para o login' }).getAttribute('href')).toBe('/login');
    await sendCode();
    expect(calls[0]).toMatchObject({ method: 'POST', url: `${API}/api/enviar-email`, body: { wpp: '11987654321' } });
    expect(calls[0].headers.Authorization).toBeUndefined();
    expect(await screen.findByText('Código de verificação enviado com sucesso!')).toBeTruthy();

    await typeCode('123456');
    const verify = new URL(calls[1].url);
    expect([calls[1].method, verify.pathname]).toEqual(['GET', '/api/verificar-code/11987654321']);
    expect(Object.fromEntries(verify.searchParams)).toEqual({ code: '123456', userId: RESET_ID });
    expect(await screen.findByText('Código validado com sucesso.')).toBeTruthy();

    // The confirmation must match before anything is sent.
    fireEvent.change(await screen.findByLabelText('Nova senha'), { target: { value: 'nova-senha-1' } });
    fireEvent.change(field('Confirme a nova senha'), { target: { value: 'outra-senha' } });
    await click('Salvar');
    expect(await screen.findByText('As senhas não conferem')).toBeTruthy();
    expect(calls).toHaveLength(2);
    fireEvent.change(field('Confirme a nova senha'), { target: { value: 'nova-senha-1' } });
    await click('Salvar');
    expect(calls[2]).toMatchObject({ method: 'PUT', url: `${API}/api/atualizar-senha`, body: { userId: RESET_ID, code: '123456', newPassword: 'nova-senha-1' } });
    expect(await screen.findByText('Senha atualizada com sucesso!')).toBeTruthy();
    act(() => jest.advanceTimersByTime(SAVED_REDIRECT_MS - 50));
    expect(screen.queryByText('LOGIN PAGE')).toBeNull();
    act(() => jest.advanceTimersByTime(100));
    expect(screen.getByText('LOGIN PAGE')).toBeTruthy();
  });

  test('three wrong codes: "incorrect" twice with the attempts left, then "attempts exceeded" and /login after 3 s', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    api([
      answer(400, { error: 'ERR_INVALID_RESET_CODE', message: 'Invalid verification code', attemptsLeft: 2 }),
      answer(400, { error: 'ERR_INVALID_RESET_CODE', message: 'Invalid verification code', attemptsLeft: 1 }),
      answer(429, { error: 'ERR_RESET_ATTEMPTS_EXCEEDED', message: 'Too many wrong codes' }),
    ]);
    renderShell(<App />, { route: '/recovery-password' });
    await sendCode();
    await typeCode('000001');
    expect(await screen.findByText('Código de verificação incorreto. Tente novamente.')).toBeTruthy();
    expect(screen.getByText('Restam 2 tentativas.')).toBeTruthy();
    await typeCode('000002');
    expect(await screen.findByText('Resta 1 tentativa.')).toBeTruthy();
    await typeCode('000003');
    expect(await screen.findByText('Tentativas excedidas. Redirecionando...')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Verificar código' }) as HTMLButtonElement).disabled).toBe(true);
    act(() => jest.advanceTimersByTime(EXCEEDED_REDIRECT_MS - 100));
    expect(screen.queryByText('LOGIN PAGE')).toBeNull();
    act(() => jest.advanceTimersByTime(200));
    expect(screen.getByText('LOGIN PAGE')).toBeTruthy();
  });

  test('saving with a code the server refuses shows the spec message and stays; other failures "Erro ao salvar senha."', async () => {
    api(undefined, [answer(400, { error: 'ERR_INVALID_RESET_CODE', message: 'x' }), answer(500, { error: 'ERR_INTERNAL', message: 'boom' })]);
    renderShell(<App />, { route: '/recovery-password' });
    await sendCode();
    await typeCode('123456');
    fireEvent.change(await screen.findByLabelText('Nova senha'), { target: { value: 'nova-senha-1' } });
    fireEvent.change(field('Confirme a nova senha'), { target: { value: 'nova-senha-1' } });
    await click('Salvar');
    expect(await screen.findByText('Código de verificação inválido. A senha não pode ser alterada.')).toBeTruthy();
    await click('Salvar');
    expect(await screen.findByText('Erro ao salvar senha.')).toBeTruthy();
    expect(screen.queryByText('LOGIN PAGE')).toBeNull();
  });

  test('a verification that fails for another reason says "Erro ao verificar código."', async () => {
    api([answer(500, { error: 'ERR_INTERNAL', message: 'boom' })]);
    renderShell(<App />, { route: '/recovery-password' });
    await sendCode();
    await typeCode('123456');
    expect(await screen.findByText('Erro ao verificar código.')).toBeTruthy();
  });

  test('the number is validated before calling the API; a failed send shows the server\'s error text', async () => {
    const calls = mockFetch(() => answer(429, { error: 'ERR_SOMETHING_NEW', message: 'Servidor recusou o envio' }));
    renderShell(<App />, { route: '/recovery-password' });
    await click('Enviar código');
    expect(await screen.findByText('Obrigatório')).toBeTruthy();
    fireEvent.change(field('WhatsApp cadastrado'), { target: { value: '12345' } });
    await click('Enviar código');
    expect(await screen.findByText('Telefone inválido')).toBeTruthy();
    expect(calls).toHaveLength(0);
    await sendCode('+55 11 98765-4321');
    expect(calls[0].body).toEqual({ wpp: '5511987654321' });
    expect(await screen.findByText('Servidor recusou o envio')).toBeTruthy();
    // Still on step 1.
    expect(field('WhatsApp cadastrado')).toBeTruthy();
  });

  test('/login links to /recovery-password, which the app serves as a public page (lazy chunk)', async () => {
    mockFetch(() => answer(404));
    renderShell(
      <Routes>
        <Route path="/login" element={<LoginPage />} />
        <Route path="*" element={<AppRoutes />} />
      </Routes>,
      { route: '/login' },
    );
    await act(async () => {
      fireEvent.click(screen.getByRole('link', { name: 'Esqueceu a senha?' }));
    });
    expect(await screen.findByRole('heading', { name: 'Recuperar senha' })).toBeTruthy();
    expect(screen.getByLabelText('WhatsApp cadastrado')).toBeTruthy();
  });
});
