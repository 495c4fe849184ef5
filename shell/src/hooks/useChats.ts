import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, useCompanyPlan, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { hasFeature } from '../access';

/** A participant of an internal chat, as GET /chats answers it (only what the shell reads). */
export interface ChatMember {
  userId: number;
  unreads: number;
  user?: { id: number; name: string } | null;
}

/** An internal chat as GET /chats and the `company-{id}-chat` events carry it (spec 3-campaigns-and-tools.md §3). */
export interface ChatSummary {
  id: number;
  uuid: string;
  title: string;
  lastMessage?: string | null;
  ownerId?: number | null;
  updatedAt?: string;
  users: ChatMember[];
}

/** A `company-{id}-chat` event: `{action:'new-message', newMessage, chat}`, `{action:'update', chat}`, `{action:'delete', id}`. */
export interface ChatEvent {
  action?: string;
  chat?: ChatSummary;
  id?: number | string;
}

/** Query key of the signed-in user's chats (first page of GET /chats). */
export const chatsKey = (companyId: number | undefined, userId: number | undefined) => ['chats', companyId, userId] as const;

/** The unread count of `userId` in `chat` (0 when not a participant). */
export function unreadsOf(chat: ChatSummary, userId: number): number {
  return Number(chat.users?.find((u) => u.userId === userId)?.unreads ?? 0);
}

/** The sum of `userId`'s unread counts over `chats` (the menu dot and the top-bar badge). */
export function totalUnreads(chats: ChatSummary[], userId: number): number {
  return chats.reduce((sum, c) => sum + unreadsOf(c, userId), 0);
}

/**
 * Applies a `company-{id}-chat` event to the list: a new message or an update replaces the chat (or adds it)
 * and moves it to the top (most recently active first); a chat `userId` no longer takes part in, and a
 * delete, drop it. Idempotent: applying the same event twice gives the same list.
 */
export function applyChatEvent(list: ChatSummary[], event: ChatEvent, userId: number): ChatSummary[] {
  if (event?.action === 'delete' && event.id !== undefined) return list.filter((c) => c.id !== Number(event.id));
  const chat = event?.chat;
  if ((event?.action !== 'new-message' && event?.action !== 'update') || !chat || typeof chat.id !== 'number') return list;
  const rest = list.filter((c) => c.id !== chat.id);
  if (!chat.users?.some((u) => u.userId === userId)) return rest;
  if (event.action === 'update' && rest.length === list.length - 1) {
    // An update (rename, read, participants) keeps the chat where it is.
    return list.map((c) => (c.id === chat.id ? chat : c));
  }
  return [chat, ...rest];
}

/**
 * The signed-in user's chats (GET /chats, first page), kept live on `company-{id}-chat`. Off (no request, no
 * subscription, empty list) until the company's plan is known to have `useInternalChat`. Every caller shares
 * one react-query entry; each patches it with the same idempotent events.
 */
export function useChats(): { chats: ChatSummary[]; enabled: boolean; isLoading: boolean; isError: boolean; userId: number | undefined } {
  const user = useSessionUser();
  const plan = useCompanyPlan();
  const client = useQueryClient();
  const enabled = Boolean(user) && hasFeature(plan.data?.plan, 'useInternalChat') === true;
  const key = chatsKey(user?.companyId, user?.id);
  const query = useQuery({
    queryKey: key,
    queryFn: async ({ signal }) => (await api.get<{ records?: ChatSummary[] }>('/chats', { query: { pageNumber: 1 }, signal })).records ?? [],
    enabled,
    staleTime: 60_000,
  });
  useSocketEvent<ChatEvent>(enabled && user ? `company-${user.companyId}-chat` : null, (event) => {
    if (!user) return;
    client.setQueryData<ChatSummary[]>(key, (list) => (list ? applyChatEvent(list, event, user.id) : list));
  });
  return { chats: enabled ? (query.data ?? []) : [], enabled, isLoading: enabled && query.isLoading, isError: query.isError, userId: user?.id };
}

/** Whether the signed-in user has unread internal-chat messages (the side menu's dot). */
export function useChatUnread(): boolean {
  const { chats, userId } = useChats();
  return userId !== undefined && totalUnreads(chats, userId) > 0;
}
