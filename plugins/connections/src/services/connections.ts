import { randomInt } from 'node:crypto';
import type { Knex } from 'knex';
import type { FastifyBaseLogger } from 'fastify';
import { AppError, UPLOAD_TYPES, type Bus, type IdentityService, type PlanFeature, type Realtime, type ServiceRegistry, type Topic, type UploadFile, type UploadService, iso, referencesService } from '@atendo/sdk';
import { queuesService, type QueuesService } from '@atendo/plugin-queues/contract';
import {
  CHANNELS,
  connectionCreated,
  connectionDeleted,
  connectionUpdated,
  META_CHANNELS,
  type Channel,
  type Connection,
  type ConnectionBusEvent,
  type ConnectionQueue,
  type ConnectionQueueDetail,
  type ConnectionRef,
  type ConnectionSecrets,
  type ConnectionsService,
  type StatusHistoryEntry,
  type StatusUpdate,
} from '../contract';
import { MAX_BOT_USES, MAX_ID, MAX_MINUTES, type ConnectionBody } from '../schemas/connections';

/** Audiences a socket is put in by this plugin's resolver: admins see QR codes, other users do not. */
/** The status history table (migrations/20261210003400_status_history.ts) and how many rows a connection keeps. */
export const STATUS_HISTORY = 'whatsapp_status_history';
export const STATUS_HISTORY_KEEP = 200;

export const AUDIENCE_ADMIN = 'connections:admin';
export const AUDIENCE_USER = 'connections:user';

/** The plan flag each channel needs (spec 1-platform.md §3 "Plan"). */
export const CHANNEL_FEATURE: Record<Channel, PlanFeature> = {
  whatsapp: 'useWhatsapp',
  whatsappapi: 'useWhatsapp',
  facebook: 'useFacebook',
  instagram: 'useInstagram',
};

const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{16,100}$/;
const ACCOUNT_PATTERN = /^[0-9]{1,64}$/;
const TIME_PATTERN = /^(([01]\d|2[0-3]):[0-5]\d)?$/;
const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const DAY_MS = 86_400_000;
/** First key of the two-key advisory lock that serialises default changes of one company. */
const DEFAULT_LOCK_CLASS = 1129270862;

/** 30 random characters A-Z0-9 (the product's token format). */
export function generateToken(): string {
  let out = '';
  for (let i = 0; i < 30; i++) out += TOKEN_ALPHABET[randomInt(TOKEN_ALPHABET.length)];
  return out;
}

/** True for the Meta channels (whatsappapi, facebook, instagram). */
export function isMetaChannel(channel: string): boolean {
  return (META_CHANNELS as readonly string[]).includes(channel);
}

const blank = (v: unknown): boolean => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/** Columns every public read selects (never `session`, `facebook_user_token`, `token_meta`). */
const PUBLIC_COLUMNS = [
  'id', 'companyId', 'name', 'channel', 'status', 'qrcode', 'retries', 'number', 'battery', 'plugged', 'isDefault', 'allowGroup',
  'provider', 'greetingMessage', 'complationMessage', 'outOfHoursMessage', 'ratingMessage', 'farewellMessage', 'inactiveMessage',
  'expiresInactiveMessage', 'maxUseBotQueues', 'maxUseBotQueuesNps', 'expiresTicket', 'expiresTicketNps', 'timeInactiveMessage',
  'timeUseBotQueues', 'timeSendQueue', 'sendIdQueue', 'whenExpiresTicket', 'timeCreateNewTicket', 'groupAsTicket',
  'greetingMediaAttachment', 'importOldMessages', 'importRecentMessages', 'importOldMessagesGroups', 'closedTicketsPostImported',
  'statusImportMessages', 'integrationId', 'promptId', 'schedules', 'facebookUserId', 'facebookPageUserId', 'token', 'createdAt', 'updatedAt',
] as const;

type Row = Record<string, unknown>;

/** Options of a public rendering: the viewer's rights. */
export interface ViewOptions {
  /** Include the external-API token (admin answers only). */
  withToken?: boolean;
  /** Include the QR code (admins; other users get ''). Default true. */
  withQrcode?: boolean;
}

/** Renders a whatsapps row (public columns) as the API shows it. */
export function toConnection(row: Row, queues: ConnectionQueue[], view: ViewOptions = {}): Connection {
  const out: Connection = {
    id: row.id as number,
    companyId: row.companyId as number,
    name: String(row.name),
    channel: String(row.channel),
    status: String(row.status),
    qrcode: view.withQrcode === false ? '' : String(row.qrcode ?? ''),
    retries: Number(row.retries ?? 0),
    number: String(row.number ?? ''),
    battery: (row.battery as string | null) ?? null,
    plugged: (row.plugged as boolean | null) ?? null,
    isDefault: Boolean(row.isDefault),
    allowGroup: Boolean(row.allowGroup),
    provider: String(row.provider ?? 'beta'),
    greetingMessage: (row.greetingMessage as string | null) ?? null,
    complationMessage: (row.complationMessage as string | null) ?? null,
    outOfHoursMessage: (row.outOfHoursMessage as string | null) ?? null,
    ratingMessage: (row.ratingMessage as string | null) ?? null,
    farewellMessage: (row.farewellMessage as string | null) ?? null,
    inactiveMessage: (row.inactiveMessage as string | null) ?? null,
    expiresInactiveMessage: (row.expiresInactiveMessage as string | null) ?? null,
    maxUseBotQueues: Number(row.maxUseBotQueues ?? 3),
    maxUseBotQueuesNPS: Number(row.maxUseBotQueuesNps ?? 3),
    expiresTicket: Number(row.expiresTicket ?? 0),
    expiresTicketNPS: Number(row.expiresTicketNps ?? 0),
    timeInactiveMessage: Number(row.timeInactiveMessage ?? 0),
    timeUseBotQueues: Number(row.timeUseBotQueues ?? 0),
    timeSendQueue: Number(row.timeSendQueue ?? 0),
    sendIdQueue: (row.sendIdQueue as number | null) ?? null,
    whenExpiresTicket: String(row.whenExpiresTicket ?? '0'),
    timeCreateNewTicket: Number(row.timeCreateNewTicket ?? 0),
    groupAsTicket: String(row.groupAsTicket ?? 'disabled'),
    greetingMediaAttachment: (row.greetingMediaAttachment as string | null) ?? null,
    importOldMessages: (row.importOldMessages as string | null) ?? null,
    importRecentMessages: (row.importRecentMessages as string | null) ?? null,
    importOldMessagesGroups: (row.importOldMessagesGroups as boolean | null) ?? null,
    closedTicketsPostImported: (row.closedTicketsPostImported as boolean | null) ?? null,
    statusImportMessages: (row.statusImportMessages as string | null) ?? null,
    integrationId: (row.integrationId as number | null) ?? null,
    promptId: (row.promptId as number | null) ?? null,
    schedules: Array.isArray(row.schedules) ? (row.schedules as Record<string, unknown>[]) : [],
    facebookUserId: (row.facebookUserId as string | null) ?? null,
    facebookPageUserId: (row.facebookPageUserId as string | null) ?? null,
    hasToken: Boolean(row.hasToken),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    queues,
  };
  if (view.withToken) out.token = String(row.token ?? '');
  return out;
}

