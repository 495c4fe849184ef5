import { join, resolve } from 'node:path';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import multipart from '@fastify/multipart';
import type { Knex } from 'knex';
import type { Bus, PluginContext, PluginDefinition } from '@atendo/sdk';
import { loadConfig, type KernelConfig, type RawConfig } from './config';
import { createKnex, migrate, startEmbeddedPostgres, type EmbeddedServer } from './db';
import { createBus } from './bus';
import { Identity } from './identity/service';
import { frameworkErrors, installErrorHandlers } from './plugins/errors';
import { registerAuth } from './plugins/auth';
import { RealtimeHub } from './plugins/realtime';
import { discoverPlugins, loadDefinition, pluginEnv, Services, sortPlugins } from './plugins/loader';
import { registerCoreRoutes } from './routes';
import { seedPlatform } from './seed';
import { installValidators } from './plugins/validation';
import { UploadStore, uploadRoutes } from './uploads';

export const ROOT_DIR = resolve(__dirname, '../../..');
export const KERNEL_MIGRATIONS = join(__dirname, 'migrations');
export const VERSION: string = (require('../package.json') as { version: string }).version;

export interface KernelOptions {
  /** Env to read config from (default process.env). */
  env?: Record<string, string | undefined>;
  /** Config values that win over env. */
  config?: Partial<RawConfig>;
  /** Plugins to load: definitions, or `discover` (default) to load every plugin package in node_modules. */
  plugins?: PluginDefinition[] | 'discover';
  /** Fastify logger option (default: pino at LOG_LEVEL). */
  logger?: FastifyServerOptions['logger'];
  /** Skip migrations (tests on a template database that is already migrated). */
  skipMigrations?: boolean;
  /** Skip the first-start seed. */
  skipSeed?: boolean;
}

export interface Kernel {
  app: FastifyInstance;
  config: KernelConfig;
  db: Knex;
  bus: Bus;
  identity: Identity;
  realtime: RealtimeHub;
  services: Services;
  plugins: PluginDefinition[];
  /** Sign-in lines to print once, on the start that seeded the platform. */
  firstStartCredentials?: string[];
  close(): Promise<void>;
}

/**
 * Builds the kernel in boot order: config -> database (+ kernel migrations) -> bus -> HTTP plumbing
 * (errors, CORS, security headers, cookies, uploads, OpenAPI) -> auth -> realtime -> core routes ->
 * plugins (discover, sort by dependsOn, migrate, register) -> seed. The server is not listening yet.
 */
