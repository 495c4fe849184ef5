import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useInfiniteQuery, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { ANNOUNCEMENT_EVENT, api, formatDate, useSocketEvent, type Announcement, type AnnouncementEvent, type AnnouncementsPage } from '@atendo/web-api';

export { ANNOUNCEMENT_EVENT, type Announcement, type AnnouncementEvent, type AnnouncementsPage };
import { Button, EmptyState, Icon, IconButton, Popover, Spinner } from '@atendo/web-ui';
import { BadgeCount, BadgeWrap, PopoverHeader, PopoverList } from './popover-parts';

/** Query key of the active announcements (the popover's list). */
export const ANNOUNCEMENTS_KEY = ['announcements', 'active'] as const;
/** How many seen ids are remembered per user. */
const SEEN_LIMIT = 500;

/** localStorage key of the ids of the announcements `userId` has seen. */
export const seenKey = (userId: number) => `announcementsSeen:${userId}`;

function readSeen(userId: number): Set<number> {
  try {
    const raw: unknown = JSON.parse(window.localStorage.getItem(seenKey(userId)) ?? '[]');
    return new Set(Array.isArray(raw) ? raw.filter((v): v is number => Number.isInteger(v)) : []);
  } catch {
    return new Set();
  }
}

function writeSeen(userId: number, ids: Set<number>): void {
  try {
    window.localStorage.setItem(seenKey(userId), JSON.stringify([...ids].slice(-SEEN_LIMIT)));
  } catch {
    /* storage full or disabled: the badge just comes back on the next load */
  }
}

/** Highest priority (1) first, then newest. */
const byPriorityThenNewest = (a: Announcement, b: Announcement) => a.priority - b.priority || b.createdAt.localeCompare(a.createdAt) || b.id - a.id;

/**
 * Applies a `company-announcement` event to the cached pages of active announcements: a created or
 * updated active one is (re)placed in the first page in priority-then-newest order; an inactive or
 * deleted one is dropped. Pure; returns the data unchanged for a malformed event.
 */
export function applyAnnouncementEvent(data: InfiniteData<AnnouncementsPage>, event: AnnouncementEvent): InfiniteData<AnnouncementsPage> {
  const id = event.action === 'delete' ? event.id : event.record?.id;
  if (typeof id !== 'number') return data;
  let existed = false;
  let pages = data.pages.map((p) => {
    const records = (p.records ?? []).filter((r) => r.id !== id);
    if (records.length !== (p.records ?? []).length) existed = true;
    return { ...p, records };
  });
  const add = event.action !== 'delete' && event.record.status !== false;
  if (add && pages.length) pages = [{ ...pages[0], records: [event.record, ...pages[0].records].sort(byPriorityThenNewest) }, ...pages.slice(1)];
  const delta = (add ? 1 : 0) - (existed ? 1 : 0);
  return { ...data, pages: pages.map((p) => ({ ...p, count: Math.max(0, (p.count ?? 0) + delta) })) };
}

/** `DD/MM/YYYY HH:mm` in the browser's time zone. */
function formatDateTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return formatDate(iso);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getDate())}/${p(d.getMonth() + 1)}/${d.getFullYear()} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

const PRIORITY = {
  1: { key: 'high', tone: 'danger' },
  2: { key: 'medium', tone: 'warning' },
  3: { key: 'low', tone: 'info' },
} as const;
const priorityOf = (p: number) => PRIORITY[p as 1 | 2 | 3] ?? PRIORITY[3];

const Item = styled.li<{ $tone: 'danger' | 'warning' | 'info' }>`
  padding: 12px 16px 12px 13px;
  border-left: 3px solid ${(p) => p.theme.colors[p.$tone]};
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
  h3 { margin: 4px 0; font-size: ${(p) => p.theme.font.size.md}; font-weight: ${(p) => p.theme.font.weight.bold}; overflow-wrap: anywhere; }
  p { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
  img { display: block; max-width: 100%; max-height: 220px; margin-top: 8px; border-radius: ${(p) => p.theme.radius.sm}; }
`;

const Meta = styled.div`
  display: flex;
  align-items: center;
  gap: 8px;
  font-size: ${(p) => p.theme.font.size.xs};
  color: ${(p) => p.theme.colors.textMuted};
`;

const Chip = styled.span<{ $tone: 'danger' | 'warning' | 'info' }>`
  padding: 1px 8px;
  border-radius: ${(p) => p.theme.radius.round};
  border: 1px solid ${(p) => p.theme.colors[p.$tone]};
  color: ${(p) => p.theme.colors[p.$tone]};
  font-weight: ${(p) => p.theme.font.weight.medium};
`;

const NewMark = styled.span`
  color: ${(p) => p.theme.colors.primary};
  font-weight: ${(p) => p.theme.font.weight.bold};
`;

const Footer = styled.div`
  display: flex;
  justify-content: center;
  padding: 8px;
`;

const Center = styled.div`
  display: flex;
  justify-content: center;
  padding: 24px;
`;

