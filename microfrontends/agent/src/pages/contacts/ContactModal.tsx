import { useEffect, useState } from 'react';
import { FieldArray, FormikProvider, useFormik } from 'formik';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { toastError } from '@atendo/web-api';
import { Button, IconButton, Modal, Spinner, TextField } from '@atendo/web-ui';
import { CheckboxField, DialogActions, rules, useFieldProps, yup } from '@atendo/web-kit';
import { AgentIcon } from '../../lib/parts';
import { contactsKey, createContact, fetchContact, fetchTagOptions, syncContactTags, updateContact, type Contact } from './api';

/**
 * The contact form's rules (spec 2-tickets.md §5 "Contact form"): name required, 2 to 50 (Too Short!/Too
 * Long!/Required); number 8 to 50; email valid or empty; extra info fields named (1 to 100), values up to
 * 1,000 characters, at most 50 fields (the server's limits).
 */
export const contactSchema = yup.object({
  name: rules.name(),
  number: yup.string().trim().min(8, 'validation.tooShort').max(50, 'validation.tooLong').required('validation.required'),
  email: yup.string().trim().email('validation.invalidEmail').max(255, 'validation.tooLong'),
  disableBot: yup.boolean(),
  extraInfo: yup
    .array(yup.object({ name: yup.string().trim().max(100, 'validation.tooLong').required('validation.required'), value: yup.string().max(1000, 'validation.tooLong') }))
    .max(50),
});

const Section = styled.fieldset`
  border: none;
  margin: 0 0 ${(p) => p.theme.space(1)};
  padding: 0;
  legend { font-weight: ${(p) => p.theme.font.weight.medium}; margin-bottom: ${(p) => p.theme.space(1)}; }
`;

const ExtraRow = styled.div`
  display: grid;
  grid-template-columns: 1fr 1fr auto;
  gap: ${(p) => p.theme.space(1)};
  align-items: start;
`;

