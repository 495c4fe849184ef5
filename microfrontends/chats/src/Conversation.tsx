import { useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { toastError } from '@atendo/web-api';
import { EmptyState, IconButton, Spinner } from '@atendo/web-ui';
import { chatKeys, fetchMessages, markRead, sendMessage, type Chat, type ChatMessage } from './api';
import { messageTime } from './format';
import { useErrorToast } from './hooks';
import { ChatIcon } from './icons';
import { flattenMessages, unreadsOf } from './live';
import { storeChat, storeMessage } from './useLiveChats';

/** Older messages load when the history is scrolled within this distance of its top (spec §9). */
export const LOAD_OLDER_THRESHOLD_PX = 600;
/** Closer than this to the bottom, new messages keep the view at the bottom. */
const STICK_BOTTOM_PX = 120;

const Frame = styled.section`
  display: flex;
  flex: 1;
  min-height: 0;
  flex-direction: column;
`;

const Head = styled.header`
  display: flex;
  flex: none;
  align-items: center;
  gap: 8px;
  min-height: 60px;
  padding: 8px 16px;
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
  background: ${(p) => p.theme.colors.surface};
  h2 { margin: 0; font-size: ${(p) => p.theme.font.size.lg}; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  p { margin: 0; color: ${(p) => p.theme.colors.textMuted}; font-size: ${(p) => p.theme.font.size.sm}; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  div { min-width: 0; }
`;

const Log = styled.div`
  flex: 1;
  min-height: 0;
  overflow-y: auto;
  display: flex;
  flex-direction: column;
  gap: 8px;
  padding: 16px;
  background: ${(p) => p.theme.colors.surfaceAlt};
`;

const Bubble = styled.div<{ $own: boolean }>`
  align-self: ${(p) => (p.$own ? 'flex-end' : 'flex-start')};
  max-width: min(75%, 640px);
  padding: 8px 12px;
  border-radius: ${(p) => p.theme.radius.lg};
  ${(p) => (p.$own ? 'border-bottom-right-radius: 4px;' : 'border-bottom-left-radius: 4px;')}
  background: ${(p) => (p.$own ? p.theme.colors.primarySoft : p.theme.colors.surface)};
  color: ${(p) => p.theme.colors.text};
  box-shadow: ${(p) => p.theme.shadow.sm};
  strong { display: block; font-size: ${(p) => p.theme.font.size.xs}; color: ${(p) => p.theme.colors.primary}; margin-bottom: 2px; }
  p { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
  time { display: block; margin-top: 2px; text-align: right; font-size: ${(p) => p.theme.font.size.xs}; color: ${(p) => p.theme.colors.textMuted}; }
`;

const Older = styled.div`
  display: flex;
  justify-content: center;
  padding: 4px;
`;

const InputBar = styled.form`
  display: flex;
  flex: none;
  align-items: flex-end;
  gap: 8px;
  padding: 10px 12px;
  border-top: 1px solid ${(p) => p.theme.colors.border};
  background: ${(p) => p.theme.colors.surface};
  textarea {
    flex: 1;
    min-width: 0;
    min-height: 40px;
    max-height: 160px;
    padding: 9px 12px;
    resize: none;
    border: 1px solid ${(p) => p.theme.colors.border};
    border-radius: ${(p) => p.theme.radius.md};
    background: transparent;
    color: ${(p) => p.theme.colors.text};
    font: inherit;
    outline: none;
    &:focus { border-color: ${(p) => p.theme.colors.primary}; }
  }
  button { color: ${(p) => p.theme.colors.primary}; }
`;

/**
 * The conversation of one chat: its title and participants, the messages (sender, time, the user's own on
 * the right; older pages load when scrolled near the top) and the input (Enter sends, Shift+Enter adds a
 * line; blank text is not sent). Opening the chat, and each new message while it is open, marks it read
 * for the user (POST /chats/:id/read; a failure is silent, spec §8).
 */
export function Conversation({ chat, userId, onBack }: { chat: Chat; userId: number; onBack?: () => void }) {
  const { t } = useTranslation('chats');
  const client = useQueryClient();
  const messages = useInfiniteQuery({
    queryKey: chatKeys.messages(chat.id),
    queryFn: ({ pageParam, signal }) => fetchMessages(chat.id, pageParam, signal),
    initialPageParam: 1,
    getNextPageParam: (last, _all, lastParam) => (last.hasMore ? lastParam + 1 : undefined),
  });
  useErrorToast(messages.error);
  const list = useMemo(() => flattenMessages(messages.data), [messages.data]);

  // Read on open, then whenever the user has unread messages in the open chat.
  const unread = unreadsOf(chat, userId);
  const readFor = useRef<number | null>(null);
  useEffect(() => {
    if (readFor.current === chat.id && unread === 0) return;
    readFor.current = chat.id;
    markRead(chat.id, userId).then(
      (answer) => {
        if (answer && typeof answer.id === 'number') storeChat(client, answer, userId, false);
      },
      (err) => console.warn('[chats] mark read failed', err),
    );
  }, [chat.id, unread, userId, client]);

  // Scrolling: at the bottom on open and on new messages (when already near it, or the user's own);
  // the same place when older messages come in above.
  const log = useRef<HTMLDivElement>(null);
  const nearBottom = useRef(true);
  const anchor = useRef<number | null>(null);
  const edges = useRef<{ first?: number; last?: number }>({});
  useLayoutEffect(() => {
    const el = log.current;
    if (!el || !list.length) return;
    const first = list[0].id;
    const last = list[list.length - 1];
    const before = edges.current;
    edges.current = { first, last: last.id };
    if (before.first !== undefined && first !== before.first && anchor.current !== null) {
      el.scrollTop = el.scrollHeight - anchor.current;
      anchor.current = null;
    } else if (before.last !== last.id && (before.last === undefined || nearBottom.current || last.senderId === userId)) {
      el.scrollTop = el.scrollHeight;
    }
  }, [list, userId]);

  const onScroll = () => {
    const el = log.current;
    if (!el) return;
    nearBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_BOTTOM_PX;
    if (el.scrollTop < LOAD_OLDER_THRESHOLD_PX && messages.hasNextPage && !messages.isFetchingNextPage) {
      anchor.current = el.scrollHeight - el.scrollTop;
      void messages.fetchNextPage();
    }
  };

  const [text, setText] = useState('');
  const send = () => {
    const body = text;
    if (!body.trim()) return;
    setText('');
    nearBottom.current = true;
    sendMessage(chat.id, body).then(
      (message) => storeMessage(client, chat.id, message),
      (err) => {
        toastError(err);
        setText((current) => current || body);
      },
    );
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      send();
    }
  };

  const names = chat.users.map((u) => (u.userId === userId ? t('conversation.you') : (u.user?.name ?? t('conversation.removedUser'))));
  return (
    <Frame aria-label={chat.title} data-testid="conversation" data-chat-id={chat.id}>
      <Head>
        {onBack ? (
          <IconButton label={t('conversation.back')} tone="default" onClick={onBack} data-testid="back-to-chats">
            <ChatIcon name="back" />
          </IconButton>
        ) : null}
        <div>
          <h2 data-testid="conversation-title">{chat.title}</h2>
          <p title={names.join(', ')}>
            {t('conversation.participants', { count: chat.users.length })} · {names.join(', ')}
          </p>
        </div>
      </Head>
      <Log ref={log} onScroll={onScroll} role="log" aria-label={t('conversation.log', { title: chat.title })} aria-busy={messages.isPending || messages.isFetchingNextPage} data-testid="message-list">
        {messages.isFetchingNextPage ? (
          <Older>
            <Spinner size={20} label={t('conversation.loadingOlder')} />
          </Older>
        ) : null}
        {messages.isPending ? (
          <Older>
            <Spinner size={28} label={t('loading')} />
          </Older>
        ) : !list.length ? (
          <EmptyState icon="chat" text={t('conversation.empty')} data-testid="no-messages" />
        ) : (
          list.map((m) => <MessageBubble key={m.id} message={m} own={m.senderId === userId} />)
        )}
      </Log>
      <InputBar
        onSubmit={(e) => {
          e.preventDefault();
          send();
        }}
      >
        <textarea value={text} onChange={(e) => setText(e.target.value)} onKeyDown={onKeyDown} rows={1} placeholder={t('conversation.placeholder')} aria-label={t('conversation.input')} data-testid="message-input" />
        <IconButton type="submit" label={t('conversation.send')} disabled={!text.trim()} data-testid="send-message">
          <ChatIcon name="send" />
        </IconButton>
      </InputBar>
    </Frame>
  );
}

function MessageBubble({ message, own }: { message: ChatMessage; own: boolean }) {
  const { t } = useTranslation('chats');
  return (
    <Bubble $own={own} data-testid="chat-message" data-own={own} data-message-id={message.id}>
      <strong>{own ? t('conversation.you') : (message.sender?.name ?? t('conversation.removedUser'))}</strong>
      <p>{message.message}</p>
      <time dateTime={message.createdAt}>{messageTime(message.createdAt)}</time>
    </Bubble>
  );
}
