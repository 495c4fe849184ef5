import { useCallback, useMemo, useState, type KeyboardEvent } from 'react';
import styled from 'styled-components';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import { keepPreviousData, useInfiniteQuery, useQuery, useQueryClient, type InfiniteData, type QueryClient } from '@tanstack/react-query';
import {
  DndContext,
  DragOverlay,
  KeyboardSensor,
  PointerSensor,
  useDraggable,
  useDroppable,
  useSensor,
  useSensors,
  type Announcements,
  type DragEndEvent,
  type DragStartEvent,
} from '@dnd-kit/core';
import { isAdmin, toastError, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Badge, Button, EmptyState, SelectField, Spinner, Title } from '@atendo/web-ui';
import { navigateTo, SearchBox, SlaBadge, useDebounced, useNow, useSlaTickets, type SlaAlert, type SlaBadgeTexts, type SlaTicket } from '@atendo/web-kit';
import { FilterBar, Failed, Frame, PageLoading, ToggleChip, useCoalesced } from '../../lib/parts';
import {
  addTicketTag,
  DEFAULT_LANE,
  fetchLane,
  fetchLaneTags,
  fetchQueues,
  fetchUsers,
  removeTicketTag,
  type BoardFilters,
  type BoardTicket,
  type LaneTag,
  type QueueRef,
  type TicketPage,
} from '../../lib/api';

/** Query keys of the board (all under `['kanban', 'board']`). */
export const boardKeys = {
  all: ['kanban', 'board'] as const,
  tags: ['kanban', 'board', 'tags'] as const,
  lanes: ['kanban', 'board', 'lane'] as const,
  lane: (lane: number) => ['kanban', 'board', 'lane', lane] as const,
  laneWith: (lane: number, f: BoardFilters) => ['kanban', 'board', 'lane', lane, f] as const,
};

type LaneData = InfiniteData<TicketPage, number>;

/** A lane of the board: the default one (id 0, tickets with no kanban tag) or a kanban tag's. */
export interface Lane {
  id: number;
  name: string;
  color: string | null;
}

/** `data` without ticket `id` (the lane's count one lower when it was there). */
function withoutTicket(data: LaneData | undefined, id: number): LaneData | undefined {
  if (!data) return data;
  let found = false;
  const pages = data.pages.map((p) => {
    const tickets = p.tickets.filter((t) => t.id !== id);
    if (tickets.length !== p.tickets.length) found = true;
    return { ...p, tickets };
  });
  if (found && pages[0]) pages[0] = { ...pages[0], count: Math.max(0, pages[0].count - 1) };
  return { ...data, pages };
}

/** `data` with `ticket` first (the lane's count one higher unless it was there). */
function withTicket(data: LaneData | undefined, ticket: BoardTicket): LaneData | undefined {
  if (!data || !data.pages[0]) return data;
  const present = data.pages.some((p) => p.tickets.some((t) => t.id === ticket.id));
  if (present) return data;
  const [first, ...rest] = data.pages;
  return { ...data, pages: [{ ...first, tickets: [ticket, ...first.tickets], count: first.count + 1 }, ...rest] };
}

/**
 * Moves `ticket` from lane `from` to lane `to` in the cached lanes at once (the requests follow): out of
 * `from`, first in `to`, its tags changed the same way.
 */
export function moveInCache(client: QueryClient, ticket: BoardTicket, from: number, to: Lane): void {
  const tags = ticket.tags.filter((t) => t.id !== from);
  if (to.id !== DEFAULT_LANE && !tags.some((t) => t.id === to.id)) tags.push({ id: to.id, name: to.name, color: to.color ?? '' });
  const moved = { ...ticket, tags };
  client.setQueriesData<LaneData>({ queryKey: boardKeys.lane(from) }, (d) => withoutTicket(d, ticket.id));
  client.setQueriesData<LaneData>({ queryKey: boardKeys.lane(to.id) }, (d) => withTicket(d, moved));
}

/**
 * Moves `ticket` from lane `from` to lane `to` (spec 2-tickets.md §4 "Kanban drag"): the cached lanes change
 * at once, then the tag of the lane it left is unlinked (`DELETE /ticket-tags/:ticketId/:tagId`, toast
 * `texts.removed`) and the target lane's tag linked (`PUT /ticket-tags/:ticketId/:tagId`, toast
 * `texts.added`); the default lane has no tag, so moving from or to it makes one call. A failure shows
 * the error's translated text; the lanes are reloaded either way. Resolves true when every call succeeded.
 */
