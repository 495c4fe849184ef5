import type { Knex } from 'knex';
import type { CountryCode } from 'libphonenumber-js/max';
import { AppError, camelRow, iso, type AuthUser, type Contributions, type IdentityService, type Realtime } from '@atendo/sdk';
import type { TagsService } from '@atendo/plugin-tags/contract';
import type {
  Contact,
  ContactChannel,
  ContactDecorator,
  ContactDetails,
  ContactListItem,
  ContactPrivacy,
  ContactsService,
  ContactTagRef,
  FindOrCreateInput,
} from '../contract';
import { cleanNumber, maskNumber, normalizePhone, phoneCandidates } from './numbers';

/** The writable fields of a contact as the REST routes give them (validated by the schemas). */
export interface ContactInput {
  name?: string;
  number?: string;
  email?: string | null;
  disableBot?: boolean;
  acceptAudioMessage?: boolean;
  channel?: ContactChannel;
  extraInfo?: { name: string; value: string }[];
  lgpdAcceptedAt?: string | null;
}

/** Filters of `GET /contacts`. */
export interface ContactFilters {
  searchParam?: string;
  /**
   * The caller sees masked numbers (lgpdHideNumber): a number matches only when the term is the complete
   * number (its digits, or a national/international spelling of it), and names that are the number do not
   * match by substring, so a masked number cannot be recovered digit by digit.
   */
  exactNumber?: boolean;
  tagIds?: number[];
  isGroup?: boolean;
  channel?: ContactChannel;
}

const UNIQUE_NUMBER = 'contacts_company_number_unique';
const MAX_INT = 2147483647;

const isoOrNull = (v: unknown): string | null => (v === null || v === undefined || v === '' ? null : iso(v));
const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);


/** Maps a unique violation on (company, number) to 409 ERR_DUPLICATED_CONTACT. */
function mapDuplicate(err: unknown): never {
  const e = err as { code?: string; constraint?: string };
  if (e.code === '23505' && e.constraint === UNIQUE_NUMBER) throw new AppError('ERR_DUPLICATED_CONTACT');
  throw err;
}

/** Parses an optional `lgpdAcceptedAt`: '' / null -> null; a date-time -> Date; else 400. */
/**
 * The naming rule of every find-or-create by number, in one place (see FindOrCreateInput): true when the
 * input's `name` may rename an existing contact - only the contact's own profile name from the channel.
 * A campaign list's, an API call's or any other caller's name only names the contact it creates.
 */
export function renamesExisting(input: Pick<FindOrCreateInput, 'nameFrom'>): boolean {
  return input.nameFrom === 'profile';
}

function lgpdDate(v: string | null | undefined): Date | null | undefined {
  if (v === undefined) return undefined;
  if (v === null || v.trim() === '') return null;
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) throw new AppError('ERR_VALIDATION', 'lgpdAcceptedAt must be an ISO date-time or empty');
  return d;
}

/**
 * Data access for contacts, their extra info and tag links. Every method takes the caller's `companyId`
 * and filters on it; multi-row writes run in one transaction; events go out after commit.
 */
export class ContactStore implements ContactsService {
  private decorators: Contributions<ContactDecorator> | undefined;

  constructor(
    private readonly db: Knex,
    private readonly tags: TagsService,
    private readonly realtime: Realtime,
    private readonly identity: IdentityService,
    /** `fileUrl`: the signed URL of a stored upload (UploadService.url); `frontendUrl`: the web UI's origin. */
    private readonly urls: { fileUrl(companyId: number, path: string): string; frontendUrl: string },
    private readonly defaultCountry: CountryCode = 'BR',
  ) {}

  /** The `contacts.decorators` contributions `page` applies (set once in `register`). */
  useDecorators(decorators: Contributions<ContactDecorator>): void {
    this.decorators = decorators;
  }

  maskNumber(number: string, isGroup: boolean): string {
    return maskNumber(number, isGroup);
  }

  async shouldMask(companyId: number, caller: AuthUser): Promise<boolean> {
    if (caller.super || String(caller.profile).toLowerCase() !== 'user') return false;
    return (await this.identity.getCompanySetting(companyId, 'lgpdHideNumber')) === 'enabled';
  }

  /** The company setting acceptAudioMessageContact as a boolean (the default of new contacts). */
  async shouldAcceptAudio(companyId: number): Promise<boolean> {
    return (await this.identity.getCompanySetting(companyId, 'acceptAudioMessageContact')) === 'enabled';
  }

  /** `company-{cid}-contact` (full numbers: the kernel's realtime hub masks them for viewers of masked numbers). */
  emit(companyId: number, payload: { action: 'create' | 'update'; contact: Contact } | { action: 'delete'; contactId: number }): void {
    this.realtime.emitToCompany(companyId, `company-${companyId}-contact`, payload);
  }

  /** A `contacts` row as the API shows it. */
  toContact(row: Record<string, unknown>): Contact {
    return {
      id: row.id as number,
      companyId: row.companyId as number,
      name: String(row.name ?? ''),
      number: String(row.number ?? ''),
      email: String(row.email ?? ''),
      profilePicUrl: (row.profilePicUrl as string | null) || null,
      urlPicture: this.pictureUrl(row),
      isGroup: Boolean(row.isGroup),
      disableBot: Boolean(row.disableBot),
      acceptAudioMessage: Boolean(row.acceptAudioMessage),
      active: Boolean(row.active),
      channel: row.channel as ContactChannel,
      remoteJid: (row.remoteJid as string | null) ?? null,
      lid: (row.lid as string | null) ?? null,
      lgpdAcceptedAt: isoOrNull(row.lgpdAcceptedAt),
      createdAt: iso(row.createdAt),
      updatedAt: iso(row.updatedAt),
    };
  }

