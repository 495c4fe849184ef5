import type { UIEvent } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { Button, EmptyState, IconButton, Spinner } from '@atendo/web-ui';
import type { Chat } from './api';
import { ChatIcon } from './icons';
import { unreadsOf } from './live';

/** The list loads its next page when scrolled within this distance of its bottom (spec §9). */
export const LOAD_MORE_THRESHOLD_PX = 100;

const Header = styled.div`
  display: flex;
  flex: none;
  align-items: center;
  gap: 8px;
  padding: 12px;
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
`;

const Search = styled.label`
  display: flex;
  flex: 1;
  min-width: 0;
  align-items: center;
  gap: 6px;
  height: 40px;
  padding: 0 10px;
  border: 1px solid ${(p) => p.theme.colors.border};
  border-radius: ${(p) => p.theme.radius.md};
  color: ${(p) => p.theme.colors.textMuted};
  &:focus-within { border-color: ${(p) => p.theme.colors.primary}; }
  input {
    flex: 1;
    min-width: 0;
    border: none;
    outline: none;
    background: transparent;
    color: ${(p) => p.theme.colors.text};
    font-size: ${(p) => p.theme.font.size.md};
  }
`;

const Scroller = styled.ul`
  flex: 1;
  min-height: 0;
  overflow-y: auto;
  margin: 0;
  padding: 0;
  list-style: none;
`;

const Row = styled.li<{ $active: boolean }>`
  display: flex;
  align-items: center;
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
  border-left: 3px solid ${(p) => (p.$active ? p.theme.colors.primary : 'transparent')};
  background: ${(p) => (p.$active ? p.theme.colors.primarySoft : 'transparent')};
`;

const Open = styled.button`
  display: flex;
  flex: 1;
  min-width: 0;
  align-items: center;
  gap: 10px;
  padding: 12px;
  border: none;
  background: transparent;
  color: ${(p) => p.theme.colors.text};
  text-align: left;
  cursor: pointer;
  &:hover, &:focus-visible { background: ${(p) => p.theme.colors.surfaceAlt}; }
`;

const Text = styled.span`
  flex: 1;
  min-width: 0;
  strong, span { display: block; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  span { color: ${(p) => p.theme.colors.textMuted}; font-size: ${(p) => p.theme.font.size.sm}; }
`;

const Unread = styled.span`
  flex: none;
  min-width: 22px;
  height: 22px;
  padding: 0 6px;
  border-radius: ${(p) => p.theme.radius.round};
  background: ${(p) => p.theme.colors.primary};
  color: ${(p) => p.theme.colors.onPrimary};
  font-size: 12px;
  font-weight: ${(p) => p.theme.font.weight.bold};
  line-height: 22px;
  text-align: center;
`;

const Actions = styled.span`
  display: flex;
  flex: none;
  padding-right: 6px;
  color: ${(p) => p.theme.colors.textMuted};
`;

const Centered = styled.div`
  display: flex;
  justify-content: center;
  padding: 16px;
`;

export interface ChatListProps {
  chats: Chat[];
  userId: number;
  currentId?: number;
  searchText: string;
  onSearch: (text: string) => void;
  /** A search is applied (empty results say "none found"). */
  searching: boolean;
  loading: boolean;
  failed: boolean;
  onRetry: () => void;
  hasMore: boolean;
  loadingMore: boolean;
  onMore: () => void;
  onOpen: (chat: Chat) => void;
  onNew: () => void;
  onEdit: (chat: Chat) => void;
  onDelete: (chat: Chat) => void;
}

/**
 * The user's chats (title, last message, the user's unread count), most recently active first, with a
 * search, a "new chat" button and, for the chats the user owns only, edit and delete.
 */
export function ChatList(props: ChatListProps) {
  const { t } = useTranslation('chats');
  const { chats, userId } = props;
  const onScroll = (e: UIEvent<HTMLUListElement>) => {
    const el = e.currentTarget;
    if (props.hasMore && el.scrollHeight - el.scrollTop - el.clientHeight < LOAD_MORE_THRESHOLD_PX) props.onMore();
  };
  return (
    <>
      <Header>
        <Search>
          <ChatIcon name="search" size={18} />
          <input type="search" value={props.searchText} onChange={(e) => props.onSearch(e.target.value)} placeholder={t('list.search')} aria-label={t('list.search')} data-testid="chat-search" />
        </Search>
        <Button onClick={props.onNew} data-testid="new-chat">
          <ChatIcon name="plus" size={18} />
          {t('list.new')}
        </Button>
      </Header>
      {props.loading ? (
        <Centered>
          <Spinner size={28} label={t('loading')} />
        </Centered>
      ) : props.failed && !chats.length ? (
        <EmptyState icon="warning" text={t('list.loadError')} role="alert">
          <Button variant="secondary" onClick={props.onRetry}>
            {t('list.retry')}
          </Button>
        </EmptyState>
      ) : !chats.length ? (
        <EmptyState icon="forum" text={props.searching ? t('list.noResults') : t('list.empty')} data-testid="chats-empty" />
      ) : (
        <Scroller aria-label={t('list.label')} onScroll={onScroll} data-testid="chat-list">
          {chats.map((chat) => {
            const unread = unreadsOf(chat, userId);
            const owner = chat.ownerId === userId;
            return (
              <Row key={chat.id} $active={chat.id === props.currentId} data-testid={`chat-row-${chat.id}`} data-unread={unread}>
                <Open type="button" onClick={() => props.onOpen(chat)} aria-current={chat.id === props.currentId ? 'true' : undefined} data-testid={`open-chat-${chat.id}`}>
                  <Text>
                    <strong>{chat.title}</strong>
                    <span>{chat.lastMessage || t('list.noMessages')}</span>
                  </Text>
                  {unread > 0 ? (
                    <Unread aria-label={t('list.unread', { count: unread })} title={t('list.unread', { count: unread })} data-testid={`unread-${chat.id}`}>
                      {unread > 99 ? '99+' : unread}
                    </Unread>
                  ) : null}
                </Open>
                {owner ? (
                  <Actions>
                    <IconButton label={t('list.edit', { title: chat.title })} tone="default" onClick={() => props.onEdit(chat)} data-testid={`edit-chat-${chat.id}`}>
                      <ChatIcon name="edit" size={18} />
                    </IconButton>
                    <IconButton label={t('list.delete', { title: chat.title })} tone="default" onClick={() => props.onDelete(chat)} data-testid={`delete-chat-${chat.id}`}>
                      <ChatIcon name="trash" size={18} />
                    </IconButton>
                  </Actions>
                ) : null}
              </Row>
            );
          })}
          {props.hasMore ? (
            <li>
              <Centered>
                {props.loadingMore ? (
                  <Spinner size={22} label={t('loading')} />
                ) : (
                  <Button variant="text" onClick={props.onMore}>
                    {t('list.loadMore')}
                  </Button>
                )}
              </Centered>
            </li>
          ) : null}
        </Scroller>
      )}
    </>
  );
}
