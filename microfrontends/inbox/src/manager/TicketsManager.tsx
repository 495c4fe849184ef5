import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '../lib/router';
import styled from 'styled-components';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import { toastError } from '@atendo/web-api';
import { Icon, IconButton, MenuItem, Popover } from '@atendo/web-ui';
import { closeAllTickets, EMPTY_SEARCH, fetchCounts, hasFilters, hasSearchInput, inboxKeys, NO_FILTERS, useConnections, useQueues, useTagsList, useUsersList, type ListFilters, type ListSpec, type SearchFilters } from '../lib/api';
import { useSessionUser } from '@atendo/web-api';
import { PeriodFilter } from './PeriodFilter';
import { useDebounced } from '../lib/hooks';
import { useErrorToast } from '../lib/errors';
import { canShowAll, type Viewer } from '../lib/viewer';
import { ConfirmDialog } from '../modals/Dialogs';
import { NewTicketModal } from '../modals/NewTicketModal';
import type { TabCounts, Ticket, TicketStatus } from '../types';
import { applyLiveToCache } from './cache';
import { FilterMenu } from './FilterMenu';
import { TicketsList } from './TicketsList';
import { useTicketActions } from './useTicketActions';

/** The manager's main tabs and the open tab's sub-tabs (spec 2-tickets.md §2 "Ticket manager"). */
export type MainTab = 'open' | 'closed' | 'search';
export type OpenSubTab = 'open' | 'pending' | 'group';

/** Statuses offered by the search tab's status filter. */
export const SEARCH_STATUSES: TicketStatus[] = ['open', 'closed', 'pending', 'group'];

/** localStorage key of the show-all toggle. */
export const SHOW_ALL_KEY = 'inbox.showAll';
/** localStorage key of the departments filter of user `userId` (remembered per user). */
export const queuesFilterKey = (userId: number) => `inbox.selectedQueues.${userId}`;

/** The remembered departments filter of `userId` (ids; 0 = no queue). */
export function readSelectedQueues(userId: number): number[] {
  try {
    const v: unknown = JSON.parse(window.localStorage.getItem(queuesFilterKey(userId)) ?? '[]');
    return Array.isArray(v) ? v.filter((x): x is number => Number.isInteger(x) && x >= 0) : [];
  } catch {
    return [];
  }
}

const Pane = styled.section`
  position: relative;
  display: flex;
  flex-direction: column;
  height: 100%;
  min-height: 0;
  background: ${(p) => p.theme.colors.surface};
`;

const TabBar = styled.div`
  display: flex;
  align-items: stretch;
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
`;

const Tab = styled.button<{ $active: boolean }>`
  flex: 1;
  display: inline-flex;
  align-items: center;
  justify-content: center;
  gap: 6px;
  min-height: 44px;
  padding: 0 8px;
  border: none;
  border-bottom: 3px solid ${(p) => (p.$active ? p.theme.colors.primary : 'transparent')};
  background: transparent;
  color: ${(p) => (p.$active ? p.theme.colors.primary : p.theme.colors.textMuted)};
  font-weight: ${(p) => p.theme.font.weight.medium};
  font-size: ${(p) => p.theme.font.size.sm};
  text-transform: uppercase;
  cursor: pointer;
`;

const CountBadge = styled.span<{ $tone: 'primary' | 'warning' | 'info' }>`
  min-width: 20px;
  height: 20px;
  padding: 0 6px;
  border-radius: ${(p) => p.theme.radius.round};
  background: ${(p) => p.theme.colors[p.$tone]};
  color: #fff;
  font-size: ${(p) => p.theme.font.size.xs};
  line-height: 20px;
  text-align: center;
`;

const Toolbar = styled.div`
  display: flex;
  align-items: center;
  gap: ${(p) => p.theme.space(1)};
  flex-wrap: wrap;
  padding: 8px ${(p) => p.theme.space(1.5)};
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
`;

const Toggle = styled.label`
  display: inline-flex;
  align-items: center;
  gap: 6px;
  margin-left: auto;
  font-size: ${(p) => p.theme.font.size.sm};
  color: ${(p) => p.theme.colors.textMuted};
  cursor: pointer;
  input { accent-color: ${(p) => p.theme.colors.primary}; width: 16px; height: 16px; }
`;

const UnreadToggle = styled.label`
  display: inline-flex;
  align-items: center;
  gap: 6px;
  font-size: ${(p) => p.theme.font.size.sm};
  color: ${(p) => p.theme.colors.textMuted};
  cursor: pointer;
  input { accent-color: ${(p) => p.theme.colors.primary}; width: 16px; height: 16px; }
`;

