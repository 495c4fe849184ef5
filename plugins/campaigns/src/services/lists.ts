import type { Knex } from 'knex';
import type { FastifyBaseLogger } from 'fastify';
import { AppError, iso, maskNumber, page, type Jobs, type Realtime } from '@atendo/sdk';
import type { ConnectionsService } from '@atendo/plugin-connections/contract';
import {
  checkNumbersJob,
  contactListEvent,
  contactListItemEvent,
  contactListItemsOfListEvent,
  NAME_MAX,
  NAME_MIN,
  NUMBER_MAX,
  NUMBER_MIN,
  PAGE_SIZE,
  type ContactList,
  type ContactListItem,
  type ImportProgress,
  type NumberChecker,
} from '../contract';
import { normalizeNumber, parseConsentAt, parseLegalBasis } from './rules';
import { readListSheet } from './sheet';

const LISTS = 'campaigns_contact_lists';
const ITEMS = 'campaigns_contact_list_items';
/** Rows written per statement of an import (and the progress event cadence). */
const IMPORT_BATCH = 1000;
/** Numbers asked of a checker at once. */
const CHECK_BATCH = 100;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Body of the item routes. */
export interface ItemInput {
  name?: string;
  number?: string | null;
  email?: string | null;
  legalBasis?: string | null;
  consentAt?: string | null;
  contactListId?: number | string;
}

/** Validated item columns. */
interface ItemValues {
  name: string;
  number: string;
  email: string;
  legalBasis: string | null;
  consentAt: Date | null;
}

/**
 * An item's fields checked as spec §5 says: name 2..50 (required), number 8..50 characters when given
 * (stored normalised, see `normalizeNumber`), email valid when given; issue 34: `legalBasis` one of
 * `LEGAL_BASES` (`parseLegalBasis`) and `consentAt` a past date (`parseConsentAt`), both optional ('' or
 * null: none). Throws 400 ERR_VALIDATION; `partial` leaves absent fields out.
 */
export function itemValues(input: ItemInput, partial = false): Partial<ItemValues> {
  const out: Partial<ItemValues> = {};
  if (input.name !== undefined || !partial) {
    const name = (input.name ?? '').trim();
    if (name.length < NAME_MIN || name.length > NAME_MAX) throw new AppError('ERR_VALIDATION', `name must have ${NAME_MIN} to ${NAME_MAX} characters`);
    out.name = name;
  }
  if (input.number !== undefined || !partial) {
    const raw = (input.number ?? '').trim();
    if (raw) {
      if (raw.length < NUMBER_MIN || raw.length > NUMBER_MAX) throw new AppError('ERR_VALIDATION', `number must have ${NUMBER_MIN} to ${NUMBER_MAX} characters`);
      const n = normalizeNumber(raw);
      if (!n) throw new AppError('ERR_VALIDATION', 'number must be a phone number (digits, spaces, + - ( ) .)');
      out.number = n;
    } else out.number = '';
  }
  if (input.email !== undefined || !partial) {
    const email = (input.email ?? '').trim();
    if (email && (email.length > 200 || !EMAIL.test(email))) throw new AppError('ERR_VALIDATION', 'Invalid email');
    out.email = email;
  }
  if (input.legalBasis !== undefined || !partial) out.legalBasis = parseLegalBasis(input.legalBasis);
  if (input.consentAt !== undefined || !partial) out.consentAt = parseConsentAt(input.consentAt);
  return out;
}

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';

/**
 * Contact lists and their items (spec "Contact lists", "Contact list items", §3, §5, §7), every query scoped
 * to the company. Writes emit `company-{cid}-ContactList` / `-ContactListItem` after commit; imports emit
 * progress on `company-{cid}-ContactListItem-{listId}`.
 */
export class ListStore {
  constructor(
    private readonly db: Knex,
    private readonly realtime: Realtime,
    private readonly jobs: Jobs,
    private readonly log: FastifyBaseLogger,
    private readonly connections: ConnectionsService,
    private readonly checkers: () => readonly NumberChecker[],
    private readonly maxImportRows: number,
  ) {}

  // -------------------------------------------------------------------------------------------------
  // Lists

  private listQuery(companyId: number) {
    return this.db(`${LISTS} as l`)
      .where('l.companyId', companyId)
      .select('l.*', this.db.raw(`(SELECT count(*) FROM ${ITEMS} i WHERE i.contact_list_id = l.id)::text AS contacts_count`));
  }

