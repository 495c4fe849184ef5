import { useMemo, useState } from 'react';
import styled from 'styled-components';
import { useTranslation } from 'react-i18next';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { isAdmin, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Badge, EmptyState, Title } from '@atendo/web-ui';
import { ColorChip, navigateTo } from '@atendo/web-kit';
import { FilterBar, Failed, Frame, PageLoading, ToggleChip, useCoalesced } from '../../lib/parts';
import { fetchQueues, fetchTicketsPage, type BoardTicket, type QueueRef, type TicketEvent } from '../../lib/api';

/** The "no queue" pseudo-queue of the panel's filter (spec 2-tickets.md §2: id 0). */
export const NO_QUEUE = 0;
/** The panel reads at most this many pages of 40 tickets (1,600 active tickets). */
export const MAX_PAGES = 40;
/** Statuses the panel shows: open tickets on their user's card, pending ones on "Pendentes". */
const STATUSES = ['open', 'pending'];

export const momentsKeys = { tickets: (queueIds: number[]) => ['kanban', 'moments', queueIds] as const };

/**
 * The active tickets (open and pending) the caller sees in `queueIds` (0 = no queue), every page of
 * `GET /tickets?statusFilter=["open","pending"]` (the list without a tab: every user's tickets, as far as
 * the caller may see them), newest activity first.
 */
export async function fetchActiveTickets(queueIds: number[], signal?: AbortSignal): Promise<BoardTicket[]> {
  const out: BoardTicket[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const r = await fetchTicketsPage(STATUSES, queueIds, page, signal);
    out.push(...r.tickets);
    if (!r.hasMore) break;
  }
  return out;
}

/** A ticket belongs to the panel: open or pending, in one of the selected queues (no queue = 0). */
export function onPanel(t: Pick<BoardTicket, 'status' | 'queueId'>, queueIds: number[]): boolean {
  return STATUSES.includes(t.status) && queueIds.includes(t.queueId ?? NO_QUEUE);
}

/** `list` after a `company-{id}-ticket` event: the ticket replaced, added first, or removed. */
export function applyTicketEvent(list: BoardTicket[], event: TicketEvent, queueIds: number[]): BoardTicket[] {
  if (event.action === 'delete') return list.filter((t) => t.id !== Number(event.ticketId));
  if (event.action !== 'update' || !event.ticket || typeof event.ticket.id !== 'number') return list;
  const rest = list.filter((t) => t.id !== event.ticket.id);
  return onPanel(event.ticket, queueIds) ? [event.ticket, ...rest] : rest;
}

/** One card of the panel: a user's open tickets, or the pending ones. */
interface PanelCard {
  key: string;
  title: string;
  pending: boolean;
  tickets: BoardTicket[];
}

/** The cards: one per user with open tickets (by name), then "Pendentes" (always shown). */
export function panelCards(tickets: BoardTicket[], queueIds: number[], pendingTitle: string, unknownUser: string): PanelCard[] {
  const byUser = new Map<number, PanelCard>();
  const pending: BoardTicket[] = [];
  for (const t of tickets) {
    if (!onPanel(t, queueIds)) continue;
    if (t.status === 'pending') {
      pending.push(t);
      continue;
    }
    const id = t.userId ?? 0;
    const card = byUser.get(id) ?? { key: `user-${id}`, title: t.user?.name ?? unknownUser, pending: false, tickets: [] };
    card.tickets.push(t);
    byUser.set(id, card);
  }
  const users = [...byUser.values()].sort((a, b) => a.title.localeCompare(b.title));
  return [...users, { key: 'pending', title: pendingTitle, pending: true, tickets: pending }];
}

/**
 * The real-time attendance panel (/moments; spec 2-tickets.md §2 "Real-time attendance panel", §6): one
 * card per user with open tickets (the tickets with contact, queue, waiting time and last message) and a
 * "Pendentes" card with the pending tickets, filtered by the viewer's queues plus the "no queue"
 * pseudo-queue (id 0), each of which can be switched off (admins may also pick any queue of the company).
 * Read from `GET /tickets` (open and pending, every page); live on `company-{id}-ticket` (the event's
 * ticket placed at once, the list reloaded shortly after).
 */
