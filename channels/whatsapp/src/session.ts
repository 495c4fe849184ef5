import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { AnyMessageContent, BaileysEventMap, WAMessage, WAMessageKey, proto } from '@whiskeysockets/baileys';
import { PermanentError, RetryableError, UPLOAD_TYPES, type Envelope, type SendCommand, type SendResult, type UploadService } from '@atendo/sdk';
import { usePostgresAuthState, type PostgresAuthState } from './auth-state';
import { defaultMediaDownloader, defaultSocketFactory, loadBaileys, type BaileysLogger, type BaileysModule, type MediaDownloader, type SocketFactory, type SocketLike } from './baileys';
import { jidUser } from './jid';
import { DISCONNECT_REASONS, disconnectCode, normalizeEvent, type BaileysDownloadHint } from './normalize';
import { buildContent, recipientJid } from './send';

/**
 * The WhatsApp Web session of one connection (DESIGN.md §4): the Baileys socket, its auth state in
 * PostgreSQL, the connection status pushed through the `connections` service, reconnection by disconnect
 * reason, inbound events normalized to envelopes (media downloaded and stored first) and sending.
 *
 * Status (spec 1-platform.md §4, 2-tickets.md §4) through `connections.updateStatus`:
 * - `start()` -> `OPENING` (qrcode '', retries 0); Baileys `connecting` -> `OPENING`;
 * - `qr` -> `qrcode` with the QR text (the client renders it);
 * - `open` -> `CONNECTED` with the account's number (digits), qrcode '', retries 0;
 * - `close`, by `DisconnectReason` (status code of `lastDisconnect.error`):
 *   - 401 loggedOut, 500 badSession, 411 multideviceMismatch: FINAL — the auth state is cleared, status
 *     `DISCONNECTED`, no retry (a new QR is needed);
 *   - 403 forbidden, 440 connectionReplaced: final, auth kept, status `DISCONNECTED`;
 *   - 515 restartRequired (normal right after pairing): reconnect at once (at most 3 times in a row, then it
 *     counts as a failure);
 *   - anything else (428 connectionClosed, 408 connectionLost/timedOut, 503, no code): a failure — status
 *     `DISCONNECTED` with `retries` = consecutive failures, reconnect after an exponential backoff with jitter
 *     (2 s doubling up to 60 s); after `maxFailures` (5) consecutive failures, status `TIMEOUT` and the
 *     session stops until a manual `start()`.
 * A socket factory or auth-state error counts as a failure too: the session fails soft, it never throws
 * out of an event handler.
 *
 * Liveness ("connected but dead", issue 33 item 3): while open, the session sends WhatsApp's ping IQ through
 * the socket every `probe.intervalMs`; `probe.maxMisses` pings in a row unanswered within `probe.timeoutMs`
 * close the socket as `livenessProbe` (a failure: DISCONNECTED, reconnect with backoff). Pushes that report
 * a close carry `reason` (the `DisconnectReason` name, or `livenessProbe`) for the connection's status history.
 *
 * Alerts (`onAlert`): `dropped` (an open socket closed and the session reconnects), `recovered` (open again after
 * a drop), `needs-qr` (logged out / bad session: a new QR code is needed), `closed` (403/440: WhatsApp closed it,
 * no reconnect), `timeout` (TIMEOUT). Closes the session itself asked for (stop, logout, restart) raise none.
 *
 * Gap (history sync): after a drop, once open again, for each chat that gets a message within
 * `gapSync.windowMs` the session asks the phone for the `gapSync.count` messages before it (Baileys
 * `fetchMessageHistory`, at most `gapSync.maxChats` chats a gap); messages of the ON_DEMAND history sync that
 * answers are emitted like live ones when they fall inside the gap (from the last event of the old socket to
 * the reopening), others are dropped. The pipeline dedupes by idempotency key, so messages that WhatsApp
 * delivered anyway (offline delivery) are not stored twice.
 */

/** A status change a session pushes (`reason`: why a close happened, for the status history). */
export interface SessionStatusUpdate {
  status: string;
  qrcode?: string;
  retries?: number;
  number?: string;
  reason?: string;
}

/** The part of the `connections` service a session uses. */
export interface SessionConnections {
  get(companyId: number, id: number): Promise<{ allowGroup: boolean; channel: string } | undefined>;
  updateStatus(companyId: number, id: number, update: SessionStatusUpdate): Promise<unknown>;
}

/** Liveness probe of an open socket. Milliseconds. */
export interface ProbeOptions {
  /** Between pings (default 30000; 0 turns the probe off). */
  intervalMs: number;
  /** How long a ping may take (default 10000). */
  timeoutMs: number;
  /** Pings in a row without an answer before the socket counts as dead (default 2). */
  maxMisses: number;
}

export const DEFAULT_PROBE: ProbeOptions = { intervalMs: 30_000, timeoutMs: 10_000, maxMisses: 2 };

/** History sync of the gap a drop left. */
export interface GapSyncOptions {
  /** After reopening, how long chats with new messages get a history request (default 120000; 0 turns it off). */
  windowMs: number;
  /** Messages asked for per chat (default 50). */
  count: number;
  /** Chats asked for per gap (default 20). */
  maxChats: number;
}

