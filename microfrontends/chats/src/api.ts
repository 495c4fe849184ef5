import { api } from '@atendo/web-api';

/**
 * The chat area's API calls (plugins/chats: spec 3-campaigns-and-tools.md "Internal chat", §3, §7) and
 * their react-query keys. Every key starts with 'chatsArea' (the shell's top-bar popover keeps its own
 * `['chats', companyId, userId]` entry and follows the same events).
 */

/** A participant of a chat with the number of messages they have not read yet. */
export interface ChatUser {
  id?: number;
  chatId?: number;
  userId: number;
  unreads: number;
  user?: { id: number; name: string } | null;
}

/** A chat as GET /chats and the `company-{id}-chat` events carry it. */
export interface Chat {
  id: number;
  uuid: string;
  title: string;
  ownerId: number | null;
  owner?: { id: number; name: string } | null;
  lastMessage?: string | null;
  companyId?: number;
  createdAt?: string;
  updatedAt?: string;
  users: ChatUser[];
}

/** A chat message. */
export interface ChatMessage {
  id: number;
  chatId: number;
  senderId: number | null;
  sender?: { id: number; name: string } | null;
  message: string;
  mediaPath?: string | null;
  mediaName?: string | null;
  createdAt: string;
  updatedAt?: string;
}

/** One page of GET /chats or GET /chats/:id/messages. */
export interface Page<T> {
  records: T[];
  count: number;
  hasMore: boolean;
}

/** A user of the company (GET /users/list), a possible participant. */
export interface CompanyUser {
  id: number;
  name: string;
}

export const chatKeys = {
  all: ['chatsArea'] as const,
  lists: ['chatsArea', 'list'] as const,
  list: (search: string) => ['chatsArea', 'list', search] as const,
  chat: (uuid: string) => ['chatsArea', 'chat', uuid] as const,
  messages: (chatId: number) => ['chatsArea', 'messages', chatId] as const,
  users: ['chatsArea', 'users'] as const,
};

/** `GET /chats`: a page (20) of the caller's chats, most recently active first. */
export function fetchChats(search: string, pageNumber: number, signal?: AbortSignal): Promise<Page<Chat>> {
  const term = search.trim().toLowerCase();
  return api.get<Page<Chat>>('/chats', { query: { pageNumber, ...(term ? { searchParam: term } : {}) }, signal });
}

/** `GET /chats/:id` (id or uuid). */
export function fetchChat(idOrUuid: string, signal?: AbortSignal): Promise<Chat> {
  return api.get<Chat>(`/chats/${encodeURIComponent(idOrUuid)}`, { signal });
}

/** `GET /chats/:id/messages`: page 1 is the newest 20 messages, each page oldest first. */
export function fetchMessages(chatId: number, pageNumber: number, signal?: AbortSignal): Promise<Page<ChatMessage>> {
  return api.get<Page<ChatMessage>>(`/chats/${chatId}/messages`, { query: { pageNumber }, signal });
}

/** Body of POST /chats and PUT /chats/:id. */
export interface ChatBody {
  title: string;
  users: { id: number; name: string }[];
}

export const createChat = (body: ChatBody) => api.post<Chat>('/chats', body);
export const updateChat = (id: number, body: ChatBody) => api.put<Chat>(`/chats/${id}`, body);
export const deleteChat = (id: number) => api.delete<{ message: string }>(`/chats/${id}`);
export const sendMessage = (chatId: number, message: string) => api.post<ChatMessage>(`/chats/${chatId}/messages`, { message });
export const markRead = (chatId: number, userId: number) => api.post<Chat>(`/chats/${chatId}/read`, { userId });
export const fetchUsers = (signal?: AbortSignal) => api.get<CompanyUser[]>('/users/list', { signal });
