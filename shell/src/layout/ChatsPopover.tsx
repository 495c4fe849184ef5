import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import styled from 'styled-components';
import { api } from '@atendo/web-api';
import { EmptyState, Icon, IconButton, Popover, Spinner } from '@atendo/web-ui';
import { BadgeCount, BadgeWrap, PopoverHeader, PopoverList } from './popover-parts';
import { totalUnreads, unreadsOf, useChats, type ChatSummary } from '../hooks/useChats';

/** Chat popover max height (the notifications popover's, spec 1-platform.md §9). */
const MAX_HEIGHT = 350;

const Entry = styled.button`
  display: flex;
  align-items: center;
  gap: 12px;
  width: 100%;
  padding: 10px 16px;
  border: none;
  border-bottom: 1px solid ${(p) => p.theme.colors.border};
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
  min-width: 20px;
  height: 20px;
  padding: 0 6px;
  border-radius: ${(p) => p.theme.radius.round};
  background: ${(p) => p.theme.colors.primary};
  color: #fff;
  font-size: 12px;
  font-weight: ${(p) => p.theme.font.weight.bold};
  line-height: 20px;
  text-align: center;
`;

const Footer = styled.button`
  width: 100%;
  padding: 10px 16px;
  border: none;
  background: transparent;
  color: ${(p) => p.theme.colors.primary};
  font-weight: ${(p) => p.theme.font.weight.medium};
  cursor: pointer;
  &:hover { background: ${(p) => p.theme.colors.surfaceAlt}; }
`;

const Centered = styled.div`
  display: flex;
  justify-content: center;
  padding: 24px;
`;

/**
 * The top bar's internal chat button and popover (spec 1-platform.md §2): the signed-in user's chats
 * (title, last message, unread count), live on `company-{id}-chat`; the button carries the total unread
 * count. An entry opens /chats/{uuid} and marks the chat read for the user (POST /chats/{id}/read; a
 * failure is silent, spec 3-campaigns-and-tools.md §9). Loaded as its own chunk (see Chats.tsx); rendered
 * only when the plan has useInternalChat.
 */
export default function ChatsPopover() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const anchor = useRef<HTMLButtonElement>(null);
  const { chats, isLoading, isError, userId } = useChats();
  const me = userId ?? -1;
  const total = totalUnreads(chats, me);

  const openChat = (chat: ChatSummary) => {
    setOpen(false);
    if (unreadsOf(chat, me) > 0) api.post(`/chats/${chat.id}/read`, { userId: me }).catch(() => undefined);
    navigate(`/chats/${chat.uuid}`);
  };

  return (
    <>
      <BadgeWrap>
        <IconButton
          ref={anchor}
          label={total > 0 ? t('chats.buttonUnread', { count: total }) : t('chats.button')}
          aria-haspopup="dialog"
          aria-expanded={open}
          onClick={() => setOpen((o) => !o)}
          data-testid="chats-button"
        >
          <Icon name="forum" />
        </IconButton>
        {total > 0 ? (
          <BadgeCount aria-hidden="true" data-testid="chats-unread-total">
            {total > 99 ? '99+' : total}
          </BadgeCount>
        ) : null}
      </BadgeWrap>
      <Popover open={open} onClose={() => setOpen(false)} anchorRef={anchor} label={t('chats.title')} width={340} maxHeight={MAX_HEIGHT}>
        <PopoverHeader>{t('chats.title')}</PopoverHeader>
        {isLoading ? (
          <Centered>
            <Spinner size={24} label={t('common.loading')} />
          </Centered>
        ) : chats.length ? (
          <PopoverList data-testid="chats-list">
            {chats.map((chat) => {
              const unread = unreadsOf(chat, me);
              return (
                <li key={chat.id}>
                  <Entry onClick={() => openChat(chat)} data-testid={`chat-entry-${chat.id}`}>
                    <Icon name="forum" size={18} />
                    <Text>
                      <strong>{chat.title}</strong>
                      <span>{chat.lastMessage || t('chats.noMessages')}</span>
                    </Text>
                    {unread > 0 ? (
                      <Unread aria-label={t('chats.unread', { count: unread })} title={t('chats.unread', { count: unread })} data-testid={`chat-unread-${chat.id}`}>
                        {unread > 99 ? '99+' : unread}
                      </Unread>
                    ) : null}
                  </Entry>
                </li>
              );
            })}
          </PopoverList>
        ) : (
          <EmptyState icon="forum" text={isError ? t('chats.loadError') : t('chats.empty')} data-testid="chats-empty" />
        )}
        <Footer
          onClick={() => {
            setOpen(false);
            navigate('/chats');
          }}
          data-testid="chats-see-all"
        >
          {t('chats.seeAll')}
        </Footer>
      </Popover>
    </>
  );
}
