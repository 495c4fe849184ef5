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
  fetchResearch,
  fetchUsers,
  fetchWholeReport,
  fetchWholeResearch,
  formatDateTime,
  formatMinutes,
  toCsv,
  type ReportFilter,
  type ReportRow,
  type ReportScope,
  type ResearchAnswer,
} from '../api';
import { FilterBar, Panel, TabButton, Table, Tabs, Wide } from './parts';

const STATUSES = ['open', 'pending', 'closed', 'group', 'nps', 'lgpd'] as const;
const NPS_CLASSES = ['promoter', 'passive', 'detractor'] as const;
const PAGE_SIZE = 50;
/** The reports of the product (spec 1-platform.md "Dashboard"): attendance, group attendance, ticket duration, research. */
const KINDS = ['attendance', 'groups', 'duration', 'research'] as const;
type Kind = (typeof KINDS)[number];
/** What each report reads: the 1:1 tickets, the group tickets, or the NPS answers. */
const SCOPE: Record<Kind, ReportScope | 'research'> = { attendance: 'people', duration: 'people', groups: 'groups', research: 'research' };

interface Column<T> {
  header: string;
  cell: (r: T) => string | number | null;
  num?: boolean;
}

/** The filter form of the reports: dates, queue, user, connection, and the status (ticket reports) or NPS class (research). */
function ReportForm({ value, research, onApply }: { value: ReportFilter; research: boolean; onApply: (f: ReportFilter) => void }) {
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
      {research ? (
        <SelectField label={t('columns.npsClass')} value={f.npsClass} onChange={set('npsClass')} data-testid="report-nps-class">
          <option value="">{t('all')}</option>
          {NPS_CLASSES.map((c) => (
            <option key={c} value={c}>
              {t(`npsClasses.${c}`)}
            </option>
          ))}
        </SelectField>
      ) : (
        <SelectField label={t('columns.status')} value={f.status} onChange={set('status')} data-testid="report-status">
          <option value="">{t('all')}</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {t(`status.${s}`)}
            </option>
          ))}
        </SelectField>
      )}
      <Button type="submit" data-testid="report-apply">
        {t('applyFilter')}
      </Button>
    </FilterBar>
  );
}

/**
 * The reports page (/reports, admins), four reports with the same filters (dates, queue, user, connection;
 * the status for the ticket reports, the NPS class for the research), 50 rows a page, totals over every
 * matching row and a CSV export of every matching row:
 * - attendance: one row per 1:1 ticket (contact, attendant, department, connection, status, opened, accepted,
 *   closed, wait, service time, rating), `GET /ticket/reports?isGroup=false`;
 * - group attendance: one row per group ticket (group, connection, department, attendant, status, opened, last
 *   activity, closed, last message), `GET /ticket/reports?isGroup=true`;
 * - ticket duration: the 1:1 tickets' opened, closed and duration (the attendance report's rows);
 * - research: the customers' NPS answers given in the period (answered, contact, attendant, department,
 *   connection, score 0..10, class) with the NPS totals, `GET /ticket/reports/research`.
 */
