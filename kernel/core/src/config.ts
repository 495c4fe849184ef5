import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join, resolve } from 'node:path';
import envSchema from 'env-schema';
import { Type, type Static } from '@sinclair/typebox';

/**
 * The kernel's configuration, read from environment variables and validated at boot (a bad value stops the
 * process with a message naming the variable). Secrets have no defaults: when JWT_SECRET or
 * JWT_REFRESH_SECRET are unset, random 48-byte secrets are generated once and kept in DATA_DIR/secrets.json
 * (mode 0600), so tokens survive restarts and every install has its own.
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
  /** Public base URL of this API (media URLs). */
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
  /** Failed logins allowed per IP and e-mail per minute. */
  LOGIN_RATE_LIMIT: Type.Integer({ minimum: 1, default: 10 }),
  /** Password reset: requests per IP per 15 minutes on each /api/enviar-email, verificar-code, atualizar-senha route (per node). */
  PASSWORD_RESET_RATE_LIMIT: Type.Integer({ minimum: 1, default: 20 }),
  /** Password reset: codes issued per WhatsApp number per hour (all nodes: counted in the database). */
  PASSWORD_RESET_PER_NUMBER: Type.Integer({ minimum: 1, default: 5 }),
  /** Largest JSON body in bytes. */
  BODY_LIMIT: Type.Integer({ minimum: 1024, default: 1048576 }),
  /** Largest uploaded file in bytes. */
  UPLOAD_LIMIT: Type.Integer({ minimum: 1024, default: 20971520 }),
  /** Which plugin packages to load: `all` (default) or a comma-separated list of ids. */
  PLUGINS: Type.String({ default: 'all' }),
});

export type RawConfig = Static<typeof ConfigSchema>;

export interface KernelConfig extends RawConfig {
  dataDir: string;
  uploadsDir: string;
  jwtSecret: string;
  jwtRefreshSecret: string;
  cookieSecure: boolean;
  frontendOrigins: string[];
}

/** Reads and validates the configuration. Throws with the offending variable named. */
export function loadConfig(env: Record<string, string | undefined> = process.env, overrides: Partial<RawConfig> = {}): KernelConfig {
  const raw = envSchema<RawConfig>({ schema: ConfigSchema, data: [env, overrides], dotenv: false });
  const dataDir = resolve(raw.DATA_DIR);
  mkdirSync(dataDir, { recursive: true });
  const uploadsDir = join(dataDir, 'uploads');
  mkdirSync(uploadsDir, { recursive: true });
  const secrets = raw.JWT_SECRET && raw.JWT_REFRESH_SECRET ? undefined : loadOrCreateSecrets(dataDir);
  const jwtSecret = raw.JWT_SECRET ?? secrets!.jwtSecret;
  const jwtRefreshSecret = raw.JWT_REFRESH_SECRET ?? secrets!.jwtRefreshSecret;
  if (jwtSecret === jwtRefreshSecret) throw new Error('JWT_SECRET and JWT_REFRESH_SECRET must differ');
  return {
    ...raw,
    dataDir,
    uploadsDir,
    jwtSecret,
    jwtRefreshSecret,
    cookieSecure: raw.COOKIE_SECURE ?? raw.NODE_ENV === 'production',
    frontendOrigins: raw.FRONTEND_URL.split(',').map((s) => s.trim()).filter(Boolean),
  };
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
