import type { InfiniteData, QueryClient, QueryKey } from '@tanstack/react-query';
import { EMPTY_SEARCH, inboxKeys, type ListFilters, type ListKind, type ListSpec, type SearchFilters } from '../lib/api';
import type { Viewer } from '../lib/viewer';
import type { TicketPage } from '../types';
import { applyToPages, type LiveEvent } from './live';

const KINDS: ListKind[] = ['open', 'pending', 'group', 'closed', 'search'];

/** The list a cached query key (`inboxKeys.list(spec)`) belongs to, or undefined for other keys. */
export function specFromKey(key: QueryKey): ListSpec | undefined {
  const [area, what, kind, showAll, search, filters] = key as unknown[];
  if (area !== 'inbox' || what !== 'tickets' || !KINDS.includes(kind as ListKind)) return undefined;
  return {
    kind: kind as ListKind,
    showAll: showAll === true,
    search: kind === 'search' ? ((search as SearchFilters | null) ?? EMPTY_SEARCH) : undefined,
    filters: (filters as ListFilters | null) ?? undefined,
  };
}

/**
 * Applies a live event to every cached ticket list (mounted or not), so that each tab is current when it
 * is shown again. Returns how many lists changed.
 */
export function applyLiveToCache(queryClient: QueryClient, viewer: Viewer, ev: LiveEvent): number {
  let changed = 0;
  for (const [key, data] of queryClient.getQueriesData<InfiniteData<TicketPage, unknown>>({ queryKey: inboxKeys.lists })) {
    const spec = specFromKey(key);
    if (!spec || !data?.pages) continue;
    const next = applyToPages(data, spec, viewer, ev);
    if (next !== data) {
      queryClient.setQueryData(key, next);
      changed++;
    }
  }
  return changed;
}
