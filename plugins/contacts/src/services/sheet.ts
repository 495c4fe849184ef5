import { AppError } from '@atendo/sdk';
import { CONTACT_COLUMNS, findColumns, readSheet } from '@atendo/sheets';

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

/**
 * Reads the first worksheet of an .xlsx, .xls or .csv upload with the bounded reader of `@atendo/sheets`
 * (a worker thread, row by row; the read stops at the first row past `maxRows` data rows: 400
 * ERR_SHEET_TOO_MANY_ROWS, the rest never parsed). The header row (the first non-empty row) names the
 * columns: name/nome, number/numero/telefone, email. 415 ERR_UPLOAD_TYPE for a file that is none of the
 * three (by its content); 400 ERR_SHEET_INVALID for one that cannot be read or unpacks past the cap (a
 * ZIP bomb); 429 ERR_TOO_MANY_REQUESTS while the company's other reads hold their disk budget; 400
 * ERR_VALIDATION without a number column. Empty rows are skipped.
 */
export async function readContactSheet(buf: Buffer, filename: string, companyId: number, maxRows = MAX_SHEET_ROWS): Promise<SheetRow[]> {
  // The company's temporary-disk budget of sheet reads (429 ERR_TOO_MANY_REQUESTS past it).
  const read = await readSheet(buf, { maxRows: maxRows + 1, filename, owner: `company:${companyId}` });
  const [header, ...data] = read;
  const cols = header ? findColumns(header.cells, CONTACT_COLUMNS) : undefined;
  if (!cols || cols.number === undefined) throw new AppError('ERR_VALIDATION', 'The first row must name the columns, with a number (numero, telefone) column');
  const get = (cells: string[], i: number | undefined) => (i === undefined ? null : cells[i] || null);
  return data.map(({ row, cells }) => ({ row, name: get(cells, cols.name), number: get(cells, cols.number), email: get(cells, cols.email) }));
}

/**
 * An .xlsx of contacts: columns name, number, email, tags (names joined by ', '). The spreadsheet library
 * (exceljs, ~28 MB resident) loads on the first export, not with the process.
 */
export async function buildContactsWorkbook(rows: AsyncIterable<{ name: string; number: string; email: string; tags: string }[]>): Promise<Buffer> {
  const { default: ExcelJS } = await import('exceljs');
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
