import { useRef, useState } from 'react';
import { useFormik } from 'formik';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { toastError, useSessionUser } from '@atendo/web-api';
import { Button, IconButton, Modal, TextField } from '@atendo/web-ui';
import { CheckboxField, DialogActions, TextAreaField, useFieldProps, yup } from '@atendo/web-kit';
import { AgentIcon } from '../../lib/parts';
import { VariablePicker } from '../../lib/variables';
import { createQuickMessage, deleteQuickMessageMedia, isManager, MEDIA_ACCEPT, updateQuickMessage, uploadQuickMessageMedia, type QuickMessage } from './api';

/** The quick message form's rules (spec 2-tickets.md §5: shortcode required, 'Obrigatório'). */
export const quickMessageSchema = yup.object({
  shortcode: yup.string().trim().max(50, 'validation.tooLong').required('validation.required'),
  message: yup.string().max(4096, 'validation.tooLong'),
  geral: yup.boolean(),
});

const Attachment = styled.div`
  display: flex;
  align-items: center;
  gap: ${(p) => p.theme.space(1)};
  min-height: 40px;
  margin-bottom: ${(p) => p.theme.space(1)};
  span { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
`;

/**
 * The add/edit dialog: shortcode, message with the variable picker, the general flag (admins and
 * supervisors only), and one media attachment: chosen here, uploaded after the record is saved
 * (`POST /quick-messages/{id}/media-upload`), or removed at once when it was already stored.
 */
export function QuickMessageModal({ record, onClose, onSaved }: { record: QuickMessage | null; onClose: () => void; onSaved: (q: QuickMessage) => void }) {
  const { t } = useTranslation('agent');
  const me = useSessionUser();
  const manager = isManager(me);
  const [current, setCurrent] = useState<QuickMessage | null>(record);
  const [file, setFile] = useState<File | null>(null);
  const [removing, setRemoving] = useState(false);
  const messageBox = useRef<HTMLTextAreaElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const formik = useFormik({
    initialValues: { shortcode: record?.shortcode ?? '', message: record?.message ?? '', geral: record?.geral ?? false },
    validationSchema: quickMessageSchema,
    onSubmit: async (values) => {
      const body = { shortcode: values.shortcode.trim(), message: values.message, ...(manager ? { geral: values.geral } : {}) };
      try {
        let saved = current ? await updateQuickMessage(current.id, body) : await createQuickMessage(body);
        setCurrent(saved);
        if (file) {
          saved = await uploadQuickMessageMedia(saved.id, file);
          setFile(null);
        }
        onSaved(saved);
        toast.success(t('quickMessages.toasts.saved'));
        onClose();
      } catch (err) {
        toastError(err);
      }
    },
  });
  const field = useFieldProps(formik);

  const removeMedia = async () => {
    if (file) {
      setFile(null);
      if (fileInput.current) fileInput.current.value = '';
      return;
    }
    if (!current?.mediaPath || removing) return;
    setRemoving(true);
    try {
      const saved = await deleteQuickMessageMedia(current.id);
      setCurrent(saved);
      onSaved(saved);
      toast.success(t('quickMessages.toasts.mediaDeleted'));
    } catch (err) {
      toastError(err);
    } finally {
      setRemoving(false);
    }
  };

  const mediaName = file?.name ?? (current?.mediaPath ? current.mediaName || t('quickMessages.form.media') : null);
  return (
    <Modal open title={t(record ? 'quickMessages.editTitle' : 'quickMessages.addTitle')} onClose={onClose} closeLabel={t('common.close')} width={560}>
      <form onSubmit={formik.handleSubmit} noValidate data-testid="quick-message-form">
        <TextField label={t('quickMessages.form.shortcode')} {...field('shortcode')} maxLength={50} data-testid="quick-message-shortcode" />
        <TextAreaField ref={messageBox} label={t('quickMessages.form.message')} rows={5} {...field('message')} data-testid="quick-message-message" />
        <VariablePicker target={messageBox} value={formik.values.message} onInsert={(text) => void formik.setFieldValue('message', text)} />
        {manager ? <CheckboxField label={t('quickMessages.form.geral')} checked={formik.values.geral} onChange={(v) => void formik.setFieldValue('geral', v)} testId="quick-message-geral" /> : null}
        <input ref={fileInput} type="file" accept={MEDIA_ACCEPT} hidden onChange={(e) => setFile(e.target.files?.[0] ?? null)} data-testid="quick-message-file" />
        {mediaName ? (
          <Attachment data-testid="quick-message-media">
            <AgentIcon name="attach" />
            <span>{mediaName}</span>
            <IconButton label={t('quickMessages.form.removeMedia')} tone="default" onClick={() => void removeMedia()} disabled={removing} data-testid="quick-message-media-delete">
              <AgentIcon name="trash" />
            </IconButton>
          </Attachment>
        ) : null}
        <DialogActions>
          <Button variant="secondary" onClick={() => fileInput.current?.click()} data-testid="quick-message-attach">
            <AgentIcon name="attach" size={18} />
            {t(mediaName ? 'quickMessages.form.replaceMedia' : 'quickMessages.form.attach')}
          </Button>
          <span style={{ flex: 1 }} />
          <Button variant="text" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" disabled={formik.isSubmitting} data-testid="quick-message-submit">
            {t(record ? 'common.save' : 'common.add')}
          </Button>
        </DialogActions>
      </form>
    </Modal>
  );
}
