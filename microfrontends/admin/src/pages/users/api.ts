import { api, type SessionUser } from '@atendo/web-api';
import type { ListPageOf } from '@atendo/web-kit';

/**
 * The users screen's API calls (kernel routes, kernel/core/src/routes/users.ts; spec 2-tickets.md §7
 * "Users", wire-shapes "GET /users/").
 */

/** A user as `GET /users/` lists it (no secrets; `queues` added by the queues plugin). */
export interface AdminUser extends SessionUser {
  online: boolean;
  startWork: string;
  endWork: string;
  allTicket: 'enable' | 'disable' | string;
  allowGroup: boolean;
  farewellMessage: string | null;
  whatsappId: number | null;
  /** The user's own WhatsApp number (digits): where password reset codes go. */
  wpp?: string | null;
  profileImageUrl?: string | null;
  queues?: { id: number; name: string; color: string }[];
  createdAt: string;
}

/** Body of `POST /users` and `PUT /users/:id` (an empty password on edit keeps the current one). */
export interface UserInput {
  name: string;
  email: string;
  password?: string;
  /** Required by the API when the caller changes its own password (400 ERR_WRONG_CURRENT_PASSWORD otherwise). */
  currentPassword?: string;
  profile: 'admin' | 'user' | 'supervisor';
  queueIds: number[];
  whatsappId: number | null;
  /** The user's WhatsApp number, digits only (null clears it): password reset by WhatsApp sends the code here. */
  wpp?: string | null;
  startWork: string;
  endWork: string;
  farewellMessage: string;
  allTicket: 'enable' | 'disable';
  allowGroup: boolean;
  defaultTheme: 'light' | 'dark';
  defaultMenu: 'open' | 'closed';
  language: string | null;
}

/** `company-{id}-user` payloads (wire-shapes §5). */
export type UserEvent = { action: 'create' | 'update'; user: AdminUser } | { action: 'delete'; userId: number | string };

export const usersKeys = { list: ['admin', 'users'] as const };

/** `GET /users/?searchParam&pageNumber` (20 a page, newest first), as a list page. */
export async function fetchUsers(term: string, pageNumber: number, signal?: AbortSignal): Promise<ListPageOf<AdminUser>> {
  const page = await api.get<{ users: AdminUser[]; count: number; hasMore: boolean }>('/users/', { query: { searchParam: term || undefined, pageNumber }, signal });
  return { records: page.users, count: page.count, hasMore: page.hasMore };
}

/** `POST /users`. */
export function createUser(body: UserInput): Promise<AdminUser> {
  return api.post<AdminUser>('/users', body);
}

/** `PUT /users/:id`. */
export function updateUser(id: number, body: UserInput): Promise<AdminUser> {
  return api.put<AdminUser>(`/users/${id}`, body);
}

/** `DELETE /users/:id`. */
export function deleteUser(id: number): Promise<{ message: string }> {
  return api.delete<{ message: string }>(`/users/${id}`);
}

/** Profile images: PNG, JPEG, WebP or GIF (the server checks the content), at most 2 MiB. */
export const IMAGE_ACCEPT = '.png,.jpg,.jpeg,.webp,.gif';
export const IMAGE_MAX_BYTES = 2 * 1024 * 1024;
export const acceptedImage = (file: File) => /\.(png|jpe?g|webp|gif)$/i.test(file.name) && file.size <= IMAGE_MAX_BYTES;

/** `POST /users/:id/media-upload`: multipart `profileImage` (+ `userId`, `typeArch`, as the product family sends it). */
export function uploadUserImage(id: number, file: File): Promise<AdminUser> {
  const form = new FormData();
  form.append('userId', String(id));
  form.append('typeArch', 'user');
  form.append('profileImage', file);
  return api.post<AdminUser>(`/users/${id}/media-upload`, form);
}

/** Whether a user matches a (lower-cased) search of name or e-mail, as the server searches. */
export const userMatches = (u: AdminUser, term: string) => !term || u.name.toLowerCase().includes(term) || u.email.toLowerCase().includes(term);
