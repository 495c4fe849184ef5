/**
 * The floor benchmark (bench/floor.ts) in its short mode: it seeds a small company, starts Atendo (cached
 * and uncached lists, and every plugin receiving webhooks) and the floor server on one database, runs each
 * case for a second and prints its table.
 * Checks that it completes and prints every row; the figures themselves are not judged here (a smoke run
 * on a shared CI machine is not a measurement: see bench/README.md).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

jest.setTimeout(240_000);

test('npm run bench:floor completes in short mode and prints Atendo, floor and ratio per row', async () => {
  const base = new URL(process.env.ATENDO_TEST_PG_BASE!);
  base.pathname = `/atendo_floor_bench_${process.pid}`;
  const root = join(__dirname, '..');
  const out = await new Promise<{ code: number | null; text: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'bench/floor.ts')], {
      cwd: root,
      env: { ...process.env, BENCH_SHORT: '1', DATABASE_URL: base.toString(), NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.stderr.on('data', (d: Buffer) => (text += d.toString()));
    child.on('exit', (code) => resolve({ code, text }));
  });
  if (out.code !== 0) throw new Error(`bench:floor exited ${out.code}:\n${out.text.slice(-4000)}`);
  console.log(out.text.split('\n').filter((l) => !l.startsWith('{')).join('\n'));
  for (const row of ['cached GET /tickets @16', 'uncached GET /tickets @16', 'inbound webhooks @16']) {
    const line = out.text.split('\n').find((l) => l.startsWith('{') && l.includes(`"case":"${row}"`));
    expect(line).toBeDefined();
    const r = JSON.parse(line!) as Record<string, number>;
    expect(r['atendo req/s']).toBeGreaterThan(0);
    expect(r['floor req/s']).toBeGreaterThan(0);
    expect(r.errors).toBe(0);
    expect(typeof r['API CPU ratio']).toBe('number');
  }
  expect(out.text).toMatch(/statements per uncached list request/);
  expect(out.text).toMatch(/RSS after the runs \(MiB\): atendo cached \d+, atendo uncached \d+, floor \d+/);
  expect(out.text).toMatch(/RSS idle \/ after the webhook runs \(MiB\): atendo \(every plugin\) \d+ \/ \d+, floor \d+ \/ \d+/);
});
