import type { FastifyInstance } from 'fastify';
import type { Knex } from 'knex';
import {
  AppError,
  BoolLike,
  ErrorResponse,
  IdParams,
  IntLike,
  ListQuery,
  page,
  toBool,
  toInt,
  Type,
  type Realtime,
  type Static,
  type TSchema,
  type UploadService,
} from '@atendo/sdk';

const TABLE = 'announcements';
/** The socket.io event every write emits to every signed-in socket of every company (spec 1-platform.md §9). */
export const ANNOUNCEMENT_EVENT = 'company-announcement';
/** Upload area (folder) of announcement images, inside the author's company folder. */
export const MEDIA_AREA = 'announcements';
/** The attachment accepts .png, .jpg and .jpeg (spec 3-campaigns-and-tools.md §6), checked by content. */
export const MEDIA_TYPES: readonly string[] = ['image/png', 'image/jpeg'];
/** Largest attachment: 5 MiB (an image shown in a popover needs no more). */
export const MEDIA_MAX_BYTES = 5 * 1024 * 1024;
/** Page size of `GET /announcements/`. */
export const PAGE_SIZE = 20;

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : String(v ?? ''));
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * An announcement as the API answers it. `priority`: 1 high, 2 medium, 3 low. `mediaPath` is a signed URL
 * of the image (valid 7 days, loadable by any browser without a bearer) or null. `companyId` is the author's
 * company; announcements are platform-wide.
 */
export const AnnouncementSchema = Type.Object(
  {
    id: Type.Integer(),
    priority: Type.Integer({ minimum: 1, maximum: 3 }),
    title: Type.String(),
    text: Type.String(),
    mediaPath: Nullable(Type.String()),
    mediaName: Nullable(Type.String()),
    companyId: Type.Integer(),
    status: Type.Boolean(),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { additionalProperties: false },
);
export type Announcement = Static<typeof AnnouncementSchema>;

/** Fields old clients send that the server sets itself (media through /media-upload, company from the token). */
const Ignored = {
  mediaPath: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  mediaName: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  companyId: Type.Optional(Nullable(Type.Union([Type.Integer(), Type.String({ maxLength: 20 })]))),
};
const Title = Type.String({ minLength: 1, maxLength: 200 });
const Text = Type.String({ minLength: 1, maxLength: 10000 });
const Optional = {
  /** 1 high, 2 medium, 3 low; forms may send it as a digit string. */
  priority: Type.Optional(IntLike({ minimum: 1, maximum: 3 })),
  /** Active flag; forms may send 'true'/'false'. */
  status: Type.Optional(BoolLike()),
};
const CreateBody = Type.Object({ title: Title, text: Text, ...Optional, ...Ignored });
const UpdateBody = Type.Object({ title: Type.Optional(Title), text: Type.Optional(Text), ...Optional, ...Ignored });
type Body = Partial<Static<typeof CreateBody>>;

const ListAnnouncementsQuery = Type.Object({
  ...ListQuery.properties,
  /** Super users only: filter by the active flag (others always get the active ones). */
  status: Type.Optional(Type.Boolean()),
});
const Page = Type.Object({ records: Type.Array(AnnouncementSchema), count: Type.Integer(), hasMore: Type.Boolean() });
const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse };

/** Columns from a create/update body: trimmed title and text (blank -> 400), priority 1..3 (else 400). */
function values(body: Body): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (body.title !== undefined) {
    const title = body.title.trim();
    if (!title) throw new AppError('ERR_VALIDATION', 'title is required');
    out.title = title;
  }
  if (body.text !== undefined) {
    const text = body.text.trim();
    if (!text) throw new AppError('ERR_VALIDATION', 'text is required');
    out.text = text;
  }
  if (body.priority !== undefined) {
    const priority = toInt(body.priority);
    if (priority === undefined || !Number.isInteger(priority) || priority < 1 || priority > 3) throw new AppError('ERR_VALIDATION', 'priority must be 1, 2 or 3');
    out.priority = priority;
  }
  if (body.status !== undefined) out.status = toBool(body.status);
  return out;
}

