import { ANNOUNCEMENT_EVENT, api, type Announcement, type AnnouncementEvent, type AnnouncementsPage } from '@atendo/web-api';

export { ANNOUNCEMENT_EVENT, type Announcement, type AnnouncementEvent, type AnnouncementsPage };

/**
 * The announcements admin's API calls (plugins/announcements: spec 3-campaigns-and-tools.md §2
 * "Announcements admin", §7 "Announcements"; wire-shapes "GET /announcements/") and react-query keys.
 * Every key starts with 'admin' so sign-out (which clears the shared cache) reaches them.
 */

/** Priority: 1 high, 2 medium, 3 low (default 3). */
export type Priority = 1 | 2 | 3;
export const PRIORITIES: readonly Priority[] = [1, 2, 3];
export const DEFAULT_PRIORITY: Priority = 3;

/** Body of POST and PUT /announcements. */
export interface AnnouncementInput {
  title: string;
  text: string;
  priority: Priority;
  status: boolean;
}

/** The attachment accepts .png, .jpg and .jpeg (spec 3-campaigns-and-tools.md §5). */
export const MEDIA_ACCEPT = '.png,.jpg,.jpeg';
/** Whether `name` has one of the accepted extensions. */
export const acceptedMedia = (name: string) => /\.(png|jpe?g)$/i.test(name);

export const adminKeys = {
  announcements: ['admin', 'announcements'] as const,
  /** The admin list for one (lower-cased, trimmed) search term. */
  list: (term: string) => ['admin', 'announcements', term] as const,
};

/** `GET /announcements/?searchParam&pageNumber`: every announcement (super user), highest priority then newest. */
export function fetchAnnouncements(term: string, pageNumber: number, signal?: AbortSignal): Promise<AnnouncementsPage> {
  return api.get<AnnouncementsPage>('/announcements/', { query: { searchParam: term || undefined, pageNumber }, signal });
}

/** `POST /announcements/`. */
export function createAnnouncement(body: AnnouncementInput): Promise<Announcement> {
  return api.post<Announcement>('/announcements/', body);
}

/** `PUT /announcements/:id`. */
export function updateAnnouncement(id: number, body: AnnouncementInput): Promise<Announcement> {
  return api.put<Announcement>(`/announcements/${id}`, body);
}

/** `DELETE /announcements/:id` (the image goes too). */
export function deleteAnnouncement(id: number): Promise<{ message: string }> {
  return api.delete<{ message: string }>(`/announcements/${id}`);
}

/** `POST /announcements/:id/media-upload`: multipart `file` (+ `typeArch=announcements`, as the product family sends it). */
export function uploadAnnouncementMedia(id: number, file: File): Promise<Announcement> {
  const form = new FormData();
  form.append('typeArch', 'announcements');
  form.append('file', file);
  return api.post<Announcement>(`/announcements/${id}/media-upload`, form);
}

/** `DELETE /announcements/:id/media-upload`: removes the image. */
export function removeAnnouncementMedia(id: number): Promise<Announcement> {
  return api.delete<Announcement>(`/announcements/${id}/media-upload`);
}