export function ReportsPage() {
  const { t, i18n } = useTranslation('dashboard');
  const month = currentMonth();
  const [filter, setFilter] = useState<ReportFilter>({ from: month.kind === 'range' ? month.from : '', to: month.kind === 'range' ? month.to : '', queueId: '', userId: '', whatsappId: '', status: '', npsClass: '' });
  const [page, setPage] = useState(1);
  const [kind, setKind] = useState<Kind>('attendance');
  const [exporting, setExporting] = useState(false);
  const scope = SCOPE[kind];
  const tickets = useQuery({
    queryKey: ['dashboard', 'report', scope, filter, page],
    queryFn: ({ signal }) => fetchReport(filter, scope === 'groups' ? 'groups' : 'people', page, PAGE_SIZE, signal),
    enabled: scope !== 'research',
  });
  const research = useQuery({
    queryKey: ['dashboard', 'research', filter, page],
    queryFn: ({ signal }) => fetchResearch(filter, page, PAGE_SIZE, signal),
    enabled: scope === 'research',
  });
  const current = scope === 'research' ? research : tickets;
  // Times in the company's time zone, as the server answers it (not the browser's).
  const timeZone = current.data?.timeZone;
  const status = (s: string) => t(`status.${s}`, { defaultValue: s });
  const num = (n: number | null | undefined) => (n === null || n === undefined ? '—' : n.toLocaleString(i18n.language));

  const ticketColumns: Record<Exclude<Kind, 'research'>, Column<ReportRow>[]> = {
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
    groups: [
      { header: t('columns.ticket'), cell: (r) => r.id, num: true },
      { header: t('columns.group'), cell: (r) => r.contact?.name ?? '' },
      { header: t('columns.connection'), cell: (r) => r.whatsapp?.name ?? '' },
      { header: t('columns.queue'), cell: (r) => r.queue?.name ?? t('noQueue') },
      { header: t('columns.user'), cell: (r) => r.user?.name ?? '' },
      { header: t('columns.status'), cell: (r) => status(r.status) },
      { header: t('columns.openedAt'), cell: (r) => formatDateTime(r.createdAt, timeZone) },
      { header: t('columns.lastActivity'), cell: (r) => formatDateTime(r.updatedAt, timeZone) },
      { header: t('columns.closedAt'), cell: (r) => formatDateTime(r.closedAt, timeZone) },
      { header: t('columns.lastMessage'), cell: (r) => r.lastMessage ?? '' },
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
  const researchColumns: Column<ResearchAnswer>[] = [
    { header: t('columns.ticket'), cell: (r) => r.ticketId, num: true },
    { header: t('columns.answeredAt'), cell: (r) => formatDateTime(r.ratedAt, timeZone) },
    { header: t('columns.contact'), cell: (r) => r.contact?.name ?? '' },
    { header: t('columns.user'), cell: (r) => r.user?.name ?? '' },
    { header: t('columns.queue'), cell: (r) => r.queue?.name ?? t('noQueue') },
    { header: t('columns.connection'), cell: (r) => r.whatsapp?.name ?? '' },
    { header: t('columns.answer'), cell: (r) => r.rate, num: true },
    { header: t('columns.npsClass'), cell: (r) => t(`npsClasses.${r.npsClass}`) },
  ];

  const exportCsv = async () => {
    setExporting(true);
    try {
      const name = `relatorio-${kind}-${filter.from}-${filter.to}.csv`;
      if (kind === 'research') {
        const all = await fetchWholeResearch(filter);
        downloadCsv(name, toCsv(researchColumns.map((c) => c.header), all.map((r) => researchColumns.map((c) => c.cell(r)))));
      } else {
        const cols = ticketColumns[kind];
        const all = await fetchWholeReport(filter, kind === 'groups' ? 'groups' : 'people');
        downloadCsv(name, toCsv(cols.map((c) => c.header), all.map((r) => cols.map((c) => c.cell(r)))));
      }
    } catch (err) {
      toastError(err);
    } finally {
      setExporting(false);
    }
  };

  let totals: string | null = null;
  if (kind === 'research' && research.data) {
    const x = research.data.totals;
    totals = [
      t('reportTotals.answers', { count: x.answers }),
      `${t('reportTotals.average')}: ${num(x.average)}`,
      `${t('cards.npsScore')}: ${num(x.npsScore)}`,
      `${t('cards.promoters')}: ${num(x.promotersPerc)}%`,
      `${t('cards.passives')}: ${num(x.passivesPerc)}%`,
      `${t('cards.detractors')}: ${num(x.detractorsPerc)}%`,
    ].join(' · ');
  } else if (kind !== 'research' && tickets.data) {
    const x = tickets.data.totals;
    totals = [
      t('totals', { count: x.tickets }),
      ...(kind === 'groups' ? [t('reportTotals.groups', { count: x.contacts })] : []),
      `${t('columns.avgWait')}: ${formatMinutes(x.avgWaitTime)}`,
      `${t('columns.avgSupport')}: ${formatMinutes(x.avgSupportTime)}`,
      `${t('columns.duration')}: ${formatMinutes(x.avgDuration)}`,
    ].join(' · ');
  }

  const table =
    kind === 'research' ? (
      <ReportTable columns={researchColumns} rows={research.data?.answers ?? []} rowKey={(r) => r.ticketId} />
    ) : (
      <ReportTable columns={ticketColumns[kind]} rows={tickets.data?.tickets ?? []} rowKey={(r) => r.id} />
    );
  const rowCount = kind === 'research' ? (research.data?.answers.length ?? 0) : (tickets.data?.tickets.length ?? 0);

  return (
    <div data-testid="reports-page">
      <Title>{t('reports')}</Title>
      <ReportForm
        value={filter}
        research={kind === 'research'}
        onApply={(f) => {
          setFilter(f);
          setPage(1);
        }}
      />
      <Tabs role="tablist">
        {KINDS.map((id) => (
          <TabButton
            key={id}
            role="tab"
            aria-selected={kind === id}
            data-testid={`report-tab-${id}`}
            onClick={() => {
              // The ticket reports of one scope share their rows (and page); another scope starts on page 1.
              if (SCOPE[id] !== scope) setPage(1);
              setKind(id);
            }}
          >
            {t(`reportKinds.${id}`)}
          </TabButton>
        ))}
      </Tabs>
      {totals ? <p data-testid="report-totals">{totals}</p> : null}
      <Wide>
        <Panel title={t(`reportKinds.${kind}`)} testId="report" loading={current.isPending} error={current.error} onRetry={() => void current.refetch()} empty={!rowCount} emptyText={kind === 'research' ? t('emptyAnswers') : undefined}>
          <div style={{ display: 'flex', justifyContent: 'flex-end' }}>
            <Button variant="text" onClick={() => void exportCsv()} disabled={exporting} data-testid="report-csv">
              {t('exportCsv')}
            </Button>
          </div>
          <div style={{ overflowX: 'auto' }}>{table}</div>
          <div style={{ display: 'flex', gap: 8, alignItems: 'center', marginTop: 8 }}>
            <Button variant="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)} data-testid="report-prev">
              {t('previous')}
            </Button>
            <span data-testid="report-page">{t('page', { page })}</span>
            <Button variant="secondary" disabled={!current.data?.hasMore} onClick={() => setPage(page + 1)} data-testid="report-next">
              {t('next')}
            </Button>
          </div>
        </Panel>
      </Wide>
    </div>
  );
}

/** A report's table: its columns' headers and one row per item (a dash for an empty cell). */
function ReportTable<T>({ columns, rows, rowKey }: { columns: Column<T>[]; rows: T[]; rowKey: (r: T) => number }) {
  return (
    <Table data-testid="report-table">
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c.header} className={c.num ? 'num' : undefined}>
              {c.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={rowKey(r)}>
            {columns.map((c) => (
              <td key={c.header} className={c.num ? 'num' : undefined}>
                {c.cell(r) ?? '—'}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