  /**
   * wire-shapes §0 "URL getters": a stored file name becomes its signed URL under /public/company{id}/contacts/
   * (an `<img>` sends no bearer header: unsigned, it would be refused); `nopicture.png` the frontend's.
   */
  private pictureUrl(row: Record<string, unknown>): string | null {
    const file = row.urlPicture as string | null;
    if (file === 'nopicture.png') return `${this.urls.frontendUrl}/nopicture.png`;
    if (file) return this.urls.fileUrl(row.companyId as number, `contacts/${file}`);
    return (row.profilePicUrl as string | null) || null;
  }

  /**
   * Validates and normalises a typed number (400 ERR_VALIDATION with a clear message). Phone channels go
   * through libphonenumber (E.164 digits without '+'); Meta ids and groups stay as typed.
   */
  prepareNumber(raw: string, channel: ContactChannel, isGroup = false): string {
    const digits = cleanNumber(raw);
    if (!digits) throw new AppError('ERR_VALIDATION', 'Invalid number format. Only numbers are allowed (spaces, dashes, parentheses and a leading + are ignored).');
    if (digits.length < 8 || digits.length > 50) throw new AppError('ERR_VALIDATION', 'number must have 8 to 50 digits');
    if (isGroup || channel === 'facebook' || channel === 'instagram') return digits;
    return normalizePhone(digits, this.defaultCountry);
  }

  // ---------------------------------------------------------------- reads

  async getRow(companyId: number, id: number): Promise<Record<string, unknown> | undefined> {
    return this.db('contacts').where({ companyId, id }).first();
  }

  async get(companyId: number, id: number): Promise<ContactDetails | undefined> {
    const row = await this.getRow(companyId, id);
    if (!row) return undefined;
    return this.details(companyId, row);
  }

  /** Adds extra info and tags to a row. */
  async details(companyId: number, row: Record<string, unknown>): Promise<ContactDetails> {
    const contact = this.toContact(row);
    const [extra, tags] = await Promise.all([
      this.db('contactExtraInfo').where({ companyId, contactId: contact.id }).orderBy('id'),
      this.tagsOf(companyId, [contact.id]),
    ]);
    return {
      ...contact,
      extraInfo: extra.map((e: Record<string, unknown>) => ({
        id: e.id as number,
        contactId: e.contactId as number,
        name: String(e.name),
        value: String(e.value ?? ''),
        createdAt: iso(e.createdAt),
        updatedAt: iso(e.updatedAt),
      })),
      tags: tags.get(contact.id) ?? [],
    };
  }

  async getMany(companyId: number, ids: number[], trx?: Knex.Transaction): Promise<Contact[]> {
    const wanted = [...new Set(ids)].filter((v) => Number.isInteger(v) && v > 0 && v <= MAX_INT);
    if (!wanted.length) return [];
    return (await (trx ?? this.db)('contacts').where({ companyId }).whereIn('id', wanted)).map((r: Record<string, unknown>) => this.toContact(r));
  }

  /** The sendable contacts having a tag (see ContactsService.withTag). */
  async withTag(companyId: number, tagId: number, opts: { trx?: Knex.Transaction; limit?: number } = {}): Promise<Pick<Contact, 'id' | 'name' | 'number' | 'email' | 'channel'>[]> {
    if (!Number.isInteger(tagId) || tagId <= 0 || tagId > MAX_INT) return [];
    const limit = Math.min(Math.max(1, Math.floor(opts.limit ?? 100_000)), 100_000);
    const rows: { id: number; name: string; number: string; email: string | null; channel: Contact['channel'] }[] = await this.tagged(opts.trx ?? this.db, companyId, [tagId])
      .select('c.id', 'c.name', 'c.number', 'c.email', 'c.channel')
      .orderBy('c.id')
      .limit(limit);
    return rows.map((r) => ({ id: r.id, name: r.name ?? '', number: r.number, email: r.email ?? '', channel: r.channel }));
  }

  /** Counts of `withTag` per tag. */
  async countWithTags(companyId: number, tagIds: number[]): Promise<Map<number, number>> {
    const ids = [...new Set(tagIds)].filter((v) => Number.isInteger(v) && v > 0 && v <= MAX_INT);
    const out = new Map<number, number>(ids.map((id) => [id, 0]));
    if (!ids.length) return out;
    const rows: { tagId: number; n: number | string }[] = await this.tagged(this.db, companyId, ids).groupBy('ct.tag_id').select('ct.tag_id as tagId', this.db.raw('count(*)::int AS n'));
    for (const r of rows) out.set(r.tagId, Number(r.n));
    return out;
  }

  /** Active, non-group WhatsApp contacts of `companyId` with a number, joined to their links to `tagIds` (aliases c, ct). */
  private tagged(db: Knex | Knex.Transaction, companyId: number, tagIds: number[]) {
    return db('contactTags as ct')
      .join('contacts as c', function on() {
        this.on('c.id', '=', 'ct.contact_id').andOn('c.company_id', '=', 'ct.company_id');
      })
      .where('ct.companyId', companyId)
      .whereIn('ct.tagId', tagIds)
      .where('c.isGroup', false)
      .where('c.active', true)
      .whereIn('c.channel', ['whatsapp', 'whatsappapi'])
      .whereNot('c.number', '');
  }