const UNIQUE_CODES = {
  whatsapps_company_name_unique: 'ERR_DUPLICATED_NAME',
  whatsapps_token_unique: 'ERR_DUPLICATED_TOKEN',
  whatsapps_channel_account_unique: 'ERR_DUPLICATED_EXTERNAL_ACCOUNT',
} as const;

/** Maps a unique violation (concurrent writers that passed the in-transaction checks) to its catalogue code. */
function mapUniqueViolation(err: unknown): never {
  const e = err as { code?: string; constraint?: string };
  if (e.code === '23505' && e.constraint && e.constraint in UNIQUE_CODES) {
    throw new AppError(UNIQUE_CODES[e.constraint as keyof typeof UNIQUE_CODES]);
  }
  throw err;
}

const TEXT_KEYS = ['greetingMessage', 'complationMessage', 'outOfHoursMessage', 'ratingMessage', 'farewellMessage', 'inactiveMessage', 'expiresInactiveMessage'] as const;
/** Minutes fields: body key -> column (camelCase). null/'' -> 0. */
const MINUTE_KEYS = {
  expiresTicket: 'expiresTicket',
  expiresTicketNPS: 'expiresTicketNps',
  timeInactiveMessage: 'timeInactiveMessage',
  timeUseBotQueues: 'timeUseBotQueues',
  timeSendQueue: 'timeSendQueue',
  timeCreateNewTicket: 'timeCreateNewTicket',
} as const;
/** Bot repetition counters: null/'' -> the default 3. */
const COUNTER_KEYS = { maxUseBotQueues: 'maxUseBotQueues', maxUseBotQueuesNPS: 'maxUseBotQueuesNps' } as const;
/** Ids of other plugins' records: null/''/0 -> none. */
const REF_KEYS = ['sendIdQueue', 'integrationId', 'promptId'] as const;

/** An integer field of a body (integer, digit string, '' or null) as a number in [0, max], or null for ''/null. */
function toInt(key: string, v: number | string | null | undefined, max: number): number | null {
  if (v === null || v === undefined || v === '') return null;
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isInteger(n) || n < 0 || n > max) throw new AppError('ERR_VALIDATION', `${key} must be an integer between 0 and ${max}`);
  return n;
}

/** Body keys an update applied, for the `connection.updated` bus event. */
function changedKeys(body: ConnectionBody): string[] {
  return Object.keys(body).filter((k) => (body as Record<string, unknown>)[k] !== undefined).sort();
}

/**
 * Turns a validated body into column values (only the keys present). Throws 400 ERR_VALIDATION for values
 * the schema cannot express (blank name, token format, schedule times, enum strings, dates).
 * `greetingMediaAttachment` is only ever cleared here (null/''); the media-upload route sets it.
 */
