import { useState } from 'react';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { toastError, useSessionUser } from '@atendo/web-api';
import { Button, Card, EmptyState, Loading, Title } from '@atendo/web-ui';
import { ListFrame } from '@atendo/web-kit';
import { useErrorToast } from '../../lib/hooks';
import { Chip, ConfirmDialog } from '../../lib/parts';
import { deliveryKeys, fetchDeadLetters, fetchFailedSends, redrive, resendAll, resendOne, type DeadLetter, type FailedSend, type Paged } from './api';

const Header = styled.header`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: ${(p) => p.theme.space(2)};
  h1 { margin: 0; }
  small { color: ${(p) => p.theme.colors.textMuted}; }
  .tools { display: flex; gap: ${(p) => p.theme.space(1)}; margin-left: auto; }
`;

const Tabs = styled.div`
  display: flex;
  gap: ${(p) => p.theme.space(1)};
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
  button {
    border: none;
    background: none;
    padding: 10px 14px;
    cursor: pointer;
    color: ${(p) => p.theme.colors.textMuted};
    border-bottom: 2px solid transparent;
    font-size: ${(p) => p.theme.font.size.md};
  }
  button[aria-selected='true'] { color: ${(p) => p.theme.colors.primary}; border-bottom-color: ${(p) => p.theme.colors.primary}; }
`;

const Scroller = styled(Card)`
  flex: 1;
  min-height: 0;
  overflow: auto;
  padding: 0;
`;

const Table = styled.table`
  width: 100%;
  border-collapse: collapse;
  th, td { padding: 10px 14px; border-bottom: 1px solid ${(p) => p.theme.colors.border}; text-align: left; vertical-align: top; }
  th { position: sticky; top: 0; background: ${(p) => p.theme.colors.surface}; color: ${(p) => p.theme.colors.textMuted}; font-size: ${(p) => p.theme.font.size.sm}; font-weight: ${(p) => p.theme.font.weight.medium}; }
  td.text { word-break: break-word; max-width: 320px; }
  td.reason { color: ${(p) => p.theme.colors.danger}; word-break: break-word; max-width: 320px; }
  td.actions { white-space: nowrap; }
  small { display: block; color: ${(p) => p.theme.colors.textMuted}; }
`;

const Pager = styled.div`
  display: flex;
  justify-content: center;
  align-items: center;
  gap: ${(p) => p.theme.space(1.5)};
  padding: ${(p) => p.theme.space(1.5)};
`;

type Tab = 'failed' | 'dead';

const when = (iso: string) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
};

/** Previous / next page buttons with the page number. */
function PageButtons({ page, hasMore, onPage }: { page: number; hasMore: boolean; onPage: (p: number) => void }) {
  const { t } = useTranslation('admin');
  return (
    <Pager>
      <Button variant="text" disabled={page <= 1} onClick={() => onPage(page - 1)} data-testid="page-prev">
        {t('deliveries.prev')}
      </Button>
      <span data-testid="page-number">{t('deliveries.page', { page })}</span>
      <Button variant="text" disabled={!hasMore} onClick={() => onPage(page + 1)} data-testid="page-next">
        {t('deliveries.next')}
      </Button>
    </Pager>
  );
}