export async function moveTicket(client: QueryClient, ticket: BoardTicket, from: number, to: Lane, texts: { removed: string; added: string }): Promise<boolean> {
  await client.cancelQueries({ queryKey: boardKeys.lanes });
  moveInCache(client, ticket, from, to);
  try {
    if (from !== DEFAULT_LANE) {
      await removeTicketTag(ticket.id, from);
      toast.success(texts.removed);
    }
    if (to.id !== DEFAULT_LANE) {
      await addTicketTag(ticket.id, to.id);
      toast.success(texts.added);
    }
    return true;
  } catch (err) {
    toastError(err);
    return false;
  } finally {
    void client.invalidateQueries({ queryKey: boardKeys.lanes });
  }
}

/**
 * The kanban board (/kanban; spec 2-tickets.md §2 "Kanban", §4 "Kanban drag", §6): the default lane
 * (tickets with no kanban tag) and one lane per kanban tag in its colour, each loaded, paged (40) and
 * counted on its own (`GET /ticket/kanban?lane=`); cards with the ticket number, the contact's name and
 * number, the last message and a button opening /tickets/{uuid}. Cards are dragged between lanes with the
 * mouse, touch or keyboard (@dnd-kit: Space/Enter picks up, arrows move, Space/Enter drops, Escape
 * cancels; moves are announced to screen readers): a move unlinks the ticket's tag of the lane it left
 * (`DELETE /ticket-tags/:ticketId/:tagId`, toast "Ticket Tag Removido!") and links the target lane's tag
 * (`PUT /ticket-tags/:ticketId/:tagId`, toast "Ticket Tag Adicionado com Sucesso!"); the default lane has
 * no tag. Filters: queues (the viewer's own selected at first, as the spec scopes the board), assigned
 * user (admins), search. Live: `company-{id}-ticket` and `company-{id}-tag` events reload the lanes.
 */
