import type {} from '@fastify/multipart';
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { AppError, errorResponses, hasRole, IdParams, Type, type AuditService, type PluginApp } from '@atendo/sdk';
import { ConnectionDetailSchema, ConnectionSchema, StatusHistoryEntrySchema } from '../contract';
import { CreateConnectionBody, DeletedAnswer, ListConnectionsQuery, StatusHistoryQuery, UpdateConnectionBody } from '../schemas/connections';
import type { ConnectionStore } from '../services/connections';

const errors = errorResponses(400, 401, 403, 404, 409);

/**
 * Connection routes (spec 2-tickets.md §2 "Connections page", §3, §5, §7 "Connections"; wire-shapes
 * "GET /whatsapp", "POST /whatsapp"). Answers never carry the session blob, the Meta tokens or `tokenMeta`;
 * `hasToken` says whether a Meta token is stored. The external-API `token` and the QR code are shown to
 * admins only (other users get no `token` and `qrcode: ''`).
 *
 * - `GET /whatsapp`, `GET /whatsapp/` (any signed-in user) -> `Connection[]` of the caller's company, by id,
 *   each with `queues: [{id, name, color, greetingMessage}]`. The `session` and `companyId` query
 *   parameters of old clients are accepted and ignored.
 * - `GET /whatsapp/:id` (any signed-in user) -> `Connection` (+ `token` for admins) whose queues also carry
 *   `integrationId`, `fileListId`, `closeTicket`, `promptId` and `chatbots` [{id, name, greetingMessage,
 *   closeTicket}], and `prompt` (null); 404 ERR_NO_WAPP_FOUND.
 * - `POST /whatsapp` (admin) -> 200 `Connection & {token}`. 400 ERR_VALIDATION, ERR_WAPP_GREETING_REQUIRED,
 *   ERR_PLAN_LIMIT_REACHED; 403 ERR_FEATURE_NOT_IN_PLAN (channel flag); 404 ERR_NO_QUEUE_FOUND; 409
 *   ERR_DUPLICATED_NAME, ERR_DUPLICATED_TOKEN, ERR_DUPLICATED_EXTERNAL_ACCOUNT.
 * - `PUT /whatsapp/:id` (admin) -> 200 `Connection & {token}`; the same errors plus 404 ERR_NO_WAPP_FOUND and
 *   400 ERR_NO_OTHER_WHATSAPP (unsetting the default).
 * - `DELETE /whatsapp/:id` (admin) -> 200 `{message}`; 404 ERR_NO_WAPP_FOUND.
 * - `POST /whatsapp/:id/media-upload` (admin) multipart `file`: the greeting media (image, audio, video or
 *   document by content, at most 16 MiB) -> 200 `Connection & {token}` with `greetingMediaAttachment` its
 *   stored path; 415 ERR_UPLOAD_TYPE, 413 ERR_PAYLOAD_TOO_LARGE, 400 ERR_VALIDATION (no file), 404.
 * - `DELETE /whatsapp/:id/media-upload` (admin) -> 200 `Connection & {token}` without greeting media.
 * - `GET /whatsapp/:id/status-history?limit=` (admin) -> 200 `{records: [{id, status, previousStatus, reason,
 *   retries, createdAt}]}`, newest first, `limit` 1..200 (default 50); 404 ERR_NO_WAPP_FOUND.
 * Every write is audited (issue 34): `connection` create/update/delete, and the external-API token's life as
 * `api-token` create/revoke (its fingerprint only).
 * Non-admin callers of the writes get 403 ERR_NO_PERMISSION. Writes push `company-{id}-whatsapp`
 * `{action:'update', whatsapp}` / `{action:'delete', whatsappId}` after commit.
 */
/**
 * A token's fingerprint in the audit log (issue 34): the first 8 hex digits of its SHA-256, never the token
 * (the messages-api plugin labels the sends made with it the same way).
 */
export function tokenFingerprint(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 8);
}

