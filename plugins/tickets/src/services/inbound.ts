import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ACK_OF_STATUS, Envelope, PermanentError, RetryableError, companyEvent, type BusMessage } from '@atendo/sdk';
import type { Connection, ConnectionBusEvent } from '@atendo/plugin-connections';
import type { Contact, FindOrCreateInput } from '@atendo/plugin-contacts';
import type { MessageRow, TicketRow, TicketStatus } from '../model';
import { ACTIVE_STATUSES } from '../model';
import { ticketAudiences } from '../visibility';
import { serializeTickets } from './core';
import { findActive, TICKET_TOPICS, type TicketBusEvent } from './tickets';
import {
  ACK,
  applyEdit,
  applyFailedByWid,
  applyReaction,
  applyRemoteDelete,
  applyStatus,
  emitMessageUpdate,
  mediaTypeOf,
  serializeMessages,
  type SerializedMessage,
} from './messages';
import type { TicketsDeps } from './deps';

/**
 * The inbound pipeline (DESIGN.md §1, §4): envelopes published by the channel adapters on
 * `channel.inbound.<channel>.<kind>` (bus message id = the envelope's idempotency key) become contacts,
 * tickets and messages, then live events.
 *
 * One consumer, queue `tickets.inbound` (prefetch 32, 5 retries 200 ms apart, then `tickets.inbound.dlq`).
 * A payload that is not an `Envelope` (SDK schema, compiled checker: the same rules as `Value.Check`) or
 * names an unknown connection is dead-lettered at once (`PermanentError`). Kinds:
 * - `message`: stored once per provider id (`INSERT ... ON CONFLICT (company_id, wid) DO NOTHING`), in the
 *   contact's active ticket of the connection, else a closed one reopened within `timeCreateNewTicket`
 *   minutes, else a new one (race-safe through `tickets_one_active_per_contact`). Messages are processed in
 *   small batches (the envelopes in flight at one time): one contacts call, one transaction and one
 *   serialization per batch, whatever its size. After commit: `company-{id}-appMessage` {action:'create'}
 *   per message and `company-{id}-ticket` {action:'update'} per ticket to the ticket's socket audiences, and
 *   bus events `message.received` (and `ticket.created` / `ticket.updated` for new / reopened tickets).
 * - `status`: ack forward only (ACK_OF_STATUS); `failed` marks `send_error`. Watermarks (Messenger) move every
 *   outbound message of the thread sent up to the watermark.
 * - `reaction`, `edit`, `delete`: applied to the stored message (see messages.ts).
 * - `typing`: `company-{id}-presence` {action:'update-presence', ticketId, presence} to the audiences of the
 *   contact's active ticket.
 * - `connection`: the connection's status through the connections service.
 *
 * Messages are acknowledged on the bus once their transaction has committed; the live events follow
 * asynchronously (in batch order). A process dying in between loses events, never data.
 */

// ---------------------------------------------------------------------------------------------------
// Constants

/** Topic pattern of the adapters' envelopes (`channel.inbound.<channel>.<kind>`). */
export const INBOUND_PATTERN = 'channel.inbound.#';
/** The consumer queue (dead letters in `tickets.inbound.dlq`). */
export const INBOUND_QUEUE = 'tickets.inbound';
/** Subscription options of the consumer. */
export const INBOUND_SUBSCRIPTION = { queue: INBOUND_QUEUE, prefetch: 32, maxRetries: 5, retryDelayMs: 200 } as const;
/** Event published after commit for every stored message: payload `MessageReceivedEvent`. */
export const MESSAGE_RECEIVED = 'message.received';

/** Payload of `message.received`. */
export interface MessageReceivedEvent {
  companyId: number;
  ticketId: number;
  messageId: number;
  /** The ticket's contact (for groups the group contact). */
  contactId: number;
  fromMe: boolean;
}

/**
 * An outbound echo (`direction: 'out'`) whose provider id is not stored yet may be our own send whose
 * `message.sent` result has not landed: it is retried until this attempt, then stored as a message sent from
 * another device (the phone, WhatsApp Web, Business Suite).
 */
export const ECHO_RETRY_ATTEMPTS = 3;
/** A status for an unknown provider id is retried until this attempt (our own send's result may be late), then dropped. */
export const STATUS_RETRY_ATTEMPTS = 3;
/** Reactions, edits and deletes of an unknown provider id: retried once, then dropped (no retry storm). */
export const CHANGE_RETRY_ATTEMPTS = 1;

/** How long a connection lookup is cached (also invalidated by `connection.updated` / `connection.deleted`). */
const CONNECTION_TTL_MS = 30_000;
/** Largest batch of message envelopes handled in one transaction. */
const MAX_BATCH = 64;
/** Batches in flight at once (their database round trips overlap). */
const MAX_CONCURRENT_BATCHES = 2;
/** A batch overlapping a running one waits for this many envelopes, or ... */
const MIN_OVERLAP_BATCH = 16;
/** ... at most this long (milliseconds). */
const LINGER_MS = 6;
/**
 * How long the lgpdHideNumber setting is reused for socket payloads (milliseconds; the ticket lists cache it
 * 5 s too): one read per company and second instead of one per batch.
 */
const LGPD_TTL_MS = 1_000;
/** Bus events (`message.received`, `ticket.*`) awaiting their publisher confirm before the next events wait. */
const MAX_UNCONFIRMED = 2_000;
/** Batches whose live events may wait behind the current one before new commits wait for them (back-pressure). */
const MAX_EMIT_BACKLOG = 8;
/** Outbound messages moved at most by one watermark status (the oldest ones are long settled). */
const WATERMARK_LIMIT = 500;

/** Spec connection statuses (2-tickets.md §4) by the lower-cased names adapters report. */
const CONNECTION_STATUS: Record<string, string> = {
  connected: 'CONNECTED',
  open: 'CONNECTED',
  opening: 'OPENING',
  connecting: 'OPENING',
  qrcode: 'qrcode',
  qr: 'qrcode',
  disconnected: 'DISCONNECTED',
  close: 'DISCONNECTED',
  closed: 'DISCONNECTED',
  logged_out: 'DISCONNECTED',
  timeout: 'TIMEOUT',
  pairing: 'PAIRING',
};

const checkEnvelope = TypeCompiler.Compile(Envelope);

// ---------------------------------------------------------------------------------------------------
// Pure mapping of an envelope's content to message columns

