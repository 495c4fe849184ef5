import type {} from '@fastify/multipart';
import { AppError, errorResponses, IdParams, Type, type PluginApp } from '@atendo/sdk';
import { FileListSchema } from '../contract';
import { FileListBody, FileListIdParams, FileListPage, ListFilesQuery } from '../schemas/files';
import type { FileListStore, UploadPart } from '../services/files';

const errors = errorResponses(400, 401, 403, 404);

/**
 * The file-list routes (spec 3-campaigns-and-tools.md §2 "File lists", §3 "File list", §5, §7 "File lists";
 * the queue dialog's `GET /files/`). Reads for any signed-in user (queues and the chatbot editor list
 * them); writes for admins (403 ERR_NO_PERMISSION). Every query is scoped to the caller's company (another
 * company's id is 404 ERR_NO_FILE_LIST_FOUND).
 * - `GET /files`, `GET /files/` ?searchParam&pageNumber -> `{files: FileList[], count, hasMore}`, 20 a page by name.
 * - `GET /files/list` -> `[{id, name}]` every list by name (selects).
 * - `GET /files/:id` -> FileList.
 * - `POST /files` {name 3..100, message 1..4096, options?: [{name}] (at most 50)} -> FileList (options get ids,
 *   in the given order; their files come with the upload).
 * - `PUT /files/:id` (same body; options with an `id` are kept, without are added, the others deleted
 *   with their files) -> FileList.
 * - `DELETE /files/:id` -> `{message}`; the options' files are deleted.
 * - `POST /files/uploadList/:fileListId` multipart (`fileId`, `typeArch`, then per file `files`, `mediaType`,
 *   `name`, `id`) -> FileList: the n-th file becomes the file of the option of the n-th `id`. Checked by
 *   content (images, audio, video, PDF, office documents: 415 ERR_UPLOAD_TYPE) and size (FILES_MAX_FILE_BYTES:
 *   413 ERR_PAYLOAD_TOO_LARGE); all or nothing; 415 ERR_UNSUPPORTED_MEDIA_TYPE for a body that is not multipart.
 * Writes emit `company-{cid}-file` after commit: `{action: 'create'|'update', files}` or `{action: 'delete', fileId}`.
 */
export async function filesRoutes(app: PluginApp, deps: { store: FileListStore }): Promise<void> {
  const { store } = deps;

  for (const url of ['/files', '/files/']) {
    app.get(url, {
      schema: { tags: ['files'], summary: "A page of the company's file lists, by name", querystring: ListFilesQuery, response: { 200: FileListPage, ...errors } },
    }, (req) => store.list(req.auth.companyId, req.query));
  }

  app.get('/files/list', {
    schema: { tags: ['files'], summary: "Every file list of the company, id and name", response: { 200: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() })), ...errors } },
  }, (req) => store.listNames(req.auth.companyId));

  app.get('/files/:id', {
    schema: { tags: ['files'], summary: 'One file list with its options', params: IdParams, response: { 200: FileListSchema, ...errors } },
  }, (req) => store.getOr404(req.auth.companyId, req.params.id));

  app.post('/files', {
    config: { role: 'admin' },
    schema: { tags: ['files'], summary: 'Create a file list', body: FileListBody, response: { 200: FileListSchema, ...errors } },
  }, (req) => store.create(req.auth.companyId, req.auth.id, req.body));

  app.put('/files/:id', {
    config: { role: 'admin' },
    schema: { tags: ['files'], summary: "Replace a file list's name, message and options", params: IdParams, body: FileListBody, response: { 200: FileListSchema, ...errors } },
  }, (req) => store.update(req.auth.companyId, req.auth.id, req.params.id, req.body));

  app.delete('/files/:id', {
    config: { role: 'admin' },
    schema: { tags: ['files'], summary: 'Delete a file list and its files', params: IdParams, response: { 200: Type.Object({ message: Type.String() }), ...errors } },
  }, async (req) => {
    await store.remove(req.auth.companyId, req.params.id);
    return { message: 'File list deleted' };
  });

  app.post('/files/uploadList/:fileListId', {
    config: { role: 'admin' },
    schema: {
      tags: ['files'],
      summary: "Upload the options' files (multipart: per file `files` then its option `id`)",
      consumes: ['multipart/form-data'],
      params: FileListIdParams,
      response: { 200: FileListSchema, ...errorResponses(413, 415), ...errors },
    },
  }, async (req) => {
    if (!req.isMultipart()) throw new AppError('ERR_UNSUPPORTED_MEDIA_TYPE', 'Send multipart/form-data with the files in "files" and their option ids in "id"');
    return store.upload(req.auth.companyId, req.params.fileListId, req.parts() as AsyncIterable<UploadPart>);
  });
}
