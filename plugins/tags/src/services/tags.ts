import type { Knex } from 'knex';
import { AppError, iso } from '@atendo/sdk';
import { WIRE_COUNT_KEYS, type Tag, type TagCounter, type TagsService, type TagWithCounts } from '../contract';

/** The writable fields of a tag, already normalised. */
export interface TagInput {
  name?: string;
  color?: string;
  kanban?: 0 | 1;
}

/** A counter key: camelCase ending in `Count`, so it never shadows a tag field. */
const COUNTER_KEY = /^[a-z][a-zA-Z0-9]*Count$/;

const UNIQUE_INDEX = 'tags_company_name_kanban_unique';

/** Escapes `%`, `_` and `\` for a LIKE pattern. */
export function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A `tags` row as the wire shows it: kanban as 0|1, ISO timestamps. */
function toTag(row: Record<string, unknown>): Tag {
  return {
    id: row.id as number,
    companyId: row.companyId as number,
    name: String(row.name),
    color: String(row.color),
    kanban: Number(row.kanban) === 1 ? 1 : 0,
    userId: (row.userId as number | null) ?? null,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/**
 * Data access for tags. Every method takes the caller's `companyId` and filters on it. Name uniqueness
 * (per company and kind, case-insensitive) is checked in the writing transaction and backed by a unique
 * index for concurrent writers (409 ERR_DUPLICATED_NAME).
 */
export class TagStore implements TagsService {
  private readonly counters = new Map<string, { counter: TagCounter; contributor: string }>();

  constructor(private readonly db: Knex) {}

  /**
   * Takes a contribution to `tags.counters`. Throws (refusing the contributor's boot) for a malformed key or
   * a key another counter already has.
   */
  addCounter(counter: TagCounter, contributor: string): void {
    if (!counter || typeof counter.count !== 'function' || typeof counter.key !== 'string' || !COUNTER_KEY.test(counter.key)) {
      throw new Error(`plugin ${contributor}: a tag counter needs a camelCase key ending in "Count" and a count function`);
    }
    const known = this.counters.get(counter.key);
    if (known) throw new Error(`tag counter ${counter.key} is already registered (by ${known.contributor}; ${contributor} contributes it again)`);
    this.counters.set(counter.key, { counter, contributor });
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

  /** The ids of the company's kanban tags, ascending (TagsService.kanbanIds). */
  async kanbanIds(companyId: number): Promise<number[]> {
    return (await this.db('tags').where({ companyId, kanban: 1 }).orderBy('id').select('id')).map((r: { id: number }) => Number(r.id));
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

  /**
   * Adds each contributed counter's key, and `contactsCount` / `ticketsCount` (the wire's counts) as 0 when
   * no counter gives them.
   */
  async withCounts(companyId: number, tags: Tag[]): Promise<TagWithCounts[]> {
    const ids = tags.map((t) => t.id);
    const keys = [...new Set<string>([...WIRE_COUNT_KEYS, ...this.counters.keys()])];
    const counts = await Promise.all(
      keys.map((key) => {
        const entry = this.counters.get(key);
        return entry && ids.length ? entry.counter.count(companyId, ids) : Promise.resolve(new Map<number, number>());
      }),
    );
    return tags.map((t) => {
      const row: TagWithCounts = { ...t, contactsCount: 0, ticketsCount: 0 };
      keys.forEach((key, i) => {
        row[key] = Number(counts[i].get(t.id) ?? 0);
      });
      return row;
    });
  }

  /** The narrow service other plugins use. */
  service(): TagsService {
    return {
      getMany: (c, ids) => this.getMany(c, ids),
      assertAll: (c, ids, trx) => this.assertAll(c, ids, trx),
      kanbanIds: (c) => this.kanbanIds(c),
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
