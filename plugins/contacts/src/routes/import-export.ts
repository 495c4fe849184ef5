import type {} from '@fastify/multipart';
import { AppError, Type, type PluginApp } from '@atendo/sdk';
import type { ContactStore } from '../services/contacts';
import { checkImportRow, type ContactImports } from '../services/import';
import { buildContactsWorkbook, MAX_SHEET_BYTES, readContactSheet } from '../services/sheet';
import { maskNumber } from '../services/numbers';
import { ImportProgressSchema, ImportRowBody, JobParams } from '../schemas/contacts';
import { ContactSchema } from '../contract';
import { errors, masker } from './contacts';

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/**
 * Contact import and export (spec 2-tickets.md §4 "Contact import", §5 "Contact import file", §6 export
 * masking; §7 "POST /contactsImport", "POST /contacts/upload"). Any signed-in user.
 * - `POST /contacts/upload` multipart field `file` (.xlsx, .xls or .csv, at most 5 MB; the first row names
 *   the columns name/nome, number/numero/telefone, email) -> 202 `{jobId, total}` once the sheet is read
 *   (in a worker thread, at most 50,000 rows: @atendo/sheets); the rows are imported in the background with
 *   progress on `company-{cid}-contact` (`import-progress`, then `import-done`). 415 ERR_UPLOAD_TYPE for
 *   anything else (by content); 413 ERR_PAYLOAD_TOO_LARGE over 5 MB; 400 ERR_SHEET_TOO_MANY_ROWS past
 *   50,000 rows, ERR_SHEET_INVALID for an unreadable sheet, ERR_VALIDATION without a file, a number column
 *   or data rows. (Multipart bodies have no JSON schema: the part is checked here.)
 * - `GET /contacts/import/:jobId` -> `{jobId, status, processed, total, created, updated, errors}`; 404
 *   ERR_NO_IMPORT_FOUND (jobs are kept in the memory of the node that took the upload).
 * - `POST /contactsImport` {name?, number, email?} (one row, as the old client posts them) -> the created
 *   or updated Contact; emits create/update; 400 ERR_VALIDATION for a bad row.
 * - `GET /contacts/export` -> an .xlsx (name, number, email, tags) of every contact of the company, with
 *   numbers masked for callers of profile user when lgpdHideNumber is enabled.
 */
export async function importExportRoutes(app: PluginApp, deps: { store: ContactStore; imports: ContactImports }): Promise<void> {
  const { store, imports } = deps;

  app.post('/contacts/upload', {
    schema: {
      tags: ['contacts'],
      summary: 'Import contacts from an .xlsx, .xls or .csv sheet (multipart field "file"), in the background',
      consumes: ['multipart/form-data'],
      response: { 202: Type.Object({ jobId: Type.String(), total: Type.Integer() }), ...errors },
    },
  }, async (req, reply) => {
    const part = await req.file({ limits: { fileSize: MAX_SHEET_BYTES, files: 1 } });
    if (!part) throw new AppError('ERR_VALIDATION', 'Send the spreadsheet in the multipart field "file"');
    if (part.fieldname !== 'file') {
      part.file.resume();
      throw new AppError('ERR_VALIDATION', 'Send the spreadsheet in the multipart field "file"');
    }
    const buf = await part.toBuffer();
    if (part.file.truncated) throw new AppError('ERR_PAYLOAD_TOO_LARGE', 'The spreadsheet is larger than 5 MB');
    const rows = await readContactSheet(buf, part.filename ?? '', req.auth.companyId);
    if (!rows.length) throw new AppError('ERR_VALIDATION', 'The spreadsheet has no data rows');
    const job = imports.start(req.auth.companyId, rows);
    return reply.status(202).send({ jobId: job.jobId, total: job.total });
  });

  app.get('/contacts/import/:jobId', {
    schema: { tags: ['contacts'], summary: "A sheet import's progress", params: JobParams, response: { 200: ImportProgressSchema, ...errors } },
  }, async (req) => imports.get(req.auth.companyId, req.params.jobId));

  app.post('/contactsImport', {
    schema: { tags: ['contacts'], summary: 'Import one contact row (create, or update name and email)', body: ImportRowBody, response: { 200: ContactSchema, ...errors } },
  }, async (req) => {
    const companyId = req.auth.companyId;
    const body = req.body;
    const row = checkImportRow(store, { name: body.name ?? null, number: body.number, email: body.email ?? null });
    const acceptAudio = await store.shouldAcceptAudio(companyId);
    const { contact, created } = await store.upsertImported(companyId, row, acceptAudio);
    store.emit(companyId, { action: created ? 'create' : 'update', contact });
    const mask = await masker(store, req);
    return mask(contact);
  });

  app.get('/contacts/export', {
    schema: {
      tags: ['contacts'],
      summary: "The company's contacts as an .xlsx (name, number, email, tags)",
      produces: [XLSX_TYPE],
      response: { 200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary' }), ...errors },
    },
  }, async (req, reply) => {
    const companyId = req.auth.companyId;
    const masked = await store.shouldMask(companyId, req.auth);
    async function* rows() {
      for await (const chunk of store.exportChunks(companyId)) {
        yield chunk.map(({ contact, tags }) => ({
          name: contact.name,
          number: masked ? maskNumber(contact.number, contact.isGroup) : contact.number,
          email: contact.email,
          tags: tags.map((t) => t.name).join(', '),
        }));
      }
    }
    const buf = await buildContactsWorkbook(rows());
    return reply
      .header('content-type', XLSX_TYPE)
      .header('content-disposition', 'attachment; filename="contacts.xlsx"')
      .send(buf);
  });
}