/**
 * The top bar's announcements button (spec 1-platform.md §2; wire-shapes "GET /announcements/" R:
 * AnnouncementsPopover). Lists the active announcements (`GET /announcements/?status=true`, 20 a page, "load
 * more"), highest priority first: a priority label and colour, title, text, date and image. The badge counts
 * the loaded ones this user has not seen yet; opening the popover marks them seen (ids kept in localStorage
 * `announcementsSeen:{userId}`, per user, synced across tabs). `company-announcement` events update the list
 * live. Default export: loaded lazily by `Announcements`.
 */
export default function AnnouncementsPopover({ userId }: { userId: number }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const anchor = useRef<HTMLButtonElement>(null);
  const [seen, setSeen] = useState(() => readSeen(userId));
  const [fresh, setFresh] = useState<Set<number>>(() => new Set());

  const query = useInfiniteQuery({
    queryKey: ANNOUNCEMENTS_KEY,
    queryFn: ({ pageParam, signal }) => api.get<AnnouncementsPage>('/announcements/', { query: { pageNumber: pageParam, status: true }, signal }),
    initialPageParam: 1,
    getNextPageParam: (last, all) => (last?.hasMore ? all.length + 1 : undefined),
  });
  const records = useMemo(() => {
    const out: Announcement[] = [];
    const ids = new Set<number>();
    for (const p of query.data?.pages ?? []) {
      for (const r of Array.isArray(p?.records) ? p.records : []) {
        if (r.status === false || ids.has(r.id)) continue;
        ids.add(r.id);
        out.push(r);
      }
    }
    return out;
  }, [query.data]);

  useSocketEvent<AnnouncementEvent>(ANNOUNCEMENT_EVENT, (event) => {
    if (!event || typeof event !== 'object') return;
    if (client.getQueryData(ANNOUNCEMENTS_KEY)) client.setQueryData<InfiniteData<AnnouncementsPage>>(ANNOUNCEMENTS_KEY, (data) => (data ? applyAnnouncementEvent(data, event) : data));
    else void client.invalidateQueries({ queryKey: ANNOUNCEMENTS_KEY });
  });

  // Another tab of the same user saw them.
  useEffect(() => {
    setSeen(readSeen(userId));
    const onStorage = (e: StorageEvent) => {
      if (e.key === seenKey(userId)) setSeen(readSeen(userId));
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, [userId]);

  const unseen = useMemo(() => records.filter((r) => !seen.has(r.id)), [records, seen]);
  // While open, what is shown is seen; the ones that were new keep a "new" mark until the popover closes.
  useEffect(() => {
    if (!open || !unseen.length) return;
    const next = new Set(seen);
    for (const r of unseen) next.add(r.id);
    writeSeen(userId, next);
    setSeen(next);
    setFresh((f) => new Set([...f, ...unseen.map((r) => r.id)]));
  }, [open, unseen, seen, userId]);
  const close = useCallback(() => {
    setOpen(false);
    setFresh(new Set());
  }, []);

  const count = unseen.length;
  const label = count ? `${t('topbar.announcements')} (${t('announcements.unread', { count })})` : t('topbar.announcements');
  return (
    <>
      <BadgeWrap>
        <IconButton ref={anchor} label={label} aria-haspopup="dialog" aria-expanded={open} onClick={() => (open ? close() : setOpen(true))} data-testid="announcements-button">
          <Icon name="announcement" />
        </IconButton>
        {count ? (
          <BadgeCount data-testid="announcements-badge" aria-hidden="true">
            {count > 9 ? '9+' : count}
          </BadgeCount>
        ) : null}
      </BadgeWrap>
      <Popover open={open} onClose={close} anchorRef={anchor} label={t('announcements.title')} width={360} maxHeight={440}>
        <PopoverHeader>{t('announcements.title')}</PopoverHeader>
        {query.isPending ? (
          <Center>
            <Spinner size={24} label={t('common.loading')} />
          </Center>
        ) : query.isError && !records.length ? (
          <EmptyState icon="warning" text={t('announcements.loadError')} data-testid="announcements-error" />
        ) : !records.length ? (
          <EmptyState icon="announcement" text={t('announcements.empty')} data-testid="announcements-empty" />
        ) : (
          <PopoverList data-testid="announcements-list">
            {records.map((r) => {
              const prio = priorityOf(r.priority);
              return (
                <Item key={r.id} $tone={prio.tone} data-testid={`announcement-${r.id}`}>
                  <Meta>
                    <Chip $tone={prio.tone}>{t(`announcements.priority.${prio.key}`)}</Chip>
                    <time dateTime={r.createdAt}>{formatDateTime(r.createdAt)}</time>
                    {fresh.has(r.id) ? <NewMark>{t('announcements.new')}</NewMark> : null}
                  </Meta>
                  <h3>{r.title}</h3>
                  <p>{r.text}</p>
                  {r.mediaPath ? <img src={r.mediaPath} alt={r.mediaName ?? r.title} loading="lazy" /> : null}
                </Item>
              );
            })}
          </PopoverList>
        )}
        {query.hasNextPage ? (
          <Footer>
            <Button variant="text" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
              {t('announcements.loadMore')}
            </Button>
          </Footer>
        ) : null}
      </Popover>
    </>
  );
}
