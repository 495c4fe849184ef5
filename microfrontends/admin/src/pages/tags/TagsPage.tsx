import { useCallback, useState } from 'react';
import { useFormik } from 'formik';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import { isAdmin, toastError, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Button, IconButton, Modal, TextField } from '@atendo/web-ui';
import { ColorChip, DataTable, ListFrame, ListHeader, ListStatus, pagedListStatus, SearchBox, TableCard, useFieldProps, usePagedList, yup } from '@atendo/web-kit';
import { AdminIcon, ConfirmDialog, DialogActions } from '../../lib/parts';
import { createTag, deleteTag, fetchTags, tagsKeys, updateTag, type Tag, type TagEvent } from './api';

const COLOR = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i;
const SWATCHES = ['#e53935', '#fb8c00', '#fdd835', '#43a047', '#00897b', '#1e88e5', '#3949ab', '#8e24aa', '#d81b60', '#546e7a'];

/** The tag form's rules (spec 2-tickets.md §5 "Tag"): name at least 3 characters ('Mensagem muito curta', 'Obrigatório'). */
export const tagSchema = yup.object({
  name: yup.string().trim().min(3, 'admin:tags.form.tooShort').max(50, 'validation.tooLong').required('validation.required'),
  color: yup.string().trim().matches(COLOR, 'admin:tags.form.badColor').required('validation.required'),
});

/**
 * Tags (/tags) and kanban tags (/tagsKanban) (spec 2-tickets.md §2 "Tags", "Kanban"): colour chip, contacts
 * and tickets counts, search (debounced 500 ms), infinite scroll, add (any user), edit and delete (admins),
 * the tag dialog for both kinds; live on `company-{id}-tag`.
 */
