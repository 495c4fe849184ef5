import { join } from 'node:path';
import { definePlugin, Type, type PluginDefinition, type Static } from '@atendo/sdk';
import { connectionCreated, connectionDeleted, connectionsService, connectionUpdated } from '@atendo/plugin-connections/contract';
import { type BackoffOptions, type BaileysModule, type MediaDownloader, type SocketFactory } from '@atendo/channel-whatsapp';
import { numberCheckers } from '@atendo/plugin-campaigns/contract';
import { notificationsService } from '@atendo/plugin-notifications/contract';
import { ConnectionAlerts, CONNECTION_ALERT_JOB } from './alerts';
import { errors, sessionCommand, whatsappSessionsService } from './contract';
import { WhatsappSessions } from './sessions';
import { OutboundConsumer, WHATSAPP_RETRY_JOB } from './outbound';
import { sessionRoutes } from './routes';

export type { WhatsappSessions } from './sessions';

/**
 * Config (env vars `WHATSAPP_SESSIONS_<KEY>`):
 * - `AUTOSTART` (boolean): start the sessions of CONNECTED connections at boot and of newly created
 *   WhatsApp connections. Default true, false when NODE_ENV=test.
 * - `SEND_MAX_RETRIES` (0..20, default 5), `SEND_RETRY_DELAY_MS` (default 2000), `SEND_OPEN_WAIT_MS`
 *   (default 5000): the outbound consumer's quick retries; `SEND_RETRY_HOURS` (default 24, also read from the plain
 *   `SEND_RETRY_HOURS`): how long a command is retried durably after them (see `OutboundConsumer`).
 * - `PROBE_INTERVAL_MS` (default 30000; 0 = off), `PROBE_TIMEOUT_MS` (default 10000), `PROBE_MAX_MISSES` (default 2):
 *   the liveness probe of open sessions ("connected but dead");
 * - `ALERT_DELAY_MS` (default 60000): how long a dropped connection may stay down before its admins are told;
 * - `GAP_SYNC_WINDOW_MS` (default 120000; 0 = off): after reopening, how long chats get history requests for the gap;
 * - `LEASE_TTL_MS` (default 20000), `LEASE_RENEW_MS` (default 5000), `LEASE_SCAN_MS` (default 5000): the
 *   session leases across nodes (see `SessionLeases`); a dead node's sessions move within TTL + SCAN.
 */
export const WhatsappSessionsConfig = Type.Object({
  /** Unset: true, except under NODE_ENV=test. */
  autostart: Type.Optional(Type.Boolean()),
  sendMaxRetries: Type.Integer({ minimum: 0, maximum: 20, default: 5 }),
  sendRetryDelayMs: Type.Integer({ minimum: 0, maximum: 600000, default: 2000 }),
  sendOpenWaitMs: Type.Integer({ minimum: 0, maximum: 120000, default: 5000 }),
  /** How long a command keeps being retried after its first attempt, hours (after the quick retries, durably). */
  sendRetryHours: Type.Number({ minimum: 0, maximum: 168, default: 24, env: 'SEND_RETRY_HOURS' }),
  /** Between two liveness pings of an open session, ms (0 turns the probe off). */
  probeIntervalMs: Type.Integer({ minimum: 0, maximum: 3600000, default: 30000 }),
  /** How long a liveness ping may take, ms. */
  probeTimeoutMs: Type.Integer({ minimum: 10, maximum: 120000, default: 10000 }),
  /** Unanswered pings in a row before an open session counts as dead and reconnects. */
  probeMaxMisses: Type.Integer({ minimum: 1, maximum: 20, default: 2 }),
  /** How long a dropped connection may stay down before its company's admins are told, ms (0: at once). */
  alertDelayMs: Type.Integer({ minimum: 0, maximum: 86400000, default: 60000 }),
  /** After a reconnection, how long chats with new messages get a history request for the gap, ms (0: off). */
  gapSyncWindowMs: Type.Integer({ minimum: 0, maximum: 3600000, default: 120000 }),
  /** A session lease lasts this long without renewal, ms (a dead node's sessions are free after it). */
  leaseTtlMs: Type.Integer({ minimum: 200, maximum: 600000, default: 20000 }),
  /** How often a node renews its session leases, ms (must be below LEASE_TTL_MS; a third of it or less is advised). */
  leaseRenewMs: Type.Integer({ minimum: 50, maximum: 300000, default: 5000 }),
  /** How often a node looks for expired session leases to take over, ms. */
  leaseScanMs: Type.Integer({ minimum: 50, maximum: 300000, default: 5000 }),
});
export type WhatsappSessionsConfig = Static<typeof WhatsappSessionsConfig>;

/** Injection points (tests): the socket factory, media download, Baileys module, reconnection policy. */
export interface WhatsappSessionsPluginOptions {
  socketFactory?: SocketFactory;
  download?: MediaDownloader;
  baileys?: () => Promise<BaileysModule>;
  backoff?: Partial<BackoffOptions>;
  random?: () => number;
  /** Overrides the `AUTOSTART` config. */
  autostart?: boolean;
  /** Receives the running registry (tests reach the sessions through it). */
  onReady?(sessions: WhatsappSessions): void;
}

