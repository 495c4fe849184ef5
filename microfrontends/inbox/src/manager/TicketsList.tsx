import { useCallback, useEffect, useMemo, useRef } from 'react';
import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import styled from 'styled-components';
import { useTranslation } from 'react-i18next';
import { Button, Loading, Spinner } from '@atendo/web-ui';
import { useNow, useSlaTickets } from '@atendo/web-kit';
import { fetchTicketPage, inboxKeys, type ListSpec } from '../lib/api';
import { useErrorToast } from '../lib/errors';
import type { Viewer } from '../lib/viewer';
import type { TicketPage } from '../types';
import { flattenPages } from './live';
import { TicketRow } from './TicketRow';
import type { TicketActions } from './useTicketActions';

/** The next page loads when the list is scrolled to within this many px of its bottom (spec §9). */
export const SCROLL_THRESHOLD_PX = 100;

const Scroller = styled.div`
  flex: 1;
  min-height: 0;
  overflow-y: auto;
  background: ${(p) => p.theme.colors.surface};
`;

const List = styled.ul`
  margin: 0;
  padding: 0;
`;

const Empty = styled.div`
  display: flex;
  flex-direction: column;
  align-items: center;
  gap: ${(p) => p.theme.space(1)};
  padding: ${(p) => p.theme.space(4)} ${(p) => p.theme.space(3)};
  text-align: center;
  color: ${(p) => p.theme.colors.textMuted};
  strong { color: ${(p) => p.theme.colors.text}; font-size: ${(p) => p.theme.font.size.lg}; }
`;

const More = styled.div`
  display: flex;
  justify-content: center;
  padding: ${(p) => p.theme.space(1.5)};
`;

/** True when a scroll container is within `threshold` px of its bottom. */
export function nearBottom(el: Pick<HTMLElement, 'scrollHeight' | 'scrollTop' | 'clientHeight'>, threshold = SCROLL_THRESHOLD_PX): boolean {
  return el.scrollHeight - el.scrollTop - el.clientHeight <= threshold;
}

/**
 * One ticket list of the manager: `GET /tickets` pages (40 tickets, `pageNumber`, `hasMore`) through a
 * react-query infinite query keyed by the list (so live updates reach it while hidden; a first page also
 * refreshes the tab badge counts it carries, and `onLoaded` runs once it is in), the next page
 * when scrolled within 100 px of the bottom, an empty state (title and message) and a load error with a
 * retry (the error is also toasted). The SLA due times of its active tickets come from `GET /sla/tickets`
 * (kept live; nothing when the SLA plugin is not installed) for the rows' badges.
 */
export function TicketsList({ spec, enabled = true, viewer, selectedUuid, actions, onLoaded }: { spec: ListSpec; enabled?: boolean; viewer: Viewer; selectedUuid: string | null; actions: TicketActions; onLoaded?: () => void }) {
  const { t } = useTranslation('inbox');
  const queryClient = useQueryClient();
  const query = useInfiniteQuery({
    queryKey: inboxKeys.list(spec),
    queryFn: async ({ pageParam, signal }) => {
      const page = await fetchTicketPage(spec, pageParam, signal);
      // The tab badges come with every first page (same filters outside the search tab): no extra call.
      if (pageParam === 1 && page.counts && spec.kind !== 'search') queryClient.setQueryData(inboxKeys.counts(spec.showAll, spec.filters), page.counts);
      return page;
    },
    initialPageParam: 1,
    getNextPageParam: (last: TicketPage, pages: TicketPage[]) => (last.hasMore ? pages.length + 1 : undefined),
    enabled,
    staleTime: 10_000,
  });
  useErrorToast(query.error);
  const loaded = query.isSuccess;
  useEffect(() => {
    if (loaded) onLoaded?.();
  }, [loaded, onLoaded]);
  const scroller = useRef<HTMLDivElement>(null);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = query;

  const maybeLoadMore = useCallback(() => {
    const el = scroller.current;
    if (!el || !hasNextPage || isFetchingNextPage) return;
    if (nearBottom(el)) void fetchNextPage();
  }, [fetchNextPage, hasNextPage, isFetchingNextPage]);

  // A first page shorter than the pane (no scrollbar yet) also loads the next one.
  useEffect(() => {
    maybeLoadMore();
  }, [maybeLoadMore, query.data]);

  const tickets = flattenPages(query.data);
  const slaIds = useMemo(() => tickets.filter((x) => !x.isGroup && (x.status === 'pending' || x.status === 'open')).map((x) => x.id), [tickets]);
  const sla = useSlaTickets(slaIds);
  const now = useNow();

  let content;
  if (!enabled) content = null;
  else if (query.isPending) content = <Loading label={t('loading')} />;
  else if (query.isError && !tickets.length) {
    content = (
      <Empty role="alert">
        <span>{t('loadError')}</span>
        <Button variant="secondary" onClick={() => void query.refetch()}>
          {t('common.retry')}
        </Button>
      </Empty>
    );
  } else if (!tickets.length) {
    content = (
      <Empty data-testid="tickets-empty">
        <strong>{t('empty.title')}</strong>
        <span>{t('empty.message')}</span>
      </Empty>
    );
  } else {
    content = (
      <>
        <List data-testid="tickets-list" data-list={spec.kind} aria-label={t(`tabs.${spec.kind === 'open' ? 'assigned' : spec.kind}`)}>
          {tickets.map((ticket) => (
            <TicketRow
              key={ticket.id}
              ticket={ticket}
              viewer={viewer}
              selected={selectedUuid === ticket.uuid}
              busy={actions.busyId === ticket.id}
              onOpen={actions.open}
              onAccept={actions.accept}
              onIgnore={actions.ignore}
              onTransfer={actions.transfer}
              onCloseTicket={actions.close}
              onReopen={actions.reopen}
              sla={sla.get(ticket.id)}
              slaNow={sla.has(ticket.id) ? now : undefined}
            />
          ))}
        </List>
        {isFetchingNextPage ? (
          <More>
            <Spinner size={24} label={t('loading')} />
          </More>
        ) : null}
      </>
    );
  }

  return (
    <Scroller ref={scroller} onScroll={maybeLoadMore} data-testid="tickets-scroller">
      {content}
    </Scroller>
  );
}
