import { api } from '@atendo/web-api';
import type { ListPageOf } from '@atendo/web-kit';

/**
 * The tags screens' calls (plugins/tags; spec 2-tickets.md §2 "Tags", "Kanban", §7 "Tags"): normal tags on
 * /tags, kanban tags (`kanban: 1`, plan useKanban) on /tagsKanban.
 */
export interface Tag {
  id: number;
  name: string;
  color: string;
  kanban: number;
  contactsCount?: number;
  ticketsCount?: number;
}

/** `company-{id}-tag` / `company{id}-tag` payloads. */
export type TagEvent = { action: 'create' | 'update'; tag: Tag } | { action: 'delete'; tagId: number | string };

export interface TagInput {
  name: string;
  color: string;
  kanban: 0 | 1;
}

export const tagsKeys = { list: (kanban: boolean) => ['admin', 'tags', kanban ? 'kanban' : 'normal'] as const };

/** `GET /tags/?searchParam&pageNumber&kanban` (20 a page, by name). */
export async function fetchTags(kanban: boolean, term: string, pageNumber: number, signal?: AbortSignal): Promise<ListPageOf<Tag>> {
  const page = await api.get<{ tags: Tag[]; count: number; hasMore: boolean }>('/tags/', { query: { searchParam: term || undefined, pageNumber, kanban: kanban ? 1 : 0 }, signal });
  return { records: page.tags, count: page.count, hasMore: page.hasMore };
}

export const createTag = (body: TagInput) => api.post<Tag>('/tags', body);
export const updateTag = (id: number, body: TagInput) => api.put<Tag>(`/tags/${id}`, body);
export const deleteTag = (id: number) => api.delete<{ message: string }>(`/tags/${id}`);