/** What a message envelope stores (besides ids): wire-shapes §2 "Message". */
export interface MessageFields {
  body: string;
  mediaType: string;
  mediaPath: string | null;
  mediaName: string | null;
  /** What the ticket list shows as last message. */
  lastMessage: string;
}

const MEDIA_TYPE_OF_CONTENT: Record<string, string> = { image: 'image', video: 'video', audio: 'audio', document: 'application', sticker: 'image' };
const MEDIA_LABEL: Record<string, string> = { image: 'Imagem', video: 'Vídeo', audio: 'Áudio', document: 'Documento', sticker: 'Figurinha' };

/** PostgreSQL text cannot hold NUL characters. */
const clean = (s: string | undefined | null): string => (s ? s.replace(/\u0000/g, '') : '');
const cut = (s: string | null | undefined, n: number): string | null => (s ? clean(s).slice(0, n) : null);

/** A stored-upload path an adapter reported (`{area}/{file}`), or null when it is not a safe relative path. */
function safeMediaPath(p: string | undefined): string | null {
  if (!p || p.length > 500 || p.startsWith('/') || p.includes('\\') || p.split('/').some((s) => s === '..' || s === '.' || s === '')) return null;
  return p;
}

/** Google Maps link of a point (the product family's location link). */
function mapsLink(lat: number, lng: number): string {
  return `https://maps.google.com/maps?q=${lat}%2C${lng}&z=17&hl=pt-BR`;
}

/**
 * The message columns of a `message` envelope (pure). Text: `conversation` (`extendedTextMessage` when it
 * replies to a message). Media: body = caption or '', mediaType image/video/audio/application (from the
 * MIME type when known; stickers are images), mediaPath = the file the adapter stored (`media.path`), mediaName
 * = the file name. Location: mediaType `locationMessage`, body `img|link|desc` as the product family's client
 * reads it (no thumbnail: `|https://maps.google.com/...|name and address`). Contact cards: body = the vCard
 * text(s), `contactMessage` (one) or `multi_vcard` (several, joined by a newline). Interactive replies and
 * unsupported kinds: body = the chosen title / text, mediaType = the provider's type name (cut at 50).
 */
export function messageFields(env: Pick<Envelope, 'content' | 'replyTo'>): MessageFields {
  const c = env.content ?? { type: 'unsupported' as const };
  const text = clean(c.text);
  switch (c.type) {
    case 'text':
      return { body: text, mediaType: env.replyTo ? 'extendedTextMessage' : 'conversation', mediaPath: null, mediaName: null, lastMessage: text };
    case 'image':
    case 'video':
    case 'audio':
    case 'document':
    case 'sticker': {
      const m = c.media;
      const mediaType = m?.mimeType && c.type !== 'sticker' ? mediaTypeOf(m.mimeType) : MEDIA_TYPE_OF_CONTENT[c.type];
      const mediaName = cut(m?.fileName, 255);
      return { body: text, mediaType, mediaPath: safeMediaPath(m?.path), mediaName, lastMessage: text || mediaName || MEDIA_LABEL[c.type] };
    }
    case 'location': {
      const l = c.location;
      if (!l) return { body: text, mediaType: 'locationMessage', mediaPath: null, mediaName: null, lastMessage: 'Localização' };
      const desc = clean([l.name, l.address].filter(Boolean).join(' - ')) || text || `${l.latitude}, ${l.longitude}`;
      return { body: `|${mapsLink(l.latitude, l.longitude)}|${desc.replace(/\|/g, '/')}`, mediaType: 'locationMessage', mediaPath: null, mediaName: null, lastMessage: 'Localização' };
    }
    case 'contact': {
      const cards = (c.vcards ?? []).map(clean).filter(Boolean);
      return { body: cards.length ? cards.join('\n') : text, mediaType: cards.length > 1 ? 'multi_vcard' : 'contactMessage', mediaPath: null, mediaName: null, lastMessage: 'Contato' };
    }
    case 'interactive': {
      const i = c.interactive;
      const body = text || clean(i?.title) || clean(i?.payload) || clean(i?.id);
      return { body, mediaType: (c.providerType || 'conversation').slice(0, 50), mediaPath: null, mediaName: null, lastMessage: body };
    }
    default: {
      const body = text || clean(c.link?.url);
      return { body, mediaType: (c.providerType || 'unsupported').slice(0, 50), mediaPath: null, mediaName: null, lastMessage: body };
    }
  }
}

/** `occurredAt` as a Date (now when unparseable). */
function occurredAt(env: Envelope): Date {
  const t = Date.parse(env.occurredAt);
  return Number.isFinite(t) ? new Date(t) : new Date();
}

/** snake_case keys of a raw row to camelCase (raw queries bypass knex's identifier mappers). */
function camelRow<T>(row: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[k.replace(/_([a-z])/g, (_, ch: string) => ch.toUpperCase())] = v;
  return out as T;
}

/** The status a ticket opened by an inbound message takes: 'group' for groups (unless the connection treats groups as tickets), else 'pending'. */
export function inboundStatus(isGroup: boolean, connection: Pick<Connection, 'groupAsTicket'>): TicketStatus {
  return isGroup && connection.groupAsTicket !== 'enabled' ? 'group' : 'pending';
}

// ---------------------------------------------------------------------------------------------------
// Connection cache

/**
 * Connection lookups of the hot path, cached per process for 30 s and dropped on `connection.updated` /
 * `connection.deleted` (broadcast, so every node forgets). Concurrent misses share one lookup.
 */
class ConnectionCache {
  private readonly entries = new Map<string, { at: number; value: Promise<Connection | undefined> }>();

  constructor(private readonly deps: TicketsDeps) {}

  get(companyId: number, id: number): Promise<Connection | undefined> {
    const key = `${companyId}:${id}`;
    const hit = this.entries.get(key);
    if (hit && Date.now() - hit.at < CONNECTION_TTL_MS) return hit.value;
    const value = this.deps.connections.get(companyId, id).then(
      (c) => {
        if (!c) this.entries.delete(key);
        return c;
      },
      (err: unknown) => {
        this.entries.delete(key);
        throw err;
      },
    );
    this.entries.set(key, { at: Date.now(), value });
    return value;
  }

  invalidate(companyId: number, id: number): void {
    this.entries.delete(`${companyId}:${id}`);
  }
}

// ---------------------------------------------------------------------------------------------------
// The pipeline

