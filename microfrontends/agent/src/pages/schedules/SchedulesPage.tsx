import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import { toastError, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Button, IconButton } from '@atendo/web-ui';
import { Chip, DataTable, ListFrame, ListHeader, ListStatus, pagedListStatus, SearchBox, TableCard, usePagedList } from '@atendo/web-kit';
import { AgentIcon, ConfirmDialog } from '../../lib/parts';
import { canChange, cutBody, deleteSchedule, fetchContact, fetchSchedules, formatSendAt, scheduleMatches, schedulesKey, type ContactOption, type Schedule, type ScheduleEvent, type ScheduleStatus } from './api';
import { ScheduleModal } from './ScheduleModal';

const TONES: Record<ScheduleStatus, 'warning' | 'success' | 'danger'> = { PENDENTE: 'warning', ENVIADA: 'success', ERRO: 'danger' };

/** The `contactId` of `/schedules?contactId=` (opens the new-schedule dialog for that contact), or null. */
function contactIdFromUrl(): number | null {
  const id = Number(new URLSearchParams(window.location.search).get('contactId'));
  return Number.isInteger(id) && id > 0 ? id : null;
}

/**
 * Scheduled messages (/schedules, plan useSchedules; spec 2-tickets.md §2 "Schedules", §4, §5): search
 * (body or contact, debounced 500 ms), infinite scroll, a table of contact, body (cut to 25 characters plus
 * '...'), send time (DD/MM/YYYY HH:mm:ss), translated status (the reason of an error on hover) and
 * edit/delete (own schedules, or any for admins and supervisors); the add/edit dialog; `?contactId=` opens
 * the new-schedule dialog for that contact. Live on the spec's `company{cid}-schedule` (no dash; the server emits the dashed name too): a schedule turns "Enviada"
 * when the server sends it.
 */
export function SchedulesPage() {
  const { t } = useTranslation('agent');
  const me = useSessionUser();
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<{ record: Schedule | null; contact?: ContactOption } | null>(null);
  const [deleting, setDeleting] = useState<Schedule | null>(null);
  const [busy, setBusy] = useState(false);
  const list = usePagedList<Schedule>({ baseKey: schedulesKey, search, fetchPage: fetchSchedules, matches: scheduleMatches });
  const { apply } = list;
  useSocketEvent<ScheduleEvent>(me ? `company${me.companyId}-schedule` : null, (event) => {
    if (!event || typeof event !== 'object') return;
    if (event.action === 'delete') apply({ type: 'remove', id: Number(event.scheduleId) });
    else if (event.schedule && typeof event.schedule.id === 'number') apply({ type: 'upsert', record: event.schedule });
  });

  useEffect(() => {
    const contactId = contactIdFromUrl();
    if (!contactId) return;
    let live = true;
    fetchContact(contactId)
      .then((c) => live && setEditing({ record: null, contact: { id: c.id, name: c.name, number: c.number } }))
      .catch((err) => live && toastError(err));
    return () => {
      live = false;
    };
  }, []);

  const confirmDelete = async () => {
    if (!deleting || busy) return;
    setBusy(true);
    try {
      await deleteSchedule(deleting.id);
      apply({ type: 'remove', id: deleting.id });
      toast.success(t('schedules.toasts.deleted'));
      setDeleting(null);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <ListFrame data-testid="schedules-page">
      <ListHeader title={t('schedules.title')} count={typeof list.count === 'number' ? t('schedules.count', { count: list.count }) : undefined} countTestId="schedules-count">
        <SearchBox value={search} onChange={setSearch} label={t('schedules.search')} testId="schedules-search" />
        <Button onClick={() => setEditing({ record: null })} data-testid="schedule-add">
          <AgentIcon name="plus" size={18} />
          {t('schedules.add')}
        </Button>
      </ListHeader>
      <TableCard onScroll={list.onScroll}>
        {list.query.isPending ? null : (
          <DataTable>
            <thead>
              <tr>
                <th scope="col" className="start">{t('schedules.columns.contact')}</th>
                <th scope="col" className="start">{t('schedules.columns.body')}</th>
                <th scope="col">{t('schedules.columns.sendAt')}</th>
                <th scope="col">{t('schedules.columns.status')}</th>
                <th scope="col">{t('schedules.columns.actions')}</th>
              </tr>
            </thead>
            <tbody data-testid="schedules-rows">
              {list.rows.map((s) => (
                <tr key={s.id} data-testid={`schedule-row-${s.id}`}>
                  <td className="start">{s.contact?.name ?? ''}</td>
                  <td className="start" title={s.body}>
                    {cutBody(s.body)}
                  </td>
                  <td>{formatSendAt(s.sendAt)}</td>
                  <td>
                    <Chip $tone={TONES[s.status] ?? 'muted'} title={s.status === 'ERRO' && s.error ? s.error : undefined} data-testid={`schedule-status-${s.id}`}>
                      {t(`schedules.status.${s.status}`, { defaultValue: s.status })}
                    </Chip>
                  </td>
                  <td className="actions">
                    {canChange(me, s) ? (
                      <>
                        <IconButton label={t('schedules.edit', { name: s.contact?.name ?? '' })} tone="default" onClick={() => setEditing({ record: s })}>
                          <AgentIcon name="edit" />
                        </IconButton>
                        <IconButton label={t('schedules.delete', { name: s.contact?.name ?? '' })} tone="default" onClick={() => setDeleting(s)}>
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
          texts={{ loading: t('common.loading'), empty: list.query.isError ? t('common.loadFailed') : list.term ? t('schedules.noResults') : t('schedules.empty'), retry: t('common.retry'), loadMore: t('common.loadMore') }}
          testId="schedules"
        />
      </TableCard>
      {editing ? <ScheduleModal record={editing.record} contact={editing.contact} onClose={() => setEditing(null)} onSaved={(s) => apply({ type: 'upsert', record: s })} /> : null}
      <ConfirmDialog
        open={Boolean(deleting)}
        title={t('schedules.confirm.title')}
        message={t('schedules.confirm.message')}
        confirmLabel={t('common.delete')}
        busy={busy}
        onConfirm={() => void confirmDelete()}
        onClose={() => setDeleting(null)}
      />
    </ListFrame>
  );
}
