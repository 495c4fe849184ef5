/**
 * A plugin's migration is identified by its stem, whatever runs it: TypeScript (tsx, jest), the compiled
 * build (dist/ with sourcemaps: recorded as `.ts`), or JavaScript compiled without sourcemaps (a package
 * shipped as JavaScript: recorded as `.js`). Moving a database between them renames the recorded
 * migrations instead of failing with knex's "The migration directory is corrupt" or running one twice.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestKernel, type TestKernel } from '@atendo/testing';
import { MigrationFolder, migrate } from '../src/db';

const TABLE = 'knex_migrations_stem_test';

/** A migration creating table `name` (TypeScript or CommonJS JavaScript). */
const migration = (name: string, ts: boolean) =>
  ts
    ? `import type { Knex } from 'knex';\nexport async function up(knex: Knex) { await knex.schema.createTable('${name}', (t) => t.increments('id')); }\nexport async function down(knex: Knex) { await knex.schema.dropTable('${name}'); }\n`
    : `exports.up = (knex) => knex.schema.createTable('${name}', (t) => t.increments('id'));\nexports.down = (knex) => knex.schema.dropTable('${name}');\n`;

describe('migrations recorded by stem across TypeScript and JavaScript', () => {
  let k: TestKernel;
  const root = mkdtempSync(join(tmpdir(), 'atendo-migration-names-'));
  const folder = (name: string, files: Record<string, string>) => {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
    return dir;
  };
  const recorded = async () => (await k.db(TABLE).orderBy('id').select('name')).map((r: { name: string }) => r.name);

  beforeAll(async () => {
    k = await createTestKernel({ plugins: [] });
  });
  afterAll(async () => {
    await k?.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('TypeScript in development, JavaScript without sourcemaps, back to TypeScript: each migration runs once', async () => {
    // Version 1 developed in TypeScript.
    const dev = folder('dev/migrations', { '20270101000000_stem_a.ts': migration('stem_test_a', true) });
    expect(await migrate(k.db, 'stem-test', dev)).toEqual(['20270101000000_stem_a.ts']);

    // Version 2 installed as JavaScript compiled without sourcemaps, with a second migration.
    const js = folder('pkg/dist/migrations', { '20270101000000_stem_a.js': migration('stem_test_a', false), '20270102000000_stem_b.js': migration('stem_test_b', false) });
    expect(new MigrationFolder(js).getMigrationName('20270101000000_stem_a.js')).toBe('20270101000000_stem_a.js');
    expect(await migrate(k.db, 'stem-test', js)).toEqual(['20270102000000_stem_b.js']);
    expect(await recorded()).toEqual(['20270101000000_stem_a.js', '20270102000000_stem_b.js']);

    // Back to the TypeScript sources: nothing to run, the names follow the folder.
    const back = folder('dev2/migrations', { '20270101000000_stem_a.ts': migration('stem_test_a', true), '20270102000000_stem_b.ts': migration('stem_test_b', true) });
    expect(await migrate(k.db, 'stem-test', back)).toEqual([]);
    expect(await recorded()).toEqual(['20270101000000_stem_a.ts', '20270102000000_stem_b.ts']);
    expect(await k.db.schema.hasTable('stem_test_a')).toBe(true);
    expect(await k.db.schema.hasTable('stem_test_b')).toBe(true);
  });

  test('a recorded migration missing from the folder under every extension is still refused', async () => {
    const partial = folder('partial/migrations', { '20270101000000_stem_a.ts': migration('stem_test_a', true) });
    await expect(migrate(k.db, 'stem-test', partial)).rejects.toThrow(/corrupt/i);
  });
});
