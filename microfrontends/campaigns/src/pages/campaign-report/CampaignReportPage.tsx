import { useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Button, Card, EmptyState, Loading, Muted, Title } from '@atendo/web-ui';
import { DataTable, ListFrame, navigateTo, useErrorToast } from '@atendo/web-kit';
import type { PageProps } from '../registry';
import { CampaignIcon, ProgressBar, StatusChip } from '../../lib/parts';
import { fetchCampaign, formatDateTime, keys, type Campaign, type CampaignEvent } from '../../lib/api';

/** The report reloads this long after a live update that finished the campaign (spec §4: 5 s). */
export const FINISHED_REFRESH_MS = 5000;

const Head = styled.header`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: ${(p) => p.theme.space(2)};
  h1 { margin: 0; }
  .tools { margin-left: auto; display: flex; gap: ${(p) => p.theme.space(1)}; }
`;
const Progress = styled(Card)`
  display: flex;
  flex-direction: column;
  gap: ${(p) => p.theme.space(1)};
  .line { display: flex; flex-wrap: wrap; align-items: center; gap: ${(p) => p.theme.space(1.5)}; }
`;
const Grid = styled.div`
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(180px, 1fr));
  gap: ${(p) => p.theme.space(1.5)};
`;
const Stat = styled(Card)`
  display: flex;
  flex-direction: column;
  gap: 4px;
  span { color: ${(p) => p.theme.colors.textMuted}; font-size: ${(p) => p.theme.font.size.sm}; }
  strong { font-size: ${(p) => p.theme.font.size.lg}; word-break: break-word; }
`;
const Recipients = styled(Card)`
  padding: 0;
  overflow: auto;
  max-height: 420px;
`;

/**
 * A campaign's report (/campaign/{id}/report; spec §2 "Campaign report", §4): the status with delivered out
 * of the valid contacts and a progress bar (delivered and failed), cards for valid contacts, confirmations
 * requested and confirmations (only with confirmation on), delivered, failed, connection, contact list,
 * schedule and conclusion; live on `company-{id}-campaign` (the record with its `counts`), and reloaded 5 s
 * after an update that sets FINALIZADA. The recipients (shipping) load on demand.
 */
