import { useId, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { toastError } from '@atendo/web-api';
import { Button, FieldFrame, IconButton, Modal, SelectField, TextField } from '@atendo/web-ui';
import {
  acceptedMedia,
  createAnnouncement,
  DEFAULT_PRIORITY,
  MEDIA_ACCEPT,
  PRIORITIES,
  removeAnnouncementMedia,
  updateAnnouncement,
  uploadAnnouncementMedia,
  type Announcement,
  type AnnouncementInput,
  type Priority,
} from './api';
import { AdminIcon, DialogActions } from '../../lib/parts';

/** The i18n key of a priority (1 high, 2 medium, 3 low). */
export const priorityKey = (p: number) => (p === 1 ? 'high' : p === 2 ? 'medium' : 'low');

const Form = styled.form`
  display: flex;
  flex-direction: column;
  gap: ${(p) => p.theme.space(1)};
`;

const Row = styled.div`
  display: flex;
  gap: ${(p) => p.theme.space(2)};
`;

const TextArea = styled.textarea`
  flex: 1;
  min-width: 0;
  min-height: 120px;
  padding: 10px 12px;
  border: none;
  outline: none;
  resize: vertical;
  background: transparent;
  color: inherit;
  font: inherit;
  font-size: ${(p) => p.theme.font.size.md};
`;

const Attachment = styled.div`
  display: flex;
  align-items: center;
  gap: ${(p) => p.theme.space(1)};
  width: 100%;
  min-height: 40px;
  padding: 0 4px 0 12px;
  span { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  a { color: ${(p) => p.theme.colors.primary}; }
`;

interface Values {
  title: string;
  text: string;
  priority: Priority;
  status: boolean;
}

type Errors = Partial<Record<'title' | 'text' | 'file', string>>;

function initial(a: Announcement | null | undefined): Values {
  const priority = PRIORITIES.includes(a?.priority as Priority) ? (a!.priority as Priority) : DEFAULT_PRIORITY;
  return { title: a?.title ?? '', text: a?.text ?? '', priority, status: a?.status ?? true };
}

export interface AnnouncementModalProps {
  /** The announcement to edit; none: add a new one. */
  announcement?: Announcement | null;
  onClose: () => void;
  /** Every stored change (save, upload, attachment removal) with the API's answer. */
  onSaved: (record: Announcement) => void;
}

/**
 * The add/edit announcement dialog (spec 3-campaigns-and-tools.md §2, §4, §5): title and text required
 * ("Obrigatório"), priority 1 high / 2 medium / 3 low (default 3), status active or inactive, and an image
 * attachment (.png, .jpg, .jpeg) uploaded after the announcement is saved. Editing one with an image offers
 * to remove it (at once, `DELETE /announcements/:id/media-upload`). Render it only while open (mounted fresh,
 * so the form is reset every time it opens).
 */
export function AnnouncementModal({ announcement, onClose, onSaved }: AnnouncementModalProps) {
  const { t } = useTranslation('admin');
  const [values, setValues] = useState<Values>(() => initial(announcement));
  const [errors, setErrors] = useState<Errors>({});
  const [submitted, setSubmitted] = useState(false);
  const [file, setFile] = useState<File | null>(null);
  const [current, setCurrent] = useState<Announcement | null>(announcement ?? null);
  const [busy, setBusy] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const textId = useId();
  const fileId = useId();
  // Once stored (e.g. created, then its upload failed), the dialog edits that announcement.
  const editing = Boolean(current);

  const validate = (v: Values, f: File | null): Errors => {
    const out: Errors = {};
    if (!v.title.trim()) out.title = t('announcements.form.required');
    if (!v.text.trim()) out.text = t('announcements.form.required');
    if (f && !acceptedMedia(f.name)) out.file = t('announcements.form.badFile');
    return out;
  };

  const change = (patch: Partial<Values>) => {
    const next = { ...values, ...patch };
    setValues(next);
    if (submitted) setErrors(validate(next, file));
  };

  const pickFile = (f: File | null) => {
    setFile(f);
    setErrors((e) => ({ ...e, file: f && !acceptedMedia(f.name) ? t('announcements.form.badFile') : undefined }));
    if (fileInput.current && !f) fileInput.current.value = '';
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    const found = validate(values, file);
    setErrors(found);
    if (Object.values(found).some(Boolean) || busy) return;
    setBusy(true);
    const body: AnnouncementInput = { title: values.title.trim(), text: values.text.trim(), priority: values.priority, status: values.status };
    let saved: Announcement;
    try {
      saved = current ? await updateAnnouncement(current.id, body) : await createAnnouncement(body);
    } catch (err) {
      toastError(err);
      setBusy(false);
      return;
    }
    setCurrent(saved);
    onSaved(saved);
    if (file) {
      try {
        const withMedia = await uploadAnnouncementMedia(saved.id, file);
        setCurrent(withMedia);
        pickFile(null);
        onSaved(withMedia);
      } catch (err) {
        // The announcement is stored; only its image failed: say so and keep the dialog on it (edit mode).
        toastError(err);
        setBusy(false);
        return;
      }
    }
    toast.success(t('announcements.toasts.saved'));
    setBusy(false);
    onClose();
  };

  const removeMedia = async () => {
    if (!current) return;
    setBusy(true);
    try {
      const updated = await removeAnnouncementMedia(current.id);
      setCurrent(updated);
      onSaved(updated);
      toast.success(t('announcements.toasts.mediaRemoved'));
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal open title={t(editing ? 'announcements.form.editTitle' : 'announcements.form.addTitle')} onClose={onClose} closeLabel={t('common.close')}>
      <Form onSubmit={submit} noValidate data-testid="announcement-form">
        <TextField label={t('announcements.form.title')} name="title" value={values.title} maxLength={200} error={errors.title} onChange={(e) => change({ title: e.target.value })} />
        <FieldFrame label={t('announcements.form.text')} controlId={textId} error={errors.text}>
          <TextArea
            id={textId}
            name="text"
            value={values.text}
            maxLength={10000}
            aria-invalid={errors.text ? true : undefined}
            aria-describedby={`${textId}-msg`}
            onChange={(e) => change({ text: e.target.value })}
          />
        </FieldFrame>
        <Row>
          <SelectField label={t('announcements.form.priority')} name="priority" value={String(values.priority)} onChange={(e) => change({ priority: Number(e.target.value) as Priority })}>
            {PRIORITIES.map((p) => (
              <option key={p} value={p}>
                {t(`announcements.priority.${priorityKey(p)}`)}
              </option>
            ))}
          </SelectField>
          <SelectField label={t('announcements.form.status')} name="status" value={values.status ? 'true' : 'false'} onChange={(e) => change({ status: e.target.value === 'true' })}>
            <option value="true">{t('announcements.status.active')}</option>
            <option value="false">{t('announcements.status.inactive')}</option>
          </SelectField>
        </Row>
        <FieldFrame label={t('announcements.form.attachment')} controlId={fileId} error={errors.file} helperText={t('announcements.form.attachmentHelp')}>
          <input
            ref={fileInput}
            id={fileId}
            type="file"
            accept={MEDIA_ACCEPT}
            hidden
            data-testid="announcement-file"
            onChange={(e) => pickFile(e.target.files?.[0] ?? null)}
          />
          <Attachment>
            {file ? (
              <>
                <span data-testid="announcement-file-name">{file.name}</span>
                <IconButton label={t('announcements.form.clearAttachment')} tone="default" onClick={() => pickFile(null)} disabled={busy}>
                  <AdminIcon name="trash" />
                </IconButton>
              </>
            ) : current?.mediaName ? (
              <>
                <span data-testid="announcement-current-media">
                  {current.mediaPath ? (
                    <a href={current.mediaPath} target="_blank" rel="noopener noreferrer">
                      {current.mediaName}
                    </a>
                  ) : (
                    current.mediaName
                  )}
                </span>
                <IconButton label={t('announcements.form.removeAttachment')} tone="default" onClick={() => void removeMedia()} disabled={busy}>
                  <AdminIcon name="trash" />
                </IconButton>
              </>
            ) : (
              <span />
            )}
            <Button variant="text" onClick={() => fileInput.current?.click()} disabled={busy}>
              <AdminIcon name="attach" size={18} />
              {t('announcements.form.attach')}
            </Button>
          </Attachment>
        </FieldFrame>
        <DialogActions>
          <Button variant="text" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" disabled={busy} data-testid="announcement-submit">
            {t(editing ? 'announcements.form.save' : 'announcements.form.add')}
          </Button>
        </DialogActions>
      </Form>
    </Modal>
  );
}
