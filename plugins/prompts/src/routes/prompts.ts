import { errorResponses, IdParams, Type, type PluginApp } from '@atendo/sdk';
import { PromptSchema } from '../contract';
import { PromptBody, PromptList } from '../schemas/prompts';
import type { PromptStore } from '../services/store';

const errors = errorResponses(400, 401, 403, 404);

/**
 * AI prompts (spec 3-campaigns-and-tools.md "AI prompts"), behind the plan's `useOpenAi`. Reads: any user
 * (the queue and connection modals list them); writes: admin.
 * - `GET /prompt` -> `{prompts, count, hasMore: false}` by name (keys masked).
 * - `GET /prompt/:id` -> Prompt; 404 ERR_NO_PROMPT_FOUND.
 * - `POST /prompt` (admin) -> Prompt; 400 ERR_VALIDATION, ERR_PROMPT_QUEUE_REQUIRED; 404 ERR_NO_QUEUE_FOUND.
 * - `PUT /prompt/:id` (admin) -> Prompt; as POST, 404 ERR_NO_PROMPT_FOUND.
 * - `DELETE /prompt/:id` (admin) -> `{message: 'Prompt deleted'}`; 404.
 */
export async function promptRoutes(app: PluginApp, deps: { store: PromptStore }): Promise<void> {
  const { store } = deps;
  const tags = ['prompt'];
  app.get('/prompt', { schema: { tags, summary: "The company's AI prompts", response: { 200: PromptList, ...errors } } }, (req) => store.list(req.auth.companyId));
  app.get('/prompt/:id', { schema: { tags, summary: 'One AI prompt', params: IdParams, response: { 200: PromptSchema, ...errors } } }, (req) => store.getOr404(req.auth.companyId, req.params.id));
  app.post('/prompt', { config: { role: 'admin' }, schema: { tags, summary: 'Create an AI prompt', body: PromptBody, response: { 200: PromptSchema, ...errors } } }, (req) => store.create(req.auth.companyId, req.body));
  app.put('/prompt/:id', { config: { role: 'admin' }, schema: { tags, summary: 'Update an AI prompt', params: IdParams, body: PromptBody, response: { 200: PromptSchema, ...errors } } }, (req) => store.update(req.auth.companyId, req.params.id, req.body));
  app.delete('/prompt/:id', { config: { role: 'admin' }, schema: { tags, summary: 'Delete an AI prompt', params: IdParams, response: { 200: Type.Object({ message: Type.String() }), ...errors } } }, async (req) => {
    await store.remove(req.auth.companyId, req.params.id);
    return { message: 'Prompt deleted' };
  });
}