export function KanbanBoard() {
  const { t } = useTranslation('kanban');
  const me = useSessionUser();
  const admin = isAdmin(me);
  const client = useQueryClient();
  const [search, setSearch] = useState('');
  const term = useDebounced(search.trim().toLowerCase());
  const [queueIds, setQueueIds] = useState<number[]>(() => (me?.queues ?? []).map((q) => q.id));
  const [userId, setUserId] = useState<number | null>(null);
  const filters = useMemo<BoardFilters>(() => ({ queueIds: [...queueIds].sort((a, b) => a - b), userId, term }), [queueIds, userId, term]);

  const tagsQuery = useQuery({ queryKey: boardKeys.tags, queryFn: ({ signal }) => fetchLaneTags(signal) });
  const queuesQuery = useQuery({ queryKey: ['kanban', 'queues'], queryFn: ({ signal }) => fetchQueues(signal), enabled: admin });
  const usersQuery = useQuery({ queryKey: ['kanban', 'users'], queryFn: ({ signal }) => fetchUsers(signal), enabled: admin });
  const queueOptions: QueueRef[] = admin ? (queuesQuery.data ?? []) : (me?.queues ?? []);

  const lanes = useMemo<Lane[]>(
    () => [{ id: DEFAULT_LANE, name: t('board.defaultLane'), color: null }, ...(tagsQuery.data ?? []).map((tag: LaneTag) => ({ id: tag.id, name: tag.name, color: tag.color }))],
    [tagsQuery.data, t],
  );

  const refreshLanes = useCoalesced(() => void client.invalidateQueries({ queryKey: boardKeys.lanes }));
  const refreshAll = useCoalesced(() => void client.invalidateQueries({ queryKey: boardKeys.all }));
  useSocketEvent(me ? `company-${me.companyId}-ticket` : null, refreshLanes);
  useSocketEvent(me ? `company-${me.companyId}-tag` : null, refreshAll);

  const [dragging, setDragging] = useState<{ ticket: BoardTicket; from: number } | null>(null);
  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 6 } }), useSensor(KeyboardSensor));
  const laneName = useCallback((id: unknown) => lanes.find((l) => `lane-${l.id}` === id)?.name ?? '', [lanes]);
  const announcements = useMemo<Announcements>(
    () => ({
      onDragStart: ({ active }) => t('board.dnd.picked', { ticket: active.data.current?.ticket?.id ?? '' }),
      onDragOver: ({ active, over }) => (over ? t('board.dnd.over', { ticket: active.data.current?.ticket?.id ?? '', lane: laneName(over.id) }) : t('board.dnd.outside', { ticket: active.data.current?.ticket?.id ?? '' })),
      onDragEnd: ({ active, over }) => (over ? t('board.dnd.dropped', { ticket: active.data.current?.ticket?.id ?? '', lane: laneName(over.id) }) : t('board.dnd.outside', { ticket: active.data.current?.ticket?.id ?? '' })),
      onDragCancel: ({ active }) => t('board.dnd.cancelled', { ticket: active.data.current?.ticket?.id ?? '' }),
    }),
    [t, laneName],
  );

  const move = useCallback((ticket: BoardTicket, from: number, to: Lane) => moveTicket(client, ticket, from, to, { removed: t('board.toasts.removed'), added: t('board.toasts.added') }), [client, t]);

  const onDragStart = (e: DragStartEvent) => {
    const d = e.active.data.current as { ticket: BoardTicket; from: number } | undefined;
    if (d) setDragging(d);
  };
  const onDragEnd = (e: DragEndEvent) => {
    setDragging(null);
    const d = e.active.data.current as { ticket: BoardTicket; from: number } | undefined;
    const to = lanes.find((l) => `lane-${l.id}` === e.over?.id);
    if (!d || !to || to.id === d.from) return;
    if (to.id !== DEFAULT_LANE && d.ticket.tags.some((tag) => tag.id === to.id)) return;
    void move(d.ticket, d.from, to);
  };

  const toggleQueue = (id: number) => setQueueIds((ids) => (ids.includes(id) ? ids.filter((x) => x !== id) : [...ids, id]));

  return (
    <Frame data-testid="kanban-page">
      <Title>{t('board.title')}</Title>
      <FilterBar>
        <SearchBox value={search} onChange={setSearch} label={t('board.search')} testId="kanban-search" />
        {admin ? (
          <div style={{ minWidth: 200 }}>
            <SelectField label={t('board.user')} value={userId ?? ''} onChange={(e) => setUserId(e.target.value ? Number(e.target.value) : null)} data-testid="kanban-user">
              <option value="">{t('common.allUsers')}</option>
              {(usersQuery.data ?? []).map((u) => (
                <option key={u.id} value={u.id}>
                  {u.name}
                </option>
              ))}
            </SelectField>
          </div>
        ) : null}
        {queueOptions.length ? (
          <div role="group" aria-label={t('board.queues')} style={{ display: 'flex', flexWrap: 'wrap', gap: 6 }} data-testid="kanban-queues">
            {queueOptions.map((q) => (
              <ToggleChip key={q.id} $color={q.color || '#7c7c7c'} $on={queueIds.includes(q.id)} aria-pressed={queueIds.includes(q.id)} onClick={() => toggleQueue(q.id)} data-testid={`kanban-queue-${q.id}`}>
                {q.name}
              </ToggleChip>
            ))}
          </div>
        ) : null}
      </FilterBar>
      {tagsQuery.isPending ? (
        <PageLoading />
      ) : tagsQuery.isError ? (
        <Failed error={tagsQuery.error} onRetry={() => void tagsQuery.refetch()} testId="kanban-failed" />
      ) : (
        <DndContext sensors={sensors} onDragStart={onDragStart} onDragEnd={onDragEnd} onDragCancel={() => setDragging(null)} accessibility={{ announcements, screenReaderInstructions: { draggable: t('board.dnd.instructions') } }}>
          <Board data-testid="kanban-board">
            {lanes.map((lane) => (
              <LaneColumn key={lane.id} lane={lane} filters={filters} />
            ))}
          </Board>
          <DragOverlay dropAnimation={null}>{dragging ? <CardBody ticket={dragging.ticket} overlay /> : null}</DragOverlay>
        </DndContext>
      )}
    </Frame>
  );
}

const Board = styled.div`
  flex: 1;
  min-height: 0;
  display: flex;
  gap: ${(p) => p.theme.space(2)};
  overflow-x: auto;
  padding-bottom: ${(p) => p.theme.space(1)};
`;

