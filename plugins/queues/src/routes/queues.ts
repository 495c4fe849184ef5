import { AppError, errorResponses, IdParams, Type, type AuditService, type PluginApp, type Realtime } from '@atendo/sdk';
import { queueEventName, QueueSchema, QueueWithChatbotsSchema, type QueueEvent } from '../contract';
import type { QueueInput, QueueStore } from '../services/queues';
import { CreateQueueBody, ListQueueQuery, toQueueChatbots, toQueueInput, UpdateQueueBody } from '../schemas/queues';

/**
 * Queue routes (spec 2-tickets.md §2 "Queues", §7 "Queues and chatbot"; wire-shapes "GET /queue"):
 * - `GET /queue` (any signed-in user) -> `Queue[]` of the caller's company, ordered by `orderQueue` (nulls
 *   last) then id. The `companyId` query parameter of old clients is ignored.
 * - `GET /queue/:id` (any signed-in user) -> `Queue & {chatbots: ChatbotNode[]}` (the ordered option tree,
 *   sub-options under `options`); 404 ERR_NO_QUEUE_FOUND.
 * - `POST /queue` (admin) -> 200 `Queue & {chatbots}`; 400 ERR_PLAN_LIMIT_REACHED at the plan's `queues`
 *   limit; 409 ERR_QUEUE_NAME_ALREADY_EXISTS / ERR_QUEUE_COLOR_ALREADY_EXISTS.
 * - `PUT /queue/:id` (admin) -> 201 `Queue & {chatbots}` (as the old API); same errors, plus 404.
 *   With `chatbots`, POST and PUT upsert the option tree in the queue's transaction (order = array index;
 *   options missing from the body are deleted; an item without `options` keeps its sub-options). Option
 *   errors: 400 ERR_VALIDATION (name under 4 characters, 'queue' without optQueueId, 'attendent' without
 *   optUserId, deeper than 5 levels, duplicated ids), 404 ERR_NO_CHATBOT_FOUND (an id of another queue or
 *   company), 404 ERR_NO_QUEUE_FOUND / ERR_NO_USER_FOUND (optQueueId / optUserId outside the company).
 * - `DELETE /queue/:id` (admin) -> 200 `{message}`; memberships and chatbot options go with it; 404.
 * Writes emit `company-{id}-queue` `{action:'update', queue (with chatbots)}` / `{action:'delete', queueId}`
 * after commit.
 */
export async function queuesRoutes(app: PluginApp, deps: { store: QueueStore; realtime: Realtime; audit?: AuditService }): Promise<void> {
  const { store, realtime } = deps;
  const emit = (companyId: number, payload: QueueEvent) => realtime.emitToCompany(companyId, queueEventName(companyId), payload);

  app.get('/queue', {
    schema: { tags: ['queues'], summary: "The company's queues", querystring: ListQueueQuery, response: { 200: Type.Array(QueueSchema), ...errorResponses(400, 401, 403) } },
  }, async (req) => store.list(req.auth.companyId));

  app.get('/queue/:id', {
    schema: { tags: ['queues'], summary: 'One queue with its chatbot options', params: IdParams, response: { 200: QueueWithChatbotsSchema, ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => {
    const { id } = req.params;
    const queue = await store.getWithChatbots(req.auth.companyId, id);
    if (!queue) throw new AppError('ERR_NO_QUEUE_FOUND');
    return queue;
  });

  app.post('/queue', {
    config: { role: 'admin' },
    schema: { tags: ['queues'], summary: 'Create a queue', body: CreateQueueBody, response: { 200: QueueWithChatbotsSchema, ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req) => {
    const companyId = req.auth.companyId;
    const input = toQueueInput(req.body) as QueueInput & { name: string; color: string };
    const queue = await store.create(companyId, input, toQueueChatbots(req.body));
    await deps.audit?.record({ req, entity: 'queue', entityId: queue.id, action: 'create', after: queue });
    emit(companyId, { action: 'update', queue });
    return queue;
  });

  app.put('/queue/:id', {
    config: { role: 'admin' },
    schema: { tags: ['queues'], summary: 'Update a queue', params: IdParams, body: UpdateQueueBody, response: { 201: QueueWithChatbotsSchema, ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req, reply) => {
    const companyId = req.auth.companyId;
    const { id } = req.params;
    const before = await store.getWithChatbots(companyId, id);
    const queue = await store.update(companyId, id, toQueueInput(req.body), toQueueChatbots(req.body));
    await deps.audit?.record({ req, entity: 'queue', entityId: id, action: 'update', before, after: queue });
    emit(companyId, { action: 'update', queue });
    return reply.status(201).send(queue);
  });

  app.delete('/queue/:id', {
    config: { role: 'admin' },
    schema: { tags: ['queues'], summary: 'Delete a queue', params: IdParams, response: { 200: Type.Object({ message: Type.String() }), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => {
    const companyId = req.auth.companyId;
    const { id } = req.params;
    const before = await store.getWithChatbots(companyId, id);
    await store.remove(companyId, id);
    await deps.audit?.record({ req, entity: 'queue', entityId: id, action: 'delete', before });
    emit(companyId, { action: 'delete', queueId: id });
    return { message: 'Queue deleted' };
  });
}
