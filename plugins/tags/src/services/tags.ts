import type { Knex } from 'knex';
import { AppError } from '@atendo/sdk';

/** A tag as the API shows it (wire-shapes §2 "Tag"). `kanban` is 1 for kanban lanes, 0 otherwise. */
export interface Tag {
  id: number;
  companyId: number;
  name: string;
  color: string;
  kanban: 0 | 1;
  /** The user who created the tag (null when that user was deleted). */
  userId: number | null;
  createdAt: Date | string;
  updatedAt: Date | string;
}

/** A tag of the `GET /tags` list, with the counts other plugins contribute (0 when none does). */
export type TagWithCounts = Tag & { contactsCount: number; ticketsCount: number };

/** The counts a tag list shows; each is contributed by the plugin that owns the linking table. */
export type TagCounterKey = 'contactsCount' | 'ticketsCount';

/**
 * A counter: for the given tags of `companyId`, the number of linked records per tag id. Tags missing
 * from the map count 0. Must filter on `companyId`.
 */
export type TagCounter = (companyId: number, tagIds: number[]) => Promise<Map<number, number>>;

/** The writable fields of a tag, already normalised. */
export interface TagInput {
  name?: string;
  color?: string;
  kanban?: 0 | 1;
}

/**
 * The `tags` service other plugins get with `ctx.services.get<TagsService>('tags')` (declare
 * `dependsOn: ['tags']`). Every method is scoped to `companyId`: ids of another company are unknown.
 */
export interface TagsService {
  /** The tags of `companyId` among `ids` (unknown ids are skipped), ordered by name. */
  getMany(companyId: number, ids: number[]): Promise<Tag[]>;
  /**
   * Throws 404 ERR_NO_TAG_FOUND unless every id is a tag of `companyId`. With `trx`, the tags are read
   * `FOR SHARE` inside it, so they cannot be deleted before the caller's transaction ends.
   */
  assertAll(companyId: number, ids: number[], trx?: Knex.Transaction): Promise<void>;
  /**
   * Extension point: the plugin owning a tag link (contacts, tickets) registers the counter for its key.
   * One counter per key; a second registration throws.
   */
  registerCounter(key: TagCounterKey, fn: TagCounter): void;
}

const UNIQUE_INDEX = 'tags_company_name_kanban_unique';

/** Escapes `%`, `_` and `\` for a LIKE pattern. */
export function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Normalises a `tags` row (kanban as 0|1). */
function toTag(row: Record<string, unknown>): Tag {
  return { ...(row as unknown as Tag), kanban: Number(row.kanban) === 1 ? 1 : 0 };
}

/**
 * Data access for tags. Every method takes the caller's `companyId` and filters on it. Name uniqueness
 * (per company and kind, case-insensitive) is checked in the writing transaction and backed by a unique
 * index for concurrent writers (409 ERR_DUPLICATED_NAME).
 */
export class TagStore implements TagsService {
  private readonly counters = new Map<TagCounterKey, TagCounter>();

  constructor(private readonly db: Knex) {}

  registerCounter(key: TagCounterKey, fn: TagCounter): void {
    if (this.counters.has(key)) throw new Error(`tag counter ${key} is already registered`);
    this.counters.set(key, fn);
  }

  /**
   * One page of the company's tags ordered by name (then id), optionally filtered by a case-insensitive
   * name fragment and by kind. Returns the page with counts and the total matching count.
   */
  async page(companyId: number, opts: { searchParam?: string; kanban?: 0 | 1; offset: number; limit: number }): Promise<{ tags: TagWithCounts[]; count: number }> {
    const base = () => {
      const q = this.db('tags').where({ companyId });
      if (opts.kanban !== undefined) q.andWhere({ kanban: opts.kanban });
      const term = opts.searchParam?.trim().toLowerCase();
      if (term) q.andWhereRaw("lower(name) LIKE ? ESCAPE '\\'", [`%${likeEscape(term)}%`]);
      return q;
    };
    const [{ n }] = await base().count({ n: '*' });
    const rows = await base().orderByRaw('lower(name) ASC, id ASC').offset(opts.offset).limit(opts.limit);
    return { tags: await this.withCounts(companyId, rows.map(toTag)), count: Number(n) };
  }

  /** Every tag of the company (optionally of one kind), ordered by name. */
  async list(companyId: number, kanban?: 0 | 1): Promise<Tag[]> {
    const q = this.db('tags').where({ companyId });
    if (kanban !== undefined) q.andWhere({ kanban });
    return (await q.orderByRaw('lower(name) ASC, id ASC')).map(toTag);
  }

  /** The company's kanban tags ordered by id (the lanes of the board). */
  async kanbanLanes(companyId: number): Promise<Tag[]> {
    return (await this.db('tags').where({ companyId, kanban: 1 }).orderBy('id')).map(toTag);
  }

  async get(companyId: number, id: number): Promise<Tag | undefined> {
    const row = await this.db('tags').where({ companyId, id }).first();
    return row ? toTag(row) : undefined;
  }