/** One message envelope waiting for its batch. */
interface Item {
  env: Envelope;
  attempt: number;
  resolve: () => void;
  reject: (err: unknown) => void;
  /** True once resolved or rejected (a batch may settle some envelopes early: retries, refusals). */
  settled: () => boolean;
}

/** A message envelope ready for the transaction: its connection and contacts resolved. */
interface Prepared {
  item: Item;
  env: Envelope;
  conn: Connection;
  contact: Contact;
  /** The participant's contact in groups (the message's `contactId`). */
  participant?: Contact;
  fromMe: boolean;
  fields: MessageFields;
  at: Date;
}

/** A message stored by a batch, for the events after commit. */
interface Stored {
  p: Prepared;
  message: MessageRow;
}

/** What a committed batch announces. */
interface Announce {
  stored: Stored[];
  tickets: Map<number, TicketRow>;
  /** Tickets created or reopened by the batch, with their state before (reopened). */
  opened: Map<number, { topic: string; previous?: TicketRow }>;
}

const keyOf = (companyId: number, contactId: number, connectionId: number) => `${companyId}:${contactId}:${connectionId}`;
const isUniqueActive = (err: unknown) => (err as { code?: string; constraint?: string })?.code === '23505' && (err as { constraint?: string }).constraint === 'tickets_one_active_per_contact';

/**
 * The inbound pipeline of one process (see the module docstring). `handle` is the bus handler; messages are
 * batched internally, other kinds handled one by one.
 */
export class InboundPipeline {
  readonly connections: ConnectionCache;
  private readonly waiting: Item[] = [];
  private running = 0;
  private scheduled = false;
  private emitChain: Promise<void> = Promise.resolve();
  private emitBacklog = 0;
  private lingerTimer: NodeJS.Timeout | undefined;
  private lingered = false;
  private readonly lgpd = new Map<number, { value: boolean; at: number }>();
  /** Connection status reports: the pending chain and the time of the last applied report, per connection. */
  private readonly statusChains = new Map<string, Promise<void>>();
  private readonly statusAt = new Map<string, number>();
  /** Bus events published and not yet confirmed. */
  private readonly publishing = new Set<Promise<void>>();

  constructor(private readonly deps: TicketsDeps) {
    this.connections = new ConnectionCache(deps);
  }

  /** The bus handler: validates, then dispatches by kind. Throws PermanentError / RetryableError per the module docstring. */
  handle = async (m: BusMessage<unknown>): Promise<void> => {
    const env = m.payload;
    if (!checkEnvelope.Check(env)) {
      const errors = [...checkEnvelope.Errors(env)].slice(0, 5).map((e) => `${e.path}: ${e.message}`);
      throw new PermanentError(`invalid envelope: ${errors.join('; ')}`);
    }
    if (env.externalId.length > 255) throw new PermanentError('envelope externalId longer than 255 characters');
    switch (env.kind) {
      case 'message':
        return this.message(env, m.attempt);
      case 'status':
        return this.status(env, m.attempt);
      case 'reaction':
      case 'edit':
      case 'delete':
        return this.change(env, m.attempt);
      case 'typing':
        return this.typing(env);
      case 'connection':
        return this.connection(env);
      default:
        throw new PermanentError(`unknown envelope kind ${String(env.kind)}`);
    }
  };

  /** Resolves once every live event of the batches committed so far has been emitted (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running || this.waiting.length || this.emitBacklog || this.publishing.size) {
      await this.emitChain;
      await Promise.allSettled([...this.publishing]);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  private async connectionOf(env: Envelope): Promise<Connection> {
    const conn = await this.connections.get(env.companyId, env.connectionId);
    if (!conn) throw new PermanentError(`unknown connection ${env.connectionId} of company ${env.companyId}`);
    if (conn.channel !== env.channel) throw new PermanentError(`connection ${env.connectionId} is not a ${env.channel} connection`);
    return conn;
  }

  // ------------------------------------------------------------------ messages (batched)

  private message(env: Envelope, attempt: number): Promise<void> {
    if (!env.content) throw new PermanentError('message envelope without content');
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const once = <A extends unknown[]>(fn: (...a: A) => void) => (...a: A) => {
        if (settled) return;
        settled = true;
        fn(...a);
      };
      this.waiting.push({ env, attempt, resolve: once(resolve), reject: once(reject), settled: () => settled });
      this.kick();
    });
  }

  private kick(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.drain();
    });
  }

  /**
   * Starts batches while slots are free; the waiting envelopes are shared between the free slots. While a
   * batch is in flight, a second one starts with at least MIN_OVERLAP_BATCH envelopes or after LINGER_MS
   * (envelopes trickling in one by one, as RabbitMQ delivers them, would otherwise make batches of one).
   */
  private drain(): void {
    while (this.waiting.length && this.running < MAX_CONCURRENT_BATCHES) {
      if (this.running > 0 && this.waiting.length < MIN_OVERLAP_BATCH && !this.lingered) {
        this.lingerTimer ??= setTimeout(() => {
          this.lingerTimer = undefined;
          this.lingered = true;
          this.drain();
        }, LINGER_MS);
        return;
      }
      this.lingered = false;
      if (this.lingerTimer) {
        clearTimeout(this.lingerTimer);
        this.lingerTimer = undefined;
      }
      const slots = MAX_CONCURRENT_BATCHES - this.running;
      const size = Math.min(MAX_BATCH, Math.max(8, Math.ceil(this.waiting.length / slots)));
      const batch = this.waiting.splice(0, size);
      this.running++;
      void this.runBatch(batch).finally(() => {
        this.running--;
        if (this.waiting.length) this.kick();
      });
    }
  }

  /**
   * Runs one batch; when the batch as a whole fails (a database error), each envelope is tried alone so one
   * bad envelope cannot fail (and, after the retries, dead-letter) the others.
   */
  private async runBatch(items: Item[]): Promise<void> {
    const open = items.filter((i) => !i.settled());
    if (!open.length) return;
    try {
      const announce = await this.processBatch(open);
      if (announce) {
        await this.announceLater(announce);
        this.enrichProfiles(announce.stored);
      }
      for (const i of open) i.resolve();
    } catch (err) {
      if (open.length === 1) {
        open[0].reject(err);
        return;
      }
      for (const i of open) await this.runBatch([i]);
    }
  }

