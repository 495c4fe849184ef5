import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { FastifyBaseLogger } from 'fastify';
import { AppError, inboundTopic, type Bus, type Envelope, type Subscription, type UploadService } from '@atendo/sdk';
import type { ConnectionsService } from '@atendo/plugin-connections/contract';
import {
  clearAuthState,
  SessionManager,
  type BackoffOptions,
  type BaileysModule,
  type MediaDownloader,
  type SessionLogger,
  type SocketFactory,
} from '@atendo/channel-whatsapp';
import { SessionLocks } from './locks';
import { sessionCommand, type SessionAction, type WhatsappSessionsService } from './contract';

export interface WhatsappSessionsOptions {
  db: Knex;
  bus: Bus;
  log: FastifyBaseLogger;
  connections: ConnectionsService;
  uploads?: Pick<UploadService, 'save'>;
  uploadsDir?: string;
  socketFactory?: SocketFactory;
  download?: MediaDownloader;
  baileys?: () => Promise<BaileysModule>;
  backoff?: Partial<BackoffOptions>;
  random?: () => number;
  /** Called with each session a node starts or stops (the outbound consumer follows them). */
  onSessionStarted?(connectionId: number): void | Promise<void>;
  onSessionStopped?(connectionId: number): void | Promise<void>;
}

/**
 * The sessions of this node (DESIGN.md §4): at most one `SessionManager` per connection across all nodes,
 * guarded by a PostgreSQL advisory lock held while the session runs (`SessionLocks`). A command for a
 * connection another node owns is forwarded to it on the bus (`whatsapp.session.command`, broadcast).
 * Inbound envelopes are published on `channel.inbound.whatsapp.<kind>` with message id = idempotency key.
 */
export class WhatsappSessions implements WhatsappSessionsService {
  readonly nodeId = randomUUID();
  private readonly sessions = new Map<number, SessionManager>();
  private readonly locks: SessionLocks;
  private readonly log: FastifyBaseLogger;
  private subscription: Subscription | undefined;
  private closed = false;

  constructor(private readonly opts: WhatsappSessionsOptions) {
    this.log = opts.log;
    this.locks = new SessionLocks(opts.db, opts.log, (ids) => this.onLocksLost(ids));
  }

  /** The session this node runs for `connectionId` (undefined when none, or another node owns it). */
  get(connectionId: number): SessionManager | undefined {
    return this.sessions.get(connectionId);
  }

  /**
   * The campaigns' number check (`campaigns.number-checkers`): for each number, true / false as WhatsApp
   * answered through connection `connectionId` of `companyId`, or null when it cannot be asked here (the
   * session does not run on this node, belongs to another company, or is not open). Never throws.
   */
  async checkNumbers(companyId: number, connectionId: number, numbers: string[]): Promise<Map<string, boolean | null>> {
    const session = this.sessions.get(connectionId);
    if (!session || session.companyId !== companyId) return new Map(numbers.map((n) => [n, null]));
    return session.checkNumbers(numbers);
  }

  /** Connection ids whose sessions run on this node. */
  localIds(): number[] {
    return [...this.sessions.keys()];
  }

  /** True when another node holds the connection's session lock. */
  ownedElsewhere(connectionId: number): Promise<boolean> {
    return this.locks.heldElsewhere(connectionId);
  }

  /** Subscribes to forwarded commands (every node gets every command; the owner acts). */
  async listen(): Promise<void> {
    this.subscription = await this.opts.bus.subscribe(
      sessionCommand,
      async (m) => {
        const c = m.payload;
        if (!c || c.origin === this.nodeId || !this.sessions.has(c.id)) return;
        await this.run(c.companyId, c.id, c.action, { forward: false, phone: c.phone });
      },
      { broadcast: true },
    );
  }

  /**
   * Checks that `id` is a WhatsApp (Baileys) connection of `companyId`: 404 ERR_NO_WAPP_FOUND for unknown
   * ids and other companies' ids, 400 ERR_VALIDATION for connections of another channel.
   */
  async assertWhatsapp(companyId: number, id: number): Promise<void> {
    const conn = await this.opts.connections.get(companyId, id);
    if (!conn) throw new AppError('ERR_NO_WAPP_FOUND');
    if (conn.channel !== 'whatsapp') throw new AppError('ERR_VALIDATION', 'Sessions exist only for WhatsApp (QR code) connections');
  }

