import type { FastifyInstance } from 'fastify';
import type { Knex } from 'knex';
import {
  AppError,
  ErrorResponse,
  hasRole,
  IdParams,
  ListQuery,
  page,
  Type,
  UPLOAD_TYPES,
  type AuthUser,
  type Realtime,
  type Static,
  type TSchema,
  type UploadService,
} from '@atendo/sdk';

const TABLE = 'quickMessages';
/** Upload area (folder) of quick-message media: `company{id}/quickMessage/`. */
export const MEDIA_AREA = 'quickMessage';
/** Media a quick message may carry: images, audio, video, PDF and office documents. */
export const MEDIA_TYPES: readonly string[] = [...UPLOAD_TYPES.images, ...UPLOAD_TYPES.audio, ...UPLOAD_TYPES.video, ...UPLOAD_TYPES.documents];
const PAGE_SIZE = 20;
const UNIQUE_SHORTCODE = 'quick_messages_company_shortcode_unique';

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : String(v ?? ''));
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A quick message as the API answers it. `mediaPath` is a signed URL (7 days) or null. */
export const QuickMessageSchema = Type.Object(
  {
    id: Type.Integer(),
    companyId: Type.Integer(),
    userId: Nullable(Type.Integer()),
    shortcode: Type.String(),
    message: Type.String(),
    geral: Type.Boolean(),
    status: Type.Boolean(),
    isMedia: Type.Boolean(),
    mediaPath: Nullable(Type.String()),
    mediaName: Nullable(Type.String()),
    mediaType: Nullable(Type.String()),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { additionalProperties: false },
);
export type QuickMessage = Static<typeof QuickMessageSchema>;

/** Ids old clients send in queries and bodies; ignored (the caller's company and id are used). */
const IgnoredId = Type.Optional(Type.Union([Type.Integer(), Type.String({ maxLength: 20 }), Type.Null()]));
const Fields = {
  shortcode: Type.String({ minLength: 1, maxLength: 50 }),
  message: Type.Optional(Type.Union([Type.String({ maxLength: 10000 }), Type.Null()])),
  geral: Type.Optional(Type.Boolean()),
  status: Type.Optional(Type.Boolean()),
  /** Sent by old clients before the media upload; ignored (media is set through /media-upload). */
  isMedia: Type.Optional(Type.Boolean()),
  mediaPath: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
  mediaName: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
  companyId: IgnoredId,
  userId: IgnoredId,
};
const CreateBody = Type.Object(Fields);
const UpdateBody = Type.Partial(Type.Object(Fields));
type Body = Partial<Static<typeof CreateBody>>;

const ListQuickQuery = Type.Object({ ...ListQuery.properties, companyId: Type.Optional(Type.String({ maxLength: 20 })), userId: Type.Optional(Type.String({ maxLength: 20 })) });
const ShortcutQuery = Type.Object({ companyId: Type.Optional(Type.String({ maxLength: 20 })), userId: Type.Optional(Type.String({ maxLength: 20 })) });
const Page = Type.Object({ records: Type.Array(QuickMessageSchema), count: Type.Integer(), hasMore: Type.Boolean() });
const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };

/** Admins and supervisors manage every quick message and the `geral` flag (spec 2-tickets.md §6). */
const isManager = (auth: AuthUser) => hasRole(auth, 'supervisor');
// Every route is open to any signed-in user of the company (`role: 'user'`); the rules above run per record.

/** Throws 403 ERR_NO_PERMISSION unless `auth` may change `row`: managers any, users their own non-general ones. */
function assertCanChange(auth: AuthUser, row: { geral: boolean; userId: number | null }): void {
  if (isManager(auth)) return;
  if (row.geral || row.userId !== auth.id) throw new AppError('ERR_NO_PERMISSION', 'Only admins and supervisors may change general quick messages or those of other users');
}

/** Columns from a create/update body: trimmed shortcode (blank -> 400), null message -> ''. */
function values(auth: AuthUser, body: Body): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (body.shortcode !== undefined) {
    const shortcode = body.shortcode.trim();
    if (!shortcode) throw new AppError('ERR_VALIDATION', 'shortcode must not be blank');
    out.shortcode = shortcode;
  }
  if (body.message !== undefined) out.message = body.message ?? '';
  if (body.geral !== undefined) {
    if (body.geral && !isManager(auth)) throw new AppError('ERR_NO_PERMISSION', 'Only admins and supervisors may create general quick messages');
    out.geral = body.geral;
  }
  if (body.status !== undefined) out.status = body.status;
  return out;
}

const isUniqueViolation = (err: unknown) => (err as { code?: string; constraint?: string }).code === '23505' && (err as { constraint?: string }).constraint === UNIQUE_SHORTCODE;
const duplicated = () => new AppError('ERR_DUPLICATED_NAME', 'This shortcode is already in use');

