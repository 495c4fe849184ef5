import type { Knex } from 'knex';
import { AppError, iso, page, toInt, type Realtime, type StoredFile, type UploadFile, type UploadService } from '@atendo/sdk';
import { FILE_MEDIA_TYPES, filesEvent, MAX_OPTIONS, PAGE_SIZE, type FileList, type FileOption, type FilesEvent } from '../contract';
import type { FileListBody, ListFilesQuery } from '../schemas/files';

/** Upload area (folder) of option files: `company{id}/fileList/`. */
export const FILES_AREA = 'fileList';

type Row = Record<string, unknown>;

const likeTerm = (term: string) => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** One multipart part of the upload route, as `@fastify/multipart` yields it. */
export type UploadPart = ({ type: 'file' } & UploadFile & { fieldname: string }) | { type: 'field'; fieldname: string; value: unknown };

/**
 * The `files_lists` of a company and their `files_options` (files kept by the kernel's upload store under
 * `company{id}/fileList/`). Every method is scoped to `companyId`: another company's list is 404
 * ERR_NO_FILE_LIST_FOUND. Writes run in one transaction; `company-{cid}-file` goes out after commit, and
 * files of removed options are deleted after commit.
 */
export class FileListStore {
  constructor(
    private readonly db: Knex,
    private readonly realtime: Realtime,
    private readonly uploads: UploadService,
    private readonly maxFileBytes: number,
  ) {}

  private emit(companyId: number, payload: FilesEvent): void {
    this.realtime.emitToCompany(companyId, filesEvent(companyId), payload);
  }

  private option(row: Row): FileOption {
    const companyId = row.companyId as number;
    const path = (row.path as string | null) || null;
    return {
      id: row.id as number,
      fileId: row.fileListId as number,
      name: String(row.name),
      path: path ? this.uploads.url(companyId, path) : null,
      mediaType: (row.mediaType as string | null) ?? null,
      mediaName: (row.mediaName as string | null) ?? null,
      createdAt: iso(row.createdAt),
      updatedAt: iso(row.updatedAt),
    };
  }

  private out(row: Row, options: Row[]): FileList {
    return {
      id: row.id as number,
      companyId: row.companyId as number,
      userId: (row.userId as number | null) ?? null,
      name: String(row.name),
      message: String(row.message ?? ''),
      options: options.map((o) => this.option(o)),
      createdAt: iso(row.createdAt),
      updatedAt: iso(row.updatedAt),
    };
  }

  private async optionsOf(db: Knex | Knex.Transaction, companyId: number, listIds: number[]): Promise<Map<number, Row[]>> {
    const out = new Map<number, Row[]>(listIds.map((id) => [id, []]));
    if (!listIds.length) return out;
    const rows: Row[] = await db('filesOptions').where({ companyId }).whereIn('fileListId', listIds).orderBy([{ column: 'position' }, { column: 'id' }]);
    for (const r of rows) out.get(r.fileListId as number)?.push(r);
    return out;
  }

  private async load(db: Knex | Knex.Transaction, companyId: number, id: number, lock = false): Promise<Row> {
    const q = db('filesLists').where({ companyId, id }).first();
    const row: Row | undefined = await (lock ? q.forUpdate() : q);
    if (!row) throw new AppError('ERR_NO_FILE_LIST_FOUND');
    return row;
  }

  /** One list with its options, or undefined. */
  async get(companyId: number, id: number): Promise<FileList | undefined> {
    const row: Row | undefined = await this.db('filesLists').where({ companyId, id }).first();
    if (!row) return undefined;
    return this.out(row, (await this.optionsOf(this.db, companyId, [id])).get(id) ?? []);
  }

  /** One list; 404 ERR_NO_FILE_LIST_FOUND. */
  async getOr404(companyId: number, id: number): Promise<FileList> {
    const list = await this.get(companyId, id);
    if (!list) throw new AppError('ERR_NO_FILE_LIST_FOUND');
    return list;
  }

  /** A page of the company's lists by name (PAGE_SIZE), `searchParam` matching the name (case-insensitive). */
  async list(companyId: number, q: ListFilesQuery): Promise<{ files: FileList[]; count: number; hasMore: boolean }> {
    const { offset, limit, hasMore } = page(q.pageNumber, PAGE_SIZE);
    const base = this.db('filesLists').where({ companyId });
    const term = (q.searchParam ?? '').trim().toLowerCase();
    if (term) void base.whereRaw("lower(name) LIKE ? ESCAPE '\\'", [likeTerm(term)]);
    const [{ n }] = await base.clone().count({ n: '*' });
    const rows: Row[] = await base.clone().orderByRaw('lower(name), id').offset(offset).limit(limit);
    const options = await this.optionsOf(this.db, companyId, rows.map((r) => r.id as number));
    const count = Number(n);
    return { files: rows.map((r) => this.out(r, options.get(r.id as number) ?? [])), count, hasMore: hasMore(count, rows.length) };
  }

