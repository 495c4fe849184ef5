import { useCallback, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import { toastError, useCompanyPlan, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Button, IconButton } from '@atendo/web-ui';
import { applyArrayChange, Chip, ColorChip, DataTable, ListFrame, ListHeader, ListStatus, TableCard, useErrorToast, type ListChange } from '@atendo/web-kit';
import { fetchQueues, sharedKeys, type Queue } from '../../lib/api';
import { AdminIcon, ConfirmDialog } from '../../lib/parts';
import { deleteQueue, type QueueEvent } from './api';
import { QueueModal } from './QueueModal';

/** Queues sorted as the API lists them: by orderQueue (none last), then id. */
export function sortQueues<T extends { id: number; orderQueue: number | null }>(list: T[]): T[] {
  return [...list].sort((a, b) => (a.orderQueue ?? Infinity) - (b.orderQueue ?? Infinity) || a.id - b.id);
}

/**
 * Queues (spec 2-tickets.md §2 "Queues": id, name, colour, order, greeting, actions): the add/edit dialog
 * with the chatbot option-tree editor and, when scheduleType is `queue`, the service hours; delete
 * confirmation; the plan's queue limit next to the total; live on `company-{id}-queue`.
 */
export function QueuesPage() {
  const { t } = useTranslation('admin');
  const me = useSessionUser();
  const client = useQueryClient();
  const plan = useCompanyPlan().data?.plan;
  const [editing, setEditing] = useState<{ id: number | null } | null>(null);
  const [deleting, setDeleting] = useState<Queue | null>(null);
  const [busy, setBusy] = useState(false);
  const query = useQuery({ queryKey: sharedKeys.queues, queryFn: ({ signal }) => fetchQueues(signal) });
  useErrorToast(query.error);
  const apply = useCallback(
    (change: ListChange<Queue>) => client.setQueryData<Queue[]>(sharedKeys.queues, (old) => {
      const next = applyArrayChange(old, change);
      return next ? sortQueues(next) : next;
    }),
    [client],
  );
  useSocketEvent<QueueEvent>(me ? `company-${me.companyId}-queue` : null, (event) => {
    if (!event || typeof event !== 'object') return;
    if (event.action === 'delete') apply({ type: 'remove', id: Number(event.queueId) });
    else if (event.queue && typeof event.queue.id === 'number') apply({ type: 'upsert', record: event.queue });
  });

  const confirmDelete = async () => {
    if (!deleting || busy) return;
    setBusy(true);
    try {
      await deleteQueue(deleting.id);
      apply({ type: 'remove', id: deleting.id });
      toast.success(t('queues.toasts.deleted'));
      setDeleting(null);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  const rows = query.data ?? [];
  const limit = plan && typeof plan.queues === 'number' ? plan.queues : undefined;
  const countText = query.data ? (limit !== undefined ? t('queues.countOfLimit', { count: rows.length, limit }) : t('queues.count', { count: rows.length })) : undefined;
  const atLimit = limit !== undefined && query.data !== undefined && rows.length >= limit;

  return (
    <ListFrame data-testid="queues-page">
      <ListHeader title={t('queues.title')} count={countText} countTestId="queues-count">
        <Button onClick={() => setEditing({ id: null })} data-testid="queue-add">
          <AdminIcon name="plus" size={18} />
          {t('queues.add')}
        </Button>
      </ListHeader>
      {atLimit ? (
        <Chip $tone="warning" role="status" data-testid="queues-limit" style={{ alignSelf: 'flex-start' }}>
          {t('queues.limitReached')}
        </Chip>
      ) : null}
      <TableCard>
        {query.isPending ? null : (
          <DataTable>
            <thead>
              <tr>
                <th scope="col">{t('queues.columns.id')}</th>
                <th scope="col" className="start">{t('queues.columns.name')}</th>
                <th scope="col">{t('queues.columns.color')}</th>
                <th scope="col">{t('queues.columns.order')}</th>
                <th scope="col" className="start">{t('queues.columns.greeting')}</th>
                <th scope="col">{t('queues.columns.actions')}</th>
              </tr>
            </thead>
            <tbody data-testid="queues-rows">
              {rows.map((q) => (
                <tr key={q.id} data-testid={`queue-row-${q.id}`}>
                  <td>{q.id}</td>
                  <td className="start">{q.name}</td>
                  <td>
                    <ColorChip $color={q.color} title={q.color}>
                      {q.color}
                    </ColorChip>
                  </td>
                  <td>{q.orderQueue ?? '–'}</td>
                  <td className="start">{q.greetingMessage ? (q.greetingMessage.length > 80 ? `${q.greetingMessage.slice(0, 80)}…` : q.greetingMessage) : ''}</td>
                  <td className="actions">
                    <IconButton label={t('queues.edit', { name: q.name })} tone="default" onClick={() => setEditing({ id: q.id })}>
                      <AdminIcon name="edit" />
                    </IconButton>
                    <IconButton label={t('queues.delete', { name: q.name })} tone="default" onClick={() => setDeleting(q)}>
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
          texts={{ loading: t('common.loading'), empty: query.isError ? t('common.loadFailed') : t('queues.empty'), retry: t('common.retry') }}
          emptyIcon="queue"
          testId="queues"
        />
      </TableCard>
      {editing ? <QueueModal queueId={editing.id} onClose={() => setEditing(null)} onSaved={(q) => apply({ type: 'upsert', record: q })} /> : null}
      <ConfirmDialog
        open={Boolean(deleting)}
        title={t('queues.confirm.title', { name: deleting?.name ?? '' })}
        message={t('queues.confirm.message')}
        confirmLabel={t('queues.confirm.confirm')}
        busy={busy}
        onConfirm={() => void confirmDelete()}
        onClose={() => setDeleting(null)}
      />
    </ListFrame>
  );
}
