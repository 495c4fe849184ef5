import { useCallback, useEffect, useMemo, type ReactNode, type UIEvent } from 'react';
import { useInfiniteQuery, useQueryClient, type InfiniteData, type QueryClient, type QueryKey } from '@tanstack/react-query';
import styled from 'styled-components';
import { Button, Card, EmptyState, Loading, PathIcon, Spinner, Title, type IconName } from '@atendo/web-ui';
import { useDebounced, useErrorToast } from './hooks';

/**
 * The list kit of the admin-style screens (users, tags, companies, announcements…): one page frame with a
 * title, a count, a search box (lower-cased, debounced 500 ms) and actions; a scrolling table card that
 * loads the next page within 100 px of its bottom (spec 1-platform.md §9); loading, empty, error and
 * "load more" states; and the cache helpers that merge pages by id and apply live create / update / delete
 * events to every cached search (a search change starts again at page 1).
 */

/** Record ids: numbers, or strings (uuids). */
export type RecordId = number | string;

/** One page of a paged list, whatever the route calls its list (`users`, `tags`, `records`…). */
export interface ListPageOf<T> {
  records: T[];
  /** Total for the search, when the route answers it. */
  count?: number;
  hasMore: boolean;
}

/** A change to apply to cached lists: a record created or updated (upsert), or removed by id. */
export type ListChange<T> = { type: 'upsert'; record: T } | { type: 'remove'; id: RecordId };

/** Distance (px) from the bottom of a list that loads its next page (spec: 100 px). */
export const LOAD_MORE_PX = 100;

/** The records of every loaded page, merged by id (first occurrence wins). */
export function mergeListPages<T extends { id: RecordId }>(data: InfiniteData<ListPageOf<T>> | undefined): T[] {
  const seen = new Set<RecordId>();
  const out: T[] = [];
  for (const page of data?.pages ?? []) {
    for (const r of page.records ?? []) {
      if (seen.has(r.id)) continue;
      seen.add(r.id);
      out.push(r);
    }
  }
  return out;
}

/**
 * Applies `change` to the cached pages of one search: a listed record is replaced in place (or removed
 * when it no longer `matches` the search); a new matching one goes to the top of the first page; a removed
 * one goes. `count` follows. Pure; unchanged data is returned as is.
 */
export function applyListChange<T extends { id: RecordId }>(
  data: InfiniteData<ListPageOf<T>>,
  change: ListChange<T>,
  matches: (record: T) => boolean = () => true,
): InfiniteData<ListPageOf<T>> {
  const id = change.type === 'remove' ? change.id : change.record?.id;
  if ((typeof id !== 'number' && typeof id !== 'string') || !data.pages.length) return data;
  const record = change.type === 'remove' ? null : change.record;
  const keep = record !== null && matches(record);
  let existed = false;
  let pages = data.pages.map((page) => {
    const records = page.records ?? [];
    if (!records.some((r) => r.id === id)) return page;
    existed = true;
    return { ...page, records: keep ? records.map((r) => (r.id === id ? (record as T) : r)) : records.filter((r) => r.id !== id) };
  });
  const added = keep && !existed;
  if (added) pages = [{ ...pages[0], records: [record as T, ...(pages[0].records ?? [])] }, ...pages.slice(1)];
  if (!existed && !added) return data;
  const delta = (added ? 1 : 0) - (existed && !keep ? 1 : 0);
  return { ...data, pages: pages.map((p) => (typeof p.count === 'number' ? { ...p, count: Math.max(0, p.count + delta) } : p)) };
}

/** The same for a list answered whole (an array): upsert in place or at the top, or remove. Pure. */
export function applyArrayChange<T extends { id: RecordId }>(list: T[] | undefined, change: ListChange<T>): T[] | undefined {
  if (!list) return list;
  if (change.type === 'remove') return list.some((r) => r.id === change.id) ? list.filter((r) => r.id !== change.id) : list;
  const record = change.record;
  if (!record || (typeof record.id !== 'number' && typeof record.id !== 'string')) return list;
  return list.some((r) => r.id === record.id) ? list.map((r) => (r.id === record.id ? record : r)) : [record, ...list];
}

/** Applies `change` to every cached search of the paged list under `baseKey` (query keys `[...baseKey, term]`). */
export function applyToPagedLists<T extends { id: RecordId }>(
  client: QueryClient,
  baseKey: QueryKey,
  change: ListChange<T>,
  matches: (record: T, term: string) => boolean = () => true,
): void {
  for (const query of client.getQueryCache().findAll({ queryKey: baseKey })) {
    const term = String(query.queryKey[baseKey.length] ?? '');
    client.setQueryData<InfiniteData<ListPageOf<T>>>(query.queryKey, (old) => (old?.pages ? applyListChange(old, change, (r) => matches(r, term)) : old));
  }
}

