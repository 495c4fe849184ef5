import type { Knex } from 'knex';
import type { FastifyBaseLogger } from 'fastify';
import { AppError, iso, page, toBool, UPLOAD_TYPES, type Bus, type IdentityService, type Jobs, type Realtime, type References, type UploadFile, type UploadService } from '@atendo/sdk';
import type { ConnectionsService } from '@atendo/plugin-connections/contract';
import type { ContactsService } from '@atendo/plugin-contacts/contract';
import {
  campaignEvent,
  campaignStatusChanged,
  dispatchJob,
  MEDIA_MAX_BYTES,
  MESSAGE_VARIANTS,
  NAME_MAX,
  NAME_MIN,
  PAGE_SIZE,
  startJob,
  type Campaign,
  type CampaignCounts,
  type CampaignStatus,
  type Shipping,
} from '../contract';
import { DEFAULT_TIME_ZONE, editScope, parseScheduledAt, parseWhatsappIds, variantsOf } from './rules';

export const CAMPAIGNS = 'campaigns';
export const SHIPPINGS = 'campaigns_shippings';
const LISTS = 'campaigns_contact_lists';
const ITEMS = 'campaigns_contact_list_items';
/** Upload area (folder) of campaign media. */
export const MEDIA_AREA = 'campaigns';
/** What a campaign may attach (checked on the sniffed type). */
export const MEDIA_TYPES: readonly string[] = [...UPLOAD_TYPES.images, ...UPLOAD_TYPES.audio, ...UPLOAD_TYPES.video, ...UPLOAD_TYPES.documents];

const MESSAGE_KEYS = Array.from({ length: MESSAGE_VARIANTS }, (_, i) => [`message${i + 1}`, `confirmationMessage${i + 1}`]).flat() as (`message${1 | 2 | 3 | 4 | 5}` | `confirmationMessage${1 | 2 | 3 | 4 | 5}`)[];

/** A `campaigns` row (camelCase). */
export interface CampaignRow extends Record<(typeof MESSAGE_KEYS)[number], string> {
  id: number;
  companyId: number;
  name: string;
  status: CampaignStatus;
  confirmation: boolean;
  scheduledAt: Date | null;
  completedAt: Date | null;
  contactListId: number | null;
  tagListId: number | null;
  whatsappIds: number[];
  mediaPath: string | null;
  mediaName: string | null;
  nextSendAt: Date | null;
  sentInBlock: number;
  rotation: number;
  paused: string | null;
  tickedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A create/update body (the product family's form; dates and ids may come as strings, empty strings as null). */
export interface CampaignInput extends Partial<Record<(typeof MESSAGE_KEYS)[number], string | null>> {
  name?: string;
  confirmation?: boolean | string;
  scheduledAt?: string | null;
  contactListId?: number | string | null;
  tagListId?: number | string | null;
  whatsappId?: number | string | number[] | null;
}

const optionalId = (v: number | string | null | undefined): number | null | undefined => {
  if (v === undefined) return undefined;
  if (v === null || v === '' || (typeof v === 'string' && NONE_LABELS.has(v.trim().toLowerCase()))) return null;
  const n = typeof v === 'number' ? v : /^\s*\d{1,10}\s*$/.test(v) ? Number(v.trim()) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > 2147483647) throw new AppError('ERR_VALIDATION', 'ids must be positive integers');
  return n;
};

/**
 * What the product family's campaign form sends for "no choice" in an id select: its initial value is the
 * label `"Nenhuma"` (CampaignModal's `tagListId`), sent as is when the user picks nothing. Read as null.
 */
const NONE_LABELS: ReadonlySet<string> = new Set(['nenhuma', 'nenhum']);

/** Who changes a campaign's status, for the bus event and logs. */
export interface CampaignDeps {
  db: Knex;
  realtime: Realtime;
  bus: Bus;
  jobs: Jobs;
  uploads: UploadService;
  identity: IdentityService;
  connections: ConnectionsService;
  /** Recipients of a campaign to the contacts of a tag (`tagListId`): `withTag`, `countWithTags`. */
  contacts: Pick<ContactsService, 'withTag' | 'countWithTags'>;
  /** Checks the tag a body names (`tagListId`) against the company. */
  refs: References;
  log: FastifyBaseLogger;
}

/**
 * Campaigns (spec "Campaigns list", "Campaign report", §3 Campaign, §4 "Campaign status", §7): CRUD, media,
 * the status machine (INATIVA on create, PROGRAMADA with a scheduledAt, EM_ANDAMENTO when dispatch starts,
 * FINALIZADA when every recipient is done, CANCELADA by cancel, EM_ANDAMENTO again by restart) and the edit
 * rule, every query scoped to the company. Writes emit `company-{cid}-campaign` after commit.
 */
export class CampaignStore {
  constructor(private readonly d: CampaignDeps) {}

