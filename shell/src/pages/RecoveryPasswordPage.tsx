import { useEffect, useRef, useState } from 'react';
import { useFormik } from 'formik';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import * as yup from 'yup';
import { api, ERROR_TOAST_MS, HttpError, toastError } from '@atendo/web-api';
import { Button, Icon, IconButton, TextField } from '@atendo/web-ui';
import { AuthLayout } from './AuthLayout';

/** Wrong codes allowed (spec 3-campaigns-and-tools.md §5, §9); the server counts them too. */
export const RESET_MAX_ATTEMPTS = 3;
/** Redirect to /login after "attempts exceeded" (spec: 3 seconds). */
export const EXCEEDED_REDIRECT_MS = 3000;
/** Redirect to /login after the new password is saved (spec: 1 second). */
export const SAVED_REDIRECT_MS = 1000;

const Form = styled.form`
  display: grid;
  grid-template-columns: minmax(0, 1fr);
  gap: ${(p) => p.theme.space(1)};
`;

const Note = styled.p`
  margin: 0 0 ${(p) => p.theme.space(1)};
  color: ${(p) => p.theme.colors.textMuted};
  font-size: ${(p) => p.theme.font.size.sm};
`;

const Links = styled.div`
  display: flex;
  flex-wrap: wrap;
  justify-content: space-between;
  gap: ${(p) => p.theme.space(1)};
  margin-top: ${(p) => p.theme.space(2)};
  font-size: ${(p) => p.theme.font.size.sm};
`;

/** Digits of a typed phone number. */
const digits = (v: string) => v.replace(/\D/g, '');

/** Step schemas; messages are i18n keys (translated when shown). */
export const numberSchema = yup.object({
  wpp: yup
    .string()
    .required('validation.required')
    .test('wpp', 'validation.invalidPhone', (v) => {
      const n = digits(v ?? '').length;
      return n >= 10 && n <= 15;
    }),
});
export const codeSchema = yup.object({
  code: yup.string().trim().required('validation.required').matches(/^\d{6}$/, 'recovery.codeFormat'),
});
export const passwordSchema = yup.object({
  newPassword: yup.string().min(5, 'validation.tooShort').max(50, 'validation.tooLong').required('validation.required'),
  confirmPassword: yup
    .string()
    .required('validation.required')
    .oneOf([yup.ref('newPassword')], 'recovery.passwordsDiffer'),
});

type Step = 'number' | 'code' | 'password';
const codeOf = (err: unknown) => (err instanceof HttpError ? err.code : undefined);

/**
 * /recovery-password (spec 3-campaigns-and-tools.md "Password reset"): 1. the registered WhatsApp number,
 * 2. "send the code" (`POST /api/enviar-email`, answers an opaque reset id), 3. the code, 4. verified
 * (`GET /api/verificar-code/{wpp}?code=`), 5. the new password twice, 6. save (`PUT /api/atualizar-senha`
 * {userId: reset id, code, newPassword}), 7. /login after 1 second. Three wrong codes: "attempts exceeded"
 * and /login after 3 seconds. A failure to send shows the server's error text. Public route; a back link
 * to /login on every step.
 */
