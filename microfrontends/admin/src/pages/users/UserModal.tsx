import { useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useFormik } from 'formik';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import { session, toastError, useSessionUser } from '@atendo/web-api';
import { Button, Modal, SelectField, TextField } from '@atendo/web-ui';
import { rules, useFieldProps, yup } from '@atendo/web-kit';
import { fetchConnections, fetchQueues, sharedKeys } from '../../lib/api';
import { CheckboxField, ChipToggles, ErrorLine, FormGrid, SectionTitle, TextAreaField } from '../../lib/fields';
import { DialogActions } from '../../lib/parts';
import { acceptedImage, createUser, IMAGE_ACCEPT, updateUser, uploadUserImage, type AdminUser, type UserInput } from './api';

/** The form's values (selects hold strings). */
interface Values {
  name: string;
  email: string;
  password: string;
  /** Asked only when the signed-in user edits itself and types a new password. */
  currentPassword: string;
  profile: UserInput['profile'];
  whatsappId: string;
  /** The user's WhatsApp number as typed (digits kept on save). */
  wpp: string;
  startWork: string;
  endWork: string;
  farewellMessage: string;
  allTicket: UserInput['allTicket'];
  allowGroup: boolean;
  defaultTheme: UserInput['defaultTheme'];
  defaultMenu: UserInput['defaultMenu'];
  language: string;
}

/**
 * The user form's rules (spec 2-tickets.md §5 "User"): name 2-50, valid e-mail, password 5-50 (required on
 * create), HH:mm hours; editing oneself, a new password needs the current one.
 */
export const userSchema = (creating: boolean, self = false) =>
  yup.object({
    name: rules.name(),
    email: rules.email(),
    password: rules.password(creating),
    currentPassword: self ? yup.string().when('password', { is: (v: string | undefined) => Boolean(v), then: (s) => s.required('validation.required') }) : yup.string(),
    // Optional; when given, 10 to 15 digits (country and area code), whatever the punctuation.
    wpp: yup
      .string()
      .test('wpp', 'validation.invalidPhone', (v) => !v?.trim() || (/^[+0-9 ().-]+$/.test(v) && /^\d{10,15}$/.test(v.replace(/\D/g, '')))),
    startWork: rules.time(),
    endWork: rules.time(),
  });

const LANGUAGES = ['pt-BR', 'en', 'es', 'tr'] as const;

function initialValues(user: AdminUser | null): Values {
  return {
    name: user?.name ?? '',
    email: user?.email ?? '',
    password: '',
    currentPassword: '',
    profile: (['admin', 'user', 'supervisor'].includes(String(user?.profile)) ? user?.profile : 'user') as Values['profile'],
    whatsappId: user?.whatsappId ? String(user.whatsappId) : '',
    wpp: user?.wpp ?? '',
    startWork: user?.startWork || '00:00',
    endWork: user?.endWork || '23:59',
    farewellMessage: user?.farewellMessage ?? '',
    allTicket: user?.allTicket === 'enable' ? 'enable' : 'disable',
    allowGroup: Boolean(user?.allowGroup),
    defaultTheme: user?.defaultTheme === 'dark' ? 'dark' : 'light',
    defaultMenu: user?.defaultMenu === 'open' ? 'open' : 'closed',
    language: user?.language ?? '',
  };
}

/**
 * Add/edit a user (spec 2-tickets.md §3 "User", §5; 1-platform.md §5): name, e-mail, password (optional on
 * edit), profile, queues, default connection, the user's WhatsApp number (where password reset codes go), work hours (time inputs, 10-minute steps, default 00:00 to
 * 23:59), farewell message, see all tickets, allow groups, theme, menu, language, and a profile image
 * uploaded after the save. Validation messages come from the shared rules; server errors (duplicate e-mail,
 * the plan's user limit…) show as the error toast; the submit button is disabled while saving.
 */
