import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isIP } from 'node:net';
import envSchema from 'env-schema';
import { Type, type Static } from '@sinclair/typebox';

/**
 * The kernel's configuration, read from environment variables and validated at boot (a bad value stops the
 * process with a message naming the variable). Secrets have no defaults: with NODE_ENV=production,
 * JWT_SECRET and JWT_REFRESH_SECRET are required (every node of a deployment must share them); otherwise,
 * when unset, random 48-byte secrets are generated once and kept in DATA_DIR/secrets.json (mode 0600), so
 * tokens survive restarts and every development install has its own.
 */
export const ConfigSchema = Type.Object({
  NODE_ENV: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')], { default: 'development' }),
  HOST: Type.String({ default: '0.0.0.0' }),
  /** API port. */
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  /** Where the embedded database, secrets and uploads live. */
  DATA_DIR: Type.String({ default: './.data' }),
  /** PostgreSQL connection string; unset: embedded PostgreSQL under DATA_DIR/pg. */
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  DB_POOL_MAX: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  /** Longest time a new database connection may take to open (TCP, startup, authentication), ms. */
  DB_CONNECT_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600000, default: 10000 }),
  /**
   * While the database is unreachable: the longest delay between two connection attempts (a jittered
   * doubling from 50 ms), ms; queries meanwhile fail at once (503). Also how late, at most, the kernel notices
   * that the database is back.
   */
  DB_RECONNECT_MAX_MS: Type.Integer({ minimum: 50, maximum: 600000, default: 5000 }),
  /** Port of the embedded PostgreSQL (only without DATABASE_URL). */
  EMBEDDED_PG_PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 54329 }),
  /** Embedded PostgreSQL: longest delay between two restarts of a server that keeps failing to start, ms (retried forever). */
  EMBEDDED_PG_MAX_BACKOFF_MS: Type.Integer({ minimum: 100, maximum: 600000, default: 30000 }),
  /**
   * V8's old-space growing factor, as a percentage over the live heap after each major GC (V8
   * `--heap-growing-percent`); 0 leaves V8's own (up to 4x). 50 keeps the heap near what is live after a
   * burst: RSS ~290 MiB instead of ~440-480 MiB after 200 webhooks in flight, within the run-to-run noise of
   * throughput and CPU; 20 gets ~270 MiB for ~25 % more kernel CPU (bench/README.md, "V8 heap growth").
   */
  HEAP_GROWING_PERCENT: Type.Integer({ minimum: 0, maximum: 300, default: 50 }),
  /** RabbitMQ URL; unset: in-process bus (one process only). */
  AMQP_URL: Type.Optional(Type.String({ pattern: '^amqps?://' })),
  /** Topic exchange of the bus (processes sharing one exchange form one cluster). */
  AMQP_EXCHANGE: Type.String({ default: 'atendo.events', pattern: '^[A-Za-z0-9._-]{1,200}$' }),
  JWT_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  JWT_REFRESH_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  /** Access token lifetime (a vercel/ms string). */
  JWT_EXPIRES_IN: Type.String({ default: '15m' }),
  /** Refresh token lifetime in days. */
  REFRESH_TOKEN_DAYS: Type.Integer({ minimum: 1, maximum: 365, default: 7 }),
  /** Set the Secure flag on the refresh cookie (default: true in production). */
  COOKIE_SECURE: Type.Optional(Type.Boolean()),
  /** Browser origins allowed by CORS, comma separated. */
  FRONTEND_URL: Type.String({ default: 'http://localhost:3000' }),
  /**
   * Public base URL of this API (media URLs): absolute, or a path such as `/backend` that the browser resolves
   * against the web origin proxying the API there (`npm start`'s default).
   */
  BACKEND_URL: Type.String({ default: 'http://localhost:8080' }),
  ADMIN_EMAIL: Type.String({ default: 'admin@example.com', pattern: '^[^@\\s]+@[^@\\s]+$' }),
  ADMIN_PASSWORD: Type.Optional(Type.String({ minLength: 8 })),
  /** Seed demo queues, attendants and connections into company 1 on first start. */
  SEED_DEMO: Type.Boolean({ default: false }),
  /** Allow POST /auth/signup (self-service company creation). */
  SIGNUP_ENABLED: Type.Boolean({ default: true }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  /** Log lines: `pretty` (coloured, human-readable; default in development) or `json` (default otherwise). */
  LOG_FORMAT: Type.Optional(Type.Union([Type.Literal('pretty'), Type.Literal('json')])),
  /**
   * Which proxies in front of the API are trusted to say who the client is (`X-Forwarded-For`, and the
   * protocol and host headers), as Fastify's `trustProxy`: unset or `false` (default) trusts none, so the
   * client address is the TCP peer's; a hop count (`1`: the one reverse proxy in front, as in
   * deploy/compose.yaml); or a comma-separated list of proxy addresses and CIDRs (`10.0.0.0/8,127.0.0.1`, or
   * proxy-addr's names `loopback`, `linklocal`, `uniquelocal`). `true` (trust any sender) is refused: every
   * address-keyed limit could then be bypassed by sending a new header value per request.
   */
  TRUST_PROXY: Type.Optional(Type.String({ maxLength: 2000 })),
  /** Failed logins allowed per IP and e-mail per minute. */
  LOGIN_RATE_LIMIT: Type.Integer({ minimum: 1, default: 10 }),
  /** Login attempts (failed or not) allowed per client address per minute, all e-mails together (all nodes). */
  LOGIN_IP_RATE_LIMIT: Type.Integer({ minimum: 1, default: 60 }),
  /** Sign-ups (POST /auth/signup) allowed per client address per hour (all nodes). */
  SIGNUP_RATE_LIMIT: Type.Integer({ minimum: 1, default: 10 }),
  /** Password reset: requests per IP per 15 minutes on each /api/enviar-email, verificar-code, atualizar-senha route (all nodes). */
  PASSWORD_RESET_RATE_LIMIT: Type.Integer({ minimum: 1, default: 20 }),
  /** Password reset: codes issued per WhatsApp number per hour (all nodes: counted in the database). */
  PASSWORD_RESET_PER_NUMBER: Type.Integer({ minimum: 1, default: 5 }),
  /** Largest JSON body in bytes. */
  BODY_LIMIT: Type.Integer({ minimum: 1024, default: 1048576 }),
  /** Largest uploaded file in bytes. */
  UPLOAD_LIMIT: Type.Integer({ minimum: 1024, default: 20971520 }),
  /** Durable jobs (`ctx.jobs`): jobs run at once on this node, all job names together. */
  JOBS_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 100, default: 4 }),
  /** Durable jobs: safety-net poll in ms (jobs are found through LISTEN/NOTIFY and a wake-up timer without it). */
  JOBS_POLL_INTERVAL_MS: Type.Integer({ minimum: 100, maximum: 600000, default: 30000 }),
  /** Durable jobs: on shutdown, ms running jobs may take before they are aborted (and retried later). */
  JOBS_SHUTDOWN_TIMEOUT_MS: Type.Integer({ minimum: 0, maximum: 600000, default: 5000 }),
  /** Durable jobs: how often a node writes its workers' heartbeat and sweeps dead nodes' locked jobs, ms. */
  JOBS_HEARTBEAT_MS: Type.Integer({ minimum: 100, maximum: 600000, default: 10000 }),
  /** Durable jobs: a node whose heartbeat is older than this is dead; the jobs its workers held are released, ms. */
  JOBS_DEAD_AFTER_MS: Type.Integer({ minimum: 300, maximum: 3600000, default: 30000 }),
  /**
   * Durable inbox (webhooks): events accepted and not processed yet, all nodes together, beyond which new ones
   * are refused with 503 (the provider delivers again later) instead of piling up.
   */
  INBOX_MAX_BACKLOG: Type.Integer({ minimum: 1, maximum: 10000000, default: 20000 }),
  /** Durable inbox: events one node processes at once. */
  INBOX_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 10000, default: 128 }),
  /** Durable inbox: how long a node holds an event it took before another node may take it over (ms). */
  INBOX_LEASE_MS: Type.Integer({ minimum: 1000, maximum: 3600000, default: 30000 }),
  /** Durable inbox: tries of an event whose handler keeps failing (not on outages) before it is dead-lettered. */
  INBOX_MAX_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 1000, default: 20 }),
  /**
   * In-process bus: messages one queue may hold waiting. Past it a direct publish is refused (BusFullError) and the
   * outbox relay waits for room (its events stay in `outbox_events`: back-pressure, never a loss).
   */
  BUS_MAX_QUEUE_LENGTH: Type.Integer({ minimum: 1, maximum: 10000000, default: 50000 }),
  /** Transactional outbox: how long a node holds an event it is publishing before another node may take it (ms; renewed). */
  OUTBOX_LEASE_MS: Type.Integer({ minimum: 1000, maximum: 3600000, default: 30000 }),
  /** Transactional outbox: events one node holds in memory at most while publishing them (more wait in the table). */
  OUTBOX_MAX_HELD: Type.Integer({ minimum: 1, maximum: 1000000, default: 10000 }),
  /** Which plugin packages to load: `all` (default) or a comma-separated list of ids. */
  PLUGINS: Type.String({ default: 'all' }),
  /** Graceful shutdown: how long requests and bus deliveries in flight may take to finish before exit (ms). */
  SHUTDOWN_GRACE_MS: Type.Integer({ minimum: 0, maximum: 600000, default: 10000 }),
  /** Deadline of each check of GET /ready (database query, bus round trip), ms. */
  READY_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60000, default: 2000 }),
  /** When set, GET /metrics requires `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
});

export type RawConfig = Static<typeof ConfigSchema>;

export interface KernelConfig extends RawConfig {
  /** TRUST_PROXY as Fastify's `trustProxy` option. */
  trustProxy: false | number | string[];
  dataDir: string;
  uploadsDir: string;
  jwtSecret: string;
  jwtRefreshSecret: string;
  cookieSecure: boolean;
  frontendOrigins: string[];
}

