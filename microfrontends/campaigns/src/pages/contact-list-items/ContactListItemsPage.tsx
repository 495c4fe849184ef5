import { useCallback, useMemo, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useFormik } from 'formik';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { toastError, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Button, IconButton, Modal, Muted, SelectField, TextField } from '@atendo/web-ui';
import { LEGAL_BASES } from '../../lib/legal-bases';
import { DataTable, DialogActions, ListFrame, ListHeader, ListStatus, navigateTo, pagedListStatus, rules, SearchBox, TableCard, useErrorToast, useFieldProps, usePagedList, yup } from '@atendo/web-kit';
import type { PageProps } from '../registry';
import { CampaignIcon, ConfirmDialog, ErrorLine, ProgressBar } from '../../lib/parts';
import {
  SHEET_MAX_BYTES,
  createItem,
  deleteItem,
  downloadExample,
  fetchItems,
  fetchList,
  importSheet,
  keys,
  updateItem,
  type ContactListItem,
  type ContactListItemEvent,
  type ContactListItemsOfListEvent,
  type ImportProgress,
} from '../../lib/api';

/** Today as `YYYY-MM-DD` (UTC): the latest consent date the form takes. */
const today = () => new Date().toISOString().slice(0, 10);

/**
 * The item form's rules (spec §5): name 2..50 required, number 8..50 optional, a valid e-mail when given;
 * issue 34: the legal basis one of `LEGAL_BASES` or none, the consent date a day not after today or none.
 */
export const itemSchema = yup.object({
  name: rules.name(),
  number: yup.string().trim().min(8, 'validation.tooShort').max(50, 'validation.tooLong'),
  email: yup.string().trim().email('validation.invalidEmail').max(255, 'validation.tooLong'),
  legalBasis: yup.string().oneOf(['', ...LEGAL_BASES]),
  consentAt: yup.string().matches(/^(\d{4}-\d{2}-\d{2})?$/, 'validation.invalidDate').test('past', 'validation.invalidDate', (v) => !v || v <= today()),
});

const SHEET = /\.(xlsx|xls)$/i;
/** Deleting an item needs the permission contacts-page:deleteContact (spec §6): admins and supervisors. */
const mayDelete = (u: { profile?: string; super?: boolean } | null) => Boolean(u && (u.super || ['admin', 'supervisor'].includes(String(u.profile).toLowerCase())));

const ImportBox = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${(p) => p.theme.space(1)};
  padding: ${(p) => p.theme.space(1.5)};
  border: 1px solid ${(p) => p.theme.colors.border};
  border-radius: ${(p) => p.theme.radius.md};
  background: ${(p) => p.theme.colors.surface};
  ul { margin: 0; padding-left: 20px; max-height: 120px; overflow: auto; }
