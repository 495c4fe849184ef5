import { errorResponses, IdParams, Type, type PluginApp } from '@atendo/sdk';
import { PlantaoSchema } from '../contract';
import { PlantaoBody, PlantaoList } from '../schemas/plantao';
import type { PlantaoStore } from '../services/plantao';

const errors = errorResponses(400, 401, 403, 404);
const tags = ['plantao'];

/**
 * The on-duty roster (spec 3-campaigns-and-tools.md, On-duty roster; calls GET/POST /plantao, GET/PUT/DELETE
 * /plantao/{id}). Any signed-in user of the company reads; admins and supervisors write.
 * - `GET /plantao` -> Plantao[] by id.
 * - `GET /plantao/:id` -> Plantao; 404 ERR_NO_PLANTAO_FOUND.
 * - `POST /plantao` PlantaoBody -> Plantao; 400 ERR_VALIDATION with the spec's messages; 404 ERR_NO_USER_FOUND.
 * - `PUT /plantao/:id` PlantaoBody -> Plantao; as POST, plus 404 ERR_NO_PLANTAO_FOUND.
 * - `DELETE /plantao/:id` -> `{message: 'Plantão removido com sucesso.'}`; 404 ERR_NO_PLANTAO_FOUND.
 */
export async function plantaoRoutes(app: PluginApp, deps: { store: PlantaoStore }): Promise<void> {
  const { store } = deps;
  app.get('/plantao', { schema: { tags, summary: "The company's on-duty roster", response: { 200: PlantaoList, ...errors } } }, (req) => store.list(req.auth.companyId));
  app.get('/plantao/:id', { schema: { tags, summary: 'One on-duty entry', params: IdParams, response: { 200: PlantaoSchema, ...errors } } }, (req) => store.get(req.auth.companyId, req.params.id));
  app.post('/plantao', {
    config: { role: 'supervisor' },
    schema: { tags, summary: 'Add an on-duty person', body: PlantaoBody, response: { 200: PlantaoSchema, ...errors } },
  }, (req) => store.create(req.auth.companyId, req.body));
  app.put('/plantao/:id', {
    config: { role: 'supervisor' },
    schema: { tags, summary: 'Change an on-duty entry', params: IdParams, body: PlantaoBody, response: { 200: PlantaoSchema, ...errors } },
  }, (req) => store.update(req.auth.companyId, req.params.id, req.body));
  app.delete('/plantao/:id', {
    config: { role: 'supervisor' },
    schema: { tags, summary: 'Remove an on-duty entry', params: IdParams, response: { 200: Type.Object({ message: Type.String() }), ...errors } },
  }, async (req) => {
    await store.remove(req.auth.companyId, req.params.id);
    return { message: 'Plantão removido com sucesso.' };
  });
}