  async tagsOf(companyId: number, contactIds: number[]): Promise<Map<number, ContactTagRef[]>> {
    const ids = [...new Set(contactIds)].filter((v) => Number.isInteger(v) && v > 0 && v <= MAX_INT);
    if (!ids.length) return new Map();
    const links: TagLink[] = await this.db('contactTags')
      .where({ companyId })
      .whereIn('contactId', ids)
      .select('contactId', 'tagId', 'createdAt', 'updatedAt');
    return this.tagRefs(companyId, ids, links);
  }

  /**
   * The contacts of `companyId` among `ids` with their tags, in one statement (a `tag_links` JSON column of
   * each contact's links; plus one read of the tags when some contact has any). See ContactsService.
   */
  async getManyWithTags(companyId: number, ids: number[], trx?: Knex.Transaction): Promise<{ contacts: Contact[]; tags: Map<number, ContactTagRef[]> }> {
    const wanted = [...new Set(ids)].filter((v) => Number.isInteger(v) && v > 0 && v <= MAX_INT);
    if (!wanted.length) return { contacts: [], tags: new Map() };
    const q = trx ?? this.db;
    const rows: Record<string, unknown>[] = await q('contacts').where({ companyId }).whereIn('id', wanted).select('contacts.*', q.raw(tagLinksColumn('contacts')));
    return { contacts: rows.map((r) => this.toContact(r)), tags: await this.tagRefsOfRows(companyId, rows) };
  }

  /** The tags of rows read with `tagLinksColumn` (every row's contact id is a key). */
  private tagRefsOfRows(companyId: number, rows: Record<string, unknown>[]): Promise<Map<number, ContactTagRef[]>> {
    const links: TagLink[] = [];
    for (const r of rows) {
      for (const [tagId, createdAt, updatedAt] of parseLinks(r.tagLinks)) links.push({ contactId: r.id as number, tagId, createdAt: new Date(createdAt), updatedAt: new Date(updatedAt) });
    }
    return this.tagRefs(companyId, rows.map((r) => r.id as number), links);
  }

  /** `contact.tags` of each of `contactIds` (every one a key; tags ordered by name) from their links. */
  private async tagRefs(companyId: number, contactIds: number[], links: TagLink[]): Promise<Map<number, ContactTagRef[]>> {
    const out = new Map<number, ContactTagRef[]>();
    for (const id of contactIds) out.set(id, []);
    if (!links.length) return out;
    const tags = await this.tags.getMany(companyId, [...new Set(links.map((l) => l.tagId))]);
    const order = new Map(tags.map((t, i) => [t.id, i]));
    const byId = new Map(tags.map((t) => [t.id, t]));
    for (const l of links) {
      const tag = byId.get(l.tagId);
      const list = out.get(l.contactId);
      if (!tag || !list) continue;
      list.push({
        ...tag,
        createdAt: iso(tag.createdAt),
        updatedAt: iso(tag.updatedAt),
        ContactTag: { contactId: l.contactId, tagId: l.tagId, createdAt: iso(l.createdAt), updatedAt: iso(l.updatedAt) },
      });
    }
    for (const list of out.values()) list.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
    return out;
  }

  /**
   * The search condition (column prefix `p`): the lower-cased name contains `term`, or the number contains
   * `digits`. With `exactNumber` (a viewer of masked numbers) the number must be the complete one (its
   * spellings: `phoneCandidates`) and a name that is the number (Messenger/Instagram ids) does not match by
   * substring.
   */
  private matchTerm(w: Knex.QueryBuilder, p: string, term: string, digits: string, exactNumber: boolean): void {
    const like = `%${likeEscape(term)}%`;
    if (!exactNumber) {
      w.whereRaw(`lower(${p}name) LIKE ? ESCAPE '\\'`, [like]);
      if (digits) w.orWhere(`${p}number`, 'like', `%${digits}%`);
      return;
    }
    w.whereRaw(`lower(${p}name) LIKE ? ESCAPE '\\' AND ${p}name <> ${p}number`, [like]);
    if (digits.length >= 8) w.orWhereIn(`${p}number`, phoneCandidates(digits, this.defaultCountry));
  }

  async searchIds(companyId: number, term: string, limit = 1000, opts: { exactNumber?: boolean } = {}): Promise<number[]> {
    const t = String(term ?? '').trim().toLowerCase().slice(0, 200);
    if (!t) return [];
    const max = Math.min(Math.max(1, Math.trunc(limit) || 1), 10000);
    const digits = /^[\d\s+().-]+$/.test(t) ? t.replace(/\D/g, '') : '';
    const rows: { id: number }[] = await this.db('contacts')
      .where({ companyId })
      .andWhere((w) => this.matchTerm(w, '', t, digits, opts.exactNumber === true))
      .orderBy('id', 'desc')
      .limit(max)
      .select('id');
    return rows.map((r) => r.id);
  }

  async hasTags(companyId: number, contactId: number): Promise<boolean> {
    return Boolean(await this.db('contactTags').where({ companyId, contactId }).first('tagId'));
  }

  /** Contacts per tag (the `contactsCount` counter contributed to `tags.counters`). */
  async countByTag(companyId: number, tagIds: number[]): Promise<Map<number, number>> {
    const rows: { tagId: number; n: number | string }[] = await this.db('contactTags')
      .where({ companyId })
      .whereIn('tagId', tagIds)
      .groupBy('tagId')
      .select('tagId')
      .count({ n: '*' });
    return new Map(rows.map((r) => [r.tagId, Number(r.n)]));
  }

