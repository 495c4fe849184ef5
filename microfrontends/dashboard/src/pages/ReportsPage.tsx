import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { toastError } from '@atendo/web-api';
import { Button, SelectField, TextField, Title } from '@atendo/web-ui';
import {
  currentMonth,
  downloadCsv,
  fetchConnections,
  fetchQueues,
  fetchReport,
  fetchUsers,
  fetchWholeReport,
  formatDateTime,
  formatMinutes,
  toCsv,
  type ReportFilter,
  type ReportRow,
} from '../api';
import { FilterBar, Panel, TabButton, Table, Tabs, Wide } from './parts';

const STATUSES = ['open', 'pending', 'closed', 'group', 'nps', 'lgpd'] as const;
const PAGE_SIZE = 50;
type Kind = 'attendance' | 'duration';

/** The filter form of the reports (dates, queue, user, connection, status). */
function ReportForm({ value, onApply }: { value: ReportFilter; onApply: (f: ReportFilter) => void }) {
  const { t } = useTranslation('dashboard');
  const [f, setF] = useState(value);
  const queues = useQuery({ queryKey: ['dashboard', 'refs', 'queues'], queryFn: ({ signal }) => fetchQueues(signal) });
  const users = useQuery({ queryKey: ['dashboard', 'refs', 'users'], queryFn: ({ signal }) => fetchUsers(signal) });
  const connections = useQuery({ queryKey: ['dashboard', 'refs', 'connections'], queryFn: ({ signal }) => fetchConnections(signal) });
  const set = (k: keyof ReportFilter) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!f.from || !f.to) return toastError(t('filterRequired'));
    onApply(f);
  };
  return (
    <FilterBar onSubmit={submit} aria-label={t('filter')} data-testid="report-filter">
      <TextField type="date" label={t('dateFrom')} value={f.from} onChange={set('from')} data-testid="report-from" />
      <TextField type="date" label={t('dateTo')} value={f.to} onChange={set('to')} data-testid="report-to" />
      <SelectField label={t('columns.queue')} value={f.queueId} onChange={set('queueId')} data-testid="report-queue">
        <option value="">{t('all')}</option>
        <option value="0">{t('noQueue')}</option>
        {(queues.data ?? []).map((q) => (
          <option key={q.id} value={q.id}>
            {q.name}
          </option>
        ))}
      </SelectField>
      <SelectField label={t('columns.user')} value={f.userId} onChange={set('userId')} data-testid="report-user">
        <option value="">{t('all')}</option>
        {(users.data ?? []).map((u) => (
          <option key={u.id} value={u.id}>
            {u.name}
          </option>
        ))}
      </SelectField>
      <SelectField label={t('columns.connection')} value={f.whatsappId} onChange={set('whatsappId')} data-testid="report-connection">
        <option value="">{t('all')}</option>
        {(connections.data ?? []).map((w) => (
          <option key={w.id} value={w.id}>
            {w.name}
          </option>
        ))}
      </SelectField>
      <SelectField label={t('columns.status')} value={f.status} onChange={set('status')} data-testid="report-status">
        <option value="">{t('all')}</option>
        {STATUSES.map((s) => (
          <option key={s} value={s}>
            {t(`status.${s}`)}
          </option>
        ))}
      </SelectField>
      <Button type="submit" data-testid="report-apply">
        {t('applyFilter')}
      </Button>
    </FilterBar>
  );
}

/**
 * The reports page (/reports, admins): the attendance report (one row per ticket: contact, attendant,
 * department, connection, status, opened, accepted, closed, wait, service time, rating) and the ticket
 * duration report (opened, closed, duration), both from `GET /ticket/reports` with its filters, 50 rows a
 * page, totals over every matching ticket, and a CSV export of every matching row.
 */