  // -------------------------------------------------------------------------------------------------
  // Reading

  /** The row (locked inside `trx`), or 404 ERR_NO_CAMPAIGN_FOUND. */
  async row(companyId: number, id: number, trx?: Knex.Transaction): Promise<CampaignRow> {
    const q = (trx ?? this.d.db)(CAMPAIGNS).where({ companyId, id }).first();
    const r = (await (trx ? q.forUpdate() : q)) as CampaignRow | undefined;
    if (!r) throw new AppError('ERR_NO_CAMPAIGN_FOUND');
    return r;
  }

  /** Recipient counts of each campaign (see CampaignCounts); campaigns not started count their list's sendable items. */
  async counts(rows: CampaignRow[]): Promise<Map<number, CampaignCounts>> {
    const out = new Map<number, CampaignCounts>();
    if (!rows.length) return out;
    const res = await this.d.db.raw(
      `SELECT campaign_id, count(*)::int AS total,
              count(*) FILTER (WHERE status = 'pending')::int AS pending,
              count(confirmation_requested_at)::int AS requested,
              count(confirmed_at)::int AS confirmed,
              count(*) FILTER (WHERE status = 'delivered')::int AS delivered,
              count(*) FILTER (WHERE status = 'failed')::int AS failed,
              count(*) FILTER (WHERE status = 'failed' AND error = 'ERR_OPTED_OUT')::int AS opted_out
         FROM ${SHIPPINGS} WHERE campaign_id = ANY(?) GROUP BY campaign_id`,
      [rows.map((r) => r.id)],
    );
    for (const r of res.rows as { campaign_id: number; total: number; pending: number; requested: number; confirmed: number; delivered: number; failed: number; opted_out: number }[]) {
      out.set(r.campaign_id, { validContacts: r.total, pending: r.pending, confirmationRequested: r.requested, confirmed: r.confirmed, delivered: r.delivered, failed: r.failed, optedOut: r.opted_out });
    }
    const lists = [...new Set(rows.filter((r) => !out.has(r.id) && r.contactListId !== null).map((r) => r.contactListId!))];
    const sendable = new Map<number, number>();
    if (lists.length) {
      const lr = await this.d.db.raw(`SELECT contact_list_id, count(*)::int AS n FROM ${ITEMS} WHERE contact_list_id = ANY(?) AND number <> '' AND is_whatsapp_valid IS NOT FALSE GROUP BY contact_list_id`, [lists]);
      for (const r of lr.rows as { contact_list_id: number; n: number }[]) sendable.set(r.contact_list_id, r.n);
    }
    const tags = [...new Set(rows.filter((r) => !out.has(r.id) && r.contactListId === null && r.tagListId !== null).map((r) => r.tagListId!))];
    const tagged = tags.length && this.d.contacts.countWithTags ? await this.d.contacts.countWithTags(rows[0].companyId, tags) : new Map<number, number>();
    for (const r of rows) {
      if (out.has(r.id)) continue;
      const n = r.contactListId !== null ? (sendable.get(r.contactListId) ?? 0) : r.tagListId !== null ? (tagged.get(r.tagListId) ?? 0) : 0;
      out.set(r.id, { validContacts: n, pending: n, confirmationRequested: 0, confirmed: 0, delivered: 0, failed: 0 });
    }
    return out;
  }