  /**
   * One page of the company's contacts ordered by name (case-insensitive) then id, with tags and the
   * decorators' keys, and the total matching count.
   */
  async page(companyId: number, f: ContactFilters, offset: number, limit: number): Promise<{ contacts: ContactListItem[]; count: number }> {
    const base = () => {
      const q = this.db('contacts as c').where('c.companyId', companyId);
      const term = f.searchParam?.trim().toLowerCase();
      if (term) {
        const digits = term.replace(/\D/g, '');
        q.andWhere((w) => this.matchTerm(w, 'c.', term, digits, f.exactNumber === true));
      }
      if (f.tagIds?.length) {
        q.whereExists(this.db('contactTags as ct').whereRaw('ct.contact_id = c.id').where('ct.companyId', companyId).whereIn('ct.tagId', f.tagIds).select(this.db.raw('1')));
      }
      if (f.isGroup !== undefined) q.where('c.isGroup', f.isGroup);
      if (f.channel) q.where('c.channel', f.channel);
      return q;
    };
    const [{ n }] = await base().count({ n: '*' });
    const rows = await base().select('c.*').orderByRaw('lower(c.name) ASC, c.id ASC').offset(offset).limit(limit);
    const contacts = rows.map((r: Record<string, unknown>) => this.toContact(r));
    const tags = await this.tagsOf(companyId, contacts.map((c: Contact) => c.id));
    const items: ContactListItem[] = contacts.map((c: Contact) => ({ ...c, tags: tags.get(c.id) ?? [], tickets: [] }));
    for (const d of this.decorators?.all() ?? []) if (items.length) await d(companyId, items);
    return { contacts: items, count: Number(n) };
  }

  /** Up to `limit` contacts (id, name, number, channel, isGroup) ordered by name, optionally searched. */
  async light(companyId: number, searchParam: string | undefined, limit: number, opts: { exactNumber?: boolean } = {}): Promise<Pick<Contact, 'id' | 'name' | 'number' | 'channel' | 'isGroup'>[]> {
    const q = this.db('contacts').where({ companyId });
    const term = searchParam?.trim().toLowerCase();
    if (term) {
      const digits = term.replace(/\D/g, '');
      q.andWhere((w) => this.matchTerm(w, '', term, digits, opts.exactNumber === true));
    }
    return q.select('id', 'name', 'number', 'channel', 'isGroup').orderByRaw('lower(name) ASC, id ASC').limit(limit);
  }

  /** Finds a contact by a number as typed (exact digits, then normalised); undefined when none. */
  async findByNumber(companyId: number, raw: string): Promise<Record<string, unknown> | undefined> {
    const digits = cleanNumber(raw);
    if (!digits) throw new AppError('ERR_VALIDATION', 'Invalid number format. Only numbers are allowed.');
    const candidates = phoneCandidates(digits, this.defaultCountry);
    return this.db('contacts').where({ companyId }).whereIn('number', candidates).orderByRaw('number = ? DESC', [digits]).first();
  }

  /** Every contact of the company in chunks of 1000 (by id), for the export. */
  async *exportChunks(companyId: number): AsyncGenerator<{ contact: Contact; tags: ContactTagRef[] }[]> {
    let after = 0;
    for (;;) {
      const rows = await this.db('contacts').where({ companyId }).where('id', '>', after).orderBy('id').limit(1000);
      if (!rows.length) return;
      after = rows[rows.length - 1].id;
      const contacts = rows.map((r: Record<string, unknown>) => this.toContact(r));
      const tags = await this.tagsOf(companyId, contacts.map((c: Contact) => c.id));
      yield contacts.map((contact: Contact) => ({ contact, tags: tags.get(contact.id) ?? [] }));
    }
  }

  // ---------------------------------------------------------------- writes

  /**
   * Creates a contact with its extra info (one transaction); `acceptAudioMessage` defaults to the company
   * setting acceptAudioMessageContact. 409 ERR_DUPLICATED_CONTACT when the number exists in the company.
   * Emits `create` after commit.
   */
  async create(companyId: number, input: ContactInput & { name: string; number: string }): Promise<ContactDetails> {
    const channel = input.channel ?? 'whatsapp';
    const number = this.prepareNumber(input.number, channel);
    const acceptAudioMessage = input.acceptAudioMessage ?? (await this.shouldAcceptAudio(companyId));
    let id: number;
    try {
      id = await this.db.transaction(async (trx) => {
        const [row] = await trx('contacts')
          .insert({
            companyId,
            name: input.name.trim(),
            number,
            email: (input.email ?? '').trim(),
            disableBot: input.disableBot ?? false,
            acceptAudioMessage,
            channel,
            lgpdAcceptedAt: lgpdDate(input.lgpdAcceptedAt) ?? null,
          })
          .returning('id');
        await this.saveExtraInfo(trx, companyId, row.id, input.extraInfo);
        return row.id as number;
      });
    } catch (err) {
      mapDuplicate(err);
    }
    const contact = (await this.get(companyId, id))!;
    this.emit(companyId, { action: 'create', contact });
    return contact;
  }

