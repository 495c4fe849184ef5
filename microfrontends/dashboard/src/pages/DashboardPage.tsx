import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Bar, BarChart, CartesianGrid, Cell, Legend, Pie, PieChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import styled from 'styled-components';
import { toastError, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Button, Card, SelectField, TextField } from '@atendo/web-ui';
import {
  currentMonth,
  fetchClosed,
  fetchDashboard,
  fetchNpsInfo,
  fetchPerDay,
  fetchPerQueue,
  fetchPerUser,
  fetchSla,
  formatMinutes,
  keys,
  PERIODS,
  type DashboardAttendant,
  type DashboardSla,
  type RangeFilter,
} from '../api';
import { GreetingCard } from '../GreetingCard';
import { FilterBar, Grid, Panel, StatCard, TabButton, Table, Tabs, Wide } from './parts';

/** How long the screen waits after a ticket event before refreshing its figures (a burst refreshes once). */
const LIVE_DEBOUNCE_MS = 1500;

/**
 * An attendant's status in the table: the text with a coloured dot before it, in the flow of its cell (the
 * web-ui Badge is a dot placed over an icon: its text did not show).
 */
const Status = styled.span<{ $online: boolean }>`
  display: inline-flex;
  align-items: center;
  gap: 6px;
  white-space: nowrap;
  &::before {
    content: '';
    width: 8px;
    height: 8px;
    border-radius: 50%;
    background: ${(p) => (p.$online ? p.theme.colors.primary : p.theme.colors.textMuted)};
  }
`;
/** The attendants' online state has no event: the figures are refreshed this often too. */
const REFRESH_MS = 60_000;
const CHART_HEIGHT = 260;
const PIE_COLORS = ['#2e7d32', '#f9a825', '#c62828'];

type Tab = 'indicators' | 'nps' | 'attendants' | 'sla';

const Stack = styled.div`
  display: flex;
  flex-direction: column;
  gap: 4px;
`;

/** The filter: by period (days) or by a date range; default the current month. */
function RangeForm({ value, onApply }: { value: RangeFilter; onApply: (f: RangeFilter) => void }) {
  const { t } = useTranslation('dashboard');
  const [mode, setMode] = useState<'days' | 'range'>(value.kind);
  const [days, setDays] = useState(value.kind === 'days' ? value.days : 30);
  const [from, setFrom] = useState(value.kind === 'range' ? value.from : '');
  const [to, setTo] = useState(value.kind === 'range' ? value.to : '');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (mode === 'days') return onApply({ kind: 'days', days });
    if (!from || !to) return toastError(t('filterRequired'));
    onApply({ kind: 'range', from, to });
  };
  return (
    <FilterBar onSubmit={submit} aria-label={t('filter')} data-testid="dashboard-filter">
      <SelectField label={t('filterType')} value={mode} onChange={(e) => setMode(e.target.value as 'days' | 'range')} data-testid="filter-mode">
        <option value="range">{t('byRange')}</option>
        <option value="days">{t('byPeriod')}</option>
      </SelectField>
      {mode === 'days' ? (
        <SelectField label={t('period')} value={String(days)} onChange={(e) => setDays(Number(e.target.value))} data-testid="filter-days">
          {PERIODS.map((d) => (
            <option key={d} value={d}>
              {t('lastDays', { count: d })}
            </option>
          ))}
        </SelectField>
      ) : (
        <>
          <TextField type="date" label={t('dateFrom')} value={from} onChange={(e) => setFrom(e.target.value)} data-testid="filter-from" />
          <TextField type="date" label={t('dateTo')} value={to} onChange={(e) => setTo(e.target.value)} data-testid="filter-to" />
        </>
      )}
      <Button type="submit" data-testid="filter-apply">
        {t('applyFilter')}
      </Button>
    </FilterBar>
  );
}

/** The attendant the period highlights: most tickets, then the best rating, then the name. */
export function highlightedAttendant(list: DashboardAttendant[]): DashboardAttendant | undefined {
  const withTickets = list.filter((a) => a.tickets > 0);
  return [...withTickets].sort((a, b) => b.tickets - a.tickets || (b.rating ?? -1) - (a.rating ?? -1) || a.name.localeCompare(b.name))[0];
}

/**
 * The dashboard (route /, admins): the company card, the filter, and the tabs indicators (cards and the
 * charts per department, user, day and hour), NPS (the NPS cards and the rating pie) and attendants (the
 * highlighted attendant and the attendants table). Every table and chart exports its rows as CSV. The
 * figures refresh on the company's ticket events (`company-{id}-ticket`).
 */