/**
 * Quick-message routes (spec 2-tickets.md §2, §3, §6, §7 "Quick messages"; wire-shapes "GET /quick-messages").
 * Every query is scoped to the caller's company; another company's id answers 404 ERR_NO_QUICK_MESSAGE_FOUND.
 * - `GET /quick-messages` ?searchParam (<= 200, on shortcode and message, case-insensitive) &pageNumber
 *   -> `{records: QuickMessage[], count, hasMore}`, 20 a page, by shortcode. `companyId`/`userId` ignored.
 * - `GET /quick-messages/list` -> `QuickMessage[]` for the "/" shortcut: active general ones plus the
 *   caller's own active ones, by shortcode.
 * - `GET /quick-messages/:id` -> QuickMessage.
 * - `POST /quick-messages` {shortcode 1..50, message? <= 10000, geral?, status? (default true)} -> 200
 *   QuickMessage owned by the caller. 403 ERR_NO_PERMISSION when a user sets `geral`; 409
 *   ERR_DUPLICATED_NAME for a shortcode already used in the company (case-insensitive).
 * - `PUT /quick-messages/:id` same fields, all optional -> QuickMessage. Users may change only their own
 *   non-general ones and may not set `geral` (403 ERR_NO_PERMISSION); admins and supervisors any.
 * - `DELETE /quick-messages/:id` -> `{message}`; same permission; the media file goes too.
 * - `POST /quick-messages/:id/media-upload` multipart `file` (images, audio, video, PDF, office documents,
 *   up to UPLOAD_LIMIT) -> QuickMessage with `mediaPath`/`mediaName`/`mediaType`; replaces and deletes the
 *   previous file. 400 ERR_VALIDATION without a file part, 413 ERR_PAYLOAD_TOO_LARGE, 415 ERR_UPLOAD_TYPE,
 *   415 ERR_UNSUPPORTED_MEDIA_TYPE for a non-multipart body.
 * - `DELETE /quick-messages/:id/media-upload` -> QuickMessage without media; deletes the file.
 * Writes emit `company-{cid}-quickmessage` after commit: `{action: 'create'|'update', record}` or
 * `{action: 'delete', id}`.
 */