/**
 * Announcement routes (spec 3-campaigns-and-tools.md §2 "Announcements admin", §6, §7 "Announcements";
 * 1-platform.md §2/§5/§9; wire-shapes "GET /announcements/"). Announcements are platform-wide: written by
 * super users, read by every signed-in user of every company (no plan flag).
 * - `GET /announcements/` (also without the slash; any signed-in user) ?searchParam (<= 200, on the title,
 *   case-insensitive) &pageNumber (1-based) -> `{records: Announcement[], count, hasMore}`, 20 a page,
 *   highest priority first (1, 2, 3), then newest. Super users get every announcement (the admin list;
 *   `?status=true|false` filters); everybody else gets only the active ones (`status` ignored) — the
 *   top-bar popover reads this route, as the product family's does. No separate "for company" route:
 *   announcements are not per company.
 * - `GET /announcements/:id` (super) -> Announcement; 404 ERR_NO_ANNOUNCEMENT_FOUND.
 * - `POST /announcements/` (super) {title 1..200, text 1..10000 (both required, trimmed, blank -> 400),
 *   priority? 1..3 (default 3), status? (default true)} -> 200 Announcement authored by the caller's company.
 *   `mediaPath`, `mediaName` and `companyId` in the body are ignored.
 * - `PUT /announcements/:id` (super) same fields, all optional -> Announcement; 404 ERR_NO_ANNOUNCEMENT_FOUND.
 * - `DELETE /announcements/:id` (super) -> `{message}`; the image goes too; 404 ERR_NO_ANNOUNCEMENT_FOUND.
 * - `POST /announcements/:id/media-upload` (super) multipart `file` (PNG or JPEG by content, at most 5 MiB;
 *   a `typeArch` field is ignored) -> Announcement with `mediaPath`/`mediaName`; replaces and deletes the
 *   previous image. 400 ERR_VALIDATION without a file part, 413 ERR_PAYLOAD_TOO_LARGE, 415 ERR_UPLOAD_TYPE
 *   (nothing stored), 415 ERR_UNSUPPORTED_MEDIA_TYPE for a non-multipart body.
 * - `DELETE /announcements/:id/media-upload` (super) -> Announcement without image; deletes the file.
 * Non-super callers of the super routes get 403 ERR_NO_PERMISSION (nothing read or stored); no token 401.
 * Every write emits `company-announcement` to every signed-in socket of every company after commit:
 * `{action: 'create'|'update', record}` or `{action: 'delete', id}`.
 */
