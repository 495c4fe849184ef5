import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useFormik } from 'formik';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import { toastError } from '@atendo/web-api';
import { Button, IconButton, Modal, TextField } from '@atendo/web-ui';
import { applyArrayChange, DataTable, ListFrame, ListHeader, ListStatus, TableCard, useErrorToast, useFieldProps, yup, type ListChange } from '@atendo/web-kit';
import { TextAreaField } from '../../lib/fields';
import { AdminIcon, ConfirmDialog, DialogActions } from '../../lib/parts';
import { createHelp, deleteHelp, fetchHelps, superKeys, updateHelp, type Help, type HelpInput } from './superApi';

/**
 * Helps admin (super users; spec 1-platform.md §2 "Plans admin and helps admin", §3 "Help"; plugins/helps):
 * a table of title, video code and description, add/edit dialog (title required; video code; description;
 * optional link), delete confirmation. Help entries are platform-wide and the plugin pushes no events: the
 * list follows this screen's writes.
 */
export function HelpsTab() {
  const { t } = useTranslation('admin');
  const client = useQueryClient();
  const [editing, setEditing] = useState<{ help: Help | null } | null>(null);
  const [deleting, setDeleting] = useState<Help | null>(null);
  const [busy, setBusy] = useState(false);
  const query = useQuery({ queryKey: superKeys.helps, queryFn: ({ signal }) => fetchHelps(signal) });
  useErrorToast(query.error);
  const apply = (change: ListChange<Help>) => client.setQueryData<Help[]>(superKeys.helps, (old) => applyArrayChange(old, change)?.sort((a, b) => a.title.localeCompare(b.title)));

  const confirmDelete = async () => {
    if (!deleting || busy) return;
    setBusy(true);
    try {
      await deleteHelp(deleting.id);
      apply({ type: 'remove', id: deleting.id });
      toast.success(t('common.saved'));
      setDeleting(null);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  const rows = query.data ?? [];
  return (
    <ListFrame data-testid="helps-tab">
      <ListHeader title={t('settings.helps.title')} count={query.data ? t('settings.helps.count', { count: rows.length }) : undefined}>
        <Button onClick={() => setEditing({ help: null })} data-testid="help-add">
          <AdminIcon name="plus" size={18} />
          {t('settings.helps.add')}
        </Button>
      </ListHeader>
      <TableCard>
        {query.isPending ? null : (
          <DataTable>
            <thead>
              <tr>
                <th scope="col" className="start">{t('settings.helps.columns.title')}</th>
                <th scope="col">{t('settings.helps.columns.video')}</th>
                <th scope="col" className="start">{t('settings.helps.columns.description')}</th>
                <th scope="col">{t('settings.helps.columns.actions')}</th>
              </tr>
            </thead>
            <tbody data-testid="helps-rows">
              {rows.map((h) => (
                <tr key={h.id} data-testid={`help-row-${h.id}`}>
                  <td className="start">{h.title}</td>
                  <td>{h.video || '–'}</td>
                  <td className="start">{h.description.length > 120 ? `${h.description.slice(0, 120)}…` : h.description}</td>
                  <td className="actions">
                    <IconButton label={t('settings.helps.edit', { name: h.title })} tone="default" onClick={() => setEditing({ help: h })}>
                      <AdminIcon name="edit" />
                    </IconButton>
                    <IconButton label={t('settings.helps.delete', { name: h.title })} tone="default" onClick={() => setDeleting(h)}>
                      <AdminIcon name="trash" />
                    </IconButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </DataTable>
        )}
        <ListStatus
          loading={query.isPending}
          empty={!query.isPending && rows.length === 0}
          failed={query.isError}
          onRetry={() => void query.refetch()}
          texts={{ loading: t('common.loading'), empty: query.isError ? t('common.loadFailed') : t('settings.helps.empty'), retry: t('common.retry') }}
          emptyIcon="help"
          testId="helps"
        />
      </TableCard>
      {editing ? <HelpModal help={editing.help} onClose={() => setEditing(null)} onSaved={(h) => apply({ type: 'upsert', record: h })} /> : null}
      <ConfirmDialog
        open={Boolean(deleting)}
        title={t('settings.helps.confirmTitle', { name: deleting?.title ?? '' })}
        message={t('settings.helps.confirmMessage')}
        confirmLabel={t('settings.helps.confirm')}
        busy={busy}
        onConfirm={() => void confirmDelete()}
        onClose={() => setDeleting(null)}
      />
    </ListFrame>
  );
}

/** The help form's rules (plugins/helps): title 1..200, video code up to 200, description up to 5,000, link an http(s) URL. */
export const helpSchema = yup.object({
  title: yup.string().trim().max(200, 'validation.tooLong').required('validation.required'),
  video: yup.string().trim().max(200, 'validation.tooLong'),
  description: yup.string().max(5000, 'validation.tooLong'),
  link: yup.string().trim().max(500, 'validation.tooLong').matches(/^(https?:\/\/\S+)?$/i, 'admin:settings.helps.errors.link'),
});

function HelpModal({ help, onClose, onSaved }: { help: Help | null; onClose: () => void; onSaved: (h: Help) => void }) {
  const { t } = useTranslation('admin');
  const creating = !help;
  const formik = useFormik({
    initialValues: { title: help?.title ?? '', video: help?.video ?? '', description: help?.description ?? '', link: help?.link ?? '' },
    validationSchema: helpSchema,
    onSubmit: async (v) => {
      const body: HelpInput = { title: v.title.trim(), video: v.video.trim(), description: v.description, link: v.link.trim() || null };
      try {
        const saved = help ? await updateHelp(help.id, body) : await createHelp(body);
        onSaved(saved);
        toast.success(t('common.saved'));
        onClose();
      } catch (err) {
        toastError(err);
      }
    },
  });
  const field = useFieldProps(formik);
  return (
    <Modal open title={t(creating ? 'settings.helps.addTitle' : 'settings.helps.editTitle')} onClose={onClose} closeLabel={t('common.close')} width={600}>
      <form onSubmit={formik.handleSubmit} noValidate data-testid="help-form">
        <TextField label={t('settings.helps.form.title')} {...field('title')} data-testid="help-title" />
        <TextField label={t('settings.helps.form.video')} helperText={t('settings.helps.form.videoHelp')} {...field('video')} data-testid="help-video" />
        <TextAreaField label={t('settings.helps.form.description')} rows={4} {...field('description')} data-testid="help-description" />
        <TextField label={t('settings.helps.form.link')} {...field('link')} data-testid="help-link" />
        <DialogActions>
          <Button variant="text" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" disabled={formik.isSubmitting} data-testid="help-submit">
            {t(creating ? 'settings.helps.form.add' : 'settings.helps.form.save')}
          </Button>
        </DialogActions>
      </form>
    </Modal>
  );
}
