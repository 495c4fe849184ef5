import ExcelJS from 'exceljs';
import { AppError } from '@atendo/sdk';

/** One data row of an import sheet; `row` is the sheet's row number (as Excel shows it). */
export interface SheetRow {
  row: number;
  name: string | null;
  number: string | null;
  email: string | null;
}

/** Largest upload `POST /contacts/upload` takes. */
export const MAX_SHEET_BYTES = 5 * 1024 * 1024;
/** Most data rows one import takes. */
export const MAX_SHEET_ROWS = 50_000;

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const OLE_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0]);

/** Header names (lower case, no accents or separators) of each column. */
const HEADERS: Record<'name' | 'number' | 'email', string[]> = {
  name: ['name', 'nome', 'contato', 'contact'],
  number: ['number', 'numero', 'telefone', 'phone', 'celular', 'whatsapp', 'fone'],
  email: ['email', 'mail'],
};

const headerKey = (v: string) =>
  v.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z]/g, '');

/** The text of a cell value (numbers, rich text, hyperlinks, formula results, dates). */
export function cellText(v: ExcelJS.CellValue): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(Math.round(v)).toString() : String(v);
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'boolean') return String(v);
  if (v instanceof Date) return v.toISOString();
  const o = v as unknown as Record<string, unknown>;
  if (Array.isArray(o.richText)) return (o.richText as { text: string }[]).map((t) => t.text).join('').trim();
  if ('text' in o && o.text !== undefined) return cellText(o.text as ExcelJS.CellValue);
  if ('result' in o) return cellText(o.result as ExcelJS.CellValue);
  return '';
}

/**
 * Reads the first worksheet of an .xlsx upload. The header row (the first non-empty row) names the
 * columns: name/nome, number/numero/telefone, email. Refuses (415 ERR_UPLOAD_TYPE) legacy .xls and any
 * file that is not a ZIP container exceljs can read; 400 ERR_VALIDATION without a number column or
 * with more than MAX_SHEET_ROWS data rows. Empty rows are skipped.
 */
export async function readContactSheet(buf: Buffer, filename: string): Promise<SheetRow[]> {
  if (!buf.subarray(0, 4).equals(ZIP_MAGIC)) {
    if (buf.subarray(0, 4).equals(OLE_MAGIC) || /\.xls$/i.test(filename)) {
      throw new AppError('ERR_UPLOAD_TYPE', 'Legacy .xls files cannot be read: save the sheet as .xlsx and upload it again');
    }
    throw new AppError('ERR_UPLOAD_TYPE', 'Only .xlsx spreadsheets can be imported');
  }
  const wb = new ExcelJS.Workbook();
  try {
    await wb.xlsx.load(buf as unknown as ExcelJS.Buffer);
  } catch {
    throw new AppError('ERR_UPLOAD_TYPE', 'The file is not a readable .xlsx spreadsheet');
  }
  const ws = wb.worksheets[0];
  if (!ws) throw new AppError('ERR_VALIDATION', 'The spreadsheet has no worksheet');
  let cols: Partial<Record<'name' | 'number' | 'email', number>> | undefined;
  const rows: SheetRow[] = [];
  let tooMany = false;
  ws.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    if (tooMany) return;
    const values = row.values as ExcelJS.CellValue[];
    if (!cols) {
      cols = {};
      values.forEach((v, i) => {
        const key = headerKey(cellText(v));
        for (const [field, names] of Object.entries(HEADERS) as [keyof typeof HEADERS, string[]][]) {
          if (cols![field] === undefined && names.includes(key)) cols![field] = i;
        }
      });
      return;
    }
    const get = (i: number | undefined) => (i === undefined ? null : cellText(values[i]) || null);
    const r: SheetRow = { row: rowNumber, name: get(cols.name), number: get(cols.number), email: get(cols.email) };
    if (!r.name && !r.number && !r.email) return;
    if (rows.length >= MAX_SHEET_ROWS) {
      tooMany = true;
      return;
    }
    rows.push(r);
  });
  if (!cols || cols.number === undefined) throw new AppError('ERR_VALIDATION', 'The first row must name the columns, with a number (numero, telefone) column');
  if (tooMany) throw new AppError('ERR_VALIDATION', `At most ${MAX_SHEET_ROWS} rows can be imported at once`);
  return rows;
}

/** An .xlsx of contacts: columns name, number, email, tags (names joined by ', '). */
export async function buildContactsWorkbook(rows: AsyncIterable<{ name: string; number: string; email: string; tags: string }[]>): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  wb.creator = 'Atendo';
  const ws = wb.addWorksheet('Contacts');
  ws.columns = [
    { header: 'name', key: 'name', width: 32 },
    { header: 'number', key: 'number', width: 20 },
    { header: 'email', key: 'email', width: 32 },
    { header: 'tags', key: 'tags', width: 40 },
  ];
  ws.getRow(1).font = { bold: true };
  // Numbers stay text: long digit strings must not become floating-point cells.
  ws.getColumn('number').numFmt = '@';
  for await (const chunk of rows) for (const r of chunk) ws.addRow(r);
  return Buffer.from(await wb.xlsx.writeBuffer());
}
