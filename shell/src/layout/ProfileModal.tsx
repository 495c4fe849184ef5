import { useFormik } from 'formik';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import * as yup from 'yup';
import { api, session, toastError, type SessionUser } from '@atendo/web-api';
import { Button, Modal, TextField } from '@atendo/web-ui';

const Form = styled.form`
  display: grid;
  gap: ${(p) => p.theme.space(1)};
`;

const Actions = styled.div`
  display: flex;
  justify-content: flex-end;
  gap: ${(p) => p.theme.space(1)};
  margin-top: ${(p) => p.theme.space(1)};
`;

/** User form rules (spec 1-platform.md §5): name 2..50 required; password 5..50, optional on edit. */
export const profileSchema = yup.object({
  name: yup.string().trim().min(2, 'validation.tooShort').max(50, 'validation.tooLong').required('validation.required'),
  password: yup.string().min(5, 'validation.tooShort').max(50, 'validation.tooLong'),
});

/**
 * The Profile modal: shows the signed-in user's e-mail and edits the name and (optionally) the password via
 * `PUT /users/:id`. A new password ends every session of the user on the server, so the user is signed
 * out and asked to sign in again (`onPasswordChanged`).
 */
export function ProfileModal({ user, open, onClose, onPasswordChanged }: { user: SessionUser; open: boolean; onClose: () => void; onPasswordChanged: () => void }) {
  const { t } = useTranslation();
  const formik = useFormik({
    initialValues: { name: user.name, password: '' },
    enableReinitialize: true,
    validationSchema: profileSchema,
    onSubmit: async (values, helpers) => {
      try {
        const body: Record<string, string> = { name: values.name.trim() };
        if (values.password) body.password = values.password;
        const saved = await api.put<Partial<SessionUser>>(`/users/${user.id}`, body);
        if (values.password) {
          toast.success(t('profile.passwordChanged'));
          onClose();
          onPasswordChanged();
          return;
        }
        session.update({ name: saved?.name ?? body.name });
        toast.success(t('common.saved'));
        helpers.resetForm();
        onClose();
      } catch (err) {
        toastError(err);
      }
    },
  });
  const err = (f: 'name' | 'password') => (formik.touched[f] && formik.errors[f] ? t(formik.errors[f] as string) : undefined);
  return (
    <Modal open={open} title={t('profile.title')} onClose={onClose} closeLabel={t('common.close')}>
      <Form noValidate onSubmit={formik.handleSubmit}>
        <TextField label={t('profile.name')} name="name" value={formik.values.name} onChange={formik.handleChange} onBlur={formik.handleBlur} error={err('name')} autoComplete="name" />
        <TextField label={t('profile.email')} name="email" value={user.email} readOnly disabled />
        <TextField
          label={t('profile.password')}
          name="password"
          type="password"
          autoComplete="new-password"
          value={formik.values.password}
          onChange={formik.handleChange}
          onBlur={formik.handleBlur}
          error={err('password')}
          helperText={t('profile.passwordHelp')}
        />
        <Actions>
          <Button variant="text" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" disabled={formik.isSubmitting}>
            {t('common.save')}
          </Button>
        </Actions>
      </Form>
    </Modal>
  );
}