  /**
   * Runs `action` for a connection: here when this node runs its session or can take its lock, else (with
   * `forward`, the default) on the owning node through the bus. Answers where it ran. The caller checks the
   * connection first (`assertWhatsapp`).
   */
  async run(companyId: number, id: number, action: SessionAction, opts: { forward?: boolean; phone?: string } = {}): Promise<'local' | 'forwarded' | 'skipped'> {
    if (this.closed) return 'skipped';
    if (action === 'pair' && !opts.phone) throw new AppError('ERR_VALIDATION', 'pairing needs a phone number');
    const local = this.sessions.get(id);
    if (local && local.companyId !== companyId) throw new AppError('ERR_NO_WAPP_FOUND');
    if (local) {
      await this.act(local, action, opts.phone);
      return 'local';
    }
    if (!(await this.locks.tryAcquire(id))) {
      if (opts.forward === false) return 'skipped';
      await this.opts.bus.publish(sessionCommand, { companyId, id, action, origin: this.nodeId, ...(opts.phone ? { phone: opts.phone } : {}) });
      return 'forwarded';
    }
    if (action === 'disconnect') {
      // Nothing runs: clear what is stored, report, let the lock go.
      try {
        await clearAuthState(this.opts.db, companyId, id);
        await this.opts.connections.updateStatus(companyId, id, { status: 'DISCONNECTED', qrcode: '', retries: 0 });
      } finally {
        await this.locks.release(id);
      }
      return 'local';
    }
    if (action === 'reset' || action === 'pair') await clearAuthState(this.opts.db, companyId, id);
    const session = this.create(companyId, id, action === 'pair' ? opts.phone : undefined);
    await session.start();
    return 'local';
  }

  /** Starts, at boot, the sessions of every CONNECTED WhatsApp connection this node can lock. */
  async autostart(): Promise<number> {
    const rows = await this.opts.connections.listByChannelStatus('whatsapp', 'CONNECTED');
    let started = 0;
    for (const r of rows) {
      try {
        if ((await this.run(r.companyId, r.id, 'start', { forward: false })) === 'local') started++;
      } catch (err) {
        this.log.error({ err, connectionId: r.id }, 'whatsapp-sessions: autostart failed');
      }
    }
    return started;
  }

  /** A connection was deleted: its session (if here) logs out and stops. */
  async onDeleted(id: number): Promise<void> {
    const s = this.sessions.get(id);
    if (s) await s.stop({ logout: true, reason: 'deleted' });
  }

  /** A connection's settings changed (`allowGroup`). */
  async onUpdated(id: number): Promise<void> {
    await this.sessions.get(id)?.refreshSettings();
  }

  /** Stops every local session without logging out or changing statuses (shutdown), and frees the locks. */
  async close(): Promise<void> {
    this.closed = true;
    await this.subscription?.unsubscribe().catch(() => undefined);
    const all = [...this.sessions.values()];
    await Promise.all(all.map((s) => s.stop({ reason: 'shutdown' }).catch(() => undefined)));
    await this.locks.close();
  }

  // ------------------------------------------------------------------ internals

  private async act(session: SessionManager, action: SessionAction, phone?: string): Promise<void> {
    switch (action) {
      case 'start':
        await session.start();
        return;
      case 'restart':
        await session.restart();
        return;
      case 'disconnect':
        await session.stop({ logout: true, clear: true, status: 'DISCONNECTED', reason: 'disconnected' });
        return;
      case 'reset':
      case 'pair': {
        const { companyId, connectionId } = session;
        await session.stop({ logout: true, clear: true, reason: action });
        if (!(await this.locks.tryAcquire(connectionId))) return;
        await clearAuthState(this.opts.db, companyId, connectionId);
        await this.create(companyId, connectionId, action === 'pair' ? phone : undefined).start();
        return;
      }
    }
  }

  private create(companyId: number, id: number, pairingPhone?: string): SessionManager {
    const o = this.opts;
    const session: SessionManager = new SessionManager(companyId, id, {
      pairingPhone,
      db: o.db,
      connections: o.connections,
      log: o.log as unknown as SessionLogger,
      uploads: o.uploads,
      uploadsDir: o.uploadsDir,
      socketFactory: o.socketFactory,
      download: o.download,
      baileys: o.baileys,
      backoff: o.backoff,
      random: o.random,
      emit: (envelopes) => this.publish(envelopes),
      onStopped: () => {
        if (this.sessions.get(id) === session) this.sessions.delete(id);
        void this.locks.release(id);
        void Promise.resolve(o.onSessionStopped?.(id)).catch((err: unknown) => this.log.error({ err }, 'whatsapp-sessions: onSessionStopped failed'));
      },
    });
    this.sessions.set(id, session);
    void Promise.resolve(o.onSessionStarted?.(id)).catch((err: unknown) => this.log.error({ err }, 'whatsapp-sessions: onSessionStarted failed'));
    return session;
  }

  /** Publishes envelopes on `channel.inbound.whatsapp.<kind>`, message id = idempotency key. */
  private async publish(envelopes: Envelope[]): Promise<void> {
    for (const e of envelopes) await this.opts.bus.publish(inboundTopic(e), e, { id: e.idempotencyKey });
  }

  /** The lock connection died: stop those sessions quietly, then try to take them again. */
  private onLocksLost(ids: number[]): void {
    for (const id of ids) {
      const s = this.sessions.get(id);
      if (!s) continue;
      const { companyId } = s;
      this.sessions.delete(id);
      void s.stop({ reason: 'lock-lost' }).finally(() => {
        const t = setTimeout(() => {
          if (!this.closed) this.run(companyId, id, 'start', { forward: false }).catch((err: unknown) => this.log.error({ err, connectionId: id }, 'whatsapp-sessions: retaking a session failed'));
        }, 1000);
        t.unref?.();
      });
    }
  }
}