export function toColumns(body: ConnectionBody, channel: Channel): Row {
  const out: Row = {};
  const bad = (msg: string): never => {
    throw new AppError('ERR_VALIDATION', msg);
  };
  if (body.name !== undefined) {
    const name = body.name.trim();
    if (name.length < 2) bad('name must be at least 2 characters');
    out.name = name;
  }
  if (body.allowGroup !== undefined) out.allowGroup = Boolean(body.allowGroup);
  if (body.provider !== undefined) {
    const provider = blank(body.provider) ? 'beta' : String(body.provider).trim();
    if (provider !== 'beta' && provider !== 'stable') bad("provider must be 'beta' or 'stable'");
    out.provider = provider;
  }
  for (const k of TEXT_KEYS) if (body[k] !== undefined) out[k] = blank(body[k]) ? null : body[k];
  if (body.token !== undefined && !blank(body.token)) {
    const token = String(body.token).trim();
    if (!TOKEN_PATTERN.test(token)) bad('token must be 16 to 100 characters of A-Z, a-z, 0-9, _ or -');
    out.token = token;
  }
  for (const [k, col] of Object.entries(MINUTE_KEYS)) {
    const v = body[k as keyof typeof MINUTE_KEYS];
    if (v !== undefined) out[col] = toInt(k, v, MAX_MINUTES) ?? 0;
  }
  for (const [k, col] of Object.entries(COUNTER_KEYS)) {
    const v = body[k as keyof typeof COUNTER_KEYS];
    if (v !== undefined) out[col] = toInt(k, v, MAX_BOT_USES) ?? 3;
  }
  for (const k of REF_KEYS) if (body[k] !== undefined) out[k] = toInt(k, body[k], MAX_ID) || null;
  if (body.whenExpiresTicket !== undefined) {
    const v = blank(body.whenExpiresTicket) ? '0' : String(body.whenExpiresTicket);
    if (v !== '0' && v !== '1') bad("whenExpiresTicket must be '0' or '1'");
    out.whenExpiresTicket = v;
  }
  if (body.groupAsTicket !== undefined) {
    const v = blank(body.groupAsTicket) ? 'disabled' : String(body.groupAsTicket);
    if (v !== 'enabled' && v !== 'disabled') bad("groupAsTicket must be 'enabled' or 'disabled'");
    out.groupAsTicket = v;
  }
  if (body.greetingMediaAttachment !== undefined && blank(body.greetingMediaAttachment)) out.greetingMediaAttachment = null;
  for (const k of ['importOldMessages', 'importRecentMessages'] as const) {
    if (body[k] === undefined) continue;
    if (blank(body[k])) out[k] = null;
    else {
      const v = String(body[k]).trim();
      if (!DATE_PATTERN.test(v) || Number.isNaN(Date.parse(v))) bad(`${k} must be a date (YYYY-MM-DD or YYYY-MM-DDTHH:mm)`);
      out[k] = v;
    }
  }
  if (body.importOldMessagesGroups !== undefined) out.importOldMessagesGroups = body.importOldMessagesGroups;
  if (body.closedTicketsPostImported !== undefined) out.closedTicketsPostImported = body.closedTicketsPostImported;
  if (body.schedules !== undefined) {
    const list = body.schedules ?? [];
    out.schedules = JSON.stringify(
      list.map((s) => {
        const item: Record<string, string> = { weekday: s.weekday, weekdayEn: s.weekdayEn, startTimeA: '', endTimeA: '', startTimeB: '', endTimeB: '' };
        for (const k of ['startTimeA', 'endTimeA', 'startTimeB', 'endTimeB'] as const) {
          const v = s[k] ?? '';
          if (!TIME_PATTERN.test(v)) bad(`schedules ${k} must be HH:mm or empty`);
          item[k] = v;
        }
        return item;
      }),
    );
  }
  if (isMetaChannel(channel)) {
    if (body.facebookUserId !== undefined) out.facebookUserId = blank(body.facebookUserId) ? null : String(body.facebookUserId).trim();
    if (body.facebookPageUserId !== undefined) {
      const v = blank(body.facebookPageUserId) ? '' : String(body.facebookPageUserId).trim();
      if (!ACCOUNT_PATTERN.test(v)) bad('facebookPageUserId (the page, Instagram account or phone-number id) is required: digits only');
      out.facebookPageUserId = v;
    }
    if (body.facebookUserToken !== undefined && !blank(body.facebookUserToken)) out.facebookUserToken = String(body.facebookUserToken).trim();
    if (body.tokenMeta !== undefined) out.tokenMeta = blank(body.tokenMeta) ? null : String(body.tokenMeta).trim();
  }
  return out;
}

/**
 * Import dates (spec 2-tickets.md §5): the old-messages date lies between two years ago and now; the
 * recent-messages date between the old date and now (a day of slack for time zones).
 */
function checkImportDates(oldDate: unknown, recentDate: unknown, now = Date.now()): void {
  const parse = (v: unknown) => (typeof v === 'string' && v ? Date.parse(v) : undefined);
  const oldMs = parse(oldDate);
  const recentMs = parse(recentDate);
  const latest = now + DAY_MS;
  if (oldMs !== undefined && (oldMs < now - 2 * 366 * DAY_MS || oldMs > latest)) {
    throw new AppError('ERR_VALIDATION', 'importOldMessages must lie between two years ago and now');
  }
  if (recentMs !== undefined && (recentMs > latest || (oldMs !== undefined && recentMs < oldMs))) {
    throw new AppError('ERR_VALIDATION', 'importRecentMessages must lie between importOldMessages and now');
  }
}

/**
 * Connections data access, rules and events. Every method takes the caller's `companyId` and filters on
 * it. Writes run in one transaction holding an advisory lock per company (default changes are
 * serialised); creates run inside `identity.withinPlanLimit` (plan limit `connections`). Events are
 * emitted after commit.
 */
/** Upload folder of greeting media (under the company's folder). */
export const GREETING_MEDIA_AREA = 'greeting';
/** Greeting media WhatsApp can send: images, audio, video and documents, checked by content. */
export const GREETING_MEDIA_TYPES: readonly string[] = [...UPLOAD_TYPES.images, ...UPLOAD_TYPES.audio, ...UPLOAD_TYPES.video, ...UPLOAD_TYPES.documents];
/** Largest greeting media file: 16 MiB (WhatsApp's media limit). */
export const GREETING_MEDIA_MAX_BYTES = 16 * 1024 * 1024;

export class ConnectionStore implements ConnectionsService {
  constructor(
    private readonly db: Knex,
    private readonly deps: { identity: IdentityService; realtime: Realtime; bus: Bus; services: ServiceRegistry; log: FastifyBaseLogger; uploads?: UploadService },
  ) {}

  // ------------------------------------------------------------------ reads

  async list(companyId: number, view: ViewOptions = {}): Promise<Connection[]> {
    const rows = await this.selectPublic(this.db).where({ companyId }).orderBy('id');
    return this.decorate(companyId, rows, view);
  }

