import { useCallback, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useFormik } from 'formik';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import { isAdmin, toastError, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Button, Icon, IconButton, Modal, SelectField, TextField } from '@atendo/web-ui';
import { applyArrayChange, DataTable, ListFrame, ListHeader, ListStatus, TableCard, useErrorToast, useFieldProps, yup, type ListChange } from '@atendo/web-kit';
import { fetchQueues, sharedKeys } from '../../lib/api';
import { TextAreaField } from '../../lib/fields';
import { AdminIcon, ConfirmDialog, DialogActions } from '../../lib/parts';
import { createPrompt, deletePrompt, fetchPrompts, promptKeys, updatePrompt, VOICES, type Prompt, type PromptEvent } from './api';

/**
 * The prompt form's rules. The spec enforces only the queue ("Informe o setor"); the intended rules (name
 * 5..100, prompt >= 50, numbers required) are the API's too, so they are checked here as well.
 */
export const promptSchema = yup.object({
  name: yup.string().trim().min(5, 'validation.tooShort').max(100, 'validation.tooLong').required('validation.required'),
  prompt: yup.string().trim().min(50, 'validation.tooShort').required('validation.required'),
  apiKey: yup.string().trim().required('validation.required'),
  queueId: yup.string().required('admin:prompts.form.queueRequired'),
  maxTokens: yup.number().typeError('admin:prompts.form.badNumber').integer('admin:prompts.form.badNumber').min(1, 'admin:prompts.form.badNumber').max(4096, 'admin:prompts.form.badNumber').required('validation.required'),
  temperature: yup.number().typeError('admin:prompts.form.badNumber').min(0, 'admin:prompts.form.badNumber').max(2, 'admin:prompts.form.badNumber').required('validation.required'),
  maxMessages: yup.number().typeError('admin:prompts.form.badNumber').integer('admin:prompts.form.badNumber').min(1, 'admin:prompts.form.badNumber').max(50, 'admin:prompts.form.badNumber').required('validation.required'),
});

/**
 * AI prompts (/prompts; spec 3-campaigns-and-tools.md "AI prompts"): name, queue name, max tokens and
 * actions; no search; the prompt modal (masked key with show/hide, queue and voice selects); the delete
 * confirmation names the prompt; live on `company-{id}-prompt`.
 */
