import type { InfiniteData } from '@tanstack/react-query';
import { applyEvent, matchesSearch, mergePages } from '../src/pages/announcements/cache';
import type { Announcement, AnnouncementsPage } from '../src/pages/announcements/api';

const rec = (id: number, title = `A${id}`): Announcement => ({ id, priority: 3, title, text: 't', mediaPath: null, mediaName: null, companyId: 1, status: true, createdAt: '', updatedAt: '' });
const data = (...pages: Announcement[][]): InfiniteData<AnnouncementsPage> => ({
  pages: pages.map((records, i) => ({ records, count: 10, hasMore: i < pages.length - 1 })),
  pageParams: pages.map((_, i) => i + 1),
});
const ids = (d: InfiniteData<AnnouncementsPage>) => d.pages.map((p) => p.records.map((r) => r.id));

describe('announcements list cache', () => {
  test('mergePages keeps the first occurrence of each id across pages', () => {
    expect(mergePages(data([rec(1), rec(2)], [rec(2), rec(3)], [rec(1), rec(4)])).map((r) => r.id)).toEqual([1, 2, 3, 4]);
    expect(mergePages(undefined)).toEqual([]);
  });

  test('create puts a new one at the top of page 1 and counts it; an existing id is replaced in place', () => {
    const d = data([rec(1), rec(2)], [rec(3)]);
    const created = applyEvent(d, { action: 'create', record: rec(9) });
    expect(ids(created)).toEqual([[9, 1, 2], [3]]);
    expect(created.pages.map((p) => p.count)).toEqual([11, 11]);
    const updated = applyEvent(created, { action: 'update', record: rec(3, 'novo') });
    expect(ids(updated)).toEqual([[9, 1, 2], [3]]);
    expect(updated.pages[1].records[0].title).toBe('novo');
    expect(updated.pages[0].count).toBe(11);
    expect(d.pages[0].records.map((r) => r.id)).toEqual([1, 2]); // pure
  });

  test('delete removes the id wherever it is; unknown ids and malformed events change nothing', () => {
    const d = data([rec(1), rec(2)], [rec(3)]);
    const out = applyEvent(d, { action: 'delete', id: 3 });
    expect(ids(out)).toEqual([[1, 2], []]);
    expect(out.pages[0].count).toBe(9);
    expect(applyEvent(d, { action: 'delete', id: 77 })).toBe(d);
    expect(applyEvent(d, { action: 'delete' } as never)).toBe(d);
    expect(applyEvent(d, { action: 'update' } as never)).toBe(d);
    expect(applyEvent(data(), { action: 'create', record: rec(1) })).toEqual(data());
  });

  test('with a search term, only matching titles are added; an update that stops matching removes the row', () => {
    const d = data([rec(1, 'Manutenção')]);
    expect(ids(applyEvent(d, { action: 'create', record: rec(2, 'Outro') }, 'manut'))).toEqual([[1]]);
    expect(ids(applyEvent(d, { action: 'create', record: rec(2, 'MANUTENÇÃO 2') }, 'manut'))).toEqual([[2, 1]]);
    const out = applyEvent(d, { action: 'update', record: rec(1, 'Parada') }, 'manut');
    expect(ids(out)).toEqual([[]]);
    expect(out.pages[0].count).toBe(9);
    expect(matchesSearch(rec(1, 'Abc'), '')).toBe(true);
  });
});
