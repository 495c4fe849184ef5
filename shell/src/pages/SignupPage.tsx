import { useEffect, useId, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useFormik } from 'formik';
import { useTranslation } from 'react-i18next';
import { IMaskInput } from 'react-imask';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import * as yup from 'yup';
import { api, formatBRL, toastError, type Plan } from '@atendo/web-api';
import { Button, FieldFrame, Icon, IconButton, SelectField, TextField } from '@atendo/web-ui';
import { AuthLayout } from './AuthLayout';

const Form = styled.form`
  display: grid;
  grid-template-columns: minmax(0, 1fr);
  gap: ${(p) => p.theme.space(1)};
`;

const Footer = styled.p`
  margin: ${(p) => p.theme.space(2)} 0 0;
  font-size: ${(p) => p.theme.font.size.sm};
  color: ${(p) => p.theme.colors.textMuted};
`;

/** Brazilian mobile phone mask (spec 3-campaigns-and-tools.md "Sign-up"): (99) 99999-9999. */
export const PHONE_MASK = '(00) 00000-0000';

const name = () => yup.string().trim().min(2, 'validation.tooShort').max(50, 'validation.tooLong').required('validation.required');

/** Sign-up schema (spec 1-platform.md §5 bounds: names 2..50, password 5..50); messages are i18n keys. */
export const signupSchema = yup.object({
  companyName: name(),
  name: name(),
  email: yup.string().trim().email('validation.invalidEmail').max(255, 'validation.tooLong').required('validation.required'),
  password: yup.string().min(5, 'validation.tooShort').max(50, 'validation.tooLong').required('validation.required'),
  phone: yup
    .string()
    .required('validation.required')
    .test('phone', 'validation.invalidPhone', (v) => (v ?? '').replace(/\D/g, '').length === 11),
  planId: yup.string().required('validation.required'),
});

type SignupValues = yup.InferType<typeof signupSchema>;

/**
 * /signup (spec 3-campaigns-and-tools.md "Sign-up"): company name, name, e-mail, password, phone (masked)
 * and a plan from `GET /plans/list` with its amount in R$. `POST /auth/signup`; success toasts and goes to
 * /login, failure toasts "check the data provided". Reads an optional `?companyId=`.
 */
export function SignupPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const phoneId = useId();
  const [showPassword, setShowPassword] = useState(false);
  const plans = useQuery({
    queryKey: ['publicPlans'],
    queryFn: ({ signal }) => api.get<Plan[]>('/plans/list', { auth: false, signal }),
    staleTime: 5 * 60_000,
  });
  const formik = useFormik<SignupValues>({
    initialValues: { companyName: '', name: '', email: '', password: '', phone: '', planId: '' },
    validationSchema: signupSchema,
    onSubmit: async (values) => {
      const companyId = params.get('companyId');
      try {
        await api.post(
          '/auth/signup',
          {
            companyName: values.companyName.trim(),
            name: values.name.trim(),
            email: values.email.trim(),
            password: values.password,
            phone: values.phone.replace(/\D/g, ''),
            planId: Number(values.planId),
            ...(companyId && /^\d{1,10}$/.test(companyId) ? { companyId } : {}),
          },
          { auth: false },
        );
        toast.success(t('signup.success'));
        navigate('/login', { replace: true });
      } catch {
        toast.error(t('signup.failed'), { toastId: 'signup-failed' });
      }
    },
  });
  const err = (field: keyof SignupValues) => (formik.touched[field] && formik.errors[field] ? t(formik.errors[field] as string) : undefined);
  const text = (field: 'companyName' | 'name' | 'email', type = 'text', autoComplete?: string) => (
    <TextField
      label={t(`signup.${field}`)}
      name={field}
      type={type}
      autoComplete={autoComplete}
      value={formik.values[field]}
      onChange={formik.handleChange}
      onBlur={formik.handleBlur}
      error={err(field)}
    />
  );
  useEffect(() => {
    if (plans.isError) toastError(plans.error);
  }, [plans.isError, plans.error]);
  return (
    <AuthLayout title={t('signup.title')} subtitle={t('signup.subtitle')}>
      <Form noValidate onSubmit={formik.handleSubmit} aria-label={t('signup.title')}>
        {text('companyName', 'text', 'organization')}
        {text('name', 'text', 'name')}
        {text('email', 'email', 'email')}
        <TextField
          label={t('signup.password')}
          name="password"
          type={showPassword ? 'text' : 'password'}
          autoComplete="new-password"
          value={formik.values.password}
          onChange={formik.handleChange}
          onBlur={formik.handleBlur}
          error={err('password')}
          endAdornment={
            <IconButton tone="default" label={showPassword ? t('login.hidePassword') : t('login.showPassword')} aria-pressed={showPassword} onClick={() => setShowPassword((v) => !v)}>
              <Icon name={showPassword ? 'eyeOff' : 'eye'} />
            </IconButton>
          }
        />
        <FieldFrame label={t('signup.phone')} controlId={phoneId} error={err('phone')}>
          <IMaskInput
            id={phoneId}
            name="phone"
            type="tel"
            inputMode="tel"
            autoComplete="tel-national"
            mask={PHONE_MASK}
            placeholder="(99) 99999-9999"
            value={formik.values.phone}
            onAccept={(value: string) => void formik.setFieldValue('phone', value)}
            onBlur={() => void formik.setFieldTouched('phone', true)}
            aria-invalid={err('phone') ? true : undefined}
            aria-describedby={`${phoneId}-msg`}
          />
        </FieldFrame>
        <SelectField label={t('signup.plan')} name="planId" value={formik.values.planId} onChange={formik.handleChange} onBlur={formik.handleBlur} error={err('planId')}>
          <option value="">{plans.isPending ? t('signup.loadingPlans') : t('signup.selectPlan')}</option>
          {(plans.data ?? []).map((p) => (
            <option key={p.id} value={String(p.id)}>
              {t('signup.planOption', { name: p.name, amount: formatBRL(p.amount), users: p.users, connections: p.connections, queues: p.queues })}
            </option>
          ))}
        </SelectField>
        <Button type="submit" fullWidth disabled={formik.isSubmitting}>
          {t('signup.submit')}
        </Button>
      </Form>
      <Footer>
        {t('signup.haveAccount')} <Link to="/login">{t('signup.loginLink')}</Link>
      </Footer>
    </AuthLayout>
  );
}
