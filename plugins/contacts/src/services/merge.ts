import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { AppError, iso, type AuditRequestLike, type AuditService, type Contributions } from '@atendo/sdk';
import type { Contact, ContactDetails, ContactMerger } from '../contract';
import type { ContactStore } from './contacts';
import { lidUser, phoneKey } from './numbers';

/**
 * Merging duplicate contacts (issue 33 item 5, "one contact per person"): the admin's preview, the merge
 * itself, and the list of likely duplicates the contacts page offers.
 *
 * A merge keeps the target contact and folds the sources into it in ONE transaction: the contacts are
 * locked (FOR UPDATE, id order), every `contacts.mergers` contribution moves its own rows (the tickets
 * plugin: tickets, messages, notes; the schedules plugin: schedules) through that transaction, then this
 * plugin moves the sources' tags and extra info, records their numbers and LIDs as the target's aliases
 * (so later messages from them land on the target), fills the target's empty fields from them, deletes them
 * and writes one audit entry per contact. A crash or an error anywhere rolls all of it back: nothing is ever
 * half-moved. Pushes (`company-{cid}-contact` delete/update, the contributors' own) follow the commit.
 */

/** At most this many sources a merge. */
export const MERGE_MAX_SOURCES = 20;
/** At most this many groups `duplicates` answers. */
export const DUPLICATE_GROUPS_MAX = 100;

/** What `preview` answers (`POST /contacts/merge/preview`). */
export interface MergePreview {
  target: Contact;
  sources: Contact[];
  /** The target as it will be after the merge (its empty fields filled from the sources). */
  result: Contact;
  /** What moves, by kind: this plugin's `tags`, `extraInfo`, `aliases`, and the contributors' keys. */
  counts: Record<string, number>;
  /** Names the contacts' state the preview saw; `merge` refuses another (409 ERR_MERGE_PREVIEW_STALE). */
  previewToken: string;
}

/** One group of `duplicates`: contacts that look like one person, and why. */
export interface DuplicateGroup {
  /** `ninthDigit`: numbers that are one another's Brazilian 9th-digit twin; `lid`: the same WhatsApp LID (or a contact named by another's LID). */
  reasons: ('ninthDigit' | 'lid')[];
  contacts: Contact[];
}

type Row = Record<string, unknown>;

export class ContactMerges {
  constructor(
    private readonly db: Knex,
    private readonly store: ContactStore,
    private readonly mergers: Contributions<ContactMerger>,
    private readonly audit?: AuditService,
  ) {}

  /** 400 ERR_VALIDATION for a bad id list; the ids, sources deduplicated. */
  private check(targetId: number, sourceIds: number[]): number[] {
    const sources = [...new Set(sourceIds)];
    if (!sources.length || sources.length > MERGE_MAX_SOURCES) throw new AppError('ERR_VALIDATION', `sourceIds must name 1 to ${MERGE_MAX_SOURCES} contacts`);
    if (sources.includes(targetId)) throw new AppError('ERR_VALIDATION', 'the target contact cannot be one of the sources');
    return sources;
  }

  /** The contacts `ids` of `companyId` (locked FOR UPDATE in id order with `lock`); 404 ERR_NO_CONTACT_FOUND when one is not the company's; 400 for groups. */
  private async load(db: Knex | Knex.Transaction, companyId: number, ids: number[], lock: boolean): Promise<Map<number, Row>> {
    const q = db('contacts').where({ companyId }).whereIn('id', ids).orderBy('id');
    if (lock) q.forUpdate();
    const rows = (await q) as Row[];
    if (rows.length !== ids.length) throw new AppError('ERR_NO_CONTACT_FOUND');
    if (rows.some((r) => r.isGroup)) throw new AppError('ERR_VALIDATION', 'group contacts cannot be merged');
    return new Map(rows.map((r) => [r.id as number, r]));
  }

  /** The token of a preview: the company, the ids and each contact's `updatedAt`. */
  private token(companyId: number, targetId: number, sources: number[], rows: Map<number, Row>): string {
    const state = [targetId, ...[...sources].sort((a, b) => a - b)].map((id) => `${id}@${iso(rows.get(id)!.updatedAt)}`);
    return createHash('sha256').update(`${companyId}|${state.join('|')}`).digest('base64url').slice(0, 32);
  }

