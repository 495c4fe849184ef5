import { useCallback, useState } from 'react';
import { useFormik } from 'formik';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import { isAdmin, toastError, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Button, IconButton, Modal, SelectField, TextField } from '@atendo/web-ui';
import { DataTable, ListFrame, ListHeader, ListStatus, pagedListStatus, SearchBox, TableCard, useFieldProps, usePagedList, yup } from '@atendo/web-kit';
import { AdminIcon, ConfirmDialog, DialogActions } from '../../lib/parts';
import { TextAreaField } from '../../lib/fields';
import { createIntegration, deleteIntegration, fetchIntegrations, INTEGRATION_LANGUAGES, INTEGRATION_TYPES, integrationKeys, testIntegration, updateIntegration, type IntegrationEvent, type IntegrationInput, type QueueIntegration } from './api';

/** The type logos: a coloured badge per type (no remote images). */
const LOGOS: Record<string, { label: string; color: string }> = {
  dialogflow: { label: 'DF', color: '#ff9800' },
  n8n: { label: 'n8n', color: '#ea4b71' },
  webhook: { label: 'WH', color: '#546e7a' },
  typebot: { label: 'TB', color: '#0042da' },
};

export function TypeLogo({ type }: { type: string }) {
  const logo = LOGOS[type] ?? { label: type.slice(0, 2).toUpperCase(), color: '#757575' };
  return (
    <span role="img" aria-label={type} title={type} data-testid={`logo-${type}`} style={{ display: 'inline-flex', alignItems: 'center', justifyContent: 'center', minWidth: 36, height: 24, padding: '0 6px', borderRadius: 6, background: logo.color, color: '#fff', fontSize: 12, fontWeight: 700 }}>
      {logo.label}
    </span>
  );
}

/** The modal's rules by type (spec: required are type, name and urlN8N for n8n/webhook/typebot, typebotSlug, language for dialogflow). */
export const integrationSchema = yup.object({
  type: yup.string().oneOf([...INTEGRATION_TYPES]).required('validation.required'),
  name: yup.string().trim().max(100, 'validation.tooLong').required('validation.required'),
  urlN8N: yup.string().trim().when('type', { is: (t: string) => t !== 'dialogflow', then: (s) => s.required('validation.required').matches(/^https?:\/\/\S+$/i, 'admin:queueIntegration.form.badUrl') }),
  typebotSlug: yup.string().trim().when('type', { is: 'typebot', then: (s) => s.required('validation.required') }),
  language: yup.string().when('type', { is: 'dialogflow', then: (s) => s.oneOf([...INTEGRATION_LANGUAGES]).required('validation.required') }),
  projectName: yup.string().trim().when('type', { is: 'dialogflow', then: (s) => s.required('validation.required') }),
  typebotExpires: yup.number().typeError('admin:queueIntegration.form.badNumber').integer('admin:queueIntegration.form.badNumber').min(0, 'admin:queueIntegration.form.badNumber'),
  typebotDelayMessage: yup.number().typeError('admin:queueIntegration.form.badNumber').integer('admin:queueIntegration.form.badNumber').min(0, 'admin:queueIntegration.form.badNumber').max(60000, 'admin:queueIntegration.form.badNumber'),
});

/**
 * Queue integrations (/queue-integration; spec 3-campaigns-and-tools.md "Queue integrations"): the title
 * with a count, search (debounced), infinite scroll, type logo, id and name per row, edit and delete
 * (admins), the modal by type with the Test button; live on `company-{id}-queueIntegration`.
 */