export function ReportsPage() {
  const { t } = useTranslation('dashboard');
  const month = currentMonth();
  const [filter, setFilter] = useState<ReportFilter>({ from: month.kind === 'range' ? month.from : '', to: month.kind === 'range' ? month.to : '', queueId: '', userId: '', whatsappId: '', status: '' });
  const [page, setPage] = useState(1);
  const [kind, setKind] = useState<Kind>('attendance');
  const [exporting, setExporting] = useState(false);
  const report = useQuery({ queryKey: ['dashboard', 'report', filter, page], queryFn: ({ signal }) => fetchReport(filter, page, PAGE_SIZE, signal) });
  const rows = report.data?.tickets ?? [];
  // Times in the company's time zone, as the server answers it (not the browser's).
  const timeZone = report.data?.timeZone;
  const status = (s: string) => t(`status.${s}`, { defaultValue: s });

  const columns: Record<Kind, { header: string; cell: (r: ReportRow) => string | number | null; num?: boolean }[]> = {
    attendance: [
      { header: t('columns.ticket'), cell: (r) => r.id, num: true },
      { header: t('columns.contact'), cell: (r) => r.contact?.name ?? '' },
      { header: t('columns.user'), cell: (r) => r.user?.name ?? '' },
      { header: t('columns.queue'), cell: (r) => r.queue?.name ?? t('noQueue') },
      { header: t('columns.connection'), cell: (r) => r.whatsapp?.name ?? '' },
      { header: t('columns.status'), cell: (r) => status(r.status) },
      { header: t('columns.openedAt'), cell: (r) => formatDateTime(r.createdAt, timeZone) },
      { header: t('columns.acceptedAt'), cell: (r) => formatDateTime(r.acceptedAt, timeZone) },
      { header: t('columns.closedAt'), cell: (r) => formatDateTime(r.closedAt, timeZone) },
      { header: t('columns.avgWait'), cell: (r) => formatMinutes(r.waitTime), num: true },
      { header: t('columns.avgSupport'), cell: (r) => formatMinutes(r.supportTime), num: true },
      { header: t('columns.rating'), cell: (r) => r.rating, num: true },
    ],
    duration: [
      { header: t('columns.ticket'), cell: (r) => r.id, num: true },
      { header: t('columns.contact'), cell: (r) => r.contact?.name ?? '' },
      { header: t('columns.user'), cell: (r) => r.user?.name ?? '' },
      { header: t('columns.queue'), cell: (r) => r.queue?.name ?? t('noQueue') },
      { header: t('columns.status'), cell: (r) => status(r.status) },
      { header: t('columns.openedAt'), cell: (r) => formatDateTime(r.createdAt, timeZone) },
      { header: t('columns.closedAt'), cell: (r) => formatDateTime(r.closedAt, timeZone) },
      { header: t('columns.duration'), cell: (r) => formatMinutes(r.duration), num: true },
    ],
  };
  const cols = columns[kind];

  const exportCsv = async () => {
    setExporting(true);
    try {
      const all = await fetchWholeReport(filter);
      downloadCsv(`relatorio-${kind}-${filter.from}-${filter.to}.csv`, toCsv(cols.map((c) => c.header), all.map((r) => cols.map((c) => c.cell(r)))));
    } catch (err) {
      toastError(err);
    } finally {
      setExporting(false);
    }
  };
  const totals = report.data?.totals;

  return (
    <div data-testid="reports-page">
      <Title>{t('reports')}</Title>
      <ReportForm
        value={filter}
        onApply={(f) => {
          setFilter(f);
          setPage(1);
        }}
      />
      <Tabs role="tablist">
        {(['attendance', 'duration'] as const).map((id) => (
          <TabButton key={id} role="tab" aria-selected={kind === id} data-testid={`report-tab-${id}`} onClick={() => setKind(id)}>
            {t(`reportKinds.${id}`)}
          </TabButton>
        ))}
      </Tabs>
      {totals ? (
        <p data-testid="report-totals">
          {t('totals', { count: totals.tickets })} · {t('columns.avgWait')}: {formatMinutes(totals.avgWaitTime)} · {t('columns.avgSupport')}: {formatMinutes(totals.avgSupportTime)} · {t('columns.duration')}:{' '}
          {formatMinutes(totals.avgDuration)}
        </p>
      ) : null}
      <Wide>
        <Panel title={t(`reportKinds.${kind}`)} testId="report" loading={report.isPending} error={report.error} onRetry={() => void report.refetch()} empty={!rows.length}>
          <div style={{ display: 'flex', justifyContent: 'flex-end' }}>
            <Button variant="text" onClick={() => void exportCsv()} disabled={exporting} data-testid="report-csv">
              {t('exportCsv')}
            </Button>
          </div>
          <div style={{ overflowX: 'auto' }}>
            <Table data-testid="report-table">
              <thead>
                <tr>
                  {cols.map((c) => (
                    <th key={c.header} className={c.num ? 'num' : undefined}>
                      {c.header}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.id}>
                    {cols.map((c) => (
                      <td key={c.header} className={c.num ? 'num' : undefined}>
                        {c.cell(r) ?? '—'}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </Table>
          </div>
          <div style={{ display: 'flex', gap: 8, alignItems: 'center', marginTop: 8 }}>
            <Button variant="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)} data-testid="report-prev">
              {t('previous')}
            </Button>
            <span data-testid="report-page">{t('page', { page })}</span>
            <Button variant="secondary" disabled={!report.data?.hasMore} onClick={() => setPage(page + 1)} data-testid="report-next">
              {t('next')}
            </Button>
          </div>
        </Panel>
      </Wide>
    </div>
  );
}
