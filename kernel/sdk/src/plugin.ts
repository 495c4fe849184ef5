import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Knex } from 'knex';
import type { TSchema } from '@sinclair/typebox';
import type { Bus } from './bus';
import type { Realtime } from './realtime';
import type { PlanFeature } from './plan';
import type { IdentityService } from './identity';
import type { UploadService } from './uploads';

/** Named services plugins offer each other (`provide`) and use (`get`), declared through `dependsOn`. */
export interface ServiceRegistry {
  provide<T>(name: string, service: T): void;
  get<T>(name: string): T;
  has(name: string): boolean;
}

/** What a plugin's `register` receives. Everything is already scoped to the plugin. */
export interface PluginContext<Config = Record<string, unknown>> {
  /** Fastify scope for this plugin's routes: auth, tenancy and the plugin's plan gate already applied. */
  app: FastifyInstance;
  log: FastifyBaseLogger;
  /** The plugin's config slice, validated against its `configSchema` (env vars prefixed by the plugin id). */
  config: Config;
  /** Kernel-wide configuration values plugins may read. */
  kernel: { publicUrl: string; frontendUrl: string; dataDir: string; uploadsDir: string; nodeEnv: string };
  db: Knex;
  bus: Bus;
  realtime: Realtime;
  services: ServiceRegistry;
  identity: IdentityService;
  /** Uploaded files: type- and size-checked storage per company, and signed URLs to serve them. */
  uploads: UploadService;
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
  /** Plugin ids (or `kernel`) this plugin needs registered before it. */
  dependsOn?: string[];
  /**
   * Soft ordering: plugin ids this plugin is migrated, registered and seeded after *when they are loaded*
   * (absent ones are ignored). For optional collaborators used through `ctx.services.has(...)`.
   */
  after?: string[];
  /** The plan flag that gates every route of this plugin (403 ERR_FEATURE_NOT_IN_PLAN when off). */
  featureFlag?: PlanFeature;
  /** Absolute path of the plugin's migrations folder (files exporting `up`/`down`). */
  migrationsDir?: string;
  /** TypeBox schema of the plugin's config, read from env vars `<ID>_<KEY>` (upper snake case). */
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