  /**
   * Resolves connections and contacts, then stores the batch in one transaction. Envelopes that end
   * without a write (skipped, duplicate) resolve with the batch; envelopes that must be retried (an echo not
   * matched yet) or refused (unknown connection) are settled here and left out.
   */
  private async processBatch(items: Item[]): Promise<Announce | undefined> {
    const { deps } = this;
    const live: Item[] = [];
    const conns = new Map<Item, Connection>();
    await Promise.all(
      items.map(async (i) => {
        try {
          const conn = await this.connectionOf(i.env);
          if (i.env.thread.isGroup && !conn.allowGroup) {
            deps.log.debug({ key: i.env.idempotencyKey }, 'inbound: group message on a connection that ignores groups');
            return;
          }
          conns.set(i, conn);
          live.push(i);
        } catch (err) {
          if (err instanceof PermanentError) {
            i.reject(err);
            return;
          }
          throw err;
        }
      }),
    );
    if (!live.length) return undefined;

    return deps.db.transaction((trx) => this.store(trx, live, conns));
  }

  /**
   * The contacts of the envelopes (the thread's, and in groups the participant's), one call per company,
   * inside the batch's transaction. Envelopes of blocked contacts are left out.
   */
  private async contactsOf(trx: Knex.Transaction, live: Item[], conns: Map<Item, Connection>): Promise<Prepared[]> {
    const { deps } = this;
    const byCompany = new Map<number, { inputs: FindOrCreateInput[]; slots: { item: Item; kind: 'thread' | 'participant' }[] }>();
    for (const i of live) {
      const e = i.env;
      const wa = e.channel === 'whatsapp';
      const inbound = e.direction === 'in';
      const g = byCompany.get(e.companyId) ?? { inputs: [], slots: [] };
      byCompany.set(e.companyId, g);
      g.inputs.push({
        number: e.thread.externalId,
        name: e.thread.isGroup ? e.thread.name : inbound ? e.sender?.name : undefined,
        channel: e.channel,
        isGroup: e.thread.isGroup,
        lid: !e.thread.isGroup && inbound ? e.sender?.lid : undefined,
        remoteJid: wa ? (e.thread.isGroup ? `${e.thread.externalId}@g.us` : inbound ? e.sender?.jid : undefined) : undefined,
      });
      g.slots.push({ item: i, kind: 'thread' });
      if (e.thread.isGroup && inbound && e.sender) {
        g.inputs.push({ number: e.sender.phone || e.sender.externalId, name: e.sender.name, channel: e.channel, isGroup: false, lid: e.sender.lid, remoteJid: e.sender.jid });
        g.slots.push({ item: i, kind: 'participant' });
      }
    }
    const threadContact = new Map<Item, Contact>();
    const participantContact = new Map<Item, Contact>();
    for (const [companyId, g] of byCompany) {
      const many = deps.contacts.findOrCreateMany;
      const contacts = many ? await many(companyId, g.inputs, trx) : await Promise.all(g.inputs.map((x) => deps.contacts.findOrCreate(companyId, x, trx)));
      g.slots.forEach((s, idx) => (s.kind === 'thread' ? threadContact : participantContact).set(s.item, contacts[idx]));
    }
    const prepared: Prepared[] = [];
    for (const i of live) {
      const contact = threadContact.get(i)!;
      if (!contact.active) {
        deps.log.debug({ key: i.env.idempotencyKey, contactId: contact.id }, 'inbound: message of a blocked contact skipped');
        continue;
      }
      prepared.push({ item: i, env: i.env, conn: conns.get(i)!, contact, participant: participantContact.get(i), fromMe: i.env.direction === 'out', fields: messageFields(i.env), at: occurredAt(i.env) });
    }
    return prepared;
  }