`;

/**
 * The contacts of one list (/contact-lists/{id}/contacts; spec §2 "Contact list items"): the list's name as
 * title, search, back, import of a spreadsheet (.xls/.xlsx after a confirmation with the example link; a
 * progress bar fed by `company-{id}-ContactListItem-{listId}` import events, then the rows refused), add;
 * columns WhatsApp validity, name, number, e-mail, legal basis and consent date (issue 34), actions (edit;
 * delete for admins and supervisors); live on `company-{id}-ContactListItem` and the list's reloads.
 */
export function ContactListItemsPage({ params }: PageProps) {
  const { t, i18n } = useTranslation('campaigns');
  const me = useSessionUser();
  const client = useQueryClient();
  const listId = Number(params.contactListId);
  // Consent dates are days (stored at midnight UTC): shown as that day wherever the viewer is.
  const day = useMemo(() => new Intl.DateTimeFormat(i18n.language, { dateStyle: 'short', timeZone: 'UTC' }), [i18n.language]);
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<{ item: ContactListItem | null } | null>(null);
  const [deleting, setDeleting] = useState<ContactListItem | null>(null);
  const [confirmImport, setConfirmImport] = useState(false);
  const [progress, setProgress] = useState<ImportProgress | null>(null);
  const [importing, setImporting] = useState(false);
  const [busy, setBusy] = useState(false);
  const fileRef = useRef<HTMLInputElement>(null);
  const listQuery = useQuery({ queryKey: keys.list(listId), queryFn: ({ signal }) => fetchList(listId, signal), enabled: Number.isInteger(listId) && listId > 0 });
  useErrorToast(listQuery.error);
  const matches = useCallback((i: ContactListItem, term: string) => i.contactListId === listId && (!term || i.name.toLowerCase().includes(term) || i.number.includes(term.replace(/\D/g, '') || '\u0000')), [listId]);
  const list = usePagedList<ContactListItem>({ baseKey: keys.items(listId), search, fetchPage: (term, n, signal) => fetchItems(listId, term, n, signal), matches });
  const { apply } = list;
  const company = me?.companyId;
  useSocketEvent<ContactListItemEvent>(company ? `company-${company}-ContactListItem` : null, (event) => {
    if (!event || typeof event !== 'object') return;
    if (event.action === 'delete') apply({ type: 'remove', id: Number(event.id) });
    else if (event.record && typeof event.record.id === 'number') apply({ type: 'upsert', record: event.record });
  });
  useSocketEvent<ContactListItemsOfListEvent>(company ? `company-${company}-ContactListItem-${listId}` : null, (event) => {
    if (!event || typeof event !== 'object') return;
    if (event.action === 'reload') void client.invalidateQueries({ queryKey: keys.items(listId) });
    else if (event.action === 'import-progress' || event.action === 'import-done') {
      const { action: _a, ...p } = event;
      setProgress(p);
    }
  });

  const pickFile = () => {
    setConfirmImport(false);
    fileRef.current?.click();
  };

  const onFile = async (file: File | undefined) => {
    if (fileRef.current) fileRef.current.value = '';
    if (!file) return;
    if (!SHEET.test(file.name)) {
      toast.error(t('items.import.badType'));
      return;
    }
    if (file.size > SHEET_MAX_BYTES) {
      toast.error(t('items.import.tooBig'));
      return;
    }
    setImporting(true);
    setProgress({ contactListId: listId, status: 'running', total: 0, processed: 0, created: 0, updated: 0, errors: [] });
    try {
      const done = await importSheet(listId, file);
      setProgress(done);
      toast.success(t('items.import.done', { count: done.created + done.updated }));
      void client.invalidateQueries({ queryKey: keys.items(listId) });
      void client.invalidateQueries({ queryKey: keys.list(listId) });
    } catch (err) {
      setProgress(null);
      toastError(err);
    } finally {
      setImporting(false);
    }
  };

  const confirmDelete = async () => {
    if (!deleting || busy) return;
    setBusy(true);
    try {
      await deleteItem(deleting.id);
      apply({ type: 'remove', id: deleting.id });
      toast.success(t('items.toasts.deleted'));
      setDeleting(null);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  const title = listQuery.data?.name ?? (listQuery.isError ? t('items.unknownList') : t('common.loading'));
  return (
    <ListFrame data-testid="contact-list-items-page">
      <ListHeader title={title} count={typeof list.count === 'number' ? t('items.count', { count: list.count }) : undefined} countTestId="items-count">
        <SearchBox value={search} onChange={setSearch} label={t('common.search')} testId="items-search" />
        <Button variant="secondary" onClick={() => navigateTo('/contact-lists')} data-testid="items-back">
          <CampaignIcon name="back" size={18} />
          {t('items.back')}
        </Button>
        <Button variant="secondary" onClick={() => setConfirmImport(true)} disabled={importing} data-testid="items-import">
          <CampaignIcon name="upload" size={18} />
          {t('items.import.button')}
        </Button>
        <Button onClick={() => setEditing({ item: null })} data-testid="item-add">
          <CampaignIcon name="plus" size={18} />
          {t('common.add')}
        </Button>
      </ListHeader>
      <input ref={fileRef} type="file" accept=".xls,.xlsx,application/vnd.ms-excel,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" hidden onChange={(e) => void onFile(e.target.files?.[0])} data-testid="items-file" />
      {progress ? <ImportStatus progress={progress} onClose={importing ? undefined : () => setProgress(null)} /> : null}
      <TableCard onScroll={list.onScroll}>
        {list.query.isPending ? null : (
          <DataTable>
            <thead>
              <tr>
                <th scope="col" aria-label={t('items.columns.valid')} />
                <th scope="col" className="start">{t('items.columns.name')}</th>
                <th scope="col">{t('items.columns.number')}</th>
                <th scope="col">{t('items.columns.email')}</th>
                <th scope="col">{t('items.columns.legalBasis')}</th>
                <th scope="col">{t('items.columns.consentAt')}</th>
                <th scope="col">{t('common.actions')}</th>
              </tr>
            </thead>
            <tbody data-testid="items-rows">
              {list.rows.map((item) => (
                <tr key={item.id} data-testid={`item-row-${item.id}`}>
                  <td>
                    <ValidIcon valid={item.isWhatsappValid} />
                  </td>
                  <td className="start">{item.name}</td>
                  <td>{item.number}</td>
                  <td>{item.email}</td>
                  <td data-testid="item-legal-basis">{item.legalBasis ? t(`items.form.bases.${item.legalBasis}`, { defaultValue: item.legalBasis }) : ''}</td>
                  <td data-testid="item-consent-at">{item.consentAt ? day.format(new Date(item.consentAt)) : ''}</td>
                  <td className="actions">
                    <IconButton label={t('items.edit', { name: item.name })} tone="default" onClick={() => setEditing({ item })}>
                      <CampaignIcon name="edit" />
                    </IconButton>
                    {mayDelete(me) ? (
                      <IconButton label={t('items.delete', { name: item.name })} tone="default" onClick={() => setDeleting(item)}>
                        <CampaignIcon name="trash" />
                      </IconButton>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </DataTable>
        )}
        <ListStatus
          {...pagedListStatus(list)}
          texts={{ loading: t('common.loading'), empty: list.query.isError ? t('common.loadFailed') : t('items.empty'), retry: t('common.retry'), loadMore: t('common.loadMore') }}
          emptyIcon="contacts"
          testId="items"
        />
      </TableCard>
      {editing ? <ItemModal listId={listId} item={editing.item} onClose={() => setEditing(null)} onSaved={(i) => apply({ type: 'upsert', record: i })} /> : null}
      <ConfirmDialog
        open={confirmImport}
        title={t('items.import.confirmTitle')}
        danger={false}
        message={
          <>
            <p>{t('items.import.confirmMessage')}</p>
            <Button variant="text" onClick={() => void downloadExample().catch((err: unknown) => toastError(err))}>
              <CampaignIcon name="download" size={18} />
              {t('items.import.example')}
            </Button>
          </>
        }
        confirmLabel={t('items.import.choose')}
        onConfirm={pickFile}
        onClose={() => setConfirmImport(false)}
      />
      <ConfirmDialog
        open={Boolean(deleting)}
        title={t('items.confirm.title', { name: deleting?.name ?? '' })}
        message={t('items.confirm.message')}
        confirmLabel={t('common.delete')}
        busy={busy}
        onConfirm={() => void confirmDelete()}
        onClose={() => setDeleting(null)}
      />
    </ListFrame>
  );
}

const Validity = styled.span<{ $tone: 'success' | 'danger' | 'textMuted' }>`
  display: inline-flex;
  color: ${(p) => p.theme.colors[p.$tone]};
