import { useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import { toastError } from '@atendo/web-api';
import { Button, Muted, TextField } from '@atendo/web-ui';
import { ColorChip, DataTable, ListFrame, ListHeader, ListStatus, TableCard, useErrorToast } from '@atendo/web-kit';
import { fetchPolicies, formatMinutes, parseMinutes, parsePercent, savePolicy, slaKeys, type SlaPolicy } from './api';

/**
 * SLA targets (issue 34 item 5; plugins/sla): one row per queue with its first-response and resolution targets
 * (blank: none; minutes or `h:mm` of the queue's business hours, its service-hours tab) and the share of a target
 * after which tickets show the "breach near" badge. A row saves on its own (`PUT /sla/policies/:queueId`); the
 * targets apply to tickets whose clock starts afterwards.
 */
export function SlaPage() {
  const { t } = useTranslation('admin');
  const query = useQuery({ queryKey: slaKeys.policies, queryFn: ({ signal }) => fetchPolicies(signal) });
  useErrorToast(query.error);
  const rows = query.data ?? [];
  return (
    <ListFrame data-testid="sla-page">
      <ListHeader title={t('sla.title')} />
      <Muted>{t('sla.help')}</Muted>
      <TableCard>
        {query.isPending ? null : (
          <DataTable>
            <thead>
              <tr>
                <th scope="col" className="start">{t('sla.cols.queue')}</th>
                <th scope="col">{t('sla.cols.firstResponse')}</th>
                <th scope="col">{t('sla.cols.resolution')}</th>
                <th scope="col">{t('sla.cols.warn')}</th>
                <th scope="col">{t('sla.cols.actions')}</th>
              </tr>
            </thead>
            <tbody data-testid="sla-rows">
              {rows.map((p) => (
                <PolicyRow key={p.queueId} policy={p} />
              ))}
            </tbody>
          </DataTable>
        )}
        <ListStatus
          loading={query.isPending}
          empty={!query.isPending && rows.length === 0}
          failed={query.isError}
          onRetry={() => void query.refetch()}
          hasMore={false}
          loadingMore={false}
          onLoadMore={() => undefined}
          texts={{ loading: t('common.loading'), empty: query.isError ? t('common.loadFailed') : t('sla.empty'), retry: t('common.retry'), loadMore: t('common.loadMore') }}
          emptyIcon="queue"
          testId="sla"
        />
      </TableCard>
    </ListFrame>
  );
}

/** One queue's targets, edited in place. */
function PolicyRow({ policy }: { policy: SlaPolicy }) {
  const { t } = useTranslation('admin');
  const client = useQueryClient();
  const [first, setFirst] = useState(formatMinutes(policy.firstResponseMinutes));
  const [resolution, setResolution] = useState(formatMinutes(policy.resolutionMinutes));
  const [warn, setWarn] = useState(String(policy.warnPercent));
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setFirst(formatMinutes(policy.firstResponseMinutes));
    setResolution(formatMinutes(policy.resolutionMinutes));
    setWarn(String(policy.warnPercent));
  }, [policy.firstResponseMinutes, policy.resolutionMinutes, policy.warnPercent]);
  const firstValue = parseMinutes(first);
  const resolutionValue = parseMinutes(resolution);
  const warnValue = parsePercent(warn);
  const valid = firstValue !== undefined && resolutionValue !== undefined && warnValue !== undefined;
  const changed = firstValue !== policy.firstResponseMinutes || resolutionValue !== policy.resolutionMinutes || warnValue !== policy.warnPercent;
  const id = policy.queueId;

  const save = async (body: { firstResponseMinutes: number | null; resolutionMinutes: number | null; warnPercent?: number }) => {
    setBusy(true);
    try {
      const saved = await savePolicy(id, body);
      client.setQueryData<SlaPolicy[]>(slaKeys.policies, (old) => old?.map((p) => (p.queueId === id ? saved : p)));
      toast.success(t('sla.saved', { queue: policy.queueName }));
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };
  const hasTargets = policy.firstResponseMinutes !== null || policy.resolutionMinutes !== null;
  return (
    <tr data-testid={`sla-row-${id}`}>
      <td className="start">
        <ColorChip $color={policy.queueColor}>{policy.queueName}</ColorChip>
      </td>
      <td>
        <TextField label={t('sla.cols.firstResponse')} placeholder={t('sla.none')} value={first} onChange={(e) => setFirst(e.target.value)} error={firstValue === undefined ? t('sla.invalidMinutes') : undefined} data-testid={`sla-first-${id}`} />
      </td>
      <td>
        <TextField label={t('sla.cols.resolution')} placeholder={t('sla.none')} value={resolution} onChange={(e) => setResolution(e.target.value)} error={resolutionValue === undefined ? t('sla.invalidMinutes') : undefined} data-testid={`sla-resolution-${id}`} />
      </td>
      <td>
        <TextField label={t('sla.cols.warn')} inputMode="numeric" value={warn} onChange={(e) => setWarn(e.target.value)} error={warnValue === undefined ? t('sla.invalidPercent') : undefined} data-testid={`sla-warn-${id}`} />
      </td>
      <td className="actions">
        <Button
          onClick={() => valid && void save(firstValue === null && resolutionValue === null ? { firstResponseMinutes: null, resolutionMinutes: null } : { firstResponseMinutes: firstValue, resolutionMinutes: resolutionValue, warnPercent: warnValue })}
          disabled={!valid || !changed || busy}
          data-testid={`sla-save-${id}`}
        >
          {t('sla.save')}
        </Button>{' '}
        {hasTargets ? (
          <Button variant="text" onClick={() => void save({ firstResponseMinutes: null, resolutionMinutes: null })} disabled={busy} data-testid={`sla-clear-${id}`}>
            {t('sla.clear')}
          </Button>
        ) : null}
      </td>
    </tr>
  );
}
