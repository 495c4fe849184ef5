import zlib from 'node:zlib';
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

/** One entry of `lyingZip`: `data` stored deflated; `declared` the uncompressed size its headers claim (default the true one). */
export interface ZipEntry {
  name: string;
  data: Buffer | { prefix: string; fill: number; bytes: number; suffix: string };
  declared?: number;
}

/** Deflates `prefix`, `bytes` copies of the byte `fill`, then `suffix`, streamed (memory stays small). */
async function deflateFill(e: { prefix: string; fill: number; bytes: number; suffix: string }): Promise<{ data: Buffer; size: number }> {
  const d = zlib.createDeflateRaw({ level: 9, memLevel: 9 });
  const out: Buffer[] = [];
  d.on('data', (c: Buffer) => out.push(c));
  const ended = new Promise((r) => d.on('end', r));
  d.write(Buffer.from(e.prefix));
  const chunk = Buffer.alloc(1 << 20, e.fill);
  for (let left = e.bytes; left > 0; left -= chunk.length) {
    if (!d.write(left >= chunk.length ? chunk : chunk.subarray(0, left))) await new Promise((r) => d.once('drain', r));
  }
  d.end(Buffer.from(e.suffix));
  await ended;
  return { data: Buffer.concat(out), size: Buffer.byteLength(e.prefix) + e.bytes + Buffer.byteLength(e.suffix) };
}

/**
 * A ZIP written by hand whose local headers and central directory declare the sizes given (a "zip bomb"
 * lying about how much it unpacks to), entries in the order given.
 */
export async function lyingZip(entries: ZipEntry[]): Promise<Buffer> {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const { data, size } = Buffer.isBuffer(e.data) ? { data: zlib.deflateRawSync(e.data), size: e.data.length } : await deflateFill(e.data);
    const name = Buffer.from(e.name);
    const declared = e.declared ?? size;
    const crc = Buffer.isBuffer(e.data) ? zlib.crc32(e.data) : 0;
    const lh = Buffer.alloc(30);
    lh.writeUInt32LE(0x04034b50, 0);
    lh.writeUInt16LE(20, 4);
    lh.writeUInt16LE(0, 6);
    lh.writeUInt16LE(8, 8);
    lh.writeUInt16LE(0, 10);
    lh.writeUInt16LE(0x21, 12);
    lh.writeUInt32LE(crc, 14);
    lh.writeUInt32LE(data.length, 18);
    lh.writeUInt32LE(declared, 22);
    lh.writeUInt16LE(name.length, 26);
    lh.writeUInt16LE(0, 28);
    const ch = Buffer.alloc(46);
    ch.writeUInt32LE(0x02014b50, 0);
    ch.writeUInt16LE(20, 4);
    ch.writeUInt16LE(20, 6);
    ch.writeUInt16LE(0, 8);
    ch.writeUInt16LE(8, 10);
    ch.writeUInt16LE(0, 12);
    ch.writeUInt16LE(0x21, 14);
    ch.writeUInt32LE(crc, 16);
    ch.writeUInt32LE(data.length, 20);
    ch.writeUInt32LE(declared, 24);
    ch.writeUInt16LE(name.length, 28);
    ch.writeUInt32LE(offset, 42);
    locals.push(lh, name, data);
    central.push(ch, name);
    offset += lh.length + name.length + data.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/**
 * An .xlsx "bomb": its first worksheet (placed before the workbook, so a streaming reader parks it in a
 * temporary file) unpacks to `bytes` of blanks inside a valid sheet, while every header says 1 KiB.
 */
export function lyingXlsx(bytes: number): Promise<Buffer> {
  const ns = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const rel = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  return lyingZip([
    {
      name: '[Content_Types].xml',
      data: Buffer.from('<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>'),
    },
    { name: '_rels/.rels', data: Buffer.from(`<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>`) },
    {
      name: 'xl/worksheets/sheet1.xml',
      data: { prefix: `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${ns}"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>number</t></is></c></row>`, fill: 0x20, bytes, suffix: '</sheetData></worksheet>' },
      declared: 1024,
    },
    { name: 'xl/workbook.xml', data: Buffer.from(`<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${ns}" xmlns:r="${rel}"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`) },
    { name: 'xl/_rels/workbook.xml.rels', data: Buffer.from(`<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`) },
  ]);
}
