import { IntLike, ListQuery, Paginated, Type, type Static } from '@atendo/sdk';
import { FileListSchema, MAX_OPTIONS, MESSAGE_MAX, NAME_MAX, NAME_MIN } from '../contract';

/** Query of `GET /files`: `searchParam` (name contains, case-insensitive) and 1-based `pageNumber`. */
export const ListFilesQuery = ListQuery;
export type ListFilesQuery = Static<typeof ListFilesQuery>;

/** `{fileListId}` path parameter of the upload. */
export const FileListIdParams = Type.Object({ fileListId: Type.Integer({ minimum: 1, maximum: 2147483647 }) });

/**
 * One option in a create/update body: its `name` (1..100), and its `id` to keep an existing option (new
 * ones have none). What old clients send besides (`path`, `mediaType`, `fileId`, the chosen `file`) is
 * ignored: files arrive through the upload route.
 */
export const OptionBody = Type.Object(
  {
    id: Type.Optional(Type.Union([IntLike({ minimum: 1 }), Type.Null()])),
    name: Type.String({ minLength: 1, maxLength: NAME_MAX }),
  },
  { additionalProperties: true },
);

/**
 * Body of `POST /files` and `PUT /files/:id`: `name` 3..100, `message` required (1..4096), `options` (at
 * most 50; on update the list's options become exactly these: kept by id, new ones added, the others
 * deleted with their files). `userId`/`companyId` of old clients are ignored (the caller's are used).
 */
export const FileListBody = Type.Object(
  {
    name: Type.String({ minLength: NAME_MIN, maxLength: NAME_MAX }),
    message: Type.String({ minLength: 1, maxLength: MESSAGE_MAX }),
    options: Type.Optional(Type.Array(OptionBody, { maxItems: MAX_OPTIONS })),
    userId: Type.Optional(Type.Unknown()),
    companyId: Type.Optional(Type.Unknown()),
    id: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
export type FileListBody = Static<typeof FileListBody>;

/** Answer of `GET /files`. */
export const FileListPage = Paginated('files', FileListSchema);