export const DEFAULT_GAP_SYNC: GapSyncOptions = { windowMs: 120_000, count: 50, maxChats: 20 };

/** Baileys' `HistorySync.HistorySyncType.ON_DEMAND`. */
export const HISTORY_SYNC_ON_DEMAND = 6;

/** What a session tells its owner about (see the class doc). Times are ISO strings. */
export interface SessionAlert {
  kind: 'dropped' | 'recovered' | 'needs-qr' | 'closed' | 'timeout';
  /** `DisconnectReason` name (`connectionLost`, `loggedOut`, ...), `livenessProbe`, or 'unknown'. */
  reason: string;
  at: string;
  /** `recovered`: how long the connection was down, ms. */
  downMs?: number;
}

/** Reconnection policy. Delays in milliseconds. */
export interface BackoffOptions {
  /** First delay (default 2000). */
  baseMs: number;
  /** Largest delay (default 60000). */
  maxMs: number;
  /** Consecutive failures before `TIMEOUT` (default 5). */
  maxFailures: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 2000, maxMs: 60000, maxFailures: 5 };

/** The delay before reconnection attempt `failures` (1-based): base·2^(n-1) capped, ±25 % jitter, within [base, max]. */
export function backoffDelay(failures: number, opts: BackoffOptions, random: () => number = Math.random): number {
  const n = Math.max(1, failures);
  const raw = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.min(n - 1, 30));
  const jittered = raw * (0.75 + 0.5 * random());
  return Math.round(Math.min(opts.maxMs, Math.max(opts.baseMs, jittered)));
}

/** Media types the session stores from inbound messages (others keep their metadata, without a file). */
export const INBOUND_MEDIA_TYPES: readonly string[] = ['image/*', 'audio/*', 'video/*', ...UPLOAD_TYPES.documents, ...UPLOAD_TYPES.text, 'application/zip'];
/** Upload area of inbound media (`{uploads}/company{id}/messages/…`). */
export const MEDIA_AREA = 'messages';

/** Logger the session writes to (Fastify's / pino). */
export interface SessionLogger extends BaileysLogger {
  child(bindings: Record<string, unknown>, options?: { level?: string }): SessionLogger;
}

export interface SessionDeps {
  db: Knex;
  connections: SessionConnections;
  log: SessionLogger;
  /** Publishes envelopes (the plugin puts them on the bus). */
  emit(envelopes: Envelope[]): Promise<void>;
  /** Stores downloaded media; without it media envelopes carry metadata only. */
  uploads?: Pick<UploadService, 'save'>;
  /** The kernel's uploads folder (`DATA_DIR/uploads`), to read the files of outbound media. */
  uploadsDir?: string;
  socketFactory?: SocketFactory;
  download?: MediaDownloader;
  baileys?: () => Promise<BaileysModule>;
  backoff?: Partial<BackoffOptions>;
  random?: () => number;
  /** Longest media download, in milliseconds (default 60000). */
  mediaTimeoutMs?: number;
  /** Called once when the session stops for good (final disconnect, TIMEOUT, `stop()`): release locks here. */
  onStopped?(reason: string): void;
  /**
   * Pair by phone number (digits with the country code) instead of showing a QR code: when WhatsApp first
   * offers a QR, the session asks for a pairing code (Baileys `requestPairingCode`) and pushes status
   * `PAIRING` with the code in `qrcode`; later QR refreshes are not pushed. A failed request falls back to
   * the QR code.
   */
  pairingPhone?: string;
  /** Liveness probe of the open socket (defaults `DEFAULT_PROBE`). */
  probe?: Partial<ProbeOptions>;
  /** History sync of a drop's gap (defaults `DEFAULT_GAP_SYNC`). */
  gapSync?: Partial<GapSyncOptions>;
  /** Drops, recoveries and sessions that need the admin (called synchronously; must not throw). */
  onAlert?(alert: SessionAlert): void;
}

export type SessionState = 'idle' | 'connecting' | 'open' | 'waiting' | 'stopped';

/** A small insertion-ordered LRU. */
class Lru<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly max: number) {}
  get(k: K): V | undefined {
    const v = this.map.get(k);
    if (v !== undefined) {
      this.map.delete(k);
      this.map.set(k, v);
    }
    return v;
  }
  set(k: K, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as K);
  }
  has(k: K): boolean {
    return this.map.has(k);
  }
}

/** Rebuilds a downloadable WAMessage from an envelope's `media.downloadHint` (for a later download). */
export function messageFromDownloadHint(key: WAMessageKey, hint: BaileysDownloadHint): WAMessage {
  const bytes = (s?: string) => (s ? Buffer.from(s, 'base64') : undefined);
  const media: Record<string, unknown> = {
    url: hint.url,
    directPath: hint.directPath,
    mediaKey: bytes(hint.mediaKey),
    fileEncSha256: bytes(hint.fileEncSha256),
    fileSha256: bytes(hint.fileSha256),
    mediaKeyTimestamp: hint.mediaKeyTimestamp,
    fileLength: hint.fileLength,
  };
  for (const k of Object.keys(media)) if (media[k] === undefined) delete media[k];
  return { key, message: { [hint.messageType]: media } } as WAMessage;
}

