import { forwardRef, useCallback, useEffect, useImperativeHandle, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { EmptyState, Spinner } from '@atendo/web-ui';
import { buildRows, daySeparatorLabel, ticketBannerLabel } from './format';
import { MessageBubble, type BubbleActions } from './MessageBubble';
import type { MessagesState } from './messages-state';
import type { Message } from './types';
import './i18n';

/** Load older messages when scrolled within this many pixels of the top (spec §9). */
export const LOAD_OLDER_THRESHOLD_PX = 50;

const Scroller = styled.div`
  flex: 1;
  min-height: 0;
  overflow-y: auto;
  overflow-anchor: none;
  padding: 12px 0 16px;
  background: ${(p) => (p.theme.mode === 'dark' ? '#15171a' : '#EFEAE2')};
`;

const Separator = styled.div`
  display: flex;
  justify-content: center;
  margin: 10px 0;
  span {
    padding: 3px 12px;
    border-radius: ${(p) => p.theme.radius.md};
    background: ${(p) => p.theme.colors.surface};
    color: ${(p) => p.theme.colors.textMuted};
    font-size: ${(p) => p.theme.font.size.xs};
    font-weight: ${(p) => p.theme.font.weight.medium};
    box-shadow: ${(p) => p.theme.shadow.sm};
  }
`;

const Banner = styled.div<{ $color?: string }>`
  display: flex;
  align-items: center;
  gap: 8px;
  margin: 12px 16px;
  color: ${(p) => p.theme.colors.textMuted};
  font-size: ${(p) => p.theme.font.size.xs};
  font-weight: ${(p) => p.theme.font.weight.medium};
  &::before, &::after { content: ''; flex: 1; border-top: 1px solid ${(p) => p.$color ?? p.theme.colors.border}; }
  span { padding: 2px 10px; border-radius: ${(p) => p.theme.radius.round}; border: 1px solid ${(p) => p.$color ?? p.theme.colors.border}; background: ${(p) => p.theme.colors.surface}; }
`;

const Top = styled.div`
  display: flex;
  justify-content: center;
  min-height: 28px;
  padding: 4px;
`;

export interface MessageListHandle {
  /** Scrolls to a loaded message and highlights it; false when it is not loaded. */
  scrollToMessage(id: number): boolean;
  scrollToBottom(): void;
}

export interface MessageListProps extends BubbleActions {
  state: MessagesState;
  loadOlder: () => void;
  userId?: number;
  admin?: boolean;
  isGroup?: boolean;
  selectable?: boolean;
  selected?: ReadonlySet<number>;
  onToggleSelect?: (m: Message) => void;
}

/**
 * The messages of the conversation, oldest at the top (spec 2-tickets.md §2 "Conversation view", §9):
 * day separators ('HOJE' for today, else dd/MM/yyyy), a banner where consecutive messages belong to
 * different tickets, and infinite scroll upwards (older pages load when scrolled within 50 px of the top;
 * the visible messages keep their place). New messages scroll the list down when it was at the bottom or
 * when they are ours.
 */
export const MessageList = forwardRef<MessageListHandle, MessageListProps>(function MessageList(props, ref) {
  const { state, loadOlder, userId, admin, isGroup, selectable, selected, onToggleSelect, ...actions } = props;
  const { t } = useTranslation('inbox');
  const scroller = useRef<HTMLDivElement>(null);
  const anchor = useRef<{ height: number; top: number } | null>(null);
  const atBottom = useRef(true);
  const edges = useRef<{ first?: number; last?: number }>({});
  const [highlight, setHighlight] = useState<number | null>(null);
  const rows = useMemo(() => buildRows(state.messages), [state.messages]);

  const requestOlder = useCallback(() => {
    const el = scroller.current;
    if (!el || !state.hasMore || state.loading) return;
    anchor.current = { height: el.scrollHeight, top: el.scrollTop };
    loadOlder();
  }, [state.hasMore, state.loading, loadOlder]);

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
    if (el.scrollTop < LOAD_OLDER_THRESHOLD_PX) requestOlder();
  };

  // Keep the place after older messages were prepended; follow new messages at the bottom.
  useLayoutEffect(() => {
    const el = scroller.current;
    const list = state.messages;
    const first = list[0]?.id;
    const lastMsg = list[list.length - 1];
    const last = lastMsg?.id;
    const before = edges.current;
    edges.current = { first, last };
    if (!el) return;
    if (anchor.current && first !== before.first) {
      el.scrollTop = el.scrollHeight - anchor.current.height + anchor.current.top;
      anchor.current = null;
    } else if (last !== before.last && (before.last === undefined || atBottom.current || lastMsg?.fromMe)) {
      el.scrollTop = el.scrollHeight;
      atBottom.current = true;
    }
    // A load that ended without older messages (failure, empty page) drops the anchor.
    if (!state.loading && anchor.current && first === before.first) anchor.current = null;
  }, [state.messages, state.loading]);

  // A first page that does not fill the pane cannot be scrolled: load older pages until it does.
  useEffect(() => {
    const el = scroller.current;
    if (el && !state.loading && state.hasMore && el.scrollHeight <= el.clientHeight + LOAD_OLDER_THRESHOLD_PX && state.messages.length > 0) requestOlder();
  }, [state.loading, state.hasMore, state.messages.length, requestOlder]);

  useEffect(() => {
    if (highlight === null) return undefined;
    const timer = setTimeout(() => setHighlight(null), 1600);
    return () => clearTimeout(timer);
  }, [highlight]);

  useImperativeHandle(
    ref,
    () => ({
      scrollToMessage(id: number) {
        const el = scroller.current?.querySelector<HTMLElement>(`[data-message-id="${id}"]`);
        if (!el) return false;
        el.scrollIntoView?.({ block: 'center', behavior: 'smooth' });
        setHighlight(id);
        return true;
      },
      scrollToBottom() {
        const el = scroller.current;
        if (el) el.scrollTop = el.scrollHeight;
        atBottom.current = true;
      },
    }),
    [],
  );

  const now = new Date();
  return (
    <Scroller ref={scroller} onScroll={onScroll} data-testid="message-list" role="log" aria-live="polite" aria-busy={state.loading}>
      <Top>{state.loading ? <Spinner size={20} label={t('conversation.loadingOlder')} /> : null}</Top>
      {!state.loading && state.messages.length === 0 ? <EmptyState icon="chat" text={t('conversation.empty')} /> : null}
      {rows.map((row) => {
        if (row.kind === 'day') {
          return (
            <Separator key={row.key} data-testid="day-separator">
              <span>{daySeparatorLabel(row.iso, t('conversation.today'), now)}</span>
            </Separator>
          );
        }
        if (row.kind === 'ticket') {
          return (
            <Banner key={row.key} $color={row.message.ticket?.queue?.color} data-testid="ticket-banner">
              <span>{ticketBannerLabel(row.message, t('conversation.noDepartment'))}</span>
            </Banner>
          );
        }
        const m = row.message;
        return (
          <MessageBubble
            key={row.key}
            message={m}
            userId={userId}
            admin={admin}
            isGroup={isGroup}
            selectable={selectable}
            selected={selected?.has(m.id)}
            onToggleSelect={onToggleSelect}
            highlighted={highlight === m.id}
            {...actions}
          />
        );
      })}
    </Scroller>
  );
});
