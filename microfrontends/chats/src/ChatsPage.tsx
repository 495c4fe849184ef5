import { useCallback, useEffect, useMemo, useState } from 'react';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { useSessionUser } from '@atendo/web-api';
import { EmptyState, Loading } from '@atendo/web-ui';
import { chatKeys, fetchChat, fetchChats, type Chat } from './api';
import { ChatList } from './ChatList';
import { Conversation } from './Conversation';
import { ChatDialog, ConfirmDelete } from './ChatDialog';
import { useDebounced, useErrorToast, useMediaQuery } from './hooks';
import { flattenChats } from './live';
import { chatPath, navigateTo, useChatParam } from './router';
import { useLiveChats } from './useLiveChats';
import { SplitDetail as Right, SplitPrompt as Prompt, SplitTab as Tab, SplitTabs as Tabs } from '@atendo/web-kit';

/** Below this width the page shows two tabs ("Chats", "Mensagens") instead of two panes (spec "Internal chat"). */
export const NARROW_MAX_PX = 899;

const Page = styled.div<{ $narrow: boolean }>`
  display: flex;
  flex-direction: ${(p) => (p.$narrow ? 'column' : 'row')};
  height: calc(100vh - ${(p) => p.theme.layout.topBarHeight}px);
  min-height: 360px;
  background: ${(p) => p.theme.colors.background};
`;

const Left = styled.div<{ $narrow: boolean; $hidden: boolean }>`
  display: ${(p) => (p.$hidden ? 'none' : 'flex')};
  flex-direction: column;
  min-height: 0;
  ${(p) => (p.$narrow ? 'flex: 1; width: 100%;' : 'width: 34%; min-width: 300px; max-width: 440px;')}
  border-right: ${(p) => (p.$narrow ? 'none' : `1px solid ${p.theme.colors.border}`)};
  background: ${(p) => p.theme.colors.surface};
`;

type Dialog = { kind: 'new' } | { kind: 'edit'; chat: Chat } | { kind: 'delete'; chat: Chat } | null;

/**
 * /chats and /chats/:id (spec 3-campaigns-and-tools.md "Internal chat"): the user's chats on the left and
 * the conversation of `:id` (a chat uuid or id) on the right; below 900 px two tabs, "Chats" and
 * "Mensagens". New/edit dialog and delete confirmation (owner only); everything live on
 * `company-{id}-chat`.
 */
export function ChatsPage() {
  const { t } = useTranslation('chats');
  const user = useSessionUser();
  const param = useChatParam();
  const narrow = useMediaQuery(`(max-width: ${NARROW_MAX_PX}px)`);
  const [tab, setTab] = useState<'chats' | 'messages'>(param ? 'messages' : 'chats');
  const [searchText, setSearchText] = useState('');
  const search = useDebounced(searchText.trim().toLowerCase());
  const [dialog, setDialog] = useState<Dialog>(null);

  const list = useInfiniteQuery({
    queryKey: chatKeys.list(search),
    queryFn: ({ pageParam, signal }) => fetchChats(search, pageParam, signal),
    initialPageParam: 1,
    getNextPageParam: (last, _all, lastParam) => (last.hasMore ? lastParam + 1 : undefined),
    enabled: Boolean(user),
  });
  useErrorToast(list.error);
  const chats = useMemo(() => flattenChats(list.data), [list.data]);

  // The open chat: from the list when it is there (kept live), else read on its own (GET /chats/:id).
  const listed = param ? chats.find((c) => c.uuid === param.toLowerCase() || String(c.id) === param) : undefined;
  const single = useQuery({
    queryKey: chatKeys.chat(param ?? ''),
    queryFn: ({ signal }) => fetchChat(param!, signal),
    enabled: Boolean(param && user && !listed && !list.isPending),
    retry: false,
  });
  useErrorToast(single.error);
  const current = listed ?? (param ? single.data : undefined);

  // Picking a chat on a narrow screen shows its messages.
  useEffect(() => {
    setTab(param ? 'messages' : 'chats');
  }, [param]);

  const onGone = useCallback(
    (chatId: number) => {
      if (current?.id === chatId) navigateTo('/chats');
    },
    [current?.id],
  );
  useLiveChats(user?.companyId, user?.id, onGone);

  if (!user) return null;
  const me = user.id;

  const right = current ? (
    <Conversation key={current.id} chat={current} userId={me} onBack={narrow ? () => setTab('chats') : undefined} />
  ) : param && (single.isPending || list.isPending) ? (
    <Loading label={t('loading')} />
  ) : (
    <Prompt>
      <EmptyState icon="forum" text={param ? t('conversation.notFound') : t('conversation.select')} data-testid={param ? 'chat-not-found' : 'select-chat'} />
    </Prompt>
  );

  return (
    <Page $narrow={narrow} data-testid="chats-page" data-layout={narrow ? 'narrow' : 'wide'}>
      {narrow ? (
        <Tabs role="tablist" aria-label={t('tabs.label')}>
          <Tab type="button" role="tab" aria-selected={tab === 'chats'} $active={tab === 'chats'} onClick={() => setTab('chats')} data-testid="tab-chats">
            {t('tabs.chats')}
          </Tab>
          <Tab type="button" role="tab" aria-selected={tab === 'messages'} $active={tab === 'messages'} onClick={() => setTab('messages')} data-testid="tab-messages">
            {t('tabs.messages')}
          </Tab>
        </Tabs>
      ) : null}
      <Left $narrow={narrow} $hidden={narrow && tab !== 'chats'} data-testid="chats-pane">
        <ChatList
          chats={chats}
          userId={me}
          currentId={current?.id}
          searchText={searchText}
          onSearch={setSearchText}
          searching={Boolean(search)}
          loading={list.isPending}
          failed={list.isError}
          onRetry={() => void list.refetch()}
          hasMore={Boolean(list.hasNextPage)}
          loadingMore={list.isFetchingNextPage}
          onMore={() => {
            if (list.hasNextPage && !list.isFetchingNextPage) void list.fetchNextPage();
          }}
          onOpen={(chat) => {
            if (chat.id === current?.id) setTab('messages');
            else navigateTo(chatPath(chat.uuid));
          }}
          onNew={() => setDialog({ kind: 'new' })}
          onEdit={(chat) => setDialog({ kind: 'edit', chat })}
          onDelete={(chat) => setDialog({ kind: 'delete', chat })}
        />
      </Left>
      <Right $hidden={narrow && tab !== 'messages'} data-testid="messages-pane">
        {right}
      </Right>
      {dialog?.kind === 'new' || dialog?.kind === 'edit' ? (
        <ChatDialog
          chat={dialog.kind === 'edit' ? dialog.chat : undefined}
          userId={me}
          onClose={() => setDialog(null)}
          onSaved={(chat, created) => {
            setDialog(null);
            if (created) navigateTo(chatPath(chat.uuid));
          }}
        />
      ) : null}
      {dialog?.kind === 'delete' ? (
        <ConfirmDelete
          chat={dialog.chat}
          onClose={() => setDialog(null)}
          onDeleted={(chat) => {
            setDialog(null);
            if (current?.id === chat.id) navigateTo('/chats');
          }}
        />
      ) : null}
    </Page>
  );
}
