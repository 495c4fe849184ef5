import { useCallback, useState } from 'react';
import { useFormik } from 'formik';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import { toastError, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Button, IconButton, Modal, TextField } from '@atendo/web-ui';
import { DataTable, DialogActions, ListFrame, ListHeader, ListStatus, navigateTo, pagedListStatus, rules, SearchBox, TableCard, useFieldProps, usePagedList, yup } from '@atendo/web-kit';
import { CampaignIcon, ConfirmDialog } from '../../lib/parts';
import { createList, deleteList, downloadExample, fetchLists, keys, updateList, type ContactList, type ContactListEvent } from '../../lib/api';

/**
 * Deleting a list deletes its items: the rule of deleting one item (contacts-page:deleteContact, spec §6):
 * admins and supervisors (the API answers 403 to a plain user).
 */
const mayDelete = (u: { profile?: string; super?: boolean } | null) => Boolean(u && (u.super || ['admin', 'supervisor'].includes(String(u.profile).toLowerCase())));

/** The list form's rule (spec §5): name required, 2 to 50 characters. */
export const listSchema = yup.object({ name: rules.name() });

/**
 * Contact lists (/contact-lists; spec 3-campaigns-and-tools.md §2 "Contact lists"): a searchable, infinite
 * table (name, contacts count, actions: example spreadsheet, the list's contacts, edit, delete with a
 * confirmation for admins and supervisors), the add/edit dialog; live on `company-{id}-ContactList`.
 */
export function ContactListsPage() {
  const { t } = useTranslation('campaigns');
  const me = useSessionUser();
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<{ list: ContactList | null } | null>(null);
  const [deleting, setDeleting] = useState<ContactList | null>(null);
  const [busy, setBusy] = useState(false);
  const matches = useCallback((l: ContactList, term: string) => !term || l.name.toLowerCase().includes(term), []);
  const list = usePagedList<ContactList>({ baseKey: keys.lists, search, fetchPage: fetchLists, matches });
  const { apply } = list;
  useSocketEvent<ContactListEvent>(me ? `company-${me.companyId}-ContactList` : null, (event) => {
    if (!event || typeof event !== 'object') return;
    if (event.action === 'delete') apply({ type: 'remove', id: Number(event.id) });
    else if (event.record && typeof event.record.id === 'number') apply({ type: 'upsert', record: event.record });
  });

  const example = () => downloadExample().catch((err: unknown) => toastError(err));

  const confirmDelete = async () => {
    if (!deleting || busy) return;
    setBusy(true);
    try {
      await deleteList(deleting.id);
      apply({ type: 'remove', id: deleting.id });
      toast.success(t('contactLists.toasts.deleted'));
      setDeleting(null);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <ListFrame data-testid="contact-lists-page">
      <ListHeader title={t('contactLists.title')} count={typeof list.count === 'number' ? t('contactLists.count', { count: list.count }) : undefined} countTestId="contact-lists-count">
        <SearchBox value={search} onChange={setSearch} label={t('common.search')} testId="contact-lists-search" />
        <Button onClick={() => setEditing({ list: null })} data-testid="contact-list-add">
          <CampaignIcon name="plus" size={18} />
          {t('contactLists.add')}
        </Button>
      </ListHeader>
      <TableCard onScroll={list.onScroll}>
        {list.query.isPending ? null : (
          <DataTable>
            <thead>
              <tr>
                <th scope="col" className="start">{t('contactLists.columns.name')}</th>
                <th scope="col">{t('contactLists.columns.contacts')}</th>
                <th scope="col">{t('common.actions')}</th>
              </tr>
            </thead>
            <tbody data-testid="contact-lists-rows">
              {list.rows.map((l) => (
                <tr key={l.id} data-testid={`contact-list-row-${l.id}`}>
                  <td className="start">{l.name}</td>
                  <td data-testid={`contact-list-count-${l.id}`}>{Number(l.contactsCount) || 0}</td>
                  <td className="actions">
                    <IconButton label={t('contactLists.example')} tone="default" onClick={() => void example()}>
                      <CampaignIcon name="download" />
                    </IconButton>
                    <IconButton label={t('contactLists.contacts', { name: l.name })} tone="default" onClick={() => navigateTo(`/contact-lists/${l.id}/contacts`)} data-testid={`contact-list-open-${l.id}`}>
                      <CampaignIcon name="people" />
                    </IconButton>
                    <IconButton label={t('contactLists.edit', { name: l.name })} tone="default" onClick={() => setEditing({ list: l })}>
                      <CampaignIcon name="edit" />
                    </IconButton>
                    {mayDelete(me) ? (
                      <IconButton label={t('contactLists.delete', { name: l.name })} tone="default" onClick={() => setDeleting(l)}>
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
          texts={{ loading: t('common.loading'), empty: list.query.isError ? t('common.loadFailed') : t('contactLists.empty'), retry: t('common.retry'), loadMore: t('common.loadMore') }}
          emptyIcon="list"
          testId="contact-lists"
        />
      </TableCard>
      {editing ? <ListModal list={editing.list} onClose={() => setEditing(null)} onSaved={(l) => apply({ type: 'upsert', record: l })} /> : null}
      <ConfirmDialog
        open={Boolean(deleting)}
        title={t('contactLists.confirm.title', { name: deleting?.name ?? '' })}
        message={t('contactLists.confirm.message')}
        confirmLabel={t('common.delete')}
        busy={busy}
        onConfirm={() => void confirmDelete()}
        onClose={() => setDeleting(null)}
      />
    </ListFrame>
  );
}

/** The add/edit dialog of a contact list (name). */
function ListModal({ list, onClose, onSaved }: { list: ContactList | null; onClose: () => void; onSaved: (list: ContactList) => void }) {
  const { t } = useTranslation('campaigns');
  const formik = useFormik({
    initialValues: { name: list?.name ?? '' },
    validationSchema: listSchema,
    onSubmit: async (values) => {
      try {
        const saved = list ? await updateList(list.id, values.name.trim()) : await createList(values.name.trim());
        onSaved(saved);
        toast.success(t('contactLists.toasts.saved'));
        onClose();
      } catch (err) {
        toastError(err);
      }
    },
  });
  const field = useFieldProps(formik);
  return (
    <Modal open title={t(list ? 'contactLists.form.editTitle' : 'contactLists.form.addTitle')} onClose={onClose} closeLabel={t('common.close')}>
      <form onSubmit={formik.handleSubmit} noValidate data-testid="contact-list-form">
        <TextField label={t('contactLists.form.name')} {...field('name')} data-testid="contact-list-name" />
        <DialogActions>
          <Button variant="text" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" disabled={formik.isSubmitting} data-testid="contact-list-submit">
            {t(list ? 'common.save' : 'common.add')}
          </Button>
        </DialogActions>
      </form>
    </Modal>
  );
}
