import { errorResponses, IdParams, Type, type PluginApp } from '@atendo/sdk';
import { QueueIntegrationSchema } from '../contract';
import { IntegrationBody, IntegrationPage, ListIntegrationsQuery, TestSessionBody } from '../schemas/integrations';
import type { IntegrationStore } from '../services/store';

const errors = errorResponses(400, 401, 403, 404);

/**
 * Queue integrations (spec 3-campaigns-and-tools.md "Queue integrations"), behind the plan's
 * `useIntegration`. Reads: any user of the company (the queue and connection modals list them); writes: admin.
 * - `GET /queueIntegration` ?searchParam&pageNumber -> `{queueIntegrations, count, hasMore}` by name.
 * - `GET /queueIntegration/:id` -> QueueIntegration; 404 ERR_NO_INTEGRATION_FOUND.
 * - `POST /queueIntegration` (admin) -> QueueIntegration (with the generated `secret`, once); 400
 *   ERR_VALIDATION, ERR_INTEGRATION_URL_NOT_ALLOWED.
 * - `PUT /queueIntegration/:id` (admin) -> QueueIntegration; 404, 400 as POST.
 * - `DELETE /queueIntegration/:id` (admin) -> `{message}`; 404.
 * - `POST /queueIntegration/testSession` (admin) {projectName, jsonContent, language} (Dialogflow) or
 *   {id} (any stored integration) -> `{message}`; 400 ERR_INTEGRATION_TEST_FAILED with the reason.
 */
export async function integrationRoutes(app: PluginApp, deps: { store: IntegrationStore; test: (companyId: number, body: TestSessionBody) => Promise<string> }): Promise<void> {
  const { store } = deps;
  const tags = ['queueIntegration'];

  app.get('/queueIntegration', {
    schema: { tags, summary: "A page of the company's queue integrations", querystring: ListIntegrationsQuery, response: { 200: IntegrationPage, ...errors } },
  }, (req) => store.list(req.auth.companyId, req.query));

  app.get('/queueIntegration/:id', {
    schema: { tags, summary: 'One queue integration', params: IdParams, response: { 200: QueueIntegrationSchema, ...errors } },
  }, (req) => store.getOr404(req.auth.companyId, req.params.id));

  app.post('/queueIntegration/testSession', {
    config: { role: 'admin' },
    schema: { tags, summary: 'Tries Dialogflow credentials, or a stored integration', body: TestSessionBody, response: { 200: Type.Object({ message: Type.String() }), ...errors } },
  }, async (req) => ({ message: await deps.test(req.auth.companyId, req.body) }));

  app.post('/queueIntegration', {
    config: { role: 'admin' },
    schema: { tags, summary: 'Create a queue integration', body: IntegrationBody, response: { 200: QueueIntegrationSchema, ...errors } },
  }, (req) => store.create(req.auth.companyId, req.body));

  app.put('/queueIntegration/:id', {
    config: { role: 'admin' },
    schema: { tags, summary: 'Update a queue integration', params: IdParams, body: IntegrationBody, response: { 200: QueueIntegrationSchema, ...errors } },
  }, (req) => store.update(req.auth.companyId, req.params.id, req.body));

  app.delete('/queueIntegration/:id', {
    config: { role: 'admin' },
    schema: { tags, summary: 'Delete a queue integration', params: IdParams, response: { 200: Type.Object({ message: Type.String() }), ...errors } },
  }, async (req) => {
    await store.remove(req.auth.companyId, req.params.id);
    return { message: 'Integration deleted' };
  });
}
