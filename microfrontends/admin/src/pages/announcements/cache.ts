import type { InfiniteData } from '@tanstack/react-query';
import type { Announcement, AnnouncementEvent, AnnouncementsPage } from './api';

/**
 * Pure helpers of the admin list's cache (spec 3-campaigns-and-tools.md §4 "Other states": list screens
 * merge new pages by id; live create or update events upsert an item at the top, delete events remove it).
 */

/** The records of every loaded page, merged by id (the first occurrence wins: a record that moved between
 * pages while paging, or was upserted at the top by a live event, shows once). */
export function mergePages(data: InfiniteData<AnnouncementsPage> | undefined): Announcement[] {
  const seen = new Set<number>();
  const out: Announcement[] = [];
  for (const page of data?.pages ?? []) {
    for (const r of page.records ?? []) {
      if (seen.has(r.id)) continue;
      seen.add(r.id);
      out.push(r);
    }
  }
  return out;
}

/** Whether `record` belongs to the list searched with `term` (the server searches the title, case-insensitive). */
export function matchesSearch(record: Announcement, term: string): boolean {
  return !term || record.title.toLowerCase().includes(term.toLowerCase());
}

/**
 * Applies a `company-announcement` event (or a write's own answer) to the cached pages of the list searched
 * with `term`: an announcement already listed is replaced where it is; a new one goes to the top of the first
 * page; one that no longer matches the search, or a deleted one, is removed. `count` follows. Pure; a
 * malformed event leaves the data unchanged.
 */
export function applyEvent(data: InfiniteData<AnnouncementsPage>, event: AnnouncementEvent, term = ''): InfiniteData<AnnouncementsPage> {
  const id = event.action === 'delete' ? event.id : event.record?.id;
  if (typeof id !== 'number' || !data.pages.length) return data;
  const record = event.action === 'delete' ? null : event.record;
  const keep = record !== null && matchesSearch(record, term);
  let existed = false;
  let pages = data.pages.map((page) => {
    const records = page.records ?? [];
    if (!records.some((r) => r.id === id)) return page;
    existed = true;
    return { ...page, records: keep ? records.map((r) => (r.id === id ? record : r)) : records.filter((r) => r.id !== id) };
  });
  const added = keep && !existed;
  if (added) pages = [{ ...pages[0], records: [record, ...pages[0].records] }, ...pages.slice(1)];
  const delta = (added ? 1 : 0) - (existed && !keep ? 1 : 0);
  if (!existed && !added) return data;
  return { ...data, pages: pages.map((p) => ({ ...p, count: Math.max(0, (p.count ?? 0) + delta) })) };
}
