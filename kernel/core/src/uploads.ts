import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { TextDecoder } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { fileTypeFromBuffer } from 'file-type';
import { AppError, ErrorResponse, MEDIA_TYPE_BY_EXTENSION, Type, type StoredFile, type UploadFile, type UploadOptions, type UploadService } from '@atendo/sdk';
import { verifyAccess } from './plugins/auth';

/** Bytes read before the type is decided (file-type needs ~4 KiB; OOXML detection reads the first zip entry). */
const HEAD_BYTES = 64 * 1024;
/** Lifetime of the URLs `url()` signs, in seconds (7 days), rounded up to the hour so URLs stay cacheable. */
export const SIGNED_URL_TTL_SECONDS = 7 * 86400;
const AREA = /^[A-Za-z0-9_-]{1,64}$/;
/** One path segment: no separators or control characters, not `.`/`..`/hidden, at most 255 characters. */
const SEGMENT = /^[^/\\\x00-\x1f\x7f.][^/\\\x00-\x1f\x7f]{0,254}$/;

/** Serving types by extension (the SDK's table; text with its charset). Anything else is `application/octet-stream` (and an attachment). */
const TYPE_BY_EXT: Record<string, string> = Object.fromEntries(
  Object.entries(MEDIA_TYPE_BY_EXTENSION).map(([ext, type]) => [ext, type.startsWith('text/') ? `${type}; charset=utf-8` : type]),
);

/** File extensions chosen by the stored type (else file-type's own extension). */
const EXT_BY_TYPE: Record<string, string> = {
  'image/jpeg': 'jpg',
  'audio/ogg': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/webm': 'weba',
  'audio/wav': 'wav',
  'audio/3gpp': '3gp',
  'application/msword': 'doc',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.ms-powerpoint': 'ppt',
  'text/plain': 'txt',
  'text/csv': 'csv',
};

/** Aliases file-type reports, mapped to the names allowlists use. */
const TYPE_ALIASES: Record<string, string> = {
  'audio/x-m4a': 'audio/mp4',
  'audio/m4a': 'audio/mp4',
  'audio/vnd.wave': 'audio/wav',
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/mp3': 'audio/mpeg',
};

/** Legacy Office files are OLE compound files; the client's extension says which one. */
const CFB_BY_EXT: Record<string, string> = { doc: 'application/msword', xls: 'application/vnd.ms-excel', ppt: 'application/vnd.ms-powerpoint' };