  /** Rows as the API answers them (list, connection names, counts; `shipping` when asked). */
  async serialize(companyId: number, rows: CampaignRow[], opts: { shipping?: boolean } = {}): Promise<Campaign[]> {
    const counts = await this.counts(rows);
    const listIds = [...new Set(rows.map((r) => r.contactListId).filter((x): x is number => x !== null))];
    const lists = new Map<number, Record<string, unknown>>();
    if (listIds.length) {
      const lr = (await this.d.db(`${LISTS} as l`)
        .where('l.companyId', companyId)
        .whereIn('l.id', listIds)
        .select('l.*', this.d.db.raw(`(SELECT count(*) FROM ${ITEMS} i WHERE i.contact_list_id = l.id)::text AS contacts_count`))) as Record<string, unknown>[];
      for (const l of lr) lists.set(l.id as number, l);
    }
    const conns = new Map<number, { id: number; name: string; status: string } | null>();
    for (const id of new Set(rows.flatMap((r) => r.whatsappIds ?? []))) {
      const c = await this.d.connections.get(companyId, id);
      conns.set(id, c ? { id: c.id, name: c.name, status: c.status } : null);
    }
    const out: Campaign[] = [];
    for (const r of rows) {
      const l = r.contactListId !== null ? lists.get(r.contactListId) : undefined;
      const whatsapps = (r.whatsappIds ?? []).map((id) => conns.get(id)).filter((c): c is { id: number; name: string; status: string } => !!c);
      const c: Campaign = {
        id: r.id,
        name: r.name,
        ...(Object.fromEntries(MESSAGE_KEYS.map((k) => [k, r[k] ?? ''])) as Record<(typeof MESSAGE_KEYS)[number], string>),
        status: r.status,
        confirmation: Boolean(r.confirmation),
        scheduledAt: r.scheduledAt ? iso(r.scheduledAt) : null,
        completedAt: r.completedAt ? iso(r.completedAt) : null,
        companyId: r.companyId,
        contactListId: r.contactListId,
        tagListId: r.tagListId,
        whatsappId: r.whatsappIds?.length ? r.whatsappIds.join(',') : null,
        whatsappIds: r.whatsappIds ?? [],
        mediaPath: r.mediaPath ? this.d.uploads.url(companyId, r.mediaPath) : null,
        mediaName: r.mediaName,
        paused: r.status === 'EM_ANDAMENTO' ? r.paused : null,
        createdAt: iso(r.createdAt),
        updatedAt: iso(r.updatedAt),
        contactList: l ? { id: l.id as number, name: String(l.name), companyId: l.companyId as number, contactsCount: String(l.contactsCount ?? '0'), createdAt: iso(l.createdAt), updatedAt: iso(l.updatedAt) } : null,
        whatsapp: whatsapps[0] ?? null,
        whatsapps,
        counts: counts.get(r.id)!,
      };
      if (opts.shipping) {
        c.shipping = await this.shipping(companyId, r.id);
        if (c.contactList) c.contactList.contacts = await this.listChecks(companyId, c.contactList.id);
      }
      out.push(c);
    }
    return out;
  }

  /** The items of a contact list as the family's campaign report reads them: id and number check (at most 100,000). */
  private async listChecks(companyId: number, listId: number): Promise<{ id: number; isWhatsappValid: boolean | null }[]> {
    const rows = (await this.d.db(ITEMS).where({ companyId, contactListId: listId }).orderBy('id').limit(100_000).select('id', 'isWhatsappValid')) as { id: number; isWhatsappValid: boolean | null }[];
    return rows.map((r) => ({ id: Number(r.id), isWhatsappValid: r.isWhatsappValid === null || r.isWhatsappValid === undefined ? null : Boolean(r.isWhatsappValid) }));
  }

  /** The recipients of a started campaign, in sending order (at most 100,000). */
  async shipping(companyId: number, campaignId: number): Promise<Shipping[]> {
    const rows = (await this.d.db(SHIPPINGS).where({ companyId, campaignId }).orderBy('seq').limit(100_000)) as Record<string, unknown>[];
    const ts = (v: unknown) => (v ? iso(v) : null);
    return rows.map((r) => ({
      id: Number(r.id),
      number: String(r.number),
      name: String(r.name ?? ''),
      status: String(r.status),
      variant: Number(r.variant),
      whatsappId: (r.whatsappId as number | null) ?? null,
      error: (r.error as string | null) ?? null,
      confirmationRequestedAt: ts(r.confirmationRequestedAt),
      confirmedAt: ts(r.confirmedAt),
      deliveredAt: ts(r.deliveredAt),
    }));
  }

  async get(companyId: number, id: number, opts: { shipping?: boolean } = {}): Promise<Campaign> {
    return (await this.serialize(companyId, [await this.row(companyId, id)], opts))[0];
  }

