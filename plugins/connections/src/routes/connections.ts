import type { FastifyInstance } from 'fastify';
import { AppError, ErrorResponse, hasRole, IdParams, Type } from '@atendo/sdk';
import {
  ConnectionSchema,
  CreateConnectionBody,
  DeletedAnswer,
  ListConnectionsQuery,
  UpdateConnectionBody,
  type ConnectionBody,
} from '../schemas/connections';
import type { ConnectionStore } from '../services/connections';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };

/**
 * Connection routes (spec 2-tickets.md §2 "Connections page", §3, §5, §7 "Connections"; wire-shapes
 * "GET /whatsapp", "POST /whatsapp"). Answers never carry the session blob, the Meta tokens or `tokenMeta`;
 * `hasToken` says whether a Meta token is stored. The external-API `token` and the QR code are shown to
 * admins only (other users get no `token` and `qrcode: ''`).
 *
 * - `GET /whatsapp`, `GET /whatsapp/` (any signed-in user) -> `Connection[]` of the caller's company, by id,
 *   each with `queues: [{id, name, color, greetingMessage}]`. The `session` and `companyId` query
 *   parameters of old clients are accepted and ignored.
 * - `GET /whatsapp/:id` (any signed-in user) -> `Connection` (+ `token` for admins); 404 ERR_NO_WAPP_FOUND.
 * - `POST /whatsapp` (admin) -> 200 `Connection & {token}`. 400 ERR_VALIDATION, ERR_WAPP_GREETING_REQUIRED,
 *   ERR_PLAN_LIMIT_REACHED; 403 ERR_FEATURE_NOT_IN_PLAN (channel flag); 404 ERR_NO_QUEUE_FOUND; 409
 *   ERR_DUPLICATED_NAME, ERR_DUPLICATED_TOKEN, ERR_DUPLICATED_EXTERNAL_ACCOUNT.
 * - `PUT /whatsapp/:id` (admin) -> 200 `Connection & {token}`; the same errors plus 404 ERR_NO_WAPP_FOUND and
 *   400 ERR_NO_OTHER_WHATSAPP (unsetting the default).
 * - `DELETE /whatsapp/:id` (admin) -> 200 `{message}`; 404 ERR_NO_WAPP_FOUND.
 * Non-admin callers of the writes get 403 ERR_NO_PERMISSION. Writes push `company-{id}-whatsapp`
 * `{action:'update', whatsapp}` / `{action:'delete', whatsappId}` after commit.
 */
export async function connectionsRoutes(app: FastifyInstance, deps: { store: ConnectionStore }): Promise<void> {
  const { store } = deps;

  const list = {
    schema: { tags: ['connections'], summary: "The company's connections", querystring: ListConnectionsQuery, response: { 200: Type.Array(ConnectionSchema), ...errors } },
  };
  for (const url of ['/whatsapp', '/whatsapp/']) {
    app.get(url, list, async (req) => store.list(req.auth.companyId, { withQrcode: hasRole(req.auth, 'admin') }));
  }

  app.get('/whatsapp/:id', {
    schema: { tags: ['connections'], summary: 'One connection', params: IdParams, querystring: ListConnectionsQuery, response: { 200: ConnectionSchema, ...errors } },
  }, async (req) => {
    const { id } = req.params as IdParams;
    const admin = hasRole(req.auth, 'admin');
    const connection = await store.get(req.auth.companyId, id, { withToken: admin, withQrcode: admin });
    if (!connection) throw new AppError('ERR_NO_WAPP_FOUND');
    return connection;
  });

  app.post('/whatsapp', {
    config: { role: 'admin' },
    schema: { tags: ['connections'], summary: 'Create a connection', body: CreateConnectionBody, response: { 200: ConnectionSchema, ...errors } },
  }, async (req) => store.create(req.auth.companyId, req.body as ConnectionBody & { name: string }));

  app.put('/whatsapp/:id', {
    config: { role: 'admin' },
    schema: { tags: ['connections'], summary: 'Update a connection', params: IdParams, body: UpdateConnectionBody, response: { 200: ConnectionSchema, ...errors } },
  }, async (req) => {
    const { id } = req.params as IdParams;
    return store.update(req.auth.companyId, id, req.body as ConnectionBody);
  });

  app.delete('/whatsapp/:id', {
    config: { role: 'admin' },
    schema: { tags: ['connections'], summary: 'Delete a connection', params: IdParams, response: { 200: DeletedAnswer, ...errors } },
  }, async (req) => {
    const { id } = req.params as IdParams;
    await store.remove(req.auth.companyId, id);
    return { message: 'Connection deleted' };
  });
}
