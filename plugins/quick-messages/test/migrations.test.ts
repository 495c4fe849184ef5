/**
 * The quick-messages migration moved from 20261121000700 (the timestamp of contacts' migration) to
 * 20261121000800. A database migrated before the move records the old name in
 * knex_migrations_quick_messages: booting must keep the migration applied (no re-run, no "missing file"),
 * and record the new name.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createTestKernel, type TestKernel } from '@atendo/testing';
import quickMessages from '../src/index';

const OLD = '20261121000700_quick_messages.ts';
const NEW = '20261121000800_quick_messages.ts';

describe('quick-messages migration rename', () => {
  let k: TestKernel;
  beforeAll(async () => {
    k = await createTestKernel({ plugins: [quickMessages] });
  });
  afterAll(() => k.close());

  const recorded = async () => (await k.db('knex_migrations_quick_messages').orderBy('id').select('name')).map((r: { name: string }) => r.name);

  test('the folder holds the new file only, and the rename is declared', () => {
    expect(existsSync(join(quickMessages.migrationsDir!, NEW))).toBe(true);
    expect(existsSync(join(quickMessages.migrationsDir!, OLD))).toBe(false);
    expect(quickMessages.migrationRenames).toEqual({ [OLD.replace(/\.ts$/, '')]: NEW.replace(/\.ts$/, '') });
  });

  test('a database that ran the migration under its old name boots without running it again', async () => {
    expect(await recorded()).toEqual([NEW]);
    const c = await k.createCompany();
    await k.db('quickMessages').insert({ companyId: c.companyId, shortcode: 'antes', message: 'criada antes da troca' });
    await k.db('knex_migrations_quick_messages').update({ name: OLD });

    // Without the declared rename, knex refuses the boot (the recorded file is missing).
    const { migrationRenames: _dropped, ...withoutRename } = quickMessages;
    await expect(createTestKernel({ dbName: k.dbName, plugins: [withoutRename] })).rejects.toThrow(/corrupt|missing/i);
    expect(await recorded()).toEqual([OLD]);

    const k2 = await createTestKernel({ dbName: k.dbName, plugins: [quickMessages] });
    try {
      expect(await recorded()).toEqual([NEW]);
      expect(await k2.db('quickMessages').where({ companyId: c.companyId }).select('shortcode')).toEqual([{ shortcode: 'antes' }]);
      const res = await k2.as({ token: k2.tokenFor(c.admin) }, 'GET', '/quick-messages');
      expect(res.json()).toMatchObject({ count: 1, records: [{ shortcode: 'antes' }] });
    } finally {
      await k2.close();
    }
    // Idempotent: a second boot with the new name recorded changes nothing.
    const k3 = await createTestKernel({ dbName: k.dbName, plugins: [quickMessages] });
    await k3.close();
    expect(await recorded()).toEqual([NEW]);
  });
});
