import { validateLogin } from '../src/pages/LoginPage';

describe('validateLogin (the sign-in form without a form library)', () => {
  test('both fields are required', () => {
    expect(validateLogin({ email: '', password: '' })).toEqual({ email: 'validation.required', password: 'validation.required' });
    expect(validateLogin({ email: '   ', password: 'x' })).toEqual({ email: 'validation.required' });
  });

  test('the e-mail must be an address (surrounding spaces ignored)', () => {
    for (const bad of ['ana', 'ana@', '@example.com', 'ana@@example.com', 'ana example@example.com', 'ana@-example.com', 'ana@example..com']) {
      expect(validateLogin({ email: bad, password: 'x' })).toEqual({ email: 'validation.invalidEmail' });
    }
    for (const good of ['ana@example.com', ' ana@example.com ', 'a.b+c@sub.example.com.br', 'x@localhost']) {
      expect(validateLogin({ email: good, password: 'x' })).toEqual({});
    }
  });
});