  async get(companyId: number, id: number, view: ViewOptions = {}): Promise<Connection | undefined> {
    const row = await this.selectPublic(this.db).where({ companyId, id }).first();
    if (!row) return undefined;
    const [out] = await this.decorate(companyId, [row], view);
    return out;
  }

  async getDefault(companyId: number, channel?: Channel): Promise<Connection | undefined> {
    const q = this.selectPublic(this.db).where({ companyId });
    if (channel) q.where({ channel });
    const row = await q
      .orderBy('isDefault', 'desc')
      .orderByRaw("(status = 'CONNECTED') DESC")
      .orderBy('createdAt')
      .orderBy('id')
      .first();
    if (!row || (!channel && !row.isDefault)) return undefined;
    const [out] = await this.decorate(companyId, [row]);
    return out;
  }

  async getWithSecrets(companyId: number, id: number): Promise<(Connection & ConnectionSecrets) | undefined> {
    const row = await this.db('whatsapps').where({ companyId, id }).first('token', 'facebookUserToken', 'tokenMeta', 'session');
    if (!row) return undefined;
    const pub = await this.get(companyId, id);
    if (!pub) return undefined;
    return { ...pub, token: row.token, facebookUserToken: row.facebookUserToken ?? null, tokenMeta: row.tokenMeta ?? null, session: row.session ?? null };
  }

  async findByExternalAccount(channel: Channel, externalAccountId: string): Promise<ConnectionRef | undefined> {
    if (!(CHANNELS as readonly string[]).includes(channel) || typeof externalAccountId !== 'string' || !ACCOUNT_PATTERN.test(externalAccountId)) return undefined;
    return this.db('whatsapps').where({ channel, facebookPageUserId: externalAccountId }).first('id', 'companyId', 'channel');
  }

  async findByApiToken(token: string): Promise<ConnectionRef | undefined> {
    if (typeof token !== 'string' || !TOKEN_PATTERN.test(token)) return undefined;
    return this.db('whatsapps').where({ token }).first('id', 'companyId', 'channel');
  }

  async listByChannelStatus(channel: Channel, status: string): Promise<ConnectionRef[]> {
    return this.db('whatsapps').where({ channel, status }).orderBy('id').select('id', 'companyId', 'channel');
  }

  async queueIdsOf(companyId: number, id: number): Promise<number[]> {
    const links: { queueId: number }[] = await this.db('whatsappQueues').where({ companyId, whatsappId: id }).select('queueId');
    if (!links.length) return [];
    const queues = await this.lookupQueues(companyId, links.map((l) => l.queueId));
    return this.orderedQueues(links.map((l) => l.queueId), queues).map((q) => q.id);
  }

  // ------------------------------------------------------------------ writes

  /**
   * Creates a connection (spec 2-tickets.md §3, §5; wire-shapes "POST /whatsapp"). Rules: the channel's plan
   * flag (403 ERR_FEATURE_NOT_IN_PLAN); Meta channels need `facebookPageUserId` and `facebookUserToken`
   * (400 ERR_VALIDATION); every queue id must be a queue of the company (404 ERR_NO_QUEUE_FOUND); a
   * greeting with more than one queue (400 ERR_WAPP_GREETING_REQUIRED); the plan's `connections` limit
   * (400 ERR_PLAN_LIMIT_REACHED); unique name / token / account (409). The company's first connection, or one
   * created with `isDefault: true`, becomes the default (the previous default is unset). Status starts
   * DISCONNECTED (whatsapp: the session manager opens it) or CONNECTED (Meta channels). Answers the
   * connection with its token.
   */
  async create(companyId: number, body: ConnectionBody & { name: string }): Promise<Connection> {
    const channel: Channel = body.channel ?? 'whatsapp';
    await this.assertChannelInPlan(companyId, channel);
    const values = toColumns(body, channel);
    if (isMetaChannel(channel)) {
      if (!values.facebookPageUserId) throw new AppError('ERR_VALIDATION', 'facebookPageUserId is required for Meta channels');
      if (!values.facebookUserToken) throw new AppError('ERR_VALIDATION', 'facebookUserToken is required for Meta channels');
    }
    const queueIds = await this.checkQueues(companyId, body.queueIds ?? []);
    if (values.sendIdQueue) await this.checkQueues(companyId, [values.sendIdQueue as number]);
    await this.checkRefs(companyId, values);
    if (queueIds.length > 1 && blank(values.greetingMessage)) throw new AppError('ERR_WAPP_GREETING_REQUIRED');
    checkImportDates(values.importOldMessages, values.importRecentMessages);
    const token = (values.token as string | undefined) ?? generateToken();
    const status = isMetaChannel(channel) ? 'CONNECTED' : 'DISCONNECTED';

    let result: { id: number; previousDefault?: number };
    try {
      result = await this.db.transaction((trx) =>
        this.deps.identity.withinPlanLimit(
          trx,
          companyId,
          'connections',
          async (t) => Number((await t('whatsapps').where({ companyId }).count({ n: '*' }).first())?.n ?? 0),
          async () => {
            await this.lockCompany(trx, companyId);
            await this.assertUnique(trx, companyId, { name: values.name as string, token, channel, account: values.facebookPageUserId as string | undefined });
            const current = await trx('whatsapps').where({ companyId, isDefault: true }).first('id');
            const isDefault = !current || body.isDefault === true;
            let previousDefault: number | undefined;
            if (isDefault && current) {
              await trx('whatsapps').where({ companyId, id: current.id }).update({ isDefault: false, updatedAt: trx.fn.now() });
              previousDefault = current.id;
            }
            const [row] = await trx('whatsapps').insert({ ...values, companyId, channel, token, status, isDefault }).returning('id');
            if (queueIds.length) await trx('whatsappQueues').insert(queueIds.map((queueId) => ({ whatsappId: row.id, queueId, companyId })));
            await this.publish(trx, connectionCreated, { companyId, id: row.id as number, channel });
            return { id: row.id as number, previousDefault };
          },
        ),
      );
    } catch (err) {
      mapUniqueViolation(err);
    }
    if (result.previousDefault) await this.emitUpdate(companyId, result.previousDefault);
    await this.emitUpdate(companyId, result.id);
    return (await this.get(companyId, result.id, { withToken: true }))!;
  }