export function DashboardPage() {
  const { t } = useTranslation('dashboard');
  const user = useSessionUser();
  const client = useQueryClient();
  const [filter, setFilter] = useState<RangeFilter>(() => currentMonth());
  const [tab, setTab] = useState<Tab>('indicators');
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  useSocketEvent(user ? `company-${user.companyId}-ticket` : null, () => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void client.invalidateQueries({ queryKey: keys.all }), LIVE_DEBOUNCE_MS);
  });

  const q = { refetchInterval: REFRESH_MS } as const;
  const dash = useQuery({ queryKey: keys.of('main', filter), queryFn: ({ signal }) => fetchDashboard(filter, signal), ...q });
  const closed = useQuery({ queryKey: keys.of('closed', filter), queryFn: ({ signal }) => fetchClosed(filter, signal), ...q });
  const perDay = useQuery({ queryKey: keys.of('perDay', filter), queryFn: ({ signal }) => fetchPerDay(filter, signal), ...q, enabled: tab === 'indicators' });
  const perQueue = useQuery({ queryKey: keys.of('perQueue', filter), queryFn: ({ signal }) => fetchPerQueue(filter, signal), ...q, enabled: tab === 'indicators' });
  const perUser = useQuery({ queryKey: keys.of('perUser', filter), queryFn: ({ signal }) => fetchPerUser(filter, signal), ...q, enabled: tab === 'indicators' });
  const nps = useQuery({ queryKey: keys.of('nps', filter), queryFn: ({ signal }) => fetchNpsInfo(filter, signal), ...q, enabled: tab === 'nps' });
  // Asked on every tab: a null answer (no SLA plugin) hides the SLA tab.
  const sla = useQuery({ queryKey: keys.of('sla', filter), queryFn: ({ signal }) => fetchSla(filter, signal), ...q });

  const c = dash.data?.counters;
  const attendants = useMemo(() => (Array.isArray(dash.data?.attendants) ? dash.data!.attendants : []), [dash.data]);
  const star = highlightedAttendant(attendants);
  const dash0 = (v: number | undefined) => (v === undefined ? '—' : String(v));
  const pct = (v: number | undefined) => (v === undefined ? '—' : `${v.toLocaleString()}%`);
  const tabs: Tab[] = sla.data === null ? ['indicators', 'nps', 'attendants'] : ['indicators', 'nps', 'attendants', 'sla'];
  const mainState = { loading: dash.isPending, error: dash.error, onRetry: () => void dash.refetch() };
  const npsRows = nps.data?.[0];
  const pie = npsRows ? [{ name: t('great'), value: npsRows.boa }, { name: t('good'), value: npsRows.media }, { name: t('bad'), value: npsRows.ruim }] : [];

  return (
    <div data-testid="dashboard-page">
      <GreetingCard />
      <RangeForm value={filter} onApply={setFilter} />
      <Tabs role="tablist">
        {tabs.map((id) => (
          <TabButton key={id} role="tab" aria-selected={tab === id} data-testid={`tab-${id}`} onClick={() => setTab(id)}>
            {t(`tabs.${id}`)}
          </TabButton>
        ))}
      </Tabs>

      {tab === 'indicators' ? (
        <section role="tabpanel" aria-label={t('tabs.indicators')}>
          {dash.error ? (
            <Panel title={t('tabs.indicators')} testId="counters" {...mainState} empty={false}>
              {null}
            </Panel>
          ) : (
            <Grid data-testid="counters">
              <StatCard testId="card-pending" label={t('cards.pending')} value={dash0(c?.supportPending)} />
              <StatCard testId="card-happening" label={t('cards.happening')} value={dash0(c?.supportHappening)} />
              <StatCard testId="card-finished" label={t('cards.finished')} value={dash0(c?.supportFinished)} />
              <StatCard testId="card-closed" label={t('cards.closed')} value={closed.data === undefined ? '—' : String(closed.data)} />
              <StatCard testId="card-leads" label={t('cards.leads')} value={dash0(c?.leads)} />
              <StatCard testId="card-support" label={t('cards.avgSupport')} value={formatMinutes(c?.avgSupportTime)} />
              <StatCard testId="card-wait" label={t('cards.avgWait')} value={formatMinutes(c?.avgWaitTime)} />
            </Grid>
          )}
          <Wide>
            <Panel
              title={t('charts.perQueue')}
              testId="chart-queues"
              loading={perQueue.isPending}
              error={perQueue.error}
              onRetry={() => void perQueue.refetch()}
              empty={!perQueue.data?.length}
              csv={{ name: 'tickets-por-departamento.csv', header: [t('columns.queue'), t('columns.tickets')], rows: () => (Array.isArray(perQueue.data) ? perQueue.data : []).map((r) => [r.name || t('noQueue'), r.quantidade]) }}
            >
              <ResponsiveContainer width="100%" height={CHART_HEIGHT} initialDimension={{ width: 520, height: CHART_HEIGHT }}>
                <BarChart data={(Array.isArray(perQueue.data) ? perQueue.data : []).map((r) => ({ name: r.name || t('noQueue'), total: r.quantidade, color: r.color }))}>
                  <CartesianGrid strokeDasharray="3 3" />
                  <XAxis dataKey="name" />
                  <YAxis allowDecimals={false} />
                  <Tooltip />
                  <Bar dataKey="total" name={t('columns.tickets')}>
                    {(Array.isArray(perQueue.data) ? perQueue.data : []).map((r) => (
                      <Cell key={r.queueId} fill={r.color} />
                    ))}
                  </Bar>
                </BarChart>
              </ResponsiveContainer>
            </Panel>
            <Panel
              title={t('charts.perUser')}
              testId="chart-users"
              loading={perUser.isPending}
              error={perUser.error}
              onRetry={() => void perUser.refetch()}
              empty={!perUser.data?.data?.length}
              csv={{ name: 'tickets-por-usuario.csv', header: [t('columns.user'), t('columns.tickets')], rows: () => (perUser.data?.data ?? []).map((r) => [r.nome || t('noUser'), r.quantidade]) }}
            >
              <ResponsiveContainer width="100%" height={CHART_HEIGHT} initialDimension={{ width: 520, height: CHART_HEIGHT }}>
                <BarChart data={(perUser.data?.data ?? []).map((r) => ({ name: r.nome || t('noUser'), total: r.quantidade }))}>
                  <CartesianGrid strokeDasharray="3 3" />
                  <XAxis dataKey="name" />
                  <YAxis allowDecimals={false} />
                  <Tooltip />
                  <Bar dataKey="total" name={t('columns.tickets')} fill="#ff6f00" />
                </BarChart>
              </ResponsiveContainer>
            </Panel>
            <Panel
              title={t('charts.perDay', { count: perDay.data?.count ?? 0 })}
              testId="chart-days"
              loading={perDay.isPending}
              error={perDay.error}
              onRetry={() => void perDay.refetch()}
              empty={!perDay.data?.count}
              csv={{ name: 'tickets-por-dia.csv', header: [t('columns.day'), t('columns.tickets')], rows: () => (perDay.data?.data ?? []).map((r) => [r.data, r.total]) }}
            >
              <ResponsiveContainer width="100%" height={CHART_HEIGHT} initialDimension={{ width: 520, height: CHART_HEIGHT }}>
                <BarChart data={(perDay.data?.data ?? []).map((r) => ({ name: `${r.data.slice(8, 10)}/${r.data.slice(5, 7)}`, total: r.total }))}>
                  <CartesianGrid strokeDasharray="3 3" />
                  <XAxis dataKey="name" />
                  <YAxis allowDecimals={false} />
                  <Tooltip />
                  <Bar dataKey="total" name={t('columns.tickets')} fill="#1976d2" />
                </BarChart>
              </ResponsiveContainer>
            </Panel>
            <Panel
              title={t('charts.perHour')}
              testId="chart-hours"
              loading={perDay.isPending}
              error={perDay.error}
              onRetry={() => void perDay.refetch()}
              empty={!perDay.data?.count}
              csv={{ name: 'tickets-por-hora.csv', header: [t('columns.hour'), t('columns.tickets')], rows: () => (perDay.data?.hours ?? []).map((r) => [`${String(r.horario).padStart(2, '0')}:00`, r.total]) }}
            >
              <ResponsiveContainer width="100%" height={CHART_HEIGHT} initialDimension={{ width: 520, height: CHART_HEIGHT }}>
                <BarChart data={(perDay.data?.hours ?? []).map((r) => ({ name: `${String(r.horario).padStart(2, '0')}h`, total: r.total }))}>
                  <CartesianGrid strokeDasharray="3 3" />
                  <XAxis dataKey="name" />
                  <YAxis allowDecimals={false} />
                  <Tooltip />
                  <Bar dataKey="total" name={t('columns.tickets')} fill="#7b1fa2" />
                </BarChart>
              </ResponsiveContainer>
            </Panel>
          </Wide>
        </section>
      ) : null}

      {tab === 'nps' ? (
        <section role="tabpanel" aria-label={t('tabs.nps')}>
          <Grid data-testid="nps-cards">
            <StatCard testId="card-nps" label={t('cards.npsScore')} value={c ? c.npsScore.toLocaleString() : '—'} />
            <StatCard testId="card-promoters" label={t('cards.promoters')} value={pct(c?.npsPromotersPerc)} />
            <StatCard testId="card-passives" label={t('cards.passives')} value={pct(c?.npsPassivePerc)} />
            <StatCard testId="card-detractors" label={t('cards.detractors')} value={pct(c?.npsDetractorsPerc)} />
            <StatCard testId="card-rated" label={t('cards.withRating')} value={dash0(c?.withRating)} />
            <StatCard testId="card-unrated" label={t('cards.withoutRating')} value={dash0(c?.withoutRating)} />
            <StatCard testId="card-waiting" label={t('cards.waitRating')} value={dash0(c?.waitRating)} />
            <StatCard testId="card-perc" label={t('cards.percRating')} value={pct(c?.percRating)} />
          </Grid>
          <Wide>
            <Panel
              title={t('charts.ratings')}
              testId="chart-ratings"
              loading={nps.isPending}
              error={nps.error}
              onRetry={() => void nps.refetch()}
              empty={!npsRows?.total_notas}
              csv={{ name: 'avaliacoes.csv', header: [t('columns.rating'), t('columns.count')], rows: () => pie.map((p) => [p.name, p.value]) }}
            >
              <ResponsiveContainer width="100%" height={CHART_HEIGHT} initialDimension={{ width: 520, height: CHART_HEIGHT }}>
                <PieChart>
                  <Pie data={pie} dataKey="value" nameKey="name" outerRadius={100} label>
                    {pie.map((p, i) => (
                      <Cell key={p.name} fill={PIE_COLORS[i]} />
                    ))}
                  </Pie>
                  <Tooltip />
                  <Legend />
                </PieChart>
              </ResponsiveContainer>
              <Table data-testid="ratings-table">
                <tbody>
                  {pie.map((p) => (
                    <tr key={p.name}>
                      <td>{p.name}</td>
                      <td className="num">{p.value}</td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            </Panel>
          </Wide>
        </section>
      ) : null}

      {tab === 'sla' ? <SlaTab query={sla} /> : null}

      {tab === 'attendants' ? (
        <section role="tabpanel" aria-label={t('tabs.attendants')}>
          {star ? (
            <Card data-testid="highlighted-attendant" style={{ marginTop: 16 }}>
              <Stack>
                <strong>{t('highlight')}</strong>
                <span data-testid="highlighted-name">{star.name}</span>
                <span>
                  {t('columns.tickets')}: {star.tickets} · {t('columns.rating')}: {star.rating ?? '—'} · {t('columns.avgSupport')}: {formatMinutes(star.avgSupportTime)}
                </span>
              </Stack>
            </Card>
          ) : null}
          <Wide>
            <Panel
              title={t('attendantsTable')}
              testId="attendants"
              {...mainState}
              empty={!attendants.length}
              csv={{
                name: 'atendentes.csv',
                header: [t('columns.name'), t('columns.status'), t('columns.rating'), t('columns.countRating'), t('columns.tickets'), t('columns.avgSupport'), t('columns.avgWait')],
                rows: () => attendants.map((a) => [a.name, a.online ? t('online') : t('offline'), a.rating, a.countRating, a.tickets, a.avgSupportTime, a.avgWaitTime]),
              }}
            >
              <Table data-testid="attendants-table">
                <thead>
                  <tr>
                    <th>{t('columns.name')}</th>
                    <th>{t('columns.status')}</th>
                    <th className="num">{t('columns.rating')}</th>
                    <th className="num">{t('columns.countRating')}</th>
                    <th className="num">{t('columns.tickets')}</th>
                    <th className="num">{t('columns.avgSupport')}</th>
                    <th className="num">{t('columns.avgWait')}</th>
                  </tr>
                </thead>
                <tbody>
                  {attendants.map((a) => (
                    <tr key={a.id} data-testid={`attendant-${a.id}`} style={star?.id === a.id ? { fontWeight: 600 } : undefined}>
                      <td>{a.name}</td>
                      <td>
                        <Status $online={a.online} data-testid="attendant-status">{a.online ? t('online') : t('offline')}</Status>
                      </td>
                      <td className="num">{a.rating ?? '—'}</td>
                      <td className="num">{a.countRating}</td>
                      <td className="num">{a.tickets}</td>
                      <td className="num">{formatMinutes(a.avgSupportTime)}</td>
                      <td className="num">{formatMinutes(a.avgWaitTime)}</td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            </Panel>
          </Wide>
        </section>
      ) : null}
    </div>
  );
}

type SlaShare = DashboardSla['totals']['firstResponse'];

/**
 * The SLA tab (issue 34 item 5; plugins/sla through `GET /dashboard/sla`): the share of tickets whose SLA clock
 * started in the period that met the first-response and the resolution targets, in all (cards), per queue and per
 * attendant (tables, CSV). A share reads "85% (17 of 20)": met over decided (met + late); tickets still running
 * are counted apart.
 */
function SlaTab({ query }: { query: { data: DashboardSla | null | undefined; isPending: boolean; error: unknown; refetch: () => unknown } }) {
  const { t } = useTranslation('dashboard');
  const data = query.data ?? undefined;
  const share = (s: SlaShare | undefined) => (!s || s.share === null ? '—' : t('sla.share', { share: s.share.toLocaleString(), met: s.met, decided: s.met + s.breached }));
  const state = { loading: query.isPending, error: query.error, onRetry: () => void query.refetch() };
  const header = (first: string) => [first, t('sla.firstResponseShort'), `${t('sla.firstResponseShort')} · ${t('sla.met')}`, `${t('sla.firstResponseShort')} · ${t('sla.breached')}`, `${t('sla.firstResponseShort')} · ${t('sla.running')}`, t('sla.resolutionShort'), `${t('sla.resolutionShort')} · ${t('sla.met')}`, `${t('sla.resolutionShort')} · ${t('sla.breached')}`, `${t('sla.resolutionShort')} · ${t('sla.running')}`];
  const csvRow = (name: string, r: { firstResponse: SlaShare; resolution: SlaShare }) => [name, r.firstResponse.share, r.firstResponse.met, r.firstResponse.breached, r.firstResponse.running, r.resolution.share, r.resolution.met, r.resolution.breached, r.resolution.running];
  const queues = data?.queues ?? [];
  const attendants = data?.attendants ?? [];
  const table = (rows: Array<{ key: number; name: string; firstResponse: SlaShare; resolution: SlaShare }>, first: string, testId: string) => (
    <Table data-testid={testId}>
      <thead>
        <tr>
          <th>{first}</th>
          <th className="num">{t('sla.firstResponseShort')}</th>
          <th className="num">{t('sla.resolutionShort')}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key} data-testid={`${testId}-${r.key}`}>
            <td>{r.name}</td>
            <td className="num">{share(r.firstResponse)}</td>
            <td className="num">{share(r.resolution)}</td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
  return (
    <section role="tabpanel" aria-label={t('tabs.sla')}>
      <Grid data-testid="sla-cards">
        <StatCard testId="card-sla-first" label={t('sla.firstResponse')} value={share(data?.totals.firstResponse)} />
        <StatCard testId="card-sla-resolution" label={t('sla.resolution')} value={share(data?.totals.resolution)} />
        <StatCard testId="card-sla-first-late" label={t('sla.breachedFirst')} value={data ? String(data.totals.firstResponse.breached) : '—'} />
        <StatCard testId="card-sla-resolution-late" label={t('sla.breachedResolution')} value={data ? String(data.totals.resolution.breached) : '—'} />
      </Grid>
      <p>{t('sla.hint')}</p>
      <Wide>
        <Panel title={t('sla.perQueue')} testId="sla-queues" {...state} empty={!queues.length} csv={{ name: 'sla-por-fila.csv', header: header(t('sla.queue')), rows: () => queues.map((r) => csvRow(r.name || t('noQueue'), r)) }}>
          {table(queues.map((r) => ({ ...r, key: r.queueId, name: r.name || t('noQueue') })), t('sla.queue'), 'sla-queue')}
        </Panel>
        <Panel title={t('sla.perAttendant')} testId="sla-attendants" {...state} empty={!attendants.length} csv={{ name: 'sla-por-atendente.csv', header: header(t('sla.attendant')), rows: () => attendants.map((r) => csvRow(r.name || t('noUser'), r)) }}>
          {table(attendants.map((r) => ({ ...r, key: r.userId, name: r.name || t('noUser') })), t('sla.attendant'), 'sla-attendant')}
        </Panel>
      </Wide>
    </section>
  );
}
