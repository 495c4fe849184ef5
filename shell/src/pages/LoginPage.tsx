import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, type Location } from 'react-router';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { formatDate, session, toastError } from '@atendo/web-api';
import { Button, Icon, IconButton, TextField } from '@atendo/web-ui';
import { authenticate, type LoginOutcome } from '../auth';
import { setPostLoginTarget } from '../guards';
import { loadLayout } from '../layout/load';
import { EXPIRED_ROUTE, HOME_AFTER_LOGIN } from '../routes';
import { AuthLayout } from './AuthLayout';

const Form = styled.form`
  display: grid;
  grid-template-columns: minmax(0, 1fr);
  gap: ${(p) => p.theme.space(1)};
`;

const Links = styled.div`
  display: grid;
  gap: ${(p) => p.theme.space(1)};
  margin-top: ${(p) => p.theme.space(2)};
  font-size: ${(p) => p.theme.font.size.sm};
  color: ${(p) => p.theme.colors.textMuted};
  p { margin: 0; }
`;

interface LoginValues {
  email: string;
  password: string;
}

/** An e-mail address as browsers validate `<input type="email">` (WHATWG HTML). */
const EMAIL = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/**
 * The sign-in form's rules; messages are i18n keys (translated when shown). Plain code rather than a
 * form/schema library: /login is the first page loaded, and those weigh ~22 KB gzipped.
 */
export function validateLogin(values: LoginValues): Partial<Record<keyof LoginValues, string>> {
  const errors: Partial<Record<keyof LoginValues, string>> = {};
  const email = values.email.trim();
  if (!email) errors.email = 'validation.required';
  else if (!EMAIL.test(email)) errors.email = 'validation.invalidEmail';
  if (!values.password) errors.password = 'validation.required';
  return errors;
}

/** Where to go after sign-in: the remembered private location, else /tickets. */
export function afterLoginTarget(state: unknown): string {
  const from = (state as { from?: Partial<Location> } | null)?.from;
  const path = from?.pathname;
  if (!path || path === '/login' || path === '/signup') return HOME_AFTER_LOGIN;
  return `${path}${from?.search ?? ''}${from?.hash ?? ''}`;
}

/**
 * /login (spec 1-platform.md §2, §4): e-mail, password with show/hide, "Acessar". On success goes to the
 * remembered location or /tickets; an expired company is signed in but sent to /financeiro-aberto with
 * the expiry message; fewer than 5 days left shows a warning. Failures toast the API's error. "Forgot your
 * password?" links to /recovery-password.
 */
export function LoginPage({ login = authenticate }: { login?: (email: string, password: string) => Promise<LoginOutcome> }) {
  const { t } = useTranslation();
  const location = useLocation();
  useEffect(() => setPostLoginTarget(undefined), []);
  const [showPassword, setShowPassword] = useState(false);
  const [values, setValues] = useState<LoginValues>({ email: '', password: '' });
  const [touched, setTouched] = useState<Partial<Record<keyof LoginValues, boolean>>>({});
  const [submitting, setSubmitting] = useState(false);
  const errors = validateLogin(values);
  const handleChange = (e: { target: { name: string; value: string } }) => setValues((v) => ({ ...v, [e.target.name]: e.target.value }));
  const handleBlur = (e: { target: { name: string } }) => setTouched((tc) => ({ ...tc, [e.target.name]: true }));
  const submit = async (values: LoginValues) => {
    try {
      const outcome = await login(values.email.trim(), values.password);
      if (outcome.expired) {
        toast.error(t('login.expired', { date: formatDate(outcome.dueDate) }), { toastId: 'subscription-expired' });
        setPostLoginTarget(EXPIRED_ROUTE);
      } else {
        if (outcome.dueSoon && outcome.daysLeft !== undefined) {
          toast.warn(outcome.daysLeft === 0 ? t('login.dueToday') : t('login.dueSoon', { count: outcome.daysLeft }), { toastId: 'subscription-due' });
        }
        setPostLoginTarget(afterLoginTarget(location.state));
      }
      // The public-only guard around this page now redirects to the target.
      session.signIn(outcome.user);
    } catch (err) {
      toastError(err);
    }
  };
  /** Validates (every field then shows its error) and signs in; one attempt at a time. */
  const handleSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setTouched({ email: true, password: true });
    if (submitting || Object.keys(errors).length > 0) return;
    setSubmitting(true);
    // The signed-in frame downloads while the sign-in request runs.
    void loadLayout().catch(() => undefined);
    try {
      await submit(values);
    } finally {
      setSubmitting(false);
    }
  };
  const fieldError = (name: keyof LoginValues) => (touched[name] && errors[name] ? t(errors[name]) : undefined);
  return (
    <AuthLayout title={t('login.title')} subtitle={t('login.subtitle')}>
      <Form noValidate onSubmit={(e) => void handleSubmit(e)} aria-label={t('login.title')}>
        <TextField
          label={t('login.email')}
          name="email"
          type="email"
          autoComplete="email"
          autoFocus
          value={values.email}
          onChange={handleChange}
          onBlur={handleBlur}
          error={fieldError('email')}
        />
        <TextField
          label={t('login.password')}
          name="password"
          type={showPassword ? 'text' : 'password'}
          autoComplete="current-password"
          value={values.password}
          onChange={handleChange}
          onBlur={handleBlur}
          error={fieldError('password')}
          endAdornment={
            <IconButton tone="default" label={showPassword ? t('login.hidePassword') : t('login.showPassword')} aria-pressed={showPassword} onClick={() => setShowPassword((v) => !v)}>
              <Icon name={showPassword ? 'eyeOff' : 'eye'} />
            </IconButton>
          }
        />
        <Button type="submit" fullWidth disabled={submitting}>
          {t('login.submit')}
        </Button>
      </Form>
      <Links>
        <p>
          {t('login.noAccount')} <Link to="/signup">{t('login.signupLink')}</Link>
        </p>
        <p>
          <Link to="/recovery-password">{t('login.forgot')}</Link>
        </p>
      </Links>
    </AuthLayout>
  );
}