export function QueueIntegrationPage() {
  const { t } = useTranslation('admin');
  const me = useSessionUser();
  const admin = isAdmin(me);
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<{ record: QueueIntegration | null } | null>(null);
  const [deleting, setDeleting] = useState<QueueIntegration | null>(null);
  const [busy, setBusy] = useState(false);
  const matches = useCallback((r: QueueIntegration, term: string) => !term || r.name.toLowerCase().includes(term), []);
  const list = usePagedList<QueueIntegration>({ baseKey: integrationKeys.list, search, fetchPage: fetchIntegrations, matches });
  const { apply } = list;
  useSocketEvent<IntegrationEvent>(me ? `company-${me.companyId}-queueIntegration` : null, (event) => {
    if (!event || typeof event !== 'object') return;
    if (event.action === 'delete') apply({ type: 'remove', id: Number(event.integrationId) });
    else if (event.queueIntegration && typeof event.queueIntegration.id === 'number') apply({ type: 'upsert', record: event.queueIntegration });
  });

  const confirmDelete = async () => {
    if (!deleting || busy) return;
    setBusy(true);
    try {
      await deleteIntegration(deleting.id);
      apply({ type: 'remove', id: deleting.id });
      toast.success(t('queueIntegration.toasts.deleted'));
      setDeleting(null);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <ListFrame data-testid="queue-integration-page">
      <ListHeader title={t('queueIntegration.title')} count={typeof list.count === 'number' ? t('queueIntegration.count', { count: list.count }) : undefined} countTestId="queue-integration-count">
        <SearchBox value={search} onChange={setSearch} label={t('queueIntegration.search')} testId="queue-integration-search" />
        {admin ? (
          <Button onClick={() => setEditing({ record: null })} data-testid="queue-integration-add">
            <AdminIcon name="plus" size={18} />
            {t('queueIntegration.add')}
          </Button>
        ) : null}
      </ListHeader>
      <TableCard onScroll={list.onScroll}>
        {list.query.isPending ? null : (
          <DataTable>
            <thead>
              <tr>
                <th scope="col">{t('queueIntegration.columns.type')}</th>
                <th scope="col">{t('queueIntegration.columns.id')}</th>
                <th scope="col" className="start">{t('queueIntegration.columns.name')}</th>
                <th scope="col">{t('queueIntegration.columns.actions')}</th>
              </tr>
            </thead>
            <tbody data-testid="queue-integration-rows">
              {list.rows.map((r) => (
                <tr key={r.id} data-testid={`queue-integration-row-${r.id}`}>
                  <td><TypeLogo type={r.type} /></td>
                  <td>{r.id}</td>
                  <td className="start">{r.name}</td>
                  <td className="actions">
                    {admin ? (
                      <>
                        <IconButton label={t('queueIntegration.edit', { name: r.name })} tone="default" onClick={() => setEditing({ record: r })}>
                          <AdminIcon name="edit" />
                        </IconButton>
                        <IconButton label={t('queueIntegration.delete', { name: r.name })} tone="default" onClick={() => setDeleting(r)}>
                          <AdminIcon name="trash" />
                        </IconButton>
                      </>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </DataTable>
        )}
        <ListStatus
          {...pagedListStatus(list)}
          texts={{ loading: t('common.loading'), empty: list.query.isError ? t('common.loadFailed') : t('queueIntegration.empty'), retry: t('common.retry'), loadMore: t('common.loadMore') }}
          emptyIcon="integration"
          testId="queue-integration"
        />
      </TableCard>
      {editing ? <IntegrationModal record={editing.record} onClose={() => setEditing(null)} onSaved={(r) => apply({ type: 'upsert', record: r })} /> : null}
      <ConfirmDialog
        open={Boolean(deleting)}
        title={t('queueIntegration.confirm.title', { name: deleting?.name ?? '' })}
        message={t('queueIntegration.confirm.message')}
        confirmLabel={t('queueIntegration.confirm.confirm')}
        busy={busy}
        onConfirm={() => void confirmDelete()}
        onClose={() => setDeleting(null)}
      />
    </ListFrame>
  );
}

/** The add/edit modal: fields by type, the Test button (Dialogflow credentials, or the stored integration). */
export function IntegrationModal({ record, onClose, onSaved }: { record: QueueIntegration | null; onClose: () => void; onSaved: (r: QueueIntegration) => void }) {
  const { t } = useTranslation('admin');
  const [secret, setSecret] = useState<string | null>(null);
  const [testing, setTesting] = useState(false);
  const formik = useFormik({
    initialValues: {
      type: record?.type ?? 'typebot',
      name: record?.name ?? '',
      projectName: record?.projectName ?? '',
      jsonContent: '',
      language: record?.language || 'pt-BR',
      urlN8N: record?.urlN8N ?? '',
      typebotSlug: record?.typebotSlug ?? '',
      typebotExpires: String(record?.typebotExpires ?? 1),
      typebotDelayMessage: String(record?.typebotDelayMessage ?? 1000),
      typebotKeywordFinish: record?.typebotKeywordFinish ?? '',
      typebotKeywordRestart: record?.typebotKeywordRestart ?? '',
      typebotUnknownMessage: record?.typebotUnknownMessage ?? '',
      typebotRestartMessage: record?.typebotRestartMessage ?? '',
    },
    validationSchema: integrationSchema,
    onSubmit: async (v) => {
      const body: IntegrationInput = { ...v, name: v.name.trim(), urlN8N: v.urlN8N.trim(), typebotExpires: Number(v.typebotExpires || 0), typebotDelayMessage: Number(v.typebotDelayMessage || 0) };
      try {
        const saved = record ? await updateIntegration(record.id, body) : await createIntegration(body);
        onSaved({ ...saved, secret: undefined });
        toast.success(t(record ? 'queueIntegration.toasts.edited' : 'queueIntegration.toasts.added'));
        // A generated signing secret is shown once, before the dialog closes.
        if (saved.secret) setSecret(saved.secret);
        else onClose();
      } catch (err) {
        toastError(err);
      }
    },
  });
  const field = useFieldProps(formik);
  const type = formik.values.type;
  const runTest = async () => {
    if (testing) return;
    setTesting(true);
    try {
      const v = formik.values;
      await testIntegration(type === 'dialogflow' && v.jsonContent.trim() ? { projectName: v.projectName, jsonContent: v.jsonContent, language: v.language } : { id: record?.id });
      toast.success(t('queueIntegration.toasts.tested'));
    } catch (err) {
      toastError(err);
    } finally {
      setTesting(false);
    }
  };
  const canTest = type === 'dialogflow' ? Boolean(formik.values.jsonContent.trim() || record) : Boolean(record);

  if (secret) {
    return (
      <Modal open title={t('queueIntegration.secret.title')} onClose={onClose} closeLabel={t('common.close')}>
        <p>{t('queueIntegration.secret.message')}</p>
        <code data-testid="queue-integration-secret" style={{ wordBreak: 'break-all' }}>{secret}</code>
        <DialogActions>
          <Button onClick={onClose} data-testid="queue-integration-secret-done">{t('queueIntegration.secret.done')}</Button>
        </DialogActions>
      </Modal>
    );
  }
  return (
    <Modal open title={t(record ? 'queueIntegration.editTitle' : 'queueIntegration.addTitle')} onClose={onClose} closeLabel={t('common.close')} width={640}>
      <form onSubmit={formik.handleSubmit} noValidate data-testid="queue-integration-form">
        <SelectField label={t('queueIntegration.form.type')} {...field('type')} data-testid="qi-type">
          {INTEGRATION_TYPES.map((k) => (
            <option key={k} value={k}>{t(`queueIntegration.types.${k}`)}</option>
          ))}
        </SelectField>
        <TextField label={t('queueIntegration.form.name')} {...field('name')} data-testid="qi-name" />
        {type === 'dialogflow' ? (
          <>
            <SelectField label={t('queueIntegration.form.language')} {...field('language')} data-testid="qi-language">
              {INTEGRATION_LANGUAGES.map((l) => (
                <option key={l} value={l}>{l}</option>
              ))}
            </SelectField>
            <TextField label={t('queueIntegration.form.projectName')} {...field('projectName')} data-testid="qi-project" />
            <TextAreaField label={t('queueIntegration.form.jsonContent')} rows={6} {...field('jsonContent')} placeholder={record?.hasJsonContent ? t('queueIntegration.form.jsonKept') : ''} data-testid="qi-json" />
          </>
        ) : (
          <TextField label={t('queueIntegration.form.urlN8N')} {...field('urlN8N')} inputMode="url" data-testid="qi-url" helperText={record?.secretHint && type !== 'typebot' ? t('queueIntegration.form.secretHint', { hint: record.secretHint }) : undefined} />
        )}
        {type === 'typebot' ? (
          <>
            <TextField label={t('queueIntegration.form.typebotSlug')} {...field('typebotSlug')} data-testid="qi-slug" />
            <TextField label={t('queueIntegration.form.typebotExpires')} {...field('typebotExpires')} inputMode="numeric" data-testid="qi-expires" />
            <TextField label={t('queueIntegration.form.typebotDelayMessage')} {...field('typebotDelayMessage')} inputMode="numeric" data-testid="qi-delay" />
            <TextField label={t('queueIntegration.form.typebotKeywordFinish')} {...field('typebotKeywordFinish')} data-testid="qi-finish" />
            <TextField label={t('queueIntegration.form.typebotKeywordRestart')} {...field('typebotKeywordRestart')} data-testid="qi-restart" />
            <TextField label={t('queueIntegration.form.typebotUnknownMessage')} {...field('typebotUnknownMessage')} data-testid="qi-unknown" />
            <TextField label={t('queueIntegration.form.typebotRestartMessage')} {...field('typebotRestartMessage')} data-testid="qi-restart-message" />
          </>
        ) : null}
        <DialogActions>
          {canTest ? (
            <Button type="button" variant="text" onClick={() => void runTest()} disabled={testing} data-testid="qi-test">{t('queueIntegration.form.test')}</Button>
          ) : null}
          <Button type="button" variant="text" onClick={onClose}>{t('common.cancel')}</Button>
          <Button type="submit" disabled={formik.isSubmitting} data-testid="qi-save">{t(record ? 'queueIntegration.form.save' : 'queueIntegration.form.add')}</Button>
        </DialogActions>
      </form>
    </Modal>
  );
}