/** The Baileys events that become envelopes. */
const MESSAGE_EVENTS = ['messages.upsert', 'messages.update', 'messages.reaction', 'message-receipt.update', 'presence.update'] as const;

/** Final close codes: clear the auth state and stop. */
const FINAL_CLEAR = new Set([401, 500, 411]);
/** Final close codes that keep the auth state. */
const FINAL_KEEP = new Set([403, 440]);

export class SessionManager {
  readonly companyId: number;
  readonly connectionId: number;
  private readonly deps: SessionDeps;
  private readonly log: SessionLogger;
  private readonly backoff: BackoffOptions;
  private readonly probeOpts: ProbeOptions;
  private readonly gapOpts: GapSyncOptions;
  private probeTimer: NodeJS.Timeout | undefined;
  private probing = false;
  private probeMisses = 0;
  /** Local time of the last event of the current socket (a dead socket's gap starts there). */
  private lastEventAt = 0;
  /** Set while the connection is down after a drop: when it dropped and where its gap starts. */
  private down: { at: number; gapFrom: number } | undefined;
  /** The gap being filled after a reopening: its bounds (ms), until when chats get requests, chats asked. */
  private gap: { from: number; to: number; until: number; chats: Set<string> } | undefined;
  private _state: SessionState = 'idle';
  private sock: SocketLike | undefined;
  private unsubscribe: (() => void) | undefined;
  private auth: PostgresAuthState | undefined;
  private generation = 0;
  private failures = 0;
  private quickRestarts = 0;
  private timer: NodeJS.Timeout | undefined;
  private allowGroup = false;
  private me: { id?: string; lid?: string; name?: string } | undefined;
  /** The pairing code asked for the current socket (pairing by phone number); '' when the request failed. */
  private pairingCode: string | undefined;
  /** The status fields last written (to skip repeats). */
  private lastPushed: Record<string, unknown> = {};
  private queue: Promise<unknown> = Promise.resolve();
  private control: Promise<void> = Promise.resolve();
  private pushes: Promise<unknown> = Promise.resolve();
  private openWaiters: ((ok: boolean) => void)[] = [];
  /** Recent messages by id (ours and theirs): quoted replies and Baileys' retry `getMessage`. */
  private readonly recent = new Lru<string, { key: WAMessageKey; message?: proto.IMessage | null }>(2000);
  /** Ids of messages this session sent: their echoes are not published again. */
  private readonly sentIds = new Lru<string, true>(2000);
  private stopReason: string | undefined;
  /** True while `stop()` runs: a start in the meantime is refused (the stop would release the lock under it). */
  private stopping = false;

  constructor(companyId: number, connectionId: number, deps: SessionDeps) {
    this.companyId = companyId;
    this.connectionId = connectionId;
    this.deps = deps;
    this.log = deps.log.child({ plugin: 'whatsapp', companyId, connectionId });
    this.backoff = { ...DEFAULT_BACKOFF, ...deps.backoff };
    this.probeOpts = { ...DEFAULT_PROBE, ...deps.probe };
    this.gapOpts = { ...DEFAULT_GAP_SYNC, ...deps.gapSync };
  }

  /** idle (never started), connecting, open, waiting (reconnect timer), stopped (until the next `start()`). */
  get state(): SessionState {
    return this._state;
  }

  /** Consecutive failed connection attempts since the last `open` or manual start. */
  get retries(): number {
    return this.failures;
  }

  /** Why the session last stopped (`loggedOut`, `badSession`, `timeout`, `stopped`, `deleted`, ...). */
  get lastStopReason(): string | undefined {
    return this.stopReason;
  }

  /** True while the session runs or waits to reconnect (it needs its lock). */
  get active(): boolean {
    return this._state === 'connecting' || this._state === 'open' || this._state === 'waiting';
  }

  /**
   * Starts (or, when stopped or waiting, restarts now) the session: status `OPENING`, failure count reset,
   * a new socket on the stored auth state. A session already connecting or open is left as it is.
   */
  async start(): Promise<void> {
    if (this.stopping || this._state === 'connecting' || this._state === 'open') return;
    this.clearTimer();
    this._state = 'connecting';
    this.failures = 0;
    this.quickRestarts = 0;
    await this.refreshSettings();
    await this.push({ status: 'OPENING', qrcode: '', retries: 0 });
    if (this._state !== 'connecting') return; // stopped meanwhile (connection deleted, stop())
    await this.connect();
  }

  /** Closes the socket (no logout) and connects again at once on the stored auth state. */
  async restart(): Promise<void> {
    this.clearTimer();
    const sock = this.sock;
    this.detach();
    try {
      sock?.end?.(undefined);
    } catch {
      /* already closed */
    }
    this._state = 'idle';
    await this.start();
  }

