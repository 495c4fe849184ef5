import { Type, type Static } from '@atendo/sdk';

/** Hex colour `#rgb`, `#rgba`, `#rrggbb` or `#rrggbbaa` (3 to 9 characters as the tag modal allows). */
export const COLOR_PATTERN = '^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{4}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$';

/** Default colour of a tag created without one (the ticket tag picker sends only a name). */
export const DEFAULT_TAG_COLOR = '#A4CCCC';

/** Page size of `GET /tags`. */
export const TAGS_PAGE_SIZE = 20;

export { TagSchema, TagWithCountsSchema } from '../contract';

/** `kanban` in a query string: 0/1 or false/true. */
const KanbanQuery = Type.String({ pattern: '^(0|1|true|false)$' });

/**
 * Query of `GET /tags`: `searchParam` (name fragment, case-insensitive), `pageNumber` (1-based, 20 a
 * page) or `offset` (rows to skip, used when `pageNumber` is absent), `kanban`. `companyId` sent by old
 * clients is ignored.
 */
export const TagsPageQuery = Type.Object({
  searchParam: Type.Optional(Type.String({ maxLength: 200 })),
  pageNumber: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_000_000 })),
  kanban: Type.Optional(KanbanQuery),
  companyId: Type.Optional(Type.String({ maxLength: 20 })),
});
export type TagsPageQuery = Static<typeof TagsPageQuery>;

/** Query of `GET /tags/list`. */
export const TagsListQuery = Type.Object({
  kanban: Type.Optional(KanbanQuery),
  companyId: Type.Optional(Type.String({ maxLength: 20 })),
});
export type TagsListQuery = Static<typeof TagsListQuery>;

/** `kanban` in a body: 0/1 or a boolean. */
const KanbanBody = Type.Union([Type.Integer({ minimum: 0, maximum: 1 }), Type.Boolean()]);

const tagFields = {
  /** 3 to 50 characters after trimming ('Tag muito curta'); checked in code for the trimmed length. */
  name: Type.String({ minLength: 1, maxLength: 50 }),
  color: Type.String({ minLength: 3, maxLength: 9, pattern: COLOR_PATTERN }),
  kanban: KanbanBody,
};

/**
 * Body of `POST /tags`: `name` required; `color` defaults to DEFAULT_TAG_COLOR; `kanban` defaults to 0.
 * `userId` sent by old clients is dropped: the tag belongs to the caller.
 */
export const CreateTagBody = Type.Object(
  { name: tagFields.name, color: Type.Optional(tagFields.color), kanban: Type.Optional(tagFields.kanban) },
  { additionalProperties: false },
);
export type CreateTagBody = Static<typeof CreateTagBody>;

/** Body of `PUT /tags/:id`: every field optional. */
export const UpdateTagBody = Type.Object(
  { name: Type.Optional(tagFields.name), color: Type.Optional(tagFields.color), kanban: Type.Optional(tagFields.kanban) },
  { additionalProperties: false },
);
export type UpdateTagBody = Static<typeof UpdateTagBody>;

/** Parses a query `kanban` value. */
export function kanbanOf(v: string | undefined): 0 | 1 | undefined {
  if (v === undefined) return undefined;
  return v === '1' || v === 'true' ? 1 : 0;
}