  /** `GET /campaigns`: 20 a page by name (wire-shapes); `searchParam` matches the name. */
  async list(companyId: number, q: { searchParam?: string; pageNumber?: number }): Promise<{ records: Campaign[]; count: number; hasMore: boolean }> {
    const { offset, limit, hasMore } = page(q.pageNumber, PAGE_SIZE);
    const term = (q.searchParam ?? '').trim().toLowerCase();
    const base = this.d.db(CAMPAIGNS).where({ companyId });
    if (term) base.whereRaw('lower(name) LIKE ?', [`%${term.replace(/[\\%_]/g, '\\$&')}%`]);
    const [{ count }] = (await base.clone().count({ count: '*' })) as { count: number }[];
    const rows = (await base.clone().orderBy([{ column: 'name' }, { column: 'id' }]).offset(offset).limit(limit)) as CampaignRow[];
    const records = await this.serialize(companyId, rows);
    return { records, count: Number(count), hasMore: hasMore(Number(count), records.length) };
  }

  /** Emits `company-{cid}-campaign` update with the campaign as it is now (no-op when it was deleted). */
  async emitUpdate(companyId: number, id: number): Promise<void> {
    const r = (await this.d.db(CAMPAIGNS).where({ companyId, id }).first()) as CampaignRow | undefined;
    if (!r) return;
    const [record] = await this.serialize(companyId, [r]);
    this.d.realtime.emitToCompany(companyId, campaignEvent(companyId), { action: 'update', record });
  }

  /** After a status change committed: the socket update (`campaign.status-changed` left with the transaction: `publishStatus`). */
  async statusChanged(companyId: number, id: number, _from: CampaignStatus, _to: CampaignStatus): Promise<void> {
    await this.emitUpdate(companyId, id);
  }

  /** Writes `campaign.status-changed` into the transaction that changes the status (nothing when it stays). */
  async publishStatus(trx: Knex.Transaction, companyId: number, id: number, from: CampaignStatus, to: CampaignStatus): Promise<void> {
    if (from !== to) await this.d.bus.publish(campaignStatusChanged, { companyId, campaignId: id, from, to }, { trx });
  }

  // -------------------------------------------------------------------------------------------------
  // Writing

  /** The company's time zone (setting `timeZone`). */
  private async zone(companyId: number): Promise<string> {
    try {
      return (await this.d.identity.getCompanySetting(companyId, 'timeZone')) || DEFAULT_TIME_ZONE;
    } catch {
      return DEFAULT_TIME_ZONE;
    }
  }

  /** Columns of a body (only given fields), validated; references checked against the company. */
  private async values(companyId: number, input: CampaignInput, creating: boolean, trx: Knex.Transaction): Promise<Partial<CampaignRow>> {
    const out: Partial<CampaignRow> = {};
    if (input.name !== undefined || creating) {
      const name = (input.name ?? '').trim();
      if (name.length < NAME_MIN || name.length > NAME_MAX) throw new AppError('ERR_VALIDATION', `name must have ${NAME_MIN} to ${NAME_MAX} characters`);
      out.name = name;
    }
    for (const k of MESSAGE_KEYS) if (input[k] !== undefined) out[k] = (input[k] ?? '').trim();
    if (input.confirmation !== undefined) out.confirmation = Boolean(toBool(input.confirmation));
    if (input.scheduledAt !== undefined) out.scheduledAt = parseScheduledAt(input.scheduledAt, await this.zone(companyId));
    const listId = optionalId(input.contactListId);
    if (listId !== undefined) {
      if (listId !== null && !(await trx(LISTS).where({ companyId, id: listId }).first('id'))) throw new AppError('ERR_NO_CONTACT_LIST_FOUND');
      out.contactListId = listId;
    }
    const tagId = optionalId(input.tagListId);
    if (tagId !== undefined) {
      // A tag of the company (404 ERR_NO_TAG_FOUND; 400 when no tags plugin is loaded).
      await this.d.refs.assert(companyId, 'tag', tagId, 'tagListId');
      out.tagListId = tagId;
    }
    if (input.whatsappId !== undefined) {
      const ids = parseWhatsappIds(input.whatsappId);
      for (const id of ids) if (!(await this.d.connections.get(companyId, id))) throw new AppError('ERR_NO_WAPP_FOUND');
      out.whatsappIds = ids;
    }
    return out;
  }

