import type { Knex } from 'knex';
import { AppError, hasRole, iso, page, type AuthUser, type Realtime, type UploadFile, type UploadService } from '@atendo/sdk';
import { MEDIA_TYPES, PAGE_SIZE, type QuickMessage } from '../contract';
import type { ListQuickQuery, QuickMessageBody } from '../schemas/quick-messages';

const TABLE = 'quickMessages';
/** Upload area (folder) of quick-message media: `company{id}/quickMessage/`. */
export const MEDIA_AREA = 'quickMessage';
const UNIQUE_SHORTCODE = 'quick_messages_company_shortcode_unique';

type Row = Record<string, unknown> & { geral: boolean; userId: number | null; mediaPath: string | null };

/** Admins and supervisors manage every quick message and the `geral` flag (spec 2-tickets.md §6). */
const isManager = (auth: AuthUser) => hasRole(auth, 'supervisor');

/** Throws 403 ERR_NO_PERMISSION unless `auth` may change `row`: managers any, users their own non-general ones. */
function assertCanChange(auth: AuthUser, row: { geral: boolean; userId: number | null }): void {
  if (isManager(auth)) return;
  if (row.geral || row.userId !== auth.id) throw new AppError('ERR_NO_PERMISSION', 'Only admins and supervisors may change general quick messages or those of other users');
}

