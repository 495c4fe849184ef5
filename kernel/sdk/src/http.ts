import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { AuthUser, RouteRole } from './auth';
import type { PlanFeature } from './plan';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Minimum role; default `user` (a valid access token). `public` routes need no token. */
    role?: RouteRole;
    /** Plan flag this route needs, in addition to its plugin's `featureFlag`. */
    feature?: PlanFeature;
    /** Set by the loader from the plugin's `featureFlag`. */
    pluginFeature?: PlanFeature;
  }
  interface FastifyRequest {
    /** The caller; set on every non-public route. */
    auth: AuthUser;
  }
}

/** `{id}` path parameter: a positive integer id. */
export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) });
export type IdParams = Static<typeof IdParams>;

/** Common list query: `searchParam` (free text, at most 200 chars) and 1-based `pageNumber`. */
export const ListQuery = Type.Object({
  searchParam: Type.Optional(Type.String({ maxLength: 200 })),
  pageNumber: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, default: 1 })),
});
export type ListQuery = Static<typeof ListQuery>;

/** The error body schema, for route `response` declarations. */
export const ErrorResponse = Type.Object(
  { error: Type.String(), message: Type.String() },
  { additionalProperties: true, $id: 'ErrorResponse' },
);

/** `{ <key>: T[], count, hasMore }`: the product family's pagination envelope. */
export function Paginated<K extends string, T extends TSchema>(key: K, item: T) {
  return Type.Object({ [key]: Type.Array(item), count: Type.Integer(), hasMore: Type.Boolean() } as Record<K | 'count' | 'hasMore', TSchema>);
}

/** Pagination helper: `{offset, limit}` for a 1-based page, and `hasMore` for a total. */
export function page(pageNumber: number | undefined, size: number) {
  const p = Math.max(1, pageNumber ?? 1);
  const offset = (p - 1) * size;
  return { offset, limit: size, hasMore: (count: number, got: number) => count > offset + got };
}

export { Type, type Static, type TSchema };