  private list(r: Record<string, unknown>): ContactList {
    return { id: r.id as number, name: String(r.name), contactsCount: String(r.contactsCount ?? '0'), companyId: r.companyId as number, createdAt: iso(r.createdAt), updatedAt: iso(r.updatedAt) };
  }

  /** One list with its item count, or 404 ERR_NO_CONTACT_LIST_FOUND. */
  async getList(companyId: number, id: number): Promise<ContactList> {
    const r = await this.listQuery(companyId).where('l.id', id).first();
    if (!r) throw new AppError('ERR_NO_CONTACT_LIST_FOUND');
    return this.list(r);
  }

  /** `GET /contact-lists`: 20 a page by name; `searchParam` matches the name (case-insensitive). */
  async listLists(companyId: number, q: { searchParam?: string; pageNumber?: number }): Promise<{ records: ContactList[]; count: number; hasMore: boolean }> {
    const { offset, limit, hasMore } = page(q.pageNumber, PAGE_SIZE);
    const term = (q.searchParam ?? '').trim().toLowerCase();
    const base = this.db(LISTS).where({ companyId });
    if (term) base.whereRaw('lower(name) LIKE ?', [`%${term.replace(/[\\%_]/g, '\\$&')}%`]);
    const [{ count }] = (await base.clone().count({ count: '*' })) as { count: number }[];
    const ids = (await base.clone().select('id').orderBy([{ column: 'name' }, { column: 'id' }]).offset(offset).limit(limit)) as { id: number }[];
    const rows = ids.length ? await this.listQuery(companyId).whereIn('l.id', ids.map((r) => r.id)).orderBy([{ column: 'l.name' }, { column: 'l.id' }]) : [];
    const records = rows.map((r: Record<string, unknown>) => this.list(r));
    return { records, count: Number(count), hasMore: hasMore(Number(count), records.length) };
  }

  /** `GET /contact-lists/list`: every list of the company (at most 1,000), by name, with counts. */
  async allLists(companyId: number): Promise<ContactList[]> {
    return ((await this.listQuery(companyId).orderBy([{ column: 'l.name' }, { column: 'l.id' }]).limit(1000)) as Record<string, unknown>[]).map((r) => this.list(r));
  }

  private emitList(companyId: number, record: ContactList): void {
    this.realtime.emitToCompany(companyId, contactListEvent(companyId), { action: 'update', record });
  }

  async createList(companyId: number, name: string): Promise<ContactList> {
    const clean = checkName(name);
    const [{ id }] = (await this.db(LISTS).insert({ companyId, name: clean }).returning('id')) as { id: number }[];
    const record = await this.getList(companyId, id);
    this.realtime.emitToCompany(companyId, contactListEvent(companyId), { action: 'create', record });
    return record;
  }

  async updateList(companyId: number, id: number, name: string): Promise<ContactList> {
    const n = await this.db(LISTS).where({ companyId, id }).update({ name: checkName(name), updatedAt: this.db.fn.now() });
    if (!n) throw new AppError('ERR_NO_CONTACT_LIST_FOUND');
    const record = await this.getList(companyId, id);
    this.emitList(companyId, record);
    return record;
  }

  /** Deletes the list and its items (campaigns keep their recipients; their `contactListId` becomes null). */
  async deleteList(companyId: number, id: number): Promise<void> {
    const n = await this.db(LISTS).where({ companyId, id }).delete();
    if (!n) throw new AppError('ERR_NO_CONTACT_LIST_FOUND');
    this.realtime.emitToCompany(companyId, contactListEvent(companyId), { action: 'delete', id });
  }

  // -------------------------------------------------------------------------------------------------
  // Items

  private item(r: Record<string, unknown>): ContactListItem {
    return {
      id: r.id as number,
      name: String(r.name),
      number: String(r.number ?? ''),
      email: String(r.email ?? ''),
      isWhatsappValid: r.isWhatsappValid === null || r.isWhatsappValid === undefined ? null : Boolean(r.isWhatsappValid),
      companyId: r.companyId as number,
      contactListId: r.contactListId as number,
      createdAt: iso(r.createdAt),
      updatedAt: iso(r.updatedAt),
      legalBasis: (r.legalBasis as string | null | undefined) ?? null,
      consentAt: r.consentAt ? iso(r.consentAt) : null,
    };
  }

  private async requireList(companyId: number, id: number, db: Knex | Knex.Transaction = this.db): Promise<void> {
    if (!(await db(LISTS).where({ companyId, id }).first('id'))) throw new AppError('ERR_NO_CONTACT_LIST_FOUND');
  }

