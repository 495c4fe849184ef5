import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import multipart from '@fastify/multipart';
import type { Knex } from 'knex';
import { audienceResolvers, chatBoxGuards, CHANNEL_TOPICS, companyChanged, identityService, referencesService, createReferences, userExtensions, planChanged, resetCodeIssued, sessionsChanged, type AuthUser, type Bus, type PluginContext, type PluginDefinition, type Topic, type TypeBoxTypeProvider } from '@atendo/sdk';
import { loadConfig, type KernelConfig, type RawConfig } from './config';
import { createKnex, migrate, startEmbeddedPostgres, type EmbeddedServer } from './db';
import { createBus, InProcessBus } from './bus';
import { Outbox, OutboxBus } from './bus/outbox';
import { KernelSendLedger } from './bus/send-ledger';
import { DurableInbox, scopedInbox } from './inbox/inbox';
import { DeadLetterStore } from './inbox/dead-letters';
import { Identity } from './identity/service';
import { setFlagsFromString } from 'node:v8';
import { frameworkErrors, installErrorHandlers } from './plugins/errors';
import { registerAuth } from './plugins/auth';
import { RealtimeHub } from './plugins/realtime';
import { LgpdPolicy } from './plugins/lgpd';
import type { CookieSession } from './plugins/socket-sessions';
import { checkDeclarations, discoverPlugins, Extensions, loadDefinition, pluginEnv, Services, sortPlugins } from './plugins/loader';
import { registerCoreRoutes } from './routes';
import { seedPlatform } from './seed';
import { installValidators } from './plugins/validation';
import { UploadStore, uploadRoutes } from './uploads';
import { findPackageDir, findWorkspaceRoot } from './runtime/paths';
import { KernelLogController, loggerOptions, requestId } from './logging';
import { KernelMetrics } from './metrics';
import { AuditLog } from './audit';
import { operationsRoutes, type ProbedBus } from './routes/operations';
import { deadLetterRoutes } from './routes/dead-letters';
import { SessionStore } from './auth/sessions';
import { RateLimits } from './auth/rate-limit';
import { SessionGuard } from './auth/session-guard';
import { REFRESH_COOKIE } from './routes/auth';
import { PLATFORM_COMPANY_ID } from './identity/defaults';
import { JobScheduler } from './jobs/scheduler';

/** The repository root (found upward, so it is the same from src/ under tsx and from dist/src/ when built). */
export const ROOT_DIR = findWorkspaceRoot(__dirname);
export const KERNEL_MIGRATIONS = join(__dirname, 'migrations');
export const VERSION: string = (JSON.parse(readFileSync(join(findPackageDir(__dirname), 'package.json'), 'utf8')) as { version: string }).version;

/** Bus topics the kernel owns (declared in the SDK); a plugin listing one of them in `topics` refuses boot. */
export const KERNEL_TOPICS: readonly Topic<unknown>[] = [...CHANNEL_TOPICS, resetCodeIssued, planChanged, companyChanged, sessionsChanged];

/** The Content-Security-Policy of the OpenAPI UI at /docs (computed once). */
export const DOCS_CSP = [
  "default-src 'none'",
  "base-uri 'none'",
  "connect-src 'self'",
  "font-src 'self' data:",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self' 'unsafe-inline'",
].join('; ');

/**
 * The security headers of every API answer (helmet's defaults for a JSON API; no Content-Security-Policy:
 * /docs sets its own, uploads theirs), as one frozen object built at load time. Cross-Origin-Resource-Policy
 * is `cross-origin`: the web UI on another origin loads media from the API.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'cross-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
});

export interface KernelOptions {
  /** Env to read config from (default process.env). */
  env?: Record<string, string | undefined>;
  /** Config values that win over env. */
  config?: Partial<RawConfig>;
  /** Plugins to load: definitions, or `discover` (default) to load every plugin package in node_modules. */
  plugins?: PluginDefinition[] | 'discover';
  /** Fastify logger option (default: the kernel's, see logging.ts, at LOG_LEVEL). */
  logger?: FastifyServerOptions['logger'];
  /** With the default logger: write the lines here instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
  /** Skip migrations (tests on a template database that is already migrated). */
  skipMigrations?: boolean;
  /** Skip the first-start seed. */
  skipSeed?: boolean;
  /** Called when the kernel cannot go on (the embedded PostgreSQL cannot be kept running); default: log and exit(1). */
  onFatal?: (err: Error) => void;
}