  /**
   * The transaction of a batch: provider ids already stored (nothing to do; echoes not matched yet are
   * retried), contacts, tickets (active, reopened or new), messages, ticket updates.
   */
  private async store(trx: Knex.Transaction, live: Item[], conns: Map<Item, Connection>): Promise<Announce | undefined> {
    // 1. Provider ids already stored. Needed up front for echoes (ours, or another device's) and replies (the
    //    quoted message's id); otherwise only before opening a ticket (step 3): a redelivered message must not
    //    open or reopen one. In the common case (inbound, active ticket) the insert's ON CONFLICT suffices.
    const known = new Map<string, number>();
    const lookUp = async (items: Item[]) => {
      const wids = new Map<string, [number, string]>();
      for (const { env } of items) {
        wids.set(`${env.companyId}:${env.externalId}`, [env.companyId, env.externalId]);
        if (env.replyTo) wids.set(`${env.companyId}:${env.replyTo.externalId}`, [env.companyId, env.replyTo.externalId]);
      }
      if (!wids.size) return;
      for (const r of (await trx('messages').whereIn(['companyId', 'wid'], [...wids.values()]).select('id', 'companyId', 'wid')) as { id: number; companyId: number; wid: string }[]) {
        known.set(`${r.companyId}:${r.wid}`, Number(r.id));
      }
    };
    const isKnown = (e: Envelope) => known.has(`${e.companyId}:${e.externalId}`);
    const upFront = live.some((i) => i.env.direction === 'out' || i.env.replyTo);
    if (upFront) await lookUp(live);
    const fresh: Item[] = [];
    const seen = new Set<string>();
    for (const i of live) {
      const k = `${i.env.companyId}:${i.env.externalId}`;
      if (isKnown(i.env) || seen.has(k)) continue; // stored already (or twice in this batch): nothing to do
      if (i.env.direction === 'out' && i.attempt <= ECHO_RETRY_ATTEMPTS) {
        // Maybe our own send whose `message.sent` has not landed yet: look again later.
        i.reject(new RetryableError(`outbound echo ${i.env.externalId} not matched yet`));
        continue;
      }
      seen.add(k);
      fresh.push(i);
    }
    if (!fresh.length) return undefined;

    // 2. Contacts (blocked ones: nothing stored).
    let todo = await this.contactsOf(trx, fresh, conns);
    if (!todo.length) return undefined;

    // 3. Tickets: the active one of each (contact, connection), locked in id order.
    const pairOf = (p: Prepared) => keyOf(p.env.companyId, p.contact.id, p.conn.id);
    const tickets = new Map<string, TicketRow>();
    const active = (await trx('tickets')
      .whereIn(['companyId', 'contactId', 'whatsappId'], [...new Map(todo.map((p) => [pairOf(p), [p.env.companyId, p.contact.id, p.conn.id]])).values()])
      .whereIn('status', ACTIVE_STATUSES)
      .orderBy('id')
      .forUpdate()) as TicketRow[];
    for (const t of active) tickets.set(keyOf(t.companyId, t.contactId, t.whatsappId!), t);
    const opened = new Map<number, { topic: string; previous?: TicketRow }>();
    const unticketed = todo.filter((p) => !tickets.has(pairOf(p)));
    if (unticketed.length && !upFront) {
      await lookUp(unticketed.map((p) => p.item));
      todo = todo.filter((p) => !isKnown(p.env));
      if (!todo.length) return undefined;
    }
    const keys = new Map<string, Prepared>();
    for (const p of todo) if (!tickets.has(pairOf(p))) keys.set(pairOf(p), p);
    let missing = [...keys.values()];

    // 4. A closed ticket of the pair updated within the connection's timeCreateNewTicket is reopened (1:1 only).
    const reopenable = missing.filter((p) => !p.env.thread.isGroup && p.conn.timeCreateNewTicket > 0);
    if (reopenable.length) {
      const maxMinutes = Math.max(...reopenable.map((p) => p.conn.timeCreateNewTicket));
      const closed = (await trx('tickets')
        .whereIn(['companyId', 'contactId', 'whatsappId'], reopenable.map((p) => [p.env.companyId, p.contact.id, p.conn.id]))
        .where({ status: 'closed' })
        .where('updatedAt', '>', new Date(Date.now() - maxMinutes * 60_000))
        .orderBy('updatedAt', 'desc')) as TicketRow[];
      for (const p of reopenable) {
        const prev = closed.find((t) => t.companyId === p.env.companyId && t.contactId === p.contact.id && t.whatsappId === p.conn.id && t.updatedAt.getTime() > Date.now() - p.conn.timeCreateNewTicket * 60_000);
        if (!prev) continue;
        const k = keyOf(p.env.companyId, p.contact.id, p.conn.id);
        try {
          const t = await trx.transaction(async (sp) => {
            const [row] = (await sp('tickets')
              .where({ id: prev.id, companyId: prev.companyId, status: 'closed' })
              .update({ status: inboundStatus(false, p.conn), userId: null, closedAt: null, unreadMessages: 0, isBot: false, updatedAt: sp.fn.now() })
              .returning('*')) as TicketRow[];
            if (row) await sp('ticketLogs').insert({ companyId: row.companyId, ticketId: row.id, type: 'reopen', userId: null, queueId: row.queueId, data: JSON.stringify({ inbound: true }) });
            return row;
          });
          if (t) {
            tickets.set(k, t);
            opened.set(t.id, { topic: TICKET_TOPICS.updated, previous: prev });
          }
        } catch (err) {
          if (!isUniqueActive(err)) throw err;
        }
      }
      missing = missing.filter((p) => !tickets.has(keyOf(p.env.companyId, p.contact.id, p.conn.id)));
    }

    // 5. New tickets; a pair opened meanwhile by another batch or node is skipped by the index and re-read.
    if (missing.length) {
      missing.sort((a, b) => a.env.companyId - b.env.companyId || a.contact.id - b.contact.id || a.conn.id - b.conn.id);
      const rows = missing.map((p) => {
        const isGroup = p.env.thread.isGroup;
        const status = inboundStatus(isGroup, p.conn);
        const queueId = status !== 'group' && p.conn.queues.length === 1 ? p.conn.queues[0].id : null;
        return { uuid: randomUUID(), companyId: p.env.companyId, contactId: p.contact.id, whatsappId: p.conn.id, queueId, status, isGroup, channel: p.conn.channel, fromMe: false, unreadMessages: 0 };
      });
      const created = (await trx('tickets')
        .insert(rows)
        .onConflict(trx.raw(`(company_id, contact_id, COALESCE(whatsapp_id, 0)) WHERE status IN ('open', 'pending', 'group')`) as never)
        .ignore()
        .returning('*')) as TicketRow[];
      for (const t of created) {
        tickets.set(keyOf(t.companyId, t.contactId, t.whatsappId!), t);
        opened.set(t.id, { topic: TICKET_TOPICS.created });
      }
      if (created.length) await trx('ticketLogs').insert(created.map((t) => ({ companyId: t.companyId, ticketId: t.id, type: 'create', userId: null, queueId: t.queueId })));
      const raced = missing.filter((p) => !tickets.has(keyOf(p.env.companyId, p.contact.id, p.conn.id)));
      if (raced.length) {
        const winners = (await trx('tickets')
          .whereIn(['companyId', 'contactId', 'whatsappId'], raced.map((p) => [p.env.companyId, p.contact.id, p.conn.id]))
          .whereIn('status', ACTIVE_STATUSES)
          .orderBy('id')
          .forUpdate()) as TicketRow[];
        for (const t of winners) tickets.set(keyOf(t.companyId, t.contactId, t.whatsappId!), t);
        // A pair still without a ticket (its active ticket was closed in between) fails the batch: retried.
        if (raced.some((p) => !tickets.has(keyOf(p.env.companyId, p.contact.id, p.conn.id)))) throw new RetryableError('inbound: ticket race not settled');
      }
    }

    // 6. The messages, once per provider id (sorted: concurrent batches take the index locks in one order).
    todo.sort((a, b) => a.env.companyId - b.env.companyId || (a.env.externalId < b.env.externalId ? -1 : a.env.externalId > b.env.externalId ? 1 : 0));
    const ticketOf = (p: Prepared) => tickets.get(keyOf(p.env.companyId, p.contact.id, p.conn.id))!;
    const messageRows = todo.map((p) => {
      const e = p.env;
      const t = ticketOf(p);
      const wa = e.channel === 'whatsapp';
      const remoteJid = wa ? (e.thread.isGroup ? `${e.thread.externalId}@g.us` : (p.fromMe ? null : e.sender?.jid) ?? p.contact.remoteJid ?? `${e.thread.externalId}@s.whatsapp.net`) : null;
      return {
        companyId: e.companyId,
        ticketId: t.id,
        contactId: p.fromMe ? null : (p.participant ?? p.contact).id,
        wid: e.externalId,
        remoteJid: cut(remoteJid, 255),
        participant: e.thread.isGroup ? cut(e.sender?.jid ?? e.sender?.lid ?? e.sender?.externalId, 255) : null,
        dataJson: e.raw === undefined ? null : JSON.stringify(e.raw),
        ack: p.fromMe ? ACK.sent : ACK.pending,
        read: p.fromMe,
        fromMe: p.fromMe,
        body: p.fields.body,
        mediaPath: p.fields.mediaPath,
        mediaName: p.fields.mediaName,
        mediaType: p.fields.mediaType,
        isForwarded: Boolean(e.content?.forwarded),
        quotedMsgId: e.replyTo ? (known.get(`${e.companyId}:${e.replyTo.externalId}`) ?? null) : null,
        queueId: t.queueId,
        userId: null,
        createdAt: p.at,
        updatedAt: p.at,
      };
    });
    const inserted = (await trx('messages')
      .insert(messageRows)
      .onConflict(trx.raw('(company_id, wid) WHERE wid IS NOT NULL') as never)
      .ignore()
      .returning('*')) as MessageRow[];
    if (!inserted.length) return undefined;
    const byWid = new Map(inserted.map((r) => [`${r.companyId}:${r.wid}`, { ...r, id: Number(r.id), quotedMsgId: r.quotedMsgId === null ? null : Number(r.quotedMsgId) }]));
    const stored: Stored[] = [];
    for (const p of todo) {
      const message = byWid.get(`${p.env.companyId}:${p.env.externalId}`);
      if (message) stored.push({ p, message });
    }

    // 7. The tickets: last message (the newest of the batch), who wrote it, unread count; one statement.
    const perTicket = new Map<number, { companyId: number; last: Stored; unread: number }>();
    for (const s of stored) {
      const cur = perTicket.get(s.message.ticketId);
      const unread = (cur?.unread ?? 0) + (s.p.fromMe ? 0 : 1);
      const last = !cur || s.p.at.getTime() >= cur.last.p.at.getTime() ? s : cur.last;
      perTicket.set(s.message.ticketId, { companyId: s.message.companyId, last, unread });
    }
    const ids = [...perTicket.keys()].sort((a, b) => a - b);
    // A message newer than this batch's last (stored by a batch that committed first) keeps its place.
    const { rows } = await trx.raw(
      `UPDATE tickets AS t SET
         last_message = CASE WHEN newer.found THEN t.last_message ELSE v.last_message END,
         from_me = CASE WHEN newer.found THEN t.from_me ELSE v.from_me END,
         unread_messages = t.unread_messages + v.unread, updated_at = now()
       FROM (VALUES ${ids.map(() => '(?::int, ?::int, ?::text, ?::boolean, ?::int, ?::timestamptz)').join(', ')}) AS v(id, company_id, last_message, from_me, unread, at)
       CROSS JOIN LATERAL (SELECT EXISTS (SELECT 1 FROM messages m WHERE m.ticket_id = v.id AND m.created_at > v.at) AS found) AS newer
       WHERE t.id = v.id AND t.company_id = v.company_id
       RETURNING t.*`,
      ids.flatMap((id) => {
        const x = perTicket.get(id)!;
        return [id, x.companyId, x.last.p.fields.lastMessage, x.last.p.fromMe, x.unread, x.last.p.at];
      }),
    );
    const finalTickets = new Map<number, TicketRow>();
    for (const r of rows as Record<string, unknown>[]) {
      const t = camelRow<TicketRow>(r);
      finalTickets.set(t.id, t);
    }
    return { stored, tickets: finalTickets, opened };
  }

