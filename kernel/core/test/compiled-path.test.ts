/** Where the compiled build maps a workspace TypeScript file (kernel/core/src/runtime/compiled.ts). */
import { join } from 'node:path';
import { compiledPath } from '../src/runtime/compiled';

const ROOT = join(__dirname, '..', '..', '..');

test('a workspace package source maps to its dist twin', () => {
  expect(compiledPath(ROOT, join(ROOT, 'kernel/sdk/src/index.ts'))).toBe(join(ROOT, 'kernel/sdk/dist/src/index.js'));
  expect(compiledPath(ROOT, join(ROOT, 'plugins/tickets/migrations/20261202100000_x.ts'))).toBe(
    join(ROOT, 'plugins/tickets/dist/migrations/20261202100000_x.js'),
  );
});

test('the root package (bench, e2e, scripts), node_modules, declarations and files outside the root are not mapped', () => {
  expect(compiledPath(ROOT, join(ROOT, 'bench/seed-tickets.ts'))).toBeUndefined();
  expect(compiledPath(ROOT, join(ROOT, 'e2e/support/x.ts'))).toBeUndefined();
  expect(compiledPath(ROOT, join(ROOT, 'node_modules/x/index.ts'))).toBeUndefined();
  expect(compiledPath(ROOT, join(ROOT, 'kernel/sdk/src/types.d.ts'))).toBeUndefined();
  expect(compiledPath(ROOT, join(ROOT, 'kernel/sdk/src/index.js'))).toBeUndefined();
  expect(compiledPath(ROOT, '/elsewhere/file.ts')).toBeUndefined();
});
