import { errorResponses, IdParams, toBool, Type, type PluginApp } from '@atendo/sdk';
import { NotificationSchema } from '../contract';
import { ListNotificationsQuery, NotificationPage } from '../schemas/notifications';
import type { NotificationStore } from '../services/notifications';

const errors = errorResponses(400, 401, 403, 404);

/**
 * The caller's own notifications (any signed-in user; scoped to the caller's company and user):
 * - `GET /notifications` ?pageNumber&unread -> `{records: Notification[], count, unread, hasMore}`, newest first,
 *   NOTIFICATIONS_PAGE_SIZE a page; `unread=true` lists the unread ones only; `unread` is the unread count.
 * - `PUT /notifications/:id/read` -> the Notification with `readAt` set (kept when already read); 404
 *   ERR_NO_NOTIFICATION_FOUND for ids that are not the caller's.
 * - `PUT /notifications/read-all` -> `{updated}`: how many were marked read.
 * Changes push `company-{cid}-notification` `{action: 'read', ids}` to the caller's sockets.
 */
export async function notificationRoutes(app: PluginApp, deps: { store: NotificationStore }): Promise<void> {
  const { store } = deps;

  app.get('/notifications', {
    schema: { tags: ['notifications'], summary: "A page of the caller's notifications, newest first, and the unread count", querystring: ListNotificationsQuery, response: { 200: NotificationPage, ...errors } },
  }, (req) => store.list(req.auth.companyId, req.auth.id, { pageNumber: req.query.pageNumber, unread: toBool(req.query.unread) }));

  app.put('/notifications/read-all', {
    schema: { tags: ['notifications'], summary: "Marks every unread notification of the caller read", response: { 200: Type.Object({ updated: Type.Integer() }, { additionalProperties: false }), ...errors } },
  }, async (req) => ({ updated: await store.markAllRead(req.auth.companyId, req.auth.id) }));

  app.put('/notifications/:id/read', {
    schema: { tags: ['notifications'], summary: 'Marks one of the caller\'s notifications read', params: IdParams, response: { 200: NotificationSchema, ...errors } },
  }, (req) => store.markRead(req.auth.companyId, req.auth.id, req.params.id));
}
