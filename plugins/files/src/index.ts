import { join } from 'node:path';
import { definePlugin, referencesService } from '@atendo/sdk';
import { ticketsService } from '@atendo/plugin-tickets/contract';
import { errors, filesService } from './contract';
import { FilesConfig } from './schemas/config';
import { FileListStore } from './services/files';
import { sendList } from './services/sender';
import { filesRoutes } from './routes/files';

/**
 * The files plugin (spec 3-campaigns-and-tools.md "File lists"): owns `files_lists` and `files_options`,
 * serves `/files` and `POST /files/uploadList/:fileListId`, and provides the `files` service whose
 * `sendList` the chatbot's `file` options and queues' `fileListId` use (the automation plugin calls it) to
 * send a list to a customer. See README.md.
 */
export default definePlugin<FilesConfig>({
  id: 'files',
  dependsOn: ['tickets'],
  errors,
  configSchema: FilesConfig,
  migrationsDir: join(__dirname, '..', 'migrations'),
  async register(ctx) {
    // Other plugins' bodies refer to fileLists by id: checked against the caller's company here (issue 37 item 5).
    ctx.services.get(referencesService).provide('fileList', {
      code: 'ERR_NO_FILE_LIST_FOUND',
      existing: (companyId, ids) => ctx.db('filesLists').where({ companyId }).whereIn('id', ids).pluck('id'),
    });
    const store = new FileListStore(ctx.db, ctx.realtime, ctx.uploads, ctx.config.maxFileBytes);
    const tickets = ctx.services.get(ticketsService);
    ctx.services.provide(filesService, {
      get: (companyId, id) => store.get(companyId, id),
      listNames: (companyId) => store.listNames(companyId),
      sendList: (companyId, fileListId, ticketId, opts) => sendList(store, tickets, companyId, fileListId, ticketId, opts),
    });
    await filesRoutes(ctx.app, { store });
  },
});
