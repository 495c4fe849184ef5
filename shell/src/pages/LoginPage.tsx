import { useEffect, useState } from 'react';
import { useFormik } from 'formik';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, type Location } from 'react-router';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import * as yup from 'yup';
import { formatDate, session, toastError } from '@atendo/web-api';
import { Button, Icon, IconButton, TextField } from '@atendo/web-ui';
import { authenticate, type LoginOutcome } from '../auth';
import { setPostLoginTarget } from '../guards';
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

/** Sign-in form schema; messages are i18n keys (translated when shown). */
export const loginSchema = yup.object({
  email: yup.string().trim().email('validation.invalidEmail').required('validation.required'),
  password: yup.string().required('validation.required'),
});

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
 * the expiry message; fewer than 5 days left shows a warning. Failures toast the API's error.
 */
export function LoginPage({ login = authenticate }: { login?: (email: string, password: string) => Promise<LoginOutcome> }) {
  const { t } = useTranslation();
  const location = useLocation();
  useEffect(() => setPostLoginTarget(undefined), []);
  const [showPassword, setShowPassword] = useState(false);
  const formik = useFormik({
    initialValues: { email: '', password: '' },
    validationSchema: loginSchema,
    onSubmit: async (values) => {
      try {
        const outcome = await login(values.email, values.password);
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
    },
  });
  const fieldError = (name: 'email' | 'password') => (formik.touched[name] && formik.errors[name] ? t(formik.errors[name] as string) : undefined);
  return (
    <AuthLayout title={t('login.title')} subtitle={t('login.subtitle')}>
      <Form noValidate onSubmit={formik.handleSubmit} aria-label={t('login.title')}>
        <TextField
          label={t('login.email')}
          name="email"
          type="email"
          autoComplete="email"
          autoFocus
          value={formik.values.email}
          onChange={formik.handleChange}
          onBlur={formik.handleBlur}
          error={fieldError('email')}
        />
        <TextField
          label={t('login.password')}
          name="password"
          type={showPassword ? 'text' : 'password'}
          autoComplete="current-password"
          value={formik.values.password}
          onChange={formik.handleChange}
          onBlur={formik.handleBlur}
          error={fieldError('password')}
          endAdornment={
            <IconButton tone="default" label={showPassword ? t('login.hidePassword') : t('login.showPassword')} aria-pressed={showPassword} onClick={() => setShowPassword((v) => !v)}>
              <Icon name={showPassword ? 'eyeOff' : 'eye'} />
            </IconButton>
          }
        />
        <Button type="submit" fullWidth disabled={formik.isSubmitting}>
          {t('login.submit')}
        </Button>
      </Form>
      <Links>
        <p>
          {t('login.noAccount')} <Link to="/signup">{t('login.signupLink')}</Link>
        </p>
        <p data-testid="recovery-text">{t('login.forgot')}</p>
      </Links>
    </AuthLayout>
  );
}
