import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Knex } from 'knex';
import type { FastifyBaseLogger } from 'fastify';
import { AppError, inboundTopic, type Bus, type Envelope, type Subscription, type UploadService } from '@atendo/sdk';
import type { ConnectionsService } from '@atendo/plugin-connections/contract';
import {
  clearAuthState,
  SessionManager,
  type BackoffOptions,
  type BaileysModule,
  type GapSyncOptions,
  type MediaDownloader,
  type ProbeOptions,
  type SessionAlert,
  type SessionLogger,
  type SocketFactory,
} from '@atendo/channel-whatsapp';
import { SessionLeases, type LeaseTimings, type OrphanLease } from './leases';
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
  /** Liveness probe and gap history sync of each session (see `SessionManager`). */
  probe?: Partial<ProbeOptions>;
  gapSync?: Partial<GapSyncOptions>;
  /** A session's alert (dropped, recovered, needs-qr, closed, timeout). */
  onAlert?(companyId: number, connectionId: number, alert: SessionAlert): void | Promise<void>;
  /** Lease timings (see `SessionLeases`). */
  leases?: Partial<LeaseTimings>;
  /** Take over the sessions of dead nodes (expired leases). Default true. */
  takeOver?: boolean;
  /** Called with each session a node starts or stops (the outbound consumer follows them). */
  onSessionStarted?(connectionId: number): void | Promise<void>;
  onSessionStopped?(connectionId: number): void | Promise<void>;
}

/**
 * The sessions of this node (DESIGN.md §4): at most one `SessionManager` per connection across all nodes,
 * guarded by a lease in PostgreSQL held while the session runs (`SessionLeases`; a dead node's sessions are
 * taken over by a live one). A command for a connection another node owns is forwarded to it on the bus
 * (`whatsapp.session.command`, broadcast). Inbound envelopes are published on `channel.inbound.whatsapp.<kind>`
 * with message id = idempotency key.
 */
export class WhatsappSessions implements WhatsappSessionsService {
  /** This process's id in the lease table: host, pid and a random part. */
  readonly nodeId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly sessions = new Map<number, SessionManager>();
  readonly leases: SessionLeases;
  private readonly log: FastifyBaseLogger;
  private subscription: Subscription | undefined;
  private closed = false;

  constructor(private readonly opts: WhatsappSessionsOptions) {
    this.log = opts.log;
    this.leases = new SessionLeases({
      db: opts.db,
      log: opts.log,
      nodeId: this.nodeId,
      timings: opts.leases,
      takeOver: opts.takeOver,
      onLost: (ids) => this.onLeasesLost(ids),
      onOrphans: (orphans) => this.takeOver(orphans),
    });
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

  /** True when another node holds the connection's session lease. */
  ownedElsewhere(connectionId: number): Promise<boolean> {
    return this.leases.heldElsewhere(connectionId);
  }

  /** Subscribes to forwarded commands (every node gets every command; the owner acts) and starts the leases' renewal and takeover scan. */
  async listen(): Promise<void> {
    this.leases.start();
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
    if (!(await this.leases.tryAcquire(id, companyId))) {
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
        await this.leases.release(id, 'delete');
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

  /**
   * Stops every local session without logging out or changing statuses (shutdown) and hands their leases
   * over: they expire now, and another node (if any) takes the sessions over at its next scan.
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.subscription?.unsubscribe().catch(() => undefined);
    const all = [...this.sessions.values()];
    await Promise.all(all.map((s) => s.stop({ reason: 'shutdown' }).catch(() => undefined)));
    await this.leases.close();
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
        if (!(await this.leases.tryAcquire(connectionId, companyId))) return;
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
      probe: o.probe,
      gapSync: o.gapSync,
      onAlert: (alert) => {
        void Promise.resolve(o.onAlert?.(companyId, id, alert)).catch((err: unknown) => this.log.error({ err, connectionId: id }, 'whatsapp-sessions: onAlert failed'));
      },
      emit: (envelopes) => this.publish(envelopes),
      onStopped: (reason) => {
        if (this.sessions.get(id) === session) this.sessions.delete(id);
        // Shutdown: another node goes on with it; a lost lease belongs to another node; else it ended for good.
        void this.leases.release(id, reason === 'shutdown' ? 'handover' : reason === 'lease-lost' ? 'forget' : 'delete');
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

  /** Leases this node lost (another node took them, or they could not be renewed): stop those sessions quietly. */
  private onLeasesLost(ids: number[]): void {
    for (const id of ids) {
      const s = this.sessions.get(id);
      if (!s) continue;
      this.sessions.delete(id);
      void s.stop({ reason: 'lease-lost' }).catch((err: unknown) => this.log.error({ err, connectionId: id }, 'whatsapp-sessions: stopping a session whose lease was lost failed'));
    }
  }

  /** Expired leases (their node died or shut down): start those sessions here, when this node gets the lease. */
  private async takeOver(orphans: OrphanLease[]): Promise<void> {
    for (const o of orphans) {
      if (this.closed) return;
      try {
        if ((await this.run(o.companyId, o.connectionId, 'start', { forward: false })) === 'local') {
          this.log.info({ connectionId: o.connectionId, companyId: o.companyId, nodeId: this.nodeId }, 'whatsapp-sessions: took over a session whose node stopped renewing its lease');
        }
      } catch (err) {
        this.log.error({ err, connectionId: o.connectionId }, 'whatsapp-sessions: taking a session over failed');
      }
    }
  }
}