export function MomentsPage() {
  const { t } = useTranslation('kanban');
  const me = useSessionUser();
  const admin = isAdmin(me);
  const client = useQueryClient();
  const own = useMemo(() => (me?.queues ?? []).map((q) => q.id), [me]);
  const queuesQuery = useQuery({ queryKey: ['kanban', 'queues'], queryFn: ({ signal }) => fetchQueues(signal), enabled: admin });
  const options: QueueRef[] = useMemo(
    () => [...(admin ? (queuesQuery.data ?? me?.queues ?? []) : (me?.queues ?? [])), { id: NO_QUEUE, name: t('common.noQueue'), color: '#7c7c7c' }],
    [admin, queuesQuery.data, me, t],
  );
  // The viewer's queues and the "no queue" pseudo-queue; an admin without queues starts with every queue.
  const [picked, setPicked] = useState<number[] | null>(null);
  const selected = useMemo(() => [...(picked ?? (admin && own.length === 0 ? options.map((o) => o.id) : [...own, NO_QUEUE]))].sort((a, b) => a - b), [picked, admin, own, options]);
  const key = momentsKeys.tickets(selected);
  // An admin without queues waits for the company's queues (their selection) before the first load.
  const waiting = admin && own.length === 0 && picked === null && queuesQuery.isPending;
  const query = useQuery({ queryKey: key, queryFn: ({ signal }) => fetchActiveTickets(selected, signal), enabled: !waiting });
  const reload = useCoalesced(() => void client.invalidateQueries({ queryKey: ['kanban', 'moments'] }), 1000);
  useSocketEvent<TicketEvent>(me ? `company-${me.companyId}-ticket` : null, (event) => {
    if (!event || typeof event !== 'object') return;
    client.setQueryData<BoardTicket[]>(key, (list) => (list ? applyTicketEvent(list, event, selected) : list));
    reload();
  });
  const cards = useMemo(() => panelCards(query.data ?? [], selected, t('moments.pending'), t('moments.unknownUser')), [query.data, selected, t]);
  const openCount = cards.filter((c) => !c.pending).reduce((n, c) => n + c.tickets.length, 0);
  const pendingCount = cards.find((c) => c.pending)?.tickets.length ?? 0;
  const toggle = (id: number) => setPicked(selected.includes(id) ? selected.filter((x) => x !== id) : [...selected, id]);

  return (
    <Frame data-testid="moments-page">
      <Header>
        <Title>{t('moments.title')}</Title>
        <span data-testid="moments-summary">{t('moments.summary', { open: openCount, pending: pendingCount })}</span>
      </Header>
      <FilterBar role="group" aria-label={t('moments.queues')} data-testid="moments-queues">
        {options.map((q) => (
          <ToggleChip key={q.id} $color={q.color || '#7c7c7c'} $on={selected.includes(q.id)} aria-pressed={selected.includes(q.id)} onClick={() => toggle(q.id)} data-testid={`moments-queue-${q.id}`}>
            {q.name}
          </ToggleChip>
        ))}
      </FilterBar>
      {query.isPending ? (
        <PageLoading />
      ) : query.isError ? (
        <Failed error={query.error} onRetry={() => void query.refetch()} testId="moments-failed" />
      ) : (
        <Grid data-testid="moments-cards">
          {cards.length === 1 && cards[0].tickets.length === 0 ? <EmptyState icon="inbox" text={t('moments.empty')} data-testid="moments-empty" /> : null}
          {cards.map((card) => (
            <UserCard key={card.key} card={card} />
          ))}
        </Grid>
      )}
    </Frame>
  );
}

