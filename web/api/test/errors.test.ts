import i18next from 'i18next';

const toastCalls: { text: string; opts: Record<string, unknown> }[] = [];
jest.mock('react-toastify', () => ({
  toast: { error: (text: string, opts: Record<string, unknown>) => toastCalls.push({ text, opts }) },
}));

// eslint-disable-next-line import/first
import { errorText, toastError } from '../src/errors';
// eslint-disable-next-line import/first
import { HttpError } from '../src/client';

const apiError = (body: unknown) => ({ response: { data: body } });

describe('toastError', () => {
  beforeAll(async () => {
    await i18next.init({
      lng: 'pt-BR',
      fallbackLng: 'pt-BR',
      resources: { 'pt-BR': { translation: { backendErrors: { ERR_INVALID_CREDENTIALS: 'Erro de autenticação. Por favor, tente novamente.' }, errors: { generic: 'Ocorreu um erro!' } } }, en: { translation: { errors: { generic: 'An error occurred!' } } } },
    });
  });
  beforeEach(() => {
    toastCalls.length = 0;
  });

  test('1. a known code shows its backendErrors translation', () => {
    expect(errorText(apiError({ error: 'ERR_INVALID_CREDENTIALS', message: 'Authentication error, try again' }))).toBe('Erro de autenticação. Por favor, tente novamente.');
    const e = new HttpError(401, { error: 'ERR_INVALID_CREDENTIALS' }, 'POST', '/auth/login');
    toastError(e);
    expect(toastCalls).toEqual([{ text: 'Erro de autenticação. Por favor, tente novamente.', opts: { toastId: 'Erro de autenticação. Por favor, tente novamente.', autoClose: 2000 } }]);
  });

  test('2. otherwise the raw text: the message, the raw error, or a string error', () => {
    expect(errorText(apiError({ error: 'ERR_SOMETHING_NEW', message: 'Something new went wrong' }))).toBe('Something new went wrong');
    expect(errorText(apiError({ error: 'Não é possível consultar registros de outra empresa' }))).toBe('Não é possível consultar registros de outra empresa');
    expect(errorText('Falha ao enviar')).toBe('Falha ao enviar');
  });

  test('3. otherwise "An error occurred!" (translated)', async () => {
    expect(errorText(undefined)).toBe('Ocorreu um erro!');
    expect(errorText(new HttpError(0, undefined, 'GET', '/x', 'Failed to fetch'))).toBe('Ocorreu um erro!');
    expect(errorText(apiError({}))).toBe('Ocorreu um erro!');
    await i18next.changeLanguage('en');
    expect(errorText(null)).toBe('An error occurred!');
    toastError({});
    expect(toastCalls[0].text).toBe('An error occurred!');
    await i18next.changeLanguage('pt-BR');
  });
});