/** Columns from a create/update body: trimmed shortcode (blank -> 400), null message -> ''. */
function values(auth: AuthUser, body: QuickMessageBody): Record<string, unknown> {
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
 * The `quick_messages` of a company and their media (kept by the kernel's upload store under
 * `company{id}/quickMessage/`). Every method takes the caller (`AuthUser`) and is scoped to its company:
 * another company's id is 404 ERR_NO_QUICK_MESSAGE_FOUND. Users change only their own non-general quick
 * messages; admins and supervisors any (403 ERR_NO_PERMISSION). Writes emit `company-{cid}-quickmessage`
 * after commit.
 */
export class QuickMessageStore {
  constructor(
    private readonly db: Knex,
    private readonly realtime: Realtime,
    private readonly uploads: UploadService,
  ) {}

  private emit(companyId: number, payload: { action: 'create' | 'update'; record: QuickMessage } | { action: 'delete'; id: number }): void {
    this.realtime.emitToCompany(companyId, `company-${companyId}-quickmessage`, payload);
  }

  /** A row as the API answers it: ISO timestamps, `mediaPath` as a signed URL, `isMedia` from it. */
  private out(row: Record<string, unknown>): QuickMessage {
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
      mediaPath: mediaPath ? this.uploads.url(companyId, mediaPath) : null,
      mediaName: (row.mediaName as string | null) ?? null,
      mediaType: (row.mediaType as string | null) ?? null,
      createdAt: iso(row.createdAt),
      updatedAt: iso(row.updatedAt),
    };
  }

  /** The row of the caller's company (locked when `trx` is given), or 404. */
  private async load(companyId: number, id: number, trx?: Knex.Transaction): Promise<Row> {
    const q = (trx ?? this.db)(TABLE).where({ id, companyId }).first();
    const row = await (trx ? q.forUpdate() : q);
    if (!row) throw new AppError('ERR_NO_QUICK_MESSAGE_FOUND');
    return row as Row;
  }

  /** A page (20) of the company's quick messages by shortcode; `searchParam` matches shortcode or message. */
  async list(companyId: number, q: ListQuickQuery): Promise<{ records: QuickMessage[]; count: number; hasMore: boolean }> {
    const { offset, limit, hasMore } = page(q.pageNumber, PAGE_SIZE);
    const base = this.db(TABLE).where({ companyId });
    const term = (q.searchParam ?? '').trim().toLowerCase();
    if (term) {
      const like = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      void base.where((w) => w.whereRaw('lower(shortcode) LIKE ?', [like]).orWhereRaw('lower(message) LIKE ?', [like]));
    }
    const [{ count }] = await base.clone().count<{ count: string }[]>({ count: '*' });
    const rows = await base.clone().orderBy('shortcode').orderBy('id').offset(offset).limit(limit);
    const total = Number(count);
    return { records: rows.map((r: Record<string, unknown>) => this.out(r)), count: total, hasMore: hasMore(total, rows.length) };
  }

  /** The "/" shortcut list: the active general quick messages and the caller's own active ones, by shortcode. */
  async shortcuts(companyId: number, userId: number): Promise<QuickMessage[]> {
    const rows = await this.db(TABLE)
      .where({ companyId, status: true })
      .where((w) => w.where({ geral: true }).orWhere({ userId }))
      .orderBy('shortcode')
      .orderBy('id');
    return rows.map((r: Record<string, unknown>) => this.out(r));
  }

  async get(companyId: number, id: number): Promise<QuickMessage> {
    return this.out(await this.load(companyId, id));
  }

  /** Creates a quick message owned by the caller; 409 ERR_DUPLICATED_NAME for a shortcode in use. */
  async create(auth: AuthUser, body: QuickMessageBody): Promise<QuickMessage> {
    const { companyId, id: userId } = auth;
    const input = values(auth, body);
    let row;
    try {
      [row] = await this.db(TABLE).insert({ geral: false, status: true, message: '', ...input, companyId, userId }).returning('*');
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicated();
      throw err;
    }
    const record = this.out(row);
    this.emit(companyId, { action: 'create', record });
    return record;
  }

  /** Updates the given fields (permission checked on the locked row); 409 ERR_DUPLICATED_NAME. */
  async update(auth: AuthUser, id: number, body: QuickMessageBody): Promise<QuickMessage> {
    const companyId = auth.companyId;
    const input = values(auth, body);
    let row;
    try {
      row = await this.db.transaction(async (trx) => {
        assertCanChange(auth, await this.load(companyId, id, trx));
        const [updated] = await trx(TABLE).where({ id, companyId }).update({ ...input, updatedAt: trx.fn.now() }).returning('*');
        return updated;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicated();
      throw err;
    }
    const record = this.out(row);
    this.emit(companyId, { action: 'update', record });
    return record;
  }

  /** Deletes a quick message and its media file. */
  async remove(auth: AuthUser, id: number): Promise<void> {
    const companyId = auth.companyId;
    const removed = await this.db.transaction(async (trx) => {
      const row = await this.load(companyId, id, trx);
      assertCanChange(auth, row);
      await trx(TABLE).where({ id, companyId }).del();
      return row;
    });
    if (removed.mediaPath) await this.uploads.remove(companyId, removed.mediaPath);
    this.emit(companyId, { action: 'delete', id });
  }

  /**
   * Stores the next multipart file (MEDIA_TYPES, up to UPLOAD_LIMIT) as the media of quick message `id`,
   * replacing and deleting the previous file. The permission is checked before anything is read or stored.
   */
  async setMedia(auth: AuthUser, id: number, nextFile: () => Promise<UploadFile | undefined>): Promise<QuickMessage> {
    const companyId = auth.companyId;
    // Permission first: nothing is read or stored for a caller who may not change the record.
    assertCanChange(auth, await this.load(companyId, id));
    const file = await nextFile();
    if (!file) throw new AppError('ERR_VALIDATION', 'A multipart file part is required');
    const stored = await this.uploads.save(companyId, MEDIA_AREA, file, { allow: MEDIA_TYPES });
    let result: { row: Record<string, unknown>; previous: string | null };
    try {
      result = await this.db.transaction(async (trx) => {
        const row = await this.load(companyId, id, trx);
        assertCanChange(auth, row);
        const [updated] = await trx(TABLE)
          .where({ id, companyId })
          .update({ mediaPath: stored.path, mediaName: stored.fileName, mediaType: stored.mimeType, updatedAt: trx.fn.now() })
          .returning('*');
        return { row: updated, previous: row.mediaPath };
      });
    } catch (err) {
      await this.uploads.remove(companyId, stored.path);
      throw err;
    }
    if (result.previous && result.previous !== stored.path) await this.uploads.remove(companyId, result.previous);
    const record = this.out(result.row);
    this.emit(companyId, { action: 'update', record });
    return record;
  }

  /** Removes the media of quick message `id` (file deleted after commit). */
  async clearMedia(auth: AuthUser, id: number): Promise<QuickMessage> {
    const companyId = auth.companyId;
    const result = await this.db.transaction(async (trx) => {
      const row = await this.load(companyId, id, trx);
      assertCanChange(auth, row);
      const [updated] = await trx(TABLE)
        .where({ id, companyId })
        .update({ mediaPath: null, mediaName: null, mediaType: null, updatedAt: trx.fn.now() })
        .returning('*');
      return { row: updated, previous: row.mediaPath };
    });
    if (result.previous) await this.uploads.remove(companyId, result.previous);
    const record = this.out(result.row);
    this.emit(companyId, { action: 'update', record });
    return record;
  }
}