  /** Every list of the company, `{id, name}` by name. */
  async listNames(companyId: number): Promise<{ id: number; name: string }[]> {
    return this.db('filesLists').where({ companyId }).orderByRaw('lower(name), id').select('id', 'name');
  }

  /** Trimmed name (3..100) and message (not blank); 400 ERR_VALIDATION otherwise. */
  private clean(body: FileListBody): { name: string; message: string; options: { id?: number; name: string }[] } {
    const name = body.name.trim();
    if (name.length < 3) throw new AppError('ERR_VALIDATION', 'name must have at least 3 characters');
    const message = body.message.trim();
    if (!message) throw new AppError('ERR_VALIDATION', 'message is required');
    const options = (body.options ?? []).map((o) => {
      const optionName = o.name.trim();
      if (!optionName) throw new AppError('ERR_VALIDATION', 'every option needs a name');
      const id = o.id === null || o.id === undefined ? undefined : toInt(o.id);
      return { id, name: optionName };
    });
    const ids = options.map((o) => o.id).filter((id): id is number => id !== undefined);
    if (new Set(ids).size !== ids.length) throw new AppError('ERR_VALIDATION', 'an option id appears twice');
    return { name, message, options };
  }

  /** Creates a list with its options (in the given order, files to be uploaded); emits `create`. */
  async create(companyId: number, userId: number, body: FileListBody): Promise<FileList> {
    const v = this.clean(body);
    if (v.options.some((o) => o.id !== undefined)) throw new AppError('ERR_VALIDATION', 'a new list has no option ids');
    const list = await this.db.transaction(async (trx) => {
      const [row] = await trx('filesLists').insert({ companyId, userId, name: v.name, message: v.message }).returning('*');
      const options: Row[] = v.options.length
        ? await trx('filesOptions').insert(v.options.map((o, position) => ({ companyId, fileListId: row.id, name: o.name, position }))).returning('*')
        : [];
      return this.out(row, options.sort((a, b) => (a.position as number) - (b.position as number)));
    });
    this.emit(companyId, { action: 'create', files: list });
    return list;
  }

  /**
   * Replaces list `id`'s name, message and options: options with an `id` of this list are kept (renamed,
   * reordered), those without one are added, the others are deleted (their files after commit). 400
   * ERR_VALIDATION for an option id of another list; emits `update`.
   */
  async update(companyId: number, userId: number, id: number, body: FileListBody): Promise<FileList> {
    const v = this.clean(body);
    const { list, removedPaths } = await this.db.transaction(async (trx) => {
      await this.load(trx, companyId, id, true);
      const existing: Row[] = await trx('filesOptions').where({ companyId, fileListId: id });
      const byId = new Map(existing.map((o) => [o.id as number, o]));
      for (const o of v.options) if (o.id !== undefined && !byId.has(o.id)) throw new AppError('ERR_VALIDATION', `option ${o.id} is not an option of this list`);
      const keep = new Set(v.options.map((o) => o.id).filter((x): x is number => x !== undefined));
      const removed = existing.filter((o) => !keep.has(o.id as number));
      if (removed.length) await trx('filesOptions').where({ companyId, fileListId: id }).whereIn('id', removed.map((o) => o.id as number)).del();
      for (const [position, o] of v.options.entries()) {
        if (o.id !== undefined) await trx('filesOptions').where({ companyId, id: o.id }).update({ name: o.name, position, updatedAt: trx.fn.now() });
        else await trx('filesOptions').insert({ companyId, fileListId: id, name: o.name, position });
      }
      const [row] = await trx('filesLists').where({ companyId, id }).update({ name: v.name, message: v.message, userId, updatedAt: trx.fn.now() }).returning('*');
      const options = (await this.optionsOf(trx, companyId, [id])).get(id) ?? [];
      return { list: this.out(row, options), removedPaths: removed.map((o) => o.path as string | null).filter((p): p is string => Boolean(p)) };
    });
    for (const p of removedPaths) await this.uploads.remove(companyId, p);
    this.emit(companyId, { action: 'update', files: list });
    return list;
  }

  /** Deletes list `id`, its options and their files; emits `delete`. */
  async remove(companyId: number, id: number): Promise<void> {
    const paths = await this.db.transaction(async (trx) => {
      await this.load(trx, companyId, id, true);
      const options: Row[] = await trx('filesOptions').where({ companyId, fileListId: id }).select('path');
      await trx('filesLists').where({ companyId, id }).del();
      return options.map((o) => o.path as string | null).filter((p): p is string => Boolean(p));
    });
    for (const p of paths) await this.uploads.remove(companyId, p);
    this.emit(companyId, { action: 'delete', fileId: id });
  }