export async function buildKernel(opts: KernelOptions = {}): Promise<Kernel> {
  const config = loadConfig(opts.env ?? process.env, opts.config);
  const app = Fastify({
    logger: opts.logger ?? { level: config.LOG_LEVEL, redact: ['req.headers.authorization', 'req.headers.cookie'] },
    bodyLimit: config.BODY_LIMIT,
    trustProxy: true,
    forceCloseConnections: true,
    frameworkErrors,
  });
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
      embedded = await startEmbeddedPostgres(join(config.dataDir, 'pg'), Number(process.env.EMBEDDED_PG_PORT ?? 54329), 'atendo', app.log);
      dbUrl = embedded.url;
      closers.push(() => embedded!.stop());
      app.log.info({ dir: join(config.dataDir, 'pg') }, 'embedded PostgreSQL started');
    }
    const db = createKnex(dbUrl, config.DB_POOL_MAX);
    closers.push(() => db.destroy());
    if (!opts.skipMigrations) await migrate(db, 'kernel', KERNEL_MIGRATIONS);

    // ---- bus
    const bus = await createBus({ amqpUrl: config.AMQP_URL, exchange: config.AMQP_EXCHANGE, logger: app.log });
    closers.push(() => bus.close());

    const identity = new Identity(db);
    const services = new Services();
    services.provide('identity', identity);

    // ---- HTTP plumbing
    installErrorHandlers(app);
    installValidators(app);
    // The OpenAPI UI and document are public.
    app.addHook('onRoute', (route) => {
      if (route.url === '/docs' || route.url.startsWith('/docs/')) route.config = { ...(route.config ?? {}), role: 'public' };
    });
    // @fastify/cors allows only GET, HEAD and POST by default: the web UI also sends PUT, PATCH and DELETE.
    await app.register(cors, { origin: config.frontendOrigins, credentials: true, methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] });
    await app.register(helmet, { contentSecurityPolicy: false, crossOriginResourcePolicy: { policy: 'cross-origin' } });
    await app.register(cookie);
    await app.register(rateLimit, { global: false });
    await app.register(multipart, { limits: { fileSize: config.UPLOAD_LIMIT, files: 10, fields: 50, parts: 60 } });
    await app.register(swagger, {
      openapi: {
        info: { title: 'Atendo API', version: VERSION, description: 'Multi-tenant customer-service messaging platform' },
        components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
        security: [{ bearer: [] }],
      },
    });
    await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });

    await registerAuth(app, { secret: config.jwtSecret, expiresIn: config.JWT_EXPIRES_IN, identity });
    const uploads = new UploadStore({ dir: config.uploadsDir, publicUrl: config.BACKEND_URL, secret: config.jwtSecret, maxBytes: config.UPLOAD_LIMIT });
    await uploadRoutes(app, uploads);

    // ---- realtime
    const realtime = new RealtimeHub(app, bus, {
      origins: config.frontendOrigins,
      onPresence: (user, online) => {
        db('users')
          .where({ id: user.id, companyId: user.companyId })
          .update({ online, lastSeenAt: db.fn.now() })
          .catch((err: unknown) => app.log.warn({ err }, 'presence update failed'));
      },
    });
    await realtime.start();
    closers.push(() => realtime.close());
    // Plans and companies change on one node; every node drops its cached plans.
    await bus.subscribe<{ companyId?: number }>(['plan.changed', 'company.changed'], (m) => identity.invalidatePlans(m.payload.companyId), { broadcast: true });

    const kernelCtx = { publicUrl: config.BACKEND_URL, frontendUrl: config.frontendOrigins[0] ?? '', dataDir: config.dataDir, uploadsDir: config.uploadsDir, nodeEnv: config.NODE_ENV };
    await registerCoreRoutes(app, { config, db, bus, identity, realtime, version: VERSION });

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
    for (const def of sorted) {
      if (def.migrationsDir && !opts.skipMigrations) await migrate(db, def.id, def.migrationsDir);
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
          app: scope,
          log: app.log.child({ plugin: def.id }),
          config: parsePluginConfig(def, opts.env ?? process.env),
          kernel: kernelCtx,
          db,
          bus,
          realtime,
          services,
          identity,
          uploads,
          onClose: (fn) => pluginClosers.push(fn),
        };
        await def.register(ctx);
      });
      closers.push(async () => {
        for (const fn of pluginClosers.reverse()) await fn();
      });
    }
    await app.ready();

    // ---- seed
    let firstStartCredentials: string[] | undefined;
    if (!opts.skipSeed) {
      firstStartCredentials = await seedPlatform({ db, config, log: app.log });
      for (const def of sorted) {
        if (def.seed) await def.seed({ db, log: app.log.child({ plugin: def.id }), services, identity, demo: config.SEED_DEMO, companyId: 1 });
      }
    }

    // Closing order: HTTP first (stop taking requests), then plugins, realtime, bus, database.
    return {
      app,
      config,
      db,
      bus,
      identity,
      realtime,
      services,
      plugins: sorted,
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

function parsePluginConfig(def: PluginDefinition, env: Record<string, string | undefined>): Record<string, unknown> {
  const raw = pluginEnv(def.id, env);
  if (!def.configSchema) return raw;
  // Validate with Fastify's own ajv semantics (coercion and defaults) through a throw-away compile.
  const Ajv = require('ajv') as typeof import('ajv').default;
  const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true });
  const validate = ajv.compile(def.configSchema);
  const data = { ...raw };
  if (!validate(data)) throw new Error(`invalid config for plugin ${def.id}: ${ajv.errorsText(validate.errors)}`);
  return data;
}
