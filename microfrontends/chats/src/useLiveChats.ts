import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useSocketEvent } from '@atendo/web-api';
import { chatKeys, type Chat, type ChatMessage } from './api';
import { appendMessage, isParticipant, messageOf, removeChat, upsertChat, type ChatEvent, type ChatPages, type MessagePages } from './live';

/**
 * Puts `chat` in every cached list of the area and in its own entry. `moveToTop`: a new message or a new
 * chat. A searched list only takes chats it already shows (the search is the server's).
 */
export function storeChat(client: QueryClient, chat: Chat, userId: number, moveToTop: boolean): void {
  for (const [key, data] of client.getQueriesData<ChatPages>({ queryKey: chatKeys.lists })) {
    const search = String(key[2] ?? '');
    const listed = Boolean(data?.pages.some((p) => p.records.some((c) => c.id === chat.id)));
    if (search && !listed) continue;
    client.setQueryData<ChatPages>(key, (old) => upsertChat(old, chat, userId, moveToTop));
  }
  if (isParticipant(chat, userId)) client.setQueryData<Chat>(chatKeys.chat(chat.uuid), (old) => (old ? chat : old));
}

/** Drops chat `id` from the lists, its own entry and its messages. */
export function forgetChat(client: QueryClient, id: number): void {
  client.setQueriesData<ChatPages>({ queryKey: chatKeys.lists }, (old) => removeChat(old, id));
  client.removeQueries({ queryKey: ['chatsArea', 'chat'], predicate: (q) => (q.state.data as Chat | undefined)?.id === id });
  client.removeQueries({ queryKey: chatKeys.messages(id) });
}

/** Adds `message` to chat `chatId`'s cached messages (once). */
export function storeMessage(client: QueryClient, chatId: number, message: ChatMessage): void {
  client.setQueryData<MessagePages>(chatKeys.messages(chatId), (old) => appendMessage(old, message));
}

/**
 * Follows `company-{companyId}-chat` while mounted (plugins/chats README "Events"): a new message is added
 * to its chat's messages and moves the chat to the top of the list with its new unread counts; an update
 * (create, rename, participants, read) replaces the chat in place; a delete (or the user's removal) drops
 * it, and `onGone` is told (the open chat closes).
 */
export function useLiveChats(companyId: number | undefined, userId: number | undefined, onGone: (chatId: number) => void): void {
  const client = useQueryClient();
  useSocketEvent<ChatEvent>(companyId && userId ? `company-${companyId}-chat` : null, (event) => {
    if (!event || !userId) return;
    if (event.action === 'delete') {
      const id = Number(event.id);
      if (!Number.isInteger(id)) return;
      forgetChat(client, id);
      onGone(id);
      return;
    }
    const chat = event.chat ?? event.newMessage?.chat;
    if ((event.action !== 'new-message' && event.action !== 'update') || !chat || typeof chat.id !== 'number') return;
    if (!isParticipant(chat, userId)) {
      forgetChat(client, chat.id);
      onGone(chat.id);
      return;
    }
    storeChat(client, chat, userId, event.action === 'new-message');
    if (event.action === 'new-message') {
      const message = messageOf(event);
      if (message) storeMessage(client, chat.id, message);
    }
  });
}