export function UserModal({ user, onClose, onSaved }: { user: AdminUser | null; onClose: () => void; onSaved: (user: AdminUser) => void }) {
  const { t } = useTranslation('admin');
  const [current, setCurrent] = useState<AdminUser | null>(user);
  const [queueIds, setQueueIds] = useState<number[]>((user?.queues ?? []).map((q) => q.id));
  const [image, setImage] = useState<File | null>(null);
  const [imageError, setImageError] = useState<string | null>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const queues = useQuery({ queryKey: sharedKeys.queues, queryFn: ({ signal }) => fetchQueues(signal) });
  const connections = useQuery({ queryKey: sharedKeys.connections, queryFn: ({ signal }) => fetchConnections(signal) });
  const creating = !current;
  const me = useSessionUser();
  const self = Boolean(current && me && current.id === me.id);

  const formik = useFormik<Values>({
    initialValues: initialValues(user),
    validationSchema: userSchema(creating, self),
    onSubmit: async (values) => {
      const body: UserInput = {
        name: values.name.trim(),
        email: values.email.trim(),
        profile: values.profile,
        queueIds,
        whatsappId: values.whatsappId ? Number(values.whatsappId) : null,
        wpp: values.wpp.replace(/\D/g, '') || null,
        startWork: values.startWork,
        endWork: values.endWork,
        farewellMessage: values.farewellMessage,
        allTicket: values.allTicket,
        allowGroup: values.allowGroup,
        defaultTheme: values.defaultTheme,
        defaultMenu: values.defaultMenu,
        language: values.language || null,
      };
      if (values.password) {
        body.password = values.password;
        // Changing one's own password needs the current one (the API answers 400 ERR_WRONG_CURRENT_PASSWORD).
        if (self) body.currentPassword = values.currentPassword;
      }
      let saved: AdminUser;
      try {
        saved = current ? await updateUser(current.id, body) : await createUser(body);
      } catch (err) {
        toastError(err);
        return;
      }
      setCurrent(saved);
      onSaved(saved);
      if (image) {
        try {
          saved = await uploadUserImage(saved.id, image);
          onSaved(saved);
        } catch (err) {
          // The user is stored: the dialog goes on editing it, so a retry does not create a second one.
          toastError(err);
          return;
        }
      }
      toast.success(t('users.toasts.saved'));
      onClose();
      if (self && values.password) {
        // A new password ends every session of the user on the server: sign in again.
        toast.info(t('users.toasts.signInAgain'));
        session.signOut();
      }
    },
  });
  const field = useFieldProps(formik);

  const pickImage = (file: File | undefined) => {
    if (!file) return;
    if (!acceptedImage(file)) {
      setImage(null);
      setImageError(t('users.form.badImage'));
      if (fileRef.current) fileRef.current.value = '';
      return;
    }
    setImageError(null);
    setImage(file);
  };

  return (
    <Modal open title={t(creating ? 'users.form.addTitle' : 'users.form.editTitle')} onClose={onClose} closeLabel={t('common.close')} width={720}>
      <form onSubmit={formik.handleSubmit} noValidate data-testid="user-form">
        <FormGrid>
          <TextField label={t('users.form.name')} autoComplete="off" {...field('name')} data-testid="user-name" />
          <TextField label={t('users.form.email')} type="email" autoComplete="off" {...field('email')} data-testid="user-email" />
          <TextField
            label={t('users.form.password')}
            type="password"
            autoComplete="new-password"
            helperText={creating ? undefined : t('users.form.passwordHelp')}
            {...field('password')}
            data-testid="user-password"
          />
          {self && formik.values.password ? (
            <TextField label={t('users.form.currentPassword')} type="password" autoComplete="current-password" {...field('currentPassword')} data-testid="user-current-password" />
          ) : null}
          <SelectField label={t('users.form.profile')} {...field('profile')} data-testid="user-profile">
            <option value="user">{t('users.profiles.user')}</option>
            <option value="admin">{t('users.profiles.admin')}</option>
            <option value="supervisor">{t('users.profiles.supervisor')}</option>
          </SelectField>
        </FormGrid>
        <ChipToggles
          label={t('users.form.queues')}
          items={queues.data ?? []}
          selected={queueIds}
          onChange={setQueueIds}
          empty={<small>{queues.isPending ? t('common.loading') : t('users.form.noQueues')}</small>}
        />
        <FormGrid>
          <SelectField label={t('users.form.connection')} {...field('whatsappId')} data-testid="user-connection">
            <option value="">{t('users.form.noConnection')}</option>
            {(connections.data ?? []).map((c) => (
              <option key={c.id} value={String(c.id)}>
                {c.name}
              </option>
            ))}
          </SelectField>
          <TextField label={t('users.form.wpp')} type="tel" inputMode="tel" autoComplete="off" helperText={t('users.form.wppHelp')} {...field('wpp')} data-testid="user-wpp" />
          <SelectField label={t('users.form.language')} {...field('language')}>
            <option value="">{t('users.form.languageDefault')}</option>
            {LANGUAGES.map((l) => (
              <option key={l} value={l}>
                {t(`users.languages.${l}`)}
              </option>
            ))}
          </SelectField>
          <TextField label={t('users.form.startWork')} type="time" step={600} {...field('startWork')} data-testid="user-start-work" />
          <TextField label={t('users.form.endWork')} type="time" step={600} {...field('endWork')} data-testid="user-end-work" />
          <SelectField label={t('users.form.allTicket')} {...field('allTicket')}>
            <option value="disable">{t('users.form.disabled')}</option>
            <option value="enable">{t('users.form.enabled')}</option>
          </SelectField>
          <SelectField label={t('users.form.defaultTheme')} {...field('defaultTheme')}>
            <option value="light">{t('users.form.light')}</option>
            <option value="dark">{t('users.form.dark')}</option>
          </SelectField>
          <SelectField label={t('users.form.defaultMenu')} {...field('defaultMenu')}>
            <option value="closed">{t('users.form.closed')}</option>
            <option value="open">{t('users.form.open')}</option>
          </SelectField>
          <CheckboxField label={t('users.form.allowGroup')} checked={formik.values.allowGroup} onChange={(v) => void formik.setFieldValue('allowGroup', v)} />
        </FormGrid>
        <TextAreaField label={t('users.form.farewellMessage')} rows={2} {...field('farewellMessage')} />
        <SectionTitle>{t('users.form.image')}</SectionTitle>
        <input ref={fileRef} type="file" accept={IMAGE_ACCEPT} aria-label={t('users.form.image')} onChange={(e) => pickImage(e.target.files?.[0])} data-testid="user-image" />
        {imageError ? (
          <ErrorLine role="alert">{imageError}</ErrorLine>
        ) : (
          <small>{t('users.form.imageHelp')}</small>
        )}
        <DialogActions>
          <Button variant="text" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" disabled={formik.isSubmitting} data-testid="user-submit">
            {t(creating ? 'users.form.add' : 'users.form.save')}
          </Button>
        </DialogActions>
      </form>
    </Modal>
  );
}