`;

/** WhatsApp validity of a number: valid, invalid, or not checked (null). */
function ValidIcon({ valid }: { valid: boolean | null }) {
  const { t } = useTranslation('campaigns');
  const key = valid === true ? 'valid' : valid === false ? 'invalid' : 'unknown';
  return (
    <Validity $tone={valid === true ? 'success' : valid === false ? 'danger' : 'textMuted'} title={t(`items.validity.${key}`)} aria-label={t(`items.validity.${key}`)} role="img" data-testid="item-validity" data-valid={key}>
      <CampaignIcon name={key} />
    </Validity>
  );
}

/** The running or finished import: a progress bar, then the counts and the rows refused. */
function ImportStatus({ progress, onClose }: { progress: ImportProgress; onClose?: () => void }) {
  const { t } = useTranslation('campaigns');
  const done = progress.status === 'done';
  return (
    <ImportBox data-testid="import-status" data-status={progress.status}>
      <strong>{done ? t('items.import.finished') : t('items.import.running')}</strong>
      <ProgressBar value={done ? Math.max(progress.total, 1) : progress.processed} max={done ? Math.max(progress.total, 1) : progress.total} label={t('items.import.progress')} testId="import-progress" tone={done ? 'success' : 'primary'} />
      <Muted data-testid="import-counts">{t('items.import.counts', { processed: progress.processed, total: progress.total, created: progress.created, updated: progress.updated, failed: progress.errors.length })}</Muted>
      {done && progress.errors.length ? (
        <ul data-testid="import-errors">
          {progress.errors.slice(0, 50).map((e) => (
            <li key={`${e.row}-${e.error}`}>
              <ErrorLine as="span">{t('items.import.rowError', { row: e.row, error: t(`items.import.errors.${e.error}`, { defaultValue: e.error }) })}</ErrorLine>
            </li>
          ))}
        </ul>
      ) : null}
      {onClose && done ? (
        <div>
          <Button variant="text" onClick={onClose}>
            {t('common.close')}
          </Button>
        </div>
      ) : null}
    </ImportBox>
  );
}

/** The add/edit dialog of a list item (name, number, e-mail; issue 34: legal basis and consent date, both optional). */
function ItemModal({ listId, item, onClose, onSaved }: { listId: number; item: ContactListItem | null; onClose: () => void; onSaved: (item: ContactListItem) => void }) {
  const { t } = useTranslation('campaigns');
  const formik = useFormik({
    initialValues: { name: item?.name ?? '', number: item?.number ?? '', email: item?.email ?? '', legalBasis: item?.legalBasis ?? '', consentAt: item?.consentAt?.slice(0, 10) ?? '' },
    validationSchema: itemSchema,
    onSubmit: async (values) => {
      // An unchanged consent day keeps the stored instant (an import may have given a time of day).
      const consentAt = values.consentAt && values.consentAt === item?.consentAt?.slice(0, 10) ? item.consentAt : values.consentAt || null;
      const body = { name: values.name.trim(), number: values.number.trim(), email: values.email.trim(), legalBasis: values.legalBasis || null, consentAt, contactListId: listId };
      try {
        const saved = item ? await updateItem(item.id, body) : await createItem(body);
        onSaved(saved);
        toast.success(t('items.toasts.saved'));
        onClose();
      } catch (err) {
        toastError(err);
      }
    },
  });
  const field = useFieldProps(formik);
  return (
    <Modal open title={t(item ? 'items.form.editTitle' : 'items.form.addTitle')} onClose={onClose} closeLabel={t('common.close')}>
      <form onSubmit={formik.handleSubmit} noValidate data-testid="item-form">
        <TextField label={t('items.form.name')} {...field('name')} data-testid="item-name" />
        <TextField label={t('items.form.number')} {...field('number')} inputMode="tel" helperText={t('items.form.numberHelp')} data-testid="item-number" />
        <TextField label={t('items.form.email')} type="email" {...field('email')} data-testid="item-email" />
        <SelectField label={t('items.form.legalBasis')} {...field('legalBasis')} data-testid="item-legal-basis-select">
          <option value="">{t('items.form.legalBasisNone')}</option>
          {LEGAL_BASES.map((b) => (
            <option key={b} value={b}>
              {t(`items.form.bases.${b}`)}
            </option>
          ))}
        </SelectField>
        <TextField label={t('items.form.consentAt')} type="date" max={today()} {...field('consentAt')} helperText={t('items.form.consentHelp')} data-testid="item-consent" />
        <DialogActions>
          <Button variant="text" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" disabled={formik.isSubmitting} data-testid="item-submit">
            {t(item ? 'common.save' : 'common.add')}
          </Button>
        </DialogActions>
      </form>
    </Modal>
  );
}
