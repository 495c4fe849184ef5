import { AppError, errorResponses, IdParams, Type, type IdentityService, type PluginApp, type Realtime } from '@atendo/sdk';
import type { Tag } from '../contract';
import type { TagInput, TagStore } from '../services/tags';
import {
  CreateTagBody,
  DEFAULT_TAG_COLOR,
  kanbanOf,
  TAGS_PAGE_SIZE,
  TagSchema,
  TagsListQuery,
  TagsPageQuery,
  TagWithCountsSchema,
  UpdateTagBody,
} from '../schemas/tags';

const errors = errorResponses(400, 401, 403, 404, 409);

/** Trims a tag name and refuses names shorter than 3 characters (spec §5 'Tag muito curta'). */
function tagName(raw: string): string {
  const name = raw.trim();
  if (name.length < 3) throw new AppError('ERR_VALIDATION', 'Tag muito curta: name must have at least 3 characters');
  return name;
}

/** Body `kanban` (0/1/boolean) as 0|1. */
const kanbanValue = (v: number | boolean | undefined): 0 | 1 | undefined => (v === undefined ? undefined : v === true || v === 1 ? 1 : 0);

/**
 * Tag routes (spec 2-tickets.md §2 "Tags", §7 "Tags"; wire-shapes "GET /tags/kanban"):
 * - `GET /tags`, `GET /tags/` (any user) `?searchParam&pageNumber|offset&kanban` ->
 *   `{tags: [Tag & {contactsCount, ticketsCount}], count, hasMore}`, 20 a page, ordered by name.
 *   `kanban=1` needs the plan's useKanban (403 ERR_FEATURE_NOT_IN_PLAN).
 * - `GET /tags/list?kanban` (any user) -> `Tag[]` ordered by name (kanban=1 needs useKanban).
 * - `GET /tags/kanban` (any user, plan useKanban) -> `{lista: Tag[]}`: kanban tags ordered by id.
 * - `GET /tags/:id` (any user) -> Tag; 404 ERR_NO_TAG_FOUND.
 * - `POST /tags` (any user: attendants create tags from the ticket tag picker) `{name 3..50, color?,
 *   kanban?}` -> 200 Tag owned by the caller; 409 ERR_DUPLICATED_NAME; kanban=1 needs useKanban.
 * - `PUT /tags/:id` (admin) -> Tag; 404, 409; a resulting kanban tag needs useKanban.
 * - `DELETE /tags/:id` (admin) -> `{message}`; its contact and ticket links go with it; 404.
 * Writes emit, after commit, `company{cid}-tag` (no dash, as the old client listens) and
 * `company-{cid}-tag` with `{action:'create'|'update', tag}` / `{action:'delete', tagId}`.
 */
export async function tagsRoutes(app: PluginApp, deps: { store: TagStore; realtime: Realtime; identity: IdentityService }): Promise<void> {
  const { store, realtime, identity } = deps;
  const emit = (companyId: number, payload: unknown) => {
    realtime.emitToCompany(companyId, `company${companyId}-tag`, payload);
    realtime.emitToCompany(companyId, `company-${companyId}-tag`, payload);
  };
  /** 403 ERR_FEATURE_NOT_IN_PLAN unless the company's plan has kanban. */
  const requireKanban = async (companyId: number) => {
    const plan = await identity.getCompanyPlan(companyId);
    if (!plan?.useKanban) throw new AppError('ERR_FEATURE_NOT_IN_PLAN', "This company's plan does not include useKanban", { extra: { feature: 'useKanban' } });
  };

  for (const url of ['/tags', '/tags/']) {
    app.get(url, {
      schema: {
        tags: ['tags'],
        summary: "A page of the company's tags with contact and ticket counts",
        querystring: TagsPageQuery,
        response: { 200: Type.Object({ tags: Type.Array(TagWithCountsSchema), count: Type.Integer(), hasMore: Type.Boolean() }), ...errors },
      },
    }, async (req) => {
      const q = req.query;
      const companyId = req.auth.companyId;
      const kanban = kanbanOf(q.kanban);
      if (kanban === 1) await requireKanban(companyId);
      const offset = q.pageNumber !== undefined ? (q.pageNumber - 1) * TAGS_PAGE_SIZE : (q.offset ?? 0);
      const { tags, count } = await store.page(companyId, { searchParam: q.searchParam, kanban, offset, limit: TAGS_PAGE_SIZE });
      return { tags, count, hasMore: count > offset + tags.length };
    });
  }

  app.get('/tags/list', {
    schema: { tags: ['tags'], summary: "Every tag of the company (optionally of one kind)", querystring: TagsListQuery, response: { 200: Type.Array(TagSchema), ...errors } },
  }, async (req) => {
    const kanban = kanbanOf(req.query.kanban);
    if (kanban === 1) await requireKanban(req.auth.companyId);
    return store.list(req.auth.companyId, kanban);
  });

  app.get('/tags/kanban', {
    config: { feature: 'useKanban' },
    schema: { tags: ['tags'], summary: 'The kanban lanes: kanban tags ordered by id', response: { 200: Type.Object({ lista: Type.Array(TagSchema) }), ...errors } },
  }, async (req) => ({ lista: await store.kanbanLanes(req.auth.companyId) }));

  app.get('/tags/:id', {
    schema: { tags: ['tags'], summary: 'One tag', params: IdParams, response: { 200: TagSchema, ...errors } },
  }, async (req) => {
    const tag = await store.get(req.auth.companyId, req.params.id);
    if (!tag) throw new AppError('ERR_NO_TAG_FOUND');
    return tag;
  });

  app.post('/tags', {
    schema: { tags: ['tags'], summary: 'Create a tag owned by the caller', body: CreateTagBody, response: { 200: TagSchema, ...errors } },
  }, async (req) => {
    const body = req.body;
    const { companyId, id: userId } = req.auth;
    const input = { name: tagName(body.name), color: body.color ?? DEFAULT_TAG_COLOR, kanban: kanbanValue(body.kanban) ?? 0 };
    if (input.kanban === 1) await requireKanban(companyId);
    const tag = await store.create(companyId, userId, input);
    emit(companyId, { action: 'create', tag });
    return tag;
  });

  app.put('/tags/:id', {
    config: { role: 'admin' },
    schema: { tags: ['tags'], summary: 'Update a tag', params: IdParams, body: UpdateTagBody, response: { 200: TagSchema, ...errors } },
  }, async (req) => {
    const body = req.body;
    const companyId = req.auth.companyId;
    const input: TagInput = {};
    if (body.name !== undefined) input.name = tagName(body.name);
    if (body.color !== undefined) input.color = body.color;
    if (body.kanban !== undefined) input.kanban = kanbanValue(body.kanban);
    const tag = await store.update(companyId, req.params.id, input, async (next: Tag) => {
      if (next.kanban === 1) await requireKanban(companyId);
    });
    emit(companyId, { action: 'update', tag });
    return tag;
  });

  app.delete('/tags/:id', {
    config: { role: 'admin' },
    schema: { tags: ['tags'], summary: 'Delete a tag', params: IdParams, response: { 200: Type.Object({ message: Type.String() }), ...errors } },
  }, async (req) => {
    const companyId = req.auth.companyId;
    const { id } = req.params;
    await store.remove(companyId, id);
    emit(companyId, { action: 'delete', tagId: id });
    return { message: 'Tag deleted' };
  });
}