  /**
   * Updates the given fields (wire-shapes "PUT /whatsapp/:id"). Same rules as create for the fields given;
   * the channel cannot change (400 ERR_VALIDATION); `queueIds` replaces the queue list; `isDefault: true`
   * moves the default here (the previous one is unset and pushed too); `isDefault: false` on the default is
   * refused (400 ERR_NO_OTHER_WHATSAPP). Empty `token` or `facebookUserToken` keep the stored ones. 404
   * ERR_NO_WAPP_FOUND for ids outside the company. Answers the connection with its token.
   */
  async update(companyId: number, id: number, body: ConnectionBody): Promise<Connection> {
    const current = await this.db('whatsapps').where({ companyId, id }).first('id', 'channel', 'isDefault', 'greetingMessage', 'importOldMessages', 'importRecentMessages');
    if (!current) throw new AppError('ERR_NO_WAPP_FOUND');
    const channel = current.channel as Channel;
    if (body.channel !== undefined && body.channel !== channel) throw new AppError('ERR_VALIDATION', 'The channel of a connection cannot be changed');
    await this.assertChannelInPlan(companyId, channel);
    const values = toColumns(body, channel);
    let queueIds: number[] | undefined;
    if (body.queueIds !== undefined) queueIds = await this.checkQueues(companyId, body.queueIds ?? []);
    if (values.sendIdQueue) await this.checkQueues(companyId, [values.sendIdQueue as number]);
    await this.checkRefs(companyId, values);
    const finalQueues = queueIds ?? (await this.queueIdsOf(companyId, id));
    const greeting = values.greetingMessage !== undefined ? values.greetingMessage : current.greetingMessage;
    if (finalQueues.length > 1 && blank(greeting)) throw new AppError('ERR_WAPP_GREETING_REQUIRED');
    checkImportDates(
      values.importOldMessages !== undefined ? values.importOldMessages : current.importOldMessages,
      values.importRecentMessages !== undefined ? values.importRecentMessages : current.importRecentMessages,
    );
    if (body.isDefault === false && current.isDefault) throw new AppError('ERR_NO_OTHER_WHATSAPP');

    let previousDefault: number | undefined;
    try {
      previousDefault = await this.db.transaction(async (trx) => {
        await this.lockCompany(trx, companyId);
        const locked = await trx('whatsapps').where({ companyId, id }).forUpdate().first('id', 'isDefault');
        if (!locked) throw new AppError('ERR_NO_WAPP_FOUND');
        if (body.isDefault === false && locked.isDefault) throw new AppError('ERR_NO_OTHER_WHATSAPP');
        await this.assertUnique(trx, companyId, { name: values.name as string | undefined, token: values.token as string | undefined, channel, account: values.facebookPageUserId as string | undefined }, id);
        let prev: number | undefined;
        if (body.isDefault === true && !locked.isDefault) {
          const old = await trx('whatsapps').where({ companyId, isDefault: true }).first('id');
          if (old) {
            await trx('whatsapps').where({ companyId, id: old.id }).update({ isDefault: false, updatedAt: trx.fn.now() });
            prev = old.id;
          }
          values.isDefault = true;
        }
        await trx('whatsapps').where({ companyId, id }).update({ ...values, updatedAt: trx.fn.now() });
        if (queueIds !== undefined) {
          const del = trx('whatsappQueues').where({ companyId, whatsappId: id });
          if (queueIds.length) del.whereNotIn('queueId', queueIds);
          await del.del();
          if (queueIds.length) {
            await trx('whatsappQueues')
              .insert(queueIds.map((queueId) => ({ whatsappId: id, queueId, companyId })))
              .onConflict(['whatsappId', 'queueId'])
              .ignore();
          }
        }
        await this.publish(trx, connectionUpdated, { companyId, id, channel, changed: changedKeys(body) });
        return prev;
      });
    } catch (err) {
      mapUniqueViolation(err);
    }
    if (previousDefault) await this.emitUpdate(companyId, previousDefault);
    await this.emitUpdate(companyId, id);
    return (await this.get(companyId, id, { withToken: true }))!;
  }

  /**
   * Deletes a connection and its queue links. When it was the default, the oldest remaining connection
   * becomes the default (and is pushed). Emits `{action:'delete', whatsappId}`. 404 ERR_NO_WAPP_FOUND.
   */
  async remove(companyId: number, id: number): Promise<void> {
    const { channel, promoted } = await this.db.transaction(async (trx) => {
      await this.lockCompany(trx, companyId);
      const [row] = await trx('whatsapps').where({ companyId, id }).del().returning(['id', 'isDefault', 'channel']);
      if (!row) throw new AppError('ERR_NO_WAPP_FOUND');
      let next: { id: number } | undefined;
      if (row.isDefault) {
        next = await trx('whatsapps').where({ companyId }).orderBy('createdAt').orderBy('id').first('id');
        if (next) await trx('whatsapps').where({ companyId, id: next.id }).update({ isDefault: true, updatedAt: trx.fn.now() });
      }
      await this.publish(trx, connectionDeleted, { companyId, id, channel: row.channel as Channel });
      return { channel: row.channel as Channel, promoted: next?.id };
    });
    this.emit(companyId, `company-${companyId}-whatsapp`, { action: 'delete', whatsappId: id });
    if (promoted) await this.emitUpdate(companyId, promoted);
  }

