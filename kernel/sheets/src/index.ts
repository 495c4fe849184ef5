/**
 * @atendo/sheets: the one bounded spreadsheet reader of every import (contacts, campaign contact lists).
 *
 * A sheet is read in a worker thread, so parsing never blocks the event loop (`/health` keeps answering),
 * row by row: .xlsx with exceljs's streaming workbook reader (the worksheet XML is never held whole), .xls
 * (BIFF, not streamable) with SheetJS keeping at most the capped rows, .csv with csv-parse (`,`, `;` or tab).
 * Memory stays bounded three ways: the caller's byte limit on the upload, the row cap (the read stops at
 * the first row past it, without reading the rest) and a heap cap on the worker (a sheet that would need
 * more, e.g. millions of distinct shared strings, is refused instead of growing the process). Disk too: an
 * .xlsx is first inflated with a hard cap on the bytes produced (a ZIP lying about its sizes is refused
 * after at most `maxUnpackedMb`), the worker's temporary files live in a directory of its own removed when
 * the read ends (however it ends), and an owner's (company's) reads under way hold at most `maxOwnerDiskMb`. Rows travel
 * to the caller in batches with back-pressure (the worker waits until the caller took the previous batch).
 * At most MAX_CONCURRENT_READS sheets are read at once per process; further reads wait their turn.
 *
 * Errors (catalogue codes, thrown as AppError): 415 ERR_UPLOAD_TYPE (not one of the accepted kinds, by
 * content: ZIP for .xlsx, OLE for .xls, text for .csv), 400 ERR_SHEET_TOO_MANY_ROWS (more non-empty rows than
 * `maxRows`), 400 ERR_SHEET_INVALID (unreadable, or too large to read within the heap cap).
 */
import { Worker } from 'node:worker_threads';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '@atendo/sdk';

/** The spreadsheet formats read. */
export type SheetKind = 'xlsx' | 'xls' | 'csv';
export const SHEET_KINDS: readonly SheetKind[] = ['xlsx', 'xls', 'csv'];

/** One non-empty row: `row` is its number in the sheet (as Excel shows it; the line for .csv), `cells` its texts (trailing empty cells dropped). */
export interface SheetRow {
  row: number;
  cells: string[];
}

export interface ReadSheetOptions {
  /** Most non-empty rows (the header row included) read; one more: 400 ERR_SHEET_TOO_MANY_ROWS. */
  maxRows: number;
  /** Kinds accepted (default all three); another: 415 ERR_UPLOAD_TYPE. */
  accept?: readonly SheetKind[];
  /** The uploaded file's name: tells a .csv from other text (default: any text is read as .csv when accepted). */
  filename?: string;
  /** Rows per batch handed over (default 500). */
  batchSize?: number;
  /** The worker's heap cap in MiB (default 128): a sheet needing more is refused (ERR_SHEET_INVALID). */
  maxHeapMb?: number;
  /**
   * Most bytes an .xlsx may unpack to (default 512 MiB): counted while inflating (the sizes its ZIP declares
   * are not trusted), stopping at once past it; more: ERR_SHEET_INVALID, with nothing written to disk.
   */
  maxUnpackedMb?: number;
  /**
   * Whose temporary-disk budget the read counts against (e.g. `company:12`): the .xlsx reads of one owner
   * under way at once in this process may hold at most `maxOwnerDiskMb` unpacked bytes (what exceljs may
   * park in a temporary file); past it, 429 ERR_TOO_MANY_REQUESTS until one ends. Default: no owner.
   */
  owner?: string;
  /** The owner's budget of unpacked bytes of reads under way at once, MiB (default 512). */
  maxOwnerDiskMb?: number;
}

/** Unpacked bytes of the .xlsx reads under way in this process, by owner (their temporary-disk budget). */
const ownerBytes = new Map<string, number>();

