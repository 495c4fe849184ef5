/**
 * The bounded sheet reader (@atendo/sheets) on the issue's large sheet (issue 18 item 3): a generated
 * .xlsx of BENCH_SHEET_ROWS rows (default 900,000: name, number, email) and the same rows as .csv.
 * Prints, for each case, the time, the peak extra RSS of the process (the worker thread included) and the
 * largest event-loop delay seen by a 10 ms timer on the main thread:
 * - the .xlsx refused at the contacts import's cap (50,000 rows): ERR_SHEET_TOO_MANY_ROWS;
 * - the .xlsx read whole, batch by batch (cap above the row count);
 * - the .csv read whole.
 *
 *   npx tsx bench/sheets.ts
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { sheetBatches } from '@atendo/sheets';

const ROWS = Number(process.env.BENCH_SHEET_ROWS ?? 900_000);
const MB = 1024 * 1024;

async function measured(label: string, fn: () => Promise<string>): Promise<void> {
  const base = process.memoryUsage().rss;
  let peak = base;
  let last = Date.now();
  let lag = 0;
  const timer = setInterval(() => {
    const now = Date.now();
    lag = Math.max(lag, now - last - 10);
    last = now;
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  const t0 = Date.now();
  let outcome: string;
  try {
    outcome = await fn();
  } catch (err) {
    outcome = `refused: ${(err as { code?: string }).code ?? String(err)}`;
  }
  clearInterval(timer);
  console.log(`| ${label} | ${outcome} | ${((Date.now() - t0) / 1000).toFixed(1)} | +${((peak - base) / MB).toFixed(0)} | ${lag} |`);
}

async function count(buf: Buffer, maxRows: number, filename: string): Promise<string> {
  let n = 0;
  for await (const batch of sheetBatches(buf, { maxRows, filename, batchSize: 2000 })) n += batch.length;
  return `${n.toLocaleString('en')} rows`;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'atendo-bench-sheets-'));
  try {
    const xlsxPath = join(dir, 'big.xlsx');
    let t0 = Date.now();
    const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: xlsxPath, useSharedStrings: false, useStyles: false, zip: { zlib: { level: 6 } } } as ConstructorParameters<typeof ExcelJS.stream.xlsx.WorkbookWriter>[0]);
    const ws = wb.addWorksheet('Contatos');
    ws.addRow(['name', 'number', 'email']).commit();
    const lines = ['name,number,email'];
    for (let i = 0; i < ROWS; i++) {
      ws.addRow([`Contato ${i}`, 5511900000000 + i, i % 3 ? '' : `c${i}@example.com`]).commit();
      lines.push(`Contato ${i},${5511900000000 + i},${i % 3 ? '' : `c${i}@example.com`}`);
    }
    ws.commit();
    await wb.commit();
    const csvPath = join(dir, 'big.csv');
    writeFileSync(csvPath, lines.join('\n'));
    lines.length = 0;
    console.log(`generated ${ROWS.toLocaleString('en')} rows in ${((Date.now() - t0) / 1000).toFixed(1)} s: .xlsx ${(statSync(xlsxPath).size / MB).toFixed(1)} MB, .csv ${(statSync(csvPath).size / MB).toFixed(1)} MB`);
    const xlsx = readFileSync(xlsxPath);
    const csv = readFileSync(csvPath);
    t0 = Date.now();
    console.log('| case | outcome | s | extra RSS MB | max event-loop delay ms |');
    console.log('|---|---|---:|---:|---:|');
    await measured('.xlsx, cap 50,000 rows', () => count(xlsx, 50_001, 'big.xlsx'));
    await measured('.xlsx read whole', () => count(xlsx, ROWS + 1, 'big.xlsx'));
    await measured('.csv read whole', () => count(csv, ROWS + 1, 'big.csv'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
