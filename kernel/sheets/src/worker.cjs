// The sheet-reading worker thread of @atendo/sheets (see index.ts). Plain CommonJS so that it runs as it is
// under tsx, jest and the compiled build (scripts/build.mjs copies non-TypeScript files of src/ beside the
// compiled ones): a worker thread gets no TypeScript transform.
//
// workerData: {kind: 'xlsx'|'xls'|'csv', buffer: Uint8Array, maxRows: number, batchSize: number}
// Posts to the parent:
//   {type: 'rows', rows: [{row, cells: string[]}]}   a batch of non-empty rows (row = the sheet's row number)
//   {type: 'end', count}                              every row was sent
//   {type: 'error', code, message}                    ERR_SHEET_TOO_MANY_ROWS | ERR_SHEET_INVALID
//   {type: 'unpacked', bytes}                         (.xlsx, before any row) the bytes it really unpacks to;
//                                                     the thread then waits for 'more' (go on) or 'stop'
// After each 'rows' message it waits for {type: 'more'} from the parent (back-pressure: at most one batch
// waits in the parent), and stops on {type: 'stop'}.
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { Readable } = require('node:stream');

const { kind, buffer, maxRows, batchSize, maxUnpackedBytes } = workerData;

let credit = null;
let stopped = false;
parentPort.on('message', (m) => {
  if (m && m.type === 'stop') stopped = true;
  if (credit) {
    const r = credit;
    credit = null;
    r();
  }
});

class TooManyRows extends Error {}
let reported = false;
/** Reports the cap at once (the parent terminates the thread: unwinding a parser can read on to its end). */
function tooMany() {
  if (!reported) parentPort.postMessage({ type: 'error', code: 'ERR_SHEET_TOO_MANY_ROWS', message: `The spreadsheet has more than ${maxRows} rows` });
  reported = true;
  throw new TooManyRows();
}
class Stopped extends Error {}

/** Text of a cell value (exceljs or SheetJS raw values): whole numbers without exponent or decimals. */
function cellText(v) {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isInteger(v) && Number.isFinite(v) ? BigInt(Math.round(v)).toString() : String(v);
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'boolean') return String(v);
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? '' : v.toISOString();
  if (typeof v === 'object') {
    if (Array.isArray(v.richText)) return v.richText.map((t) => (t && t.text) || '').join('').trim();
    if ('text' in v && v.text !== undefined) return cellText(v.text);
    if ('result' in v) return cellText(v.result);
    if ('error' in v) return '';
  }
  return String(v).trim();
}

/** The upload as a stream of 64 KiB chunks (one huge chunk would be inflated whole before the first row). */
function input() {
  const all = Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  return Readable.from(
    (function* chunks() {
      for (let i = 0; i < all.length; i += 65536) yield all.subarray(i, Math.min(all.length, i + 65536));
    })(),
  );
}

let batch = [];
let count = 0;

async function flush() {
  if (!batch.length) return;
  const rows = batch;
  batch = [];
  const wait = new Promise((r) => (credit = r));
  parentPort.postMessage({ type: 'rows', rows });
  await wait;
  if (stopped) throw new Stopped();
}

/** Adds one row (cells as read); empty rows are skipped; past maxRows the read stops. */
async function push(row, values) {
  if (stopped) throw new Stopped();
  const cells = [];
  let any = false;
  for (let i = 0; i < values.length; i++) {
    const t = cellText(values[i]);
    cells.push(t);
    if (t) any = true;
  }
  if (!any) return;
  while (cells.length && !cells[cells.length - 1]) cells.pop();
  count++;
  if (count > maxRows) tooMany();
  batch.push({ row, cells });
  if (batch.length >= batchSize) await flush();
}

/** Waits for the parent's go-ahead after a {type: 'unpacked'} report (it may refuse: then 'stop'). */
function goAhead() {
  return new Promise((r) => (credit = r)).then(() => {
    if (stopped) throw new Stopped();
  });
}

const tooLarge = () => Object.assign(new Error('The spreadsheet is too large to read once unpacked'), { invalid: true });
const unreadable = () => Object.assign(new Error('The file is not a readable .xlsx spreadsheet'), { invalid: true });

/**
 * The bytes the .xlsx really unpacks to, found the way exceljs will read it (unzipper's streaming parser
 * over the local entries, not the directory, which a "zip bomb" may contradict): every entry inflated and
 * counted, output discarded, stopping at once past `cap` (the sizes the ZIP declares are not trusted).
 */