/** Bytes the .xlsx reads under way hold by owner (what `maxOwnerDiskMb` bounds), for tests and metrics. */
export function sheetDiskInUse(owner: string): number {
  return ownerBytes.get(owner) ?? 0;
}

/** Sheets read at the same time in one process (others wait). */
export const MAX_CONCURRENT_READS = 2;

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];
const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0];
const starts = (buf: Uint8Array, magic: number[]) => magic.every((b, i) => buf[i] === b);

/** Whether the start of `buf` looks like text (no NUL and few control bytes): what a .csv must be. */
function looksLikeText(buf: Uint8Array): boolean {
  const n = Math.min(buf.length, 4096);
  let control = 0;
  for (let i = 0; i < n; i++) {
    const b = buf[i];
    if (b === 0) return false;
    if (b < 9 || (b > 13 && b < 32)) control++;
  }
  return control <= n / 100;
}

const label = (k: SheetKind) => `.${k}`;

/**
 * The kind of an uploaded sheet, by its content (the name only tells .csv from other text): 415
 * ERR_UPLOAD_TYPE when it is none of `accept`.
 */
export function sheetKind(buf: Uint8Array, opts: { accept?: readonly SheetKind[]; filename?: string } = {}): SheetKind {
  const accept = opts.accept ?? SHEET_KINDS;
  const refuse = () => new AppError('ERR_UPLOAD_TYPE', `Only ${accept.map(label).join(', ')} spreadsheets can be imported`);
  let kind: SheetKind | undefined;
  if (starts(buf, ZIP_MAGIC)) kind = 'xlsx';
  else if (starts(buf, OLE_MAGIC)) kind = 'xls';
  else if (buf.length && looksLikeText(buf) && (!opts.filename || /\.(csv|txt)$/i.test(opts.filename))) kind = 'csv';
  if (!kind || !accept.includes(kind)) throw refuse();
  return kind;
}

let active = 0;
const waiting: (() => void)[] = [];
async function acquire(): Promise<() => void> {
  if (active >= MAX_CONCURRENT_READS) await new Promise<void>((r) => waiting.push(r));
  active++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    active--;
    waiting.shift()?.();
  };
}

type WorkerMessage =
  | { type: 'rows'; rows: SheetRow[] }
  | { type: 'unpacked'; bytes: number }
  | { type: 'end'; count: number }
  | { type: 'error'; code: 'ERR_SHEET_TOO_MANY_ROWS' | 'ERR_SHEET_INVALID'; message: string };

/**
 * Reads the first worksheet of `buf` in a worker thread and yields its non-empty rows in batches, in order.
 * Stopping early (`break`) stops the worker. Throws the errors of the module comment; nothing is yielded
 * for a refused kind, and rows already yielded stand when a later row breaks the cap (use `readSheet` to
 * get all or nothing).
 */