// Every lane is 300 px wide whatever its cards hold: a flex item's default minimum (its content's width)
// let the default lane grow to its longest last message and push the tag lanes off-screen.
const Column = styled.section<{ $over: boolean }>`
  flex: 0 0 300px;
  width: 300px;
  min-width: 0;
  max-width: 300px;
  display: flex;
  flex-direction: column;
  min-height: 0;
  border-radius: ${(p) => p.theme.radius.lg};
  background: ${(p) => p.theme.colors.surfaceAlt};
  outline: ${(p) => (p.$over ? `2px dashed ${p.theme.colors.primary}` : 'none')};
`;

const ColumnHead = styled.header<{ $color: string | null }>`
  display: flex;
  align-items: center;
  gap: ${(p) => p.theme.space(1)};
  padding: 10px 12px;
  border-radius: ${(p) => `${p.theme.radius.lg} ${p.theme.radius.lg} 0 0`};
  background: ${(p) => p.$color ?? p.theme.colors.surface};
  color: ${(p) => (p.$color ? '#fff' : p.theme.colors.text)};
  text-shadow: ${(p) => (p.$color ? '0 0 2px rgba(0, 0, 0, 0.45)' : 'none')};
  h2 { margin: 0; font-size: ${(p) => p.theme.font.size.md}; flex: 1; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
`;

const Cards = styled.div`
  flex: 1;
  min-height: 80px;
  overflow-y: auto;
  display: flex;
  flex-direction: column;
  gap: ${(p) => p.theme.space(1)};
  padding: ${(p) => p.theme.space(1)};
`;

/** One lane: its header (name, colour, count), its cards (paged), its loading / empty / failed states. */
function LaneColumn({ lane, filters }: { lane: Lane; filters: BoardFilters }) {
  const { t } = useTranslation('kanban');
  const { setNodeRef, isOver } = useDroppable({ id: `lane-${lane.id}`, data: { lane } });
  const q = useInfiniteQuery({
    queryKey: boardKeys.laneWith(lane.id, filters),
    queryFn: ({ pageParam, signal }) => fetchLane(lane.id, filters, pageParam, signal),
    initialPageParam: 1,
    getNextPageParam: (last: TicketPage, all: TicketPage[]) => (last.hasMore ? all.length + 1 : undefined),
    // a filter change keeps the lane's cards until the new answer arrives (no flash of the loading state)
    placeholderData: keepPreviousData,
  });
  const tickets = useMemo(() => {
    const seen = new Set<number>();
    return (q.data?.pages ?? []).flatMap((p) => p.tickets).filter((x) => (seen.has(x.id) ? false : (seen.add(x.id), true)));
  }, [q.data]);
  const count = q.data?.pages[0]?.count;
  const slaIds = useMemo(() => tickets.filter((x) => x.status === 'pending' || x.status === 'open').map((x) => x.id), [tickets]);
  const sla = useSlaTickets(slaIds);
  const now = useNow();
  return (
    <Column ref={setNodeRef} $over={isOver} aria-label={lane.name} data-testid={`lane-${lane.id}`} data-lane-name={lane.name}>
      <ColumnHead $color={lane.color}>
        <h2>{lane.name}</h2>
        {typeof count === 'number' ? (
          <Badge aria-label={t('board.count', { count })} data-testid={`lane-${lane.id}-count`}>
            {count}
          </Badge>
        ) : null}
      </ColumnHead>
      <Cards>
        {q.isPending ? (
          <PageLoading />
        ) : q.isError && !tickets.length ? (
          <Failed error={q.error} onRetry={() => void q.refetch()} testId={`lane-${lane.id}-failed`} />
        ) : tickets.length === 0 ? (
          <EmptyState icon="kanban" text={t('board.empty')} data-testid={`lane-${lane.id}-empty`} />
        ) : (
          tickets.map((ticket) => <DraggableCard key={ticket.id} ticket={ticket} lane={lane.id} sla={sla.get(ticket.id)} now={now} />)
        )}
        {q.hasNextPage || q.isFetchingNextPage ? (
          q.isFetchingNextPage ? (
            <Spinner size={24} label={t('common.loading')} />
          ) : (
            <Button variant="secondary" onClick={() => void q.fetchNextPage()} data-testid={`lane-${lane.id}-more`}>
              {t('common.loadMore')}
            </Button>
          )
        ) : null}
      </Cards>
    </Column>
  );
}