const SearchBox = styled.input`
  flex: 1 1 100%;
  min-width: 0;
  height: 36px;
  padding: 0 12px;
  border: 1px solid ${(p) => p.theme.colors.border};
  border-radius: ${(p) => p.theme.radius.md};
  background: ${(p) => p.theme.colors.surface};
  &:focus { outline: none; border-color: ${(p) => p.theme.colors.primary}; }
`;

const Hint = styled.div`
  padding: ${(p) => p.theme.space(3)};
  text-align: center;
  color: ${(p) => p.theme.colors.textMuted};
`;

const Fab = styled.div`
  position: absolute;
  right: ${(p) => p.theme.space(2)};
  bottom: ${(p) => p.theme.space(2)};
  z-index: 2;
  button[data-fab] {
    width: 52px;
    height: 52px;
    border-radius: 50%;
    background: ${(p) => p.theme.colors.primary};
    color: ${(p) => p.theme.colors.onPrimary};
    box-shadow: ${(p) => p.theme.shadow.md};
  }
  button[data-fab]:hover:not(:disabled) { background: ${(p) => p.theme.colors.primaryHover}; }
`;

const Plus = () => (
  <svg width="24" height="24" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
    <path d="M12 5v14M5 12h14" stroke="currentColor" strokeWidth="2.4" strokeLinecap="round" />
  </svg>
);

function readShowAll(): boolean {
  try {
    return window.localStorage.getItem(SHOW_ALL_KEY) === 'true';
  } catch {
    return false;
  }
}

/**
 * The ticket manager (spec 2-tickets.md §2 "Ticket manager", §6): tabs open (sub-tabs assigned, pending
 * and group with count badges), closed and search (a 500 ms debounced box and filters by tags,
 * connections, status and, for admins, users); on every tab the departments filter (remembered per user),
 * unread only and a period (sent as `queueIds`, `withUnreadMessages`, `dateStart`/`dateEnd`); the show-all toggle for admins and allTicket users; a
 * speed-dial with "new ticket" and (admins) "close all". `openUuid` is the conversation shown beside it.
 */