  /** Contacts whose Graph profile was asked for recently (companyId:contactId -> ms), bounded. */
  private readonly profileAsked = new Map<string, number>();

  /**
   * Messenger and Instagram webhooks carry no sender name: after commit, contacts still named by their
   * id get their name (and picture) from the Graph profile through the `channels` service, when that
   * plugin is loaded. Fire-and-forget, at most once per contact every 10 minutes; failures are logged.
   * `contacts.findOrCreate` updates the name and pushes `company-{id}-contact`.
   */
  private enrichProfiles(stored: Stored[]): void {
    const registry = this.deps.services;
    if (!registry?.has('channels')) return;
    const channels = registry.get<{ fetchProfile(companyId: number, connectionId: number, externalId: string): Promise<{ name?: string; pictureUrl?: string } | undefined> }>('channels');
    for (const { p } of stored) {
      const c = p.contact;
      if (p.fromMe || p.env.thread.isGroup || (p.env.channel !== 'facebook' && p.env.channel !== 'instagram')) continue;
      if (c.name && c.name !== c.number) continue;
      const key = `${p.env.companyId}:${c.id}`;
      const last = this.profileAsked.get(key);
      if (last !== undefined && Date.now() - last < 10 * 60_000) continue;
      if (this.profileAsked.size >= 10_000) this.profileAsked.clear();
      this.profileAsked.set(key, Date.now());
      channels
        .fetchProfile(p.env.companyId, p.env.connectionId, p.env.thread.externalId)
        .then((profile) =>
          profile?.name
            ? this.deps.contacts.findOrCreate(p.env.companyId, { number: c.number, name: profile.name, channel: p.env.channel, isGroup: false, profilePicUrl: profile.pictureUrl })
            : undefined,
        )
        .catch((err: unknown) => this.deps.log.debug({ err, contactId: c.id }, 'inbound: profile lookup failed'));
    }
  }

  /**
   * Queues the live events of a committed batch behind the previous batches' (so a client sees them in
   * commit order). When too many batches wait, the caller waits too (back-pressure on the bus).
   */
  private async announceLater(a: Announce): Promise<void> {
    if (this.emitBacklog >= MAX_EMIT_BACKLOG) await this.emitChain;
    this.emitBacklog++;
    this.emitChain = this.emitChain
      .then(() => this.announce(a))
      .catch((err: unknown) => this.deps.log.error({ err }, 'inbound: live events after commit failed'))
      .finally(() => {
        this.emitBacklog--;
      });
  }

