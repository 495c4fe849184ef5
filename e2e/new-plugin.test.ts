/**
 * `npm run new:plugin -- <id>` (scripts/new-plugin.mjs) copies plugins/_template into a plugin: every spelling
 * of the placeholder replaced, the package marked as a plugin, a fresh migration timestamp, and a result
 * that type-checks as it is.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..');
const run = (args: string[]) => execFileSync(process.execPath, [join(ROOT, 'scripts', 'new-plugin.mjs'), ...args], { encoding: 'utf8', stdio: 'pipe' });
const walk = (dir: string): string[] => readdirSync(dir).flatMap((e) => (statSync(join(dir, e)).isDirectory() ? walk(join(dir, e)) : [join(dir, e)]));

describe('new:plugin', () => {
  // Inside the repository (in the git-ignored .data/) so the copy resolves packages as a real plugin would.
  mkdirSync(join(ROOT, '.data'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, '.data', 'new-plugin-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('creates plugins/<id> from the template, renamed in every spelling', () => {
    const out = run(['work-schedules', '--dir', dir]);
    expect(out).toMatch(/created .*work-schedules/);
    const target = join(dir, 'work-schedules');
    const files = walk(target).map((f) => f.slice(target.length + 1)).sort();
    const migration = files.find((f) => f.startsWith('migrations/'))!;
    expect(migration).toMatch(/^migrations\/\d{14}_work_schedules\.ts$/);
    expect(migration).not.toBe('migrations/20261201000000_work_schedules.ts');
    expect(files).toEqual(expect.arrayContaining(['README.md', 'package.json', 'src/index.ts', 'src/contract.ts', 'src/seed.ts', 'src/routes/entries.ts', 'src/schemas/entries.ts', 'src/services/entries.ts', 'test/my-feature.test.ts'.replace('my-feature', 'work-schedules')]));
    for (const f of walk(target)) expect({ f, left: readFileSync(f, 'utf8').match(/my-feature|myFeature|MyFeature|my_feature|MY_FEATURE|template-only/g) }).toEqual({ f, left: null });
    const pkg = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({ name: '@atendo/plugin-work-schedules', atendo: { role: 'plugin' }, exports: { './contract': './src/contract.ts' } });
    const contract = readFileSync(join(target, 'src', 'contract.ts'), 'utf8');
    expect(contract).toContain("defineService<WorkSchedulesService>('work-schedules')");
    expect(contract).toContain('ERR_NO_WORK_SCHEDULES_ENTRY_FOUND');
    expect(readFileSync(join(target, 'src', 'index.ts'), 'utf8')).toContain("id: 'work-schedules'");
    expect(readFileSync(join(target, migration), 'utf8')).toContain("createTable('work_schedules_entries'");
  });

  test('the generated plugin type-checks', () => {
    const target = join(dir, 'work-schedules');
    const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!;
    const program = ts.createProgram(walk(target).filter((f) => f.endsWith('.ts')), config.options);
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).toEqual([]);
  }, 120_000);

  test('refuses a bad id, a reserved id and an existing folder', () => {
    for (const args of [['Bad_Id', '--dir', dir], ['my-feature', '--dir', dir], ['work-schedules', '--dir', dir], ['--dir', dir]]) {
      expect(() => run(args)).toThrow(/new:plugin: /);
    }
  });
});