  /**
   * Updates the given fields; `extraInfo`, when given, replaces the list. A number equal to the current
   * number's mask (a masked user saving the form back) leaves the number unchanged. 404
   * ERR_NO_CONTACT_FOUND; 409 ERR_DUPLICATED_CONTACT. Emits `update` after commit.
   */
  async update(companyId: number, id: number, input: ContactInput, opts: { masked?: boolean } = {}): Promise<ContactDetails> {
    try {
      await this.db.transaction(async (trx) => {
        const current = await trx('contacts').where({ companyId, id }).forUpdate().first();
        if (!current) throw new AppError('ERR_NO_CONTACT_FOUND');
        const patch: Record<string, unknown> = {};
        const channel = input.channel ?? current.channel;
        if (input.number !== undefined) {
          const typed = input.number.trim();
          const unchanged = typed === current.number || (opts.masked && typed === maskNumber(current.number, current.isGroup));
          if (!unchanged) patch.number = this.prepareNumber(typed, channel, current.isGroup);
        }
        if (input.name !== undefined) patch.name = input.name.trim();
        if (input.email !== undefined) patch.email = (input.email ?? '').trim();
        if (input.disableBot !== undefined) patch.disableBot = input.disableBot;
        if (input.acceptAudioMessage !== undefined) patch.acceptAudioMessage = input.acceptAudioMessage;
        if (input.channel !== undefined) patch.channel = input.channel;
        const lgpd = lgpdDate(input.lgpdAcceptedAt);
        if (lgpd !== undefined) patch.lgpdAcceptedAt = lgpd;
        await trx('contacts').where({ companyId, id }).update({ ...patch, updatedAt: trx.fn.now() });
        if (input.extraInfo !== undefined) {
          await trx('contactExtraInfo').where({ companyId, contactId: id }).del();
          await this.saveExtraInfo(trx, companyId, id, input.extraInfo);
        }
      });
    } catch (err) {
      mapDuplicate(err);
    }
    const contact = (await this.get(companyId, id))!;
    this.emit(companyId, { action: 'update', contact });
    return contact;
  }

  /** Deletes a contact with its extra info and tag links; 404 ERR_NO_CONTACT_FOUND. Emits `delete`. */
  async remove(companyId: number, id: number): Promise<void> {
    const n = await this.db('contacts').where({ companyId, id }).del();
    if (!n) throw new AppError('ERR_NO_CONTACT_FOUND');
    this.emit(companyId, { action: 'delete', contactId: id });
  }

  /**
   * Sets or flips a flag in one statement (`value` undefined flips it); 404 ERR_NO_CONTACT_FOUND.
   * Emits `update` and answers the contact with extra info and tags.
   */
  async setFlag(companyId: number, id: number, flag: 'disableBot' | 'acceptAudioMessage' | 'active', value?: boolean): Promise<ContactDetails> {
    const column = { disableBot: 'disable_bot', acceptAudioMessage: 'accept_audio_message', active: 'active' }[flag];
    const [row] = await this.db('contacts')
      .where({ companyId, id })
      .update({ [flag]: value === undefined ? this.db.raw(`NOT ??`, [column]) : value, updatedAt: this.db.fn.now() })
      .returning('*');
    if (!row) throw new AppError('ERR_NO_CONTACT_FOUND');
    const contact = await this.details(companyId, row);
    this.emit(companyId, { action: 'update', contact });
    return contact;
  }

  /** See `ContactsService.setLgpdAcceptedAt`. */
  async setLgpdAcceptedAt(companyId: number, id: number, at: Date | null): Promise<void> {
    const [row] = await this.db('contacts').where({ companyId, id }).update({ lgpdAcceptedAt: at, updatedAt: this.db.fn.now() }).returning('*');
    if (!row) throw new AppError('ERR_NO_CONTACT_FOUND');
    this.emit(companyId, { action: 'update', contact: await this.details(companyId, row) });
  }

  /**
   * Replaces the contact's tags with `tagIds` in one transaction. 404 ERR_NO_CONTACT_FOUND; 404
   * ERR_NO_TAG_FOUND when any id is not a tag of the company (nothing changes). Emits `update`.
   */
  async syncTags(companyId: number, contactId: number, tagIds: number[]): Promise<ContactDetails> {
    const wanted = [...new Set(tagIds)];
    try {
      await this.db.transaction(async (trx) => {
        const contact = await trx('contacts').where({ companyId, id: contactId }).forUpdate().first('id');
        if (!contact) throw new AppError('ERR_NO_CONTACT_FOUND');
        await this.tags.assertAll(companyId, wanted, trx);
        await trx('contactTags').where({ companyId, contactId }).whereNotIn('tagId', wanted).del();
        if (wanted.length) {
          await trx('contactTags')
            .insert(wanted.map((tagId) => ({ contactId, tagId, companyId })))
            .onConflict(['contactId', 'tagId'])
            .ignore();
        }
      });
    } catch (err) {
      if ((err as { code?: string }).code === '23503') throw new AppError('ERR_NO_TAG_FOUND');
      throw err;
    }
    const contact = (await this.get(companyId, contactId))!;
    this.emit(companyId, { action: 'update', contact });
    return contact;
  }

  /**
   * One import row, in one statement (its own transaction): creates the contact or, when the number
   * exists, updates its name and email where given. `number` must already be prepared. No event: the
   * caller decides (the sheet import announces progress instead of one event a row).
   */
  async upsertImported(companyId: number, row: { name: string | null; number: string; email: string | null }, acceptAudioMessage: boolean): Promise<{ contact: Contact; created: boolean }> {
    const name = row.name?.trim() || null;
    const email = row.email?.trim() || null;
    const { rows } = await this.db.raw(
      `INSERT INTO contacts (company_id, name, number, email, accept_audio_message, channel)
       VALUES (?, ?, ?, ?, ?, 'whatsapp')
       ON CONFLICT (company_id, number) DO UPDATE SET
         name = CASE WHEN ?::boolean THEN EXCLUDED.name ELSE contacts.name END,
         email = CASE WHEN ?::boolean THEN EXCLUDED.email ELSE contacts.email END,
         updated_at = now()
       RETURNING *, (xmax = 0) AS inserted`,
      [companyId, name ?? row.number, row.number, email ?? '', acceptAudioMessage, name !== null, email !== null],
    );
    const r = camelRow(rows[0]);
    return { contact: this.toContact(r), created: Boolean(r.inserted) };
  }