export async function quickMessagesRoutes(app: FastifyInstance, deps: { db: Knex; realtime: Realtime; uploads: UploadService }): Promise<void> {
  const { db, realtime, uploads } = deps;
  const emit = (companyId: number, payload: unknown) => realtime.emitToCompany(companyId, `company-${companyId}-quickmessage`, payload);

  const out = (row: Record<string, unknown>): QuickMessage => {
    const companyId = row.companyId as number;
    const mediaPath = (row.mediaPath as string | null) || null;
    return {
      id: row.id as number,
      companyId,
      userId: (row.userId as number | null) ?? null,
      shortcode: String(row.shortcode),
      message: String(row.message ?? ''),
      geral: Boolean(row.geral),
      status: Boolean(row.status),
      isMedia: Boolean(mediaPath),
      mediaPath: mediaPath ? uploads.url(companyId, mediaPath) : null,
      mediaName: (row.mediaName as string | null) ?? null,
      mediaType: (row.mediaType as string | null) ?? null,
      createdAt: iso(row.createdAt),
      updatedAt: iso(row.updatedAt),
    };
  };
  /** The row of the caller's company (locked when `trx` is given), or 404. */
  const load = async (companyId: number, id: number, trx?: Knex.Transaction) => {
    const q = (trx ?? db)(TABLE).where({ id, companyId }).first();
    const row = await (trx ? q.forUpdate() : q);
    if (!row) throw new AppError('ERR_NO_QUICK_MESSAGE_FOUND');
    return row as Record<string, unknown> & { geral: boolean; userId: number | null; mediaPath: string | null };
  };

  app.get('/quick-messages', {
    config: { role: 'user' },
    schema: { tags: ['quick-messages'], summary: "The company's quick messages, 20 a page, by shortcode", querystring: ListQuickQuery, response: { 200: Page, ...errors } },
  }, async (req) => {
    const companyId = req.auth.companyId;
    const { searchParam, pageNumber } = req.query as Static<typeof ListQuickQuery>;
    const { offset, limit, hasMore } = page(pageNumber, PAGE_SIZE);
    const base = db(TABLE).where({ companyId });
    const term = (searchParam ?? '').trim().toLowerCase();
    if (term) {
      const like = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      void base.where((w) => w.whereRaw('lower(shortcode) LIKE ?', [like]).orWhereRaw('lower(message) LIKE ?', [like]));
    }
    const [{ count }] = await base.clone().count<{ count: string }[]>({ count: '*' });
    const rows = await base.clone().orderBy('shortcode').orderBy('id').offset(offset).limit(limit);
    const total = Number(count);
    return { records: rows.map(out), count: total, hasMore: hasMore(total, rows.length) };
  });

  app.get('/quick-messages/list', {
    config: { role: 'user' },
    schema: { tags: ['quick-messages'], summary: "The '/' shortcut list: active general quick messages and the caller's own", querystring: ShortcutQuery, response: { 200: Type.Array(QuickMessageSchema), ...errors } },
  }, async (req) => {
    const { companyId, id: userId } = req.auth;
    const rows = await db(TABLE)
      .where({ companyId, status: true })
      .where((w) => w.where({ geral: true }).orWhere({ userId }))
      .orderBy('shortcode')
      .orderBy('id');
    return rows.map(out);
  });

  app.get('/quick-messages/:id', {
    config: { role: 'user' },
    schema: { tags: ['quick-messages'], summary: 'One quick message', params: IdParams, response: { 200: QuickMessageSchema, ...errors } },
  }, async (req) => out(await load(req.auth.companyId, (req.params as IdParams).id)));

  app.post('/quick-messages', {
    config: { role: 'user' },
    schema: { tags: ['quick-messages'], summary: 'Create a quick message', body: CreateBody, response: { 200: QuickMessageSchema, ...errors } },
  }, async (req) => {
    const { companyId, id: userId } = req.auth;
    const input = values(req.auth, req.body as Body);
    let row;
    try {
      [row] = await db(TABLE).insert({ geral: false, status: true, message: '', ...input, companyId, userId }).returning('*');
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicated();
      throw err;
    }
    const record = out(row);
    emit(companyId, { action: 'create', record });
    return record;
  });

  app.put('/quick-messages/:id', {
    config: { role: 'user' },
    schema: { tags: ['quick-messages'], summary: 'Update a quick message', params: IdParams, body: UpdateBody, response: { 200: QuickMessageSchema, ...errors } },
  }, async (req) => {
    const companyId = req.auth.companyId;
    const { id } = req.params as IdParams;
    const input = values(req.auth, req.body as Body);
    let row;
    try {
      row = await db.transaction(async (trx) => {
        assertCanChange(req.auth, await load(companyId, id, trx));
        const [updated] = await trx(TABLE).where({ id, companyId }).update({ ...input, updatedAt: trx.fn.now() }).returning('*');
        return updated;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicated();
      throw err;
    }
    const record = out(row);
    emit(companyId, { action: 'update', record });
    return record;
  });

  app.delete('/quick-messages/:id', {
    config: { role: 'user' },
    schema: { tags: ['quick-messages'], summary: 'Delete a quick message and its media', params: IdParams, response: { 200: Type.Object({ message: Type.String() }), ...errors } },
  }, async (req) => {
    const companyId = req.auth.companyId;
    const { id } = req.params as IdParams;
    const removed = await db.transaction(async (trx) => {
      const row = await load(companyId, id, trx);
      assertCanChange(req.auth, row);
      await trx(TABLE).where({ id, companyId }).del();
      return row;
    });
    if (removed.mediaPath) await uploads.remove(companyId, removed.mediaPath);
    emit(companyId, { action: 'delete', id });
    return { message: 'Quick message deleted' };
  });

  app.post('/quick-messages/:id/media-upload', {
    config: { role: 'user' },
    schema: {
      tags: ['quick-messages'],
      summary: 'Attach a media file (multipart `file`), replacing the previous one',
      consumes: ['multipart/form-data'],
      params: IdParams,
      response: { 200: QuickMessageSchema, 413: ErrorResponse, 415: ErrorResponse, ...errors },
    },
  }, async (req) => {
    const companyId = req.auth.companyId;
    const { id } = req.params as IdParams;
    // Permission first: nothing is read or stored for a caller who may not change the record.
    assertCanChange(req.auth, await load(companyId, id));
    const file = await req.file();
    if (!file) throw new AppError('ERR_VALIDATION', 'A multipart file part is required');
    const stored = await uploads.save(companyId, MEDIA_AREA, file, { allow: MEDIA_TYPES });
    let result: { row: Record<string, unknown>; previous: string | null };
    try {
      result = await db.transaction(async (trx) => {
        const row = await load(companyId, id, trx);
        assertCanChange(req.auth, row);
        const [updated] = await trx(TABLE)
          .where({ id, companyId })
          .update({ mediaPath: stored.path, mediaName: stored.fileName, mediaType: stored.mimeType, updatedAt: trx.fn.now() })
          .returning('*');
        return { row: updated, previous: row.mediaPath };
      });
    } catch (err) {
      await uploads.remove(companyId, stored.path);
      throw err;
    }
    if (result.previous && result.previous !== stored.path) await uploads.remove(companyId, result.previous);
    const record = out(result.row);
    emit(companyId, { action: 'update', record });
    return record;
  });

  app.delete('/quick-messages/:id/media-upload', {
    config: { role: 'user' },
    schema: { tags: ['quick-messages'], summary: 'Remove the media file', params: IdParams, response: { 200: QuickMessageSchema, ...errors } },
  }, async (req) => {
    const companyId = req.auth.companyId;
    const { id } = req.params as IdParams;
    const result = await db.transaction(async (trx) => {
      const row = await load(companyId, id, trx);
      assertCanChange(req.auth, row);
      const [updated] = await trx(TABLE)
        .where({ id, companyId })
        .update({ mediaPath: null, mediaName: null, mediaType: null, updatedAt: trx.fn.now() })
        .returning('*');
      return { row: updated, previous: row.mediaPath };
    });
    if (result.previous) await uploads.remove(companyId, result.previous);
    const record = out(result.row);
    emit(companyId, { action: 'update', record });
    return record;
  });
}