  async getItem(companyId: number, id: number): Promise<ContactListItem> {
    const r = await this.db(ITEMS).where({ companyId, id }).first();
    if (!r) throw new AppError('ERR_NO_CONTACT_LIST_ITEM_FOUND');
    return this.item(r);
  }

  /**
   * `GET /contact-list-items`: the items of `contactListId` (404 ERR_NO_CONTACT_LIST_FOUND when not the
   * company's), 20 a page by name; `searchParam` matches the name (case-insensitive) or the number's digits;
   * with `exactNumber` (a viewer of masked numbers) only the complete number, and names that are not numbers.
   */
  async listItems(
    companyId: number,
    q: { contactListId: number; searchParam?: string; pageNumber?: number },
    opts: { exactNumber?: boolean } = {},
  ): Promise<{ contacts: ContactListItem[]; count: number; hasMore: boolean }> {
    await this.requireList(companyId, q.contactListId);
    const { offset, limit, hasMore } = page(q.pageNumber, PAGE_SIZE);
    const term = (q.searchParam ?? '').trim().toLowerCase();
    const base = this.db(ITEMS).where({ companyId, contactListId: q.contactListId });
    if (term) {
      const like = `%${term.replace(/[\\%_]/g, '\\$&')}%`;
      const digits = term.replace(/\D/g, '');
      base.where((w) => {
        if (opts.exactNumber) {
          // A viewer of masked numbers: the number only when typed in full, and never a name that is a
          // number (either would let a masked number be recovered digit by digit).
          w.where((n) => n.whereRaw('lower(name) LIKE ?', [like]).whereRaw("name !~ '^[+0-9 ()-]+$'"));
          if (digits) w.orWhere('number', digits);
        } else {
          w.whereRaw('lower(name) LIKE ?', [like]);
          if (digits) w.orWhere('number', 'like', `%${digits}%`);
        }
      });
    }
    const [{ count }] = (await base.clone().count({ count: '*' })) as { count: number }[];
    const rows = (await base.clone().orderBy([{ column: 'name' }, { column: 'id' }]).offset(offset).limit(limit)) as Record<string, unknown>[];
    const contacts = rows.map((r) => this.item(r));
    return { contacts, count: Number(count), hasMore: hasMore(Number(count), contacts.length) };
  }

  private async afterItemWrite(companyId: number, listId: number, action: 'create' | 'update', record: ContactListItem): Promise<void> {
    this.realtime.emitToCompany(companyId, contactListItemEvent(companyId), { action, record });
    this.emitList(companyId, await this.getList(companyId, listId));
  }

  /** Creates an item (409 ERR_CONTACT_LIST_ITEM_DUPLICATED when the list has the number). Its number is checked when a checker can. */
  async createItem(companyId: number, input: ItemInput & { contactListId: number }): Promise<ContactListItem> {
    const values = itemValues(input) as ItemValues;
    await this.requireList(companyId, input.contactListId);
    let id: number;
    try {
      [{ id }] = (await this.db(ITEMS).insert({ companyId, contactListId: input.contactListId, ...values }).returning('id')) as { id: number }[];
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError('ERR_CONTACT_LIST_ITEM_DUPLICATED');
      throw err;
    }
    await this.checkItems(companyId, [id]);
    const record = await this.getItem(companyId, id);
    await this.afterItemWrite(companyId, record.contactListId, 'create', record);
    return record;
  }

  /**
   * Updates an item (fields given); a changed number is checked again. 404 / 409 as `createItem`. A number
   * equal to the stored one's LGPD mask (`maskNumber`: what a plain user was shown under lgpdHideNumber and
   * an edit form sends back) keeps the stored number; any other number with '*' is 400 ERR_VALIDATION.
   */
  async updateItem(companyId: number, id: number, input: ItemInput): Promise<ContactListItem> {
    const before = await this.getItem(companyId, id);
    const typed = typeof input.number === 'string' ? input.number.trim() : undefined;
    if (typed && typed.includes('*') && typed === maskNumber(before.number)) input = { ...input, number: undefined };
    const values = itemValues(input, true);
    const listId = input.contactListId !== undefined ? Number(input.contactListId) : before.contactListId;
    if (listId !== before.contactListId) await this.requireList(companyId, listId);
    const renumbered = values.number !== undefined && values.number !== before.number;
    try {
      await this.db(ITEMS)
        .where({ companyId, id })
        .update({ ...values, contactListId: listId, ...(renumbered ? { isWhatsappValid: null } : {}), updatedAt: this.db.fn.now() });
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError('ERR_CONTACT_LIST_ITEM_DUPLICATED');
      throw err;
    }
    if (renumbered) await this.checkItems(companyId, [id]);
    const record = await this.getItem(companyId, id);
    await this.afterItemWrite(companyId, listId, 'update', record);
    return record;
  }

