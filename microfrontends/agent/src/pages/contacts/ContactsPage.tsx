import { useCallback, useEffect, useMemo, useRef, useState, type ChangeEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { errorText, HttpError, toastError, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Button, Icon, IconButton, Modal, Popover } from '@atendo/web-ui';
import { CheckboxField, Chip, ColorChip, contactPrivacyTexts, ContactPrivacyActions, DataTable, DialogActions, ListFrame, ListHeader, ListStatus, navigateTo, pagedListStatus, SearchBox, TableCard, usePagedList } from '@atendo/web-kit';
import { AgentIcon, ConfirmDialog } from '../../lib/parts';
import {
  contactMatches,
  contactsKey,
  contactsListKey,
  deleteContact,
  exportContacts,
  fetchContact,
  fetchContacts,
  fetchImport,
  fetchTagOptions,
  IMPORT_ACCEPT,
  IMPORT_MAX_BYTES,
  mayDelete,
  setContactActive,
  uploadContactsSheet,
  type Contact,
  type ContactEvent,
  type ImportProgress,
  type OtherTicket,
} from './api';
import { ContactModal } from './ContactModal';
import { MergeDialog, type MergeStart } from './MergeDialog';
import { OpenTicketDialog } from './OpenTicketDialog';

const Name = styled.span`
  display: inline-flex;
  align-items: center;
  gap: ${(p) => p.theme.space(1)};
  img { width: 32px; height: 32px; border-radius: 50%; object-fit: cover; }
`;

const Tags = styled.span`
  display: inline-flex;
  flex-wrap: wrap;
  gap: 4px;
  justify-content: center;
`;

const ImportBox = styled.section`
  display: flex;
  flex-direction: column;
  gap: ${(p) => p.theme.space(1)};
  padding: ${(p) => p.theme.space(1.5)};
  border: 1px solid ${(p) => p.theme.colors.border};
  border-radius: ${(p) => p.theme.radius.md};
  background: ${(p) => p.theme.colors.surface};
  progress { width: 100%; height: 10px; accent-color: ${(p) => p.theme.colors.primary}; }
  ul { margin: 0; padding-left: 1.2em; max-height: 160px; overflow: auto; color: ${(p) => p.theme.colors.danger}; font-size: ${(p) => p.theme.font.size.sm}; }
  header { display: flex; align-items: center; gap: ${(p) => p.theme.space(1)}; justify-content: space-between; }
`;

const FilterList = styled.div`
  display: flex;
  flex-direction: column;
  padding: ${(p) => p.theme.space(1)};
`;

/** An import on its way: the sheet being uploaded, then its progress (from the socket, or a poll when the socket is quiet). */
type ImportState = { phase: 'sending' } | ({ phase: 'progress' } & ImportProgress);

/** How often a running import is re-read when no socket event came (the events are the normal path). */
const IMPORT_POLL_MS = 4000;

/**
 * Contacts (/contacts; spec 2-tickets.md §2 "Contacts", §4 "Contact", §5, §6, §7): search (name, or number
 * digits; debounced 500 ms), tag filter (any of the chosen tags), infinite scroll (100 a page), add/edit
 * with extra info and tags, block/unblock, delete (admins: contacts-page:deleteContact), the open-ticket
 * action (connection and queue; the existing-ticket answer as in the inbox), import of an .xls/.xlsx (or
 * .csv) sheet with its progress, counts and refused rows live from the server's `import-progress` /
 * `import-done` events, export to .xlsx, and (admins) the merge of duplicate contacts with a preview first
 * (MergeDialog: the server's likely duplicates, or a contact's row and the duplicates searched). Numbers are shown as the server answers them (masked for
 * attendants when lgpdHideNumber is on). Live on `company-{cid}-contact`: a created or updated contact is
 * re-read through `GET /contacts/:id` (so what shows is what the viewer may see), a deleted one goes.
 */
export function ContactsPage() {
  const { t, i18n } = useTranslation('agent');
  const me = useSessionUser();
  const client = useQueryClient();
  const [search, setSearch] = useState('');
  const [tagFilter, setTagFilter] = useState<number[]>([]);
  const [filterOpen, setFilterOpen] = useState(false);
  const filterAnchor = useRef<HTMLButtonElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const [editing, setEditing] = useState<{ id: number | null } | null>(null);
  const [deleting, setDeleting] = useState<Contact | null>(null);
  const [blocking, setBlocking] = useState<Contact | null>(null);
  const [ticketFor, setTicketFor] = useState<Contact | null>(null);
  const [merging, setMerging] = useState<MergeStart | null>(null);
  const [other, setOther] = useState<OtherTicket | null>(null);
  const [busy, setBusy] = useState(false);
  const [importing, setImporting] = useState<ImportState | null>(null);
  /** Import events by job, kept in case they arrive before the upload's answer names the job. */
  const importEvents = useRef(new Map<string, ImportProgress>());

  const baseKey = useMemo(() => contactsListKey(tagFilter), [tagFilter]);
  const fetchPage = useCallback((term: string, n: number, signal: AbortSignal) => fetchContacts(term, tagFilter, n, signal), [tagFilter]);
  const matches = useCallback((c: Contact, term: string) => contactMatches(c, term, tagFilter), [tagFilter]);
  const list = usePagedList<Contact>({ baseKey, search, fetchPage, matches });
  const { apply } = list;
  const tagOptions = useQuery({ queryKey: [...contactsKey, 'tag-options'], queryFn: ({ signal }) => fetchTagOptions(signal), staleTime: 30_000 });

  const jobId = importing?.phase === 'progress' ? importing.jobId : null;
  const reloadList = useCallback(() => void client.invalidateQueries({ queryKey: contactsKey }), [client]);
  const showProgress = useCallback(
    (p: ImportProgress) => {
      setImporting({ phase: 'progress', ...p });
      if (p.status !== 'running') reloadList();
    },
    [reloadList],
  );

  useSocketEvent<ContactEvent>(me ? `company-${me.companyId}-contact` : null, (event) => {
    if (!event || typeof event !== 'object') return;
    if (event.action === 'delete') {
      apply({ type: 'remove', id: Number(event.contactId) });
    } else if (event.action === 'create' || event.action === 'update') {
      const id = Number(event.contact?.id);
      if (!Number.isInteger(id)) return;
      fetchContact(id).then(
        (c) => apply({ type: 'upsert', record: c }),
        (err: unknown) => {
          if (err instanceof HttpError && err.status === 404) apply({ type: 'remove', id });
        },
      );
    } else if (event.action === 'import-progress' || event.action === 'import-done') {
      const { action: _action, ...p } = event;
      importEvents.current.set(p.jobId, p);
      if (p.jobId === jobId) showProgress(p);
    }
  });

  // The socket is the normal path; a quiet one (reconnecting) must not leave the bar stuck.
  const running = importing?.phase === 'progress' && importing.status === 'running';
  useEffect(() => {
    if (!running || !jobId) return undefined;
    const timer = setInterval(() => {
      fetchImport(jobId).then((p) => {
        const seen = importEvents.current.get(jobId);
        if (!seen || seen.processed <= p.processed) showProgress(p);
      }, () => undefined);
    }, IMPORT_POLL_MS);
    return () => clearInterval(timer);
  }, [running, jobId, showProgress]);

  const pickFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    if (file.size > IMPORT_MAX_BYTES) {
      toast.error(t('contacts.import.tooLarge'));
      return;
    }
    setImporting({ phase: 'sending' });
    try {
      const { jobId: id, total } = await uploadContactsSheet(file);
      showProgress(importEvents.current.get(id) ?? { jobId: id, status: 'running', processed: 0, total, created: 0, updated: 0, errors: [] });
    } catch (err) {
      setImporting(null);
      toastError(err);
    }
  };

  const confirmDelete = async () => {
    if (!deleting || busy) return;
    setBusy(true);
    try {
      await deleteContact(deleting.id);
      apply({ type: 'remove', id: deleting.id });
      toast.success(t('contacts.toasts.deleted'));
      setDeleting(null);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  const setActive = async (c: Contact, active: boolean) => {
    if (busy) return;
    setBusy(true);
    try {
      const saved = await setContactActive(c.id, active);
      apply({ type: 'upsert', record: { ...c, ...saved, tags: saved.tags ?? c.tags } });
      toast.success(t(active ? 'contacts.toasts.unblocked' : 'contacts.toasts.blocked'));
      setBlocking(null);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  const toggleTag = (id: number) => setTagFilter((cur) => (cur.includes(id) ? cur.filter((x) => x !== id) : [...cur, id]));

  return (
    <ListFrame data-testid="contacts-page">
      <ListHeader title={t('contacts.title')} count={typeof list.count === 'number' ? t('contacts.count', { count: list.count }) : undefined} countTestId="contacts-count">
        <SearchBox value={search} onChange={setSearch} label={t('contacts.search')} testId="contacts-search" />
        <Button ref={filterAnchor} variant="secondary" onClick={() => setFilterOpen((o) => !o)} aria-expanded={filterOpen} data-testid="contacts-tag-filter">
          {tagFilter.length ? t('contacts.filter.active', { count: tagFilter.length }) : t('contacts.filter.button')}
        </Button>
        <Popover open={filterOpen} onClose={() => setFilterOpen(false)} anchorRef={filterAnchor} label={t('contacts.filter.button')} width={260}>
          <FilterList data-testid="contacts-tag-options">
            {tagOptions.data?.length ? (
              tagOptions.data.map((tag) => <CheckboxField key={tag.id} label={tag.name} checked={tagFilter.includes(tag.id)} onChange={() => toggleTag(tag.id)} testId={`contacts-tag-option-${tag.id}`} />)
            ) : (
              <p>{tagOptions.isPending ? t('common.loading') : t('contacts.filter.none')}</p>
            )}
            {tagFilter.length ? (
              <Button variant="text" onClick={() => setTagFilter([])}>
                {t('contacts.filter.clear')}
              </Button>
            ) : null}
          </FilterList>
        </Popover>
        <input ref={fileInput} type="file" accept={IMPORT_ACCEPT} hidden onChange={(e) => void pickFile(e)} data-testid="contacts-import-file" />
        <Button variant="secondary" onClick={() => fileInput.current?.click()} disabled={importing?.phase === 'sending' || running} data-testid="contacts-import">
          <AgentIcon name="upload" size={18} />
          {t('contacts.import.button')}
        </Button>
        <Button variant="secondary" onClick={() => void exportContacts().catch((err: unknown) => toastError(err))} data-testid="contacts-export">
          <AgentIcon name="download" size={18} />
          {t('contacts.import.export')}
        </Button>
        {mayDelete(me) ? (
          <Button variant="secondary" onClick={() => setMerging({ kind: 'duplicates' })} data-testid="contacts-duplicates">
            <AgentIcon name="merge" size={18} />
            {t('contacts.merge.button')}
          </Button>
        ) : null}
        <Button onClick={() => setEditing({ id: null })} data-testid="contact-add">
          <AgentIcon name="plus" size={18} />
          {t('contacts.add')}
        </Button>
      </ListHeader>
      {importing ? <ImportStatus state={importing} onClose={importing.phase === 'progress' && importing.status !== 'running' ? () => setImporting(null) : undefined} /> : null}
      <TableCard onScroll={list.onScroll}>
        {list.query.isPending ? null : (
          <DataTable>
            <thead>
              <tr>
                <th scope="col" className="start">{t('contacts.columns.name')}</th>
                <th scope="col">{t('contacts.columns.number')}</th>
                <th scope="col">{t('contacts.columns.email')}</th>
                <th scope="col">{t('contacts.columns.tags')}</th>
                <th scope="col">{t('contacts.columns.status')}</th>
                <th scope="col">{t('contacts.columns.actions')}</th>
              </tr>
            </thead>
            <tbody data-testid="contacts-rows">
              {list.rows.map((c) => (
                <tr key={c.id} data-testid={`contact-row-${c.id}`}>
                  <td className="start">
                    <Name>
                      {c.urlPicture || c.profilePicUrl ? <img src={c.urlPicture ?? c.profilePicUrl ?? ''} alt="" loading="lazy" /> : null}
                      {c.name}
                    </Name>
                  </td>
                  <td data-testid="contact-number-cell">{c.number}</td>
                  <td>{c.email}</td>
                  <td>
                    <Tags>
                      {(c.tags ?? []).map((tag) => (
                        <ColorChip key={tag.id} $color={tag.color}>
                          {tag.name}
                        </ColorChip>
                      ))}
                    </Tags>
                  </td>
                  <td>{c.active === false ? <Chip $tone="danger">{t('contacts.blocked')}</Chip> : null}</td>
                  <td className="actions">
                    <IconButton label={t('contacts.actions.openTicket', { name: c.name })} tone="default" onClick={() => setTicketFor(c)} disabled={c.active === false}>
                      <AgentIcon name="chat" />
                    </IconButton>
                    <IconButton label={t('contacts.actions.edit', { name: c.name })} tone="default" onClick={() => setEditing({ id: c.id })}>
                      <AgentIcon name="edit" />
                    </IconButton>
                    {c.active === false ? (
                      <IconButton label={t('contacts.actions.unblock', { name: c.name })} tone="default" onClick={() => void setActive(c, true)}>
                        <AgentIcon name="unblock" />
                      </IconButton>
                    ) : (
                      <IconButton label={t('contacts.actions.block', { name: c.name })} tone="default" onClick={() => setBlocking(c)}>
                        <AgentIcon name="block" />
                      </IconButton>
                    )}
                    {mayDelete(me) ? (
                      <ContactPrivacyActions contact={c} texts={contactPrivacyTexts(i18n.language)} onDone={(action, text) => { toast.success(text); if (action === 'anonymize') reloadList(); }} renderButton={(action, label, onClick, busy) => (
                        <IconButton label={`${label}: ${c.name}`} tone="default" onClick={onClick} disabled={busy} data-testid={`contact-${action}-${c.id}`}>{action === 'export' ? <AgentIcon name="download" /> : <Icon name="eyeOff" size={20} />}</IconButton>
                      )} />
                    ) : null}
                    {mayDelete(me) && !c.isGroup ? (
                      <IconButton label={t('contacts.actions.merge', { name: c.name })} tone="default" onClick={() => setMerging({ kind: 'pick', contact: c })} data-testid={`contact-merge-${c.id}`}>
                        <AgentIcon name="merge" />
                      </IconButton>
                    ) : null}
                    {mayDelete(me) ? (
                      <IconButton label={t('contacts.actions.delete', { name: c.name })} tone="default" onClick={() => setDeleting(c)}>
                        <AgentIcon name="trash" />
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
          texts={{ loading: t('common.loading'), empty: list.query.isError ? t('common.loadFailed') : list.term || tagFilter.length ? t('contacts.noResults') : t('contacts.empty'), retry: t('common.retry'), loadMore: t('common.loadMore') }}
          emptyIcon="contacts"
          testId="contacts"
        />
      </TableCard>
      {merging ? (
        <MergeDialog
          start={merging}
          onClose={() => setMerging(null)}
          onMerged={() => {
            setMerging(null);
            reloadList();
          }}
        />
      ) : null}
      {editing ? <ContactModal contactId={editing.id} onClose={() => setEditing(null)} onSaved={(c) => apply({ type: 'upsert', record: c })} /> : null}
      {ticketFor ? (
        <OpenTicketDialog
          contact={ticketFor}
          onClose={() => setTicketFor(null)}
          onOpened={(uuid) => {
            setTicketFor(null);
            navigateTo(`/tickets/${uuid}`);
          }}
          onOther={(facts) => {
            setTicketFor(null);
            setOther(facts);
          }}
        />
      ) : null}
      <Modal open={Boolean(other)} title={t('contacts.ticket.otherTitle')} onClose={() => setOther(null)} closeLabel={t('common.close')}>
        <p data-testid="other-open-message">{t('contacts.ticket.otherMessage', { user: other?.userName || t('contacts.ticket.otherNoUser'), queue: other?.queueName || t('contacts.ticket.otherNoQueue') })}</p>
        <DialogActions>
          <Button onClick={() => setOther(null)}>{t('common.close')}</Button>
        </DialogActions>
      </Modal>
      <ConfirmDialog
        open={Boolean(blocking)}
        title={t('contacts.confirm.blockTitle', { name: blocking?.name ?? '' })}
        message={t('contacts.confirm.blockMessage')}
        confirmLabel={t('contacts.confirm.block')}
        busy={busy}
        onConfirm={() => blocking && void setActive(blocking, false)}
        onClose={() => setBlocking(null)}
      />
      <ConfirmDialog
        open={Boolean(deleting)}
        title={t('contacts.confirm.deleteTitle', { name: deleting?.name ?? '' })}
        message={t('contacts.confirm.deleteMessage')}
        confirmLabel={t('common.delete')}
        busy={busy}
        onConfirm={() => void confirmDelete()}
        onClose={() => setDeleting(null)}
      />
    </ListFrame>
  );
}

/** The import under way: uploading, then a bar of processed/total, the counts, and each refused row with its reason. */
function ImportStatus({ state, onClose }: { state: ImportState; onClose?: () => void }) {
  const { t } = useTranslation('agent');
  if (state.phase === 'sending') {
    return (
      <ImportBox data-testid="contacts-import-status" data-status="sending" aria-live="polite">
        <strong>{t('contacts.import.sending')}</strong>
        <progress aria-label={t('contacts.import.sending')} />
      </ImportBox>
    );
  }
  const title = state.status === 'running' ? 'contacts.import.running' : state.status === 'done' ? 'contacts.import.done' : 'contacts.import.failed';
  return (
    <ImportBox data-testid="contacts-import-status" data-status={state.status} aria-live="polite">
      <header>
        <strong>{t(title)}</strong>
        <span data-testid="contacts-import-progress">{t('contacts.import.progress', { processed: state.processed, total: state.total })}</span>
        {onClose ? (
          <IconButton label={t('contacts.import.close')} tone="default" onClick={onClose} data-testid="contacts-import-close">
            <Icon name="close" />
          </IconButton>
        ) : null}
      </header>
      <progress value={state.processed} max={Math.max(state.total, 1)} aria-label={t('contacts.import.progress', { processed: state.processed, total: state.total })} />
      <span data-testid="contacts-import-counts">{t('contacts.import.counts', { created: state.created, updated: state.updated, errors: state.errors.length })}</span>
      {state.errors.length ? (
        <ul data-testid="contacts-import-errors">
          {state.errors.map((e) => (
            <li key={`${e.row}-${e.error}`}>{t('contacts.import.errorRow', { row: e.row, error: errorText({ response: { data: { error: e.error } } }) || e.error })}</li>
          ))}
        </ul>
      ) : null}
    </ImportBox>
  );
}
