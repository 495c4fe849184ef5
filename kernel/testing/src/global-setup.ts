import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKnex, dropDatabase, ensureDatabase, migrate, startEmbeddedPostgres } from '@atendo/core/src/db';
import { discoverPlugins, loadDefinition, sortPlugins } from '@atendo/core/src/plugins/loader';
import { KERNEL_MIGRATIONS, ROOT_DIR } from '@atendo/core/src/app';
import { migrateJobs } from '@atendo/core/src/jobs/scheduler';

/**
 * Once per jest run: a PostgreSQL server (DATABASE_URL's, or an embedded one in a temp dir) and a
 * template database with every migration (kernel, the job queue's schema and all plugins), which each test kernel clones.
 * Exports ATENDO_TEST_PG_BASE (server URL) and ATENDO_TEST_TEMPLATE (template db name) to the workers.
 */
export default async function globalSetup(): Promise<void> {
  let base: string;
  if (process.env.DATABASE_URL) {
    base = process.env.DATABASE_URL;
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'atendo-test-pg-'));
    const server = await startEmbeddedPostgres(dir, Number(process.env.TEST_PG_PORT ?? 54331), 'postgres');
    (globalThis as { __ATENDO_PG__?: { stop(): Promise<void> } }).__ATENDO_PG__ = server;
    base = server.url;
  }
  const template = `atendo_tpl_${process.pid}`;
  const url = withDb(base, template);
  await dropDatabase(url);
  await ensureDatabase(url);
  const knex = createKnex(url, 2);
  try {
    await migrate(knex, 'kernel', KERNEL_MIGRATIONS);
    await migrateJobs(url);
    const defs = [];
    for (const pkg of discoverPlugins(ROOT_DIR)) defs.push(await loadDefinition(ROOT_DIR, pkg));
    for (const def of sortPlugins(defs)) if (def.migrationsDir) await migrate(knex, def.id, def.migrationsDir, def.migrationRenames);
  } finally {
    await knex.destroy();
  }
  process.env.ATENDO_TEST_PG_BASE = base;
  process.env.ATENDO_TEST_TEMPLATE = template;
}

export function withDb(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}