  async updateStatus(companyId: number, id: number, update: StatusUpdate): Promise<Connection> {
    const bad = (msg: string): never => {
      throw new AppError('ERR_VALIDATION', msg);
    };
    if (typeof update?.status !== 'string' || !update.status || update.status.length > 50) bad('status must be 1 to 50 characters');
    const patch: Row = { status: update.status };
    if (update.qrcode !== undefined) {
      if (typeof update.qrcode !== 'string' || update.qrcode.length > 10_000) bad('qrcode must be a string of at most 10000 characters');
      patch.qrcode = update.qrcode;
    }
    if (update.retries !== undefined) {
      if (!Number.isInteger(update.retries) || update.retries < 0 || update.retries > 1_000_000) bad('retries must be a non-negative integer');
      patch.retries = update.retries;
    }
    if (update.number !== undefined) {
      if (typeof update.number !== 'string' || update.number.length > 50) bad('number must be a string of at most 50 characters');
      patch.number = update.number;
    }
    if (update.reason !== undefined && (typeof update.reason !== 'string' || update.reason.length > 100)) bad('reason must be a string of at most 100 characters');
    // The change and its history row in one transaction; the row lock orders concurrent changes.
    const row = await this.db.transaction(async (trx) => {
      const before = await trx('whatsapps').where({ companyId, id }).forUpdate().first('status');
      if (!before) throw new AppError('ERR_NO_WAPP_FOUND');
      const [after] = await trx('whatsapps')
        .where({ companyId, id })
        .update({ ...patch, updatedAt: trx.fn.now() })
        .returning(['id', 'status', 'qrcode', 'retries', 'updatedAt', 'number']);
      if (before.status !== after.status) {
        await trx(STATUS_HISTORY).insert({ companyId, whatsappId: id, status: after.status, previousStatus: before.status, reason: update.reason || null, retries: after.retries ?? 0 });
        // Keep the newest STATUS_HISTORY_KEEP rows of the connection.
        await trx.raw(
          `DELETE FROM whatsapp_status_history WHERE company_id = ? AND whatsapp_id = ? AND id <= (
             SELECT id FROM whatsapp_status_history WHERE company_id = ? AND whatsapp_id = ? ORDER BY id DESC OFFSET ? LIMIT 1)`,
          [companyId, id, companyId, id, STATUS_HISTORY_KEEP],
        );
      }
      return after;
    });
    const session = { id: row.id, status: row.status, qrcode: row.qrcode ?? '', retries: row.retries, updatedAt: iso(row.updatedAt), number: row.number ?? '' };
    this.emitByRole(companyId, `company-${companyId}-whatsappSession`, { action: 'update', session }, { action: 'update', session: { ...session, qrcode: '' } });
    const full = await this.get(companyId, id);
    if (!full) throw new AppError('ERR_NO_WAPP_FOUND');
    this.emitByRole(companyId, `company-${companyId}-whatsapp`, { action: 'update', whatsapp: full }, { action: 'update', whatsapp: { ...full, qrcode: '' } });
    return full;
  }

  /**
   * The status history of a connection of `companyId`, newest first (at most `limit`, 1..200). Answers
   * undefined for unknown ids and other companies' ids.
   */
  async statusHistory(companyId: number, id: number, limit = 50): Promise<StatusHistoryEntry[] | undefined> {
    const exists = await this.db('whatsapps').where({ companyId, id }).first('id');
    if (!exists) return undefined;
    const rows = await this.db(STATUS_HISTORY)
      .where({ companyId, whatsappId: id })
      .orderBy('id', 'desc')
      .limit(Math.max(1, Math.min(STATUS_HISTORY_KEEP, Math.trunc(limit))))
      .select('id', 'status', 'previousStatus', 'reason', 'retries', 'createdAt');
    return rows.map((r: Row) => ({
      id: Number(r.id),
      status: String(r.status),
      previousStatus: (r.previousStatus as string | null) ?? null,
      reason: (r.reason as string | null) ?? null,
      retries: Number(r.retries ?? 0),
      createdAt: iso(r.createdAt as Date),
    }));
  }

  async saveSession(companyId: number, id: number, session: string | null): Promise<void> {
    if (session !== null && typeof session !== 'string') throw new AppError('ERR_VALIDATION', 'session must be a string or null');
    const n = await this.db('whatsapps').where({ companyId, id }).update({ session });
    if (!n) throw new AppError('ERR_NO_WAPP_FOUND');
  }

  /** The narrow service other plugins get (methods bound, no route-only options). */
  service(): ConnectionsService {
    return {
      get: (c, id) => this.get(c, id),
      getDefault: (c, ch) => this.getDefault(c, ch),
      list: (c) => this.list(c),
      getWithSecrets: (c, id) => this.getWithSecrets(c, id),
      findByExternalAccount: (ch, ext) => this.findByExternalAccount(ch, ext),
      findByApiToken: (t) => this.findByApiToken(t),
      listByChannelStatus: (ch, st) => this.listByChannelStatus(ch, st),
      updateStatus: (c, id, u) => this.updateStatus(c, id, u),
      statusHistory: (c, id, limit) => this.statusHistory(c, id, limit),
      saveSession: (c, id, s) => this.saveSession(c, id, s),
      queueIdsOf: (c, id) => this.queueIdsOf(c, id),
    };
  }

  // ------------------------------------------------------------------ helpers

  /** Serialises default changes of one company (two-key transaction advisory lock). */
  async lockCompany(trx: Knex.Transaction, companyId: number): Promise<void> {
    await trx.raw('SELECT pg_advisory_xact_lock(?, ?)', [DEFAULT_LOCK_CLASS, companyId]);
  }

