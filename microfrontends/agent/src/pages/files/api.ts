import { api } from '@atendo/web-api';
import type { ListPageOf } from '@atendo/web-kit';

/**
 * The file lists screen's calls (plugins/files; spec 3-campaigns-and-tools.md §2 "File lists (/files)", §3
 * "File list", §5, §7 "File lists").
 */

/** An option of a list; `path` is a signed URL of its file, or null before an upload. */
export interface FileOption {
  id: number;
  fileId: number;
  name: string;
  path: string | null;
  mediaType: string | null;
  mediaName: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface FileList {
  id: number;
  companyId: number;
  userId: number | null;
  name: string;
  message: string;
  options: FileOption[];
  createdAt: string;
  updatedAt: string;
}

/** `company-{cid}-file` payloads. */
export type FileListEvent = { action: 'create' | 'update'; files: FileList } | { action: 'delete'; fileId: number | string };

export interface FileListInput {
  name: string;
  message: string;
  /** In order; an `id` keeps (renames, moves) an option of this list, none adds one, the others go. */
  options: { id?: number; name: string }[];
}

export const filesKey = ['agent', 'files'] as const;

/** What the option file pickers accept (the server checks the content). */
export const FILE_ACCEPT = '.png,.jpg,.jpeg,.webp,.gif,.ogg,.mp3,.m4a,.wav,.mp4,.webm,.3gp,.pdf,.doc,.docx,.xls,.xlsx,.ppt,.pptx,.odt,.ods,.odp';
/** The server's limits (plugins/files contract). */
export const NAME_MIN = 3;
export const NAME_MAX = 100;
export const MAX_OPTIONS = 50;

/** `GET /files/?searchParam&pageNumber` (20 a page, by name). */
export async function fetchFileLists(term: string, pageNumber: number, signal?: AbortSignal): Promise<ListPageOf<FileList>> {
  const page = await api.get<{ files: FileList[]; count: number; hasMore: boolean }>('/files/', { query: { searchParam: term || undefined, pageNumber }, signal });
  return { records: page.files, count: page.count, hasMore: page.hasMore };
}

export const createFileList = (body: FileListInput) => api.post<FileList>('/files', body);
export const updateFileList = (id: number, body: FileListInput) => api.put<FileList>(`/files/${id}`, body);
export const deleteFileList = (id: number) => api.delete<{ message: string }>(`/files/${id}`);

/**
 * `POST /files/uploadList/{fileListId}` multipart, the product family's form: `fileId`, `typeArch=fileList`,
 * then for each chosen file `files`, `mediaType`, `name` and `id` (its option). One request for all.
 */
export async function uploadFileList(fileListId: number, uploads: { optionId: number; file: File }[]): Promise<FileList> {
  // The kernel takes at most 10 files a request: larger sets go in several requests, in order.
  let last: FileList | undefined;
  for (let i = 0; i < uploads.length; i += UPLOAD_BATCH) last = await uploadBatch(fileListId, uploads.slice(i, i + UPLOAD_BATCH));
  return last as FileList;
}

/** Files per upload request (the kernel's multipart limit). */
export const UPLOAD_BATCH = 10;

function uploadBatch(fileListId: number, uploads: { optionId: number; file: File }[]): Promise<FileList> {
  const form = new FormData();
  form.append('fileId', String(fileListId));
  form.append('typeArch', 'fileList');
  for (const u of uploads) {
    form.append('files', u.file, u.file.name);
    form.append('mediaType', u.file.type || 'application/octet-stream');
    form.append('name', u.file.name);
    form.append('id', String(u.optionId));
  }
  return api.post<FileList>(`/files/uploadList/${fileListId}`, form);
}

/** Whether a list matches a (lower-cased) search: its name, as the server searches. */
export const fileListMatches = (f: FileList, term: string) => !term || f.name.toLowerCase().includes(term);
