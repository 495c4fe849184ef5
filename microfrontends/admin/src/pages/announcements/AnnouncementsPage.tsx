import { useCallback, useEffect, useMemo, useState, type UIEvent } from 'react';
import { useInfiniteQuery, useQueryClient, type InfiniteData, type QueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { toastError, useSocketEvent } from '@atendo/web-api';
import { Button, Card, EmptyState, IconButton, Loading, Spinner, Title } from '@atendo/web-ui';
import { useDebounced, useErrorToast } from '../../lib/hooks';
import { adminKeys, ANNOUNCEMENT_EVENT, deleteAnnouncement, fetchAnnouncements, type Announcement, type AnnouncementEvent, type AnnouncementsPage as Page } from './api';
import { AnnouncementModal, priorityKey } from './AnnouncementModal';
import { applyEvent, mergePages } from './cache';
import { AdminIcon, Chip, ConfirmDialog } from '../../lib/parts';

/** How close to the bottom of the table (px) scrolling loads the next page. */
const LOAD_MORE_THRESHOLD = 120;

const Wrapper = styled.div`
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
  align-items: center;
  gap: ${(p) => p.theme.space(1)};
  margin-left: auto;
`;

const Search = styled.label`
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

const Scroller = styled(Card)`
  flex: 1;
  min-height: 0;
  overflow: auto;
  padding: 0;
`;

const Table = styled.table`
  width: 100%;
  border-collapse: collapse;
  th, td { padding: 10px 16px; border-bottom: 1px solid ${(p) => p.theme.colors.border}; text-align: center; }
  th { position: sticky; top: 0; background: ${(p) => p.theme.colors.surface}; color: ${(p) => p.theme.colors.textMuted}; font-size: ${(p) => p.theme.font.size.sm}; font-weight: ${(p) => p.theme.font.weight.medium}; }
  td.title { text-align: left; word-break: break-word; }
  td a { color: ${(p) => p.theme.colors.primary}; }
  td.actions { white-space: nowrap; }
`;

const Footer = styled.div`
  display: flex;
  justify-content: center;
  padding: ${(p) => p.theme.space(1.5)};
`;

const Muted = styled.span`
  color: ${(p) => p.theme.colors.textMuted};
`;

const PRIORITY_TONE = { high: 'danger', medium: 'warning', low: 'info' } as const;

/** Applies a live event (or a write's answer) to every cached admin list (each with its own search term). */
export function applyToLists(client: QueryClient, event: AnnouncementEvent): void {
  for (const query of client.getQueryCache().findAll({ queryKey: adminKeys.announcements })) {
    const term = String(query.queryKey[2] ?? '');
    client.setQueryData<InfiniteData<Page>>(query.queryKey, (old) => (old ? applyEvent(old, event, term) : old));
  }
}

/**
 * The announcements admin (spec 3-campaigns-and-tools.md §2 "Announcements admin (/announcements)"; super
 * users only, gated by the shell): a title with a search box (lower-cased, debounced 500 ms; a new search
 * starts again at page 1) and an add button; a table of priority (coloured high / medium / low), title,
 * status, attachment and edit / delete actions; 20 a page, more on scrolling to the bottom or with the
 * "load more" button, merged by id; live `company-announcement` events upsert (a new one at the top) and
 * remove rows. API errors show as the shell's error toast.
 */
export function AnnouncementsPage() {
  const { t } = useTranslation('admin');
  const client = useQueryClient();
  const [search, setSearch] = useState('');
  const term = useDebounced(search.trim().toLowerCase());
  const [editing, setEditing] = useState<{ record: Announcement | null } | null>(null);
  const [deleting, setDeleting] = useState<Announcement | null>(null);
  const [busy, setBusy] = useState(false);

  const query = useInfiniteQuery({
    queryKey: adminKeys.list(term),
    queryFn: ({ pageParam, signal }) => fetchAnnouncements(term, pageParam, signal),
    initialPageParam: 1,
    getNextPageParam: (last: Page, all: Page[]) => (last.hasMore ? all.length + 1 : undefined),
  });
  useErrorToast(query.error);

  // A search change starts again from page 1: the pages loaded for other terms are dropped.
  useEffect(() => {
    client.removeQueries({ queryKey: adminKeys.announcements, predicate: (q) => q.queryKey[2] !== term });
  }, [client, term]);

  const upsert = useCallback((record: Announcement) => applyToLists(client, { action: 'update', record }), [client]);
  useSocketEvent<AnnouncementEvent>(ANNOUNCEMENT_EVENT, (event) => {
    if (event && typeof event === 'object') applyToLists(client, event);
  });

  const rows = useMemo(() => mergePages(query.data), [query.data]);
  const count = query.data?.pages[0]?.count;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = query;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  const onScroll = (e: UIEvent<HTMLElement>) => {
    const el = e.currentTarget;
    if (el.scrollHeight - el.scrollTop - el.clientHeight < LOAD_MORE_THRESHOLD) loadMore();
  };

  const confirmDelete = async () => {
    if (!deleting || busy) return;
    setBusy(true);
    try {
      await deleteAnnouncement(deleting.id);
      applyToLists(client, { action: 'delete', id: deleting.id });
      toast.success(t('announcements.toasts.deleted'));
      setDeleting(null);
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Wrapper data-testid="announcements-page">
      <Header>
        <Title>{t('announcements.title')}</Title>
        {typeof count === 'number' ? <small data-testid="announcements-count">{t('announcements.count', { count })}</small> : null}
        <Tools>
          <Search>
            <input type="search" value={search} placeholder={t('announcements.search')} aria-label={t('announcements.search')} onChange={(e) => setSearch(e.target.value)} />
            <AdminIcon name="search" />
          </Search>
          <Button onClick={() => setEditing({ record: null })} data-testid="announcement-add">
            <AdminIcon name="plus" size={18} />
            {t('announcements.add')}
          </Button>
        </Tools>
      </Header>
      <Scroller onScroll={onScroll} data-testid="announcements-scroller">
        {query.isPending ? (
          <Loading label={t('common.loading')} />
        ) : (
          <Table>
            <thead>
              <tr>
                <th scope="col">{t('announcements.columns.priority')}</th>
                <th scope="col">{t('announcements.columns.title')}</th>
                <th scope="col">{t('announcements.columns.status')}</th>
                <th scope="col">{t('announcements.columns.media')}</th>
                <th scope="col">{t('announcements.columns.actions')}</th>
              </tr>
            </thead>
            <tbody data-testid="announcements-rows">
              {rows.map((a) => {
                const p = priorityKey(a.priority);
                return (
                  <tr key={a.id} data-testid={`announcement-row-${a.id}`}>
                    <td>
                      <Chip $tone={PRIORITY_TONE[p]} data-priority={a.priority}>
                        {t(`announcements.priority.${p}`)}
                      </Chip>
                    </td>
                    <td className="title">{a.title}</td>
                    <td>
                      <Chip $tone={a.status ? 'success' : 'muted'}>{t(a.status ? 'announcements.status.active' : 'announcements.status.inactive')}</Chip>
                    </td>
                    <td>
                      {a.mediaName ? (
                        a.mediaPath ? (
                          <a href={a.mediaPath} target="_blank" rel="noopener noreferrer">
                            {a.mediaName}
                          </a>
                        ) : (
                          a.mediaName
                        )
                      ) : (
                        <Muted>{t('announcements.noMedia')}</Muted>
                      )}
                    </td>
                    <td className="actions">
                      <IconButton label={t('announcements.edit', { title: a.title })} tone="default" onClick={() => setEditing({ record: a })}>
                        <AdminIcon name="edit" />
                      </IconButton>
                      <IconButton label={t('announcements.delete', { title: a.title })} tone="default" onClick={() => setDeleting(a)}>
                        <AdminIcon name="trash" />
                      </IconButton>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </Table>
        )}
        {!query.isPending && rows.length === 0 ? <EmptyState icon="announcement" text={t('announcements.empty')} /> : null}
        {hasNextPage || isFetchingNextPage ? (
          <Footer>
            {isFetchingNextPage ? (
              <Spinner size={24} label={t('common.loading')} />
            ) : (
              <Button variant="secondary" onClick={loadMore} data-testid="announcements-load-more">
                {t('announcements.loadMore')}
              </Button>
            )}
          </Footer>
        ) : null}
      </Scroller>
      {editing ? <AnnouncementModal announcement={editing.record} onClose={() => setEditing(null)} onSaved={upsert} /> : null}
      <ConfirmDialog
        open={Boolean(deleting)}
        title={t('announcements.confirm.title', { title: deleting?.title ?? '' })}
        message={t('announcements.confirm.message')}
        confirmLabel={t('announcements.confirm.confirm')}
        busy={busy}
        onConfirm={() => void confirmDelete()}
        onClose={() => setDeleting(null)}
      />
    </Wrapper>
  );
}