/** The failed sends tab: contact, channel, message, reason; resend one (the row) or all. */
function FailedTab({ data, busyId, onResend }: { data: Paged<FailedSend>; busyId: number | string | null; onResend: (r: FailedSend) => void }) {
  const { t } = useTranslation('admin');
  if (!data.records.length) return <EmptyState text={t('deliveries.empty.failed')} />;
  return (
    <Table>
      <thead>
        <tr>
          <th>{t('deliveries.cols.date')}</th>
          <th>{t('deliveries.cols.contact')}</th>
          <th>{t('deliveries.cols.channel')}</th>
          <th>{t('deliveries.cols.message')}</th>
          <th>{t('deliveries.cols.reason')}</th>
          <th>{t('deliveries.cols.actions')}</th>
        </tr>
      </thead>
      <tbody data-testid="failed-rows">
        {data.records.map((r) => (
          <tr key={r.id} data-testid="failed-row" data-message-id={r.id}>
            <td>{when(r.createdAt)}</td>
            <td>
              {r.contactName ?? '—'}
              <small>{t('deliveries.ticket', { id: r.ticketId })}</small>
            </td>
            <td>{r.channel}</td>
            <td className="text">{r.body}</td>
            <td className="reason" data-testid="failed-reason">
              {r.sendErrorDetail ?? t('deliveries.noReason')}
              <small>{r.sendError}</small>
            </td>
            <td className="actions">
              <Button variant="secondary" disabled={busyId !== null} onClick={() => onResend(r)} data-testid="resend-one">
                {t('deliveries.resend')}
              </Button>
            </td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** The dead letters tab: event, consumer queue, error, date (and company for the super admin); redrive one or all. */
function DeadTab({ data, superUser, busyId, onRedrive }: { data: Paged<DeadLetter>; superUser: boolean; busyId: number | string | null; onRedrive: (r: DeadLetter) => void }) {
  const { t } = useTranslation('admin');
  if (!data.records.length) return <EmptyState text={t('deliveries.empty.dead')} />;
  return (
    <Table>
      <thead>
        <tr>
          <th>{t('deliveries.cols.date')}</th>
          {superUser ? <th>{t('deliveries.cols.company')}</th> : null}
          <th>{t('deliveries.cols.topic')}</th>
          <th>{t('deliveries.cols.queue')}</th>
          <th>{t('deliveries.cols.error')}</th>
          <th>{t('deliveries.cols.attempt')}</th>
          <th>{t('deliveries.cols.actions')}</th>
        </tr>
      </thead>
      <tbody data-testid="dead-rows">
        {data.records.map((r) => (
          <tr key={r.id} data-testid="dead-row" data-dead-id={r.id}>
            <td>{when(r.deadAt)}</td>
            {superUser ? <td data-testid="dead-company">{r.companyId ?? '—'}</td> : null}
            <td className="text">{r.topic}</td>
            <td className="text">{r.queue ?? '—'}</td>
            <td className="reason">{r.error ?? '—'}</td>
            <td>{r.attempt}</td>
            <td className="actions">
              {r.redriving ? (
                <Chip $tone="info" data-testid="redriving">
                  {t('deliveries.redriving')}
                </Chip>
              ) : (
                <Button variant="secondary" disabled={busyId !== null} onClick={() => onRedrive(r)} data-testid="redrive-one">
                  {t('deliveries.redrive')}
                </Button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/**
 * Deliveries (admins; issue 30): two tabs, 20 a page each. "Failed sends": the company's messages whose send failed,
 * with the provider's reason, resent one by one (POST /messages/:id/resend) or all at once (POST
 * /messages/failed/resend). "Dead letters": the events the platform gave up on (topic, consumer queue, error, date;
 * the company for the super admin, who sees every company's), redriven one by one or all (POST /dead-letters/redrive).
 * Every action refreshes the lists and says how many it moved; API errors show as the shell's error toast.
 */
export function DeliveriesPage() {
  const { t } = useTranslation('admin');
  const client = useQueryClient();
  const user = useSessionUser();
  const superUser = Boolean(user?.super);
  const [tab, setTab] = useState<Tab>('failed');
  const [pages, setPages] = useState<Record<Tab, number>>({ failed: 1, dead: 1 });
  const [busyId, setBusyId] = useState<number | string | null>(null);
  const [confirmAll, setConfirmAll] = useState<Tab | null>(null);
  const page = pages[tab];

  const failed = useQuery({
    queryKey: deliveryKeys.failed(pages.failed),
    queryFn: ({ signal }) => fetchFailedSends(pages.failed, signal),
    enabled: tab === 'failed',
    placeholderData: keepPreviousData,
  });
  const dead = useQuery({
    queryKey: deliveryKeys.dead(pages.dead),
    queryFn: ({ signal }) => fetchDeadLetters(pages.dead, signal),
    enabled: tab === 'dead',
    placeholderData: keepPreviousData,
  });
  useErrorToast(failed.error ?? dead.error);
  const current = tab === 'failed' ? failed : dead;
  const refresh = () => client.invalidateQueries({ queryKey: deliveryKeys.all });

  /** Runs an action with `id` marked busy, then refreshes the lists. */
  const act = async (id: number | string, fn: () => Promise<void>) => {
    setBusyId(id);
    try {
      await fn();
    } catch (err) {
      toastError(err);
    } finally {
      setBusyId(null);
      await refresh();
    }
  };
  const onResend = (r: FailedSend) =>
    void act(r.id, async () => {
      await resendOne(r.id);
      toast.success(t('deliveries.resent', { count: 1 }));
    });
  const onRedrive = (r: DeadLetter) =>
    void act(r.id, async () => {
      const { redriven } = await redrive([r.id]);
      toast.success(t('deliveries.redriven', { count: redriven }));
    });
  const runAll = () => {
    const which = confirmAll;
    setConfirmAll(null);
    if (which === 'failed')
      void act('all', async () => {
        const { resent, skippedOptedOut } = await resendAll();
        toast.success(t('deliveries.resent', { count: resent }));
        // Issue 34: a bulk resend leaves out the contacts who opted out, and says so.
        if (skippedOptedOut) toast.info(t('deliveries.skippedOptedOut', { count: skippedOptedOut }));
      });
    else if (which === 'dead')
      void act('all', async () => {
        const { redriven } = await redrive();
        toast.success(t('deliveries.redriven', { count: redriven }));
      });
  };

  const count = current.data?.count ?? 0;
  return (
    <ListFrame data-testid="deliveries-page">
      <Header>
        <Title as="h1">{t('deliveries.title')}</Title>
        {current.data ? <small data-testid="deliveries-count">{t('deliveries.count', { count })}</small> : null}
        <div className="tools">
          <Button variant="text" onClick={() => void refresh()} data-testid="deliveries-refresh">
            {t('deliveries.refresh')}
          </Button>
          <Button disabled={busyId !== null || !count} onClick={() => setConfirmAll(tab)} data-testid={tab === 'failed' ? 'resend-all' : 'redrive-all'}>
            {tab === 'failed' ? t('deliveries.resendAll') : t('deliveries.redriveAll')}
          </Button>
        </div>
      </Header>
      <Tabs role="tablist">
        {(['failed', 'dead'] as const).map((k) => (
          <button key={k} type="button" role="tab" aria-selected={tab === k} onClick={() => setTab(k)} data-testid={`tab-${k}`}>
            {t(`deliveries.tabs.${k}`)}
          </button>
        ))}
      </Tabs>
      <Scroller role="tabpanel">
        {!current.data ? (
          current.isLoading ? <Loading label={t('common.loading')} /> : null
        ) : tab === 'failed' ? (
          <FailedTab data={failed.data!} busyId={busyId} onResend={onResend} />
        ) : (
          <DeadTab data={dead.data!} superUser={superUser} busyId={busyId} onRedrive={onRedrive} />
        )}
        {current.data && (page > 1 || current.data.hasMore) ? <PageButtons page={page} hasMore={current.data.hasMore} onPage={(p) => setPages((s) => ({ ...s, [tab]: p }))} /> : null}
      </Scroller>
      <ConfirmDialog
        open={confirmAll !== null}
        title={confirmAll === 'dead' ? t('deliveries.confirmRedriveAll.title') : t('deliveries.confirmResendAll.title')}
        message={confirmAll === 'dead' ? t('deliveries.confirmRedriveAll.message') : t('deliveries.confirmResendAll.message')}
        confirmLabel={confirmAll === 'dead' ? t('deliveries.redriveAll') : t('deliveries.resendAll')}
        onConfirm={runAll}
        onClose={() => setConfirmAll(null)}
      />
    </ListFrame>
  );
}