/** A bad configuration value: its message names each variable and what it accepts (printed without a stack). */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Variables whose values never appear in a message (secrets, and URLs that may hold passwords). */
const SECRET_VARIABLE = /SECRET|PASSWORD|TOKEN|KEY|URL/;

interface SchemaError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

/**
 * One sentence per offending variable from the schema's errors: `LOG_LEVEL="loud" is not allowed: use one of
 * fatal, error, ...` for a list of values (the union's alternatives together, not one error per alternative),
 * else the rule it breaks (`PORT="x" must be integer`). Values of secret-looking variables are not repeated.
 */
export function describeConfigErrors(errors: SchemaError[], env: Record<string, unknown>): string {
  const byVar = new Map<string, { allowed: string[]; rules: string[] }>();
  for (const e of errors) {
    const name = e.instancePath.replace(/^\//, '').split('/')[0] || String(e.params.missingProperty ?? 'configuration');
    const entry = byVar.get(name) ?? { allowed: [], rules: [] };
    byVar.set(name, entry);
    if (e.keyword === 'const') entry.allowed.push(String(e.params.allowedValue));
    else if (e.keyword === 'enum') entry.allowed.push(...(e.params.allowedValues as unknown[]).map(String));
    else if (e.keyword !== 'anyOf' && e.message && !entry.rules.includes(e.message)) entry.rules.push(e.message);
  }
  return [...byVar.entries()]
    .map(([name, { allowed, rules }]) => {
      const value = env[name] === undefined || SECRET_VARIABLE.test(name) ? name : `${name}=${JSON.stringify(String(env[name]))}`;
      if (allowed.length && !rules.length) return `${value} is not allowed: use one of ${[...new Set(allowed)].join(', ')}`;
      return `${value} ${[...rules, ...(allowed.length ? [`or one of ${[...new Set(allowed)].join(', ')}`] : [])].join(', ')}`;
    })
    .join('; ');
}

/** Reads and validates the configuration. Throws a ConfigError naming each offending variable and what it accepts. */
export function loadConfig(env: Record<string, string | undefined> = process.env, overrides: Partial<RawConfig> = {}): KernelConfig {
  let raw: RawConfig;
  try {
    raw = envSchema<RawConfig>({ schema: ConfigSchema, data: [env, overrides], dotenv: false });
  } catch (err) {
    const errors = (err as { errors?: SchemaError[] }).errors;
    if (!errors?.length) throw err;
    throw new ConfigError(`configuration: ${describeConfigErrors(errors, { ...env, ...overrides })}`);
  }
  const dataDir = resolve(raw.DATA_DIR);
  mkdirSync(dataDir, { recursive: true });
  const uploadsDir = join(dataDir, 'uploads');
  mkdirSync(uploadsDir, { recursive: true });
  if (raw.NODE_ENV === 'production' && (!raw.JWT_SECRET || !raw.JWT_REFRESH_SECRET)) {
    throw new Error('JWT_SECRET and JWT_REFRESH_SECRET are required with NODE_ENV=production (two different random strings of at least 32 characters, the same on every node; e.g. openssl rand -base64 48)');
  }
  const secrets = raw.JWT_SECRET && raw.JWT_REFRESH_SECRET ? undefined : loadOrCreateSecrets(dataDir);
  const jwtSecret = raw.JWT_SECRET ?? secrets!.jwtSecret;
  const jwtRefreshSecret = raw.JWT_REFRESH_SECRET ?? secrets!.jwtRefreshSecret;
  if (jwtSecret === jwtRefreshSecret) throw new Error('JWT_SECRET and JWT_REFRESH_SECRET must differ');
  return {
    ...raw,
    trustProxy: parseTrustProxy(raw.TRUST_PROXY),
    dataDir,
    uploadsDir,
    jwtSecret,
    jwtRefreshSecret,
    cookieSecure: raw.COOKIE_SECURE ?? raw.NODE_ENV === 'production',
    frontendOrigins: raw.FRONTEND_URL.split(',').map((s) => s.trim()).filter(Boolean),
  };
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY as Fastify's `trustProxy`: false (unset, blank, `false`, `0`), a hop count, or a list of
 * addresses / CIDRs / proxy-addr names. Throws naming the variable for anything else (`true` included).
 */
export function parseTrustProxy(value: string | undefined): false | number | string[] {
  const v = (value ?? '').trim();
  if (v === '' || v === 'false' || v === '0') return false;
  if (/^[0-9]{1,2}$/.test(v)) return Number(v);
  if (v === 'true') throw new Error('TRUST_PROXY=true would trust X-Forwarded-For from anyone: give the hop count of your proxies (e.g. 1) or their addresses/CIDRs');
  const list = v.split(',').map((s) => s.trim()).filter(Boolean);
  for (const item of list) {
    const [addr, bits, extra] = item.split('/');
    const family = isIP(addr);
    const okBits = bits === undefined || (/^[0-9]{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!(PROXY_NAMES.has(item) || (family && okBits && extra === undefined))) {
      throw new Error(`TRUST_PROXY: "${item}" is not an IP address, a CIDR, loopback, linklocal or uniquelocal`);
    }
  }
  return list;
}

function loadOrCreateSecrets(dataDir: string): { jwtSecret: string; jwtRefreshSecret: string } {
  const file = join(dataDir, 'secrets.json');
  if (existsSync(file)) {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { jwtSecret?: string; jwtRefreshSecret?: string };
    if (parsed.jwtSecret && parsed.jwtRefreshSecret) return { jwtSecret: parsed.jwtSecret, jwtRefreshSecret: parsed.jwtRefreshSecret };
  }
  const secrets = { jwtSecret: randomBytes(48).toString('base64url'), jwtRefreshSecret: randomBytes(48).toString('base64url') };
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify(secrets), { mode: 0o600 });
  chmodSync(file, 0o600);
  return secrets;
}