const Header = styled.header`
  display: flex;
  flex-wrap: wrap;
  align-items: baseline;
  gap: ${(p) => p.theme.space(2)};
  h1 { margin: 0; }
  span { color: ${(p) => p.theme.colors.textMuted}; }
`;

const Grid = styled.div`
  flex: 1;
  min-height: 0;
  overflow-y: auto;
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(280px, 1fr));
  align-content: start;
  gap: ${(p) => p.theme.space(2)};
`;

const CardBox = styled.section<{ $pending: boolean }>`
  display: flex;
  flex-direction: column;
  max-height: 420px;
  border-radius: ${(p) => p.theme.radius.lg};
  background: ${(p) => p.theme.colors.surface};
  border: 1px solid ${(p) => p.theme.colors.border};
  border-top: 4px solid ${(p) => (p.$pending ? p.theme.colors.warning : p.theme.colors.primary)};
  header { display: flex; align-items: center; gap: 8px; padding: 10px 12px; border-bottom: 1px solid ${(p) => p.theme.colors.border}; }
  h2 { margin: 0; font-size: ${(p) => p.theme.font.size.md}; flex: 1; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  ul { list-style: none; margin: 0; padding: 0; overflow-y: auto; }
  li + li { border-top: 1px solid ${(p) => p.theme.colors.border}; }
  button.row { all: unset; box-sizing: border-box; display: flex; flex-direction: column; gap: 2px; width: 100%; padding: 8px 12px; cursor: pointer; }
  button.row:hover { background: ${(p) => p.theme.colors.surfaceAlt}; }
  button.row:focus-visible { outline: 2px solid ${(p) => p.theme.colors.focus}; outline-offset: -2px; }
  .line { display: flex; align-items: center; gap: 8px; }
  .name { font-weight: ${(p) => p.theme.font.weight.medium}; flex: 1; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  .muted { color: ${(p) => p.theme.colors.textMuted}; font-size: ${(p) => p.theme.font.size.xs}; white-space: nowrap; }
  .last { color: ${(p) => p.theme.colors.textMuted}; font-size: ${(p) => p.theme.font.size.sm}; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  .none { padding: 12px; color: ${(p) => p.theme.colors.textMuted}; font-size: ${(p) => p.theme.font.size.sm}; }
`;

/** Minutes since `iso` ("há 5 min"), for how long a ticket has been where it is. */
function minutesSince(iso: string): number {
  const ms = Date.now() - new Date(iso).getTime();
  return Number.isFinite(ms) ? Math.max(0, Math.floor(ms / 60000)) : 0;
}

function UserCard({ card }: { card: PanelCard }) {
  const { t } = useTranslation('kanban');
  return (
    <CardBox $pending={card.pending} aria-label={card.title} data-testid={`moments-card-${card.key}`}>
      <header>
        <h2>{card.title}</h2>
        <Badge $tone={card.pending ? 'warning' : 'primary'} aria-label={t('moments.count', { count: card.tickets.length })} data-testid={`moments-card-${card.key}-count`}>
          {card.tickets.length}
        </Badge>
      </header>
      {card.tickets.length === 0 ? (
        <p className="none">{t('moments.none')}</p>
      ) : (
        <ul>
          {card.tickets.map((ticket) => (
            <li key={ticket.id}>
              <button className="row" type="button" onClick={() => navigateTo(`/tickets/${ticket.uuid}`)} data-testid={`moments-ticket-${ticket.id}`} aria-label={t('moments.openTicket', { id: ticket.id, name: ticket.contact?.name ?? '' })}>
                <span className="line">
                  <span className="name">{ticket.contact?.name ?? ''}</span>
                  {ticket.queue ? <ColorChip $color={ticket.queue.color}>{ticket.queue.name}</ColorChip> : <span className="muted">{t('common.noQueue')}</span>}
                </span>
                <span className="line">
                  <span className="last">{ticket.lastMessage || t('moments.noMessage')}</span>
                  <span className="muted">{t('moments.since', { count: minutesSince(ticket.updatedAt) })}</span>
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </CardBox>
  );
}
