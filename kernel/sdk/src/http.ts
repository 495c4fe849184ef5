import { Type, type Static, type TSchema, type TUnion, type TNull, type TUnsafe } from '@sinclair/typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
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
    /**
     * The route stays open to a company whose subscription has expired (due date before today): what the
     * open-invoices page (/financeiro-aberto) needs. Every other private route answers 403
     * ERR_SUBSCRIPTION_EXPIRED to such a company's users.
     */
    allowExpired?: boolean;
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

/**
 * The error answers of a route, for its `response` schema: `errorResponses(400, 401, 404)` is
 * `{400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse}` (body `{error, message}`, see errors.ts).
 */
export function errorResponses<const S extends readonly number[]>(...statuses: S): { [K in S[number]]: typeof ErrorResponse } {
  const out: Record<number, typeof ErrorResponse> = {};
  for (const s of statuses) out[s] = ErrorResponse;
  return out as { [K in S[number]]: typeof ErrorResponse };
}

/**
 * `schema` or `null`. A schema with a single JSON `type` gets `nullable: true` (the OpenAPI 3.0 form, which
 * ajv and fast-json-stringify understand); any other schema (unions, refs) becomes `anyOf [schema, null]`.
 * Either way the static type is `Static<T> | null`.
 */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> | TUnion<[T, TNull]> {
  if (typeof schema.type === 'string') return Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });
  return Type.Union([schema, Type.Null()]);
}

/** A date-time string schema (ISO 8601, `2024-05-01T12:00:00.000Z`): timestamps on the wire. */
export const IsoDateTime = Type.String({ format: 'date-time' });

/**
 * A stored timestamp as its wire string: a `Date` becomes its ISO 8601 form, any other value its string form
 * (`null`/`undefined` become `''`). Use in serializers; the field's schema is `IsoDateTime` or `Type.String()`.
 */
export function iso(v: unknown): string {
  return v instanceof Date ? v.toISOString() : String(v ?? '');
}

/**
 * A row's snake_case keys in camelCase (`last_message` -> `lastMessage`), values unchanged: for rows of
 * `db.raw(...)` and JSON columns, which knex's identifier mappers do not convert.
 */
export function camelRow<T = Record<string, unknown>>(row: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const k in row) {
    let name = camelNames.get(k);
    if (name === undefined) {
      name = k.replace(/_([a-z])/g, (_, ch: string) => ch.toUpperCase());
      // Column names are a small fixed set; the bound keeps a caller passing arbitrary keys from growing it.
      if (camelNames.size < 4096) camelNames.set(k, name);
    }
    out[name] = row[k];
  }
  return out as T;
}

/** snake_case key → camelCase key, remembered (camelRow runs on every row of the inbound path). */
const camelNames = new Map<string, string>();

/**
 * The Fastify instance a plugin registers routes on (`ctx.app`): typed by TypeBox, so `req.params`, `req.query`
 * and `req.body` have the static types of the route's `schema.params/querystring/body` (no casts).
 * Route builders take it as their parameter type: `function queueRoutes(app: PluginApp, ...)`.
 */
export type PluginApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;
export type { TypeBoxTypeProvider };

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

export { Type, type Static, type TSchema, type TUnsafe };

/**
 * An integer that the product family's forms may send as a digit string ("5"). JSON bodies are not
 * coerced by the kernel (wrong types are 400), so fields that old clients send as text use this and
 * normalise with `toInt`.
 */
export function IntLike(opts: { minimum?: number; maximum?: number } = {}) {
  const min = opts.minimum ?? 0;
  const max = opts.maximum ?? 2147483647;
  return Type.Union([Type.Integer({ minimum: min, maximum: max }), Type.String({ pattern: min < 0 ? '^\\s*-?\\d{1,10}\\s*$' : '^\\s*\\d{1,10}\\s*$', maxLength: 12 })]);
}

/** A boolean that old clients may send as 'true' / 'false' / 'enabled' / 'disabled'; normalise with `toBool`. */
export function BoolLike() {
  return Type.Union([Type.Boolean(), Type.Union(['true', 'false', 'enabled', 'disabled'].map((v) => Type.Literal(v)))]);
}

/** Normalises an IntLike value (undefined stays undefined). */
export function toInt(v: number | string | undefined | null): number | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'number' ? v : Number.parseInt(v.trim(), 10);
}

/** Normalises a BoolLike value (undefined stays undefined). */
export function toBool(v: boolean | string | undefined | null): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'boolean' ? v : v === 'true' || v === 'enabled';
}
