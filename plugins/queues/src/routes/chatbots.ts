import { AppError, errorResponses, IdParams, Type, type AuditService, type PluginApp, type Realtime } from '@atendo/sdk';
import { ChatbotSchema, queueEventName, type QueueEvent } from '../contract';
import type { ChatbotStore } from '../services/chatbots';
import type { QueueStore } from '../services/queues';
import { CreateChatbotBody, UpdateChatbotBody, toChatbotInput, toOptId } from '../schemas/chatbots';

/**
 * Chatbot option routes (spec 2-tickets.md §3 "Chatbot option", §4 "Chatbot option tree", §7 "Queues and
 * chatbot"). Every id is looked up in the caller's company only: options, queues and users of another
 * company answer 404 as if they did not exist.
 *
 * - `GET /chatbot/:id` (any signed-in user) -> 200 `Chatbot & {options}` (its ordered subtree);
 *   404 ERR_NO_CHATBOT_FOUND.
 * - `POST /chatbot` (admin) `{name, greetingMessage?, queueId | chatbotId, queueType?, optQueueId?,
 *   optUserId?, optIntegrationId?, optFileId?, closeTicket?, isAgent?, options?}` -> 200 the new option
 *   (appended after its siblings) with its subtree. Exactly one parent: `queueId` (a root option; 404
 *   ERR_NO_QUEUE_FOUND) or `chatbotId` (a sub-option; 404 ERR_NO_CHATBOT_FOUND), else 400 ERR_VALIDATION.
 * - `PUT /chatbot/:id` (admin) any option field, and `options` to upsert its sub-options (as the queue's
 *   `chatbots`: missing ones deleted) -> 200 the option with its subtree; 404 ERR_NO_CHATBOT_FOUND.
 * - `DELETE /chatbot/:id` (admin) -> 200 `{message: 'Chatbot deleted'}`; the subtree goes with it.
 * Option rules as for POST /queue: name 4..100 characters; 'queue' needs optQueueId and 'attendent'
 * optUserId (400 ERR_VALIDATION); optQueueId / optUserId must be of the company (404 ERR_NO_QUEUE_FOUND /
 * ERR_NO_USER_FOUND); trees are at most 5 levels deep (400 ERR_VALIDATION).
 * Every write emits `company-{id}-queue` `{action: 'update', queue}` (the option's queue with its chatbot
 * tree) after commit.
 */
export async function chatbotRoutes(app: PluginApp, deps: { store: QueueStore; chatbots: ChatbotStore; realtime: Realtime; audit?: AuditService }): Promise<void> {
  const { store, chatbots, realtime } = deps;
  const ERRORS = errorResponses(400, 401, 403, 404);
  const emitQueue = async (companyId: number, queueId: number) => {
    const queue = await store.getWithChatbots(companyId, queueId);
    if (queue) realtime.emitToCompany(companyId, queueEventName(companyId), { action: 'update', queue } satisfies QueueEvent);
  };
  /** An option's own fields for the audit log (issue 34: a queue's chatbot menu is part of its configuration). */
  const fields = (o: object | undefined | null, queueId: number) => {
    if (!o) return null;
    const { options: _sub, createdAt: _c, updatedAt: _u, ...own } = o as Record<string, unknown>;
    return { ...own, menuOfQueueId: queueId };
  };

  app.get('/chatbot/:id', {
    schema: { tags: ['queues'], summary: 'One chatbot option with its sub-options', params: IdParams, response: { 200: ChatbotSchema(1), ...ERRORS } },
  }, async (req) => {
    const { id } = req.params;
    const option = await chatbots.getOption(req.auth.companyId, id);
    if (!option) throw new AppError('ERR_NO_CHATBOT_FOUND');
    return option;
  });

  app.post('/chatbot', {
    config: { role: 'admin' },
    schema: { tags: ['queues'], summary: 'Create a chatbot option', body: CreateChatbotBody, response: { 200: ChatbotSchema(1), ...ERRORS } },
  }, async (req) => {
    const companyId = req.auth.companyId;
    const body = req.body;
    const queueId = toOptId(body.queueId, 'queueId');
    const chatbotId = toOptId(body.chatbotId, 'chatbotId');
    if ((queueId ?? null) === null && (chatbotId ?? null) === null) throw new AppError('ERR_VALIDATION', 'queueId or chatbotId is required');
    if ((queueId ?? null) !== null && (chatbotId ?? null) !== null) throw new AppError('ERR_VALIDATION', 'give queueId or chatbotId, not both');
    const parent = queueId ? { queueId } : { chatbotId: chatbotId! };
    const result = await chatbots.create(companyId, toChatbotInput(body), parent);
    await deps.audit?.record({ req, entity: 'chatbot', entityId: result.option.id, action: 'create', after: fields(result.option, result.queueId) });
    await emitQueue(companyId, result.queueId);
    return result.option;
  });

  app.put('/chatbot/:id', {
    config: { role: 'admin' },
    schema: { tags: ['queues'], summary: 'Update a chatbot option', params: IdParams, body: UpdateChatbotBody, response: { 200: ChatbotSchema(1), ...ERRORS } },
  }, async (req) => {
    const companyId = req.auth.companyId;
    const { id } = req.params;
    const before = await chatbots.getOption(companyId, id);
    const result = await chatbots.update(companyId, id, toChatbotInput(req.body));
    await deps.audit?.record({ req, entity: 'chatbot', entityId: id, action: 'update', before: fields(before, result.queueId), after: fields(result.option, result.queueId) });
    await emitQueue(companyId, result.queueId);
    return result.option;
  });

  app.delete('/chatbot/:id', {
    config: { role: 'admin' },
    schema: { tags: ['queues'], summary: 'Delete a chatbot option and its sub-options', params: IdParams, response: { 200: Type.Object({ message: Type.String() }), ...ERRORS } },
  }, async (req) => {
    const companyId = req.auth.companyId;
    const { id } = req.params;
    const before = await chatbots.getOption(companyId, id);
    const { queueId } = await chatbots.remove(companyId, id);
    await deps.audit?.record({ req, entity: 'chatbot', entityId: id, action: 'delete', before: fields(before, queueId) });
    await emitQueue(companyId, queueId);
    return { message: 'Chatbot deleted' };
  });
}
