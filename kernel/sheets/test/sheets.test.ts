/**
 * The bounded sheet reader: the three kinds, row numbers, refusals with their catalogue codes, and a large
 * generated .xlsx (SHEETS_TEST_ROWS rows, default 200,000; bench/sheets.ts measures 900,000) refused at the
 * row cap and read whole while the process's memory stays bounded and its event loop free.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import * as XLSX from '@e965/xlsx';
import { AppError } from '@atendo/sdk';
import { CONTACT_COLUMNS, findColumns, headerKey, readSheet, sheetBatches, sheetDiskInUse, sheetKind } from '@atendo/sheets';
import { lyingXlsx, writeContactsXlsx } from './generate';

async function xlsx(rows: unknown[][]): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('S');
  for (const r of rows) ws.addRow(r);
  return Buffer.from(await wb.xlsx.writeBuffer());
}
function xls(rows: unknown[][]): Buffer {
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(rows), 'S');
  return XLSX.write(wb, { type: 'buffer', bookType: 'biff8' }) as Buffer;
}
async function failure(p: Promise<unknown>): Promise<{ code: string; status: number; message: string }> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    return { code: e.code, status: e.statusCode, message: e.message };
  }
  throw new Error('expected a refusal');
}

describe('kinds and rows', () => {
  const rows = [['Nome', 'Número', 'E-mail'], ['Ana', 5511987654321, 'ana@example.com'], [], ['Bruno', '5511912345678']];
  const expected = [
    { row: 1, cells: ['Nome', 'Número', 'E-mail'] },
    { row: 2, cells: ['Ana', '5511987654321', 'ana@example.com'] },
    { row: 4, cells: ['Bruno', '5511912345678'] },
  ];

  test('.xlsx, .xls and .csv give the same non-empty rows with their sheet row numbers; long numbers stay whole', async () => {
    expect(await readSheet(await xlsx(rows), { maxRows: 10 })).toEqual(expected);
    expect(await readSheet(xls(rows), { maxRows: 10 })).toEqual(expected);
    const csv = Buffer.from('\ufeffNome;Número;E-mail\n"Ana";5511987654321;ana@example.com\n\nBruno;5511912345678\n');
    expect(await readSheet(csv, { maxRows: 10, filename: 'c.csv' })).toEqual(expected);
  });

  test('the kind comes from the content; what is not accepted is 415 ERR_UPLOAD_TYPE naming the accepted kinds', async () => {
    expect(sheetKind(await xlsx(rows))).toBe('xlsx');
    expect(sheetKind(xls(rows))).toBe('xls');
    expect(sheetKind(Buffer.from('a,b\n'), { filename: 'x.csv' })).toBe('csv');
    expect(() => sheetKind(Buffer.from('a,b\n'), { filename: 'x.xlsx' })).toThrow(/\.xlsx, \.xls, \.csv/);
    const png = await failure(readSheet(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]), { maxRows: 10 }));
    expect(png).toMatchObject({ code: 'ERR_UPLOAD_TYPE', status: 415 });
    const onlyXlsx = await failure(readSheet(xls(rows), { maxRows: 10, accept: ['xlsx'] }));
    expect(onlyXlsx).toMatchObject({ code: 'ERR_UPLOAD_TYPE', message: 'Only .xlsx spreadsheets can be imported' });
  });

  test('an unreadable file of an accepted kind is 400 ERR_SHEET_INVALID', async () => {
    const zip = await failure(readSheet(Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(200, 7)]), { maxRows: 10 }));
    expect(zip).toMatchObject({ code: 'ERR_SHEET_INVALID', status: 400, message: expect.stringMatching(/\.xlsx/) });
    const ole = await failure(readSheet(Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(512)]), { maxRows: 10 }));
    expect(ole).toMatchObject({ code: 'ERR_SHEET_INVALID', status: 400 });
  });

  test('an .xlsx whose directory says it unpacks past maxUnpackedMb is refused before it is inflated', async () => {
    // 640 KB of text that compresses to a few KB.
    const big = await xlsx([['n'], ...Array.from({ length: 20 }, (_, i) => [`${i}:${'x'.repeat(32_000)}`])]);
    expect(big.length).toBeLessThan(64 * 1024);
    expect(await readSheet(big, { maxRows: 100 })).toHaveLength(21);
    const refused = await failure(readSheet(big, { maxRows: 100, maxUnpackedMb: 0.5 }));
    expect(refused).toMatchObject({ code: 'ERR_SHEET_INVALID', message: 'The spreadsheet is too large to read once unpacked' });
  });

  test('one row past the cap is 400 ERR_SHEET_TOO_MANY_ROWS, for each kind', async () => {
    const many = [['n'], ...Array.from({ length: 30 }, (_, i) => [`55119000000${i + 10}`])];
    for (const buf of [await xlsx(many), xls(many), Buffer.from(many.map((r) => r.join(',')).join('\n'))]) {
      expect(await readSheet(buf, { maxRows: 31, filename: 'x.csv' })).toHaveLength(31);
      expect(await failure(readSheet(buf, { maxRows: 30, filename: 'x.csv' }))).toMatchObject({ code: 'ERR_SHEET_TOO_MANY_ROWS', status: 400 });
    }
  });

  test('findColumns matches header names without case, accents or separators', () => {
    expect(headerKey('E-mail')).toBe('email');
    expect(findColumns(['Telefone', 'NOME', 'x', 'e-mail'], CONTACT_COLUMNS)).toEqual({ number: 0, name: 1, email: 3 });
    expect(findColumns(['a', 'b'], CONTACT_COLUMNS)).toEqual({});
  });
});

describe('a ZIP lying about its sizes (spreadsheet bomb)', () => {
  const MB = 1024 * 1024;
  let tmp: string;
  let savedTmp: string | undefined;
  beforeEach(() => {
    // A temporary directory of this test's own: whatever a read leaves there shows.
    savedTmp = process.env.TMPDIR;
    tmp = mkdtempSync(join(tmpdir(), 'atendo-bomb-'));
    process.env.TMPDIR = tmp;
  });
  afterEach(() => {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    rmSync(tmp, { recursive: true, force: true });
  });

  test('a sheet declaring 1 KiB that unpacks to 64 MiB is refused at the cap actually inflated: bounded memory, nothing left on disk', async () => {
    const bomb = await lyingXlsx(64 * MB);
    expect(bomb.length).toBeLessThan(200 * 1024);
    const base = process.memoryUsage().rss;
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const t0 = Date.now();
    const refused = await failure(readSheet(bomb, { maxRows: 100, maxUnpackedMb: 8 })).finally(() => clearInterval(sampler));
    expect(refused).toMatchObject({ code: 'ERR_SHEET_INVALID', status: 400, message: 'The spreadsheet is too large to read once unpacked' });
    // Stopped at 8 MiB of output, not after the 64 MiB.
    expect(Date.now() - t0).toBeLessThan(3000);
    expect((peak - base) / MB).toBeLessThan(100);
    expect(readdirSync(tmp)).toEqual([]);
  });

  test('a lying sheet within the cap is read; the worksheet exceljs parked in a temporary file is removed', async () => {
    const small = await lyingXlsx(2 * MB);
    expect(await readSheet(small, { maxRows: 100 })).toEqual([{ row: 1, cells: ['number'] }]);
    expect(readdirSync(tmp)).toEqual([]);
  });

  test("one company's reads under way hold at most maxOwnerDiskMb: another is 429 until the first ends", async () => {
    const a = await lyingXlsx(3 * MB);
    const first = sheetBatches(a, { maxRows: 100, owner: 'company:7', maxOwnerDiskMb: 4, batchSize: 1 });
    expect((await first.next()).value).toEqual([{ row: 1, cells: ['number'] }]);
    expect(sheetDiskInUse('company:7')).toBeGreaterThan(3 * MB);
    const busy = await failure(readSheet(a, { maxRows: 100, owner: 'company:7', maxOwnerDiskMb: 4 }));
    expect(busy).toMatchObject({ code: 'ERR_TOO_MANY_REQUESTS', status: 429 });
    // Another company is not held back.
    expect(await readSheet(a, { maxRows: 100, owner: 'company:8', maxOwnerDiskMb: 4 })).toHaveLength(1);
    await first.return(undefined);
    expect(sheetDiskInUse('company:7')).toBe(0);
    expect(await readSheet(a, { maxRows: 100, owner: 'company:7', maxOwnerDiskMb: 4 })).toHaveLength(1);
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe('a large generated sheet', () => {
  const ROWS = Number(process.env.SHEETS_TEST_ROWS ?? 200_000);
  const MB = 1024 * 1024;
  let dir: string;
  let buf: Buffer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'atendo-sheets-'));
    await writeContactsXlsx(join(dir, 'big.xlsx'), ROWS);
    buf = readFileSync(join(dir, 'big.xlsx'));
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs `fn` while sampling the process's RSS and the event loop's largest delay. */
  async function measured<T>(fn: () => Promise<T>): Promise<{ value?: T; error?: unknown; extraMb: number; maxLagMs: number }> {
    const base = process.memoryUsage().rss;
    let peak = base;
    let last = Date.now();
    let maxLag = 0;
    const timer = setInterval(() => {
      const now = Date.now();
      maxLag = Math.max(maxLag, now - last - 10);
      last = now;
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 10);
    try {
      return { value: await fn(), extraMb: (peak - base) / MB, maxLagMs: maxLag };
    } catch (error) {
      return { error, extraMb: (peak - base) / MB, maxLagMs: maxLag };
    } finally {
      clearInterval(timer);
    }
  }

  test('refused at a 50,000-row cap without reading on, memory bounded, the event loop free', async () => {
    const t0 = Date.now();
    const r = await measured(() => readSheet(buf, { maxRows: 50_001 }));
    expect(r.error).toBeInstanceOf(AppError);
    expect((r.error as AppError).code).toBe('ERR_SHEET_TOO_MANY_ROWS');
    expect(r.extraMb).toBeLessThan(200);
    // A synchronous parse would block for seconds; the margin is for a loaded 2-core CI machine.
    expect(r.maxLagMs).toBeLessThan(1000);
    console.log(`cap refusal of a ${ROWS}-row, ${(buf.length / MB).toFixed(1)} MB sheet: ${Date.now() - t0} ms, +${r.extraMb.toFixed(0)} MB RSS, event loop lag ≤ ${r.maxLagMs} ms`);
  }, 60_000);

  test('read whole, batch by batch, by a slow consumer: every row in order, memory bounded', async () => {
    const t0 = Date.now();
    const r = await measured(async () => {
      let n = 0;
      let prev = 0;
      for await (const batch of sheetBatches(buf, { maxRows: ROWS + 1, batchSize: 2000 })) {
        for (const row of batch) {
          if (row.row !== prev + 1) throw new Error(`row ${row.row} after ${prev}`);
          prev = row.row;
        }
        n += batch.length;
        if (n === 2001) expect(batch[0].cells).toEqual(['Contato 1999', '5511900001999']);
        // A consumer slower than the parser: the worker must wait, not pile rows up.
        if (n % 40_000 < 2000) await new Promise((res) => setTimeout(res, 50));
      }
      return n;
    });
    expect(r.error).toBeUndefined();
    expect(r.value).toBe(ROWS + 1);
    expect(r.extraMb).toBeLessThan(200);
    console.log(`full read of ${ROWS + 1} rows: ${Date.now() - t0} ms, +${r.extraMb.toFixed(0)} MB RSS, event loop lag ≤ ${r.maxLagMs} ms`);
  }, 60_000);
});