/** The client's file name without folders or control characters, NFC, at most 200 characters ("file" if empty). */
export function sanitizeFileName(name: string | undefined): string {
  const base = String(name ?? '').split(/[/\\]/).pop() ?? '';
  const clean = base.normalize('NFC').replace(/[\x00-\x1f\x7f"<>|*?]/g, '').trim();
  const chars = Array.from(clean);
  const cut = chars.length > 200 ? chars.slice(0, 200).join('') : clean;
  return cut || 'file';
}

/** True when `mime` is listed in `allow`, exactly or through a `type/*` wildcard (never SVG through a wildcard). */
export function typeAllowed(mime: string, allow: readonly string[]): boolean {
  for (const a of allow) {
    const x = a.trim().toLowerCase();
    if (x === mime) return true;
    if (x.endsWith('/*') && x !== '*/*' && mime.startsWith(x.slice(0, -1)) && mime !== 'image/svg+xml') return true;
  }
  return false;
}

interface Decision {
  mime: string;
  ext: string;
  /** Set for text files: the rest of the stream must stay valid UTF-8 without NULs. */
  decoder?: TextDecoder;
}

const refuse = (why: string) => new AppError('ERR_UPLOAD_TYPE', `File type not allowed: ${why}`);
const tooLarge = (limit: number) => new AppError('ERR_PAYLOAD_TOO_LARGE', `The file is larger than ${limit} bytes`);

/**
 * Uploaded files on disk: `{dir}/company{companyId}/{area}/{uuid}.{ext}`. The type is sniffed from the
 * first bytes (file-type), never taken from the client; the extension follows the sniffed type. Served by
 * `uploadRoutes` to the same company (bearer) or with a signature from `url()`.
 */
export class UploadStore implements UploadService {
  private readonly root: string;
  private readonly key: Buffer;

  constructor(private readonly opts: { dir: string; publicUrl: string; secret: string; maxBytes: number }) {
    this.root = resolve(opts.dir);
    // A key of its own, derived from JWT_SECRET: a leaked URL signature says nothing about tokens.
    this.key = createHmac('sha256', opts.secret).update('atendo:uploads:url-signature:v1').digest();
  }

  /** `{dir}/company{companyId}`. */
  companyDir(companyId: number): string {
    return join(this.root, `company${companyId}`);
  }

  /**
   * The absolute file of `companyId`'s relative `path`, or undefined when the path is not a plain relative
   * path inside the company folder (`..`, `.`, hidden names, absolute paths, backslashes, control chars).
   */
  resolvePath(companyId: number, path: string): string | undefined {
    if (!Number.isInteger(companyId) || companyId < 1) return undefined;
    if (typeof path !== 'string' || path.length === 0 || path.length > 1000) return undefined;
    const segments = path.split('/');
    if (segments.length > 8 || !segments.every((s) => SEGMENT.test(s))) return undefined;
    const base = this.companyDir(companyId);
    const abs = resolve(base, ...segments);
    return abs.startsWith(base + sep) ? abs : undefined;
  }

  /** See UploadService.save. */
  async save(companyId: number, area: string, upload: UploadFile, opts: UploadOptions): Promise<StoredFile> {
    if (!Number.isInteger(companyId) || companyId < 1) throw new AppError('ERR_VALIDATION', 'Invalid company');
    if (!AREA.test(area)) throw new AppError('ERR_VALIDATION', 'Invalid upload area');
    const limit = Math.min(opts.maxBytes ?? this.opts.maxBytes, this.opts.maxBytes);
    const fileName = sanitizeFileName(upload.filename);
    const src = upload.file;

    let head: Buffer[] = [];
    let headLen = 0;
    let size = 0;
    let decision: Decision | undefined;
    let fh: FileHandle | undefined;
    let target: string | undefined;

    const begin = async (complete: boolean) => {
      const buf = Buffer.concat(head, headLen);
      head = [];
      decision = await this.decide(buf, upload, fileName, opts.allow, complete);
      const dir = join(this.companyDir(companyId), area);
      await mkdir(dir, { recursive: true });
      target = join(dir, `${randomUUID()}.${decision.ext}`);
      fh = await open(target, 'wx', 0o640);
      await writeAll(fh, buf);
    };

    // Leaving the loop early (refusal, overflow) must not destroy the part: the parser still has to drain it.
    const chunks: AsyncIterable<unknown> = typeof src.iterator === 'function' ? src.iterator({ destroyOnReturn: false }) : src;
    try {
      for await (const raw of chunks) {
        const chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw as Uint8Array);
        size += chunk.length;
        if (size > limit) throw tooLarge(limit);
        if (!decision) {
          head.push(chunk);
          headLen += chunk.length;
          if (headLen >= HEAD_BYTES) await begin(false);
          continue;
        }
        if (decision.decoder) checkText(decision.decoder, chunk, true);
        await writeAll(fh!, chunk);
      }
      // @fastify/multipart ends a stream cut at its fileSize limit (UPLOAD_LIMIT) with `truncated`.
      if ((src as { truncated?: boolean }).truncated) throw tooLarge(limit);
      if (size === 0) throw new AppError('ERR_VALIDATION', 'The file is empty');
      if (!decision) await begin(true);
      if (decision!.decoder) checkText(decision!.decoder, Buffer.alloc(0), false);
      await fh!.close();
      fh = undefined;
    } catch (err) {
      await fh?.close().catch(() => undefined);
      if (target) await unlink(target).catch(() => undefined);
      if (!src.destroyed) src.resume(); // let the multipart parser drain the rest of the part
      const code = (err as { code?: string }).code;
      if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(limit);
      throw err;
    }
    return { path: `${area}/${target!.slice(target!.lastIndexOf(sep) + 1)}`, fileName, mimeType: decision!.mime, size };
  }

  /** Decides the stored type from the first bytes; throws 415 ERR_UPLOAD_TYPE when it is not allowed. */
  private async decide(head: Buffer, upload: UploadFile, fileName: string, allow: readonly string[], complete: boolean): Promise<Decision> {
    const claimed = String(upload.mimetype ?? '').toLowerCase();
    const clientExt = (/\.([A-Za-z0-9]{1,10})$/.exec(fileName)?.[1] ?? '').toLowerCase();
    let detected: { ext: string; mime: string } | undefined;
    try {
      detected = await fileTypeFromBuffer(head);
    } catch {
      detected = undefined;
    }
    if (detected) {
      let mime = detected.mime.split(';')[0].trim().toLowerCase();
      mime = TYPE_ALIASES[mime] ?? mime;
      // Containers shared by audio and video: a client recording audio (MediaRecorder, voice notes) says so.
      if (/^video\/(webm|mp4|3gpp|ogg)$/.test(mime) && claimed.startsWith('audio/')) mime = mime.replace('video/', 'audio/');
      if (mime === 'application/x-cfb' && CFB_BY_EXT[clientExt]) mime = CFB_BY_EXT[clientExt];
      if (!typeAllowed(mime, allow)) throw refuse(mime);
      const ext = EXT_BY_TYPE[mime] ?? detected.ext.toLowerCase().replace(/[^a-z0-9]/g, '');
      return { mime, ext: ext || 'bin' };
    }
    // No magic bytes: only UTF-8 text without NULs, and only where the caller allows text.
    const mime = clientExt === 'csv' && typeAllowed('text/csv', allow) ? 'text/csv' : 'text/plain';
    if (!typeAllowed(mime, allow)) throw refuse('unknown binary or text');
    const decoder = new TextDecoder('utf-8', { fatal: true });
    checkText(decoder, head, !complete);
    return { mime, ext: EXT_BY_TYPE[mime], decoder };
  }

  /** See UploadService.remove. */
  async remove(companyId: number, path: string): Promise<void> {
    const abs = this.resolvePath(companyId, path);
    if (!abs) return;
    await unlink(abs).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT' && err.code !== 'EISDIR' && err.code !== 'EPERM') throw err;
    });
  }

  /** See UploadService.url. */
  url(companyId: number, path: string, now = Date.now()): string {
    const e = Math.ceil(now / 3_600_000) * 3600 + SIGNED_URL_TTL_SECONDS;
    const encoded = path.split('/').map(encodeURIComponent).join('/');
    return `${this.opts.publicUrl.replace(/\/+$/, '')}/public/company${companyId}/${encoded}?e=${e}&t=${this.sign(companyId, path, e)}`;
  }

  /** HMAC-SHA256 (base64url) over `companyId \n path \n expiry`. */
  sign(companyId: number, path: string, expiresAt: number): string {
    return createHmac('sha256', this.key).update(`${companyId}\n${path}\n${expiresAt}`).digest('base64url');
  }

  /** True for an unexpired signature `t` with expiry `e` (unix seconds) over this company and path. */
  verify(companyId: number, path: string, e: string | undefined, t: string | undefined, now = Date.now()): boolean {
    if (!e || !t || !/^\d{1,12}$/.test(e) || !/^[A-Za-z0-9_-]{43}$/.test(t)) return false;
    const expiresAt = Number(e);
    if (expiresAt * 1000 <= now) return false;
    const want = Buffer.from(this.sign(companyId, path, expiresAt));
    const got = Buffer.from(t);
    return want.length === got.length && timingSafeEqual(want, got);
  }
}