export async function connectionsRoutes(app: PluginApp, deps: { store: ConnectionStore; audit?: AuditService }): Promise<void> {
  const { store } = deps;
  /**
   * The external-API token's life in the audit log (issue 34; entity `api-token`, id the connection's):
   * `create` when a connection gets one, `revoke` when it is replaced (then `create` for the new one) or
   * the connection is deleted; `after`/`before` carry the fingerprint only.
   */
  const auditToken = async (req: FastifyRequest, connectionId: number, before: string | null | undefined, after: string | null | undefined) => {
    if (!deps.audit || (before ?? '') === (after ?? '')) return;
    if (before) await deps.audit.record({ req, entity: 'api-token', entityId: connectionId, action: 'revoke', before: { fingerprint: tokenFingerprint(before) } });
    if (after) await deps.audit.record({ req, entity: 'api-token', entityId: connectionId, action: 'create', after: { fingerprint: tokenFingerprint(after) } });
  };

  const list = {
    schema: { tags: ['connections'], summary: "The company's connections", querystring: ListConnectionsQuery, response: { 200: Type.Array(ConnectionSchema), ...errors } },
  };
  for (const url of ['/whatsapp', '/whatsapp/']) {
    app.get(url, list, async (req) => store.list(req.auth.companyId, { withQrcode: hasRole(req.auth, 'admin') }));
  }

  app.get('/whatsapp/:id', {
    schema: { tags: ['connections'], summary: 'One connection', params: IdParams, querystring: ListConnectionsQuery, response: { 200: ConnectionDetailSchema, ...errors } },
  }, async (req) => {
    const { id } = req.params;
    const admin = hasRole(req.auth, 'admin');
    const connection = await store.get(req.auth.companyId, id, { withToken: admin, withQrcode: admin });
    if (!connection) throw new AppError('ERR_NO_WAPP_FOUND');
    return { ...connection, queues: await store.detailedQueues(req.auth.companyId, connection.queues), prompt: null };
  });

  app.get('/whatsapp/:id/status-history', {
    config: { role: 'admin' },
    schema: {
      tags: ['connections'],
      summary: "A connection's status changes, newest first (connected, dropped, QR needed...), with the reason when known",
      params: IdParams,
      querystring: StatusHistoryQuery,
      response: { 200: Type.Object({ records: Type.Array(StatusHistoryEntrySchema) }, { additionalProperties: false }), ...errors },
    },
  }, async (req) => {
    const records = await store.statusHistory(req.auth.companyId, req.params.id, req.query.limit ?? 50);
    if (!records) throw new AppError('ERR_NO_WAPP_FOUND');
    return { records };
  });

  app.post('/whatsapp', {
    config: { role: 'admin' },
    schema: { tags: ['connections'], summary: 'Create a connection', body: CreateConnectionBody, response: { 200: ConnectionSchema, ...errors } },
  }, async (req) => {
    const created = await store.create(req.auth.companyId, req.body);
    await deps.audit?.record({ req, entity: 'connection', entityId: created.id, action: 'create', after: created });
    await auditToken(req, created.id, null, (created as { token?: string }).token);
    return created;
  });

  app.post('/whatsapp/:id/media-upload', {
    config: { role: 'admin' },
    schema: {
      tags: ['connections'],
      summary: 'Attach the greeting media (multipart `file`: image, audio, video or document, at most 16 MiB), replacing the previous one',
      consumes: ['multipart/form-data'],
      params: IdParams,
      response: { 200: ConnectionSchema, ...errorResponses(413, 415), ...errors },
    },
  }, async (req) => {
    const updated = await store.setGreetingMedia(req.auth.companyId, req.params.id, () => req.file());
    await deps.audit?.record({ req, entity: 'connection', entityId: req.params.id, action: 'update', after: { greetingMediaAttachment: updated.greetingMediaAttachment ?? null } });
    return updated;
  });

  app.delete('/whatsapp/:id/media-upload', {
    config: { role: 'admin' },
    schema: { tags: ['connections'], summary: 'Remove the greeting media', params: IdParams, response: { 200: ConnectionSchema, ...errors } },
  }, async (req) => {
    const updated = await store.clearGreetingMedia(req.auth.companyId, req.params.id);
    await deps.audit?.record({ req, entity: 'connection', entityId: req.params.id, action: 'update', after: { greetingMediaAttachment: null } });
    return updated;
  });

  app.put('/whatsapp/:id', {
    config: { role: 'admin' },
    schema: { tags: ['connections'], summary: 'Update a connection', params: IdParams, body: UpdateConnectionBody, response: { 200: ConnectionSchema, ...errors } },
  }, async (req) => {
    const { id } = req.params;
    const before = await store.get(req.auth.companyId, id, { withToken: true });
    const updated = await store.update(req.auth.companyId, id, req.body);
    await deps.audit?.record({ req, entity: 'connection', entityId: id, action: 'update', before: before, after: updated });
    await auditToken(req, id, (before as { token?: string } | undefined)?.token, (updated as { token?: string }).token);
    return updated;
  });

  app.delete('/whatsapp/:id', {
    config: { role: 'admin' },
    schema: { tags: ['connections'], summary: 'Delete a connection', params: IdParams, response: { 200: DeletedAnswer, ...errors } },
  }, async (req) => {
    const { id } = req.params;
    const before = await store.get(req.auth.companyId, id, { withToken: true });
    await store.remove(req.auth.companyId, id);
    await deps.audit?.record({ req, entity: 'connection', entityId: id, action: 'delete', before: before });
    await auditToken(req, id, (before as { token?: string } | undefined)?.token, null);
    return { message: 'Connection deleted' };
  });
}
