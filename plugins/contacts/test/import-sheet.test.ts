/**
 * Sheet imports through the bounded reader (@atendo/sheets): 1,000 contacts with one bad row (reported by
 * its row number, the 999 others stored, progress on the socket), a .csv, and a sheet under the upload
 * limit (240,000 rows in 3.3 MB, far past the 50,000-row cap) refused with 400 ERR_SHEET_TOO_MANY_ROWS while
 * `/health` keeps answering fast and the process's memory stays bounded.
 */
import ExcelJS from 'exceljs';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestKernel, waitFor, type TestKernel } from '@atendo/testing';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

function multipart(filename: string, content: Buffer, type = XLSX_TYPE) {
  const boundary = `----atendo${Math.random().toString(16).slice(2)}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { payload: Buffer.concat([head, content, tail]), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

let k: TestKernel;
beforeAll(async () => {
  k = await createTestKernel({ plugins: [tagsPlugin, contactsPlugin] });
});
afterAll(async () => {
  await k?.close();
});

interface Progress {
  action: string;
  jobId: string;
  status: string;
  processed: number;
  total: number;
  created: number;
  updated: number;
  errors: { row: number; error: string }[];
}

test('an .xlsx of 1,000 contacts with one bad row: the row reported, the 999 others stored, progress on the socket', async () => {
  const c = await k.createCompany();
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Contatos');
  ws.addRow(['Nome', 'Telefone', 'Email']);
  for (let i = 0; i < 1000; i++) ws.addRow([`Cliente ${i}`, i === 500 ? '55 11 9x00-0500' : 5511970000000 + i, i % 2 ? `c${i}@example.com` : '']);
  const buf = Buffer.from(await wb.xlsx.writeBuffer());
  const socket = await k.socket(c.admin.token, await k.listen());
  const events: Progress[] = [];
  socket.on(`company-${c.companyId}-contact`, (e: Progress) => events.push(e));
  try {
    const { payload, headers } = multipart('clientes.xlsx', buf);
    const res = await k.as(c.admin, 'POST', '/contacts/upload', payload, headers);
    expect(res.statusCode).toBe(202);
    expect(res.json().total).toBe(1000);
    const done = await waitFor(() => events.find((e) => e.action === 'import-done'), 30_000);
    expect(done).toMatchObject({ status: 'done', processed: 1000, total: 1000, created: 999, updated: 0 });
    // Row 502 of the sheet: the header is row 1, contact i is row i + 2.
    expect(done!.errors).toEqual([{ row: 502, error: expect.stringMatching(/Only numbers/) }]);
    const progress = events.filter((e) => e.action === 'import-progress');
    expect(progress.length).toBeGreaterThanOrEqual(10);
    expect(progress.map((p) => p.processed)).toEqual([...progress.map((p) => p.processed)].sort((a, b) => a - b));
    const stored = await k.db('contacts').where({ companyId: c.companyId }).count<{ count: string }[]>('* as count');
    expect(Number(stored[0].count)).toBe(999);
    expect(await k.db('contacts').where({ companyId: c.companyId, number: '5511970000999' }).first()).toMatchObject({ name: 'Cliente 999', email: 'c999@example.com' });
    expect(await k.db('contacts').where({ companyId: c.companyId, name: 'Cliente 500' }).first()).toBeUndefined();
  } finally {
    socket.close();
  }
}, 60_000);

test('a .csv is imported too; a sheet from another company is never seen', async () => {
  const a = await k.createCompany();
  const b = await k.createCompany();
  const { payload, headers } = multipart('lista.csv', Buffer.from('nome;numero;email\nAna CSV;5511960000001;\nBia CSV;5511960000002;bia@example.com\n'), 'text/csv');
  const res = await k.as(a.admin, 'POST', '/contacts/upload', payload, headers);
  expect(res.statusCode).toBe(202);
  const { jobId } = res.json();
  await waitFor(async () => (await k.as(a.admin, 'GET', `/contacts/import/${jobId}`)).json().status === 'done', 10_000);
  expect((await k.as(a.admin, 'GET', `/contacts/import/${jobId}`)).json()).toMatchObject({ created: 2, errors: [] });
  expect((await k.as(b.admin, 'GET', `/contacts/import/${jobId}`)).statusCode).toBe(404);
  expect(await k.db('contacts').where({ companyId: b.companyId }).first()).toBeUndefined();
});

test('a 240,000-row sheet under the 5 MB limit (far past the 50,000-row cap) is refused with bounded memory while /health stays fast', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'atendo-contacts-'));
  try {
    const path = join(dir, 'max.xlsx');
    const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: false, useStyles: false } as ConstructorParameters<typeof ExcelJS.stream.xlsx.WorkbookWriter>[0]);
    const ws = wb.addWorksheet('Contatos');
    ws.addRow(['name', 'number']).commit();
    const ROWS = 240_000;
    for (let i = 0; i < ROWS; i++) ws.addRow([`Contato ${i}`, 5511900000000 + i]).commit();
    ws.commit();
    await wb.commit();
    const buf = readFileSync(path);
    expect(buf.length).toBeLessThan(5 * 1024 * 1024);
    const c = await k.createCompany();
    const { payload, headers } = multipart('max.xlsx', buf);

    const base = process.memoryUsage().rss;
    let peak = base;
    let slowest = 0;
    let probes = 0;
    let finished = false;
    const upload = k.as(c.admin, 'POST', '/contacts/upload', payload, headers).finally(() => (finished = true));
    while (!finished) {
      const t0 = performance.now();
      const health = await k.app.inject({ method: 'GET', url: '/health' });
      slowest = Math.max(slowest, performance.now() - t0);
      probes++;
      expect(health.statusCode).toBe(200);
      peak = Math.max(peak, process.memoryUsage().rss);
      await new Promise((r) => setTimeout(r, 20));
    }
    const res = await upload;
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'ERR_SHEET_TOO_MANY_ROWS' });
    const extraMb = (peak - base) / 1024 / 1024;
    console.log(`${ROWS}-row, ${(buf.length / 1024 / 1024).toFixed(2)} MB sheet refused: /health slowest ${slowest.toFixed(0)} ms over ${probes} probes, +${extraMb.toFixed(0)} MB RSS`);
    expect(probes).toBeGreaterThan(3);
    expect(extraMb).toBeLessThan(200);
    // The issue asks for < 100 ms; the margin is for a loaded 2-core CI machine (a parse on the event loop blocks for seconds).
    expect(slowest).toBeLessThan(300);
    expect(await k.db('contacts').where({ companyId: c.companyId }).first()).toBeUndefined();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

test('a 600 MiB spreadsheet bomb in a small upload (its ZIP declares 1 KiB) from a plain user: 400 ERR_SHEET_INVALID, memory bounded, nothing left in the temporary directory', async () => {
  const { lyingXlsx } = await import('../../../kernel/sheets/test/generate');
  const bomb = await lyingXlsx(600 * 1024 * 1024);
  expect(bomb.length).toBeLessThan(1.5 * 1024 * 1024);
  const c = await k.createCompany();
  const user = await k.createUser(c.companyId, { profile: 'user' });
  const saved = process.env.TMPDIR;
  const tmp = mkdtempSync(join(tmpdir(), 'atendo-bomb-'));
  process.env.TMPDIR = tmp;
  try {
    const base = process.memoryUsage().rss;
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const { payload, headers } = multipart('bomb.xlsx', bomb);
    const res = await k.as(user, 'POST', '/contacts/upload', payload, headers).finally(() => clearInterval(sampler));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'ERR_SHEET_INVALID', message: 'The spreadsheet is too large to read once unpacked' });
    expect((peak - base) / (1024 * 1024)).toBeLessThan(150);
    expect(readdirSync(tmp)).toEqual([]);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    rmSync(tmp, { recursive: true, force: true });
  }
}, 60_000);
