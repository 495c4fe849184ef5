import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import { toastError, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Button, IconButton } from '@atendo/web-ui';
import { Chip, DataTable, ListFrame, ListHeader, ListStatus, pagedListStatus, SearchBox, TableCard, usePagedList } from '@atendo/web-kit';
import { AgentIcon, ConfirmDialog } from '../../lib/parts';
import { canChange, deleteQuickMessage, fetchQuickMessages, inboxQuickRepliesKey, quickMessageMatches, quickMessagesKey, type QuickMessage, type QuickMessageEvent } from './api';
import { QuickMessageModal } from './QuickMessageModal';

/**
 * Quick messages (/quick-messages; spec 2-tickets.md §2 "Quick messages", §6): search (shortcode or
 * message, debounced 500 ms), infinite scroll, a table of shortcode, message, attachment name and general
 * flag; add (any user), edit and delete where allowed (admins and supervisors any, users their own
 * non-general ones; the server refuses the rest with ERR_NO_PERMISSION); the dialog with the variable
 * picker and the media attachment. Live on `company-{cid}-quickmessage`. The inbox's "/" list reads the
 * same quick messages (`GET /quick-messages/list`); writes here make it reload.
 */
export function QuickMessagesPage() {
  const { t } = useTranslation('agent');
  const me = useSessionUser();
  const client = useQueryClient();
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<{ record: QuickMessage | null } | null>(null);
  const [deleting, setDeleting] = useState<QuickMessage | null>(null);
  const [busy, setBusy] = useState(false);
  const list = usePagedList<QuickMessage>({ baseKey: quickMessagesKey, search, fetchPage: fetchQuickMessages, matches: quickMessageMatches });
  const { apply } = list;
  const changed = () => void client.invalidateQueries({ queryKey: inboxQuickRepliesKey });
  useSocketEvent<QuickMessageEvent>(me ? `company-${me.companyId}-quickmessage` : null, (event) => {
    if (!event || typeof event !== 'object') return;
    if (event.action === 'delete') apply({ type: 'remove', id: Number(event.id) });
    else if (event.record && typeof event.record.id === 'number') apply({ type: 'upsert', record: event.record });
  });

  const saved = (record: QuickMessage) => {
    apply({ type: 'upsert', record });
    changed();
  };

  const confirmDelete = async () => {
    if (!deleting || busy) return;
    setBusy(true);
    try {
      await deleteQuickMessage(deleting.id);
      apply({ type: 'remove', id: deleting.id });
      changed();
      toast.success(t('quickMessages.toasts.deleted'));
      setDeleting(null);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <ListFrame data-testid="quick-messages-page">
      <ListHeader title={t('quickMessages.title')} count={typeof list.count === 'number' ? t('quickMessages.count', { count: list.count }) : undefined} countTestId="quick-messages-count">
        <SearchBox value={search} onChange={setSearch} label={t('quickMessages.search')} testId="quick-messages-search" />
        <Button onClick={() => setEditing({ record: null })} data-testid="quick-message-add">
          <AgentIcon name="plus" size={18} />
          {t('quickMessages.add')}
        </Button>
      </ListHeader>
      <TableCard onScroll={list.onScroll}>
        {list.query.isPending ? null : (
          <DataTable>
            <thead>
              <tr>
                <th scope="col" className="start">{t('quickMessages.columns.shortcode')}</th>
                <th scope="col" className="start">{t('quickMessages.columns.message')}</th>
                <th scope="col">{t('quickMessages.columns.media')}</th>
                <th scope="col">{t('quickMessages.columns.geral')}</th>
                <th scope="col">{t('quickMessages.columns.actions')}</th>
              </tr>
            </thead>
            <tbody data-testid="quick-messages-rows">
              {list.rows.map((q) => (
                <tr key={q.id} data-testid={`quick-message-row-${q.id}`}>
                  <td className="start">
                    <strong>{q.shortcode}</strong>
                  </td>
                  <td className="start">{cut(q.message, 60)}</td>
                  <td>{q.mediaName ?? t('quickMessages.noMedia')}</td>
                  <td>
                    <Chip $tone={q.geral ? 'primary' : 'muted'}>{q.geral ? t('common.yes') : t('common.no')}</Chip>
                  </td>
                  <td className="actions">
                    {canChange(me, q) ? (
                      <>
                        <IconButton label={t('quickMessages.edit', { shortcode: q.shortcode })} tone="default" onClick={() => setEditing({ record: q })}>
                          <AgentIcon name="edit" />
                        </IconButton>
                        <IconButton label={t('quickMessages.delete', { shortcode: q.shortcode })} tone="default" onClick={() => setDeleting(q)}>
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
          texts={{ loading: t('common.loading'), empty: list.query.isError ? t('common.loadFailed') : list.term ? t('quickMessages.noResults') : t('quickMessages.empty'), retry: t('common.retry'), loadMore: t('common.loadMore') }}
          testId="quick-messages"
        />
      </TableCard>
      {editing ? <QuickMessageModal record={editing.record} onClose={() => setEditing(null)} onSaved={saved} /> : null}
      <ConfirmDialog
        open={Boolean(deleting)}
        title={t('quickMessages.confirm.title', { shortcode: deleting?.shortcode ?? '' })}
        message={t('quickMessages.confirm.message')}
        confirmLabel={t('common.delete')}
        busy={busy}
        onConfirm={() => void confirmDelete()}
        onClose={() => setDeleting(null)}
      />
    </ListFrame>
  );
}

/** `text` cut to `max` characters with '...'. */
export function cut(text: string | null | undefined, max: number): string {
  const s = text ?? '';
  return s.length > max ? `${s.slice(0, max)}...` : s;
}