const TagChoices = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: 6px;
  button { border-radius: 999px; padding: 4px 12px; border: 2px solid transparent; color: #fff; cursor: pointer; text-shadow: 0 0 2px rgba(0, 0, 0, 0.45); opacity: 0.55; }
  button[aria-pressed='true'] { opacity: 1; border-color: ${(p) => p.theme.colors.text}; }
`;

/**
 * The add/edit dialog (spec §2 "add/edit modal", §3 "Contact"): name, number, email, the chatbot switch,
 * extra info fields (added and removed freely; saved as the full list) and the contact's tags (`POST
 * /tags/sync` after the contact is saved). Editing reads `GET /contacts/:id` first (extra info and tags). A
 * number shown masked (lgpdHideNumber) may be saved back unchanged: the server keeps the stored number.
 * Errors (ERR_DUPLICATED_CONTACT, ERR_VALIDATION…) are shown with their translated text.
 */
export function ContactModal({ contactId, onClose, onSaved }: { contactId: number | null; onClose: () => void; onSaved: (c: Contact) => void }) {
  const { t } = useTranslation('agent');
  const existing = useQuery({ queryKey: [...contactsKey, 'one', contactId], queryFn: ({ signal }) => fetchContact(contactId!, signal), enabled: contactId !== null, gcTime: 0 });
  const tagOptions = useQuery({ queryKey: [...contactsKey, 'tag-options'], queryFn: ({ signal }) => fetchTagOptions(signal), staleTime: 30_000 });
  const [tags, setTags] = useState<number[]>([]);
  const contact = existing.data;
  const formik = useFormik({
    enableReinitialize: true,
    initialValues: {
      name: contact?.name ?? '',
      number: contact?.number ?? '',
      email: contact?.email ?? '',
      disableBot: contact?.disableBot ?? false,
      extraInfo: (contact?.extraInfo ?? []).map((e) => ({ name: e.name, value: e.value })),
    },
    validationSchema: contactSchema,
    onSubmit: async (values) => {
      const body = { name: values.name.trim(), number: values.number.trim(), email: values.email.trim(), disableBot: values.disableBot, extraInfo: values.extraInfo.map((e) => ({ name: e.name.trim(), value: e.value })) };
      try {
        let saved = contact ? await updateContact(contact.id, body) : await createContact(body);
        const before = (contact?.tags ?? []).map((x) => x.id).sort().join(',');
        if ([...tags].sort().join(',') !== before) saved = await syncContactTags(saved.id, tags);
        onSaved(saved);
        toast.success(t('contacts.toasts.saved'));
        onClose();
      } catch (err) {
        toastError(err);
      }
    },
  });
  useEffect(() => {
    if (contact) setTags((contact.tags ?? []).map((x) => x.id));
  }, [contact]);
  useEffect(() => {
    if (existing.error) toastError(existing.error);
  }, [existing.error]);
  const field = useFieldProps(formik);
  const extraError = (i: number, key: 'name' | 'value') => {
    const errs = formik.errors.extraInfo as unknown as ({ name?: string; value?: string } | undefined)[] | undefined;
    const e = errs?.[i]?.[key];
    return formik.submitCount > 0 && e ? t(e, { ns: 'translation' }) : undefined;
  };

  return (
    <Modal open title={t(contactId ? 'contacts.form.editTitle' : 'contacts.form.addTitle')} onClose={onClose} closeLabel={t('common.close')} width={560}>
      {contactId !== null && existing.isPending ? (
        <Spinner size={32} label={t('common.loading')} />
      ) : contactId !== null && existing.isError ? (
        <p role="alert">{t('common.loadFailed')}</p>
      ) : (
        <FormikProvider value={formik}>
          <form onSubmit={formik.handleSubmit} noValidate data-testid="contact-form">
            <Section>
              <legend>{t('contacts.form.data')}</legend>
              <TextField label={t('contacts.form.name')} {...field('name')} maxLength={50} autoFocus data-testid="contact-name" />
              <TextField label={t('contacts.form.number')} {...field('number')} maxLength={50} helperText={t('contacts.form.numberHelp')} inputMode="tel" data-testid="contact-number" />
              <TextField label={t('contacts.form.email')} {...field('email')} type="email" maxLength={255} data-testid="contact-email" />
              <CheckboxField label={t('contacts.form.disableBot')} checked={formik.values.disableBot} onChange={(v) => void formik.setFieldValue('disableBot', v)} testId="contact-disable-bot" />
            </Section>
            <Section>
              <legend>{t('contacts.form.tags')}</legend>
              <TagChoices role="group" aria-label={t('contacts.form.tags')} data-testid="contact-tags">
                {(tagOptions.data ?? []).map((tag) => {
                  const on = tags.includes(tag.id);
                  return (
                    <button key={tag.id} type="button" aria-pressed={on} style={{ background: tag.color }} onClick={() => setTags((cur) => (on ? cur.filter((x) => x !== tag.id) : [...cur, tag.id]))}>
                      {tag.name}
                    </button>
                  );
                })}
              </TagChoices>
            </Section>
            <Section>
              <legend>{t('contacts.form.extraInfo')}</legend>
              <FieldArray name="extraInfo">
                {(helpers) => (
                  <>
                    {formik.values.extraInfo.map((info, i) => (
                      <ExtraRow key={i} data-testid={`contact-extra-${i}`}>
                        <TextField label={t('contacts.form.extraName')} name={`extraInfo.${i}.name`} value={info.name} onChange={formik.handleChange} maxLength={100} error={extraError(i, 'name')} />
                        <TextField label={t('contacts.form.extraValue')} name={`extraInfo.${i}.value`} value={info.value} onChange={formik.handleChange} maxLength={1000} error={extraError(i, 'value')} />
                        <IconButton label={t('contacts.form.removeExtra', { name: info.name || String(i + 1) })} tone="default" onClick={() => helpers.remove(i)} style={{ marginTop: 22 }}>
                          <AgentIcon name="trash" />
                        </IconButton>
                      </ExtraRow>
                    ))}
                    {formik.values.extraInfo.length < 50 ? (
                      <Button variant="text" onClick={() => helpers.push({ name: '', value: '' })} data-testid="contact-extra-add">
                        <AgentIcon name="plus" size={18} />
                        {t('contacts.form.addExtra')}
                      </Button>
                    ) : null}
                  </>
                )}
              </FieldArray>
            </Section>
            <DialogActions>
              <Button variant="text" onClick={onClose}>
                {t('common.cancel')}
              </Button>
              <Button type="submit" disabled={formik.isSubmitting} data-testid="contact-submit">
                {t(contactId ? 'contacts.form.save' : 'contacts.form.create')}
              </Button>
            </DialogActions>
          </form>
        </FormikProvider>
      )}
    </Modal>
  );
}
