import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import { isAdmin, toastError, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Button, IconButton } from '@atendo/web-ui';
import { DataTable, ListFrame, ListHeader, ListStatus, pagedListStatus, SearchBox, TableCard, usePagedList } from '@atendo/web-kit';
import { AgentIcon, ConfirmDialog } from '../../lib/parts';
import { deleteFileList, fetchFileLists, fileListMatches, filesKey, type FileList, type FileListEvent } from './api';
import { FileListModal } from './FileListModal';

/**
 * File lists (/files; spec 3-campaigns-and-tools.md §2 "File lists (/files)"): the title with the count, a
 * search box (name, debounced 500 ms), the table of name, options (how many have a file) and actions,
 * infinite scroll; admins add, edit (the option editor and the uploads) and delete with a confirmation;
 * the others read (the server refuses their writes with ERR_NO_PERMISSION). Live on `company-{cid}-file`.
 */
export function FilesPage() {
  const { t } = useTranslation('agent');
  const me = useSessionUser();
  const admin = isAdmin(me);
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<{ record: FileList | null } | null>(null);
  const [deleting, setDeleting] = useState<FileList | null>(null);
  const [busy, setBusy] = useState(false);
  const list = usePagedList<FileList>({ baseKey: filesKey, search, fetchPage: fetchFileLists, matches: fileListMatches });
  const { apply } = list;
  useSocketEvent<FileListEvent>(me ? `company-${me.companyId}-file` : null, (event) => {
    if (!event || typeof event !== 'object') return;
    if (event.action === 'delete') apply({ type: 'remove', id: Number(event.fileId) });
    else if (event.files && typeof event.files.id === 'number') apply({ type: 'upsert', record: event.files });
  });

  const confirmDelete = async () => {
    if (!deleting || busy) return;
    setBusy(true);
    try {
      await deleteFileList(deleting.id);
      apply({ type: 'remove', id: deleting.id });
      toast.success(t('files.toasts.deleted'));
      setDeleting(null);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <ListFrame data-testid="files-page">
      <ListHeader title={t('files.title', { count: list.count ?? 0 })}>
        <SearchBox value={search} onChange={setSearch} label={t('files.search')} testId="files-search" />
        {admin ? (
          <Button onClick={() => setEditing({ record: null })} data-testid="file-list-add">
            <AgentIcon name="plus" size={18} />
            {t('files.add')}
          </Button>
        ) : null}
      </ListHeader>
      <TableCard onScroll={list.onScroll}>
        {list.query.isPending ? null : (
          <DataTable>
            <thead>
              <tr>
                <th scope="col" className="start">{t('files.columns.name')}</th>
                <th scope="col">{t('files.columns.options')}</th>
                <th scope="col">{t('files.columns.actions')}</th>
              </tr>
            </thead>
            <tbody data-testid="files-rows">
              {list.rows.map((f) => (
                <tr key={f.id} data-testid={`file-list-row-${f.id}`}>
                  <td className="start">{f.name}</td>
                  <td>{t('files.optionsCount', { count: f.options.length, withFile: f.options.filter((o) => o.path).length })}</td>
                  <td className="actions">
                    {admin ? (
                      <>
                        <IconButton label={t('files.edit', { name: f.name })} tone="default" onClick={() => setEditing({ record: f })}>
                          <AgentIcon name="edit" />
                        </IconButton>
                        <IconButton label={t('files.delete', { name: f.name })} tone="default" onClick={() => setDeleting(f)}>
                          <AgentIcon name="trash" />
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
          texts={{ loading: t('common.loading'), empty: list.query.isError ? t('common.loadFailed') : list.term ? t('files.noResults') : t('files.empty'), retry: t('common.retry'), loadMore: t('common.loadMore') }}
          testId="files"
        />
      </TableCard>
      {editing ? <FileListModal record={editing.record} onClose={() => setEditing(null)} onSaved={(f) => apply({ type: 'upsert', record: f })} /> : null}
      <ConfirmDialog
        open={Boolean(deleting)}
        title={t('files.confirm.title', { name: deleting?.name ?? '' })}
        message={t('files.confirm.message')}
        confirmLabel={t('common.delete')}
        busy={busy}
        onConfirm={() => void confirmDelete()}
        onClose={() => setDeleting(null)}
      />
    </ListFrame>
  );
}