  /**
   * Stops the session: cancels reconnection, logs out first when `logout` and the socket is open
   * (best effort), closes the socket, clears the auth state when `clear`, pushes `status` when given (qrcode
   * '', retries 0). Calls `onStopped`.
   */
  async stop(opts: { logout?: boolean; clear?: boolean; status?: string; reason?: string } = {}): Promise<void> {
    this.stopping = true;
    this.clearTimer();
    const sock = this.sock;
    const wasOpen = this._state === 'open';
    this.detach();
    if (opts.logout && sock?.logout && wasOpen) {
      await withTimeout(sock.logout(), 10_000).catch((err: unknown) => this.log.warn({ err }, 'whatsapp: logout failed'));
    }
    try {
      sock?.end?.(undefined);
    } catch {
      /* already closed */
    }
    try {
      if (opts.clear) await this.clearAuth();
      if (opts.status) await this.push({ status: opts.status, qrcode: '', retries: 0 });
    } finally {
      this.stopping = false;
      this.finish(opts.reason ?? 'stopped');
    }
  }

  /** Re-reads the connection's settings (`allowGroup`). */
  async refreshSettings(): Promise<void> {
    try {
      const conn = await this.deps.connections.get(this.companyId, this.connectionId);
      this.allowGroup = Boolean(conn?.allowGroup);
    } catch (err) {
      this.log.warn({ err }, 'whatsapp: reading the connection settings failed');
    }
  }

