import { errorResponses, IdParams, Type, type PluginApp } from '@atendo/sdk';
import { HelpSchema } from '../contract';
import { CreateHelpBody, UpdateHelpBody } from '../schemas/helps';
import type { HelpStore } from '../services/helps';

const errors = errorResponses(400, 401, 403, 404);

/**
 * Help routes (spec 1-platform.md §2 "Plans admin and helps admin", §3 "Help", §6, §7): help videos shown
 * on /helps to every signed-in user, managed by super users. Help entries are platform-wide.
 * - `GET /helps`, `GET /helps/list` (any signed-in user) -> `Help[]` ordered by title.
 * - `GET /helps/:id` (any signed-in user) -> Help; 404 ERR_NO_HELP_FOUND.
 * - `POST /helps` (super) {title 1..200, video? <= 200, description? <= 5000, link?} -> 201 Help.
 * - `PUT /helps/:id` (super) same fields, all optional -> Help; 404 ERR_NO_HELP_FOUND.
 * - `DELETE /helps/:id` (super) -> 200 the deleted Help; 404 ERR_NO_HELP_FOUND.
 * Non-super callers of the writes get 403 ERR_NO_PERMISSION. No realtime events: the lists refresh over REST.
 */
export async function helpsRoutes(app: PluginApp, deps: { store: HelpStore }): Promise<void> {
  const { store } = deps;

  for (const url of ['/helps', '/helps/list']) {
    app.get(url, {
      schema: { tags: ['helps'], summary: 'Every help entry, ordered by title', response: { 200: Type.Array(HelpSchema), ...errors } },
    }, () => store.list());
  }

  app.get('/helps/:id', {
    schema: { tags: ['helps'], summary: 'One help entry', params: IdParams, response: { 200: HelpSchema, ...errors } },
  }, (req) => store.get(req.params.id));

  app.post('/helps', {
    config: { role: 'super' },
    schema: { tags: ['helps'], summary: 'Create a help entry', body: CreateHelpBody, response: { 201: HelpSchema, ...errors } },
  }, async (req, reply) => reply.status(201).send(await store.create(req.body)));

  app.put('/helps/:id', {
    config: { role: 'super' },
    schema: { tags: ['helps'], summary: 'Update a help entry', params: IdParams, body: UpdateHelpBody, response: { 200: HelpSchema, ...errors } },
  }, (req) => store.update(req.params.id, req.body));

  app.delete('/helps/:id', {
    config: { role: 'super' },
    schema: { tags: ['helps'], summary: 'Delete a help entry', params: IdParams, response: { 200: HelpSchema, ...errors } },
  }, (req) => store.remove(req.params.id));
}
