import type { FastifyBaseLogger } from 'fastify';
import type { Knex } from 'knex';
import type { TSchema } from '@sinclair/typebox';
import type { Bus } from './bus';
import type { Realtime } from './realtime';
import type { PlanFeature } from './plan';
import type { IdentityService } from './identity';
import type { UploadService } from './uploads';
import type { ExtensionRegistry, ServiceRegistry, Topic } from './contracts';
import type { ErrorDefinition } from './errors';
import type { Jobs } from './jobs';
import type { Inbox } from './inbox';
import type { PluginApp } from './http';
import type { Metrics } from './metrics';
import type { SendLedger } from './channel';
import type { AuditService } from './audit';

/** What a plugin's `register` receives. Everything is already scoped to the plugin. */
export interface PluginContext<Config = Record<string, unknown>> {
  /**
   * Fastify scope for this plugin's routes: auth, tenancy and the plugin's plan gate already applied. Typed by
   * TypeBox: handlers get `req.params/query/body` typed from the route's schema.
   */
  app: PluginApp;
  log: FastifyBaseLogger;
  /** The plugin's config slice, validated against its `configSchema` (env vars prefixed by the plugin id). */
  config: Config;
  /** Kernel-wide configuration values plugins may read. */
  kernel: { publicUrl: string; frontendUrl: string; dataDir: string; uploadsDir: string; nodeEnv: string };
  db: Knex;
  bus: Bus;
  realtime: Realtime;
  /** Services of this plugin's declared dependencies (`dependsOn`, `optionalDependsOn`), by typed ref. */
  services: ServiceRegistry;
  /** Extension points this plugin owns (`declare`) or contributes to (`contribute`). */
  extensions: ExtensionRegistry;
  /** Durable jobs and timers (run once across nodes, survive restarts). */
  jobs: Jobs;
  /**
   * The durable inbox: events acknowledged to the outside world (webhooks) are committed to PostgreSQL before
   * the answer, then handed to the source's handler (see inbox.ts). Sources are named `<plugin id>.<name>`.
   */
  inbox: Inbox;
  identity: IdentityService;
  /** Uploaded files: type- and size-checked storage per company, and signed URLs to serve them. */
  uploads: UploadService;
  /** Prometheus metrics of this node, served at GET /metrics (see metrics.ts). */
  metrics: Metrics;
  /** What channel adapters already sent, by the command's stable key (`sendKey`): no second send on a replay. */
  sends: SendLedger;
  /** The append-only audit log: `ctx.audit.record(trx, {req, entity, entityId, action, before, after})` (see audit.ts). */
  audit: AuditService;
  /** Called on shutdown, in reverse registration order. */
  onClose(fn: () => Promise<void> | void): void;
}

/** Arguments a plugin's `seed` gets on first start. */
export interface SeedContext {
  db: Knex;
  log: FastifyBaseLogger;
  services: ServiceRegistry;
  identity: IdentityService;
  /** True when demo data was asked for (`npm start` without SEED_DEMO=false). */
  demo: boolean;
  /** The platform company (id 1). */
  companyId: number;
}

/**
 * A plugin definition: the single export of a plugin package's entry (`export default definePlugin({...})`).
 * The loader discovers packages whose package.json has `"atendo": {"role": "plugin"}`, sorts them by
 * `dependsOn`, runs each one's knex migrations in its own table `knex_migrations_<id>`, then calls
 * `register` once. Duplicate ids are refused.
 */
export interface PluginDefinition<Config = Record<string, unknown>> {
  /** kebab-case, unique. */
  id: string;
  /** Plugin ids (or `kernel`) this plugin needs registered before it; their services and extension points are usable. */
  dependsOn?: string[];
  /**
   * Optional collaborators: plugin ids this plugin is migrated, registered and seeded after *when they are
   * loaded* (absent ones are ignored). Their services are usable through `ctx.services.has(ref)` / `get(ref)`.
   */
  optionalDependsOn?: string[];
  /** Bus topics this plugin owns (publishes as their source of truth); a topic has one owner across plugins. */
  topics?: Topic<unknown>[];
  /** This plugin's error codes (from `defineErrors`), merged into the catalogue at boot; duplicates refuse boot. */
  errors?: Record<string, ErrorDefinition>;
  /** The plan flag that gates every route of this plugin (403 ERR_FEATURE_NOT_IN_PLAN when off). */
  featureFlag?: PlanFeature;
  /** Absolute path of the plugin's migrations folder (files exporting `up`/`down`). */
  migrationsDir?: string;
  /**
   * Migration files renamed after they shipped: old file name -> new file name, both without extension
   * (`{'20261121000700_quick_messages': '20261121000800_quick_messages'}`). Before migrating, the kernel
   * rewrites the recorded old name to the new one in `knex_migrations_<id>`, so a database that already ran
   * the file does not run it again (and knex does not refuse the missing old file). Keep entries forever.
   */
  migrationRenames?: Record<string, string>;
  /**
   * TypeBox schema of the plugin's config, read from env vars `<ID>_<KEY>` (upper snake case), coerced and
   * defaulted by the schema (put defaults there, not in code). A property may name a fallback env var with
   * the `env` annotation, read when `<ID>_<KEY>` is unset or blank: `metaAppSecret: Type.Optional(Type.String({
   * env: 'META_APP_SECRET' }))` reads `CHANNELS_META_APP_SECRET`, else `META_APP_SECRET`. Plugins never read
   * `process.env` themselves.
   */
  configSchema?: TSchema;
  register(ctx: PluginContext<Config>): Promise<void> | void;
  /** Idempotent data seed run at boot after migrations (for example default rows for company 1). */
  seed?(ctx: SeedContext): Promise<void> | void;
}

/** Identity helper that types a plugin definition. */
export function definePlugin<Config = Record<string, unknown>>(def: PluginDefinition<Config>): PluginDefinition<Config> {
  if (!/^[a-z][a-z0-9-]*$/.test(def.id)) throw new Error(`plugin id must be kebab-case: ${def.id}`);
  return def;
}