  /**
   * The fields the target takes from the sources (the first source, in the order given, that has them):
   * email, LID, WhatsApp JID, picture and LGPD consent when the target has none, an opt-out when the target
   * has none (the person asked; kept), and a phone number when the target is known only by its LID.
   */
  private patchOf(target: Row, sources: Row[]): Row {
    const patch: Row = {};
    const first = (key: string) => sources.map((s) => s[key]).find((v) => v !== null && v !== undefined && v !== '');
    const fill = (key: string) => {
      if ((target[key] === null || target[key] === undefined || target[key] === '') && first(key) !== undefined) patch[key] = first(key);
    };
    for (const key of ['email', 'lid', 'remoteJid', 'profilePicUrl', 'urlPicture', 'lgpdAcceptedAt']) fill(key);
    if (!target.optedOutAt) {
      const out = sources.find((s) => s.optedOutAt);
      if (out) Object.assign(patch, { optedOutAt: out.optedOutAt, optOutKeyword: out.optOutKeyword });
    }
    const targetLid = lidUser((target.lid as string | null) ?? (patch.lid as string | null));
    if (targetLid !== undefined && target.number === targetLid) {
      const phone = sources.find((s) => s.number !== lidUser(s.lid as string | null) && /^\d{8,20}$/.test(String(s.number)));
      if (phone) patch.number = phone.number;
    }
    return patch;
  }

  /** The numbers and LIDs of the sources the target does not carry itself: its new aliases. */
  private aliasesOf(target: Row, patch: Row, sources: Row[]): { kind: 'number' | 'lid'; address: string }[] {
    const number = (patch.number as string | undefined) ?? (target.number as string);
    const lid = (patch.lid as string | undefined) ?? (target.lid as string | null);
    const out = new Map<string, { kind: 'number' | 'lid'; address: string }>();
    for (const s of sources) {
      const sLid = s.lid as string | null;
      // A LID-only contact's number is its LID's digits: the LID is the address, not the digits.
      if (s.number !== lidUser(sLid) && s.number !== number) out.set(`number:${s.number}`, { kind: 'number', address: String(s.number) });
      if (sLid && sLid !== lid) out.set(`lid:${sLid}`, { kind: 'lid', address: sLid });
    }
    return [...out.values()];
  }

  /** This plugin's own counts: tags the target gains, extra info rows moved, aliases added. */
  private async ownCounts(db: Knex | Knex.Transaction, companyId: number, target: Row, patch: Row, sources: Row[]): Promise<Record<string, number>> {
    const ids = sources.map((s) => s.id as number);
    const targetId = target.id as number;
    const [tags, extra, aliases] = await Promise.all([
      db('contactTags').where({ companyId }).whereIn('contactId', ids).whereNotIn('tagId', db('contactTags').where({ companyId, contactId: targetId }).select('tagId')).countDistinct({ n: 'tagId' }),
      db('contactExtraInfo').where({ companyId }).whereIn('contactId', ids).count({ n: '*' }),
      db('contactAliases').where({ companyId }).whereIn('contactId', ids).count({ n: '*' }),
    ]);
    return { tags: Number(tags[0].n), extraInfo: Number(extra[0].n), aliases: Number(aliases[0].n) + this.aliasesOf(target, patch, sources).length };
  }

  /**
   * The merge of `sourceIds` into `targetId` as it would happen now, read-only (`POST /contacts/merge/preview`).
   * 400 ERR_VALIDATION (no or too many sources, the target among them, a group), 404 ERR_NO_CONTACT_FOUND
   * (an id that is not a contact of `companyId`).
   */
  async preview(companyId: number, targetId: number, sourceIds: number[]): Promise<MergePreview> {
    const sources = this.check(targetId, sourceIds);
    const rows = await this.load(this.db, companyId, [targetId, ...sources], false);
    const target = rows.get(targetId)!;
    const sourceRows = sources.map((id) => rows.get(id)!);
    const patch = this.patchOf(target, sourceRows);
    const counts = await this.ownCounts(this.db, companyId, target, patch, sourceRows);
    for (const m of this.mergers.all()) Object.assign(counts, await m.preview(companyId, targetId, sources));
    return {
      target: this.store.toContact(target),
      sources: sourceRows.map((r) => this.store.toContact(r)),
      result: this.store.toContact({ ...target, ...patch }),
      counts,
      previewToken: this.token(companyId, targetId, sources, rows),
    };
  }