export async function announcementsRoutes(app: FastifyInstance, deps: { db: Knex; realtime: Realtime; uploads: UploadService }): Promise<void> {
  const { db, realtime, uploads } = deps;
  const emit = (payload: unknown) => realtime.emitGlobal(ANNOUNCEMENT_EVENT, payload);

  const out = (row: Record<string, unknown>): Announcement => {
    const companyId = row.companyId as number;
    const mediaPath = (row.mediaPath as string | null) || null;
    return {
      id: row.id as number,
      priority: Number(row.priority),
      title: String(row.title),
      text: String(row.text ?? ''),
      mediaPath: mediaPath ? uploads.url(companyId, mediaPath) : null,
      mediaName: (row.mediaName as string | null) ?? null,
      companyId,
      status: Boolean(row.status),
      createdAt: iso(row.createdAt),
      updatedAt: iso(row.updatedAt),
    };
  };
  type Row = Record<string, unknown> & { companyId: number; mediaPath: string | null };
  /** The row (locked when `trx` is given), or 404. */
  const load = async (id: number, trx?: Knex.Transaction): Promise<Row> => {
    const q = (trx ?? db)(TABLE).where({ id }).first();
    const row = await (trx ? q.forUpdate() : q);
    if (!row) throw new AppError('ERR_NO_ANNOUNCEMENT_FOUND');
    return row as Row;
  };

  const list = async (req: { auth: { super: boolean }; query: unknown }) => {
    const { searchParam, pageNumber, status } = req.query as Static<typeof ListAnnouncementsQuery>;
    const { offset, limit, hasMore } = page(pageNumber, PAGE_SIZE);
    const base = db(TABLE);
    if (!req.auth.super) void base.where({ status: true });
    else if (status !== undefined) void base.where({ status });
    const term = (searchParam ?? '').trim().toLowerCase();
    if (term) void base.whereRaw('lower(title) LIKE ?', [`%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`]);
    const [{ count }] = await base.clone().count<{ count: string }[]>({ count: '*' });
    const rows = await base.clone().orderBy('priority').orderBy('createdAt', 'desc').orderBy('id', 'desc').offset(offset).limit(limit);
    const total = Number(count);
    return { records: rows.map(out), count: total, hasMore: hasMore(total, rows.length) };
  };
  for (const url of ['/announcements/', '/announcements']) {
    app.get(url, {
      config: { role: 'user' },
      schema: {
        tags: ['announcements'],
        summary: 'Announcements, 20 a page, highest priority then newest first (super: all; others: active ones)',
        querystring: ListAnnouncementsQuery,
        response: { 200: Page, ...errors },
      },
    }, list);
  }

  app.get('/announcements/:id', {
    config: { role: 'super' },
    schema: { tags: ['announcements'], summary: 'One announcement', params: IdParams, response: { 200: AnnouncementSchema, ...errors } },
  }, async (req) => out(await load((req.params as IdParams).id)));

  for (const url of ['/announcements/', '/announcements']) {
    app.post(url, {
      config: { role: 'super' },
      schema: { tags: ['announcements'], summary: 'Create an announcement', body: CreateBody, response: { 200: AnnouncementSchema, ...errors } },
    }, async (req) => {
      const input = values(req.body as Body);
      const [row] = await db(TABLE).insert({ priority: 3, status: true, ...input, companyId: req.auth.companyId }).returning('*');
      const record = out(row);
      emit({ action: 'create', record });
      return record;
    });
  }

  app.put('/announcements/:id', {
    config: { role: 'super' },
    schema: { tags: ['announcements'], summary: 'Update an announcement', params: IdParams, body: UpdateBody, response: { 200: AnnouncementSchema, ...errors } },
  }, async (req) => {
    const { id } = req.params as IdParams;
    const input = values(req.body as Body);
    const [row] = await db(TABLE).where({ id }).update({ ...input, updatedAt: db.fn.now() }).returning('*');
    if (!row) throw new AppError('ERR_NO_ANNOUNCEMENT_FOUND');
    const record = out(row);
    emit({ action: 'update', record });
    return record;
  });

  app.delete('/announcements/:id', {
    config: { role: 'super' },
    schema: { tags: ['announcements'], summary: 'Delete an announcement and its image', params: IdParams, response: { 200: Type.Object({ message: Type.String() }), ...errors } },
  }, async (req) => {
    const { id } = req.params as IdParams;
    const [row] = await db(TABLE).where({ id }).del().returning('*');
    if (!row) throw new AppError('ERR_NO_ANNOUNCEMENT_FOUND');
    const removed = row as Row;
    if (removed.mediaPath) await uploads.remove(removed.companyId, removed.mediaPath);
    emit({ action: 'delete', id });
    return { message: 'Announcement deleted' };
  });

  app.post('/announcements/:id/media-upload', {
    config: { role: 'super' },
    schema: {
      tags: ['announcements'],
      summary: 'Attach an image (multipart `file`, PNG or JPEG, at most 5 MiB), replacing the previous one',
      consumes: ['multipart/form-data'],
      params: IdParams,
      response: { 200: AnnouncementSchema, 413: ErrorResponse, 415: ErrorResponse, ...errors },
    },
  }, async (req) => {
    const { id } = req.params as IdParams;
    const existing = await load(id);
    const file = await req.file();
    if (!file) throw new AppError('ERR_VALIDATION', 'A multipart file part is required');
    // Stored in the author's company folder, where `url` signs it from.
    const companyId = existing.companyId;
    const stored = await uploads.save(companyId, MEDIA_AREA, file, { allow: MEDIA_TYPES, maxBytes: MEDIA_MAX_BYTES });
    let result: { row: Row; previous: string | null };
    try {
      result = await db.transaction(async (trx) => {
        const row = await load(id, trx);
        const [updated] = await trx(TABLE).where({ id }).update({ mediaPath: stored.path, mediaName: stored.fileName, updatedAt: trx.fn.now() }).returning('*');
        return { row: updated as Row, previous: row.mediaPath };
      });
    } catch (err) {
      await uploads.remove(companyId, stored.path);
      throw err;
    }
    if (result.previous && result.previous !== stored.path) await uploads.remove(companyId, result.previous);
    const record = out(result.row);
    emit({ action: 'update', record });
    return record;
  });

  app.delete('/announcements/:id/media-upload', {
    config: { role: 'super' },
    schema: { tags: ['announcements'], summary: 'Remove the image', params: IdParams, response: { 200: AnnouncementSchema, ...errors } },
  }, async (req) => {
    const { id } = req.params as IdParams;
    const result = await db.transaction(async (trx) => {
      const row = await load(id, trx);
      const [updated] = await trx(TABLE).where({ id }).update({ mediaPath: null, mediaName: null, updatedAt: trx.fn.now() }).returning('*');
      return { row: updated as Row, previous: row.mediaPath };
    });
    if (result.previous) await uploads.remove(result.row.companyId, result.previous);
    const record = out(result.row);
    emit({ action: 'update', record });
    return record;
  });
}