  async findOrCreate(companyId: number, input: FindOrCreateInput, trx?: Knex.Transaction): Promise<Contact> {
    const number = String(input.number ?? '').trim();
    if (!number || number.length > 100) throw new AppError('ERR_VALIDATION', 'number must have 1 to 100 characters');
    const name = input.name?.trim().slice(0, 255) || null;
    // The naming rule (FindOrCreateInput): only a profile name renames an existing contact.
    const rename = renamesExisting(input) ? name : null;
    const pic = input.profilePicUrl || null;
    const lid = input.lid || null;
    const jid = input.remoteJid || null;
    const acceptAudio = await this.shouldAcceptAudio(companyId);
    const q = trx ?? this.db;
    const { rows } = await q.raw(
      `INSERT INTO contacts (company_id, name, number, channel, is_group, remote_jid, lid, profile_pic_url, accept_audio_message)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (company_id, number) DO UPDATE SET
         name = COALESCE(CAST(? AS text), contacts.name),
         profile_pic_url = COALESCE(CAST(? AS text), contacts.profile_pic_url),
         lid = COALESCE(CAST(? AS text), contacts.lid),
         remote_jid = COALESCE(CAST(? AS text), contacts.remote_jid),
         updated_at = now()
       WHERE (CAST(? AS text) IS NOT NULL AND contacts.name IS DISTINCT FROM CAST(? AS text))
          OR (CAST(? AS text) IS NOT NULL AND contacts.profile_pic_url IS DISTINCT FROM CAST(? AS text))
          OR (CAST(? AS text) IS NOT NULL AND contacts.lid IS DISTINCT FROM CAST(? AS text))
          OR (CAST(? AS text) IS NOT NULL AND contacts.remote_jid IS DISTINCT FROM CAST(? AS text))
       RETURNING *, (xmax = 0) AS inserted`,
      [
        companyId, name ?? number, number, input.channel, input.isGroup ?? false, jid, lid, pic, acceptAudio,
        rename, pic, lid, jid,
        rename, rename, pic, pic, lid, lid, jid, jid,
      ],
    );
    let contact: Contact;
    let action: 'create' | 'update' | undefined;
    if (rows.length) {
      const r = camelRow(rows[0]);
      contact = this.toContact(r);
      action = r.inserted ? 'create' : 'update';
    } else {
      // Nothing changed: the conflicting row is locked by the statement and read here.
      const row = await q('contacts').where({ companyId, number }).first();
      if (!row) throw new AppError('ERR_NO_CONTACT_FOUND');
      contact = this.toContact(row);
    }
    if (action) {
      const payload = { action, contact };
      if (trx) trx.executionPromise.then(() => this.emit(companyId, payload), () => undefined);
      else this.emit(companyId, payload);
    }
    return contact;
  }

