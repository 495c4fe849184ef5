/**
 * The files plugin's contract (import it as `@atendo/plugin-files/contract`): the wire shapes of a file list
 * and its options, the socket event, the upload rules, the `files` service (what the chatbot's `file`
 * options and queues' `fileListId` use to send a list to a customer) and the plugin's error codes. Types and
 * `define*` calls only: importing it pulls neither fastify nor knex.
 */
import { defineErrors, defineService, Nullable, Type, UPLOAD_TYPES, type Static } from '@atendo/sdk';

/** Error codes owned by the files plugin (merged into the catalogue at boot). */
export const errors = defineErrors({
  ERR_NO_FILE_LIST_FOUND: { status: 404, message: 'File list not found' },
});
declare module '@atendo/sdk' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface ErrorCodes extends Record<keyof typeof errors, true> {}
}

/** Files an option may carry (checked by content): images, audio, video, PDF and office documents. */
export const FILE_MEDIA_TYPES: readonly string[] = [...UPLOAD_TYPES.images, ...UPLOAD_TYPES.audio, ...UPLOAD_TYPES.video, ...UPLOAD_TYPES.documents];
/** The `accept` attribute of the option file pickers (the server checks the content anyway). */
export const FILE_ACCEPT = '.png,.jpg,.jpeg,.webp,.gif,.ogg,.mp3,.m4a,.wav,.mp4,.webm,.3gp,.pdf,.doc,.docx,.xls,.xlsx,.ppt,.pptx,.odt,.ods,.odp';
/** Options a list may have. */
export const MAX_OPTIONS = 50;
/** Page size of `GET /files`. */
export const PAGE_SIZE = 20;
/** Name lengths (spec §5 "File list form: name required, at least 3 characters"). */
export const NAME_MIN = 3;
export const NAME_MAX = 100;
/** Longest list message (a WhatsApp text). */
export const MESSAGE_MAX = 4096;

/** An option of a list as the API answers it: `path` is a signed URL (7 days) of its file, or null before an upload. */
export const FileOptionSchema = Type.Object(
  {
    id: Type.Integer(),
    fileId: Type.Integer(),
    name: Type.String(),
    path: Nullable(Type.String()),
    mediaType: Nullable(Type.String()),
    /** The uploaded file's name. */
    mediaName: Nullable(Type.String()),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { additionalProperties: false },
);
export type FileOption = Static<typeof FileOptionSchema>;

/** A file list (spec 3-campaigns-and-tools.md §3 "File list") with its options in order. */
export const FileListSchema = Type.Object(
  {
    id: Type.Integer(),
    companyId: Type.Integer(),
    /** The user who saved it last (null once deleted). */
    userId: Nullable(Type.Integer()),
    name: Type.String(),
    message: Type.String(),
    options: Type.Array(FileOptionSchema),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { additionalProperties: false },
);
export type FileList = Static<typeof FileListSchema>;

/** The socket.io event of a company's file lists: `{action: 'create'|'update', files: FileList}` / `{action: 'delete', fileId}`. */
export const filesEvent = (companyId: number) => `company-${companyId}-file`;
export type FilesEvent = { action: 'create' | 'update'; files: FileList } | { action: 'delete'; fileId: number };

/** Options of `FilesService.sendList`. */
export interface SendListOptions {
  /** true (default): an automatic message (allowed while the ticket is pending, open or group); false: as `userId`, the ticket must be open or group. */
  fromBot?: boolean;
  /** The handler sending (`message.stored` `by`); default 'files'. */
  handlerId?: string;
  /** The attendant sending when `fromBot` is false. */
  userId?: number | null;
}

/**
 * The `files` service (`ctx.services.get(filesService)`; declare `files` in `dependsOn` or
 * `optionalDependsOn`). Every method is scoped to `companyId`: lists of another company are unknown.
 */
export interface FilesService {
  /** One list with its options, or undefined. */
  get(companyId: number, id: number): Promise<FileList | undefined>;
  /** Every list of the company, `{id, name}` by name (for selects). */
  listNames(companyId: number): Promise<{ id: number; name: string }[]>;
  /**
   * Sends list `fileListId` to the customer of ticket `ticketId` through the tickets plugin's outbound path
   * (stored in the conversation, pushed, acks tracked): the list's message when not blank, then each option
   * that has a file, in order, with the option's name as caption. Resolves with how many messages were
   * stored. Errors: 404 ERR_NO_FILE_LIST_FOUND, and the tickets service's (404 ERR_NO_TICKET_FOUND, 400
   * ERR_TICKET_NOT_OPEN...); a failure after the first message leaves the earlier ones sent.
   */
  sendList(companyId: number, fileListId: number, ticketId: number, opts?: SendListOptions): Promise<{ sent: number }>;
}

/** The typed handle: `ctx.services.get(filesService)`. */
export const filesService = defineService<FilesService>('files');