export interface PagedListOptions<T> {
  /** The list's key; each search is cached under `[...baseKey, term]`. Start it with the area's name. */
  baseKey: QueryKey;
  /** The search box's text (lower-cased, trimmed and debounced here). */
  search: string;
  /** Loads one page (1-based) of the search. */
  fetchPage: (term: string, pageNumber: number, signal: AbortSignal) => Promise<ListPageOf<T>>;
  /** Whether a record belongs to the list searched with `term` (live upserts); default: always. */
  matches?: (record: T, term: string) => boolean;
}

/**
 * A paged, searchable list: react-query's infinite query per search term (debounced 500 ms; the pages of
 * other terms are dropped when the term changes), its rows merged by id, the total, `loadMore`, an
 * `onScroll` handler for the table card, `apply` for live events and writes, and the error toast.
 */
export function usePagedList<T extends { id: RecordId }>({ baseKey, search, fetchPage, matches }: PagedListOptions<T>) {
  const client = useQueryClient();
  const term = useDebounced(search.trim().toLowerCase());
  const key = useMemo(() => [...baseKey, term] as QueryKey, [baseKey, term]);
  const query = useInfiniteQuery({
    queryKey: key,
    queryFn: ({ pageParam, signal }) => fetchPage(term, pageParam, signal),
    initialPageParam: 1,
    getNextPageParam: (last: ListPageOf<T>, all: ListPageOf<T>[]) => (last.hasMore ? all.length + 1 : undefined),
  });
  useErrorToast(query.error);
  useEffect(() => {
    client.removeQueries({ queryKey: baseKey, predicate: (q) => q.queryKey[baseKey.length] !== term });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, term]);
  const rows = useMemo(() => mergeListPages(query.data), [query.data]);
  const count = query.data?.pages[0]?.count;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = query;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  const onScroll = useScrollLoad(loadMore);
  const apply = useCallback((change: ListChange<T>) => applyToPagedLists(client, baseKey, change, matches), [client, baseKey, matches]);
  return { query, term, rows, count, hasMore: Boolean(hasNextPage), loadingMore: isFetchingNextPage, loadMore, onScroll, apply };
}

/** An `onScroll` handler calling `loadMore` when the element is scrolled within LOAD_MORE_PX of its bottom. */
export function useScrollLoad(loadMore: () => void) {
  return useCallback(
    (e: UIEvent<HTMLElement>) => {
      const el = e.currentTarget;
      if (el.scrollHeight - el.scrollTop - el.clientHeight < LOAD_MORE_PX) loadMore();
    },
    [loadMore],
  );
}

// ------------------------------------------------------------------------------------------- pieces

/** The page: a column filling the area, padded. */
export const ListFrame = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${(p) => p.theme.space(2)};
  height: 100%;
  min-height: 0;
  padding: ${(p) => p.theme.space(3)};
  box-sizing: border-box;
`;

const Header = styled.header`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: ${(p) => p.theme.space(2)};
  h1 { margin: 0; }
  small { color: ${(p) => p.theme.colors.textMuted}; }
`;

const Tools = styled.div`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: ${(p) => p.theme.space(1)};
  margin-left: auto;
`;

/** The page header: title, an optional count line, and tools (search, buttons) on the right. */
export function ListHeader({ title, count, countTestId, children }: { title: string; count?: string; countTestId?: string; children?: ReactNode }) {
  return (
    <Header>
      <Title>{title}</Title>
      {count ? <small data-testid={countTestId}>{count}</small> : null}
      <Tools>{children}</Tools>
    </Header>
  );
}

const SearchLabel = styled.label`
  display: flex;
  align-items: center;
  gap: ${(p) => p.theme.space(1)};
  height: 40px;
  padding: 0 12px;
  border: 1px solid ${(p) => p.theme.colors.border};
  border-radius: ${(p) => p.theme.radius.md};
  background: ${(p) => p.theme.colors.surface};
  color: ${(p) => p.theme.colors.textMuted};
  &:focus-within { border-color: ${(p) => p.theme.colors.primary}; }
  input { border: none; outline: none; background: transparent; color: ${(p) => p.theme.colors.text}; font-size: ${(p) => p.theme.font.size.md}; width: 220px; max-width: 40vw; }
`;

/** The search box of a list (its label is also the placeholder). */
export function SearchBox({ value, onChange, label, testId }: { value: string; onChange: (value: string) => void; label: string; testId?: string }) {
  return (
    <SearchLabel>
      <input type="search" value={value} placeholder={label} aria-label={label} onChange={(e) => onChange(e.target.value)} data-testid={testId} />
      <PathIcon d="M11 19a8 8 0 1 0 0-16 8 8 0 0 0 0 16zM21 21l-4.35-4.35" />
    </SearchLabel>
  );
}

/** The card the table scrolls in (give it `onScroll` from `usePagedList`). */
export const TableCard = styled(Card)`
  flex: 1;
  min-height: 0;
  overflow: auto;
  padding: 0;