export interface Kernel {
  app: FastifyInstance;
  /** The node's Prometheus registry (GET /metrics); kernel code adds its metrics here. */
  metrics: KernelMetrics;
  config: KernelConfig;
  db: Knex;
  bus: Bus;
  identity: Identity;
  realtime: RealtimeHub;
  services: Services;
  plugins: PluginDefinition[];
  /** The durable job scheduler behind every `ctx.jobs`; `jobs.lag()` reports how late jobs start. */
  jobs: JobScheduler;
  /** The durable inbox behind every `ctx.inbox`. */
  inbox: DurableInbox;
  /** The transactional outbox behind every `ctx.bus.publish`. */
  outbox: Outbox;
  /** Sign-in lines to print once, on the start that seeded the platform. */
  firstStartCredentials?: string[];
  close(): Promise<void>;
}

/**
 * The request URL with the slashes ending its path removed (`/queue/?pageNumber=1` -> `/queue?pageNumber=1`;
 * `/` stays): every route answers the same with and without a trailing slash.
 */
export function withoutTrailingSlash(url: string): string {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (path.length <= 1 || !path.endsWith('/')) return url;
  const trimmed = path.replace(/\/+$/, '') || '/';
  return q === -1 ? trimmed : trimmed + url.slice(q);
}

/**
 * Builds the kernel in boot order: config -> database (+ kernel migrations) -> bus -> HTTP plumbing
 * (errors, CORS, security headers, cookies, uploads, OpenAPI) -> auth -> realtime -> core routes ->
 * plugins (discover, sort by dependsOn, migrate, register) -> seed -> job worker (handlers of the kernel
 * and of every plugin are registered by then). The server is not listening yet.
 */
