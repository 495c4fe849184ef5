import { useMemo, useState } from 'react';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { Button, SelectField, TextField } from '@atendo/web-ui';
import { DataTable, ListFrame, ListHeader, ListStatus, mergeListPages, TableCard, useErrorToast, useScrollLoad } from '@atendo/web-kit';
import { fetchUserRefs } from '../../lib/api';
import { AUDIT_ENTITIES, describeFields, fetchAuditPage, type AuditFilters, type AuditPage } from './api';

const Filters = styled.form`
  display: grid;
  grid-template-columns: repeat(auto-fit, minmax(160px, 1fr));
  gap: ${(p) => p.theme.space(1.5)};
  align-items: end;
  margin-bottom: ${(p) => p.theme.space(2)};
`;
const Fields = styled.td`
  max-width: 320px;
  white-space: pre-wrap;
  word-break: break-word;
  font-size: ${(p) => p.theme.font.size.xs};
`;

const EMPTY: AuditFilters = { entity: '', entityId: '', userId: '', from: '', to: '' };

/**
 * The audit log (issue 34 item 1; `GET /audit-logs`): filters by entity, entity id, user and a day range,
 * applied with the button (the form's values become the query); the entries newest first, 50 a page with
 * "load more": when, who (user name, or system/bot/API), what (entity, id, action), the changed fields
 * before and after, and the address. Read-only: the log has no edit or delete anywhere.
 */
export function AuditLogsPage() {
  const { t, i18n } = useTranslation('admin');
  const [form, setForm] = useState<AuditFilters>(EMPTY);
  const [applied, setApplied] = useState<AuditFilters>(EMPTY);
  const users = useQuery({ queryKey: ['admin', 'audit-logs', 'users'], queryFn: ({ signal }) => fetchUserRefs(signal) });
  const query = useInfiniteQuery({
    queryKey: ['admin', 'audit-logs', applied],
    queryFn: ({ pageParam, signal }) => fetchAuditPage(applied, pageParam, signal),
    initialPageParam: 1,
    getNextPageParam: (last: AuditPage, all: AuditPage[]) => (last.hasMore ? all.length + 1 : undefined),
  });
  useErrorToast(query.error);
  const rows = useMemo(() => mergeListPages(query.data), [query.data]);
  const count = query.data?.pages[0]?.count;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = query;
  const loadMore = () => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  };
  const onScroll = useScrollLoad(loadMore);
  const when = useMemo(() => new Intl.DateTimeFormat(i18n.language, { dateStyle: 'short', timeStyle: 'medium' }), [i18n.language]);
  const set = (k: keyof AuditFilters) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));
  const who = (r: AuditPage['records'][number]) => (r.actorKind === 'user' ? (r.userName ?? `#${r.userId}`) : t(`auditLogs.actors.${r.actorKind}`) + (r.actorLabel ? ` (${r.actorLabel})` : ''));
  const label = (group: 'entities' | 'actions', key: string) => t(`auditLogs.${group}.${key}`, { defaultValue: key });

  return (
    <ListFrame data-testid="audit-logs-page">
      <ListHeader title={t('auditLogs.title')} count={count !== undefined ? t('auditLogs.count', { count }) : undefined} countTestId="audit-logs-count" />
      <Filters
        onSubmit={(e) => {
          e.preventDefault();
          setApplied({ ...form });
        }}
        data-testid="audit-logs-filters"
      >
        <SelectField label={t('auditLogs.filters.entity')} value={form.entity} onChange={set('entity')} data-testid="audit-filter-entity">
          <option value="">{t('auditLogs.filters.all')}</option>
          {AUDIT_ENTITIES.map((e) => (
            <option key={e} value={e}>
              {label('entities', e)}
            </option>
          ))}
        </SelectField>
        <TextField label={t('auditLogs.filters.entityId')} value={form.entityId} onChange={set('entityId')} maxLength={100} data-testid="audit-filter-entity-id" />
        <SelectField label={t('auditLogs.filters.user')} value={form.userId} onChange={set('userId')} data-testid="audit-filter-user">
          <option value="">{t('auditLogs.filters.all')}</option>
          {(users.data ?? []).map((u) => (
            <option key={u.id} value={String(u.id)}>
              {u.name}
            </option>
          ))}
        </SelectField>
        <TextField type="date" label={t('auditLogs.filters.from')} value={form.from} onChange={set('from')} data-testid="audit-filter-from" />
        <TextField type="date" label={t('auditLogs.filters.to')} value={form.to} onChange={set('to')} data-testid="audit-filter-to" />
        <div>
          <Button type="submit" data-testid="audit-filter-apply">
            {t('auditLogs.filters.apply')}
          </Button>{' '}
          <Button
            variant="text"
            onClick={() => {
              setForm(EMPTY);
              setApplied(EMPTY);
            }}
          >
            {t('auditLogs.filters.clear')}
          </Button>
        </div>
      </Filters>
      <TableCard onScroll={onScroll}>
        {query.isPending ? null : (
          <DataTable>
            <thead>
              <tr>
                <th scope="col">{t('auditLogs.cols.when')}</th>
                <th scope="col" className="start">{t('auditLogs.cols.who')}</th>
                <th scope="col" className="start">{t('auditLogs.cols.what')}</th>
                <th scope="col" className="start">{t('auditLogs.cols.before')}</th>
                <th scope="col" className="start">{t('auditLogs.cols.after')}</th>
                <th scope="col">{t('auditLogs.cols.ip')}</th>
              </tr>
            </thead>
            <tbody data-testid="audit-logs-rows">
              {rows.map((r) => (
                <tr key={r.id} data-testid={`audit-row-${r.id}`}>
                  <td>{when.format(new Date(r.createdAt))}</td>
                  <td className="start">{who(r)}</td>
                  <td className="start">
                    {label('entities', r.entity)} {r.entityId ? `#${r.entityId}` : ''} · {label('actions', r.action)}
                  </td>
                  <Fields className="start">{describeFields(r.before)}</Fields>
                  <Fields className="start">{describeFields(r.after)}</Fields>
                  <td>{r.ip ?? ''}</td>
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
          hasMore={Boolean(hasNextPage)}
          loadingMore={isFetchingNextPage}
          onLoadMore={loadMore}
          texts={{ loading: t('common.loading'), empty: query.isError ? t('common.loadFailed') : t('auditLogs.empty'), retry: t('common.retry'), loadMore: t('auditLogs.loadMore') }}
          emptyIcon="list"
          testId="audit-logs"
        />
      </TableCard>
    </ListFrame>
  );
}
