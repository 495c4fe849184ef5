import { api } from '@atendo/web-api';
import type { ListPageOf } from '@atendo/web-kit';

/**
 * The quick messages screen's calls (plugins/quick-messages; spec 2-tickets.md §2 "Quick messages", §7
 * "Quick messages"; wire-shapes "GET /quick-messages").
 */

/** A quick message as the API answers it; `mediaPath` is a signed URL or null. */
export interface QuickMessage {
  id: number;
  companyId: number;
  userId: number | null;
  shortcode: string;
  message: string;
  geral: boolean;
  status: boolean;
  isMedia: boolean;
  mediaPath: string | null;
  mediaName: string | null;
  mediaType: string | null;
  createdAt: string;
  updatedAt: string;
}

/** `company-{cid}-quickmessage` payloads. */
export type QuickMessageEvent = { action: 'create' | 'update'; record: QuickMessage } | { action: 'delete'; id: number | string };

export interface QuickMessageInput {
  shortcode: string;
  message: string;
  geral?: boolean;
}

export const quickMessagesKey = ['agent', 'quick-messages'] as const;
/** The inbox's "/" list (microfrontends/inbox): forgotten after a write here so the next "/" reloads it. */
export const inboxQuickRepliesKey = ['inbox', 'quickMessages'] as const;

/** What the media picker accepts (the server checks the content: images, audio, video, PDF, office documents). */
export const MEDIA_ACCEPT = 'image/*,audio/*,video/*,application/pdf,.doc,.docx,.xls,.xlsx,.ppt,.pptx,.odt,.ods,.odp,.txt,.csv';

/** `GET /quick-messages?searchParam&pageNumber` (20 a page, by shortcode). */
export async function fetchQuickMessages(term: string, pageNumber: number, signal?: AbortSignal): Promise<ListPageOf<QuickMessage>> {
  const page = await api.get<{ records: QuickMessage[]; count: number; hasMore: boolean }>('/quick-messages', { query: { searchParam: term || undefined, pageNumber }, signal });
  return { records: page.records, count: page.count, hasMore: page.hasMore };
}

export const createQuickMessage = (body: QuickMessageInput) => api.post<QuickMessage>('/quick-messages', body);
export const updateQuickMessage = (id: number, body: QuickMessageInput) => api.put<QuickMessage>(`/quick-messages/${id}`, body);
export const deleteQuickMessage = (id: number) => api.delete<{ message: string }>(`/quick-messages/${id}`);

/** `POST /quick-messages/{id}/media-upload` multipart (`typeArch=quickMessage`, `file`): replaces its media. */
export function uploadQuickMessageMedia(id: number, file: File): Promise<QuickMessage> {
  const form = new FormData();
  form.append('typeArch', 'quickMessage');
  form.append('file', file, file.name);
  return api.post<QuickMessage>(`/quick-messages/${id}/media-upload`, form);
}

/** `DELETE /quick-messages/{id}/media-upload`: removes its media. */
export const deleteQuickMessageMedia = (id: number) => api.delete<QuickMessage>(`/quick-messages/${id}/media-upload`);

/** Whether a record matches a (lower-cased) search: shortcode or message, as the server searches. */
export const quickMessageMatches = (q: QuickMessage, term: string) => !term || q.shortcode.toLowerCase().includes(term) || (q.message ?? '').toLowerCase().includes(term);

/** Admins, supervisors and super users manage every quick message and the general flag (spec 2-tickets.md §6). */
export function isManager(user: { profile?: unknown; super?: unknown } | null | undefined): boolean {
  if (!user) return false;
  const profile = String(user.profile ?? '').toLowerCase();
  return Boolean(user.super) || profile === 'admin' || profile === 'supervisor';
}

/** Whether `user` may edit or delete `q`: managers any; users only their own non-general ones. */
export function canChange(user: { id: number; profile?: unknown; super?: unknown } | null | undefined, q: Pick<QuickMessage, 'geral' | 'userId'>): boolean {
  if (!user) return false;
  return isManager(user) || (!q.geral && q.userId === user.id);
}