export function PromptsPage() {
  const { t } = useTranslation('admin');
  const me = useSessionUser();
  const admin = isAdmin(me);
  const client = useQueryClient();
  const [editing, setEditing] = useState<{ record: Prompt | null } | null>(null);
  const [deleting, setDeleting] = useState<Prompt | null>(null);
  const [busy, setBusy] = useState(false);
  const query = useQuery({ queryKey: promptKeys.list, queryFn: ({ signal }) => fetchPrompts(signal) });
  useErrorToast(query.error);
  const apply = useCallback(
    (change: ListChange<Prompt>) => client.setQueryData<Prompt[]>(promptKeys.list, (old) => applyArrayChange(old, change)?.sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id)),
    [client],
  );
  useSocketEvent<PromptEvent>(me ? `company-${me.companyId}-prompt` : null, (event) => {
    if (!event || typeof event !== 'object') return;
    if (event.action === 'delete') apply({ type: 'remove', id: Number(event.promptId) });
    else if (event.prompt && typeof event.prompt.id === 'number') apply({ type: 'upsert', record: event.prompt });
  });

  const confirmDelete = async () => {
    if (!deleting || busy) return;
    setBusy(true);
    try {
      const res = await deletePrompt(deleting.id);
      apply({ type: 'remove', id: deleting.id });
      // The server's message is English; the toast shows the translated text (an info toast, as the spec's).
      void res;
      toast.info(t('prompts.toasts.deleted'));
      setDeleting(null);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  const rows = query.data ?? [];
  return (
    <ListFrame data-testid="prompts-page">
      <ListHeader title={t('prompts.title')} count={query.data ? t('prompts.count', { count: rows.length }) : undefined} countTestId="prompts-count">
        {admin ? (
          <Button onClick={() => setEditing({ record: null })} data-testid="prompt-add">
            <AdminIcon name="plus" size={18} />
            {t('prompts.add')}
          </Button>
        ) : null}
      </ListHeader>
      <TableCard>
        {query.isPending ? null : (
          <DataTable>
            <thead>
              <tr>
                <th scope="col" className="start">{t('prompts.columns.name')}</th>
                <th scope="col">{t('prompts.columns.queue')}</th>
                <th scope="col">{t('prompts.columns.maxTokens')}</th>
                <th scope="col">{t('prompts.columns.actions')}</th>
              </tr>
            </thead>
            <tbody data-testid="prompts-rows">
              {rows.map((p) => (
                <tr key={p.id} data-testid={`prompt-row-${p.id}`}>
                  <td className="start">{p.name}</td>
                  <td>{p.queue?.name ?? ''}</td>
                  <td>{p.maxTokens}</td>
                  <td className="actions">
                    {admin ? (
                      <>
                        <IconButton label={t('prompts.edit', { name: p.name })} tone="default" onClick={() => setEditing({ record: p })}>
                          <AdminIcon name="edit" />
                        </IconButton>
                        <IconButton label={t('prompts.delete', { name: p.name })} tone="default" onClick={() => setDeleting(p)}>
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
          loading={query.isPending}
          empty={!query.isPending && rows.length === 0}
          failed={query.isError}
          onRetry={() => void query.refetch()}
          hasMore={false}
          loadingMore={false}
          onLoadMore={() => undefined}
          texts={{ loading: t('common.loading'), empty: query.isError ? t('common.loadFailed') : t('prompts.empty'), retry: t('common.retry'), loadMore: t('common.loadMore') }}
          emptyIcon="ai"
          testId="prompts"
        />
      </TableCard>
      {editing ? <PromptModal record={editing.record} onClose={() => setEditing(null)} onSaved={(p) => apply({ type: 'upsert', record: p })} /> : null}
      <ConfirmDialog
        open={Boolean(deleting)}
        title={t('prompts.confirm.title', { name: deleting?.name ?? '' })}
        message={t('prompts.confirm.message')}
        confirmLabel={t('prompts.confirm.confirm')}
        busy={busy}
        onConfirm={() => void confirmDelete()}
        onClose={() => setDeleting(null)}
      />
    </ListFrame>
  );
}

/** The prompt dialog: name, API key (masked, show/hide), prompt (10 rows), queue, voice, voiceKey, voiceRegion, temperature, maxTokens, maxMessages. */
export function PromptModal({ record, onClose, onSaved }: { record: Prompt | null; onClose: () => void; onSaved: (p: Prompt) => void }) {
  const { t } = useTranslation('admin');
  const queues = useQuery({ queryKey: sharedKeys.queues, queryFn: ({ signal }) => fetchQueues(signal) });
  const [showKey, setShowKey] = useState(false);
  const formik = useFormik({
    initialValues: {
      name: record?.name ?? '',
      apiKey: record?.apiKey ?? '',
      prompt: record?.prompt ?? '',
      queueId: record?.queueId ? String(record.queueId) : '',
      voice: record?.voice ?? 'texto',
      voiceKey: record?.voiceKey ?? '',
      voiceRegion: record?.voiceRegion ?? '',
      temperature: String(record?.temperature ?? 1),
      maxTokens: String(record?.maxTokens ?? 100),
      maxMessages: String(record?.maxMessages ?? 10),
    },
    validationSchema: promptSchema,
    onSubmit: async (v) => {
      const body = { ...v, name: v.name.trim(), prompt: v.prompt.trim(), apiKey: v.apiKey.trim(), queueId: Number(v.queueId), temperature: Number(v.temperature), maxTokens: Number(v.maxTokens), maxMessages: Number(v.maxMessages) };
      try {
        const saved = record ? await updatePrompt(record.id, body) : await createPrompt(body);
        onSaved(saved);
        toast.success(t('prompts.toasts.saved'));
        onClose();
      } catch (err) {
        toastError(err);
      }
    },
  });
  const field = useFieldProps(formik);
  return (
    <Modal open title={t(record ? 'prompts.editTitle' : 'prompts.addTitle')} onClose={onClose} closeLabel={t('common.close')} width={640}>
      <form onSubmit={formik.handleSubmit} noValidate data-testid="prompt-form">
        <TextField label={t('prompts.form.name')} {...field('name')} data-testid="prompt-name" />
        <TextField
          label={t('prompts.form.apiKey')}
          type={showKey ? 'text' : 'password'}
          autoComplete="off"
          {...field('apiKey')}
          data-testid="prompt-apikey"
          endAdornment={
            <IconButton label={t(showKey ? 'prompts.form.hideKey' : 'prompts.form.showKey')} tone="default" onClick={() => setShowKey((s) => !s)} data-testid="prompt-apikey-toggle">
              <Icon name={showKey ? 'eyeOff' : 'eye'} />
            </IconButton>
          }
        />
        <TextAreaField label={t('prompts.form.prompt')} rows={10} {...field('prompt')} data-testid="prompt-prompt" />
        <SelectField label={t('prompts.form.queue')} {...field('queueId')} error={field('queueId').error || undefined} data-testid="prompt-queue">
          <option value="">{t('prompts.form.selectQueue')}</option>
          {(queues.data ?? []).map((q) => (
            <option key={q.id} value={q.id}>{q.name}</option>
          ))}
        </SelectField>
        <SelectField label={t('prompts.form.voice')} {...field('voice')} error={undefined} data-testid="prompt-voice">
          {VOICES.map((v) => (
            <option key={v} value={v}>{v === 'texto' ? t('prompts.form.text') : v}</option>
          ))}
        </SelectField>
        <TextField label={t('prompts.form.voiceKey')} {...field('voiceKey')} data-testid="prompt-voicekey" />
        <TextField label={t('prompts.form.voiceRegion')} {...field('voiceRegion')} data-testid="prompt-voiceregion" />
        <TextField label={t('prompts.form.temperature')} {...field('temperature')} inputMode="decimal" data-testid="prompt-temperature" />
        <TextField label={t('prompts.form.maxTokens')} {...field('maxTokens')} inputMode="numeric" data-testid="prompt-maxtokens" />
        <TextField label={t('prompts.form.maxMessages')} {...field('maxMessages')} inputMode="numeric" data-testid="prompt-maxmessages" />
        <DialogActions>
          <Button type="button" variant="text" onClick={onClose}>{t('common.cancel')}</Button>
          <Button type="submit" disabled={formik.isSubmitting} data-testid="prompt-save">{t('prompts.form.save')}</Button>
        </DialogActions>
      </form>
    </Modal>
  );
}