  async getMany(companyId: number, ids: number[]): Promise<Tag[]> {
    const wanted = [...new Set(ids)].filter((v) => Number.isInteger(v) && v > 0 && v <= 2147483647);
    if (!wanted.length) return [];
    return (await this.db('tags').where({ companyId }).whereIn('id', wanted).orderByRaw('lower(name) ASC, id ASC')).map(toTag);
  }

  async assertAll(companyId: number, ids: number[], trx?: Knex.Transaction): Promise<void> {
    const wanted = [...new Set(ids)];
    if (!wanted.length) return;
    if (wanted.some((v) => !Number.isInteger(v) || v < 1 || v > 2147483647)) throw new AppError('ERR_NO_TAG_FOUND');
    const q = (trx ?? this.db)('tags').where({ companyId }).whereIn('id', wanted).select('id');
    if (trx) q.forShare();
    const found = await q;
    if (found.length !== wanted.length) throw new AppError('ERR_NO_TAG_FOUND');
  }

  /** Creates a tag owned by `userId`; 409 ERR_DUPLICATED_NAME when the name exists for that kind. */
  async create(companyId: number, userId: number, input: Required<TagInput>): Promise<Tag> {
    try {
      return await this.db.transaction(async (trx) => {
        await this.assertUniqueName(trx, companyId, input.name, input.kanban);
        const [row] = await trx('tags')
          .insert({ companyId, userId, name: input.name, color: input.color, kanban: input.kanban })
          .returning('*');
        return toTag(row);
      });
    } catch (err) {
      mapUniqueViolation(err);
    }
  }

  /**
   * Updates the given fields; 404 ERR_NO_TAG_FOUND for ids outside the company; 409 ERR_DUPLICATED_NAME.
   * `check` runs on the resulting tag inside the transaction before it is written (plan gates).
   */
  async update(companyId: number, id: number, input: TagInput, check?: (next: Tag) => Promise<void>): Promise<Tag> {
    try {
      return await this.db.transaction(async (trx) => {
        const current = await trx('tags').where({ companyId, id }).forUpdate().first();
        if (!current) throw new AppError('ERR_NO_TAG_FOUND');
        const next = { ...toTag(current), ...input };
        if (check) await check(next);
        if (input.name !== undefined || input.kanban !== undefined) await this.assertUniqueName(trx, companyId, next.name, next.kanban, id);
        const patch: Record<string, unknown> = {};
        for (const k of ['name', 'color', 'kanban'] as const) if (input[k] !== undefined) patch[k] = input[k];
        const [row] = await trx('tags')
          .where({ companyId, id })
          .update({ ...patch, updatedAt: trx.fn.now() })
          .returning('*');
        return toTag(row);
      });
    } catch (err) {
      mapUniqueViolation(err);
    }
  }

  /** Deletes a tag (its links go with it); 404 ERR_NO_TAG_FOUND for ids outside the company. */
  async remove(companyId: number, id: number): Promise<void> {
    const n = await this.db('tags').where({ companyId, id }).del();
    if (!n) throw new AppError('ERR_NO_TAG_FOUND');
  }

  /** Adds `contactsCount` and `ticketsCount` from the registered counters (0 when a counter is missing). */
  async withCounts(companyId: number, tags: Tag[]): Promise<TagWithCounts[]> {
    const ids = tags.map((t) => t.id);
    const empty = new Map<number, number>();
    const run = (key: TagCounterKey) => {
      const fn = this.counters.get(key);
      return fn && ids.length ? fn(companyId, ids) : Promise.resolve(empty);
    };
    const [contacts, tickets] = await Promise.all([run('contactsCount'), run('ticketsCount')]);
    return tags.map((t) => ({ ...t, contactsCount: Number(contacts.get(t.id) ?? 0), ticketsCount: Number(tickets.get(t.id) ?? 0) }));
  }

  /** The narrow service other plugins use. */
  service(): TagsService {
    return {
      getMany: (c, ids) => this.getMany(c, ids),
      assertAll: (c, ids, trx) => this.assertAll(c, ids, trx),
      registerCounter: (key, fn) => this.registerCounter(key, fn),
    };
  }

  private async assertUniqueName(trx: Knex.Transaction, companyId: number, name: string, kanban: 0 | 1, exceptId?: number): Promise<void> {
    const q = trx('tags').where({ companyId, kanban }).whereRaw('lower(name) = lower(?)', [name]);
    if (exceptId !== undefined) q.whereNot({ id: exceptId });
    if (await q.first('id')) throw new AppError('ERR_DUPLICATED_NAME', 'A tag with this name already exists');
  }
}

/** Maps a unique violation on the tag name (concurrent writes) to 409 ERR_DUPLICATED_NAME. */
function mapUniqueViolation(err: unknown): never {
  const e = err as { code?: string; constraint?: string };
  if (e.code === '23505' && e.constraint === UNIQUE_INDEX) throw new AppError('ERR_DUPLICATED_NAME', 'A tag with this name already exists');
  throw err;
}
