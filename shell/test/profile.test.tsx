/** @jest-environment jsdom */
import './jsdom-polyfills';
import { act, fireEvent, screen } from '@testing-library/react';
import { session, writeToken } from '@atendo/web-api';
import { ProfileModal } from '../src/layout/ProfileModal';
import { answer, API, mockFetch, renderShell, sessionUser } from './helpers';

const user = sessionUser({ id: 7, name: 'Ana', email: 'ana@example.com' });

function setup() {
  writeToken('jwt');
  act(() => session.signIn(user as never));
  const onClose = jest.fn();
  const onPasswordChanged = jest.fn();
  renderShell(<ProfileModal user={user as never} open onClose={onClose} onPasswordChanged={onPasswordChanged} />);
  return { onClose, onPasswordChanged };
}

const save = async () => {
  await act(async () => {
    fireEvent.click(screen.getByRole('button', { name: 'Salvar' }));
  });
};

afterEach(() => act(() => session.signOut()));

describe('ProfileModal', () => {
  test('shows the e-mail read-only and saves a new name with PUT /users/:id', async () => {
    const calls = mockFetch(() => answer(200, { id: 7, name: 'Ana Maria' }));
    const { onClose, onPasswordChanged } = setup();
    expect((screen.getByLabelText('E-mail') as HTMLInputElement).readOnly).toBe(true);
    fireEvent.change(screen.getByLabelText('Nome'), { target: { value: 'Ana Maria' } });
    await save();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ url: `${API}/users/7`, method: 'PUT', body: { name: 'Ana Maria', defaultTheme: 'light', defaultMenu: 'open', language: 'pt-BR' } });
    expect(calls[0].headers.Authorization).toBe('Bearer jwt');
    expect(session.get().user?.name).toBe('Ana Maria');
    expect(await screen.findByText('Operação realizada com sucesso!')).toBeTruthy();
    expect(onClose).toHaveBeenCalled();
    expect(onPasswordChanged).not.toHaveBeenCalled();
  });

  test('validates the name and password lengths; a new password signs the user out', async () => {
    const calls = mockFetch(() => answer(200, { id: 7, name: 'Ana' }));
    const { onPasswordChanged } = setup();
    fireEvent.change(screen.getByLabelText('Nome'), { target: { value: 'A' } });
    fireEvent.change(screen.getByLabelText('Nova senha'), { target: { value: '1234' } });
    await save();
    expect(await screen.findAllByText('Muito curto!')).toHaveLength(2);
    expect(calls).toHaveLength(0);
    fireEvent.change(screen.getByLabelText('Nome'), { target: { value: 'Ana' } });
    fireEvent.change(screen.getByLabelText('Nova senha'), { target: { value: 'nova-senha' } });
    await save();
    // The current password is required for a new one.
    expect(await screen.findByText('Obrigatório')).toBeTruthy();
    expect(calls).toHaveLength(0);
    fireEvent.change(screen.getByLabelText('Senha atual'), { target: { value: 'senha-velha' } });
    await save();
    expect(calls[0].body).toEqual({ name: 'Ana', password: 'nova-senha', currentPassword: 'senha-velha', defaultTheme: 'light', defaultMenu: 'open', language: 'pt-BR' });
    expect(onPasswordChanged).toHaveBeenCalledTimes(1);
    expect(await screen.findByText('Senha alterada. Entre novamente com a nova senha.')).toBeTruthy();
  });

  test('a refused save toasts the translated backend error', async () => {
    mockFetch(() => answer(409, { error: 'ERR_DUPLICATED_EMAIL', message: 'This e-mail is already in use' }));
    setup();
    await save();
    expect(await screen.findByText('Este e-mail já está em uso.')).toBeTruthy();
  });

  test('theme, menu and language are saved to the user and applied; the language to user.language', async () => {
    const calls = mockFetch((c) => answer(200, { id: 7, name: 'Ana', ...(c.body as object) }));
    setup();
    fireEvent.change(screen.getByTestId('profile-theme'), { target: { value: 'dark' } });
    fireEvent.change(screen.getByTestId('profile-menu'), { target: { value: 'closed' } });
    fireEvent.change(screen.getByTestId('profile-language'), { target: { value: 'en' } });
    await save();
    expect(calls[0].body).toEqual({ name: 'Ana', defaultTheme: 'dark', defaultMenu: 'closed', language: 'en' });
    expect(session.get().user).toMatchObject({ defaultTheme: 'dark', defaultMenu: 'closed', language: 'en' });
    expect(document.documentElement.lang === 'en' || (await import('i18next')).default.language === 'en').toBe(true);
  });

  test('the profile picture is uploaded at once (multipart profileImage) and shown; other files are refused', async () => {
    const calls = mockFetch(() => answer(200, { id: 7, name: 'Ana', profileImage: 'abc.png', profileImageUrl: 'http://api.test/public/company3/user/abc.png?e=1&t=x' }));
    setup();
    const input = screen.getByTestId('profile-picture-input') as HTMLInputElement;
    await act(async () => {
      fireEvent.change(input, { target: { files: [new File(['%PDF'], 'doc.pdf', { type: 'application/pdf' })] } });
    });
    expect(calls).toHaveLength(0);
    await act(async () => {
      fireEvent.change(input, { target: { files: [new File([new Uint8Array(100)], 'me.png', { type: 'image/png' })] } });
    });
    expect(calls[0]).toMatchObject({ url: `${API}/users/7/media-upload`, method: 'POST' });
    expect(((calls[0].body as FormData).get('profileImage') as File).name).toBe('me.png');
    expect(session.get().user).toMatchObject({ profileImage: 'abc.png' });
    expect(await screen.findByText('Foto do perfil salva.')).toBeTruthy();
  });
});