  /** 403 ERR_FEATURE_NOT_IN_PLAN unless the company's plan has the channel's flag. */
  async assertChannelInPlan(companyId: number, channel: Channel): Promise<void> {
    const feature = CHANNEL_FEATURE[channel];
    const plan = await this.deps.identity.getCompanyPlan(companyId);
    if (!plan || !plan[feature]) {
      throw new AppError('ERR_FEATURE_NOT_IN_PLAN', `This company's plan does not include ${feature}`, { extra: { feature } });
    }
  }

  /** The public select: public columns plus `hasToken` (never the secrets themselves). */
  private selectPublic(db: Knex | Knex.Transaction) {
    return db('whatsapps').select([...PUBLIC_COLUMNS, db.raw("(facebook_user_token IS NOT NULL AND facebook_user_token <> '') AS has_token")]);
  }

  /** Renders rows with their queues (one link query; each distinct queue looked up once). */
  private async decorate(companyId: number, rows: Row[], view: ViewOptions = {}): Promise<Connection[]> {
    if (!rows.length) return [];
    const links: { whatsappId: number; queueId: number }[] = await this.db('whatsappQueues')
      .where({ companyId })
      .whereIn('whatsappId', rows.map((r) => r.id as number))
      .select('whatsappId', 'queueId');
    const queues = await this.lookupQueues(companyId, links.map((l) => l.queueId));
    const byConnection = new Map<number, number[]>();
    for (const l of links) byConnection.set(l.whatsappId, [...(byConnection.get(l.whatsappId) ?? []), l.queueId]);
    return rows.map((r) => toConnection(r, this.orderedQueues(byConnection.get(r.id as number) ?? [], queues), view));
  }

  /**
   * Looks queues up through the queues plugin's service (absent plugin: no queues). Links to queues that no
   * longer exist are removed on the way (queues live in another plugin, so no foreign key cascades).
   */
  private async lookupQueues(companyId: number, ids: number[]): Promise<Map<number, ConnectionQueue & { orderQueue: number | null }>> {
    const map = new Map<number, ConnectionQueue & { orderQueue: number | null }>();
    const unique = [...new Set(ids)];
    const svc = this.queueService();
    if (!svc || !unique.length) return map;
    const found = await Promise.all(unique.map((id) => svc.getQueue(companyId, id)));
    const missing: number[] = [];
    found.forEach((q, i) => {
      if (q) map.set(q.id, { id: q.id, name: q.name, color: q.color, greetingMessage: q.greetingMessage ?? null, orderQueue: q.orderQueue ?? null });
      else missing.push(unique[i]);
    });
    if (missing.length) {
      await this.db('whatsappQueues').where({ companyId }).whereIn('queueId', missing).del();
    }
    return map;
  }

  /** The known queues among `ids`, ordered by `orderQueue` (nulls last) then id. */
  private orderedQueues(ids: number[], queues: Map<number, ConnectionQueue & { orderQueue: number | null }>): ConnectionQueue[] {
    return ids
      .map((id) => queues.get(id))
      .filter((q): q is ConnectionQueue & { orderQueue: number | null } => Boolean(q))
      .sort((a, b) => (a.orderQueue ?? Infinity) - (b.orderQueue ?? Infinity) || a.id - b.id)
      .map(({ id, name, color, greetingMessage }) => ({ id, name, color, greetingMessage }));
  }

  /**
   * The queues of `connection` as `GET /whatsapp/:id` shows them (wire-shapes: each queue with
   * `integrationId`, `fileListId`, `closeTicket`, `promptId` and its first-level `chatbots` {id, name,
   * greetingMessage, closeTicket}), in the connection's order. Queues that no longer exist are skipped.
   */
  async detailedQueues(companyId: number, queues: ConnectionQueue[]): Promise<ConnectionQueueDetail[]> {
    const svc = this.queueService();
    if (!svc) return queues.map((q) => ({ ...q, integrationId: null, fileListId: null, closeTicket: false, promptId: null, chatbots: [] }));
    const out = await Promise.all(
      queues.map(async (q) => {
        const [full, tree] = await Promise.all([svc.getQueue(companyId, q.id), svc.chatbotTree(companyId, q.id)]);
        if (!full) return undefined;
        return {
          ...q,
          integrationId: full.integrationId ?? null,
          fileListId: full.fileListId ?? null,
          closeTicket: Boolean(full.closeTicket),
          promptId: full.promptId ?? null,
          chatbots: tree.map((c) => ({ id: c.id, name: c.name, greetingMessage: c.greetingMessage ?? null, closeTicket: Boolean(c.closeTicket) })),
        };
      }),
    );
    return out.filter((q): q is NonNullable<typeof q> => Boolean(q));
  }

  /** The queues plugin's service (an optional dependency: undefined when the plugin is not loaded). */
  private queueService(): QueuesService | undefined {
    return this.deps.services.has(queuesService) ? this.deps.services.get(queuesService) : undefined;
  }

  /** The prompt and integration a body names must be the company's (404 ERR_NO_PROMPT_FOUND / ERR_NO_INTEGRATION_FOUND). */
  private async checkRefs(companyId: number, values: Record<string, unknown>): Promise<void> {
    const refs = this.deps.services.get(referencesService);
    await refs.assert(companyId, 'prompt', values.promptId as number | null | undefined, 'promptId');
    await refs.assert(companyId, 'integration', values.integrationId as number | null | undefined, 'integrationId');
  }

  /** Distinct ids, each a queue of the company; 404 ERR_NO_QUEUE_FOUND otherwise (or without the queues plugin). */
  private async checkQueues(companyId: number, ids: number[]): Promise<number[]> {
    const unique = [...new Set(ids)];
    if (!unique.length) return [];
    const svc = this.queueService();
    if (!svc) throw new AppError('ERR_NO_QUEUE_FOUND');
    const found = await Promise.all(unique.map((id) => svc.getQueue(companyId, id)));
    if (found.some((q) => !q)) throw new AppError('ERR_NO_QUEUE_FOUND');
    return unique;
  }