  /** 400 ERR_CAMPAIGN_INCOMPLETE unless the campaign has a list, a connection and a message (needed to schedule it). */
  private assertComplete(c: Pick<CampaignRow, 'contactListId' | 'tagListId' | 'whatsappIds' | (typeof MESSAGE_KEYS)[number]>): void {
    if ((c.contactListId === null && c.tagListId === null) || !c.whatsappIds?.length || !variantsOf(c).length) throw new AppError('ERR_CAMPAIGN_INCOMPLETE');
  }

  /** Schedules (or moves) the start job of a PROGRAMADA campaign at its scheduledAt, inside `trx`. */
  private async armStart(c: CampaignRow, trx: Knex.Transaction): Promise<void> {
    await this.d.jobs.schedule(startJob, { companyId: c.companyId, campaignId: c.id }, { runAt: c.scheduledAt!, key: `start:${c.id}`, trx });
  }

  /**
   * `POST /campaigns`: status INATIVA, or PROGRAMADA when `scheduledAt` is given (then it must be complete:
   * 400 ERR_CAMPAIGN_INCOMPLETE), which schedules its start at that time (a past time starts it now).
   */
  async create(companyId: number, input: CampaignInput): Promise<Campaign> {
    const row = await this.d.db.transaction(async (trx) => {
      const values = await this.values(companyId, input, true, trx);
      const status: CampaignStatus = values.scheduledAt ? 'PROGRAMADA' : 'INATIVA';
      const [r] = (await trx(CAMPAIGNS).insert({ companyId, ...values, status }).returning('*')) as CampaignRow[];
      if (status === 'PROGRAMADA') {
        this.assertComplete(r);
        await this.armStart(r, trx);
      }
      return r;
    });
    const [record] = await this.serialize(companyId, [row]);
    this.d.realtime.emitToCompany(companyId, campaignEvent(companyId), { action: 'create', record });
    return record;
  }

  /**
   * `PUT /campaigns/{id}` (spec §4): INATIVA, or PROGRAMADA more than an hour ahead: every field (a
   * scheduledAt makes it PROGRAMADA and moves its start, none makes it INATIVA again); CANCELADA: only the
   * message fields (the recipients still to come get the new texts on restart); anything else, or a change
   * outside that scope, is 400 ERR_CAMPAIGN_NOT_EDITABLE. Fields sent unchanged are not changes (the
   * product family's dialog sends the whole form).
   */
  async update(companyId: number, id: number, input: CampaignInput): Promise<Campaign> {
    const { before, after } = await this.d.db.transaction(async (trx) => {
      const c = await this.row(companyId, id, trx);
      const values = await this.values(companyId, input, false, trx);
      const changed = (Object.keys(values) as (keyof CampaignRow)[]).filter((k) => !sameValue(c[k], values[k]));
      if (!changed.length) return { before: c, after: c };
      const scope = editScope(c.status, c.scheduledAt, new Date());
      const messagesOnly = changed.every((k) => (MESSAGE_KEYS as string[]).includes(k as string));
      if (scope === 'none' || (scope === 'messages' && !messagesOnly)) throw new AppError('ERR_CAMPAIGN_NOT_EDITABLE');
      const patch: Record<string, unknown> = Object.fromEntries(changed.map((k) => [k, values[k]]));
      if (scope === 'all') {
        const next = { ...c, ...patch } as CampaignRow;
        patch.status = next.scheduledAt ? 'PROGRAMADA' : 'INATIVA';
        if (patch.status === 'PROGRAMADA') this.assertComplete(next);
      }
      const [r] = (await trx(CAMPAIGNS).where({ companyId, id }).update({ ...patch, updatedAt: trx.fn.now() }).returning('*')) as CampaignRow[];
      if (scope === 'all') {
        if (r.status === 'PROGRAMADA') await this.armStart(r, trx);
        else await this.d.jobs.cancel(startJob, `start:${id}`, { trx });
      }
      await this.publishStatus(trx, companyId, id, c.status, r.status);
      return { before: c, after: r };
    });
    if (before !== after) await this.statusChanged(companyId, id, before.status, after.status);
    return this.get(companyId, id);
  }

  /** `DELETE /campaigns/{id}`: any status; its jobs, recipients and media go too. */
  async remove(companyId: number, id: number): Promise<void> {
    const c = await this.d.db.transaction(async (trx) => {
      const r = await this.row(companyId, id, trx);
      await this.d.jobs.cancel(startJob, `start:${id}`, { trx });
      await this.d.jobs.cancel(dispatchJob, `dispatch:${id}`, { trx });
      await trx(CAMPAIGNS).where({ companyId, id }).delete();
      return r;
    });
    if (c.mediaPath) await this.d.uploads.remove(companyId, c.mediaPath);
    this.d.realtime.emitToCompany(companyId, campaignEvent(companyId), { action: 'delete', id });
  }