/**
 * The whatsapp-sessions plugin: WhatsApp Web (Baileys) sessions. Owns `baileys_auth`; serves
 * `/whatsappsession/:id` (POST start, PUT new QR, DELETE disconnect) and `/whatsapp-restart/`; runs one
 * session per connection across nodes (leases in PostgreSQL, taken over when a node dies); publishes inbound envelopes on
 * `channel.inbound.whatsapp.<kind>`; consumes `message.send` for channel 'whatsapp'; follows
 * `connection.created` / `connection.updated` / `connection.deleted`. Provides the `whatsapp-sessions` service
 * (contract: `./contract.ts`, `@atendo/plugin-whatsapp-sessions/contract`). This factory takes injection
 * points for tests (`@atendo/plugin-whatsapp-sessions/plugin`); `index.ts` exports the plugin it builds by
 * default. See README.md.
 */
export function createWhatsappSessionsPlugin(options: WhatsappSessionsPluginOptions = {}): PluginDefinition<WhatsappSessionsConfig> {
  return definePlugin<WhatsappSessionsConfig>({
    id: 'whatsapp-sessions',
    dependsOn: ['connections'],
    // Campaigns, when installed, check their list numbers through the sessions (`campaigns.number-checkers`).
    // Notifications, when installed, tell the admins about connections that drop or need a new QR code.
    optionalDependsOn: ['campaigns', 'notifications'],
    errors,
    topics: [sessionCommand],
    migrationsDir: join(__dirname, '..', 'migrations'),
    configSchema: WhatsappSessionsConfig,
    async register(ctx) {
      const connections = ctx.services.get(connectionsService);
      const cfg = ctx.config;
      const autostart = options.autostart ?? cfg.autostart ?? ctx.kernel.nodeEnv !== 'test';
      let outbound: OutboundConsumer | undefined;
      const alerts = new ConnectionAlerts({
        jobs: ctx.jobs,
        log: ctx.log,
        connections,
        notifications: ctx.services.has(notificationsService) ? ctx.services.get(notificationsService) : undefined,
        dropDelayMs: cfg.alertDelayMs,
      });
      ctx.jobs.handle(CONNECTION_ALERT_JOB, ({ data }) => alerts.run(data), { maxAttempts: 5 });
      if (cfg.leaseRenewMs >= cfg.leaseTtlMs) throw new Error('WHATSAPP_SESSIONS_LEASE_RENEW_MS must be below WHATSAPP_SESSIONS_LEASE_TTL_MS');
      const sessions = new WhatsappSessions({
        db: ctx.db,
        bus: ctx.bus,
        log: ctx.log,
        connections,
        uploads: ctx.uploads,
        uploadsDir: ctx.kernel.uploadsDir,
        socketFactory: options.socketFactory,
        download: options.download,
        baileys: options.baileys,
        backoff: options.backoff,
        random: options.random,
        probe: { intervalMs: cfg.probeIntervalMs, timeoutMs: cfg.probeTimeoutMs, maxMisses: cfg.probeMaxMisses },
        gapSync: { windowMs: cfg.gapSyncWindowMs },
        onAlert: (companyId, id, alert) => alerts.onAlert(companyId, id, alert),
        leases: { ttlMs: cfg.leaseTtlMs, renewMs: cfg.leaseRenewMs, scanMs: cfg.leaseScanMs },
        // A node that starts no session by itself (AUTOSTART off) does not take sessions over either.
        takeOver: autostart,
        onSessionStarted: (id) => outbound?.follow(id),
        onSessionStopped: (id) => outbound?.unfollow(id),
      });
      outbound = new OutboundConsumer({
        bus: ctx.bus,
        log: ctx.log,
        sessions,
        connections,
        maxRetries: cfg.sendMaxRetries,
        retryDelayMs: cfg.sendRetryDelayMs,
        openWaitMs: cfg.sendOpenWaitMs,
        sends: ctx.sends,
        jobs: ctx.jobs,
        retryWindowMs: cfg.sendRetryHours * 3_600_000,
      });
      const consumer = outbound;
      // Commands whose quick retries ran out are retried durably (registered before the worker starts).
      ctx.jobs.handle(WHATSAPP_RETRY_JOB, ({ data }) => consumer.retry(data), { maxAttempts: 3 });
      ctx.services.provide(whatsappSessionsService, sessions);
      if (ctx.extensions.has(numberCheckers)) {
        ctx.extensions.contribute(numberCheckers, { channel: 'whatsapp', check: (companyId, connectionId, numbers) => sessions.checkNumbers(companyId, connectionId, numbers) });
      }

      await sessions.listen();
      await outbound.start();
      const lifecycle = await ctx.bus.subscribe(
        [connectionCreated, connectionUpdated, connectionDeleted],
        async (m) => {
          const e = m.payload;
          if (!e || e.channel !== 'whatsapp') return;
          if (m.topic === connectionDeleted.name) await sessions.onDeleted(e.id);
          else if (m.topic === connectionUpdated.name) await sessions.onUpdated(e.id);
          else if (autostart) await sessions.run(e.companyId, e.id, 'start', { forward: false });
        },
        // Every node sees every event: the session's owner (or whoever takes the lock) acts.
        { broadcast: true },
      );
      ctx.onClose(async () => {
        await lifecycle.unsubscribe().catch(() => undefined);
        await outbound!.close();
        await sessions.close();
      });

      await sessionRoutes(ctx.app, { sessions, listConnections: (companyId) => connections.list(companyId) });

      if (autostart) {
        // After boot, without holding it up: sockets connect in the background.
        ctx.app.addHook('onReady', async () => {
          void sessions
            .autostart()
            .then((n) => ctx.log.info({ started: n }, 'whatsapp-sessions: sessions started'))
            .catch((err: unknown) => ctx.log.error({ err }, 'whatsapp-sessions: autostart failed'));
        });
      }
      options.onReady?.(sessions);
    },
  });
}