export function TicketsManager({ viewer, openUuid }: { viewer: Viewer; openUuid: string | null }) {
  const { t } = useTranslation('inbox');
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [tab, setTab] = useState<MainTab>('open');
  const [sub, setSub] = useState<OpenSubTab>('open');
  const mayShowAll = canShowAll(viewer);
  const [showAllPref, setShowAllPref] = useState(readShowAll);
  const showAll = mayShowAll && showAllPref;
  const [term, setTerm] = useState('');
  const debouncedTerm = useDebounced(term);
  const [filters, setFilters] = useState<Omit<SearchFilters, 'term'>>({ tags: [], whatsapps: [], statuses: [], users: [] });
  // The filters of every tab: departments (remembered per user), unread only, period.
  const [listFilters, setListFilters] = useState<ListFilters>(() => ({ ...NO_FILTERS, queueIds: readSelectedQueues(viewer.id) }));
  useEffect(() => {
    try {
      window.localStorage.setItem(queuesFilterKey(viewer.id), JSON.stringify(listFilters.queueIds));
    } catch {
      /* storage unavailable */
    }
  }, [listFilters.queueIds, viewer.id]);
  const sessionUser = useSessionUser();
  const allQueues = useQueues(viewer.admin);
  const queueOptions = useMemo(() => {
    const list = viewer.admin && allQueues.data?.length ? allQueues.data : (sessionUser?.queues ?? []);
    return [...list.map((q) => ({ value: q.id, label: q.name, color: q.color })), { value: 0, label: t('filters.noQueue') }];
  }, [viewer.admin, allQueues.data, sessionUser?.queues, t]);
  const activeFilters = hasFilters(listFilters) ? listFilters : undefined;
  const [dialOpen, setDialOpen] = useState(false);
  const [newOpen, setNewOpen] = useState(false);
  const [confirmCloseAll, setConfirmCloseAll] = useState(false);
  const [closingAll, setClosingAll] = useState(false);
  const dialAnchor = useRef<HTMLButtonElement>(null);

  // After accepting or reopening, the tab the ticket went to is shown.
  const onAccepted = useCallback((ticket: Ticket) => {
    setTab('open');
    setSub(ticket.status === 'group' ? 'group' : 'open');
  }, []);
  const actions = useTicketActions({ viewer, openUuid, onAccepted });

  // The badges come with the lists' first pages; this query re-reads them after live changes (and serves
  // the search tab), once a list has loaded, so opening the page costs one request.
  const [countsOn, setCountsOn] = useState(false);
  const counts = useQuery({ queryKey: inboxKeys.counts(showAll, activeFilters), queryFn: ({ signal }) => fetchCounts(showAll, signal, activeFilters), staleTime: 10_000, enabled: countsOn || tab === 'search' });
  const enableCounts = useCallback(() => setCountsOn(true), []);
  useErrorToast(counts.error);
  const badge: TabCounts = counts.data ?? { open: 0, pending: 0, group: 0 };

  const searching = tab === 'search';
  const tags = useTagsList(searching);
  const connections = useConnections(searching);
  const users = useUsersList(searching && viewer.admin);
  useErrorToast(tags.error);
  useErrorToast(connections.error);
  useErrorToast(users.error);

  const search: SearchFilters = useMemo(() => ({ ...EMPTY_SEARCH, ...filters, term: debouncedTerm.trim(), users: viewer.admin ? filters.users : [] }), [filters, debouncedTerm, viewer.admin]);
  const spec: ListSpec = tab === 'open' ? { kind: sub, showAll, filters: activeFilters } : tab === 'closed' ? { kind: 'closed', showAll, filters: activeFilters } : { kind: 'search', showAll, search, filters: activeFilters };
  const searchReady = hasSearchInput(search);

  useEffect(() => {
    try {
      window.localStorage.setItem(SHOW_ALL_KEY, String(showAllPref));
    } catch {
      /* storage unavailable */
    }
  }, [showAllPref]);

  const created = (ticket: Ticket) => {
    setNewOpen(false);
    applyLiveToCache(queryClient, viewer, { type: 'upsert', ticket });
    setTab('open');
    setSub(ticket.status === 'group' ? 'group' : 'open');
    navigate(`/tickets/${ticket.uuid}`);
  };

  const closeAll = async () => {
    setClosingAll(true);
    try {
      const { closed } = await closeAllTickets();
      toast.success(t('closeAll.done', { count: closed }));
      setConfirmCloseAll(false);
      await Promise.all([queryClient.invalidateQueries({ queryKey: inboxKeys.lists }), queryClient.invalidateQueries({ queryKey: ['inbox', 'counts'] })]);
      if (openUuid) navigate('/tickets');
    } catch (err) {
      toastError(err);
    } finally {
      setClosingAll(false);
    }
  };

  const mainTabs: { id: MainTab; label: string }[] = [
    { id: 'open', label: t('tabs.open') },
    { id: 'closed', label: t('tabs.closed') },
    { id: 'search', label: t('tabs.search') },
  ];
  const subTabs: { id: OpenSubTab; label: string; count: number; tone: 'primary' | 'warning' | 'info' }[] = [
    { id: 'open', label: t('tabs.assigned'), count: badge.open, tone: 'primary' },
    { id: 'pending', label: t('tabs.pending'), count: badge.pending, tone: 'warning' },
    { id: 'group', label: t('tabs.group'), count: badge.group, tone: 'info' },
  ];

  return (
    <Pane aria-label={t('title')} data-testid="tickets-manager">
      <TabBar role="tablist" aria-label={t('title')}>
        {mainTabs.map((m) => (
          <Tab key={m.id} type="button" role="tab" aria-selected={tab === m.id} $active={tab === m.id} onClick={() => setTab(m.id)} data-testid={`tab-${m.id}`}>
            {m.label}
          </Tab>
        ))}
      </TabBar>

      {tab === 'open' ? (
        <TabBar role="tablist" aria-label={t('tabs.open')}>
          {subTabs.map((s) => (
            <Tab key={s.id} type="button" role="tab" aria-selected={sub === s.id} $active={sub === s.id} onClick={() => setSub(s.id)} data-testid={`subtab-${s.id}`}>
              {s.label}
              <CountBadge $tone={s.tone} data-testid={`count-${s.id}`} aria-label={t('tabs.count', { count: s.count })}>
                {s.count}
              </CountBadge>
            </Tab>
          ))}
        </TabBar>
      ) : null}

      <Toolbar data-testid="list-filters">
        <FilterMenu
          label={t('filters.queues')}
          emptyText={t('search.none')}
          testId="filter-queues"
          options={queueOptions}
          selected={listFilters.queueIds}
          onChange={(v) => setListFilters((f) => ({ ...f, queueIds: v }))}
        />
        <UnreadToggle>
          <input type="checkbox" role="switch" aria-checked={listFilters.unread} checked={listFilters.unread} onChange={(e) => setListFilters((f) => ({ ...f, unread: e.target.checked }))} data-testid="filter-unread" />
          {t('filters.unread')}
        </UnreadToggle>
        <PeriodFilter from={listFilters.dateStart} to={listFilters.dateEnd} onChange={(dateStart, dateEnd) => setListFilters((f) => ({ ...f, dateStart, dateEnd }))} />
      </Toolbar>

      {tab === 'search' ? (
        <Toolbar>
          <SearchBox type="search" value={term} maxLength={200} placeholder={t('search.placeholder')} aria-label={t('search.placeholder')} onChange={(e) => setTerm(e.target.value)} data-testid="search-input" autoFocus />
          <FilterMenu label={t('search.tags')} emptyText={t('search.none')} testId="filter-tags" options={(tags.data ?? []).map((x) => ({ value: x.id, label: x.name, color: x.color }))} selected={filters.tags} onChange={(v) => setFilters((f) => ({ ...f, tags: v }))} />
          <FilterMenu label={t('search.connections')} emptyText={t('search.none')} testId="filter-connections" options={(connections.data ?? []).map((x) => ({ value: x.id, label: x.name }))} selected={filters.whatsapps} onChange={(v) => setFilters((f) => ({ ...f, whatsapps: v }))} />
          <FilterMenu label={t('search.status')} emptyText={t('search.none')} testId="filter-status" options={SEARCH_STATUSES.map((s) => ({ value: s, label: t(`status.${s}`) }))} selected={filters.statuses} onChange={(v) => setFilters((f) => ({ ...f, statuses: v }))} />
          {viewer.admin ? (
            <FilterMenu label={t('search.users')} emptyText={t('search.none')} testId="filter-users" options={(users.data ?? []).map((x) => ({ value: x.id, label: x.name }))} selected={filters.users} onChange={(v) => setFilters((f) => ({ ...f, users: v }))} />
          ) : null}
          {mayShowAll ? <ShowAllToggle label={t('showAll')} checked={showAllPref} onChange={setShowAllPref} /> : null}
        </Toolbar>
      ) : mayShowAll ? (
        <Toolbar>
          <ShowAllToggle label={t('showAll')} checked={showAllPref} onChange={setShowAllPref} />
        </Toolbar>
      ) : null}

      {tab === 'search' && !searchReady ? (
        <Hint data-testid="search-hint">{t('search.hint')}</Hint>
      ) : (
        <TicketsList spec={spec} viewer={viewer} selectedUuid={openUuid} actions={actions} onLoaded={enableCounts} />
      )}

      <Fab>
        <IconButton ref={dialAnchor} label={t('speedDial.label')} data-fab="" aria-haspopup="menu" aria-expanded={dialOpen} onClick={() => setDialOpen((o) => !o)} data-testid="speed-dial">
          <Plus />
        </IconButton>
      </Fab>
      <Popover open={dialOpen} onClose={() => setDialOpen(false)} anchorRef={dialAnchor} label={t('speedDial.label')} role="menu" align="end" width={220}>
        <MenuItem
          onClick={() => {
            setDialOpen(false);
            setNewOpen(true);
          }}
          data-testid="speed-dial-new"
        >
          <Icon name="chat" size={18} />
          {t('speedDial.newTicket')}
        </MenuItem>
        {viewer.admin ? (
          <MenuItem
            onClick={() => {
              setDialOpen(false);
              setConfirmCloseAll(true);
            }}
            data-testid="speed-dial-close-all"
          >
            <Icon name="check" size={18} />
            {t('speedDial.closeAll')}
          </MenuItem>
        ) : null}
      </Popover>

      <NewTicketModal
        open={newOpen}
        viewer={viewer}
        onClose={() => setNewOpen(false)}
        onCreated={created}
        onOtherOpen={(facts) => {
          if (facts.userId === viewer.id && facts.uuid) {
            setNewOpen(false);
            navigate(`/tickets/${facts.uuid}`);
          } else {
            setNewOpen(false);
            actions.showOtherOpen({ userName: facts.user?.name ?? null, queueName: facts.queue?.name ?? null });
          }
        }}
      />
      <ConfirmDialog open={confirmCloseAll} title={t('closeAll.title')} message={t('closeAll.message')} confirmLabel={t('closeAll.confirm')} busy={closingAll} onConfirm={() => void closeAll()} onClose={() => setConfirmCloseAll(false)} />
      {actions.dialogs}
    </Pane>
  );
}

function ShowAllToggle({ label, checked, onChange }: { label: string; checked: boolean; onChange: (v: boolean) => void }) {
  return (
    <Toggle>
      <input type="checkbox" role="switch" aria-checked={checked} checked={checked} onChange={(e) => onChange(e.target.checked)} data-testid="show-all" />
      {label}
    </Toggle>
  );
}
