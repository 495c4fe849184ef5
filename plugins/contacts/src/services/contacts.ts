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
import { canonicalLid, cleanNumber, lidUser, maskNumber, normalizePhone, phoneCandidates, phoneKey, phoneVariants } from './numbers';

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

  /**
   * Finds a contact by a number as typed: the exact digits first, then their normalised spellings and
   * 9th-digit twins (`phoneCandidates`), then a contact having one of those as an alias (a merged
   * duplicate's number); undefined when none.
   */
  async findByNumber(companyId: number, raw: string): Promise<Record<string, unknown> | undefined> {
    const digits = cleanNumber(raw);
    if (!digits) throw new AppError('ERR_VALIDATION', 'Invalid number format. Only numbers are allowed.');
    const candidates = phoneCandidates(digits, this.defaultCountry);
    return this.db('contacts')
      .where({ companyId })
      .where((w) => void w.whereIn('number', candidates).orWhereIn('id', this.db('contactAliases').where({ companyId, kind: 'number' }).whereIn('address', candidates).select('contactId')))
      .orderByRaw('number = ? DESC, number = ANY(?) DESC, id ASC', [digits, candidates])
      .first();
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
        if (await this.samePerson(trx, companyId, number, channel, false)) throw new AppError('ERR_DUPLICATED_CONTACT');
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
          if (!unchanged) {
            patch.number = this.prepareNumber(typed, channel, current.isGroup);
            if (await this.samePerson(trx, companyId, patch.number as string, channel, current.isGroup, id)) throw new AppError('ERR_DUPLICATED_CONTACT');
          }
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
    // The person's contact under another spelling (9th digit) or alias is the one updated.
    const number = (await this.samePerson(this.db, companyId, row.number, 'whatsapp', false))?.number ?? row.number;
    const { rows } = await this.db.raw(
      `INSERT INTO contacts (company_id, name, number, email, accept_audio_message, channel)
       VALUES (?, ?, ?, ?, ?, 'whatsapp')
       ON CONFLICT (company_id, number) DO UPDATE SET
         name = CASE WHEN ?::boolean THEN EXCLUDED.name ELSE contacts.name END,
         email = CASE WHEN ?::boolean THEN EXCLUDED.email ELSE contacts.email END,
         updated_at = now()
       RETURNING *, (xmax = 0) AS inserted`,
      [companyId, name ?? number, number, email ?? '', acceptAudioMessage, name !== null, email !== null],
    );
    const r = camelRow(rows[0]);
    return { contact: this.toContact(r), created: Boolean(r.inserted) };
  }

  /**
   * `findOrCreateMany` for one input (see ContactsService.findOrCreate): the same resolution (9th-digit
   * twins, LIDs, aliases), the same naming rule and events.
   */
  async findOrCreate(companyId: number, input: FindOrCreateInput, trx?: Knex.Transaction): Promise<Contact> {
    const [contact] = await this.findOrCreateMany(companyId, [input], trx);
    return contact;
  }

  /**
   * See ContactsService.findOrCreateMany. One contact per person (issue 33 item 5): each input is resolved
   * by `resolve` (its number, the number's 9th-digit twin, its LID, the aliases of merged duplicates). The
   * rows read are locked FOR KEY SHARE for the transaction (cheap, and compatible with every other writer
   * but a merge or a delete, which wait for it - and which it waits for: a contact merged away meanwhile is
   * resolved again, to the contact it was merged into). Inputs nobody holds are created under advisory
   * locks on their number's key (`phoneKey`) and LID, taken in one order, then resolved once more: two
   * spellings of one new person arriving at once give one contact. Without `trx` it runs in its own.
   */
  async findOrCreateMany(companyId: number, inputs: FindOrCreateInput[], trx?: Knex.Transaction, opts: { tagsOut?: Map<number, ContactTagRef[]> } = {}): Promise<Contact[]> {
    if (!inputs.length) return [];
    if (!trx) return this.db.transaction((t) => this.findOrCreateMany(companyId, inputs, t, opts));
    const tagsOut = opts.tagsOut;
    const byNumber = new Map<string, Wanted>();
    const numbers = inputs.map((input) => {
      const number = String(input.number ?? '').trim();
      if (!number || number.length > 100) throw new AppError('ERR_VALIDATION', 'number must have 1 to 100 characters');
      const prev = byNumber.get(number);
      const name = input.name?.trim().slice(0, 255) || null;
      const channel = prev?.channel ?? input.channel;
      const isGroup = prev?.isGroup ?? input.isGroup ?? false;
      const lid = canonicalLid(input.lid) ?? (input.lid || null);
      byNumber.set(number, wantedOf({
        number,
        name: name || prev?.name || null,
        // `name` names a created contact; `rename` (a profile name only: FindOrCreateInput) an existing one.
        rename: (renamesExisting(input) ? name : null) || prev?.rename || null,
        pic: input.profilePicUrl || prev?.pic || null,
        lid: lid || prev?.lid || null,
        jid: input.remoteJid || prev?.jid || null,
        channel,
        isGroup,
      }));
      return number;
    });
    // Sorted by number: concurrent callers lock in one order (no deadlocks between them).
    const wanted = [...byNumber.values()].sort((a, b) => (a.number < b.number ? -1 : a.number > b.number ? 1 : 0));
    const withLinks = Boolean(tagsOut);
    const events: { action: 'create' | 'update'; contact: Contact }[] = [];
    /** The row each input number resolved to. */
    const rowOf = new Map<string, Record<string, unknown>>();
    /** Contacts created by this call (no tags; `create` events). */
    const created = new Set<number>();

    // 1. The common case: every input is a known contact, found in this one read.
    let pending = wanted;
    for (let attempt = 1; pending.length; attempt++) {
      const found = await this.resolve(trx, companyId, pending, { withLinks, aliases: true });
      for (const [number, row] of found) rowOf.set(number, row);
      pending = pending.filter((w) => !rowOf.has(w.number));
      if (!pending.length) break;
      if (attempt === 1) {
        // 2. Unknown inputs: lock their keys, then look again (aliases too) before creating.
        await this.lockKeys(trx, companyId, pending);
        continue;
      }
      if (attempt > 3) throw new Error('contacts: a contact could neither be found nor created');
      // 3. Still unknown: create one contact per person (inputs sharing a key or a LID share it).
      const made = await this.createFor(trx, companyId, pending, withLinks);
      for (const [number, row] of made) {
        rowOf.set(number, row);
        if (row.inserted) {
          created.add(row.id as number);
          delete row.inserted;
        }
      }
      pending = pending.filter((w) => !rowOf.has(w.number));
    }

    // 4. Known contacts with something new about them: one UPDATE (by id).
    type Change = { id: number; number: string | null; rename: string | null; pic: string | null; lid: string | null; jid: string | null };
    const changes = new Map<number, Change>();
    for (const w of wanted) {
      const r = rowOf.get(w.number)!;
      const id = r.id as number;
      if (created.has(id)) continue;
      const rLidUser = lidUser(r.lid as string | null);
      // A contact known only by its LID takes the phone number a later message brings (when free: a contact
      // holding it would have been resolved instead).
      const number = w.phone && !w.lidOnly && rLidUser !== undefined && r.number === rLidUser && r.number !== w.number ? w.number : null;
      const c: Change = {
        id,
        number,
        rename: w.rename !== null && r.name !== w.rename ? w.rename : null,
        pic: w.pic !== null && r.profilePicUrl !== w.pic ? w.pic : null,
        lid: w.lid !== null && r.lid !== w.lid ? w.lid : null,
        jid: w.jid !== null && r.remoteJid !== w.jid ? w.jid : null,
      };
      if (c.number === null && c.rename === null && c.pic === null && c.lid === null && c.jid === null) continue;
      const prev = changes.get(id);
      changes.set(id, prev ? { id, number: c.number ?? prev.number, rename: c.rename ?? prev.rename, pic: c.pic ?? prev.pic, lid: c.lid ?? prev.lid, jid: c.jid ?? prev.jid } : c);
    }
    if (changes.size) {
      const list = [...changes.values()].sort((a, b) => a.id - b.id);
      const values = list.map(() => '(?::int, ?::text, ?::text, ?::text, ?::text, ?::text)').join(', ');
      const { rows: updated } = await trx.raw(
        `UPDATE contacts AS c SET
           number = COALESCE(i.number, c.number), name = COALESCE(i.name, c.name), profile_pic_url = COALESCE(i.pic, c.profile_pic_url),
           lid = COALESCE(i.lid, c.lid), remote_jid = COALESCE(i.jid, c.remote_jid), updated_at = now()
         FROM (VALUES ${values}) AS i(id, number, name, pic, lid, jid)
         WHERE c.company_id = ? AND c.id = i.id
         RETURNING c.*${withLinks ? `, ${tagLinksColumn('c')}` : ''}`,
        [...list.flatMap((c) => [c.id, c.number, c.rename, c.pic, c.lid, c.jid]), companyId],
      );
      const byId = new Map<number, Record<string, unknown>>();
      for (const r of updated as Record<string, unknown>[]) {
        const row = camelRow(r);
        byId.set(row.id as number, row);
        events.push({ action: 'update', contact: this.toContact(row) });
      }
      for (const [number, r] of rowOf) if (byId.has(r.id as number)) rowOf.set(number, byId.get(r.id as number)!);
    }

    const contactOf = new Map<number, Contact>();
    const answer = (number: string): Contact => {
      const r = rowOf.get(number)!;
      const id = r.id as number;
      if (!contactOf.has(id)) contactOf.set(id, this.toContact(r));
      return contactOf.get(id)!;
    };
    const out = numbers.map(answer);
    for (const id of created) events.unshift({ action: 'create', contact: contactOf.get(id)! });
    if (tagsOut) {
      // Created contacts have no tags; the others' links came with their rows.
      const read = [...new Map([...rowOf.values()].filter((r) => !created.has(r.id as number)).map((r) => [r.id as number, r])).values()];
      for (const [id, list] of await this.tagRefsOfRows(companyId, read)) tagsOut.set(id, list);
      for (const c of contactOf.values()) if (!tagsOut.has(c.id)) tagsOut.set(c.id, []);
    }
    if (events.length) trx.executionPromise.then(() => events.forEach((e) => this.emit(companyId, e)), () => undefined);
    return out;
  }

  /**
   * The stored contact of each wanted input (keyed by its number), read inside `trx` and locked FOR KEY
   * SHARE; inputs nobody holds are left out. Per input, in order: the contact stored under its number; for
   * a LID-only input (its number is its LID's digits) a phone contact holding that LID first; under the
   * number's 9th-digit twin; (with `aliases`) a contact having one of them as an alias; the contact holding
   * its LID (a phone contact before a LID-only one), then one having the LID as an alias. Ties: lowest id.
   */
  private async resolve(trx: Knex.Transaction, companyId: number, wanted: Wanted[], o: { withLinks: boolean; aliases: boolean }): Promise<Map<string, Record<string, unknown>>> {
    const lidsOf = (list: Wanted[]) => [...new Set(list.flatMap((w) => [w.lid, w.lidGuess]).filter((l): l is string => Boolean(l)))];
    const numbers = [...new Set(wanted.flatMap((w) => w.variants))];
    const lids = lidsOf(wanted);
    const read = (where: (b: Knex.QueryBuilder) => void) => {
      const b = trx('contacts').where('contacts.companyId', companyId).where(where).orderBy('contacts.id').forKeyShare('contacts');
      return (o.withLinks ? b.select('contacts.*', trx.raw(tagLinksColumn('contacts'))) : b.select('contacts.*')) as Promise<Record<string, unknown>[]>;
    };
    const rows = await read((w) => {
      void w.whereIn('contacts.number', numbers);
      if (lids.length) void w.orWhereIn('contacts.lid', lids);
    });
    const byNumber = new Map<string, Record<string, unknown>>();
    const byId = new Map<number, Record<string, unknown>>();
    const index = (list: Record<string, unknown>[]) => {
      for (const r of list) {
        byId.set(r.id as number, r);
        if (!byNumber.has(String(r.number))) byNumber.set(String(r.number), r);
      }
    };
    index(rows);
    const holdersOf = (lid: string) => rows.filter((r) => r.lid === lid).sort((a, b) => {
      const phone = (r: Record<string, unknown>) => (r.number === lidUser(lid) ? 1 : 0);
      return phone(a) - phone(b) || (a.id as number) - (b.id as number);
    });
    const aliasOf = new Map<string, number>();
    const pick = (w: Wanted) => {
      const lidHolder = w.lid ? holdersOf(w.lid)[0] : undefined;
      return (
        (w.lidOnly && lidHolder && lidHolder.number !== w.number ? lidHolder : undefined) ??
        w.variants.map((v) => byNumber.get(v)).find(Boolean) ??
        w.variants.map((v) => byId.get(aliasOf.get(`number:${v}`) ?? 0)).find(Boolean) ??
        lidHolder ??
        (w.lid ? byId.get(aliasOf.get(`lid:${w.lid}`) ?? 0) : undefined) ??
        (w.lidGuess ? holdersOf(w.lidGuess).find((r) => r.number !== w.number) : undefined)
      );
    };
    // The addresses of merged duplicates (aliases) only for inputs no contact holds directly: the common case
    // stays one statement.
    const unmatched = wanted.filter((w) => !pick(w));
    if (o.aliases && unmatched.length) {
      const aNumbers = [...new Set(unmatched.flatMap((w) => w.variants))];
      const aLids = lidsOf(unmatched);
      const links: { contactId: number; kind: string; address: string }[] = await trx('contactAliases')
        .where({ companyId })
        .where((w) => {
          void w.where('kind', 'number').whereIn('address', aNumbers);
          if (aLids.length) void w.orWhere((x) => x.where('kind', 'lid').whereIn('address', aLids));
        })
        .select('contactId', 'kind', 'address');
      for (const l of links) aliasOf.set(`${l.kind}:${l.address}`, l.contactId);
      const more = [...new Set(links.map((l) => l.contactId))].filter((id) => !byId.has(id));
      if (more.length) {
        const extra = await read((w) => void w.whereIn('contacts.id', more));
        rows.push(...extra);
        index(extra);
      }
    }
    const out = new Map<string, Record<string, unknown>>();
    for (const w of wanted) {
      const r = pick(w);
      if (r) out.set(w.number, r);
    }
    return out;
  }

  /**
   * Transaction-scoped advisory locks on the keys of inputs about to be created: their number's `phoneKey`
   * (every spelling of one number shares it) and their LID, hashed per company, taken in one order.
   */
  private async lockKeys(trx: Knex.Transaction, companyId: number, wanted: Wanted[]): Promise<void> {
    const keys = [...new Set(wanted.flatMap((w) => [`contact:${companyId}:n:${w.key}`, ...(w.lid ? [`contact:${companyId}:l:${w.lid}`] : [])]))];
    await trx.raw('SELECT count(pg_advisory_xact_lock(k)) FROM (SELECT hashtextextended(x, 0) AS k FROM unnest(?::text[]) AS x ORDER BY 1) AS s', [keys]);
  }

  /**
   * Creates one contact per person among `wanted` (inputs sharing a number key or a LID share one; a
   * phone input's number is preferred to a LID's digits), `INSERT ... ON CONFLICT (company_id, number) DO
   * NOTHING`. Answers the row of each input number created here (with `inserted: true`) or found under its
   * exact number (created meanwhile by a caller that does not take the locks: the REST routes).
   */
  private async createFor(trx: Knex.Transaction, companyId: number, wanted: Wanted[], withLinks: boolean): Promise<Map<string, Record<string, unknown>>> {
    // Phone inputs first: a person's contact is named by its phone number when one input knows it.
    const order = [...wanted].sort((a, b) => Number(a.lidOnly) - Number(b.lidOnly));
    const people: { lead: Wanted; members: Wanted[] }[] = [];
    for (const w of order) {
      const p = people.find((x) => x.members.some((m) => m.key === w.key || (w.lid !== null && m.lid === w.lid)));
      if (p) p.members.push(w);
      else people.push({ lead: w, members: [w] });
    }
    const acceptAudio = await this.shouldAcceptAudio(companyId);
    const lead = (p: (typeof people)[number]) => ({
      name: p.lead.name ?? p.members.find((m) => m.name)?.name ?? p.lead.number,
      lid: p.members.find((m) => m.lid)?.lid ?? null,
      jid: p.lead.jid ?? null,
      pic: p.members.find((m) => m.pic)?.pic ?? null,
    });
    const inserted: Record<string, unknown>[] = await trx('contacts')
      .insert(people.map((p) => {
        const l = lead(p);
        return { companyId, name: l.name, number: p.lead.number, channel: p.lead.channel, isGroup: p.lead.isGroup, remoteJid: l.jid, lid: l.lid, profilePicUrl: l.pic, acceptAudioMessage: acceptAudio };
      }))
      .onConflict(['companyId', 'number'])
      .ignore()
      .returning('*');
    const out = new Map<string, Record<string, unknown>>();
    const byNumber = new Map<string, Record<string, unknown>>(inserted.map((r) => [String(r.number), { ...r, inserted: true }]));
    const raced = people.filter((p) => !byNumber.has(p.lead.number)).map((p) => p.lead.number);
    if (raced.length) {
      const b = trx('contacts').where('contacts.companyId', companyId).whereIn('contacts.number', raced).forKeyShare('contacts');
      for (const r of (await (withLinks ? b.select('contacts.*', trx.raw(tagLinksColumn('contacts'))) : b.select('contacts.*'))) as Record<string, unknown>[]) byNumber.set(String(r.number), r);
    }
    for (const p of people) {
      const row = byNumber.get(p.lead.number);
      if (row) for (const m of p.members) out.set(m.number, row);
    }
    return out;
  }

  /**
   * The contact (other than `exceptId`) that already is the person a phone `number` names (WhatsApp
   * channels, not groups): stored under the number or its 9th-digit twin, or having one of them as an alias;
   * undefined when none (and always for other channels and groups: their numbers are unique as typed).
   */
  async samePerson(db: Knex | Knex.Transaction, companyId: number, number: string, channel: ContactChannel, isGroup: boolean, exceptId?: number): Promise<{ id: number; number: string } | undefined> {
    if (isGroup || (channel !== 'whatsapp' && channel !== 'whatsappapi')) return undefined;
    const variants = phoneVariants(number);
    const q = db('contacts')
      .where({ companyId })
      .where((w) => void w.whereIn('number', variants).orWhereIn('id', db('contactAliases').where({ companyId, kind: 'number' }).whereIn('address', variants).select('contactId')))
      .orderByRaw('number = ? DESC, id ASC', [number])
      .first('id', 'number');
    if (exceptId !== undefined) q.whereNot('id', exceptId);
    return (await q) as { id: number; number: string } | undefined;
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

/** One person a find-or-create call asks for, with the addresses it is looked up by. */
interface Wanted {
  number: string;
  /** Names the contact if created. */
  name: string | null;
  /** A profile name: renames an existing contact. */
  rename: string | null;
  pic: string | null;
  /** The LID JID (`user@lid`), when known. */
  lid: string | null;
  jid: string | null;
  channel: ContactChannel;
  isGroup: boolean;
  /** A WhatsApp phone number (1:1): looked up under its 9th-digit twin too. */
  phone: boolean;
  /** The input knows only the LID: its number is the LID's digits. */
  lidOnly: boolean;
  /** The spellings it is looked up by (`number` first). */
  variants: string[];
  /** One key for all its spellings (`phoneKey`): the advisory lock while creating. */
  key: string;
  /**
   * Digits without a LID that may be one (a 1:1 WhatsApp thread seen only by its LID, e.g. our own message
   * sent from the phone, whose envelope carries no LID): `digits@lid`, looked up last, never stored.
   */
  lidGuess: string | null;
}

function wantedOf(w: Omit<Wanted, 'phone' | 'lidOnly' | 'variants' | 'key' | 'lidGuess'>): Wanted {
  const lidOnly = w.lid !== null && lidUser(w.lid) === w.number;
  const phone = !w.isGroup && (w.channel === 'whatsapp' || w.channel === 'whatsappapi') && /^\d{5,20}$/.test(w.number) && !lidOnly;
  const variants = phone ? phoneVariants(w.number) : [w.number];
  const lidGuess = phone && w.channel === 'whatsapp' && w.lid === null && variants.length === 1 && w.number.length >= 12 ? `${w.number}@lid` : null;
  return { ...w, phone, lidOnly, variants, key: phone ? phoneKey(w.number) : w.number, lidGuess };
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
