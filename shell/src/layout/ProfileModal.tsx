import { useRef, useState } from 'react';
import { useFormik } from 'formik';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import * as yup from 'yup';
import { api, session, toastError, type SessionUser } from '@atendo/web-api';
import { Button, Modal, SelectField, setThemeMode, TextField } from '@atendo/web-ui';
import { isLanguage, LANGUAGES, setLanguage } from '../i18n';

const Form = styled.form`
  display: grid;
  gap: ${(p) => p.theme.space(1)};
`;

const Row = styled.div`
  display: grid;
  grid-template-columns: repeat(3, minmax(0, 1fr));
  gap: ${(p) => p.theme.space(1)};
  @media (max-width: 520px) { grid-template-columns: 1fr; }
`;

const Picture = styled.div`
  display: flex;
  align-items: center;
  gap: 12px;
  img, span.initial {
    width: 64px;
    height: 64px;
    border-radius: 50%;
    object-fit: cover;
  }
  span.initial {
    display: inline-flex;
    align-items: center;
    justify-content: center;
    background: ${(p) => p.theme.colors.primarySoft};
    color: ${(p) => p.theme.colors.primary};
    font-size: 24px;
    font-weight: ${(p) => p.theme.font.weight.bold};
  }
`;

const Actions = styled.div`
  display: flex;
  justify-content: flex-end;
  gap: ${(p) => p.theme.space(1)};
  margin-top: ${(p) => p.theme.space(1)};
`;

/** Types accepted as a profile picture (the server checks the bytes too; at most 2 MiB). */
export const PICTURE_TYPES = 'image/png,image/jpeg,image/webp,image/gif';
export const PICTURE_MAX_BYTES = 2 * 1024 * 1024;

/**
 * User form rules (spec 1-platform.md §5): name 2..50 required; password 5..50, optional on edit; the
 * current password is required to set a new one.
 */
export const profileSchema = yup.object({
  name: yup.string().trim().min(2, 'validation.tooShort').max(50, 'validation.tooLong').required('validation.required'),
  password: yup.string().min(5, 'validation.tooShort').max(50, 'validation.tooLong'),
  currentPassword: yup.string().when('password', { is: (v: string | undefined) => Boolean(v), then: (s) => s.required('validation.required') }),
});

/**
 * The Profile modal (avatar menu; spec 1-platform.md §2, 2-tickets.md §5 "User"): what the user modal lets a
 * user change about themselves: the name, the password (with the current one), the profile picture
 * (`POST /users/:id/media-upload`, at once), the default theme and menu and the language (saved to
 * `user.language` and applied), via `PUT /users/:id`. The e-mail is shown read-only. A new password ends
 * every session of the user on the server, so the user is signed out and asked to sign in again.
 */
