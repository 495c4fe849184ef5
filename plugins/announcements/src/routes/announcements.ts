import type {} from '@fastify/multipart';
import { errorResponses, IdParams, Type, type PluginApp } from '@atendo/sdk';
import { AnnouncementSchema } from '../contract';
import { AnnouncementPage, CreateBody, ListAnnouncementsQuery, UpdateBody } from '../schemas/announcements';
import type { AnnouncementStore } from '../services/announcements';

const errors = errorResponses(400, 401, 403, 404);

/**
 * Announcement routes (spec 3-campaigns-and-tools.md §2 "Announcements admin", §6, §7 "Announcements";
 * 1-platform.md §2/§5/§9; wire-shapes "GET /announcements/"). Announcements are platform-wide: written by
 * super users, read by every signed-in user of every company (no plan flag).
 * - `GET /announcements/` (also without the slash; any signed-in user) ?searchParam (<= 200, on the title,
 *   case-insensitive) &pageNumber (1-based) -> `{records: Announcement[], count, hasMore}`, 20 a page,
 *   highest priority first (1, 2, 3), then newest. Super users get every announcement (the admin list;
 *   `?status=true|false` filters); everybody else gets only the active ones (`status` ignored) — the
 *   top-bar popover reads this route, as the product family's does. No separate "for company" route:
 *   announcements are not per company.
 * - `GET /announcements/:id` (super) -> Announcement; 404 ERR_NO_ANNOUNCEMENT_FOUND.
 * - `POST /announcements/` (super) {title 1..200, text 1..10000 (both required, trimmed, blank -> 400),
 *   priority? 1..3 (default 3), status? (default true)} -> 200 Announcement authored by the caller's company.
 *   `mediaPath`, `mediaName` and `companyId` in the body are ignored.
 * - `PUT /announcements/:id` (super) same fields, all optional -> Announcement; 404 ERR_NO_ANNOUNCEMENT_FOUND.
 * - `DELETE /announcements/:id` (super) -> `{message}`; the image goes too; 404 ERR_NO_ANNOUNCEMENT_FOUND.
 * - `POST /announcements/:id/media-upload` (super) multipart `file` (PNG or JPEG by content, at most 5 MiB;
 *   a `typeArch` field is ignored) -> Announcement with `mediaPath`/`mediaName`; replaces and deletes the
 *   previous image. 400 ERR_VALIDATION without a file part, 413 ERR_PAYLOAD_TOO_LARGE, 415 ERR_UPLOAD_TYPE
 *   (nothing stored), 415 ERR_UNSUPPORTED_MEDIA_TYPE for a non-multipart body.
 * - `DELETE /announcements/:id/media-upload` (super) -> Announcement without image; deletes the file.
 * Non-super callers of the super routes get 403 ERR_NO_PERMISSION (nothing read or stored); no token 401.
 * `targetCompanyIds` (create/update; null or empty: every company) limits who lists and hears it. Every write
 * emits `company-announcement` after commit, only for active announcements and only to the companies they
 * target (`create` when it becomes visible, `update`, `delete` when it stops being visible); drafts reach only
 * super users' sockets.
 */
export async function announcementsRoutes(app: PluginApp, deps: { store: AnnouncementStore }): Promise<void> {
  const { store } = deps;

  for (const url of ['/announcements/', '/announcements']) {
    app.get(url, {
      config: { role: 'user' },
      schema: {
        tags: ['announcements'],
        summary: 'Announcements, 20 a page, highest priority then newest first (super: all; others: active ones)',
        querystring: ListAnnouncementsQuery,
        response: { 200: AnnouncementPage, ...errors },
      },
    }, (req) => store.list(req.auth.super, req.query, req.auth.companyId));
  }

  app.get('/announcements/:id', {
    config: { role: 'super' },
    schema: { tags: ['announcements'], summary: 'One announcement', params: IdParams, response: { 200: AnnouncementSchema, ...errors } },
  }, (req) => store.get(req.params.id));

  for (const url of ['/announcements/', '/announcements']) {
    app.post(url, {
      config: { role: 'super' },
      schema: { tags: ['announcements'], summary: 'Create an announcement', body: CreateBody, response: { 200: AnnouncementSchema, ...errors } },
    }, (req) => store.create(req.auth.companyId, req.body));
  }

  app.put('/announcements/:id', {
    config: { role: 'super' },
    schema: { tags: ['announcements'], summary: 'Update an announcement', params: IdParams, body: UpdateBody, response: { 200: AnnouncementSchema, ...errors } },
  }, (req) => store.update(req.params.id, req.body));

  app.delete('/announcements/:id', {
    config: { role: 'super' },
    schema: { tags: ['announcements'], summary: 'Delete an announcement and its image', params: IdParams, response: { 200: Type.Object({ message: Type.String() }), ...errors } },
  }, async (req) => {
    await store.remove(req.params.id);
    return { message: 'Announcement deleted' };
  });

  app.post('/announcements/:id/media-upload', {
    config: { role: 'super' },
    schema: {
      tags: ['announcements'],
      summary: 'Attach an image (multipart `file`, PNG or JPEG, at most 5 MiB), replacing the previous one',
      consumes: ['multipart/form-data'],
      params: IdParams,
      response: { 200: AnnouncementSchema, ...errorResponses(413, 415), ...errors },
    },
  }, (req) => store.setMedia(req.params.id, () => req.file()));

  app.delete('/announcements/:id/media-upload', {
    config: { role: 'super' },
    schema: { tags: ['announcements'], summary: 'Remove the image', params: IdParams, response: { 200: AnnouncementSchema, ...errors } },
  }, (req) => store.clearMedia(req.params.id));
}