  async deleteItem(companyId: number, id: number): Promise<void> {
    const [row] = (await this.db(ITEMS).where({ companyId, id }).delete().returning('contactListId')) as { contactListId: number }[];
    if (!row) throw new AppError('ERR_NO_CONTACT_LIST_ITEM_FOUND');
    this.realtime.emitToCompany(companyId, contactListItemEvent(companyId), { action: 'delete', id });
    this.emitList(companyId, await this.getList(companyId, row.contactListId));
  }

  /** Pushes the deletion of items removed elsewhere (an anonymization) and their lists' new counts. */
  async announceDeleted(companyId: number, rows: { id: number; contactListId: number }[]): Promise<void> {
    for (const r of rows) this.realtime.emitToCompany(companyId, contactListItemEvent(companyId), { action: 'delete', id: r.id });
    for (const listId of new Set(rows.map((r) => r.contactListId))) {
      const list = await this.db(`${LISTS} as l`).where({ 'l.companyId': companyId, 'l.id': listId }).first('l.id');
      if (list) this.emitList(companyId, await this.getList(companyId, listId));
    }
  }

  // -------------------------------------------------------------------------------------------------
  // Import

  /**
   * `POST /contact-lists/{id}/upload`: reads the sheet (see `readListSheet`), checks every row like an item
   * (a bad row is reported `{row, error}` with error `INVALID_NAME`, `INVALID_NUMBER` (missing too),
   * `INVALID_EMAIL`, `INVALID_LEGAL_BASIS`, `INVALID_CONSENT_DATE` or `DUPLICATED` (the number appears again
   * further down: the last row wins) and the others go on), then writes them 1,000 a statement: a number
   * already in the list updates its name and e-mail (and its legal basis and consent date when the row has
   * them: a blank cell keeps the stored one), others are created. Emits `{action: 'import-progress', ...}` after each statement, then
   * `{action: 'import-done', ...}` and `{action: 'reload', records}` (the first page) on
   * `company-{cid}-ContactListItem-{listId}`, and the list's update. A row without a name takes its number as
   * name. When a number checker can check the company's default WhatsApp connection, the numbers are checked
   * afterwards by the `campaigns.check-numbers` job (item updates follow).
   */
  async importSheet(companyId: number, listId: number, buf: Buffer, filename?: string): Promise<ImportProgress> {
    await this.requireList(companyId, listId);
    const rows = await readListSheet(buf, { maxRows: this.maxImportRows, filename, companyId });
    const progress: ImportProgress = { contactListId: listId, status: 'running', total: rows.length, processed: 0, created: 0, updated: 0, errors: [] };
    const event = contactListItemsOfListEvent(companyId, listId);
    const valid = new Map<string, { row: number; values: ItemValues }>();
    for (const r of rows) {
      const name = r.name.trim() || r.number.trim();
      try {
        const values = itemValues({ name, number: r.number, email: r.email, legalBasis: r.legalBasis, consentAt: r.consentAt }) as ItemValues;
        if (!values.number) throw new AppError('ERR_VALIDATION', 'number');
        const prev = valid.get(values.number);
        if (prev) progress.errors.push({ row: prev.row, error: 'DUPLICATED' });
        valid.set(values.number, { row: r.row, values });
      } catch (err) {
        const msg = (err as Error).message;
        const error = /legalBasis/.test(msg) ? 'INVALID_LEGAL_BASIS' : /consentAt/.test(msg) ? 'INVALID_CONSENT_DATE' : /mail/i.test(msg) ? 'INVALID_EMAIL' : /name/i.test(msg) ? 'INVALID_NAME' : 'INVALID_NUMBER';
        progress.errors.push({ row: r.row, error });
      }
    }
    progress.processed = progress.errors.length;
    this.realtime.emitToCompany(companyId, event, { action: 'import-progress', ...progress });
    const entries = [...valid.values()];
    for (let i = 0; i < entries.length; i += IMPORT_BATCH) {
      const chunk = entries.slice(i, i + IMPORT_BATCH);
      const res = await this.db.raw(
        `INSERT INTO ${ITEMS} AS i (company_id, contact_list_id, name, number, email, legal_basis, consent_at)
         SELECT ?, ?, x.name, x.number, x.email, x.legal_basis, x.consent_at
           FROM jsonb_to_recordset(?::jsonb) AS x(name text, number text, email text, legal_basis text, consent_at timestamptz)
         ON CONFLICT (contact_list_id, number) WHERE number <> ''
         DO UPDATE SET name = EXCLUDED.name, email = EXCLUDED.email,
                       legal_basis = COALESCE(EXCLUDED.legal_basis, i.legal_basis), consent_at = COALESCE(EXCLUDED.consent_at, i.consent_at), updated_at = now()
         RETURNING (xmax = 0) AS inserted`,
        [companyId, listId, JSON.stringify(chunk.map(({ values: v }) => ({ name: v.name, number: v.number, email: v.email, legal_basis: v.legalBasis, consent_at: v.consentAt?.toISOString() ?? null })))],
      );
      for (const r of res.rows as { inserted: boolean }[]) r.inserted ? progress.created++ : progress.updated++;
      progress.processed += chunk.length;
      this.realtime.emitToCompany(companyId, event, { action: 'import-progress', ...progress });
    }
    progress.errors.sort((a, b) => a.row - b.row);
    progress.status = 'done';
    this.realtime.emitToCompany(companyId, event, { action: 'import-done', ...progress });
    this.realtime.emitToCompany(companyId, event, { action: 'reload', records: (await this.listItems(companyId, { contactListId: listId })).contacts });
    this.emitList(companyId, await this.getList(companyId, listId));
    if (entries.length && (await this.checker(companyId))) {
      await this.jobs.schedule(checkNumbersJob, { companyId, contactListId: listId }, { key: `check:${listId}` });
    }
    return progress;
  }