  async findOrCreateMany(companyId: number, inputs: FindOrCreateInput[], trx?: Knex.Transaction, opts: { tagsOut?: Map<number, ContactTagRef[]> } = {}): Promise<Contact[]> {
    if (!inputs.length) return [];
    const tagsOut = opts.tagsOut;
    // `name` names a created contact; `rename` (a profile name only: FindOrCreateInput) an existing one.
    type Wanted = { number: string; name: string | null; rename: string | null; pic: string | null; lid: string | null; jid: string | null; channel: ContactChannel; isGroup: boolean };
    const byNumber = new Map<string, Wanted>();
    const numbers = inputs.map((input) => {
      const number = String(input.number ?? '').trim();
      if (!number || number.length > 100) throw new AppError('ERR_VALIDATION', 'number must have 1 to 100 characters');
      const prev = byNumber.get(number);
      const name = input.name?.trim().slice(0, 255) || null;
      byNumber.set(number, {
        number,
        name: name || prev?.name || null,
        rename: (renamesExisting(input) ? name : null) || prev?.rename || null,
        pic: input.profilePicUrl || prev?.pic || null,
        lid: input.lid || prev?.lid || null,
        jid: input.remoteJid || prev?.jid || null,
        channel: prev?.channel ?? input.channel,
        isGroup: prev?.isGroup ?? input.isGroup ?? false,
      });
      return number;
    });
    // Sorted by number: concurrent callers lock the rows in one order (no deadlocks between them).
    const wanted = [...byNumber.values()].sort((a, b) => (a.number < b.number ? -1 : a.number > b.number ? 1 : 0));
    const q = trx ?? this.db;
    const found = new Map<string, Contact>();
    const rows = new Map<string, Record<string, unknown>>();
    const events: { action: 'create' | 'update'; contact: Contact }[] = [];
    // Rows read or written, with their tag links when `tagsOut` wants them.
    const withLinks = (b: Knex.QueryBuilder) => (tagsOut ? b.select('contacts.*', q.raw(tagLinksColumn('contacts'))) : b);
    // The common case (known contacts, nothing new about them) is this one read.
    for (const r of (await withLinks(q('contacts').where({ companyId }).whereIn('number', wanted.map((w) => w.number)))) as Record<string, unknown>[]) rows.set(String(r.number), r);
    const differs = (w: Wanted, r: Record<string, unknown>) =>
      (w.rename !== null && r.name !== w.rename) || (w.pic !== null && r.profilePicUrl !== w.pic) || (w.lid !== null && r.lid !== w.lid) || (w.jid !== null && r.remoteJid !== w.jid);
    const missing = wanted.filter((w) => !rows.has(w.number));
    if (missing.length) {
      const acceptAudio = await this.shouldAcceptAudio(companyId);
      const created: Record<string, unknown>[] = await q('contacts')
        .insert(missing.map((w) => ({ companyId, name: w.name ?? w.number, number: w.number, channel: w.channel, isGroup: w.isGroup, remoteJid: w.jid, lid: w.lid, profilePicUrl: w.pic, acceptAudioMessage: acceptAudio })))
        .onConflict(['companyId', 'number'])
        .ignore()
        .returning('*');
      for (const r of created) {
        const c = this.toContact(r);
        found.set(c.number, c);
        events.push({ action: 'create', contact: c });
      }
      // Created meanwhile by another caller: read them (the insert waited for that caller's commit).
      const raced = missing.filter((w) => !found.has(w.number)).map((w) => w.number);
      if (raced.length) for (const r of (await withLinks(q('contacts').where({ companyId }).whereIn('number', raced))) as Record<string, unknown>[]) rows.set(String(r.number), r);
    }
    const changes = wanted.filter((w) => !found.has(w.number) && rows.has(w.number) && differs(w, rows.get(w.number)!));
    if (changes.length) {
      const values = changes.map(() => '(?, ?, ?, ?, ?)').join(', ');
      const { rows: updated } = await q.raw(
        `UPDATE contacts AS c SET
           name = COALESCE(i.name, c.name), profile_pic_url = COALESCE(i.pic, c.profile_pic_url),
           lid = COALESCE(i.lid, c.lid), remote_jid = COALESCE(i.jid, c.remote_jid), updated_at = now()
         FROM (VALUES ${values}) AS i(number, name, pic, lid, jid)
         WHERE c.company_id = ? AND c.number = i.number
           AND ((i.name IS NOT NULL AND c.name IS DISTINCT FROM i.name)
             OR (i.pic IS NOT NULL AND c.profile_pic_url IS DISTINCT FROM i.pic)
             OR (i.lid IS NOT NULL AND c.lid IS DISTINCT FROM i.lid)
             OR (i.jid IS NOT NULL AND c.remote_jid IS DISTINCT FROM i.jid))
         RETURNING c.*${tagsOut ? `, ${tagLinksColumn('c')}` : ''}`,
        [...changes.flatMap((w) => [w.number, w.rename, w.pic, w.lid, w.jid]), companyId],
      );
      for (const r of updated as Record<string, unknown>[]) {
        const row = camelRow(r);
        const c = this.toContact(row);
        found.set(c.number, c);
        rows.set(c.number, row);
        events.push({ action: 'update', contact: c });
      }
    }
    for (const w of wanted) {
      if (found.has(w.number)) continue;
      const r = rows.get(w.number);
      // A contact deleted between the statements: the single-row path recreates it.
      found.set(w.number, r ? this.toContact(r) : await this.findOrCreate(companyId, { number: w.number, name: w.rename ?? w.name, nameFrom: w.rename !== null ? 'profile' : 'caller', channel: w.channel, isGroup: w.isGroup, remoteJid: w.jid, lid: w.lid, profilePicUrl: w.pic }, trx));
    }
    if (tagsOut) {
      // Created contacts have no tags; the others' links came with their rows.
      const read = wanted.map((w) => rows.get(w.number)).filter((r): r is Record<string, unknown> => r !== undefined && found.get(String(r.number))?.id === r.id);
      for (const [id, list] of await this.tagRefsOfRows(companyId, read)) tagsOut.set(id, list);
      for (const c of found.values()) if (!tagsOut.has(c.id)) tagsOut.set(c.id, []);
    }
    if (events.length) {
      const send = () => events.forEach((e) => this.emit(companyId, e));
      if (trx) trx.executionPromise.then(send, () => undefined);
      else send();
    }
    return numbers.map((n) => found.get(n)!);
  }

  async getByNumber(companyId: number, number: string): Promise<Contact | undefined> {
    const n = String(number ?? '').trim();
    if (!n || n.length > 100) return undefined;
    const row = await this.db('contacts').where({ companyId, number: n }).first();
    return row ? this.toContact(row) : undefined;
  }

  /** The narrow service other plugins use. */
  service(): ContactsService {
    return {
      get: (c, id) => this.get(c, id),
      getMany: (c, ids, trx) => this.getMany(c, ids, trx),
      findOrCreate: (c, input, trx) => this.findOrCreate(c, input, trx),
      findOrCreateMany: (c, inputs, trx, opts) => this.findOrCreateMany(c, inputs, trx, opts),
      getManyWithTags: (c, ids, trx) => this.getManyWithTags(c, ids, trx),
      getByNumber: (c, number) => this.getByNumber(c, number),
      maskNumber: (n, g) => maskNumber(n, g),
      shouldMask: (c, caller) => this.shouldMask(c, caller),
      tagsOf: (c, ids) => this.tagsOf(c, ids),
      hasTags: (c, id) => this.hasTags(c, id),
      searchIds: (c, term, limit, opts) => this.searchIds(c, term, limit, opts),
      setLgpdAcceptedAt: (c, id, at) => this.setLgpdAcceptedAt(c, id, at),
      withTag: (c, tagId, opts) => this.withTag(c, tagId, opts),
      countWithTags: (c, tagIds) => this.countWithTags(c, tagIds),
      privacyOf: (c, ids) => this.privacyOf(c, ids),
      anonymize: (c, id, trx) => this.anonymize(c, id, trx),
      setOptOut: (c, id, optOut) => this.setOptOut(c, id, optOut),
      optedOutNumbers: (c, numbers) => this.optedOutNumbers(c, numbers),
      listOptedOut: (c, page) => this.listOptedOut(c, page),
    };
  }