  /**
   * Merges `sourceIds` into `targetId` in one transaction (see the file's comment), after checking that the
   * contacts are as the preview named by `previewToken` saw them (409 ERR_MERGE_PREVIEW_STALE otherwise).
   * Errors as `preview`. Audited (`entity: 'contact'`, `action: 'merge'`, ids and counts only) for the
   * target and for each source. Answers the target with its extra info and tags, and what moved.
   */
  async merge(companyId: number, targetId: number, sourceIds: number[], previewToken: string, req?: AuditRequestLike): Promise<{ contact: ContactDetails; counts: Record<string, number> }> {
    const sources = this.check(targetId, sourceIds);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.mergeOnce(companyId, targetId, sources, previewToken, req);
      } catch (err) {
        // A deadlock with a concurrent writer of these contacts (the inbound pipeline): run it again.
        if ((err as { code?: string }).code === '40P01' && attempt < 3) continue;
        throw err;
      }
    }
  }

  private async mergeOnce(companyId: number, targetId: number, sources: number[], previewToken: string, req?: AuditRequestLike): Promise<{ contact: ContactDetails; counts: Record<string, number> }> {
    const after: (() => Promise<void>)[] = [];
    const { counts, row } = await this.db.transaction(async (trx) => {
      const rows = await this.load(trx, companyId, [targetId, ...sources], true);
      if (this.token(companyId, targetId, sources, rows) !== previewToken) throw new AppError('ERR_MERGE_PREVIEW_STALE');
      const target = rows.get(targetId)!;
      const sourceRows = sources.map((id) => rows.get(id)!);
      const patch = this.patchOf(target, sourceRows);
      const aliases = this.aliasesOf(target, patch, sourceRows);
      const counts: Record<string, number> = {};
      for (const m of this.mergers.all()) {
        const r = await m.merge(companyId, targetId, sources, trx);
        Object.assign(counts, r.counts);
        if (r.afterCommit) after.push(r.afterCommit);
      }
      // Tags: the target gets every tag of the sources (the sources' links go with them).
      const tagged = await trx.raw(
        `INSERT INTO contact_tags (contact_id, tag_id, company_id, created_at, updated_at)
         SELECT ?, tag_id, company_id, min(created_at), now() FROM contact_tags
          WHERE company_id = ? AND contact_id = ANY(?::int[]) GROUP BY tag_id, company_id
         ON CONFLICT (contact_id, tag_id) DO NOTHING`,
        [targetId, companyId, sources],
      );
      counts.tags = tagged.rowCount ?? 0;
      // Extra info: moved, except fields the target already has with the same value.
      counts.extraInfo = await trx('contactExtraInfo')
        .where({ companyId })
        .whereIn('contactId', sources)
        .whereNotExists(trx('contactExtraInfo as t').where('t.companyId', companyId).where('t.contactId', targetId).whereRaw('t.name = contact_extra_info.name AND t.value = contact_extra_info.value').select(trx.raw('1')))
        .update({ contactId: targetId, updatedAt: trx.fn.now() });
      // Aliases: the sources' own aliases, then their numbers and LIDs.
      let moved = await trx('contactAliases').where({ companyId }).whereIn('contactId', sources).update({ contactId: targetId });
      if (aliases.length) {
        const added: unknown[] = await trx('contactAliases').insert(aliases.map((a) => ({ companyId, contactId: targetId, ...a }))).onConflict(['companyId', 'kind', 'address']).ignore().returning('id');
        moved += added.length;
      }
      counts.aliases = moved;
      // The target's own number or LID is no alias of it.
      const ownNumber = (patch.number as string | undefined) ?? (target.number as string);
      const ownLid = (patch.lid as string | undefined) ?? (target.lid as string | null);
      await trx('contactAliases')
        .where({ companyId, contactId: targetId })
        .where((w) => {
          void w.where({ kind: 'number', address: ownNumber });
          if (ownLid) void w.orWhere({ kind: 'lid', address: ownLid });
        })
        .del();
      await trx('contacts').where({ companyId }).whereIn('id', sources).del();
      const [row] = (await trx('contacts').where({ companyId, id: targetId }).update({ ...patch, updatedAt: trx.fn.now() }).returning('*')) as Row[];
      if (this.audit) {
        await this.audit.record(trx, { req, companyId, entity: 'contact', entityId: targetId, action: 'merge', before: null, after: { mergedIds: sources, ...counts } });
        for (const id of sources) await this.audit.record(trx, { req, companyId, entity: 'contact', entityId: id, action: 'merge', before: null, after: { mergedIntoId: targetId } });
      }
      return { counts, row };
    });
    for (const id of sources) this.store.emit(companyId, { action: 'delete', contactId: id });
    const contact = await this.store.details(companyId, row);
    this.store.emit(companyId, { action: 'update', contact });
    for (const fn of after) await fn().catch(() => undefined);
    return { contact, counts };
  }

  /**
   * Contacts of `companyId` that look like one person (WhatsApp channels, not groups), at most
   * DUPLICATE_GROUPS_MAX groups, newest contacts first: numbers that are one another's Brazilian
   * 9th-digit twin (libphonenumber-js decides: `phoneKey`), contacts holding the same LID, and a contact
   * named by another's LID (created before the phone number was known). A prefilter in SQL keeps the
   * read to the candidates.
   */
  async duplicates(companyId: number): Promise<DuplicateGroup[]> {
    const { rows } = await this.db.raw(
      `WITH c AS MATERIALIZED (
         SELECT id, number, lid,
                CASE WHEN number ~ '^55[1-9][0-9]9[6-9][0-9]{7}$' THEN substr(number, 1, 4) || substr(number, 6) ELSE number END AS k
           FROM contacts
          WHERE company_id = ? AND is_group = false AND channel IN ('whatsapp', 'whatsappapi')
       ),
       -- A contact named by another's LID (equality joins: hashed, never a scan per row).
       named AS (SELECT c1.id AS a, c2.id AS b FROM c c1 JOIN c c2 ON c2.lid = c1.number || '@lid' AND c2.id <> c1.id)
       SELECT c.* FROM c WHERE c.k IN (SELECT k FROM c GROUP BY k HAVING count(*) > 1)
       UNION
       SELECT c.* FROM c WHERE c.lid IN (SELECT lid FROM c WHERE lid IS NOT NULL GROUP BY lid HAVING count(*) > 1)
       UNION
       SELECT c.* FROM c WHERE c.id IN (SELECT a FROM named UNION SELECT b FROM named)`,
      [companyId],
    );
    const candidates = rows as { id: number; number: string; lid: string | null }[];
    // Union-find over the candidates by their keys.
    const parent = new Map<number, number>();
    const find = (x: number): number => {
      let r = x;
      while (parent.get(r) !== r) r = parent.get(r)!;
      parent.set(x, r);
      return r;
    };
    const union = (a: number, b: number) => parent.set(find(a), find(b));
    const byKey = new Map<string, number>();
    const reasons = new Map<number, Set<'ninthDigit' | 'lid'>>();
    const link = (id: number, key: string, reason: 'ninthDigit' | 'lid') => {
      const other = byKey.get(key);
      if (other === id) return;
      if (other === undefined) {
        byKey.set(key, id);
        return;
      }
      union(id, other);
      const set = reasons.get(id) ?? new Set();
      set.add(reason);
      reasons.set(id, set);
    };
    for (const c of candidates) parent.set(c.id, c.id);
    for (const c of candidates) {
      if (c.lid && lidUser(c.lid) === c.number) {
        // Known only by its LID (its number is the LID's digits).
        link(c.id, `lid:${c.lid}`, 'lid');
        continue;
      }
      link(c.id, `n:${phoneKey(c.number)}`, 'ninthDigit');
      // Digits that are another contact's LID (a LID-only contact whose LID column is empty).
      link(c.id, `lid:${c.number}@lid`, 'lid');
      if (c.lid) link(c.id, `lid:${c.lid}`, 'lid');
    }
    const groups = new Map<number, number[]>();
    for (const c of candidates) {
      const root = find(c.id);
      groups.set(root, [...(groups.get(root) ?? []), c.id]);
    }
    const multi = [...groups.values()].filter((g) => g.length > 1).sort((a, b) => Math.max(...b) - Math.max(...a)).slice(0, DUPLICATE_GROUPS_MAX);
    if (!multi.length) return [];
    const contacts = new Map(
      ((await this.db('contacts').where({ companyId }).whereIn('id', multi.flat())) as Row[]).map((r) => [r.id as number, this.store.toContact(r)]),
    );
    return multi.map((ids) => {
      const why = new Set<'ninthDigit' | 'lid'>();
      for (const id of ids) for (const r of reasons.get(id) ?? []) why.add(r);
      return { reasons: [...why].sort(), contacts: ids.sort((a, b) => a - b).map((id) => contacts.get(id)!).filter(Boolean) };
    });
  }
}