export async function* sheetBatches(buf: Uint8Array, opts: ReadSheetOptions): AsyncGenerator<SheetRow[], void, undefined> {
  const kind = sheetKind(buf, opts);
  const release = await acquire();
  // A copy the worker owns (transferred, not cloned): the caller's buffer may be a slice of a pool.
  const data = new Uint8Array(buf.byteLength);
  data.set(buf);
  const heap = opts.maxHeapMb ?? 128;
  // The thread's own temporary directory (exceljs parks a worksheet met before the shared strings in a
  // file there): removed with everything in it however the read ends.
  let tmp: string;
  try {
    tmp = await mkdtemp(join(tmpdir(), 'atendo-sheet-'));
  } catch (err) {
    release();
    throw err;
  }
  let reserved = 0;
  const worker = new Worker(join(__dirname, 'worker.cjs'), {
    env: { ...process.env, TMPDIR: tmp, TMP: tmp, TEMP: tmp },
    workerData: { kind, buffer: data, maxRows: opts.maxRows, batchSize: opts.batchSize ?? 500, maxUnpackedBytes: (opts.maxUnpackedMb ?? 512) * 1024 * 1024 },
    transferList: [data.buffer],
    // A young generation under 32 MiB makes the XML parsing several times slower (scavenges).
    resourceLimits: { maxOldGenerationSizeMb: heap, maxYoungGenerationSizeMb: 32 },
    stdout: false,
    stderr: false,
  });
  const inbox: (WorkerMessage | { type: 'crash'; err: Error })[] = [];
  let wake: (() => void) | null = null;
  const put = (m: WorkerMessage | { type: 'crash'; err: Error }) => {
    inbox.push(m);
    wake?.();
    wake = null;
  };
  worker.on('message', (m: WorkerMessage) => put(m));
  worker.on('error', (err) => put({ type: 'crash', err }));
  worker.on('exit', (code) => put({ type: 'crash', err: new Error(`sheet worker exited with code ${code}`) }));
  try {
    for (;;) {
      if (!inbox.length) await new Promise<void>((r) => (wake = r));
      const m = inbox.shift()!;
      if (m.type === 'unpacked') {
        if (opts.owner !== undefined) {
          const held = ownerBytes.get(opts.owner) ?? 0;
          if (held + m.bytes > (opts.maxOwnerDiskMb ?? 512) * 1024 * 1024) {
            throw new AppError('ERR_TOO_MANY_REQUESTS', 'Other imports of this company are being read; try again when they end');
          }
          reserved = m.bytes;
          ownerBytes.set(opts.owner, held + reserved);
        }
        worker.postMessage({ type: 'more' });
      } else if (m.type === 'rows') {
        yield m.rows;
        worker.postMessage({ type: 'more' });
      } else if (m.type === 'end') return;
      else if (m.type === 'error') throw new AppError(m.code, m.message);
      else {
        const oom = (m.err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
        throw new AppError('ERR_SHEET_INVALID', oom ? 'The spreadsheet is too large to read' : `The file is not a readable ${label(kind)} spreadsheet`);
      }
    }
  } finally {
    worker.removeAllListeners('exit');
    worker.on('error', () => {});
    await worker.terminate().catch(() => undefined);
    await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    if (reserved && opts.owner !== undefined) {
      const left = (ownerBytes.get(opts.owner) ?? 0) - reserved;
      if (left > 0) ownerBytes.set(opts.owner, left);
      else ownerBytes.delete(opts.owner);
    }
    release();
  }
}

/** Every non-empty row of `buf` (at most `maxRows`, so the array is bounded): all or an error. */
export async function readSheet(buf: Uint8Array, opts: ReadSheetOptions): Promise<SheetRow[]> {
  const out: SheetRow[] = [];
  for await (const batch of sheetBatches(buf, opts)) for (const r of batch) out.push(r);
  return out;
}

/** A header cell as compared: lower case, no accents, letters only (`E-mail` -> `email`, `Número` -> `numero`). */
export function headerKey(v: string): string {
  return v.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z]/g, '');
}

/**
 * Which cell of a header row holds each field, by the field's accepted names (compared through
 * `headerKey`; the first matching cell wins): `{name: 0, number: 2}`. Fields without a cell are absent.
 */
export function findColumns<F extends string>(cells: readonly string[], names: Record<F, readonly string[]>): Partial<Record<F, number>> {
  const out: Partial<Record<F, number>> = {};
  cells.forEach((c, i) => {
    const key = headerKey(c);
    for (const field of Object.keys(names) as F[]) if (out[field] === undefined && names[field].includes(key)) out[field] = i;
  });
  return out;
}

/** The header names of contact sheets (contacts import, campaign contact lists): name, number, email. */
export const CONTACT_COLUMNS = {
  name: ['name', 'nome', 'contato', 'contact'],
  number: ['number', 'numero', 'telefone', 'phone', 'celular', 'whatsapp', 'fone'],
  email: ['email', 'mail'],
} as const satisfies Record<'name' | 'number' | 'email', readonly string[]>;