const CardBox = styled.article<{ $dragging?: boolean; $overlay?: boolean }>`
  display: flex;
  min-width: 0;
  overflow-wrap: anywhere;
  flex-direction: column;
  gap: 4px;
  padding: 10px 12px;
  border-radius: ${(p) => p.theme.radius.md};
  background: ${(p) => p.theme.colors.surface};
  border: 1px solid ${(p) => p.theme.colors.border};
  box-shadow: ${(p) => (p.$overlay ? p.theme.shadow.lg : p.theme.shadow.sm)};
  opacity: ${(p) => (p.$dragging ? 0.4 : 1)};
  cursor: grab;
  touch-action: none;
  &:focus-visible { outline: 2px solid ${(p) => p.theme.colors.focus}; outline-offset: 2px; }
  .top { display: flex; align-items: center; gap: 8px; }
  .number { font-weight: ${(p) => p.theme.font.weight.bold}; color: ${(p) => p.theme.colors.textMuted}; font-size: ${(p) => p.theme.font.size.sm}; }
  .name { font-weight: ${(p) => p.theme.font.weight.medium}; flex: 1; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  .phone { color: ${(p) => p.theme.colors.textMuted}; font-size: ${(p) => p.theme.font.size.sm}; }
  .last { color: ${(p) => p.theme.colors.text}; font-size: ${(p) => p.theme.font.size.sm}; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  .foot { display: flex; justify-content: flex-end; }
`;

/** A card that can be dragged to another lane. */
function DraggableCard({ ticket, lane, sla, now }: { ticket: BoardTicket; lane: number; sla?: SlaTicket; now: Date }) {
  const { attributes, listeners, setNodeRef, isDragging } = useDraggable({ id: `card-${lane}-${ticket.id}`, data: { ticket, from: lane } });
  return <CardBody ref={setNodeRef} ticket={ticket} dragging={isDragging} sla={sla} now={now} {...attributes} {...listeners} />;
}

type CardBodyProps = { ticket: BoardTicket; dragging?: boolean; overlay?: boolean; sla?: SlaTicket; now?: Date; ref?: (el: HTMLElement | null) => void } & Record<string, unknown>;

/** The SLA badge's texts (issue 34 item 5): "SLA 12 min" while near, "SLA estourado" once breached; the due time in the tooltip. */
function slaTexts(t: (key: string, o?: Record<string, unknown>) => string, language: string): SlaBadgeTexts {
  const when = new Intl.DateTimeFormat(language, { dateStyle: 'short', timeStyle: 'short' });
  return {
    label: (a: SlaAlert) => (a.level === 'breached' ? t('board.sla.breached') : t('board.sla.near', { minutes: Math.max(0, a.minutes) })),
    title: (a: SlaAlert) => t(a.target === 'firstResponse' ? 'board.sla.firstResponse' : 'board.sla.resolution', { time: when.format(new Date(a.dueAt)) }),
  };
}

/**
 * A card's content: number, contact name and SLA badge (amber while a target of the ticket nears its due time,
 * red once past it; plugins/sla), number, last message, the open button.
 */
function CardBody({ ticket, dragging, overlay, sla, now, ref, ...rest }: CardBodyProps) {
  const { t, i18n } = useTranslation('kanban');
  const stop = (e: KeyboardEvent) => e.stopPropagation();
  return (
    <CardBox ref={ref} $dragging={dragging} $overlay={overlay} data-testid={overlay ? undefined : `card-${ticket.id}`} aria-roledescription={t('board.dnd.card')} aria-label={t('board.cardLabel', { id: ticket.id, name: ticket.contact?.name ?? '' })} {...rest}>
      <div className="top">
        <span className="number">#{ticket.id}</span>
        <span className="name">{ticket.contact?.name ?? ''}</span>
        {sla && !overlay ? <SlaBadge sla={sla} now={now ?? new Date()} texts={slaTexts(t, i18n.language)} testId={`card-${ticket.id}-sla`} /> : null}
      </div>
      <span className="phone">{ticket.contact?.number ?? ''}</span>
      <span className="last" title={ticket.lastMessage ?? ''}>
        {ticket.lastMessage || t('board.noMessage')}
      </span>
      <div className="foot">
        <Button variant="text" onClick={() => navigateTo(`/tickets/${ticket.uuid}`)} onKeyDown={stop} onPointerDown={(e) => e.stopPropagation()} data-testid={overlay ? undefined : `card-${ticket.id}-open`}>
          {t('board.open')}
        </Button>
      </div>
    </CardBox>
  );
}