export async function buildKernel(opts: KernelOptions = {}): Promise<Kernel> {
  const config = loadConfig(opts.env ?? process.env, opts.config);
  // Process-wide, read by V8 at each major GC: set before the kernel allocates its working set.
  if (config.HEAP_GROWING_PERCENT > 0) setFlagsFromString(`--heap-growing-percent=${config.HEAP_GROWING_PERCENT}`);
  const app = Fastify({
    logger: opts.logger ?? (opts.logStream ? { ...loggerOptions({ ...config, LOG_FORMAT: 'json' }), stream: opts.logStream } : loggerOptions(config)),
    logController: new KernelLogController(),
    genReqId: requestId,
    bodyLimit: config.BODY_LIMIT,
    // TRUST_PROXY (off by default): only the configured proxies may say who the client is (req.ip).
    // (A hop count as the function Fastify itself would make of it: its typings take no number.)
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    // On close: idle keep-alive connections end at once, requests in flight are answered first (new ones
    // get 503); socket.io's sockets are disconnected in preClose below.
    forceCloseConnections: 'idle',
    // `/queue/` and `/queue/?pageNumber=1` (as the family's clients call list routes) reach `/queue`, not
    // `/queue/:id` with an empty id: one rule for every route of the kernel and of every plugin. (A rewrite
    // rather than the router's ignoreTrailingSlash, which refuses the `/x` + `/x/` pairs plugins register.)
    rewriteUrl: (req) => withoutTrailingSlash(req.url ?? '/'),
    frameworkErrors,
  });
  // While closing, answers end their keep-alive connection, so that the server can close once the
  // requests in flight are answered.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (req, reply, payload) => {
    void reply.header('x-request-id', req.id);
    if (closing) void reply.header('connection', 'close');
    return payload;
  });
  const metrics = new KernelMetrics();
  metrics.instrumentHttp(app);
  const closers: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const c of closers.reverse()) {
      try {
        await c();
      } catch (err) {
        app.log.error({ err }, 'error while closing');
      }
    }
  };

  try {
    // ---- database
    let embedded: EmbeddedServer | undefined;
    let dbUrl = config.DATABASE_URL;
    if (!dbUrl) {
      embedded = await startEmbeddedPostgres(join(config.dataDir, 'pg'), config.EMBEDDED_PG_PORT, 'atendo', app.log, {
        // Restarted whenever it dies, with backoff, for as long as the kernel runs (requests answer 503 meanwhile).
        maxBackoffMs: config.EMBEDDED_PG_MAX_BACKOFF_MS,
        onGiveUp: opts.onFatal ?? ((err) => {
          app.log.fatal({ err }, 'embedded PostgreSQL cannot be kept running: exiting so that the process supervisor starts the kernel again');
          process.exit(1);
        }),
      });
      dbUrl = embedded.url;
      closers.push(() => embedded!.stop());
      app.log.info({ dir: join(config.dataDir, 'pg') }, 'embedded PostgreSQL started');
    }
    // Self-connections dropped, reconnects backed off with jitter while the database is down (db-connect.ts).
    const connect = { connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS, reconnectMaxMs: config.DB_RECONNECT_MAX_MS, log: app.log };
    const db = createKnex(dbUrl, config.DB_POOL_MAX, app.log, connect);
    closers.push(() => db.destroy());
    if (!opts.skipMigrations) await migrate(db, 'kernel', KERNEL_MIGRATIONS);
    // ---- durable jobs (graphile-worker's schema, migrated by the library itself)
    const jobs = new JobScheduler({
      db,
      databaseUrl: dbUrl,
      log: app.log,
      concurrency: config.JOBS_CONCURRENCY,
      pollIntervalMs: config.JOBS_POLL_INTERVAL_MS,
      shutdownTimeoutMs: config.JOBS_SHUTDOWN_TIMEOUT_MS,
      heartbeatMs: config.JOBS_HEARTBEAT_MS,
      deadAfterMs: config.JOBS_DEAD_AFTER_MS,
      connect,
    });
    // Closes its pool if boot fails before the worker starts (stop is idempotent: see the closer below).
    closers.push(() => jobs.stop());
    if (!opts.skipMigrations) await jobs.migrate();
    // Scheduler lag for /metrics: how late jobs start on this node, and how long due jobs have waited.
    metrics.gauge({
      name: 'atendo_jobs_lag_seconds',
      help: 'Job scheduler lag (seconds): last and max start lateness on this node, oldest due job waiting (all nodes)',
      labelNames: ['measure'],
      collect: async (g) => {
        const lag = await jobs.lag().catch(() => undefined);
        if (!lag) return;
        g.set({ measure: 'last' }, lag.lastSeconds ?? 0);
        g.set({ measure: 'max' }, lag.maxSeconds);
        g.set({ measure: 'oldest_due' }, lag.oldestDueSeconds);
      },
    });
    metrics.gauge({ name: 'atendo_jobs_due', help: 'Jobs due now and not started yet (all nodes)', collect: async (g) => {
      const lag = await jobs.lag().catch(() => undefined);
      if (lag) g.set({}, lag.due);
    } });

    // ---- bus (counted for /metrics; the raw bus answers /ready's probe and the queue depths)
    // In-process dead letters are kept in PostgreSQL (bus_dead_letters) for `npm run redrive`.
    const deadLetters = new DeadLetterStore(db, app.log);
    const rawBus = (await createBus({
      amqpUrl: config.AMQP_URL,
      exchange: config.AMQP_EXCHANGE,
      logger: app.log,
      maxQueueLength: config.BUS_MAX_QUEUE_LENGTH,
      deadLetterSink: deadLetters.sink,
    })) as ProbedBus;
    closers.push(() => rawBus.close());
    closers.push(async () => deadLetters.stop());
    // ---- transactional outbox: plugins publish through it (see bus/outbox.ts); stopped after the plugins and
    // before the bus (closers run in reverse).
    const outbox = new Outbox({
      db,
      bus: rawBus,
      log: app.log,
      singleNode: rawBus instanceof InProcessBus && rawBus.privateBroker,
      leaseMs: config.OUTBOX_LEASE_MS,
      maxHeld: config.OUTBOX_MAX_HELD,
    });
    closers.push(() => outbox.stop(config.SHUTDOWN_GRACE_MS));
    const bus = metrics.instrumentBus(new OutboxBus(rawBus, outbox, (queue) => deadLetters.forQueue(queue)));
    metrics.gauge({ name: 'atendo_outbox_held', help: 'Transactional outbox: events this node holds while publishing them', collect: (g) => g.set({}, outbox.holding) });
    const sendLedger = new KernelSendLedger(db);
    metrics.gauge({
      name: 'atendo_bus_queue_depth',
      help: 'Messages waiting in each named bus queue this node consumes',
      labelNames: ['queue'],
      collect: async (g) => {
        for (const [queue, depth] of Object.entries(await rawBus.queueDepths(config.READY_TIMEOUT_MS))) g.set({ queue }, depth);
      },
    });

    // ---- durable inbox (webhooks are committed before they are answered; see inbox/inbox.ts)
    const singleNode = rawBus instanceof InProcessBus && rawBus.privateBroker;
    const inbox = new DurableInbox({
      db,
      log: app.log,
      bus: rawBus,
      singleNode,
      maxBacklog: config.INBOX_MAX_BACKLOG,
      concurrency: config.INBOX_CONCURRENCY,
      leaseMs: config.INBOX_LEASE_MS,
      maxAttempts: config.INBOX_MAX_ATTEMPTS,
    });
    metrics.gauge({ name: 'atendo_inbox_pending', help: 'Durable inbox: events accepted and not processed yet (all nodes, estimate)', collect: (g) => g.set({}, inbox.pendingEstimate) });
    metrics.gauge({ name: 'atendo_inbox_in_flight', help: 'Durable inbox: events this node holds (waiting or running)', collect: (g) => g.set({}, inbox.inFlight) });

    const identity = new Identity(db);
    const audit = new AuditLog(db);
    // Is a token's session still live? (checked on every request and socket; invalidated over the bus)
    const sessionGuard = new SessionGuard(db, bus, app.log);
    await sessionGuard.start();
    closers.push(() => sessionGuard.stop());
    const services = new Services();
    services.provide(identityService, identity);
    // Foreign ids in bodies, checked against the caller's company by the plugin owning them (issue 37 item 5).
    const references = createReferences();
    services.provide(referencesService, references);

    // ---- HTTP plumbing
    installErrorHandlers(app);
    installValidators(app);
    // The OpenAPI UI and document are public.
    app.addHook('onRoute', (route) => {
      if (route.url === '/docs' || route.url.startsWith('/docs/')) route.config = { ...(route.config ?? {}), role: 'public' };
    });
    // @fastify/cors allows only GET, HEAD and POST by default: the web UI also sends PUT, PATCH and DELETE.
    await app.register(cors, { origin: config.frontendOrigins, credentials: true, methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] });
    // Security headers: computed once here, set by one hook (what @fastify/helmet set, without rebuilding its
    // middleware on every request); routes may still override one (uploads, /docs).
    app.addHook('onRequest', (_req, reply, done) => {
      void reply.headers(SECURITY_HEADERS);
      done();
    });
    await app.register(cookie);
    // Route limits (`config.rateLimit`) are counted in PostgreSQL: one allowance for the whole cluster.
    const rateLimits = new RateLimits(db);
    await app.register(rateLimit, { global: false, store: rateLimits.fastifyStore() as never });
    await app.register(multipart, { limits: { fileSize: config.UPLOAD_LIMIT, files: 10, fields: 50, parts: 60 } });
    await app.register(swagger, {
      openapi: {
        info: { title: 'Atendo API', version: VERSION, description: 'Multi-tenant customer-service messaging platform' },
        components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
        security: [{ bearer: [] }],
      },
      // Upload routes read their parts themselves (no body schema): the document still shows that they take
      // multipart/form-data (clients and the upload sweep of the tests find them there).
      transform: ({ schema, url }) => {
        const s = schema as { consumes?: string[]; body?: { content?: Record<string, unknown> } } | undefined;
        if (!s?.consumes?.includes('multipart/form-data')) return { schema, url };
        const parts = { schema: { type: 'object', description: 'multipart/form-data parts (see the summary)' } };
        if (!s.body) return { schema: { ...schema, body: parts.schema } as typeof schema, url };
        if (!s.body.content || s.body.content['multipart/form-data']) return { schema, url };
        return { schema: { ...schema, body: { ...s.body, content: { ...s.body.content, 'multipart/form-data': parts } } } as typeof schema, url };
      },
    });
    // /docs is the API's only HTML: it gets a Content-Security-Policy of its own (the JSON API needs none:
    // helmet's nosniff covers it). Scripts and styles only from /docs itself (swagger-ui ships no inline
    // script), no framing, no plugins, requests only to this origin.
    await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' }, staticCSP: DOCS_CSP });

    await registerAuth(app, { secret: config.jwtSecret, expiresIn: config.JWT_EXPIRES_IN, identity, guard: sessionGuard });
    const uploads = new UploadStore({ dir: config.uploadsDir, publicUrl: config.BACKEND_URL, secret: config.jwtSecret, maxBytes: config.UPLOAD_LIMIT });
    await uploadRoutes(app, uploads);

    // ---- realtime
    const socketSessions = new SessionStore(db, config.REFRESH_TOKEN_DAYS, sessionGuard);
    // LGPD number mask (lgpdHideNumber): one serializer for HTTP answers and socket events (plugins/lgpd.ts).
    const lgpd = new LgpdPolicy(identity);
    const realtime = new RealtimeHub(app, bus, {
      origins: config.frontendOrigins,
      localFanout: singleNode,
      sessionAuth: (cookieHeader) => sessionUser(app, db, identity, socketSessions, cookieHeader),
      guard: sessionGuard,
      lgpd,
      onPresence: (user, online) => {
        db('users')
          .where({ id: user.id, companyId: user.companyId })
          .update({ online, lastSeenAt: db.fn.now() })
          .catch((err: unknown) => app.log.warn({ err }, 'presence update failed'));
      },
    });
    await realtime.start();
    lgpd.install(app, realtime);
    closers.push(() => realtime.close());
    // Open websockets would hold the HTTP server open: they are let go first (clients reconnect, to another node).
    app.addHook('preClose', async () => {
      realtime.io.disconnectSockets(true);
      realtime.io.engine.close();
    });
    metrics.gauge({ name: 'atendo_sockets_connected', help: 'socket.io clients connected to this node', collect: (g) => g.set({}, realtime.io.engine.clientsCount) });
    // Plans and companies change on one node; every node drops its cached plans.
    await bus.subscribe(
      [planChanged, companyChanged],
      (m) => {
        identity.invalidatePlans(m.payload.companyId);
        if (m.topic === companyChanged.name) identity.invalidateSettings(m.payload.companyId);
      },
      { broadcast: true },
    );
    // Settings change on one node (its routes forget them at once); every node drops its cached copy on the event.
    realtime.observe((companyId, event) => {
      if (companyId !== null && event === `company-${companyId}-settings`) identity.invalidateSettings(companyId);
    });

    const kernelCtx = { publicUrl: config.BACKEND_URL, frontendUrl: config.frontendOrigins[0] ?? '', dataDir: config.dataDir, uploadsDir: config.uploadsDir, nodeEnv: config.NODE_ENV };
    await registerCoreRoutes(app, { config, db, bus, identity, audit, realtime, jobs: jobs.forOwner('kernel'), version: VERSION, uploads, rateLimits, guard: sessionGuard, references });
    await operationsRoutes(app, { config, db, bus: rawBus, metrics, version: VERSION });
    await deadLetterRoutes(app, { store: deadLetters });

    // ---- plugins
    let defs: PluginDefinition[];
    if (Array.isArray(opts.plugins)) defs = opts.plugins;
    else {
      defs = [];
      for (const pkg of discoverPlugins(ROOT_DIR)) defs.push(await loadDefinition(ROOT_DIR, pkg));
    }
    if (config.PLUGINS !== 'all' && !Array.isArray(opts.plugins)) {
      const wanted = new Set(config.PLUGINS.split(',').map((s) => s.trim()));
      defs = defs.filter((d) => wanted.has(d.id));
    }
    const sorted = sortPlugins(defs);
    checkDeclarations(sorted, KERNEL_TOPICS);
    const extensions = new Extensions();
    // Kernel-owned extension points: user record extensions, socket audience resolvers and chat-box join guards.
    extensions.declareAs('kernel', userExtensions).onContribute((ext) => identity.registerUserExtension(ext));
    extensions.declareAs('kernel', audienceResolvers).onContribute((resolver) => realtime.registerAudienceResolver(resolver));
    extensions.declareAs('kernel', chatBoxGuards).onContribute((guard) => realtime.registerChatBoxGuard(guard));
    for (const def of sorted) {
      if (def.migrationsDir && !opts.skipMigrations) await migrate(db, def.id, def.migrationsDir, def.migrationRenames);
    }
    for (const def of sorted) {
      const pluginClosers: (() => Promise<void> | void)[] = [];
      await app.register(async (scope) => {
        if (def.featureFlag) {
          scope.addHook('onRoute', (route) => {
            route.config = { ...(route.config ?? {}), pluginFeature: def.featureFlag };
          });
        }
        const ctx: PluginContext = {
          app: scope.withTypeProvider<TypeBoxTypeProvider>(),
          log: app.log.child({ plugin: def.id }),
          config: parsePluginConfig(def, opts.env ?? process.env),
          kernel: kernelCtx,
          db,
          bus,
          realtime,
          services: services.scoped(def),
          extensions: extensions.scoped(def),
          jobs: jobs.forOwner(def.id),
          inbox: scopedInbox(inbox, def.id),
          identity,
          uploads,
          metrics,
          sends: sendLedger,
          audit,
          onClose: (fn) => pluginClosers.push(fn),
        };
        await def.register(ctx);
      });
      closers.push(async () => {
        for (const fn of pluginClosers.reverse()) await fn();
      });
    }
    await app.ready();
    // The inbox stops before the plugins' closers (closers run in reverse): its handlers use them.
    closers.push(() => inbox.stop(config.SHUTDOWN_GRACE_MS));

    // ---- seed
    let firstStartCredentials: string[] | undefined;
    if (!opts.skipSeed) {
      firstStartCredentials = await seedPlatform({ db, config, log: app.log });
      for (const def of sorted) {
        if (def.seed) await def.seed({ db, log: app.log.child({ plugin: def.id }), services: services.scoped(def), identity, demo: config.SEED_DEMO, companyId: 1 });
      }
    }

    // ---- job worker: every handler is registered; stopped first on close (running jobs finish while
    // plugins, bus and database are still up).
    await jobs.start();
    closers.push(() => jobs.stop());
    // ---- inbox: hand out what waits (a previous run's leftovers first), then what arrives.
    await inbox.start();
    // ---- outbox: publish what a previous run left, then what the plugins write.
    await outbox.start();
    sendLedger.startPruning();
    closers.push(async () => sendLedger.stop());
    deadLetters.watch(rawBus);

    // Closing order: HTTP first (stop taking requests), then jobs, plugins, realtime, bus, database.
    return {
      app,
      metrics,
      config,
      db,
      bus,
      identity,
      realtime,
      services,
      plugins: sorted,
      jobs,
      inbox,
      outbox,
      firstStartCredentials,
      close: async () => {
        await app.close();
        await closeAll();
      },
    };
  } catch (err) {
    await app.close().catch(() => undefined);
    await closeAll();
    throw err;
  }
}

