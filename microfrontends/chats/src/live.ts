import type { InfiniteData } from '@tanstack/react-query';
import type { Chat, ChatMessage, Page } from './api';

/**
 * Pure functions that apply the `company-{id}-chat` events (plugins/chats README "Events") and the answers
 * of the area's own requests to the cached pages. All idempotent: the same event twice gives the same data
 * (the socket event of a message the user sent arrives after, or before, the POST's answer).
 */

/** A `company-{id}-chat` event. */
export interface ChatEvent {
  action?: string;
  chat?: Chat;
  newMessage?: ChatMessage & { chat?: Chat };
  id?: number | string;
}

export type ChatPages = InfiniteData<Page<Chat>, number>;
export type MessagePages = InfiniteData<Page<ChatMessage>, number>;

/** The unread count of `userId` in `chat` (0 when not a participant). */
export function unreadsOf(chat: Chat | undefined, userId: number): number {
  return Number(chat?.users?.find((u) => u.userId === userId)?.unreads ?? 0);
}

export const isParticipant = (chat: Chat, userId: number) => Boolean(chat.users?.some((u) => u.userId === userId));

/** Every chat of the cached pages, in order, each once. */
export function flattenChats(data: { pages: Page<Chat>[] } | undefined): Chat[] {
  const seen = new Set<number>();
  const out: Chat[] = [];
  for (const page of data?.pages ?? []) {
    for (const c of page.records) {
      if (seen.has(c.id)) continue;
      seen.add(c.id);
      out.push(c);
    }
  }
  return out;
}

/**
 * `chat` put in the list: `moveToTop` (a new message, a created chat) puts it first; otherwise it keeps its
 * place (rename, read, participants), or goes first when it was not listed. A chat `userId` no longer takes
 * part in leaves the list.
 */
export function upsertChat(data: ChatPages | undefined, chat: Chat, userId: number, moveToTop: boolean): ChatPages | undefined {
  if (!data || !data.pages.length) return data;
  const listed = data.pages.some((p) => p.records.some((c) => c.id === chat.id));
  if (!isParticipant(chat, userId)) return listed ? removeChat(data, chat.id) : data;
  if (listed && !moveToTop) {
    return { ...data, pages: data.pages.map((p) => ({ ...p, records: p.records.map((c) => (c.id === chat.id ? chat : c)) })) };
  }
  const pages = data.pages.map((p, i) => {
    const rest = p.records.filter((c) => c.id !== chat.id);
    return i === 0 ? { ...p, records: [chat, ...rest], count: listed ? p.count : p.count + 1 } : { ...p, records: rest };
  });
  return { ...data, pages };
}

/** The list without chat `id`. */
export function removeChat(data: ChatPages | undefined, id: number): ChatPages | undefined {
  if (!data) return data;
  if (!data.pages.some((p) => p.records.some((c) => c.id === id))) return data;
  return { ...data, pages: data.pages.map((p) => ({ ...p, records: p.records.filter((c) => c.id !== id), count: Math.max(0, p.count - 1) })) };
}

/** The messages of the cached pages in chronological order (older pages first), each once. */
export function flattenMessages(data: { pages: Page<ChatMessage>[] } | undefined): ChatMessage[] {
  const seen = new Set<number>();
  const out: ChatMessage[] = [];
  // pages[0] is the newest page; each page is oldest first.
  for (const page of [...(data?.pages ?? [])].reverse()) {
    for (const m of page.records) {
      if (seen.has(m.id)) continue;
      seen.add(m.id);
      out.push(m);
    }
  }
  return out;
}

/** `message` added after the newest cached message (once). */
export function appendMessage(data: MessagePages | undefined, message: ChatMessage): MessagePages | undefined {
  if (!data || !data.pages.length) return data;
  if (data.pages.some((p) => p.records.some((m) => m.id === message.id))) return data;
  const [first, ...rest] = data.pages;
  return { ...data, pages: [{ ...first, records: [...first.records, message], count: first.count + 1 }, ...rest] };
}

/** A message of an event without its `chat` (the cached message has the API's shape). */
export function messageOf(event: ChatEvent): ChatMessage | undefined {
  const m = event.newMessage;
  if (!m || typeof m.id !== 'number') return undefined;
  const { chat: _chat, ...message } = m;
  return message;
}
