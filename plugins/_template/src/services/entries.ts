import type { Knex } from 'knex';
import { AppError, iso, page, type Bus, type Realtime } from '@atendo/sdk';
import { entryCreated, myFeatureEvent, type MyFeatureEntry, type MyFeatureService } from '../contract';
import type { ListEntriesQuery } from '../schemas/entries';

/** A `my_feature_entries` row as the API shows it. */
function toEntry(row: Record<string, unknown>): MyFeatureEntry {
  return {
    id: row.id as number,
    companyId: row.companyId as number,
    title: String(row.title),
    createdBy: (row.createdBy as number | null) ?? null,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/**
 * Data access for the plugin's table. Every method takes the caller's `companyId` and filters on it; multi-row
 * writes run in one transaction; events (socket.io and bus) go out after commit.
 */
export class EntryStore implements MyFeatureService {
  constructor(
    private readonly db: Knex,
    private readonly realtime: Realtime,
    private readonly bus: Bus,
    private readonly pageSize: number,
  ) {}

  /** One page of the company's entries, newest first, optionally filtered by a title fragment. */
  async list(companyId: number, q: ListEntriesQuery): Promise<{ records: MyFeatureEntry[]; count: number; hasMore: boolean }> {
    const { offset, limit, hasMore } = page(q.pageNumber, this.pageSize);
    const base = this.db('myFeatureEntries').where({ companyId });
    const term = (q.searchParam ?? '').trim().toLowerCase();
    if (term) void base.whereRaw("lower(title) LIKE ? ESCAPE '\\'", [`%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`]);
    const [{ n }] = await base.clone().count({ n: '*' });
    const rows = await base.clone().orderBy('id', 'desc').offset(offset).limit(limit);
    const count = Number(n);
    return { records: rows.map(toEntry), count, hasMore: hasMore(count, rows.length) };
  }

  async get(companyId: number, id: number): Promise<MyFeatureEntry | undefined> {
    const row = await this.db('myFeatureEntries').where({ companyId, id }).first();
    return row ? toEntry(row) : undefined;
  }

  /** One entry; 404 ERR_NO_MY_FEATURE_ENTRY_FOUND for ids outside the company. */
  async getOr404(companyId: number, id: number): Promise<MyFeatureEntry> {
    const entry = await this.get(companyId, id);
    if (!entry) throw new AppError('ERR_NO_MY_FEATURE_ENTRY_FOUND');
    return entry;
  }

  async count(companyId: number): Promise<number> {
    const [{ n }] = await this.db('myFeatureEntries').where({ companyId }).count({ n: '*' });
    return Number(n);
  }

  /** Creates an entry (400 ERR_VALIDATION for a blank title); emits `create` and publishes `my-feature.entry-created`. */
  async create(companyId: number, userId: number | null, title: string): Promise<MyFeatureEntry> {
    const clean = title.trim();
    if (!clean) throw new AppError('ERR_VALIDATION', 'title must not be blank');
    const [row] = await this.db('myFeatureEntries').insert({ companyId, createdBy: userId, title: clean }).returning('*');
    const entry = toEntry(row);
    this.realtime.emitToCompany(companyId, myFeatureEvent(companyId), { action: 'create', record: entry });
    await this.bus.publish(entryCreated, { companyId, entryId: entry.id });
    return entry;
  }

  /** Deletes an entry; 404 ERR_NO_MY_FEATURE_ENTRY_FOUND; emits `delete`. */
  async remove(companyId: number, id: number): Promise<void> {
    const n = await this.db('myFeatureEntries').where({ companyId, id }).del();
    if (!n) throw new AppError('ERR_NO_MY_FEATURE_ENTRY_FOUND');
    this.realtime.emitToCompany(companyId, myFeatureEvent(companyId), { action: 'delete', id });
  }

  /** The narrow service other plugins get (never the store itself). */
  service(): MyFeatureService {
    return { get: (c, id) => this.get(c, id), count: (c) => this.count(c) };
  }
}
