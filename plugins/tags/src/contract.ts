/**
 * The tags plugin's contract (import it as `@atendo/plugin-tags/contract`): the `tags` service ref and
 * interface, the `tags.counters` extension point, the wire schemas of a tag, and the plugin's error codes.
 * Types and `define*` calls only: importing it pulls neither fastify nor knex.
 */
import type { Knex } from 'knex';
import { defineErrors, defineExtensionPoint, defineService, Type } from '@atendo/sdk';

/** Error codes owned by the tags plugin (merged into the catalogue at boot). */
export const errors = defineErrors({
  ERR_NO_TAG_FOUND: { status: 404, message: 'Tag not found' },
});
declare module '@atendo/sdk' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface ErrorCodes extends Record<keyof typeof errors, true> {}
}

/** A tag as the API shows it (wire-shapes §2 "Tag"). `kanban` is 1 for kanban lanes, 0 otherwise. */
export interface Tag {
  id: number;
  companyId: number;
  name: string;
  color: string;
  kanban: 0 | 1;
  /** The user who created the tag (null when that user was deleted). */
  userId: number | null;
  /** ISO 8601. */
  createdAt: string;
  updatedAt: string;
}

/**
 * The counts every `GET /tags` row shows (wire-shapes "GET /tags"), 0 when no loaded plugin contributes a
 * counter for them. Counters may add other keys too.
 */
export const WIRE_COUNT_KEYS = ['contactsCount', 'ticketsCount'] as const;

/** A tag of the `GET /tags` list with the counts the `tags.counters` contributors add (0 when none does). */
export type TagWithCounts = Tag & { contactsCount: number; ticketsCount: number; [counterKey: string]: unknown };

/**
 * A tag counter, contributed to `tagCounters` by a plugin that links records to tags (contacts:
 * `contactsCount`, tickets: `ticketsCount`).
 */
export interface TagCounter {
  /**
   * The key of the count in each `GET /tags` row: camelCase ending in `Count` (`contactsCount`). One
   * counter per key across plugins: a second contribution for a key refuses boot.
   */
  key: string;
  /**
   * For the given tags of `companyId`, the number of linked records per tag id (tags missing from the
   * map count 0). Must filter on `companyId`. Called once per `GET /tags` page, only with a non-empty list.
   */
  count(companyId: number, tagIds: number[]): Promise<Map<number, number>>;
}

/** Extension point `tags.counters`: the counts of the tag list (declare `dependsOn: ['tags']` to contribute). */
export const tagCounters = defineExtensionPoint<TagCounter>('tags.counters');

/**
 * The `tags` service (`ctx.services.get(tagsService)`, with `dependsOn: ['tags']`). Every method is
 * scoped to `companyId`: ids of another company are unknown.
 */
export interface TagsService {
  /** The tags of `companyId` among `ids` (unknown ids are skipped), ordered by name. */
  getMany(companyId: number, ids: number[]): Promise<Tag[]>;
  /**
   * Throws 404 ERR_NO_TAG_FOUND unless every id is a tag of `companyId`. With `trx`, the tags are read
   * `FOR SHARE` inside it, so they cannot be deleted before the caller's transaction ends.
   */
  assertAll(companyId: number, ids: number[], trx?: Knex.Transaction): Promise<void>;
  /** The ids of the company's kanban tags (the board's lanes beside the default one), ascending. */
  kanbanIds(companyId: number): Promise<number[]>;
}

/** The typed handle of the `tags` service. */
export const tagsService = defineService<TagsService>('tags');

/** A tag as every answer shows it (wire-shapes §2 "Tag", plus `userId`). */
export const TagSchema = Type.Object(
  {
    id: Type.Integer(),
    companyId: Type.Integer(),
    name: Type.String(),
    color: Type.String(),
    kanban: Type.Integer({ minimum: 0, maximum: 1 }),
    userId: Type.Union([Type.Integer(), Type.Null()]),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { additionalProperties: false },
);

/** A tag of the `GET /tags` list with its counts: `contactsCount`, `ticketsCount` and any other counter's key. */
export const TagWithCountsSchema = Type.Object(
  { ...TagSchema.properties, contactsCount: Type.Integer(), ticketsCount: Type.Integer() },
  { additionalProperties: Type.Integer() },
);
