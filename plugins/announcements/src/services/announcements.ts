import type { Knex } from 'knex';
import { AppError, iso, page, toBool, toInt, type Realtime, type UploadFile, type UploadService } from '@atendo/sdk';
import { ANNOUNCEMENT_EVENT, MEDIA_MAX_BYTES, MEDIA_TYPES, PAGE_SIZE, SUPER_AUDIENCE, type Announcement, type AnnouncementEvent } from '../contract';
import type { AnnouncementBody, ListAnnouncementsQuery } from '../schemas/announcements';

const TABLE = 'announcements';
/** Upload area (folder) of announcement images, inside the author's company folder. */
export const MEDIA_AREA = 'announcements';

type Row = Record<string, unknown> & { companyId: number; mediaPath: string | null; status: boolean; targetCompanyIds: number[] | null };

/** The platform company, whose super users run the admin screen. */
const PLATFORM_COMPANY_ID = 1;

/** Who sees a row: nobody (inactive), every company (null), or the listed companies. */
type Audience = 'none' | 'all' | number[];
const audienceOf = (row: Row | undefined): Audience => (!row || !row.status ? 'none' : row.targetCompanyIds === null || row.targetCompanyIds === undefined ? 'all' : [...row.targetCompanyIds]);
const sameAudience = (a: Audience, b: Audience) => (Array.isArray(a) && Array.isArray(b) ? a.length === b.length && a.every((id) => b.includes(id)) : a === b);

/** Columns from a create/update body: trimmed title and text (blank -> 400), priority 1..3 (else 400). */
function values(body: AnnouncementBody): Record<string, unknown> {
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
  if (body.targetCompanyIds !== undefined) out.targetCompanyIds = body.targetCompanyIds === null || !body.targetCompanyIds.length ? null : body.targetCompanyIds;
  return out;
}

/**
 * The `announcements` table and its images (kept by the kernel's upload store in the author's company
 * folder). Every write emits `ANNOUNCEMENT_EVENT` after commit, to whom it concerns only (see `push`).
 */
export class AnnouncementStore {
  constructor(
    private readonly db: Knex,
    private readonly realtime: Realtime,
    private readonly uploads: UploadService,
  ) {}

  /** `payload` to the sockets of `audience` ('all': every signed-in socket of every company). */
  private emitTo(audience: Audience, payload: AnnouncementEvent): void {
    if (audience === 'none') return;
    if (audience === 'all') this.realtime.emitGlobal(ANNOUNCEMENT_EVENT, payload);
    else for (const companyId of audience) this.realtime.emitToCompany(companyId, ANNOUNCEMENT_EVENT, payload);
  }

  /**
   * Tells sockets about a change from `prev` to `next` (undefined: not there). Readers hear only active
   * announcements of their company: `create` when it becomes visible to them (created active, activated,
   * newly targeted), `update` while it stays visible, `delete` when it stops being (deactivated, untargeted,
   * deleted); drafts reach nobody but the super users' admin screen, which hears every change.
   */
  private push(prev: Row | undefined, next: Row | undefined): void {
    const before = audienceOf(prev);
    const after = audienceOf(next);
    const id = (next ?? prev)!.id as number;
    const record = next ? this.out(next) : undefined;
    if (before !== 'none' && after !== 'none' && sameAudience(before, after)) this.emitTo(after, { action: 'update', record: record! });
    else {
      this.emitTo(before, { action: 'delete', id });
      if (record) this.emitTo(after, { action: 'create', record });
    }
    // The admin screen: every change, unless the platform company's sockets just heard it anyway.
    const heard = after === 'all' || (Array.isArray(after) && after.includes(PLATFORM_COMPANY_ID));
    if (!heard) {
      const payload: AnnouncementEvent = record ? { action: prev ? 'update' : 'create', record } : { action: 'delete', id };
      this.realtime.emitToCompany(PLATFORM_COMPANY_ID, ANNOUNCEMENT_EVENT, payload, { audiences: [SUPER_AUDIENCE] });
    }
  }

  /** A row as the API answers it: ISO timestamps, `mediaPath` as a signed URL. */
  private out(row: Record<string, unknown>): Announcement {
    const companyId = row.companyId as number;
    const mediaPath = (row.mediaPath as string | null) || null;
    return {
      id: row.id as number,
      priority: Number(row.priority),
      title: String(row.title),
      text: String(row.text ?? ''),
      mediaPath: mediaPath ? this.uploads.url(companyId, mediaPath) : null,
      mediaName: (row.mediaName as string | null) ?? null,
      companyId,
      targetCompanyIds: Array.isArray(row.targetCompanyIds) ? (row.targetCompanyIds as number[]).map(Number) : null,
      status: Boolean(row.status),
      createdAt: iso(row.createdAt),
      updatedAt: iso(row.updatedAt),
    };
  }

  /** The row (locked when `trx` is given), or 404 ERR_NO_ANNOUNCEMENT_FOUND. */
  private async load(id: number, trx?: Knex.Transaction): Promise<Row> {
    const q = (trx ?? this.db)(TABLE).where({ id }).first();
    const row = await (trx ? q.forUpdate() : q);
    if (!row) throw new AppError('ERR_NO_ANNOUNCEMENT_FOUND');
    return row as Row;
  }