  /** Socket events and bus events of a committed batch, one serialization per company. */
  private async announce(a: Announce): Promise<void> {
    const { deps } = this;
    const companies = new Map<number, Stored[]>();
    for (const s of a.stored) {
      const list = companies.get(s.message.companyId) ?? [];
      list.push(s);
      companies.set(s.message.companyId, list);
    }
    for (const [companyId, stored] of companies) {
      const ticketRows = [...new Set(stored.map((s) => s.message.ticketId))].map((id) => a.tickets.get(id)).filter((t): t is TicketRow => Boolean(t));
      const contacts = [...new Map(stored.map((s) => [s.p.contact.id, s.p.contact])).values()];
      const connections = [...new Map(stored.map((s) => [s.p.conn.id, s.p.conn])).values()];
      const [mask, messages] = await Promise.all([
        this.masksNumbers(companyId),
        this.wireMessages(companyId, stored, a.tickets),
      ]);
      const wire = await serializeTickets(deps, companyId, ticketRows, { maskNumbers: mask, known: { contacts, connections } });
      const wireById = new Map(wire.map((t) => [t.id as number, t]));
      const appMessage = companyEvent(companyId, 'appMessage');
      stored.forEach((s, idx) => {
        const t = a.tickets.get(s.message.ticketId);
        const ticket = wireById.get(s.message.ticketId);
        if (!t || !ticket) return;
        deps.realtime.emitToCompany(companyId, appMessage, { action: 'create', message: messages[idx], ticket, contact: ticket.contact ?? null }, { audiences: ticketAudiences(t) });
      });
      const ticketEvent = companyEvent(companyId, 'ticket');
      for (const t of ticketRows) {
        const audiences = new Set(ticketAudiences(t));
        const prev = a.opened.get(t.id)?.previous;
        if (prev) for (const x of ticketAudiences(prev)) audiences.add(x);
        deps.realtime.emitToCompany(companyId, ticketEvent, { action: 'update', ticket: wireById.get(t.id), ticketId: t.id }, { audiences: [...audiences] });
        const open = a.opened.get(t.id);
        if (open) {
          const ev: TicketBusEvent = { companyId, ticketId: t.id, status: t.status, queueId: t.queueId, userId: t.userId };
          this.publishEvent(open.topic, ev);
        }
      }
      for (const s of stored) {
        const ev: MessageReceivedEvent = { companyId, ticketId: s.message.ticketId, messageId: s.message.id, contactId: s.p.contact.id, fromMe: s.message.fromMe };
        this.publishEvent(MESSAGE_RECEIVED, ev, `message.received:${companyId}:${s.message.id}`);
      }
    }
    // Confirms are not awaited one batch at a time (RabbitMQ confirm latency would pace the pipeline), but
    // their number is bounded.
    if (this.publishing.size > MAX_UNCONFIRMED) await Promise.allSettled([...this.publishing]);
  }

  /** Publishes a bus event after commit; a failure is logged (the data is committed, the event is lost). */
  private publishEvent(topic: string, payload: unknown, id?: string): void {
    const p: Promise<void> = this.deps.bus
      .publish(topic, payload, id ? { id } : undefined)
      .catch((err: unknown) => this.deps.log.error({ err, topic }, 'inbound: publishing a bus event failed'))
      .finally(() => this.publishing.delete(p));
    this.publishing.add(p);
  }

  /** The company's lgpdHideNumber setting (masked numbers in socket payloads), cached for LGPD_TTL_MS. */
  private async masksNumbers(companyId: number): Promise<boolean> {
    const hit = this.lgpd.get(companyId);
    if (hit && Date.now() - hit.at < LGPD_TTL_MS) return hit.value;
    const value = (await this.deps.identity.getCompanySetting(companyId, 'lgpdHideNumber')) === 'enabled';
    if (this.lgpd.size > 10_000) this.lgpd.clear();
    this.lgpd.set(companyId, { value, at: Date.now() });
    return value;
  }

  /**
   * The stored messages as `serializeMessages` shows them (GET /messages), built from what the batch knows:
   * the contacts, the tickets and the connections' queues. Replies (quoted messages) go through
   * `serializeMessages` itself.
   */
  private async wireMessages(companyId: number, stored: Stored[], tickets: Map<number, TicketRow>): Promise<SerializedMessage[]> {
    const { deps } = this;
    const replies = stored.filter((s) => s.message.quotedMsgId !== null);
    const full = replies.length ? await serializeMessages(deps, companyId, replies.map((s) => s.message)) : [];
    const fullById = new Map(full.map((m) => [m.id, m]));
    const queues = new Map<number, { id: number; name: string; color: string } | null>();
    for (const s of stored) for (const q of s.p.conn.queues) queues.set(q.id, { id: q.id, name: q.name, color: q.color });
    const missing = [...new Set([...tickets.values()].map((t) => t.queueId).filter((id): id is number => id !== null && !queues.has(id)))];
    for (const q of await Promise.all(missing.map((id) => deps.queues.getQueue(companyId, id)))) if (q) queues.set(q.id, { id: q.id, name: q.name, color: q.color });
    return stored.map((s) => {
      const done = fullById.get(s.message.id);
      if (done) return done;
      const { mediaPath, ...rest } = s.message;
      const sender = s.p.participant ?? s.p.contact;
      const queueId = tickets.get(s.message.ticketId)?.queueId ?? null;
      return {
        ...rest,
        reactions: Array.isArray(rest.reactions) ? rest.reactions : [],
        mediaUrl: mediaPath ? deps.uploads.url(companyId, mediaPath) : null,
        contact: s.message.contactId !== null ? { id: sender.id, name: sender.name } : null,
        quotedMsg: null,
        ticket: { id: s.message.ticketId, queueId, queue: queueId !== null ? (queues.get(queueId) ?? null) : null },
      };
    });
  }

  // ------------------------------------------------------------------ statuses, reactions, edits, deletes

  /** True when a message with provider id `wid` exists in the company. */
  private async known(companyId: number, wid: string): Promise<boolean> {
    return Boolean(await this.deps.db('messages').where({ companyId, wid }).first('id'));
  }

  private async status(env: Envelope, attempt: number): Promise<void> {
    await this.connectionOf(env);
    const st = env.status;
    if (!st) throw new PermanentError('status envelope without status');
    if (st.watermark && env.externalId.startsWith('watermark:')) return this.watermark(env, st.state, st.watermark);
    const changed =
      st.state === 'failed'
        ? await applyFailedByWid(this.deps, { companyId: env.companyId, wid: env.externalId, error: st.error })
        : await applyStatus(this.deps, { companyId: env.companyId, wid: env.externalId, ack: ACK_OF_STATUS[st.state as keyof typeof ACK_OF_STATUS] });
    if (changed || (await this.known(env.companyId, env.externalId))) return;
    if (attempt <= STATUS_RETRY_ATTEMPTS) throw new RetryableError(`status for unknown message ${env.externalId}`);
    this.deps.log.debug({ key: env.idempotencyKey }, 'inbound: status for an unknown message dropped');
  }