export function TagsPage({ kanban }: { kanban: boolean }) {
  const { t } = useTranslation('admin');
  const me = useSessionUser();
  const admin = isAdmin(me);
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<{ tag: Tag | null } | null>(null);
  const [deleting, setDeleting] = useState<Tag | null>(null);
  const [busy, setBusy] = useState(false);
  const matches = useCallback((tag: Tag, term: string) => Boolean(tag.kanban) === kanban && (!term || tag.name.toLowerCase().includes(term)), [kanban]);
  const list = usePagedList<Tag>({ baseKey: tagsKeys.list(kanban), search, fetchPage: (term, n, signal) => fetchTags(kanban, term, n, signal), matches });
  const { apply } = list;
  useSocketEvent<TagEvent>(me ? `company-${me.companyId}-tag` : null, (event) => {
    if (!event || typeof event !== 'object') return;
    if (event.action === 'delete') apply({ type: 'remove', id: Number(event.tagId) });
    else if (event.tag && typeof event.tag.id === 'number') apply({ type: 'upsert', record: event.tag });
  });
  const p = kanban ? 'tags.kanban' : 'tags.normal';

  const confirmDelete = async () => {
    if (!deleting || busy) return;
    setBusy(true);
    try {
      await deleteTag(deleting.id);
      apply({ type: 'remove', id: deleting.id });
      toast.success(t('tags.toasts.deleted'));
      setDeleting(null);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <ListFrame data-testid={kanban ? 'tags-kanban-page' : 'tags-page'}>
      <ListHeader title={t(`${p}.title`)} count={typeof list.count === 'number' ? t('tags.count', { count: list.count }) : undefined} countTestId="tags-count">
        <SearchBox value={search} onChange={setSearch} label={t('tags.search')} testId="tags-search" />
        <Button onClick={() => setEditing({ tag: null })} data-testid="tag-add">
          <AdminIcon name="plus" size={18} />
          {t(`${p}.add`)}
        </Button>
      </ListHeader>
      <TableCard onScroll={list.onScroll}>
        {list.query.isPending ? null : (
          <DataTable>
            <thead>
              <tr>
                <th scope="col" className="start">{t('tags.columns.name')}</th>
                {kanban ? null : <th scope="col">{t('tags.columns.contacts')}</th>}
                <th scope="col">{t('tags.columns.tickets')}</th>
                <th scope="col">{t('tags.columns.actions')}</th>
              </tr>
            </thead>
            <tbody data-testid="tags-rows">
              {list.rows.map((tag) => (
                <tr key={tag.id} data-testid={`tag-row-${tag.id}`}>
                  <td className="start">
                    <ColorChip $color={tag.color}>{tag.name}</ColorChip>
                  </td>
                  {kanban ? null : <td>{tag.contactsCount ?? 0}</td>}
                  <td>{tag.ticketsCount ?? 0}</td>
                  <td className="actions">
                    {admin ? (
                      <>
                        <IconButton label={t('tags.edit', { name: tag.name })} tone="default" onClick={() => setEditing({ tag })}>
                          <AdminIcon name="edit" />
                        </IconButton>
                        <IconButton label={t('tags.delete', { name: tag.name })} tone="default" onClick={() => setDeleting(tag)}>
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
          texts={{ loading: t('common.loading'), empty: list.query.isError ? t('common.loadFailed') : t(`${p}.empty`), retry: t('common.retry'), loadMore: t('common.loadMore') }}
          emptyIcon="tag"
          testId="tags"
        />
      </TableCard>
      {editing ? <TagModal tag={editing.tag} kanban={kanban} onClose={() => setEditing(null)} onSaved={(tag) => apply({ type: 'upsert', record: tag })} /> : null}
      <ConfirmDialog
        open={Boolean(deleting)}
        title={t('tags.confirm.title', { name: deleting?.name ?? '' })}
        message={t('tags.confirm.message')}
        confirmLabel={t('tags.confirm.confirm')}
        busy={busy}
        onConfirm={() => void confirmDelete()}
        onClose={() => setDeleting(null)}
      />
    </ListFrame>
  );
}

/** The tag dialog of both kinds (spec: "tag modal handles normal and kanban tags"). */
function TagModal({ tag, kanban, onClose, onSaved }: { tag: Tag | null; kanban: boolean; onClose: () => void; onSaved: (tag: Tag) => void }) {
  const { t } = useTranslation('admin');
  const formik = useFormik({
    initialValues: { name: tag?.name ?? '', color: tag?.color ?? SWATCHES[0] },
    validationSchema: tagSchema,
    onSubmit: async (values) => {
      const body = { name: values.name.trim(), color: values.color.trim(), kanban: (kanban ? 1 : 0) as 0 | 1 };
      try {
        const saved = tag ? await updateTag(tag.id, body) : await createTag(body);
        onSaved(saved);
        toast.success(t('tags.toasts.saved'));
        onClose();
      } catch (err) {
        toastError(err);
      }
    },
  });
  const field = useFieldProps(formik);
  const p = kanban ? 'tags.kanban' : 'tags.normal';
  return (
    <Modal open title={t(tag ? `${p}.editTitle` : `${p}.addTitle`)} onClose={onClose} closeLabel={t('common.close')}>
      <form onSubmit={formik.handleSubmit} noValidate data-testid="tag-form">
        <TextField label={t('tags.form.name')} {...field('name')} data-testid="tag-name" />
        <TextField
          label={t('tags.form.color')}
          {...field('color')}
          data-testid="tag-color"
          endAdornment={<input type="color" aria-label={t('tags.form.pickColor')} value={COLOR.test(formik.values.color) && formik.values.color.length === 7 ? formik.values.color : '#000000'} onChange={(e) => void formik.setFieldValue('color', e.target.value)} style={{ width: 44, height: 40, border: 'none', background: 'transparent', padding: 0 }} />}
        />
        <div role="group" aria-label={t('tags.form.swatches')} style={{ display: 'flex', gap: 6, flexWrap: 'wrap' }}>
          {SWATCHES.map((c) => (
            <button key={c} type="button" aria-label={c} aria-pressed={formik.values.color.toLowerCase() === c} onClick={() => void formik.setFieldValue('color', c)} style={{ width: 24, height: 24, borderRadius: '50%', background: c, border: formik.values.color.toLowerCase() === c ? '2px solid currentColor' : '2px solid transparent', cursor: 'pointer' }} />
          ))}
        </div>
        <DialogActions>
          <Button variant="text" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" disabled={formik.isSubmitting} data-testid="tag-submit">
            {t(tag ? 'tags.form.save' : 'tags.form.add')}
          </Button>
        </DialogActions>
      </form>
    </Modal>
  );
}

/** /tags. */
export const NormalTagsPage = () => <TagsPage kanban={false} />;
/** /tagsKanban. */
export const KanbanTagsPage = () => <TagsPage kanban />;
