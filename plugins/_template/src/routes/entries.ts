import { errorResponses, IdParams, Type, type PluginApp } from '@atendo/sdk';
import { MyFeatureEntrySchema } from '../contract';
import { CreateEntryBody, EntryPage, ListEntriesQuery } from '../schemas/entries';
import type { EntryStore } from '../services/entries';

const errors = errorResponses(400, 401, 403, 404);

/**
 * The plugin's routes. `app` is the plugin's scope: auth, tenancy and the plugin's plan gate are applied,
 * and handlers get `req.params/query/body` typed from the schemas (no casts). Every query uses
 * `req.auth.companyId`.
 * - `GET /my-feature` ?searchParam&pageNumber (any signed-in user) -> `{records: Entry[], count, hasMore}`,
 *   newest first, MY_FEATURE_PAGE_SIZE a page.
 * - `GET /my-feature/:id` -> Entry; 404 ERR_NO_MY_FEATURE_ENTRY_FOUND.
 * - `POST /my-feature` {title 1..200} -> 200 Entry created by the caller; 400 ERR_VALIDATION.
 * - `DELETE /my-feature/:id` (admin) -> `{message}`; 404 ERR_NO_MY_FEATURE_ENTRY_FOUND.
 */
export async function entryRoutes(app: PluginApp, deps: { store: EntryStore }): Promise<void> {
  const { store } = deps;

  app.get('/my-feature', {
    schema: { tags: ['my-feature'], summary: "A page of the company's entries, newest first", querystring: ListEntriesQuery, response: { 200: EntryPage, ...errors } },
  }, (req) => store.list(req.auth.companyId, req.query));

  app.get('/my-feature/:id', {
    schema: { tags: ['my-feature'], summary: 'One entry', params: IdParams, response: { 200: MyFeatureEntrySchema, ...errors } },
  }, (req) => store.getOr404(req.auth.companyId, req.params.id));

  app.post('/my-feature', {
    schema: { tags: ['my-feature'], summary: 'Create an entry', body: CreateEntryBody, response: { 200: MyFeatureEntrySchema, ...errors } },
  }, (req) => store.create(req.auth.companyId, req.auth.id, req.body.title));

  app.delete('/my-feature/:id', {
    config: { role: 'admin' },
    schema: { tags: ['my-feature'], summary: 'Delete an entry', params: IdParams, response: { 200: Type.Object({ message: Type.String() }), ...errors } },
  }, async (req) => {
    await store.remove(req.auth.companyId, req.params.id);
    return { message: 'Entry deleted' };
  });
}