  // ---------------------------------------------------------------- privacy (issue 34)

  /** See `ContactsService.privacyOf`. */
  async privacyOf(companyId: number, ids: number[]): Promise<Map<number, ContactPrivacy>> {
    const wanted = [...new Set(ids)].filter((v) => Number.isInteger(v) && v > 0 && v <= 2147483647);
    const rows = wanted.length ? await this.db('contacts').where({ companyId }).whereIn('id', wanted).select('id', 'anonymizedAt', 'optedOutAt', 'optOutKeyword') : [];
    return new Map(rows.map((r: Record<string, unknown>) => [r.id as number, privacyOfRow(r)]));
  }

  /** See `ContactsService.anonymize`. */
  async anonymize(companyId: number, id: number, trx: Knex.Transaction): Promise<void> {
    const [row] = await trx('contacts')
      .where({ companyId, id })
      .update({ name: `#${id}`, number: `anon-${id}`, email: '', profilePicUrl: null, urlPicture: null, remoteJid: null, lid: null, anonymizedAt: trx.fn.now(), updatedAt: trx.fn.now() })
      .returning('*');
    if (!row) throw new AppError('ERR_NO_CONTACT_FOUND');
    await trx('contactExtraInfo').where({ companyId, contactId: id }).del();
    trx.executionPromise.then(async () => this.emit(companyId, { action: 'update', contact: await this.details(companyId, row) }), () => undefined);
  }

  /** See `ContactsService.setOptOut`. */
  async setOptOut(companyId: number, id: number, optOut: { keyword: string; at?: Date } | null): Promise<ContactPrivacy> {
    const [row] = await this.db('contacts')
      .where({ companyId, id })
      .update({ optedOutAt: optOut ? (optOut.at ?? new Date()) : null, optOutKeyword: optOut ? optOut.keyword.slice(0, 40) : null, updatedAt: this.db.fn.now() })
      .returning('*');
    if (!row) throw new AppError('ERR_NO_CONTACT_FOUND');
    this.emit(companyId, { action: 'update', contact: await this.details(companyId, row) });
    return privacyOfRow(row);
  }

  /** See `ContactsService.optedOutNumbers`. */
  async optedOutNumbers(companyId: number, numbers: string[]): Promise<Set<string>> {
    const wanted = [...new Set(numbers.filter(Boolean))];
    if (!wanted.length) return new Set();
    const found: string[] = await this.db('contacts').where({ companyId }).whereIn('number', wanted).whereNotNull('optedOutAt').pluck('number');
    return new Set(found);
  }

  /** See `ContactsService.listOptedOut`. */
  async listOptedOut(companyId: number, page: { offset: number; limit: number }): Promise<{ contacts: (Pick<Contact, 'id' | 'name' | 'number' | 'channel'> & ContactPrivacy)[]; count: number }> {
    const base = this.db('contacts').where({ companyId }).whereNotNull('optedOutAt');
    const [{ n }] = await base.clone().count({ n: '*' });
    const rows = await base.clone().orderBy([{ column: 'optedOutAt', order: 'desc' }, { column: 'id', order: 'desc' }]).offset(page.offset).limit(page.limit);
    return {
      contacts: rows.map((r: Record<string, unknown>) => ({ id: r.id as number, name: String(r.name), number: String(r.number), channel: r.channel as ContactChannel, ...privacyOfRow(r) })),
      count: Number(n),
    };
  }

  private async saveExtraInfo(trx: Knex.Transaction, companyId: number, contactId: number, list: { name: string; value: string }[] | undefined): Promise<void> {
    const rows = (list ?? [])
      .map((e) => ({ name: e.name.trim(), value: (e.value ?? '').trim() }))
      .filter((e) => e.name)
      .map((e) => ({ ...e, contactId, companyId }));
    if (rows.length) await trx('contactExtraInfo').insert(rows);
  }
}

/** The privacy columns of a `contacts` row (issue 34). */
function privacyOfRow(r: Record<string, unknown>): ContactPrivacy {
  return { anonymizedAt: isoOrNull(r.anonymizedAt), optedOutAt: isoOrNull(r.optedOutAt), optOutKeyword: (r.optOutKeyword as string | null) ?? null };
}

/** A contact's link to a tag (`contact_tags` row). */
type TagLink = { contactId: number; tagId: number; createdAt: Date; updatedAt: Date };

/**
 * A `tag_links` column of the contacts aliased `alias`: their `contact_tags` rows as a JSON array of
 * `[tagId, createdAt, updatedAt]` (same company; `[]` without tags).
 */
function tagLinksColumn(alias: string): string {
  return `COALESCE((SELECT json_agg(json_build_array(ct.tag_id, ct.created_at, ct.updated_at)) FROM contact_tags ct WHERE ct.contact_id = ${alias}.id AND ct.company_id = ${alias}.company_id), '[]'::json) AS tag_links`;
}

/** The `tag_links` column's value (pg parses json; knex's mapper leaves its name `tagLinks`). */
function parseLinks(v: unknown): [number, string, string][] {
  if (typeof v === 'string') return JSON.parse(v) as [number, string, string][];
  return Array.isArray(v) ? (v as [number, string, string][]) : [];
}
