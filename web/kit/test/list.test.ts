import { QueryClient, type InfiniteData } from '@tanstack/react-query';
import { applyArrayChange, applyListChange, applyToPagedLists, mergeListPages, pagedListStatus, type ListPageOf } from '../src/list';

type R = { id: number; name: string };
const data = (...pages: R[][]): InfiniteData<ListPageOf<R>> => ({ pages: pages.map((records, i) => ({ records, count: 4, hasMore: i < pages.length - 1 })), pageParams: pages.map((_, i) => i + 1) });
const a = { id: 1, name: 'Ana' };
const b = { id: 2, name: 'Bia' };
const c = { id: 3, name: 'Caio' };

describe('list kit cache helpers', () => {
  test('mergeListPages keeps the first occurrence of an id across pages', () => {
    expect(mergeListPages(data([a, b], [b, c])).map((r) => r.id)).toEqual([1, 2, 3]);
    expect(mergeListPages(undefined)).toEqual([]);
  });

  test('applyListChange: replace in place, add at the top, remove, drop what no longer matches; count follows', () => {
    const d = data([a, b], [c]);
    const replaced = applyListChange(d, { type: 'upsert', record: { id: 3, name: 'Caio Lima' } });
    expect(mergeListPages(replaced).map((r) => r.name)).toEqual(['Ana', 'Bia', 'Caio Lima']);
    expect(replaced.pages[0].count).toBe(4);
    const added = applyListChange(d, { type: 'upsert', record: { id: 9, name: 'Davi' } });
    expect(mergeListPages(added).map((r) => r.id)).toEqual([9, 1, 2, 3]);
    expect(added.pages.map((p) => p.count)).toEqual([5, 5]);
    const removed = applyListChange(d, { type: 'remove', id: 2 });
    expect(mergeListPages(removed).map((r) => r.id)).toEqual([1, 3]);
    expect(removed.pages[0].count).toBe(3);
    const filtered = applyListChange(d, { type: 'upsert', record: { id: 1, name: 'Zé' } }, (r) => r.name.startsWith('A'));
    expect(mergeListPages(filtered).map((r) => r.id)).toEqual([2, 3]);
    // A new record outside the search is not added; unknown removals and malformed changes change nothing.
    expect(applyListChange(d, { type: 'upsert', record: { id: 9, name: 'Zé' } }, (r) => r.name.startsWith('A'))).toBe(d);
    expect(applyListChange(d, { type: 'remove', id: 99 })).toBe(d);
    expect(applyListChange(d, { type: 'upsert', record: {} as R })).toBe(d);
  });

  test('applyArrayChange upserts at the top or in place, and removes', () => {
    expect(applyArrayChange([a, b], { type: 'upsert', record: c })).toEqual([c, a, b]);
    expect(applyArrayChange([a, b], { type: 'upsert', record: { id: 2, name: 'B' } })).toEqual([a, { id: 2, name: 'B' }]);
    expect(applyArrayChange([a, b], { type: 'remove', id: 1 })).toEqual([b]);
    expect(applyArrayChange(undefined, { type: 'remove', id: 1 })).toBeUndefined();
  });

  test('applyToPagedLists reaches every cached search with its own term', () => {
    const client = new QueryClient();
    client.setQueryData(['x', 'list', ''], data([a, b]));
    client.setQueryData(['x', 'list', 'ca'], data([c]));
    client.setQueryData(['x', 'other'], { keep: true });
    applyToPagedLists<R>(client, ['x', 'list'], { type: 'upsert', record: { id: 4, name: 'Carla' } }, (r, term) => r.name.toLowerCase().includes(term));
    expect(mergeListPages(client.getQueryData<InfiniteData<ListPageOf<R>>>(['x', 'list', ''])).map((r) => r.id)).toEqual([4, 1, 2]);
    expect(mergeListPages(client.getQueryData<InfiniteData<ListPageOf<R>>>(['x', 'list', 'ca'])).map((r) => r.id)).toEqual([4, 3]);
    expect(client.getQueryData(['x', 'other'])).toEqual({ keep: true });
  });
});

describe('pagedListStatus', () => {
  const base = { query: { isPending: false, isError: false, refetch: jest.fn() }, rows: [] as unknown[], hasMore: false, loadingMore: false, loadMore: jest.fn() };
  test('loading, then empty once loaded, failed with a retry that refetches, and the load-more footer', () => {
    expect(pagedListStatus({ ...base, query: { ...base.query, isPending: true } })).toMatchObject({ loading: true, empty: false });
    expect(pagedListStatus(base)).toMatchObject({ loading: false, empty: true, failed: false, hasMore: false });
    const failed = pagedListStatus({ ...base, query: { ...base.query, isError: true } });
    expect(failed.failed).toBe(true);
    failed.onRetry!();
    expect(base.query.refetch).toHaveBeenCalledTimes(1);
    const more = pagedListStatus({ ...base, rows: [{}], hasMore: true, loadingMore: true });
    expect(more).toMatchObject({ empty: false, hasMore: true, loadingMore: true, onLoadMore: base.loadMore });
  });
});