async function writeAll(fh: FileHandle, buf: Buffer): Promise<void> {
  let off = 0;
  while (off < buf.length) {
    const { bytesWritten } = await fh.write(buf, off, buf.length - off);
    off += bytesWritten;
  }
}

/** Throws 415 unless `chunk` continues valid UTF-8 without NUL bytes (`more`: more chunks follow). */
function checkText(decoder: TextDecoder, chunk: Buffer, more: boolean): void {
  if (chunk.includes(0)) throw refuse('binary data');
  try {
    decoder.decode(chunk, { stream: more });
  } catch {
    throw refuse('not UTF-8 text');
  }
}

const FileParams = Type.Object({
  companyId: Type.Integer({ minimum: 1, maximum: 2147483647 }),
  '*': Type.String({ maxLength: 1000 }),
});
const SignatureQuery = Type.Object({
  e: Type.Optional(Type.String({ maxLength: 20 })),
  t: Type.Optional(Type.String({ maxLength: 100 })),
});

/**
 * `GET /public/company{companyId}/{path}` (also HEAD): streams a stored upload.
 *
 * Allowed to (a) a caller whose bearer token belongs to company `companyId`, or (b) a request with a valid
 * `?e=<unix expiry>&t=<signature>` from `UploadStore.url` (for `<img>`/`<audio>` tags, which send no header).
 * Answers: 200 with the file (`Content-Type` by extension, `X-Content-Type-Options: nosniff`, inline for
 * images/audio/video, `Content-Disposition: attachment` for everything else; single `Range` requests get 206);
 * 400 ERR_VALIDATION for a path that is not a plain relative path (`..`, hidden names, backslashes);
 * 403 ERR_NO_PERMISSION for another company, a bad or expired signature, or no credentials (403
 * ERR_INVALID_TOKEN when an invalid bearer token is the only credential); 404 ERR_NOT_FOUND for a missing file.
 */
