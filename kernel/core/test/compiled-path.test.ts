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

test('an external plugin package (tarball in node_modules, or a linked folder anywhere) maps into its own dist/', () => {
  const tarball = join(ROOT, 'node_modules/atendo-plugin-x');
  const linked = '/elsewhere/my-plugin';
  expect(compiledPath(ROOT, join(tarball, 'src/index.ts'), [tarball, linked])).toBe(join(tarball, 'dist/src/index.js'));
  expect(compiledPath(ROOT, join(linked, 'migrations/20270101000000_x.ts'), [tarball, linked])).toBe(join(linked, 'dist/migrations/20270101000000_x.js'));
  // Its own dependencies and declarations are not its sources.
  expect(compiledPath(ROOT, join(linked, 'node_modules/dep/index.ts'), [tarball, linked])).toBeUndefined();
  expect(compiledPath(ROOT, join(linked, 'src/types.d.ts'), [tarball, linked])).toBeUndefined();
  expect(compiledPath(ROOT, '/elsewhere/other/index.ts', [tarball, linked])).toBeUndefined();
});