/** trustProxy for a hop count: the `n` nearest hops (the TCP peer first) are trusted proxies. */
function trustHops(n: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < n;
}

/**
 * The refresh session in a `Cookie` header (cookie `jrt`), for socket handshakes that carry no access token:
 * the session must be live (SessionStore.peek: not expired, not revoked; it is not rotated) and its user
 * still exist in its company. Answers the user, the session's family, the user's tokenVersion and when the
 * session ends (the SessionGuard then checks the company and keeps checking the family). Undefined otherwise.
 */
async function sessionUser(app: FastifyInstance, db: Knex, identity: Identity, sessions: SessionStore, cookieHeader: string): Promise<CookieSession | undefined> {
  let raw: string | undefined;
  try {
    raw = app.parseCookie(cookieHeader)[REFRESH_COOKIE];
  } catch {
    return undefined;
  }
  if (!raw || raw.length > 200) return undefined;
  const s = await sessions.peek(raw);
  if (!s) return undefined;
  const row = await db('users').where({ id: s.userId, companyId: s.companyId }).first('id', 'companyId', 'profile', 'super', 'tokenVersion');
  if (!row) return undefined;
  const company = await identity.getCompany(row.companyId);
  if (!company || (!company.status && company.id !== PLATFORM_COMPANY_ID)) return undefined;
  return { user: { id: row.id, companyId: row.companyId, profile: row.profile, super: Boolean(row.super) }, familyId: s.familyId, tokenVersion: Number(row.tokenVersion), expiresAt: s.expiresAt };
}