export function RecoveryPasswordPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [step, setStep] = useState<Step>('number');
  const [wpp, setWpp] = useState('');
  const [resetId, setResetId] = useState('');
  const [code, setCode] = useState('');
  const [attemptsLeft, setAttemptsLeft] = useState(RESET_MAX_ATTEMPTS);
  const [locked, setLocked] = useState(false);
  const [showPassword, setShowPassword] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const redirectToLogin = (ms: number) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => navigate('/login', { replace: true }), ms);
  };
  const exceeded = () => {
    setLocked(true);
    setAttemptsLeft(0);
    toast.error(t('recovery.attemptsExceeded'), { toastId: 'recovery-exceeded', autoClose: EXCEEDED_REDIRECT_MS });
    redirectToLogin(EXCEEDED_REDIRECT_MS);
  };
  /** A wrong code: one attempt less (the server's count when it gives one); the third is the last. */
  const wrongCode = (err: unknown, message: string) => {
    const serverLeft = err instanceof HttpError ? (err.data as { attemptsLeft?: unknown } | undefined)?.attemptsLeft : undefined;
    const left = typeof serverLeft === 'number' ? serverLeft : attemptsLeft - 1;
    if (left <= 0) return exceeded();
    setAttemptsLeft(left);
    toast.error(message, { toastId: `recovery-wrong-${left}`, autoClose: ERROR_TOAST_MS });
  };

  const numberForm = useFormik({
    initialValues: { wpp: '' },
    validationSchema: numberSchema,
    onSubmit: async (values) => {
      const number = digits(values.wpp);
      try {
        const answer = await api.post<{ userId: string }>('/api/enviar-email', { wpp: number }, { auth: false });
        setWpp(number);
        setResetId(answer.userId);
        setAttemptsLeft(RESET_MAX_ATTEMPTS);
        toast.success(t('recovery.codeSent'));
        setStep('code');
      } catch (err) {
        toastError(err);
      }
    },
  });

  const codeForm = useFormik({
    initialValues: { code: '' },
    validationSchema: codeSchema,
    onSubmit: async (values) => {
      if (locked) return;
      const typed = values.code.trim();
      try {
        await api.get(`/api/verificar-code/${encodeURIComponent(wpp)}`, { auth: false, query: { code: typed, userId: resetId } });
        setCode(typed);
        toast.success(t('recovery.codeValid'));
        setStep('password');
      } catch (err) {
        const c = codeOf(err);
        if (c === 'ERR_RESET_ATTEMPTS_EXCEEDED') exceeded();
        else if (c === 'ERR_INVALID_RESET_CODE') wrongCode(err, t('recovery.codeWrong'));
        else if (c === 'ERR_RESET_CODE_EXPIRED') toast.error(t('recovery.codeExpired'), { toastId: 'recovery-expired' });
        else toast.error(t('recovery.verifyError'), { toastId: 'recovery-verify-error' });
      }
    },
  });

  const passwordForm = useFormik({
    initialValues: { newPassword: '', confirmPassword: '' },
    validationSchema: passwordSchema,
    onSubmit: async (values) => {
      if (locked) return;
      try {
        await api.put('/api/atualizar-senha', { userId: resetId, code, newPassword: values.newPassword }, { auth: false });
        setLocked(true);
        toast.success(t('recovery.saved'));
        redirectToLogin(SAVED_REDIRECT_MS);
      } catch (err) {
        const c = codeOf(err);
        if (c === 'ERR_RESET_ATTEMPTS_EXCEEDED') exceeded();
        else if (c === 'ERR_INVALID_RESET_CODE' || c === 'ERR_RESET_CODE_EXPIRED') toast.error(t('recovery.codeInvalid'), { toastId: 'recovery-invalid' });
        else toast.error(t('recovery.saveError'), { toastId: 'recovery-save-error' });
      }
    },
  });

  /** Back to step 1 (another number, or a new code after expiry). */
  const restart = () => {
    codeForm.resetForm();
    setStep('number');
  };
  const err = (touched: boolean | undefined, error: string | undefined) => (touched && error ? t(error) : undefined);
  const eye = (
    <IconButton tone="default" label={showPassword ? t('login.hidePassword') : t('login.showPassword')} aria-pressed={showPassword} onClick={() => setShowPassword((v) => !v)}>
      <Icon name={showPassword ? 'eyeOff' : 'eye'} />
    </IconButton>
  );

  return (
    <AuthLayout title={t('recovery.title')} subtitle={t('recovery.subtitle')}>
      {step === 'number' && (
        <Form noValidate onSubmit={numberForm.handleSubmit} aria-label={t('recovery.title')}>
          <TextField
            label={t('recovery.wpp')}
            name="wpp"
            type="tel"
            inputMode="tel"
            autoComplete="tel"
            autoFocus
            helperText={t('recovery.wppHelp')}
            value={numberForm.values.wpp}
            onChange={numberForm.handleChange}
            onBlur={numberForm.handleBlur}
            error={err(numberForm.touched.wpp, numberForm.errors.wpp)}
          />
          <Button type="submit" fullWidth disabled={numberForm.isSubmitting}>
            {t('recovery.sendCode')}
          </Button>
        </Form>
      )}
      {step === 'code' && (
        <Form noValidate onSubmit={codeForm.handleSubmit} aria-label={t('recovery.title')}>
          <Note>{t('recovery.codeSentTo', { wpp })}</Note>
          <TextField
            label={t('recovery.code')}
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={6}
            autoFocus
            disabled={locked}
            helperText={attemptsLeft < RESET_MAX_ATTEMPTS && !locked ? t('recovery.attemptsLeft', { count: attemptsLeft }) : undefined}
            value={codeForm.values.code}
            onChange={codeForm.handleChange}
            onBlur={codeForm.handleBlur}
            error={err(codeForm.touched.code, codeForm.errors.code)}
          />
          <Button type="submit" fullWidth disabled={codeForm.isSubmitting || locked}>
            {t('recovery.verify')}
          </Button>
          <Button variant="text" fullWidth disabled={locked} onClick={restart}>
            {t('recovery.newCode')}
          </Button>
        </Form>
      )}
      {step === 'password' && (
        <Form noValidate onSubmit={passwordForm.handleSubmit} aria-label={t('recovery.title')}>
          <TextField
            label={t('recovery.newPassword')}
            name="newPassword"
            type={showPassword ? 'text' : 'password'}
            autoComplete="new-password"
            autoFocus
            value={passwordForm.values.newPassword}
            onChange={passwordForm.handleChange}
            onBlur={passwordForm.handleBlur}
            error={err(passwordForm.touched.newPassword, passwordForm.errors.newPassword)}
            endAdornment={eye}
          />
          <TextField
            label={t('recovery.confirmPassword')}
            name="confirmPassword"
            type={showPassword ? 'text' : 'password'}
            autoComplete="new-password"
            value={passwordForm.values.confirmPassword}
            onChange={passwordForm.handleChange}
            onBlur={passwordForm.handleBlur}
            error={err(passwordForm.touched.confirmPassword, passwordForm.errors.confirmPassword)}
          />
          <Button type="submit" fullWidth disabled={passwordForm.isSubmitting || locked}>
            {t('recovery.save')}
          </Button>
        </Form>
      )}
      <Links>
        <Link to="/login">{t('recovery.backToLogin')}</Link>
      </Links>
    </AuthLayout>
  );
}