  // -------------------------------------------------------------------------------------------------
  // WhatsApp number checks

  /** The checker of the company's default WhatsApp connection's channel, with that connection, if any. */
  private async checker(companyId: number): Promise<{ checker: NumberChecker; connectionId: number } | undefined> {
    const checkers = this.checkers();
    if (!checkers.length) return undefined;
    const conn = (await this.connections.getDefault(companyId, 'whatsapp')) ?? (await this.connections.getDefault(companyId));
    if (!conn || conn.status !== 'CONNECTED') return undefined;
    const checker = checkers.find((c) => c.channel === conn.channel);
    return checker ? { checker, connectionId: conn.id } : undefined;
  }

  /** Sets `isWhatsappValid` of the given items through the checker (left null when none can check or it fails). */
  async checkItems(companyId: number, ids: number[]): Promise<number> {
    const found = await this.checker(companyId);
    if (!found || !ids.length) return 0;
    const rows = (await this.db(ITEMS).where({ companyId }).whereIn('id', ids).whereNot('number', '').select('id', 'number')) as { id: number; number: string }[];
    if (!rows.length) return 0;
    let results: Map<string, boolean | null>;
    try {
      results = await found.checker.check(companyId, found.connectionId, rows.map((r) => r.number));
    } catch (err) {
      this.log.warn({ err, companyId }, 'campaigns: number check failed');
      return 0;
    }
    let n = 0;
    for (const r of rows) {
      const v = results.get(r.number);
      if (v === undefined || v === null) continue;
      await this.db(ITEMS).where({ companyId, id: r.id }).update({ isWhatsappValid: v });
      n++;
    }
    return n;
  }

  /** The `campaigns.check-numbers` job: checks the list's unchecked numbers, 100 at a time; emits the list's reload. */
  async checkList(companyId: number, listId: number): Promise<void> {
    let lastId = 0;
    for (;;) {
      const ids = ((await this.db(ITEMS).where({ companyId, contactListId: listId }).whereNull('isWhatsappValid').where('id', '>', lastId).orderBy('id').limit(CHECK_BATCH).select('id')) as { id: number }[]).map((r) => r.id);
      if (!ids.length) break;
      lastId = ids[ids.length - 1];
      if (!(await this.checkItems(companyId, ids))) break;
    }
    if (await this.db(LISTS).where({ companyId, id: listId }).first('id')) {
      this.realtime.emitToCompany(companyId, contactListItemsOfListEvent(companyId, listId), { action: 'reload', records: (await this.listItems(companyId, { contactListId: listId })).contacts });
    }
  }
}

/** A list name: trimmed, 2..50 characters (400 ERR_VALIDATION). */
function checkName(name: string): string {
  const clean = (name ?? '').trim();
  if (clean.length < NAME_MIN || clean.length > NAME_MAX) throw new AppError('ERR_VALIDATION', `name must have ${NAME_MIN} to ${NAME_MAX} characters`);
  return clean;
}