  private async assertUnique(
    trx: Knex.Transaction,
    companyId: number,
    v: { name?: string; token?: string; channel: Channel; account?: string },
    exceptId?: number,
  ): Promise<void> {
    const except = (q: Knex.QueryBuilder) => (exceptId !== undefined ? q.whereNot({ id: exceptId }) : q);
    if (v.name !== undefined && (await except(trx('whatsapps').where({ companyId }).whereRaw('lower(name) = lower(?)', [v.name])).first('id'))) {
      throw new AppError('ERR_DUPLICATED_NAME', 'Another connection of this company already has this name');
    }
    if (v.token !== undefined && (await except(trx('whatsapps').where({ token: v.token })).first('id'))) throw new AppError('ERR_DUPLICATED_TOKEN');
    if (v.account && (await except(trx('whatsapps').where({ channel: v.channel, facebookPageUserId: v.account })).first('id'))) {
      throw new AppError('ERR_DUPLICATED_EXTERNAL_ACCOUNT');
    }
  }

  // ------------------------------------------------------------------ greeting media

  /**
   * Stores `file` (from `nextFile`) as connection `id`'s greeting media (`greetingMediaAttachment`, the
   * stored path under the company's upload folder `greeting/`), replacing and deleting the previous one.
   * Checked by content against GREETING_MEDIA_TYPES and GREETING_MEDIA_MAX_BYTES: 415 ERR_UPLOAD_TYPE, 413
   * ERR_PAYLOAD_TOO_LARGE; 400 ERR_VALIDATION without a file part; 404 ERR_NO_WAPP_FOUND (another company's
   * too). Pushes `company-{id}-whatsapp` update.
   */
  async setGreetingMedia(companyId: number, id: number, nextFile: () => Promise<UploadFile | undefined>): Promise<Connection> {
    const uploads = this.uploadsOrFail();
    if (!(await this.db('whatsapps').where({ companyId, id }).first('id'))) throw new AppError('ERR_NO_WAPP_FOUND');
    const file = await nextFile();
    if (!file) throw new AppError('ERR_VALIDATION', 'A multipart file part is required');
    const stored = await uploads.save(companyId, GREETING_MEDIA_AREA, file, { allow: GREETING_MEDIA_TYPES, maxBytes: GREETING_MEDIA_MAX_BYTES });
    let previous: string | null;
    try {
      previous = await this.db.transaction(async (trx) => {
        const row = await trx('whatsapps').where({ companyId, id }).forUpdate().first('greetingMediaAttachment');
        if (!row) throw new AppError('ERR_NO_WAPP_FOUND');
        await trx('whatsapps').where({ companyId, id }).update({ greetingMediaAttachment: stored.path, updatedAt: trx.fn.now() });
        return (row.greetingMediaAttachment as string | null) ?? null;
      });
    } catch (err) {
      await uploads.remove(companyId, stored.path);
      throw err;
    }
    if (previous && previous !== stored.path) await uploads.remove(companyId, previous);
    await this.emitUpdate(companyId, id);
    return (await this.get(companyId, id, { withToken: true }))!;
  }

  /** Removes connection `id`'s greeting media (the file is deleted after commit); pushes the update. */
  async clearGreetingMedia(companyId: number, id: number): Promise<Connection> {
    const uploads = this.uploadsOrFail();
    const previous = await this.db.transaction(async (trx) => {
      const row = await trx('whatsapps').where({ companyId, id }).forUpdate().first('greetingMediaAttachment');
      if (!row) throw new AppError('ERR_NO_WAPP_FOUND');
      await trx('whatsapps').where({ companyId, id }).update({ greetingMediaAttachment: null, updatedAt: trx.fn.now() });
      return (row.greetingMediaAttachment as string | null) ?? null;
    });
    if (previous) await uploads.remove(companyId, previous);
    await this.emitUpdate(companyId, id);
    return (await this.get(companyId, id, { withToken: true }))!;
  }

  private uploadsOrFail(): UploadService {
    if (!this.deps.uploads) throw new AppError('ERR_SERVICE_UNAVAILABLE', 'uploads are not configured');
    return this.deps.uploads;
  }

  /** Pushes `{action:'update', whatsapp}` for one connection (QR code only to admins). */
  private async emitUpdate(companyId: number, id: number): Promise<void> {
    const whatsapp = await this.get(companyId, id);
    if (!whatsapp) return;
    this.emitByRole(companyId, `company-${companyId}-whatsapp`, { action: 'update', whatsapp }, { action: 'update', whatsapp: { ...whatsapp, qrcode: '' } });
  }

  /** Sends `adminPayload` to the company's admin sockets and `userPayload` to its other sockets. */
  private emitByRole(companyId: number, event: string, adminPayload: unknown, userPayload: unknown): void {
    this.deps.realtime.emitToCompany(companyId, event, adminPayload, { audiences: [AUDIENCE_ADMIN] });
    this.deps.realtime.emitToCompany(companyId, event, userPayload, { audiences: [AUDIENCE_USER] });
  }

  private emit(companyId: number, event: string, payload: unknown): void {
    this.deps.realtime.emitToCompany(companyId, event, payload);
  }

  /** Writes a `connection.*` event into the transaction's outbox (it leaves with the commit). */
  private publish(trx: Knex.Transaction, topic: Topic<ConnectionBusEvent>, payload: ConnectionBusEvent): Promise<void> {
    return this.deps.bus.publish(topic, payload, { trx });
  }
}

