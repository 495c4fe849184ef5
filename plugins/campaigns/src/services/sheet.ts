import * as XLSX from '@e965/xlsx';
import { AppError } from '@atendo/sdk';
import { CONTACT_COLUMNS, findColumns, readSheet } from '@atendo/sheets';

/** One data row of a contact-list sheet; `row` is the sheet's row number (as Excel shows it). */
export interface ListSheetRow {
  row: number;
  name: string;
  number: string;
  email: string;
  /** Issue 34: the legal basis cell ('' when the sheet has no such column). */
  legalBasis: string;
  /** Issue 34: the consent date cell ('' when the sheet has no such column). */
  consentAt: string;
}

/**
 * The header names of a contact list's sheet: the contact columns (name, number, email) and, for issue 34,
 * the legal basis and the consent date (compared through `headerKey`: lower case, no accents, letters only).
 */
export const LIST_COLUMNS = {
  ...CONTACT_COLUMNS,
  legalBasis: ['legalbasis', 'baselegal', 'basejuridica', 'hipoteselegal', 'fundamentolegal', 'hukukisebep'],
  consentAt: ['consentat', 'consentdate', 'consent', 'consentimento', 'dataconsentimento', 'datadoconsentimento', 'consentimiento', 'fechaconsentimiento', 'fechadeconsentimiento', 'rizatarihi', 'onaytarihi'],
} as const satisfies Record<'name' | 'number' | 'email' | 'legalBasis' | 'consentAt', readonly string[]>;

/**
 * Reads the first worksheet of an .xls, .xlsx or .csv upload with the bounded reader of `@atendo/sheets`
 * (a worker thread, row by row, stopping at the first row past `maxRows` data rows plus the header: 400
 * ERR_SHEET_TOO_MANY_ROWS without reading the rest; 400 ERR_SHEET_INVALID for a file that is not a readable
 * spreadsheet; 415 ERR_UPLOAD_TYPE for anything else). The header row (the first non-empty row) names the
 * columns (name/nome, number/numero/telefone, email, and optionally legal basis / base legal and consent
 * date / data do consentimento: `LIST_COLUMNS`, read only under a header); without a header the columns are
 * name, number, email in that order. Empty rows are skipped.
 */
export async function readListSheet(buf: Buffer, opts: { maxRows: number; filename?: string; companyId: number }): Promise<ListSheetRow[]> {
  // The company's temporary-disk budget of sheet reads (429 ERR_TOO_MANY_REQUESTS past it).
  const rows = await readSheet(buf, { maxRows: opts.maxRows + 1, filename: opts.filename, owner: `company:${opts.companyId}` });
  let cols: Partial<Record<keyof typeof LIST_COLUMNS, number>> | undefined;
  const out: ListSheetRow[] = [];
  for (const { row, cells } of rows) {
    if (!cols) {
      const found = findColumns(cells, LIST_COLUMNS);
      if (found.number !== undefined) {
        cols = found;
        continue;
      }
      cols = { name: 0, number: 1, email: 2 };
    }
    const get = (i: number | undefined) => (i === undefined ? '' : (cells[i] ?? ''));
    out.push({ row, name: get(cols.name), number: get(cols.number), email: get(cols.email), legalBasis: get(cols.legalBasis), consentAt: get(cols.consentAt) });
    if (out.length > opts.maxRows) throw new AppError('ERR_SHEET_TOO_MANY_ROWS', `At most ${opts.maxRows} rows can be imported at once`);
  }
  return out;
}

/**
 * The example sheet offered for download (spec "Contact lists": name, number, email and two rows; issue 34:
 * the optional legal basis and consent date columns).
 */
export function exampleSheet(): Buffer {
  const ws = XLSX.utils.aoa_to_sheet([
    ['name', 'number', 'email', 'legalBasis', 'consentAt'],
    ['Maria Silva', '5511987654321', 'maria@example.com', 'consent', '2026-01-15'],
    ['João Souza', '5521998765432', 'joao@example.com', '', ''],
  ]);
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, ws, 'Contatos');
  return XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
}