  /** Resolves true once the socket is open (false after `ms`). */
  waitOpen(ms: number): Promise<boolean> {
    if (this._state === 'open') return Promise.resolve(true);
    if (this._state === 'stopped' || this._state === 'idle') return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(t);
        resolve(ok);
      };
      const t = setTimeout(() => {
        this.openWaiters = this.openWaiters.filter((w) => w !== done);
        resolve(false);
      }, ms);
      t.unref?.();
      this.openWaiters.push(done);
    });
  }

  /**
   * Sends a command: text, media (the stored upload), a contact card, quoting `quotedWid` (the quoted key
   * is taken from the recent messages, else `{id: quotedWid, remoteJid: <recipient>, fromMe: false}`).
   * Returns the WhatsApp message id. RetryableError when the socket is not open or WhatsApp fails
   * transiently; PermanentError for bad commands (recipient, media) and 4xx answers.
   */
  /**
   * Which of `numbers` (E.164 digits) have a WhatsApp account, asked through this session's socket (Baileys
   * `onWhatsApp`, 50 numbers a query): true when WhatsApp lists it (a Brazilian mobile also matches its form
   * with or without the ninth digit), false when the query answered without it, null when it could not be
   * asked (the session is not open, the socket has no `onWhatsApp`, or that query failed). Never throws.
   */
  async checkNumbers(numbers: string[]): Promise<Map<string, boolean | null>> {
    const out = new Map<string, boolean | null>(numbers.map((n) => [n, null]));
    const sock = this.sock;
    if (this._state !== 'open' || !sock?.onWhatsApp) return out;
    const wanted = [...out.keys()].filter((n) => /^\d{8,15}$/.test(n));
    for (let i = 0; i < wanted.length; i += CHECK_CHUNK) {
      const chunk = wanted.slice(i, i + CHECK_CHUNK);
      try {
        const found = await withTimeout(sock.onWhatsApp(...chunk.map((n) => `${n}@s.whatsapp.net`)), 20_000);
        if (!Array.isArray(found)) continue;
        const listed = new Set(found.filter((f) => f && f.exists).map((f) => String(f.jid).split('@')[0].split(':')[0]));
        for (const n of chunk) out.set(n, listed.has(n) || brVariants(n).some((v) => listed.has(v)));
      } catch (err) {
        this.log.warn({ err, connectionId: this.connectionId }, 'whatsapp: number check failed');
      }
    }
    return out;
  }

  /**
   * Sends `cmd`. `opts.messageId`: the WhatsApp message id to use (`stableMessageId` of the command's key), so a
   * command sent again after a crash reuses its id and WhatsApp keeps one message, not two.
   */
  async send(cmd: SendCommand, opts: { messageId?: string } = {}): Promise<SendResult> {
    const jid = recipientJid(cmd);
    const content = await buildContent(cmd, this.deps.uploadsDir);
    const sock = this.sock;
    if (this._state !== 'open' || !sock) throw new RetryableError(`whatsapp connection ${this.connectionId} is not connected`);
    const options: Record<string, unknown> = {};
    if (opts.messageId) options.messageId = opts.messageId;
    if (cmd.quotedWid) {
      const known = this.recent.get(cmd.quotedWid);
      const key: WAMessageKey = known?.key ?? { id: cmd.quotedWid, remoteJid: jid, fromMe: false };
      options.quoted = { key, message: known?.message ?? { conversation: '' } };
    }
    let sent: WAMessage | undefined;
    try {
      sent = await sock.sendMessage(jid, content, options as never);
    } catch (err) {
      const code = disconnectCode(err);
      if (code !== undefined && code >= 400 && code < 500 && code !== 408 && code !== 428 && code !== 429) {
        throw new PermanentError(`WhatsApp refused the message (${code}): ${(err as Error).message}`, { cause: err });
      }
      throw new RetryableError(`sending failed: ${(err as Error)?.message ?? err}`, { cause: err });
    }
    const id = sent?.key?.id;
    if (!id) throw new RetryableError('WhatsApp returned no message id');
    this.sentIds.set(id, true);
    this.recent.set(id, { key: sent!.key, message: sent!.message });
    return { externalId: id };
  }

  /**
   * Changes a message of ours on WhatsApp: `{edit: body}` replaces its text (Baileys `edit`), `{delete: true}`
   * deletes it for everyone (Baileys `delete`). Throws RetryableError while not connected, PermanentError when
   * WhatsApp refuses it (4xx: too old to edit, not ours).
   */
  async change(ref: Pick<SendCommand, 'to' | 'isGroup' | 'remoteJid'> & { wid: string; fromMe: boolean }, what: { edit: string } | { delete: true }): Promise<void> {
    const jid = recipientJid({ ...ref, companyId: 0, messageId: 0, ticketId: 0, connectionId: null, channel: 'whatsapp' });
    const sock = this.sock;
    if (this._state !== 'open' || !sock) throw new RetryableError(`whatsapp connection ${this.connectionId} is not connected`);
    const key: WAMessageKey = this.recent.get(ref.wid)?.key ?? { remoteJid: jid, fromMe: ref.fromMe, id: ref.wid };
    const content = ('edit' in what ? { text: what.edit, edit: key } : { delete: key }) as unknown as AnyMessageContent;
    try {
      await sock.sendMessage(jid, content);
    } catch (err) {
      const code = disconnectCode(err);
      if (code !== undefined && code >= 400 && code < 500 && code !== 408 && code !== 428 && code !== 429) {
        throw new PermanentError(`WhatsApp refused the change (${code}): ${(err as Error).message}`, { cause: err });
      }
      throw new RetryableError(`changing the message failed: ${(err as Error)?.message ?? err}`, { cause: err });
    }
  }

  // ------------------------------------------------------------------ lifecycle internals

  private async connect(): Promise<void> {
    const gen = ++this.generation;
    this._state = 'connecting';
    // A code belongs to one socket: a reconnect before pairing asks again.
    this.pairingCode = undefined;
    let sock: SocketLike;
    try {
      const baileys = await (this.deps.baileys ?? loadBaileys)();
      this.auth = await usePostgresAuthState({ db: this.deps.db, companyId: this.companyId, connectionId: this.connectionId, baileys });
      const factory = this.deps.socketFactory ?? defaultSocketFactory;
      sock = await factory({
        companyId: this.companyId,
        connectionId: this.connectionId,
        auth: this.auth.state,
        logger: this.baileysLogger(),
        getMessage: async (key) => (key.id ? (this.recent.get(key.id)?.message ?? undefined) : undefined),
      });
    } catch (err) {
      if (gen !== this.generation) return;
      this.log.warn({ err }, 'whatsapp: creating the socket failed');
      await this.onClose(gen, undefined);
      return;
    }
    if (gen !== this.generation || this._state !== 'connecting') {
      // Stopped while the socket was being created.
      try {
        sock.end?.(undefined);
      } catch {
        /* ignore */
      }
      return;
    }
    this.sock = sock;
    this.unsubscribe = sock.ev.process((events) => this.onEvents(gen, events));
  }

  /**
   * Event batches of a socket. Connection and credential events are handled one batch after another (a
   * close is only looked at once the previous open is fully handled); message events go to their own queue
   * (media downloads must not hold up connection handling). Nothing escapes: errors are logged.
   */
  private onEvents(gen: number, events: Partial<BaileysEventMap>): Promise<void> {
    if (gen !== this.generation) return Promise.resolve();
    this.lastEventAt = Date.now();
    const history = events['messaging-history.set'];
    if (history) {
      this.queue = this.queue.then(() => this.onHistory(history)).catch((err: unknown) => this.log.error({ err }, 'whatsapp: history sync handling failed'));
    }
    for (const name of MESSAGE_EVENTS) {
      if (events[name] !== undefined) {
        const data = events[name];
        this.queue = this.queue.then(() => this.onMessages(name, data)).catch((err: unknown) => this.log.error({ err, event: name }, 'whatsapp: event handling failed'));
      }
    }
    const creds = events['creds.update'];
    const conn = events['connection.update'];
    if (!creds && !conn) return Promise.resolve();
    const run = this.control.then(async () => {
      if (creds && this.auth && gen === this.generation) {
        Object.assign(this.auth.state.creds, creds);
        await this.auth.saveCreds();
      }
      if (conn) await this.onConnectionUpdate(gen, conn);
    });
    this.control = run.catch((err: unknown) => void this.log.error({ err }, 'whatsapp: connection event handling failed'));
    return this.control;
  }

  private async onConnectionUpdate(gen: number, u: Partial<BaileysEventMap['connection.update']>): Promise<void> {
    if (gen !== this.generation) return; // an old socket
    if (u.qr) {
      if (this.deps.pairingPhone && this.sock?.requestPairingCode) {
        if (this.pairingCode === undefined) {
          this.pairingCode = '';
          try {
            this.pairingCode = await this.sock.requestPairingCode(this.deps.pairingPhone);
          } catch (err) {
            this.log.warn({ err }, 'whatsapp: requesting a pairing code failed; showing the QR code');
          }
        }
        if (gen !== this.generation) return;
        if (this.pairingCode) await this.push({ status: 'PAIRING', qrcode: this.pairingCode, retries: this.failures });
        else await this.push({ status: 'qrcode', qrcode: u.qr, retries: this.failures });
      } else {
        await this.push({ status: 'qrcode', qrcode: u.qr, retries: this.failures });
      }
    }
    if (u.connection === 'connecting') await this.push({ status: 'OPENING', retries: this.failures });
    if (u.connection === 'open') {
      if (gen !== this.generation) return;
      this._state = 'open';
      this.failures = 0;
      this.quickRestarts = 0;
      const user = this.sock?.user ?? undefined;
      this.me = user ? { id: user.id, lid: user.lid, name: user.name } : undefined;
      this.startProbe(gen);
      const down = this.down;
      this.down = undefined;
      if (down) {
        const now = Date.now();
        this.gap = this.gapOpts.windowMs > 0 ? { from: down.gapFrom, to: now, until: now + this.gapOpts.windowMs, chats: new Set() } : undefined;
        this.alert({ kind: 'recovered', reason: 'reconnected', downMs: now - down.at });
      }
      await this.push({ status: 'CONNECTED', qrcode: '', retries: 0, number: user?.id ? jidUser(user.id) : undefined });
      const waiters = this.openWaiters;
      this.openWaiters = [];
      for (const w of waiters) w(true);
    }
    if (u.connection === 'close') await this.onClose(gen, disconnectCode(u.lastDisconnect?.error));
  }

  private async onClose(gen: number, code: number | undefined, why?: string): Promise<void> {
    if (gen !== this.generation || this._state === 'stopped') return;
    const wasOpen = this._state === 'open';
    this.detach();
    // A manual start or stop while this runs wins: nothing below may end the newer session.
    const current = this.generation;
    const stillOurs = () => current === this.generation && !this.stopping;
    const reason = why ?? (code !== undefined ? (DISCONNECT_REASONS[code] ?? String(code)) : 'unknown');
    if (code !== undefined && FINAL_CLEAR.has(code)) {
      this.log.warn({ code, reason }, 'whatsapp: session ended for good; auth state cleared');
      this.down = undefined;
      await this.clearAuth();
      await this.push({ status: 'DISCONNECTED', qrcode: '', retries: 0, reason });
      if (stillOurs()) {
        this.alert({ kind: 'needs-qr', reason });
        this.finish(reason);
      }
      return;
    }
    if (code !== undefined && FINAL_KEEP.has(code)) {
      this.log.warn({ code, reason }, 'whatsapp: session closed by WhatsApp; not reconnecting');
      this.down = undefined;
      await this.push({ status: 'DISCONNECTED', qrcode: '', retries: this.failures, reason });
      if (stillOurs()) {
        this.alert({ kind: 'closed', reason });
        this.finish(reason);
      }
      return;
    }
    if (code === 515 && this.quickRestarts < 3) {
      this.quickRestarts++;
      this.log.info({ code, reason }, 'whatsapp: restart required, reconnecting now');
      await this.connect();
      return;
    }
    this.failures++;
    if (wasOpen && !this.down) {
      const now = Date.now();
      this.down = { at: now, gapFrom: Math.min(now, this.lastEventAt || now) };
      this.alert({ kind: 'dropped', reason });
    }
    if (this.failures >= this.backoff.maxFailures) {
      this.log.warn({ code, reason, failures: this.failures }, 'whatsapp: too many failed attempts; TIMEOUT until a manual restart');
      await this.push({ status: 'TIMEOUT', qrcode: '', retries: this.failures, reason });
      if (stillOurs()) {
        this.down = undefined;
        this.alert({ kind: 'timeout', reason });
        this.finish('timeout');
      }
      return;
    }
    const delay = backoffDelay(this.failures, this.backoff, this.deps.random);
    this.log.info({ code, reason, failures: this.failures, delay }, 'whatsapp: connection closed, reconnecting after a delay');
    await this.push({ status: 'DISCONNECTED', qrcode: '', retries: this.failures, reason });
    if (!stillOurs() || (this._state as SessionState) !== 'idle') return;
    this._state = 'waiting';
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this._state === 'waiting') void this.connect();
    }, delay);
    this.timer.unref?.();
  }

  /** Tells the owner (never throws). */
  private alert(a: Omit<SessionAlert, 'at'>): void {
    try {
      this.deps.onAlert?.({ ...a, at: new Date().toISOString() });
    } catch (err) {
      this.log.error({ err }, 'whatsapp: onAlert failed');
    }
  }

  // ------------------------------------------------------------------ liveness

  private startProbe(gen: number): void {
    this.stopProbe();
    if (!(this.probeOpts.intervalMs > 0) || !this.sock?.query) return;
    this.probeMisses = 0;
    this.probeTimer = setInterval(() => void this.probeOnce(gen), this.probeOpts.intervalMs);
    this.probeTimer.unref?.();
  }

  private stopProbe(): void {
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.probeTimer = undefined;
    this.probeMisses = 0;
  }

  /**
   * One ping through the open socket. An answer resets the miss count; `maxMisses` misses in a row mean the
   * socket is connected but dead: it is closed as `livenessProbe` and the session reconnects with backoff.
   */
  async probeOnce(gen = this.generation): Promise<boolean> {
    const sock = this.sock;
    if (this.probing || gen !== this.generation || this._state !== 'open' || !sock?.query) return true;
    this.probing = true;
    let ok = false;
    try {
      const answer = await withTimeout(sock.query({ tag: 'iq', attrs: { to: '@s.whatsapp.net', type: 'get', xmlns: 'w:p' }, content: [{ tag: 'ping', attrs: {} }] }, this.probeOpts.timeoutMs), this.probeOpts.timeoutMs + 1000);
      ok = Boolean(answer) && answer?.attrs?.type !== 'error';
    } catch {
      ok = false;
    } finally {
      this.probing = false;
    }
    if (gen !== this.generation || this._state !== 'open') return true;
    if (ok) {
      this.probeMisses = 0;
      return true;
    }
    this.probeMisses++;
    this.log.warn({ misses: this.probeMisses, maxMisses: this.probeOpts.maxMisses }, 'whatsapp: the liveness ping got no answer');
    if (this.probeMisses < this.probeOpts.maxMisses) return true;
    this.log.warn('whatsapp: the socket is connected but dead (liveness probe); closing it and reconnecting');
    // onClose detaches the socket before its first await: the close event `end` may emit is ignored.
    const closing = this.onClose(gen, 408, 'livenessProbe');
    try {
      sock.end?.(Object.assign(new Error('liveness probe: no answer'), { output: { statusCode: 408 } }) as Error);
    } catch {
      /* already closed */
    }
    this.control = this.control.then(() => closing).catch((err: unknown) => void this.log.error({ err }, 'whatsapp: closing a dead socket failed'));
    await closing.catch(() => undefined);
    return false;
  }

  // ------------------------------------------------------------------ gap (history sync)

  /** After a reopening: asks the phone for the messages before the first one of a chat (once per chat). */
  private requestGap(messages: WAMessage[]): void {
    const gap = this.gap;
    const sock = this.sock;
    if (!gap || !sock?.fetchMessageHistory) return;
    if (Date.now() > gap.until) {
      this.gap = undefined;
      return;
    }
    for (const m of messages) {
      const jid = m?.key?.remoteJid;
      const ts = messageTimeMs(m);
      if (!jid || !m.key.id || ts === undefined || gap.chats.has(jid) || jid === 'status@broadcast') continue;
      if (gap.chats.size >= this.gapOpts.maxChats) return;
      gap.chats.add(jid);
      sock.fetchMessageHistory(this.gapOpts.count, m.key, ts).then(
        () => this.log.info({ chat: jid, gapFrom: new Date(gap.from).toISOString(), gapTo: new Date(gap.to).toISOString() }, 'whatsapp: asked the phone for the messages of the gap'),
        (err: unknown) => this.log.warn({ err, chat: jid }, 'whatsapp: asking for the messages of the gap failed'),
      );
    }
  }

  /** `messaging-history.set`: messages of an ON_DEMAND sync inside the gap are emitted like live ones. */
  private async onHistory(data: Partial<BaileysEventMap['messaging-history.set']>): Promise<void> {
    const gap = this.gap;
    if (!gap || Number(data.syncType) !== HISTORY_SYNC_ON_DEMAND) return;
    // A minute of slack before the gap: the old socket may have been dead before its last event.
    const inside = (data.messages ?? []).filter((m) => {
      const ts = messageTimeMs(m);
      return ts !== undefined && ts >= gap.from - 60_000 && ts <= gap.to;
    });
    this.log.info({ received: data.messages?.length ?? 0, inGap: inside.length }, 'whatsapp: history sync for the gap');
    if (inside.length) await this.onMessages('messages.upsert', { messages: inside, type: 'append' });
  }

  /** Detaches from the current socket: later events of it are ignored. */
  private detach(): void {
    this.generation++;
    this.stopProbe();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.sock = undefined;
    if (this._state === 'open' || this._state === 'connecting') this._state = 'idle';
  }

  private finish(reason: string): void {
    this.clearTimer();
    const first = this._state !== 'stopped';
    this._state = 'stopped';
    this.stopReason = reason;
    const waiters = this.openWaiters;
    this.openWaiters = [];
    for (const w of waiters) w(false);
    if (first) {
      try {
        this.deps.onStopped?.(reason);
      } catch (err) {
        this.log.error({ err }, 'whatsapp: onStopped failed');
      }
    }
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async clearAuth(): Promise<void> {
    try {
      if (this.auth) await this.auth.clear();
      else await this.deps.db('baileys_auth').where({ companyId: this.companyId, connectionId: this.connectionId }).del();
    } catch (err) {
      this.log.error({ err }, 'whatsapp: clearing the auth state failed');
    }
  }

  /** Pushes a status change (skipping exact repeats); a connection that no longer exists stops the session. */
  private push(update: SessionStatusUpdate): Promise<void> {
    // Writes apply in call order (a late CONNECTED must not overwrite a later DISCONNECTED).
    const run = this.pushes.then(() => this.pushNow(update));
    this.pushes = run.catch(() => undefined);
    return run;
  }

  private async pushNow(update: SessionStatusUpdate): Promise<void> {
    const clean = Object.fromEntries(Object.entries(update).filter(([, v]) => v !== undefined)) as typeof update;
    const last = this.lastPushed;
    if (Object.entries(clean).every(([k, v]) => last[k] === v)) return;
    this.lastPushed = { ...last, ...clean };
    try {
      await this.deps.connections.updateStatus(this.companyId, this.connectionId, clean);
    } catch (err) {
      if ((err as { code?: string })?.code === 'ERR_NO_WAPP_FOUND') {
        this.log.info('whatsapp: the connection no longer exists; stopping the session');
        this.clearTimer();
        const sock = this.sock;
        this.detach();
        try {
          sock?.end?.(undefined);
        } catch {
          /* ignore */
        }
        this.finish('deleted');
        return;
      }
      this.lastPushed = {};
      this.log.error({ err, status: update.status }, 'whatsapp: status update failed');
    }
  }

  private baileysLogger(): BaileysLogger {
    try {
      return this.log.child({ lib: 'baileys' }, { level: 'warn' });
    } catch {
      return this.log;
    }
  }

  // ------------------------------------------------------------------ inbound

  private async onMessages(event: (typeof MESSAGE_EVENTS)[number], data: unknown): Promise<void> {
    const raws = new Map<string, WAMessage>();
    if (event === 'messages.upsert') {
      for (const m of ((data as { messages?: WAMessage[] })?.messages ?? []) as WAMessage[]) {
        if (m?.key?.id) {
          raws.set(m.key.id, m);
          this.recent.set(m.key.id, { key: m.key, message: m.message });
        }
      }
      if (this.gap && (data as { type?: string })?.type !== 'append') this.requestGap(((data as { messages?: WAMessage[] })?.messages ?? []) as WAMessage[]);
    }
    const envelopes = normalizeEvent(event, data, {
      companyId: this.companyId,
      connectionId: this.connectionId,
      receivedAt: new Date().toISOString(),
      me: this.me,
      onSkip: (reason, detail) => this.log.debug({ reason, ...detail }, 'whatsapp: event item skipped'),
    }).filter((e) => {
      if (e.thread.isGroup && !this.allowGroup) return false;
      // Our own sends come back as upserts: the pipeline already has them.
      if (e.kind === 'message' && e.direction === 'out' && this.sentIds.has(e.externalId)) return false;
      return true;
    });
    if (!envelopes.length) return;
    for (const e of envelopes) {
      if (e.kind === 'message' && e.content?.media) {
        const raw = raws.get(e.externalId);
        if (raw) await this.storeMedia(e, raw);
      }
    }
    await this.emitWithRetry(envelopes);
  }

  /** Downloads and stores the media of a message envelope; on failure keeps the envelope without a file. */
  private async storeMedia(envelope: Envelope, raw: WAMessage): Promise<void> {
    const media = envelope.content!.media!;
    const uploads = this.deps.uploads;
    if (!uploads) return;
    const sock = this.sock;
    try {
      if (!sock) throw new Error('socket closed');
      const download = this.deps.download ?? defaultMediaDownloader;
      const bytes = await withTimeout(download(raw, sock, this.baileysLogger()), this.deps.mediaTimeoutMs ?? 60_000);
      if (!bytes?.length) throw new Error('empty media');
      const stored = await uploads.save(
        this.companyId,
        MEDIA_AREA,
        { file: Readable.from([bytes]), filename: media.fileName ?? `${envelope.externalId}`, mimetype: media.mimeType ?? 'application/octet-stream' },
        { allow: INBOUND_MEDIA_TYPES },
      );
      media.path = stored.path;
      media.size = stored.size;
      if (!media.fileName) media.fileName = stored.fileName;
    } catch (err) {
      this.log.warn({ err, messageId: envelope.externalId }, 'whatsapp: media download failed; kept the message without its file');
    }
  }

  private async emitWithRetry(envelopes: Envelope[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.deps.emit(envelopes);
        return;
      } catch (err) {
        if (attempt >= 3) {
          this.log.error({ err, ids: envelopes.map((e) => e.idempotencyKey) }, 'whatsapp: publishing envelopes failed');
          return;
        }
        await new Promise((r) => setTimeout(r, 200 * attempt));
      }
    }
  }
}

/** Rejects after `ms` unless `p` settles first. */
function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    t.unref?.();
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}

/** Numbers per `onWhatsApp` query. */
const CHECK_CHUNK = 50;

/** The other form of a Brazilian mobile number: with the ninth digit removed, or added (WhatsApp keeps older accounts without it). */
function brVariants(n: string): string[] {
  if (!n.startsWith('55')) return [];
  if (n.length === 13 && n[4] === '9') return [n.slice(0, 4) + n.slice(5)];
  if (n.length === 12 && /[6-9]/.test(n[4])) return [`${n.slice(0, 4)}9${n.slice(4)}`];
  return [];
}

/** A message's time in milliseconds (`messageTimestamp` is in seconds: a number, a digit string or a Long). */
function messageTimeMs(m: WAMessage | undefined): number | undefined {
  const t = m?.messageTimestamp as unknown;
  const n = typeof t === 'number' ? t : typeof t === 'string' ? Number(t) : t && typeof (t as { toNumber?: unknown }).toNumber === 'function' ? (t as { toNumber(): number }).toNumber() : Number(t);
  return Number.isFinite(n) && n > 0 ? n * 1000 : undefined;
}