export function ProfileModal({ user, open, onClose, onPasswordChanged }: { user: SessionUser; open: boolean; onClose: () => void; onPasswordChanged: () => void }) {
  const { t, i18n } = useTranslation();
  const fileInput = useRef<HTMLInputElement>(null);
  const [uploading, setUploading] = useState(false);
  const initialLanguage = isLanguage(user.language) ? user.language : isLanguage(i18n.language) ? i18n.language : 'pt-BR';
  const formik = useFormik({
    initialValues: {
      name: user.name,
      password: '',
      currentPassword: '',
      defaultTheme: user.defaultTheme === 'dark' ? 'dark' : 'light',
      defaultMenu: user.defaultMenu === 'closed' ? 'closed' : 'open',
      language: initialLanguage,
    },
    enableReinitialize: true,
    validationSchema: profileSchema,
    onSubmit: async (values, helpers) => {
      try {
        const body: Record<string, string> = { name: values.name.trim(), defaultTheme: values.defaultTheme, defaultMenu: values.defaultMenu, language: values.language };
        if (values.password) {
          body.password = values.password;
          body.currentPassword = values.currentPassword;
        }
        const saved = await api.put<Partial<SessionUser>>(`/users/${user.id}`, body);
        if (values.password) {
          toast.success(t('profile.passwordChanged'));
          onClose();
          onPasswordChanged();
          return;
        }
        session.update({ name: saved?.name ?? body.name, defaultTheme: values.defaultTheme as 'light' | 'dark', defaultMenu: values.defaultMenu as 'open' | 'closed', language: values.language });
        setThemeMode(values.defaultTheme as 'light' | 'dark');
        if (isLanguage(values.language) && values.language !== i18n.language) await setLanguage(values.language);
        toast.success(t('common.saved'));
        helpers.resetForm();
        onClose();
      } catch (err) {
        toastError(err);
      }
    },
  });

  const upload = async (file: File | undefined) => {
    if (!file) return;
    if (!PICTURE_TYPES.split(',').includes(file.type) || file.size > PICTURE_MAX_BYTES) {
      toast.error(t('profile.pictureInvalid'), { toastId: 'profile-picture-invalid' });
      return;
    }
    setUploading(true);
    try {
      const form = new FormData();
      form.append('userId', String(user.id));
      form.append('typeArch', 'user');
      form.append('profileImage', file, file.name);
      const saved = await api.post<Partial<SessionUser>>(`/users/${user.id}/media-upload`, form);
      session.update({ profileImage: saved?.profileImage ?? null, profileImageUrl: saved?.profileImageUrl ?? null });
      toast.success(t('profile.pictureSaved'));
    } catch (err) {
      toastError(err);
    } finally {
      setUploading(false);
      if (fileInput.current) fileInput.current.value = '';
    }
  };

  type Field = 'name' | 'password' | 'currentPassword';
  const err = (f: Field) => (formik.touched[f] && formik.errors[f] ? t(formik.errors[f] as string) : undefined);
  const current = session.get().user ?? user;
  const picture = typeof current.profileImageUrl === 'string' ? current.profileImageUrl : null;
  return (
    <Modal open={open} title={t('profile.title')} onClose={onClose} closeLabel={t('common.close')}>
      <Form noValidate onSubmit={formik.handleSubmit}>
        <Picture>
          {picture ? <img src={picture} alt={t('profile.picture')} data-testid="profile-picture" /> : <span className="initial" aria-hidden="true">{(user.name.trim()[0] ?? '?').toUpperCase()}</span>}
          <input ref={fileInput} type="file" accept={PICTURE_TYPES} hidden onChange={(e) => void upload(e.target.files?.[0])} data-testid="profile-picture-input" />
          <Button variant="secondary" onClick={() => fileInput.current?.click()} disabled={uploading} data-testid="profile-picture-button">
            {t('profile.changePicture')}
          </Button>
        </Picture>
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
        {formik.values.password ? (
          <TextField
            label={t('profile.currentPassword')}
            name="currentPassword"
            type="password"
            autoComplete="current-password"
            value={formik.values.currentPassword}
            onChange={formik.handleChange}
            onBlur={formik.handleBlur}
            error={err('currentPassword')}
          />
        ) : null}
        <Row>
          <SelectField label={t('profile.theme')} name="defaultTheme" value={formik.values.defaultTheme} onChange={formik.handleChange} data-testid="profile-theme">
            <option value="light">{t('profile.themeLight')}</option>
            <option value="dark">{t('profile.themeDark')}</option>
          </SelectField>
          <SelectField label={t('profile.menu')} name="defaultMenu" value={formik.values.defaultMenu} onChange={formik.handleChange} data-testid="profile-menu">
            <option value="open">{t('profile.menuOpen')}</option>
            <option value="closed">{t('profile.menuClosed')}</option>
          </SelectField>
          <SelectField label={t('profile.language')} name="language" value={formik.values.language} onChange={formik.handleChange} data-testid="profile-language">
            {LANGUAGES.map((lng) => (
              <option key={lng} value={lng}>
                {t(`languages.${lng}`)}
              </option>
            ))}
          </SelectField>
        </Row>
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