  /**
   * A watermark receipt (Messenger `delivery` / `read`): every outbound message of ours in the thread's
   * tickets on the connection, sent (wid set) at or before the watermark, moves to the state's ack (forward
   * only); an `appMessage` update is pushed per moved message.
   */
  private async watermark(env: Envelope, state: string, watermark: string): Promise<void> {
    const ack = ACK_OF_STATUS[state as keyof typeof ACK_OF_STATUS];
    const until = Date.parse(watermark);
    if (!ack || !Number.isFinite(until)) return;
    const contact = await this.deps.contacts.getByNumber?.(env.companyId, env.thread.externalId);
    if (!contact) return;
    const ticketIds = this.deps.db('tickets').where({ companyId: env.companyId, contactId: contact.id, whatsappId: env.connectionId }).select('id');
    const ids = this.deps.db('messages')
      .where({ companyId: env.companyId, fromMe: true, isPrivate: false })
      .whereIn('ticketId', ticketIds)
      .whereNotNull('wid')
      .where('ack', '<', ack)
      .where('createdAt', '<=', new Date(until))
      .orderBy('createdAt', 'desc')
      .limit(WATERMARK_LIMIT)
      .select('id');
    const moved = (await this.deps.db('messages')
      .where({ companyId: env.companyId })
      .whereIn('id', ids)
      .where('ack', '<', ack)
      .update({ ack, updatedAt: this.deps.db.fn.now() })
      .returning('*')) as MessageRow[];
    for (const row of moved) await emitMessageUpdate(this.deps, { ...row, id: Number(row.id) });
  }

  private async change(env: Envelope, attempt: number): Promise<void> {
    await this.connectionOf(env);
    const { deps } = this;
    let changed: MessageRow | undefined;
    if (env.kind === 'reaction') {
      if (!env.reaction) throw new PermanentError('reaction envelope without reaction');
      changed = await applyReaction(deps, env.companyId, env.externalId, { emoji: env.reaction.emoji, fromMe: env.direction === 'out', senderId: env.sender?.externalId ?? env.thread.externalId });
    } else if (env.kind === 'edit') {
      const text = env.edit?.text ?? env.content?.text;
      if (text === undefined) throw new PermanentError('edit envelope without text');
      changed = await applyEdit(deps, env.companyId, env.externalId, clean(text));
    } else {
      changed = await applyRemoteDelete(deps, env.companyId, env.externalId);
    }
    if (changed || (await this.known(env.companyId, env.externalId))) return;
    if (attempt <= CHANGE_RETRY_ATTEMPTS) throw new RetryableError(`${env.kind} for unknown message ${env.externalId}`);
    deps.log.debug({ key: env.idempotencyKey }, `inbound: ${env.kind} for an unknown message dropped`);
  }

  // ------------------------------------------------------------------ typing and connection state

  private async typing(env: Envelope): Promise<void> {
    if (env.direction !== 'in' || !env.typing) return;
    await this.connectionOf(env);
    const contact = await this.deps.contacts.getByNumber?.(env.companyId, env.thread.externalId);
    if (!contact) return;
    const ticket = await findActive(this.deps.db, env.companyId, contact.id, env.connectionId);
    if (!ticket) return;
    this.deps.realtime.emitToCompany(
      env.companyId,
      companyEvent(env.companyId, 'presence'),
      { action: 'update-presence', ticketId: ticket.id, presence: env.typing.state },
      { audiences: ticketAudiences(ticket) },
    );
  }

  private async connection(env: Envelope): Promise<void> {
    await this.connectionOf(env);
    const c = env.connection;
    if (!c) throw new PermanentError('connection envelope without connection');
    if (c.status === 'account_error') {
      this.deps.log.warn({ companyId: env.companyId, connectionId: env.connectionId, error: c.error }, 'inbound: the provider reported an account error');
      return;
    }
    const status = CONNECTION_STATUS[c.status.toLowerCase()];
    if (!status) {
      this.deps.log.warn({ companyId: env.companyId, connectionId: env.connectionId, status: c.status.slice(0, 50) }, 'inbound: unknown connection status ignored');
      return;
    }
    // Reports of one connection apply one at a time and never backwards in time (the consumer runs up to 32
    // envelopes at once, so a late `qrcode` must not overwrite a newer `CONNECTED`).
    const key = `${env.companyId}:${env.connectionId}`;
    const run = (this.statusChains.get(key) ?? Promise.resolve()).then(() => this.applyConnectionStatus(env, status, occurredAt(env).getTime()));
    const chain = run.catch(() => undefined);
    this.statusChains.set(key, chain);
    void chain.then(() => {
      if (this.statusChains.get(key) === chain) this.statusChains.delete(key);
    });
    return run;
  }

  private async applyConnectionStatus(env: Envelope, status: string, at: number): Promise<void> {
    const key = `${env.companyId}:${env.connectionId}`;
    if ((this.statusAt.get(key) ?? -Infinity) > at) return;
    const c = env.connection!;
    try {
      await this.deps.connections.updateStatus(env.companyId, env.connectionId, {
        status,
        ...(status === 'qrcode' ? { qrcode: c.qrcode ?? '' } : status === 'CONNECTED' ? { qrcode: '' } : {}),
      });
      if (this.statusAt.size > 10_000) this.statusAt.clear();
      this.statusAt.set(key, at);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ERR_NO_WAPP_FOUND' || code === 'ERR_VALIDATION') throw new PermanentError(`connection status not applied: ${code}`, { cause: err });
      throw err;
    }
  }
}

/**
 * Starts the inbound consumer (queue `tickets.inbound`; the kernel's bus namespaces queue names by
 * exchange, so installs sharing a broker never share it) and the connection-cache invalidation (broadcast
 * subscription to `connection.updated` / `connection.deleted`). Returns the pipeline and the stop function
 * (for `ctx.onClose`): it stops consuming, then waits for the pending live events.
 */
export async function subscribeInbound(deps: TicketsDeps): Promise<{ pipeline: InboundPipeline; close: () => Promise<void> }> {
  const pipeline = new InboundPipeline(deps);
  const invalidation = await deps.bus.subscribe<ConnectionBusEvent>(
    ['connection.updated', 'connection.deleted'],
    (m) => {
      if (m.payload && Number.isInteger(m.payload.companyId) && Number.isInteger(m.payload.id)) pipeline.connections.invalidate(m.payload.companyId, m.payload.id);
    },
    { broadcast: true, maxRetries: 0 },
  );
  const sub = await deps.bus.subscribe(INBOUND_PATTERN, pipeline.handle, INBOUND_SUBSCRIPTION);
  return {
    pipeline,
    close: async () => {
      await sub.unsubscribe();
      await invalidation.unsubscribe();
      await pipeline.idle();
    },
  };
}