  /**
   * One page (20) by priority (1 first) then newest. `isSuper` callers see every announcement (optionally
   * filtered by `status`); others only the active ones that target their company (`companyId`) or every
   * company. `searchParam` matches the title, case-insensitively.
   */
  async list(isSuper: boolean, q: ListAnnouncementsQuery, companyId: number): Promise<{ records: Announcement[]; count: number; hasMore: boolean }> {
    const { offset, limit, hasMore } = page(q.pageNumber, PAGE_SIZE);
    const base = this.db(TABLE);
    if (!isSuper) void base.where({ status: true }).where((w) => w.whereNull('targetCompanyIds').orWhereRaw('? = ANY(target_company_ids)', [companyId]));
    else if (q.status !== undefined) void base.where({ status: q.status });
    const term = (q.searchParam ?? '').trim().toLowerCase();
    if (term) void base.whereRaw('lower(title) LIKE ?', [`%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`]);
    const [{ count }] = await base.clone().count<{ count: string }[]>({ count: '*' });
    const rows = await base.clone().orderBy('priority').orderBy('createdAt', 'desc').orderBy('id', 'desc').offset(offset).limit(limit);
    const total = Number(count);
    return { records: rows.map((r: Record<string, unknown>) => this.out(r)), count: total, hasMore: hasMore(total, rows.length) };
  }

  /** One announcement; 404 ERR_NO_ANNOUNCEMENT_FOUND. */
  async get(id: number): Promise<Announcement> {
    return this.out(await this.load(id));
  }

  /** Creates an announcement authored by `companyId` (priority 3 and active unless given); emits create. */
  async create(companyId: number, body: AnnouncementBody): Promise<Announcement> {
    const input = values(body);
    const [row] = await this.db(TABLE).insert({ priority: 3, status: true, ...input, companyId }).returning('*');
    this.push(undefined, row as Row);
    return this.out(row);
  }

  /** Updates the given fields; emits update; 404 ERR_NO_ANNOUNCEMENT_FOUND. */
  async update(id: number, body: AnnouncementBody): Promise<Announcement> {
    const input = values(body);
    const { prev, row } = await this.db.transaction(async (trx) => {
      const before = await this.load(id, trx);
      const [after] = await trx(TABLE).where({ id }).update({ ...input, updatedAt: trx.fn.now() }).returning('*');
      return { prev: before, row: after as Row };
    });
    this.push(prev, row);
    return this.out(row);
  }

  /** Deletes an announcement and its image; emits delete; 404 ERR_NO_ANNOUNCEMENT_FOUND. */
  async remove(id: number): Promise<void> {
    const [row] = await this.db(TABLE).where({ id }).del().returning('*');
    if (!row) throw new AppError('ERR_NO_ANNOUNCEMENT_FOUND');
    const removed = row as Row;
    if (removed.mediaPath) await this.uploads.remove(removed.companyId, removed.mediaPath);
    this.push(removed, undefined);
  }

  /**
   * Stores `file` (PNG or JPEG by content, at most MEDIA_MAX_BYTES) as the image of announcement `id`,
   * replacing and deleting the previous one; emits update. `file` is read only once the announcement is
   * known to exist (404 first); 413 ERR_PAYLOAD_TOO_LARGE, 415 ERR_UPLOAD_TYPE with nothing stored.
   */
  async setMedia(id: number, nextFile: () => Promise<UploadFile | undefined>): Promise<Announcement> {
    const existing = await this.load(id);
    const file = await nextFile();
    if (!file) throw new AppError('ERR_VALIDATION', 'A multipart file part is required');
    // Stored in the author's company folder, where `url` signs it from.
    const companyId = existing.companyId;
    const stored = await this.uploads.save(companyId, MEDIA_AREA, file, { allow: MEDIA_TYPES, maxBytes: MEDIA_MAX_BYTES });
    let result: { row: Row; previous: string | null };
    try {
      result = await this.db.transaction(async (trx) => {
        const row = await this.load(id, trx);
        const [updated] = await trx(TABLE).where({ id }).update({ mediaPath: stored.path, mediaName: stored.fileName, updatedAt: trx.fn.now() }).returning('*');
        return { row: updated as Row, previous: row.mediaPath };
      });
    } catch (err) {
      await this.uploads.remove(companyId, stored.path);
      throw err;
    }
    if (result.previous && result.previous !== stored.path) await this.uploads.remove(companyId, result.previous);
    this.push(result.row, result.row);
    return this.out(result.row);
  }

  /** Removes the image of announcement `id` (file deleted after commit); emits update. */
  async clearMedia(id: number): Promise<Announcement> {
    const result = await this.db.transaction(async (trx) => {
      const row = await this.load(id, trx);
      const [updated] = await trx(TABLE).where({ id }).update({ mediaPath: null, mediaName: null, updatedAt: trx.fn.now() }).returning('*');
      return { row: updated as Row, previous: row.mediaPath };
    });
    if (result.previous) await this.uploads.remove(result.row.companyId, result.previous);
    this.push(result.row, result.row);
    return this.out(result.row);
  }
}
