import type { Readable } from 'node:stream';

/**
 * A file part as @fastify/multipart gives it (`await req.file()`): the byte stream, the name the client
 * sent and the type the client claimed. The claimed type is never trusted: the kernel sniffs the bytes.
 */
export interface UploadFile {
  file: Readable;
  filename: string;
  mimetype: string;
}

/** Options of one `UploadService.save` call. */
export interface UploadOptions {
  /**
   * Allowed media types, exact (`application/pdf`) or wildcards (`image/*`). Compared with the type sniffed
   * from the file's first bytes. Text files (no magic bytes) pass only when `text/plain` (or, for a `.csv`
   * name, `text/csv`) is listed and the bytes are valid UTF-8 without NULs. SVG never passes a wildcard.
   */
  allow: readonly string[];
  /** Largest size in bytes; default and ceiling: the kernel's UPLOAD_LIMIT. */
  maxBytes?: number;
}

/** A stored upload. */
export interface StoredFile {
  /** Path relative to the company's upload folder: `{area}/{uuid}{ext}`; pass it to `url`/`remove`. */
  path: string;
  /** The client's file name, sanitized (no folders or control characters), at most 200 characters. */
  fileName: string;
  /** The sniffed media type (`image/png`, `audio/ogg`, `application/pdf`, `text/plain`, ...). */
  mimeType: string;
  /** Size in bytes. */
  size: number;
}

/**
 * The kernel's upload store (`ctx.uploads`). Files live under `DATA_DIR/uploads/company{companyId}/{area}/`
 * and are served at `GET /public/company{companyId}/{path}` only to signed-in users of that company or to
 * requests carrying a valid signature (the URLs `url` returns).
 */
export interface UploadService {
  /**
   * Streams `file` to disk after checking its real type against `opts.allow`.
   * `area` is one folder name (`[A-Za-z0-9_-]{1,64}`, e.g. `quickMessage`).
   * Throws AppError 415 ERR_UPLOAD_TYPE (type not allowed, nothing stored), 413 ERR_PAYLOAD_TOO_LARGE
   * (over the limit; the partial file is deleted), 400 ERR_VALIDATION (bad area, empty file).
   */
  save(companyId: number, area: string, file: UploadFile, opts: UploadOptions): Promise<StoredFile>;
  /** Deletes a stored file; a missing file or an invalid path is ignored. */
  remove(companyId: number, path: string): Promise<void>;
  /**
   * The URL of a stored file, signed for 7 days (so `<img>`/`<audio>` tags, which send no bearer header,
   * can load it): `${BACKEND_URL}/public/company{id}/{path}?e={unix expiry}&t={hmac}`. Absolute when
   * BACKEND_URL is; root-relative (`/backend/public/...`) when BACKEND_URL is a path, as under `npm start`.
   */
  url(companyId: number, path: string): string;
}

/** Allowlists for `UploadOptions.allow`. */
export const UPLOAD_TYPES = {
  images: ['image/jpeg', 'image/png', 'image/webp', 'image/gif'],
  audio: ['audio/ogg', 'audio/mpeg', 'audio/mp4', 'audio/webm', 'audio/wav'],
  video: ['video/mp4', 'video/webm', 'video/3gpp'],
  /** PDF, OOXML and OpenDocument files, and legacy .doc/.xls/.ppt. */
  documents: [
    'application/pdf',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    'application/vnd.oasis.opendocument.text',
    'application/vnd.oasis.opendocument.spreadsheet',
    'application/vnd.oasis.opendocument.presentation',
    'application/msword',
    'application/vnd.ms-excel',
    'application/vnd.ms-powerpoint',
  ],
  text: ['text/plain', 'text/csv'],
} as const satisfies Record<string, readonly string[]>;

/**
 * Media types of stored uploads by file extension (the upload store names files by their sniffed type),
 * without parameters. Used to serve files and to tell providers what a stored file is.
 */
export const MEDIA_TYPE_BY_EXTENSION: Readonly<Record<string, string>> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/ogg',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  weba: 'audio/webm',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  webm: 'video/webm',
  '3gp': 'video/3gpp',
  ogv: 'video/ogg',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation',
  doc: 'application/msword',
  xls: 'application/vnd.ms-excel',
  ppt: 'application/vnd.ms-powerpoint',
  zip: 'application/zip',
  txt: 'text/plain',
  csv: 'text/csv',
};

/** The media type of a stored upload path by its extension (MEDIA_TYPE_BY_EXTENSION), else `application/octet-stream`. */
export function mediaTypeOfPath(path: string): string {
  const ext = (/\.([A-Za-z0-9]+)$/.exec(path)?.[1] ?? '').toLowerCase();
  return MEDIA_TYPE_BY_EXTENSION[ext] ?? 'application/octet-stream';
}