async function unpackedBytes(cap) {
  const unzipper = require('unzipper');
  const zip = unzipper.Parse({ forceStream: true });
  const src = input();
  src.on('error', () => undefined);
  src.pipe(zip);
  let total = 0;
  try {
    for await (const entry of zip) {
      for await (const chunk of entry) {
        total += chunk.length;
        if (total > cap) throw tooLarge();
      }
    }
  } catch (err) {
    if (err && err.invalid) throw err;
    throw unreadable();
  } finally {
    src.unpipe(zip);
    src.destroy();
  }
  return total;
}

async function readXlsx() {
  // The ZIP's directory (a cheap first refusal), then every entry inflated with a hard cap on the bytes
  // actually produced: a sheet that unpacks to more than maxUnpackedBytes (a "zip bomb" whose directory
  // lies about its sizes, or far more rows than any cap) is refused after at most maxUnpackedBytes were
  // inflated, nothing written.
  // The parent then reserves that much of the importing company's temporary-disk budget (exceljs may park
  // a worksheet met before the shared strings in a temporary file: this thread's TMPDIR, a directory of
  // its own the parent removes) and says 'more' to go on, or 'stop'.
  const unzipper = require('unzipper');
  const all = Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let directory;
  try {
    directory = await unzipper.Open.buffer(all);
  } catch {
    throw unreadable();
  }
  const declared = directory.files.reduce((sum, f) => sum + (Number(f.uncompressedSize) || 0), 0);
  if (declared > maxUnpackedBytes || directory.files.some((f) => f.uncompressedSize === 0xffffffff)) throw tooLarge();
  const bytes = await unpackedBytes(maxUnpackedBytes);
  parentPort.postMessage({ type: 'unpacked', bytes });
  await goAhead();
  const ExcelJS = require('exceljs');
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(input(), {
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    styles: 'ignore',
    worksheets: 'emit',
    entries: 'ignore',
  });
  // exceljs reads a worksheet met before xl/workbook.xml (SheetJS and LibreOffice write them in that order)
  // as soon as the shared strings are known, then looks up its name in the not yet parsed workbook model and
  // throws; an empty model until xl/workbook.xml arrives avoids that (the name is not used here).
  reader.model = { sheets: [] };
  for await (const sheet of reader) {
    for await (const row of sheet) {
      // row.values is 1-based (index 0 empty).
      const values = Array.isArray(row.values) ? row.values.slice(1) : [];
      await push(row.number, values);
    }
    return; // the first worksheet only
  }
}

async function readXls() {
  const XLSX = require('@e965/xlsx');
  // sheetRows bounds what SheetJS keeps: the cap, plus the header, plus one row to tell "too many".
  const wb = XLSX.read(buffer, { type: 'buffer', sheetRows: maxRows + 2, cellFormula: false, cellHTML: false, cellStyles: false, cellDates: false, dense: true });
  const ws = wb.Sheets[wb.SheetNames[0]];
  if (!ws) throw Object.assign(new Error('The spreadsheet has no worksheet'), { invalid: true });
  const range = XLSX.utils.decode_range(ws['!ref'] || 'A1:A1');
  const grid = XLSX.utils.sheet_to_json(ws, { header: 1, raw: true, blankrows: true, defval: null });
  let rowNumber = range.s.r;
  for (const values of grid) {
    rowNumber++;
    await push(rowNumber, values || []);
  }
  // Rows SheetJS did not keep (past sheetRows) are more than the cap allows.
  const full = ws['!fullref'] ? XLSX.utils.decode_range(ws['!fullref']) : range;
  if (full.e.r > range.e.r) tooMany();
}

async function readCsv() {
  const { parse } = require('csv-parse');
  const parser = input().pipe(
    parse({ bom: true, delimiter: [',', ';', '\t'], relax_column_count: true, relax_quotes: true, skip_empty_lines: false, max_record_size: 64 * 1024, info: true }),
  );
  for await (const rec of parser) await push(rec.info.lines, rec.record);
}

(async () => {
  try {
    if (kind === 'xlsx') await readXlsx();
    else if (kind === 'xls') await readXls();
    else await readCsv();
    await flush();
    parentPort.postMessage({ type: 'end', count });
  } catch (err) {
    if (err instanceof Stopped) return;
    if (err instanceof TooManyRows || reported) return;
    parentPort.postMessage({ type: 'error', code: 'ERR_SHEET_INVALID', message: err && err.invalid ? err.message : `The file is not a readable ${kind === 'csv' ? '.csv' : `.${kind}`} spreadsheet` });
  }
  // The parent terminates the thread once it has the final message.
})();
