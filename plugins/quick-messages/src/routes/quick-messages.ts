import type {} from '@fastify/multipart';
import { errorResponses, IdParams, Type, type PluginApp } from '@atendo/sdk';
import { QuickMessageSchema } from '../contract';
import { CreateBody, ListQuickQuery, QuickMessagePage, ShortcutQuery, UpdateBody } from '../schemas/quick-messages';
import type { QuickMessageStore } from '../services/quick-messages';

const errors = errorResponses(400, 401, 403, 404, 409);

/**
 * Quick-message routes (spec 2-tickets.md §2, §3, §6, §7 "Quick messages"; wire-shapes "GET /quick-messages").
 * Every route is open to any signed-in user of the company (`role: 'user'`); the permission rules run per
 * record. Every query is scoped to the caller's company; another company's id answers 404
 * ERR_NO_QUICK_MESSAGE_FOUND.
 * - `GET /quick-messages` (also `GET /quick-messages/`) ?searchParam (<= 200, on shortcode and message,
 *   case-insensitive) &pageNumber -> `{records: QuickMessage[], count, hasMore}`, 20 a page, by shortcode.
 *   `companyId`/`userId` ignored.
 * - `GET /quick-messages/list` -> `QuickMessage[]` for the "/" shortcut: active general ones plus the
 *   caller's own active ones, by shortcode.
 * - `GET /quick-messages/:id` -> QuickMessage.
 * - `POST /quick-messages` {shortcode 1..50, message? <= 10000, geral?, status? (default true)} -> 200
 *   QuickMessage owned by the caller. 403 ERR_NO_PERMISSION when a user sets `geral`; 409
 *   ERR_DUPLICATED_NAME for a shortcode already used in the company (case-insensitive).
 * - `PUT /quick-messages/:id` same fields, all optional -> QuickMessage. Users may change only their own
 *   non-general ones and may not set `geral` (403 ERR_NO_PERMISSION); admins and supervisors any.
 * - `DELETE /quick-messages/:id` -> `{message}`; same permission; the media file goes too.
 * - `POST /quick-messages/:id/media-upload` multipart `file` (images, audio, video, PDF, office documents,
 *   up to UPLOAD_LIMIT) -> QuickMessage with `mediaPath`/`mediaName`/`mediaType`; replaces and deletes the
 *   previous file. 400 ERR_VALIDATION without a file part, 413 ERR_PAYLOAD_TOO_LARGE, 415 ERR_UPLOAD_TYPE,
 *   415 ERR_UNSUPPORTED_MEDIA_TYPE for a non-multipart body.
 * - `DELETE /quick-messages/:id/media-upload` -> QuickMessage without media; deletes the file.
 * Writes emit `company-{cid}-quickmessage` after commit: `{action: 'create'|'update', record}` or
 * `{action: 'delete', id}`.
 */
export async function quickMessagesRoutes(app: PluginApp, deps: { store: QuickMessageStore }): Promise<void> {
  const { store } = deps;

  // Clients of the product family call the list with a trailing slash (`GET /quick-messages/`): both serve it.
  for (const url of ['/quick-messages', '/quick-messages/']) {
    app.get(url, {
      config: { role: 'user' },
      schema: { tags: ['quick-messages'], summary: "The company's quick messages, 20 a page, by shortcode", querystring: ListQuickQuery, response: { 200: QuickMessagePage, ...errors } },
    }, (req) => store.list(req.auth.companyId, req.query));
  }

  app.get('/quick-messages/list', {
    config: { role: 'user' },
    schema: { tags: ['quick-messages'], summary: "The '/' shortcut list: active general quick messages and the caller's own", querystring: ShortcutQuery, response: { 200: Type.Array(QuickMessageSchema), ...errors } },
  }, (req) => store.shortcuts(req.auth.companyId, req.auth.id));

  app.get('/quick-messages/:id', {
    config: { role: 'user' },
    schema: { tags: ['quick-messages'], summary: 'One quick message', params: IdParams, response: { 200: QuickMessageSchema, ...errors } },
  }, (req) => store.get(req.auth.companyId, req.params.id));

  app.post('/quick-messages', {
    config: { role: 'user' },
    schema: { tags: ['quick-messages'], summary: 'Create a quick message', body: CreateBody, response: { 200: QuickMessageSchema, ...errors } },
  }, (req) => store.create(req.auth, req.body));

  app.put('/quick-messages/:id', {
    config: { role: 'user' },
    schema: { tags: ['quick-messages'], summary: 'Update a quick message', params: IdParams, body: UpdateBody, response: { 200: QuickMessageSchema, ...errors } },
  }, (req) => store.update(req.auth, req.params.id, req.body));

  app.delete('/quick-messages/:id', {
    config: { role: 'user' },
    schema: { tags: ['quick-messages'], summary: 'Delete a quick message and its media', params: IdParams, response: { 200: Type.Object({ message: Type.String() }), ...errors } },
  }, async (req) => {
    await store.remove(req.auth, req.params.id);
    return { message: 'Quick message deleted' };
  });

  app.post('/quick-messages/:id/media-upload', {
    config: { role: 'user' },
    schema: {
      tags: ['quick-messages'],
      summary: 'Attach a media file (multipart `file`), replacing the previous one',
      consumes: ['multipart/form-data'],
      params: IdParams,
      response: { 200: QuickMessageSchema, ...errorResponses(413, 415), ...errors },
    },
  }, (req) => store.setMedia(req.auth, req.params.id, () => req.file()));

  app.delete('/quick-messages/:id/media-upload', {
    config: { role: 'user' },
    schema: { tags: ['quick-messages'], summary: 'Remove the media file', params: IdParams, response: { 200: QuickMessageSchema, ...errors } },
  }, (req) => store.clearMedia(req.auth, req.params.id));
}
