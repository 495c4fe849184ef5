import ExcelJS from 'exceljs';

/**
 * Writes an .xlsx of contacts to `path` with exceljs's streaming writer (inline strings, fast deflate):
 * a header `name, number, email` and `rows` rows `Contato <i>`, 5511900000000 + i, ''. Bounded memory.
 */
export async function writeContactsXlsx(path: string, rows: number): Promise<void> {
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: false, useStyles: false, zip: { zlib: { level: 1 } } } as unknown as ConstructorParameters<typeof ExcelJS.stream.xlsx.WorkbookWriter>[0]);
  const ws = wb.addWorksheet('Contatos');
  ws.addRow(['name', 'number', 'email']).commit();
  for (let i = 0; i < rows; i++) ws.addRow([`Contato ${i}`, 5511900000000 + i, '']).commit();
  ws.commit();
  await wb.commit();
}
