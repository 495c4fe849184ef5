/**
 * The repository owns what its tests and docs use (issue 31, item 8): a fresh clone with nothing beside it
 * runs `npm test`. No tracked file may read or point to the project's shared folder outside the checkout
 * (the recorded channel payloads live in `fixtures/channels`, the Graph API notes in `docs/GRAPH_API.md`),
 * and the fixture helpers resolve inside the repository.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..');

/** The tracked files (what a clone gets). */
function trackedFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\0')
    .filter(Boolean);
}

// Built from parts so this file does not match itself.
const SHARED = 'sha' + 'red';
const OUTSIDE = [
  new RegExp(`\\.\\.[/\\\\]${SHARED}\\b`), // the folder beside the checkout, either separator
  new RegExp(`${SHARED}[/\\\\]fixtures`), // its fixtures folder
  new RegExp(`['"\`]${SHARED}['"\`]`), // a path built from parts: join(__dirname, '..', <that name>, ...)
  new RegExp(`/work/${SHARED}\\b`),
  new RegExp('ATENDO_FIXTURES' + '_DIR'), // the old override of the outside folder
];

describe('a clone is self-contained', () => {
  test('no tracked file reads or points to the shared folder outside the repository', () => {
    const hits: string[] = [];
    for (const file of trackedFiles()) {
      if (file === 'package-lock.json') continue; // package metadata, not ours
      const path = join(ROOT, file);
      if (!existsSync(path)) continue; // deleted in the work tree, not yet committed
      const text = readFileSync(path, 'utf8');
      text.split('\n').forEach((line, i) => {
        if (OUTSIDE.some((re) => re.test(line))) hits.push(`${file}:${i + 1}: ${line.trim().slice(0, 160)}`);
      });
    }
    expect(hits).toEqual([]);
  });

  test('the recorded channel payloads are in the repository, with their sources', () => {
    const dir = join(ROOT, 'fixtures', 'channels');
    const tracked = new Set(trackedFiles()); // each file is tracked, not just present in this work tree
    for (const folder of ['whatsapp-cloud', 'whatsapp-baileys', 'messenger', 'instagram']) {
      const files = readdirSync(join(dir, folder)).filter((f) => f.endsWith('.json'));
      expect(files.length).toBeGreaterThan(0);
      for (const f of files) expect(tracked.has(`fixtures/channels/${folder}/${f}`)).toBe(true);
    }
    expect(existsSync(join(dir, 'SOURCES.md'))).toBe(true);
    expect(existsSync(join(ROOT, 'docs', 'GRAPH_API.md'))).toBe(true);
  });

  test('the fixture helpers of the tests resolve inside the repository', async () => {
    const helpers = [
      '../channels/meta-common/test/fixtures',
      '../channels/whatsapp/test/fixtures',
      '../plugins/channels/test/helpers',
    ];
    for (const h of helpers) {
      const { FIXTURES_DIR } = (await import(h)) as { FIXTURES_DIR: string };
      const rel = relative(ROOT, FIXTURES_DIR);
      expect(rel.startsWith('fixtures')).toBe(true);
      expect(existsSync(FIXTURES_DIR)).toBe(true);
    }
  });
});