export async function uploadRoutes(app: FastifyInstance, store: UploadStore): Promise<void> {
  app.get('/public/company:companyId/*', {
    config: { role: 'public' },
    schema: {
      tags: ['uploads'],
      summary: 'Download a stored upload (same-company bearer token or signed URL)',
      params: FileParams,
      querystring: SignatureQuery,
      response: {
        200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'The file' }),
        206: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'A byte range of the file' }),
        400: ErrorResponse,
        403: ErrorResponse,
        404: ErrorResponse,
      },
    },
  }, async (req, reply) => {
    const { companyId, '*': path } = req.params as { companyId: number; '*': string };
    const { e, t } = req.query as { e?: string; t?: string };
    const abs = store.resolvePath(companyId, path);
    if (!abs) throw new AppError('ERR_VALIDATION', 'Invalid file path');

    let allowed = store.verify(companyId, path, e, t);
    if (!allowed) {
      if (req.headers.authorization) {
        let caller;
        try {
          caller = await verifyAccess(app, req.headers.authorization);
        } catch (err) {
          if (t || e) throw new AppError('ERR_NO_PERMISSION');
          throw err;
        }
        allowed = caller.companyId === companyId;
      }
      if (!allowed) throw new AppError('ERR_NO_PERMISSION');
    }

    const st = await stat(abs).catch(() => undefined);
    if (!st || !st.isFile()) throw new AppError('ERR_NOT_FOUND', 'File not found');

    const name = abs.slice(abs.lastIndexOf(sep) + 1);
    const ext = (/\.([A-Za-z0-9]+)$/.exec(name)?.[1] ?? '').toLowerCase();
    const type = TYPE_BY_EXT[ext] ?? 'application/octet-stream';
    const inline = /^(image|audio|video)\//.test(type);
    void reply
      .header('content-type', type)
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .header('cache-control', 'private, max-age=3600')
      .header('accept-ranges', 'bytes')
      .header('last-modified', st.mtime.toUTCString())
      .header('content-disposition', inline ? 'inline' : `attachment; filename="${name}"`);

    const range = parseRange(req.headers.range, st.size);
    if (range) {
      void reply.status(206).header('content-range', `bytes ${range.start}-${range.end}/${st.size}`).header('content-length', range.end - range.start + 1);
      return reply.send(createReadStream(abs, { start: range.start, end: range.end }));
    }
    void reply.header('content-length', st.size);
    return reply.send(createReadStream(abs));
  });
}

/** One satisfiable `bytes=start-end` range, or undefined (absent, several, or invalid ranges: the whole file). */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | undefined {
  const m = /^bytes=(\d{0,15})-(\d{0,15})$/.exec(header ?? '');
  if (!m || size === 0 || (!m[1] && !m[2])) return undefined;
  let start: number;
  let end: number;
  if (!m[1]) {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] ? Math.min(Number(m[2]), size - 1) : size - 1;
  }
  if (start > end || start >= size) return undefined;
  return { start, end };
}
