import { useCallback, useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import { toastError, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Button, IconButton } from '@atendo/web-ui';
import { DataTable, ListFrame, ListHeader, ListStatus, navigateTo, pagedListStatus, SearchBox, TableCard, usePagedList } from '@atendo/web-kit';
import { CampaignIcon, ConfirmDialog, StatusChip } from '../../lib/parts';
import { cancelCampaign, deleteCampaign, fetchCampaigns, formatDateTime, keys, restartCampaign, type Campaign, type CampaignEvent } from '../../lib/api';
import { CampaignModal } from './CampaignModal';

/**
 * Campaigns (/campaigns; spec 3-campaigns-and-tools.md §2 "Campaigns list"): a searchable, infinite table
 * with the spec's columns (name, status, contact list or "Não definida", connection or "Não definido",
 * schedule or "Sem agendamento", completion or "Não concluída", confirmation Habilitada/Desabilitada) and
 * actions (stop while running, restart when cancelled, report, edit, delete); the campaign dialog; live on
 * `company-{id}-campaign`.
 */
export function CampaignsPage() {
  const { t, i18n } = useTranslation('campaigns');
  const me = useSessionUser();
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<{ campaign: Campaign | null } | null>(null);
  const [deleting, setDeleting] = useState<Campaign | null>(null);
  const [busy, setBusy] = useState<number | null>(null);
  const matches = useCallback((c: Campaign, term: string) => !term || c.name.toLowerCase().includes(term), []);
  const list = usePagedList<Campaign>({ baseKey: keys.campaigns, search, fetchPage: fetchCampaigns, matches });
  const { apply } = list;
  const client = useQueryClient();
  // Statuses move while the page is closed (no live events then): a cached list is refreshed on opening.
  useEffect(() => {
    void client.invalidateQueries({ queryKey: keys.campaigns, predicate: (q) => q.state.dataUpdatedAt > 0 && q.state.fetchStatus === 'idle' });
  }, [client]);
  useSocketEvent<CampaignEvent>(me ? `company-${me.companyId}-campaign` : null, (event) => {
    if (!event || typeof event !== 'object') return;
    if (event.action === 'delete') apply({ type: 'remove', id: Number(event.id) });
    else if (event.record && typeof event.record.id === 'number') {
      apply({ type: 'upsert', record: event.record });
      setEditing((e) => (e?.campaign?.id === event.record.id ? { campaign: event.record } : e));
    }
  });

  const act = async (c: Campaign, run: (id: number) => Promise<Campaign>, done: string) => {
    if (busy) return;
    setBusy(c.id);
    try {
      apply({ type: 'upsert', record: await run(c.id) });
      toast.success(t(done));
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(null);
    }
  };

  const confirmDelete = async () => {
    if (!deleting || busy) return;
    setBusy(deleting.id);
    try {
      await deleteCampaign(deleting.id);
      apply({ type: 'remove', id: deleting.id });
      toast.success(t('campaigns.toasts.deleted'));
      setDeleting(null);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(null);
    }
  };

  const lng = i18n.language;
  return (
    <ListFrame data-testid="campaigns-page">
      <ListHeader title={t('campaigns.title')} count={typeof list.count === 'number' ? t('campaigns.count', { count: list.count }) : undefined} countTestId="campaigns-count">
        <SearchBox value={search} onChange={setSearch} label={t('common.search')} testId="campaigns-search" />
        <Button variant="secondary" onClick={() => navigateTo('/contact-lists')} data-testid="campaigns-lists">
          <CampaignIcon name="people" size={18} />
          {t('campaigns.contactLists')}
        </Button>
        <Button onClick={() => setEditing({ campaign: null })} data-testid="campaign-add">
          <CampaignIcon name="plus" size={18} />
          {t('campaigns.add')}
        </Button>
      </ListHeader>
      <TableCard onScroll={list.onScroll}>
        {list.query.isPending ? null : (
          <DataTable>
            <thead>
              <tr>
                <th scope="col" className="start">{t('campaigns.columns.name')}</th>
                <th scope="col">{t('campaigns.columns.status')}</th>
                <th scope="col">{t('campaigns.columns.contactList')}</th>
                <th scope="col">{t('campaigns.columns.connection')}</th>
                <th scope="col">{t('campaigns.columns.scheduledAt')}</th>
                <th scope="col">{t('campaigns.columns.completedAt')}</th>
                <th scope="col">{t('campaigns.columns.confirmation')}</th>
                <th scope="col">{t('common.actions')}</th>
              </tr>
            </thead>
            <tbody data-testid="campaigns-rows">
              {list.rows.map((c) => (
                <tr key={c.id} data-testid={`campaign-row-${c.id}`}>
                  <td className="start">{c.name}</td>
                  <td>
                    <StatusChip status={c.status} testId={`campaign-status-${c.id}`} />
                  </td>
                  <td>{c.contactList?.name ?? (c.tagListId ? t('campaigns.byTag') : t('campaigns.noList'))}</td>
                  <td>{c.whatsapps?.length ? c.whatsapps.map((w) => w.name).join(', ') : (c.whatsapp?.name ?? t('campaigns.noConnection'))}</td>
                  <td>{c.scheduledAt ? formatDateTime(c.scheduledAt, lng) : t('campaigns.noSchedule')}</td>
                  <td>{c.completedAt ? formatDateTime(c.completedAt, lng) : t('campaigns.notCompleted')}</td>
                  <td>{c.confirmation ? t('campaigns.enabled') : t('campaigns.disabled')}</td>
                  <td className="actions">
                    {c.status === 'EM_ANDAMENTO' ? (
                      <IconButton label={t('campaigns.stop', { name: c.name })} tone="default" disabled={busy === c.id} onClick={() => void act(c, cancelCampaign, 'campaigns.toasts.cancelled')} data-testid={`campaign-stop-${c.id}`}>
                        <CampaignIcon name="stop" />
                      </IconButton>
                    ) : null}
                    {c.status === 'CANCELADA' ? (
                      <IconButton label={t('campaigns.restart', { name: c.name })} tone="default" disabled={busy === c.id} onClick={() => void act(c, restartCampaign, 'campaigns.toasts.restarted')} data-testid={`campaign-restart-${c.id}`}>
                        <CampaignIcon name="restart" />
                      </IconButton>
                    ) : null}
                    {c.status !== 'INATIVA' ? (
                      <IconButton label={t('campaigns.report', { name: c.name })} tone="default" onClick={() => navigateTo(`/campaign/${c.id}/report`)} data-testid={`campaign-report-${c.id}`}>
                        <CampaignIcon name="report" />
                      </IconButton>
                    ) : null}
                    <IconButton label={t('campaigns.edit', { name: c.name })} tone="default" onClick={() => setEditing({ campaign: c })} data-testid={`campaign-edit-${c.id}`}>
                      <CampaignIcon name="edit" />
                    </IconButton>
                    <IconButton label={t('campaigns.delete', { name: c.name })} tone="default" onClick={() => setDeleting(c)} data-testid={`campaign-delete-${c.id}`}>
                      <CampaignIcon name="trash" />
                    </IconButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </DataTable>
        )}
        <ListStatus
          {...pagedListStatus(list)}
          texts={{ loading: t('common.loading'), empty: list.query.isError ? t('common.loadFailed') : t('campaigns.empty'), retry: t('common.retry'), loadMore: t('common.loadMore') }}
          emptyIcon="campaign"
          testId="campaigns"
        />
      </TableCard>
      {editing ? <CampaignModal campaign={editing.campaign} onClose={() => setEditing(null)} onSaved={(c) => apply({ type: 'upsert', record: c })} /> : null}
      <ConfirmDialog
        open={Boolean(deleting)}
        title={t('campaigns.confirm.title', { name: deleting?.name ?? '' })}
        message={t('campaigns.confirm.message')}
        confirmLabel={t('common.delete')}
        busy={busy !== null}
        onConfirm={() => void confirmDelete()}
        onClose={() => setDeleting(null)}
      />
    </ListFrame>
  );
}