  /** `POST /campaigns/{id}/media-upload`: stores the file (images, audio, video, documents; 16 MiB) and replaces the previous one. */
  async setMedia(companyId: number, id: number, file: () => Promise<UploadFile | undefined>): Promise<Campaign> {
    const c = await this.row(companyId, id);
    if (editScope(c.status, c.scheduledAt, new Date()) === 'none') throw new AppError('ERR_CAMPAIGN_NOT_EDITABLE');
    const part = await file();
    if (!part) throw new AppError('ERR_VALIDATION', 'a file part is required');
    const stored = await this.d.uploads.save(companyId, MEDIA_AREA, part, { allow: MEDIA_TYPES, maxBytes: MEDIA_MAX_BYTES });
    const previous = await this.d.db.transaction(async (trx) => {
      const r = await this.row(companyId, id, trx);
      await trx(CAMPAIGNS).where({ companyId, id }).update({ mediaPath: stored.path, mediaName: stored.fileName, updatedAt: trx.fn.now() });
      return r.mediaPath;
    }).catch(async (err: unknown) => {
      await this.d.uploads.remove(companyId, stored.path);
      throw err;
    });
    if (previous && previous !== stored.path) await this.d.uploads.remove(companyId, previous);
    await this.emitUpdate(companyId, id);
    return this.get(companyId, id);
  }

  /** `DELETE /campaigns/{id}/media-upload`: removes the file. */
  async clearMedia(companyId: number, id: number): Promise<Campaign> {
    const c = await this.row(companyId, id);
    if (editScope(c.status, c.scheduledAt, new Date()) === 'none') throw new AppError('ERR_CAMPAIGN_NOT_EDITABLE');
    await this.d.db(CAMPAIGNS).where({ companyId, id }).update({ mediaPath: null, mediaName: null, updatedAt: this.d.db.fn.now() });
    if (c.mediaPath) await this.d.uploads.remove(companyId, c.mediaPath);
    await this.emitUpdate(companyId, id);
    return this.get(companyId, id);
  }

  // -------------------------------------------------------------------------------------------------
  // Status machine

  /**
   * The `campaigns.start` job: a PROGRAMADA campaign whose time came takes its recipients from its list
   * (items with a number not known to be invalid, in list order; each gets its variant in turn) and becomes
   * EM_ANDAMENTO, with its dispatcher armed in the same transaction. A stale job (moved, unscheduled,
   * cancelled) does nothing; a campaign whose list or connections are gone goes back to INATIVA.
   */
  async start(companyId: number, id: number): Promise<void> {
    const changed = await this.d.db.transaction(async (trx) => {
      const c = (await trx(CAMPAIGNS).where({ companyId, id }).forUpdate().first()) as CampaignRow | undefined;
      if (!c || c.status !== 'PROGRAMADA' || !c.scheduledAt || c.scheduledAt.getTime() > Date.now() + 1000) return undefined;
      const variants = variantsOf(c);
      if ((c.contactListId === null && (c.tagListId === null || !this.d.contacts.withTag)) || !c.whatsappIds.length || !variants.length) {
        await trx(CAMPAIGNS).where({ companyId, id }).update({ status: 'INATIVA', updatedAt: trx.fn.now() });
        this.d.log.warn({ companyId, campaignId: id }, 'campaigns: a scheduled campaign without list, connection or message went back to INATIVA');
        await this.publishStatus(trx, companyId, id, c.status, 'INATIVA');
        return { from: c.status, to: 'INATIVA' as CampaignStatus };
      }
      if (c.contactListId === null) await this.takeTagged(trx, c, variants);
      else await trx.raw(
        `INSERT INTO ${SHIPPINGS} (company_id, campaign_id, contact_list_item_id, seq, number, name, email, variant)
         SELECT ?, ?, s.id, s.seq, s.number, s.name, s.email, (?::int[])[(((s.seq - 1) % ?)::int) + 1]
           FROM (SELECT id, number, name, email, row_number() OVER (ORDER BY id) AS seq FROM ${ITEMS}
                  WHERE company_id = ? AND contact_list_id = ? AND number <> '' AND is_whatsapp_valid IS NOT FALSE) s
         ON CONFLICT DO NOTHING`,
        [companyId, id, variants, variants.length, companyId, c.contactListId],
      );
      await trx(CAMPAIGNS).where({ companyId, id }).update({ status: 'EM_ANDAMENTO', completedAt: null, nextSendAt: null, sentInBlock: 0, rotation: 0, paused: null, updatedAt: trx.fn.now() });
      await this.d.jobs.schedule(dispatchJob, { companyId, campaignId: id }, { key: `dispatch:${id}`, trx });
      await this.publishStatus(trx, companyId, id, c.status, 'EM_ANDAMENTO');
      return { from: c.status, to: 'EM_ANDAMENTO' as CampaignStatus };
    });
    if (changed) await this.statusChanged(companyId, id, changed.from, changed.to);
  }

