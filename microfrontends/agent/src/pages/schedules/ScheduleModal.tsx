import { useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useFormik } from 'formik';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { toastError } from '@atendo/web-api';
import { Button, Modal, TextField } from '@atendo/web-ui';
import { DialogActions, TextAreaField, useDebounced, useFieldProps, yup } from '@atendo/web-kit';
import { VariablePicker } from '../../lib/variables';
import { BODY_MIN, createSchedule, localInput, searchContacts, sendAtOf, updateSchedule, type ContactOption, type Schedule } from './api';

/** The schedule form's rules (spec 2-tickets.md §5): body at least 5 ('Mensagem muito curta'), contact and time required. */
export const scheduleSchema = yup.object({
  body: yup.string().trim().min(BODY_MIN, 'agent:schedules.form.tooShort').max(4096, 'validation.tooLong').required('validation.required'),
  contactId: yup.number().nullable().required('validation.required'),
  sendAt: yup.string().required('validation.required').test('valid', 'agent:schedules.form.badTime', (v) => !v || Boolean(sendAtOf(v))),
});

const Results = styled.ul`
  list-style: none;
  margin: -12px 0 ${(p) => p.theme.space(1)};
  padding: 4px 0;
  max-height: 200px;
  overflow: auto;
  border: 1px solid ${(p) => p.theme.colors.border};
  border-radius: ${(p) => p.theme.radius.md};
  background: ${(p) => p.theme.colors.surface};
  li button { width: 100%; padding: 8px 12px; border: none; background: transparent; color: ${(p) => p.theme.colors.text}; text-align: left; cursor: pointer; }
  li button:hover, li button:focus-visible { background: ${(p) => p.theme.colors.surfaceAlt}; }
  li small { color: ${(p) => p.theme.colors.textMuted}; margin-left: 8px; }
  li.empty { padding: 8px 12px; color: ${(p) => p.theme.colors.textMuted}; }
`;

/**
 * The add/edit dialog: the contact (a search by name or number over `GET /contacts/list`, debounced), the
 * message with the variable picker, the send time (datetime-local, default one hour from now; sent as ISO
 * with the browser's offset so the time shown is the time sent). A sent schedule opens read-only: no
 * submit button (spec 2-tickets.md §4 "Schedule").
 */
export function ScheduleModal({ record, contact, onClose, onSaved }: { record: Schedule | null; contact?: ContactOption; onClose: () => void; onSaved: (s: Schedule) => void }) {
  const { t } = useTranslation('agent');
  const sent = record?.status === 'ENVIADA';
  const initialContact = record?.contact ? { id: record.contact.id, name: record.contact.name, number: '' } : (contact ?? null);
  const [chosen, setChosen] = useState<ContactOption | null>(initialContact);
  const [term, setTerm] = useState('');
  const [searching, setSearching] = useState(false);
  const bodyBox = useRef<HTMLTextAreaElement>(null);
  const debounced = useDebounced(term.trim(), 300);
  const results = useQuery({
    queryKey: ['agent', 'schedule-contacts', debounced],
    queryFn: ({ signal }) => searchContacts(debounced, signal),
    enabled: searching && !sent && debounced.length > 0,
    staleTime: 30_000,
  });
  const formik = useFormik({
    initialValues: { body: record?.body ?? '', contactId: initialContact?.id ?? null, sendAt: localInput(record?.sendAt) } as { body: string; contactId: number | null; sendAt: string },
    validationSchema: scheduleSchema,
    onSubmit: async (values) => {
      const body = { body: values.body.trim(), contactId: Number(values.contactId), sendAt: sendAtOf(values.sendAt) as string };
      try {
        const saved = record ? await updateSchedule(record.id, body) : await createSchedule(body);
        onSaved(saved);
        toast.success(t('schedules.toasts.saved'));
        onClose();
      } catch (err) {
        toastError(err);
      }
    },
  });
  const field = useFieldProps(formik);
  const choose = (c: ContactOption) => {
    setChosen(c);
    setSearching(false);
    setTerm('');
    void formik.setFieldValue('contactId', c.id);
  };
  const contactError = field('contactId').error;

  return (
    <Modal open title={t(record ? (sent ? 'schedules.viewTitle' : 'schedules.editTitle') : 'schedules.addTitle')} onClose={onClose} closeLabel={t('common.close')} width={560}>
      <form onSubmit={formik.handleSubmit} noValidate data-testid="schedule-form">
        <TextField
          label={t('schedules.form.contact')}
          value={searching ? term : (chosen ? chosen.name : '')}
          placeholder={t('schedules.form.contactSearch')}
          onChange={(e) => {
            setSearching(true);
            setTerm(e.target.value);
          }}
          readOnly={sent}
          error={contactError}
          role="combobox"
          aria-expanded={searching}
          aria-autocomplete="list"
          data-testid="schedule-contact"
        />
        {searching && !sent ? (
          <Results role="listbox" aria-label={t('schedules.form.contact')} data-testid="schedule-contact-results">
            {results.isPending && results.fetchStatus !== 'idle' ? <li className="empty">{t('common.loading')}</li> : null}
            {results.isError ? <li className="empty">{t('common.loadFailed')}</li> : null}
            {results.data && results.data.length === 0 ? <li className="empty">{t('schedules.form.noContacts')}</li> : null}
            {(results.data ?? []).slice(0, 20).map((c) => (
              <li key={c.id} role="option" aria-selected={chosen?.id === c.id}>
                <button type="button" onMouseDown={(e) => e.preventDefault()} onClick={() => choose(c)} data-testid={`schedule-contact-${c.id}`}>
                  {c.name}
                  <small>{c.number}</small>
                </button>
              </li>
            ))}
          </Results>
        ) : null}
        <TextAreaField ref={bodyBox} label={t('schedules.form.body')} rows={5} {...field('body')} readOnly={sent} data-testid="schedule-body" />
        {sent ? null : <VariablePicker target={bodyBox} value={formik.values.body} onInsert={(text) => void formik.setFieldValue('body', text)} />}
        <TextField label={t('schedules.form.sendAt')} type="datetime-local" {...field('sendAt')} readOnly={sent} data-testid="schedule-send-at" />
        <DialogActions>
          <Button variant="text" onClick={onClose}>
            {t(sent ? 'common.close' : 'common.cancel')}
          </Button>
          {sent ? null : (
            <Button type="submit" disabled={formik.isSubmitting} data-testid="schedule-submit">
              {t(record ? 'common.save' : 'common.add')}
            </Button>
          )}
        </DialogActions>
      </form>
    </Modal>
  );
}