/**
 * A plugin's config: its `<ID>_<KEY>` env vars, then (for unset or blank keys) the fallback env var a schema
 * property names in its `env` annotation (blank fallbacks count as unset), validated, coerced and defaulted
 * by its `configSchema`. Throws a boot error naming the plugin when invalid.
 */
export function parsePluginConfig(def: Pick<PluginDefinition, 'id' | 'configSchema'>, env: Record<string, string | undefined>): Record<string, unknown> {
  const raw = pluginEnv(def.id, env);
  if (!def.configSchema) return raw;
  const properties = (def.configSchema as { properties?: Record<string, { env?: unknown }> }).properties ?? {};
  for (const [key, prop] of Object.entries(properties)) {
    const fallback = typeof prop.env === 'string' ? env[prop.env] : undefined;
    if ((raw[key] === undefined || raw[key].trim() === '') && fallback !== undefined && fallback.trim() !== '') raw[key] = fallback;
  }
  // Validate with Fastify's own ajv semantics (coercion and defaults) through a throw-away compile.
  const Ajv = require('ajv') as typeof import('ajv').default;
  const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true });
  ajv.addKeyword({ keyword: 'env', schemaType: 'string' });
  const validate = ajv.compile(def.configSchema);
  const data = { ...raw };
  if (!validate(data)) throw new Error(`invalid config for plugin ${def.id}: ${ajv.errorsText(validate.errors)}`);
  return data;
}