  /**
   * The recipients of a campaign to a tag (`tagListId`, no list): the company's active, non-group contacts
   * having that tag with a number (contacts service `withTag`, read in `trx`), in contact order, each with
   * its variant in turn; no list item behind them (`contact_list_item_id` null).
   */
  private async takeTagged(trx: Knex.Transaction, c: CampaignRow, variants: number[]): Promise<void> {
    const contacts = await this.d.contacts.withTag!(c.companyId, c.tagListId!, { trx });
    const rows = contacts.map((ct, i) => ({ companyId: c.companyId, campaignId: c.id, contactListItemId: null, seq: i + 1, number: ct.number, name: ct.name, email: ct.email, variant: variants[i % variants.length] }));
    for (let i = 0; i < rows.length; i += 1000) await trx(SHIPPINGS).insert(rows.slice(i, i + 1000)).onConflict().ignore();
  }

  /** `POST /campaigns/{id}/cancel`: EM_ANDAMENTO -> CANCELADA (400 ERR_CAMPAIGN_INVALID_TRANSITION otherwise); the dispatcher stops before its next send. */
  async cancel(companyId: number, id: number): Promise<Campaign> {
    await this.d.db.transaction(async (trx) => {
      const c = await this.row(companyId, id, trx);
      if (c.status !== 'EM_ANDAMENTO') throw new AppError('ERR_CAMPAIGN_INVALID_TRANSITION', `A ${c.status} campaign cannot be cancelled`);
      await trx(CAMPAIGNS).where({ companyId, id }).update({ status: 'CANCELADA', paused: null, updatedAt: trx.fn.now() });
      await this.d.jobs.cancel(dispatchJob, `dispatch:${id}`, { trx });
      await this.publishStatus(trx, companyId, id, 'EM_ANDAMENTO', 'CANCELADA');
    });
    await this.statusChanged(companyId, id, 'EM_ANDAMENTO', 'CANCELADA');
    return this.get(companyId, id);
  }

  /**
   * `POST /campaigns/{id}/restart`: CANCELADA -> EM_ANDAMENTO (400 ERR_CAMPAIGN_INVALID_TRANSITION
   * otherwise): the dispatcher continues with the recipients not sent yet (and the confirmed ones still
   * owed their message); nobody already sent to is sent to again.
   */
  async restart(companyId: number, id: number): Promise<Campaign> {
    await this.d.db.transaction(async (trx) => {
      const c = await this.row(companyId, id, trx);
      if (c.status !== 'CANCELADA') throw new AppError('ERR_CAMPAIGN_INVALID_TRANSITION', `A ${c.status} campaign cannot be restarted`);
      await trx(CAMPAIGNS).where({ companyId, id }).update({ status: 'EM_ANDAMENTO', paused: null, updatedAt: trx.fn.now() });
      await this.d.jobs.schedule(dispatchJob, { companyId, campaignId: id }, { key: `dispatch:${id}`, trx });
      await this.publishStatus(trx, companyId, id, 'CANCELADA', 'EM_ANDAMENTO');
    });
    await this.statusChanged(companyId, id, 'CANCELADA', 'EM_ANDAMENTO');
    return this.get(companyId, id);
  }
}

/** Equality of a stored column and a new value (dates by time, arrays by items). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) return (a instanceof Date ? a.getTime() : a) === (b instanceof Date ? b.getTime() : b);
  if (Array.isArray(a) || Array.isArray(b)) return JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
  return (a ?? null) === (b ?? null);
}