export function CampaignReportPage({ params }: PageProps) {
  const { t, i18n } = useTranslation('campaigns');
  const me = useSessionUser();
  const client = useQueryClient();
  const id = Number(params.campaignId);
  const valid = Number.isInteger(id) && id > 0;
  const [showRecipients, setShowRecipients] = useState(false);
  const [finishedAt, setFinishedAt] = useState(0);
  const query = useQuery({ queryKey: keys.campaign(id), queryFn: ({ signal }) => fetchCampaign(id, false, signal), enabled: valid });
  const recipients = useQuery({ queryKey: [...keys.campaign(id), 'shipping'], queryFn: ({ signal }) => fetchCampaign(id, true, signal), enabled: valid && showRecipients });
  useErrorToast(query.error ?? recipients.error);
  // A cached report missed the events of its time away: refreshed on opening.
  useEffect(() => {
    void client.invalidateQueries({ queryKey: keys.campaign(id), exact: true, predicate: (q) => q.state.dataUpdatedAt > 0 && q.state.fetchStatus === 'idle' });
  }, [client, id]);
  useSocketEvent<CampaignEvent>(me ? `company-${me.companyId}-campaign` : null, (event) => {
    if (!event || typeof event !== 'object' || event.action === 'delete' || event.record?.id !== id) return;
    const before = client.getQueryData<Campaign>(keys.campaign(id));
    client.setQueryData(keys.campaign(id), event.record);
    if (event.record.status === 'FINALIZADA' && before?.status !== 'FINALIZADA') setFinishedAt(Date.now());
  });
  useEffect(() => {
    if (!finishedAt) return undefined;
    const timer = setTimeout(() => {
      void client.invalidateQueries({ queryKey: keys.campaign(id) });
    }, FINISHED_REFRESH_MS);
    return () => clearTimeout(timer);
  }, [finishedAt, client, id]);

  const c = query.data;
  if (!valid || query.isError) {
    return (
      <ListFrame data-testid="campaign-report-page">
        <EmptyState icon="warning" text={t('report.notFound')} role="alert" data-testid="report-failed">
          <Button variant="secondary" onClick={() => (valid ? void query.refetch() : navigateTo('/campaigns'))}>
            {valid ? t('common.retry') : t('common.back')}
          </Button>
        </EmptyState>
      </ListFrame>
    );
  }
  if (!c) return <Loading label={t('common.loading')} />;
  const lng = i18n.language;
  const counts = c.counts;
  const total = counts.validContacts;
  const connections = c.whatsapps?.length ? c.whatsapps.map((w) => w.name).join(', ') : (c.whatsapp?.name ?? t('report.none'));
  return (
    <ListFrame data-testid="campaign-report-page">
      <Head>
        <Title>{t('report.title', { name: c.name })}</Title>
        <div className="tools">
          <Button variant="secondary" onClick={() => navigateTo('/campaigns')} data-testid="report-back">
            <CampaignIcon name="back" size={18} />
            {t('report.back')}
          </Button>
        </div>
      </Head>
      <Progress>
        <div className="line">
          <StatusChip status={c.status} testId="report-status" />
          <strong data-testid="report-delivered-of">{t('report.deliveredOf', { delivered: counts.delivered, total })}</strong>
          {c.paused === 'connection' ? <Muted data-testid="report-paused">{t('report.paused')}</Muted> : null}
        </div>
        <ProgressBar value={counts.delivered + counts.failed} max={total} label={t('report.progress')} tone={c.status === 'FINALIZADA' ? 'success' : c.status === 'CANCELADA' ? 'danger' : 'primary'} testId="report-progress" />
      </Progress>
      <Grid>
        <StatCard label={t('report.cards.validContacts')} value={total} testId="report-valid" />
        {c.confirmation ? <StatCard label={t('report.cards.confirmationRequested')} value={counts.confirmationRequested} testId="report-requested" /> : null}
        {c.confirmation ? <StatCard label={t('report.cards.confirmed')} value={counts.confirmed} testId="report-confirmed" /> : null}
        <StatCard label={t('report.cards.delivered')} value={counts.delivered} testId="report-delivered" />
        <StatCard label={t('report.cards.failed')} value={counts.failed} testId="report-failed-count" />
        <StatCard label={t('report.cards.connection')} value={connections} />
        <StatCard label={t('report.cards.contactList')} value={c.contactList?.name ?? t('report.none')} />
        <StatCard label={t('report.cards.scheduledAt')} value={c.scheduledAt ? formatDateTime(c.scheduledAt, lng) : t('report.none')} />
        <StatCard label={t('report.cards.completedAt')} value={c.completedAt ? formatDateTime(c.completedAt, lng) : t('report.none')} testId="report-completed" />
      </Grid>
      {showRecipients ? (
        <Recipients data-testid="report-recipients">
          {recipients.isPending ? (
            <Loading label={t('common.loading')} />
          ) : !recipients.data?.shipping?.length ? (
            <EmptyState icon="inbox" text={t('report.noRecipients')} />
          ) : (
            <DataTable>
              <thead>
                <tr>
                  <th scope="col" className="start">{t('report.columns.name')}</th>
                  <th scope="col">{t('report.columns.number')}</th>
                  <th scope="col">{t('report.columns.status')}</th>
                  <th scope="col">{t('report.columns.confirmationRequestedAt')}</th>
                  <th scope="col">{t('report.columns.deliveredAt')}</th>
                </tr>
              </thead>
              <tbody>
                {recipients.data.shipping.map((s) => (
                  <tr key={s.id} data-testid={`recipient-${s.id}`}>
                    <td className="start">{s.name}</td>
                    <td>{s.number}</td>
                    <td title={s.error ?? undefined}>{t(`report.shipping.${s.status}`, { defaultValue: s.status })}</td>
                    <td>{formatDateTime(s.confirmationRequestedAt, lng) || '-'}</td>
                    <td>{formatDateTime(s.deliveredAt, lng) || '-'}</td>
                  </tr>
                ))}
              </tbody>
            </DataTable>
          )}
        </Recipients>
      ) : null}
      <div>
        <Button variant="secondary" onClick={() => (showRecipients ? void recipients.refetch() : setShowRecipients(true))} data-testid="report-show-recipients">
          {showRecipients ? t('report.refreshRecipients') : t('report.showRecipients')}
        </Button>
      </div>
    </ListFrame>
  );
}

function StatCard({ label, value, testId }: { label: string; value: string | number; testId?: string }) {
  return (
    <Stat data-testid={testId}>
      <span>{label}</span>
      <strong>{value}</strong>
    </Stat>
  );
}