  /**
   * The upload of `POST /files/uploadList/:fileListId` (the product family's form: fields `fileId`,
   * `typeArch`, and per chosen file `files` (the file), `mediaType`, `name`, `id` (the option's id)). The
   * n-th file goes to the option of the n-th `id`; each file is checked by content (FILE_MEDIA_TYPES) and
   * size (FILES_MAX_FILE_BYTES, ceiling UPLOAD_LIMIT) as it streams. The list is checked first (404 before
   * anything is stored). All or nothing: any bad part removes the files stored so far (400 ERR_VALIDATION:
   * no file, fewer or more ids than files, an id not of this list or given twice, a `fileId` field naming
   * another list; 413 ERR_PAYLOAD_TOO_LARGE; 415 ERR_UPLOAD_TYPE). Options' previous files are deleted after
   * commit; emits `update`.
   */
  async upload(companyId: number, fileListId: number, parts: AsyncIterable<UploadPart>): Promise<FileList> {
    await this.load(this.db, companyId, fileListId);
    const stored: StoredFile[] = [];
    const ids: string[] = [];
    const cleanup = async () => {
      for (const f of stored) await this.uploads.remove(companyId, f.path).catch(() => undefined);
    };
    let result: { list: FileList; previous: string[] };
    try {
      for await (const part of parts) {
        if (part.type === 'file') {
          if (part.fieldname !== 'files' && part.fieldname !== 'file') {
            part.file.resume();
            throw new AppError('ERR_VALIDATION', 'Files go in the multipart field "files"');
          }
          if (stored.length >= MAX_OPTIONS) {
            part.file.resume();
            throw new AppError('ERR_VALIDATION', `At most ${MAX_OPTIONS} files`);
          }
          stored.push(await this.uploads.save(companyId, FILES_AREA, part, { allow: FILE_MEDIA_TYPES, maxBytes: this.maxFileBytes }));
          continue;
        }
        const value = typeof part.value === 'string' ? part.value.trim() : String(part.value ?? '').trim();
        if (part.fieldname === 'id') ids.push(value);
        else if (part.fieldname === 'fileId' && value && value !== String(fileListId)) throw new AppError('ERR_VALIDATION', 'fileId does not match the list of the URL');
        // typeArch, mediaType and name of old clients are ignored: the type is sniffed, names come from the list.
      }
      if (!stored.length) throw new AppError('ERR_VALIDATION', 'Send at least one file in "files", each followed by its option "id"');
      if (ids.length !== stored.length) throw new AppError('ERR_VALIDATION', 'Give one option "id" per file');
      const optionIds = ids.map((v) => (/^\d{1,10}$/.test(v) ? Number(v) : NaN));
      if (optionIds.some((n) => !Number.isSafeInteger(n) || n < 1)) throw new AppError('ERR_VALIDATION', 'Option ids must be positive integers');
      if (new Set(optionIds).size !== optionIds.length) throw new AppError('ERR_VALIDATION', 'An option id appears twice');
      result = await this.db.transaction(async (trx) => {
        await this.load(trx, companyId, fileListId, true);
        const options: Row[] = await trx('filesOptions').where({ companyId, fileListId }).whereIn('id', optionIds);
        if (options.length !== optionIds.length) throw new AppError('ERR_VALIDATION', 'An option id is not an option of this list');
        const byId = new Map(options.map((o) => [o.id as number, o]));
        const previous: string[] = [];
        for (const [i, optionId] of optionIds.entries()) {
          const f = stored[i];
          const old = byId.get(optionId)?.path as string | null;
          if (old && old !== f.path) previous.push(old);
          await trx('filesOptions').where({ companyId, id: optionId }).update({ path: f.path, mediaType: f.mimeType, mediaName: f.fileName, updatedAt: trx.fn.now() });
        }
        const [row] = await trx('filesLists').where({ companyId, id: fileListId }).update({ updatedAt: trx.fn.now() }).returning('*');
        return { list: this.out(row, (await this.optionsOf(trx, companyId, [fileListId])).get(fileListId) ?? []), previous };
      });
    } catch (err) {
      await cleanup();
      throw err;
    }
    for (const p of result.previous) await this.uploads.remove(companyId, p);
    this.emit(companyId, { action: 'update', files: result.list });
    return result.list;
  }

  /** The stored options of a list with files, in order (for sending): relative path, type, file name. */
  async filesToSend(companyId: number, fileListId: number): Promise<{ list: Row; options: { name: string; path: string; mediaName: string | null }[] }> {
    const list = await this.load(this.db, companyId, fileListId);
    const rows = (await this.optionsOf(this.db, companyId, [fileListId])).get(fileListId) ?? [];
    return { list, options: rows.filter((o) => o.path).map((o) => ({ name: String(o.name), path: String(o.path), mediaName: (o.mediaName as string | null) ?? null })) };
  }
}