`;

/** A list table: sticky header, centred cells (`td.start` for left-aligned text, `td.actions` for buttons). */
export const DataTable = styled.table`
  width: 100%;
  border-collapse: collapse;
  th, td { padding: 10px 16px; border-bottom: 1px solid ${(p) => p.theme.colors.border}; text-align: center; }
  th { position: sticky; top: 0; z-index: 1; background: ${(p) => p.theme.colors.surface}; color: ${(p) => p.theme.colors.textMuted}; font-size: ${(p) => p.theme.font.size.sm}; font-weight: ${(p) => p.theme.font.weight.medium}; }
  td.start, th.start { text-align: left; word-break: break-word; }
  td a { color: ${(p) => p.theme.colors.primary}; }
  td.actions { white-space: nowrap; }
`;

/** A small coloured label (status, priority, flags). */
export const Chip = styled.span<{ $tone: 'danger' | 'warning' | 'info' | 'success' | 'muted' | 'primary' }>`
  display: inline-flex;
  align-items: center;
  padding: 2px 10px;
  border-radius: ${(p) => p.theme.radius.round};
  font-size: ${(p) => p.theme.font.size.xs};
  font-weight: ${(p) => p.theme.font.weight.medium};
  white-space: nowrap;
  color: ${(p) => (p.$tone === 'muted' ? p.theme.colors.textMuted : p.theme.colors[p.$tone])};
  border: 1px solid currentColor;
`;

/** A chip filled with a record's own colour (queues, tags). */
export const ColorChip = styled.span<{ $color: string }>`
  display: inline-flex;
  align-items: center;
  max-width: 100%;
  padding: 2px 10px;
  border-radius: ${(p) => p.theme.radius.round};
  background: ${(p) => p.$color};
  color: #fff;
  font-size: ${(p) => p.theme.font.size.sm};
  font-weight: ${(p) => p.theme.font.weight.medium};
  text-shadow: 0 0 2px rgba(0, 0, 0, 0.45);
  overflow: hidden;
  text-overflow: ellipsis;
  white-space: nowrap;
`;

const Footer = styled.div`
  display: flex;
  justify-content: center;
  padding: ${(p) => p.theme.space(1.5)};
`;

export interface ListStatusProps {
  /** First load running: a spinner instead of the table. */
  loading: boolean;
  /** No rows once loaded. */
  empty: boolean;
  /** The first load failed (the error toast was shown): a retry button. */
  failed?: boolean;
  onRetry?: () => void;
  hasMore?: boolean;
  loadingMore?: boolean;
  onLoadMore?: () => void;
  texts: { loading: string; empty: string; retry?: string; loadMore?: string };
  emptyIcon?: IconName;
  testId?: string;
}

/**
 * The `ListStatus` props a `usePagedList` result decides: loading (first page), empty once loaded, failed with
 * retry, and the "load more" footer. Spread them: `<ListStatus {...pagedListStatus(list)} texts={...} />`.
 */
export function pagedListStatus(list: {
  query: { isPending: boolean; isError: boolean; refetch: () => unknown };
  rows: readonly unknown[];
  hasMore: boolean;
  loadingMore: boolean;
  loadMore: () => void;
}): Omit<ListStatusProps, 'texts' | 'emptyIcon' | 'testId'> {
  return {
    loading: list.query.isPending,
    empty: !list.query.isPending && list.rows.length === 0,
    failed: list.query.isError,
    onRetry: () => void list.query.refetch(),
    hasMore: list.hasMore,
    loadingMore: list.loadingMore,
    onLoadMore: list.loadMore,
  };
}

/** What a list shows besides its rows: loading, empty, failed (with retry), and the "load more" footer. */
export function ListStatus({ loading, empty, failed, onRetry, hasMore, loadingMore, onLoadMore, texts, emptyIcon = 'inbox', testId = 'list' }: ListStatusProps) {
  if (loading) return <Loading label={texts.loading} />;
  if (failed && empty) {
    return (
      <EmptyState icon="warning" text={texts.empty} role="alert" data-testid={`${testId}-failed`}>
        {onRetry && texts.retry ? (
          <Button variant="secondary" onClick={onRetry}>
            {texts.retry}
          </Button>
        ) : null}
      </EmptyState>
    );
  }
  return (
    <>
      {empty ? <EmptyState icon={emptyIcon} text={texts.empty} data-testid={`${testId}-empty`} /> : null}
      {hasMore || loadingMore ? (
        <Footer>
          {loadingMore ? (
            <Spinner size={24} label={texts.loading} />
          ) : (
            <Button variant="secondary" onClick={onLoadMore} data-testid={`${testId}-load-more`}>
              {texts.loadMore}
            </Button>
          )}
        </Footer>
      ) : null}
    </>
  );
}
