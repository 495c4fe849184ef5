import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError, definePlugin, Type, UPLOAD_TYPES } from '@atendo/sdk';
import { createTestKernel, type TestKernel, type TestUser } from '@atendo/testing';
import { parseRange, sanitizeFileName, typeAllowed, UploadStore } from '../src/uploads';

/** A 1x1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const PDF = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n', 'latin1');
const EXE = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(510)]);
const UPLOAD_LIMIT = 200_000;

/** A multipart/form-data body with one file part (and optional text fields). */
function form(file: { name: string; type: string; data: Buffer; field?: string }, fields: Record<string, string> = {}) {
  const boundary = `----atendo${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'file'}"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`));
  parts.push(file.data, Buffer.from(`\r\n--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A tiny plugin using ctx.uploads the way real plugins do. `kind=text` allows text; `max` lowers the limit. */
const uploadTestPlugin = definePlugin({
  id: 'upload-test',
  register({ app, uploads }) {
    app.post('/test-upload', {
      schema: { querystring: Type.Object({ kind: Type.Optional(Type.String({ maxLength: 10 })), max: Type.Optional(Type.Integer({ minimum: 1 })) }) },
    }, async (req) => {
      const { kind, max } = req.query as { kind?: string; max?: number };
      const file = await req.file();
      if (!file) throw new AppError('ERR_VALIDATION', 'file is required');
      const allow = kind === 'text' ? [...UPLOAD_TYPES.text] : ['image/*', 'application/pdf'];
      const stored = await uploads.save(req.auth.companyId, 'test', file, { allow, maxBytes: max });
      return { ...stored, url: uploads.url(req.auth.companyId, stored.path) };
    });
    app.delete('/test-upload', {
      schema: { querystring: Type.Object({ path: Type.String({ maxLength: 500 }) }) },
    }, async (req) => {
      await uploads.remove(req.auth.companyId, (req.query as { path: string }).path);
      return { ok: true };
    });
  },
});

describe('uploads', () => {
  let k: TestKernel;
  let a: { companyId: number; admin: TestUser };
  let b: { companyId: number; admin: TestUser };
  let userA: TestUser;

  beforeAll(async () => {
    k = await createTestKernel({ plugins: [uploadTestPlugin], env: { UPLOAD_LIMIT: String(UPLOAD_LIMIT), BACKEND_URL: 'https://api.example.test' } });
    a = await k.createCompany();
    b = await k.createCompany();
    userA = await k.createUser(a.companyId, { profile: 'user' });
  });
  afterAll(() => k.close());

  const upload = (user: TestUser, file: Parameters<typeof form>[0], query = '') => {
    const f = form(file);
    return k.as(user, 'POST', `/test-upload${query}`, f.payload, f.headers);
  };
  const areaDir = (companyId: number) => join(k.config.uploadsDir, `company${companyId}`, 'test');
  const filesOf = (companyId: number) => (existsSync(areaDir(companyId)) ? readdirSync(areaDir(companyId)) : []);
  /** Path and query of an absolute signed URL, for inject. */
  const local = (url: string) => {
    const u = new URL(url);
    return u.pathname + u.search;
  };

  test('a PNG is stored under company{id}/{area}/{uuid}.png with its sanitized name; the claimed type is ignored', async () => {
    const res = await upload(userA, { name: '../../evil\u0001 photo.html', type: 'text/html', data: PNG });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ fileName: 'evil photo.html', mimeType: 'image/png', size: PNG.length });
    expect(body.path).toMatch(/^test\/[0-9a-f-]{36}\.png$/);
    expect(existsSync(join(k.config.uploadsDir, `company${a.companyId}`, body.path))).toBe(true);
    expect(body.url).toMatch(new RegExp(`^https://api\\.example\\.test/public/company${a.companyId}/test/[0-9a-f-]{36}\\.png\\?e=\\d+&t=[A-Za-z0-9_-]{43}$`));
    const e = Number(new URL(body.url).searchParams.get('e'));
    const days = (e * 1000 - Date.now()) / 86400_000;
    expect(days).toBeGreaterThanOrEqual(7);
    expect(days).toBeLessThanOrEqual(7.05);
  });

  test('a file larger than the head buffer streams to disk byte for byte', async () => {
    const big = Buffer.concat([PNG, randomBytes(150_000)]);
    const res = await upload(a.admin, { name: 'big.png', type: 'image/png', data: big });
    expect(res.statusCode).toBe(200);
    const dl = await k.as(a.admin, 'GET', `/public/company${a.companyId}/${res.json().path}`);
    expect(dl.statusCode).toBe(200);
    expect(dl.rawPayload.equals(big)).toBe(true);
  });

  test('an EXE and HTML disguised as .png are refused with 415 ERR_UPLOAD_TYPE and nothing is stored', async () => {
    const before = filesOf(a.companyId).length;
    const exe = await upload(userA, { name: 'photo.png', type: 'image/png', data: EXE });
    expect(exe.statusCode).toBe(415);
    expect(exe.json().error).toBe('ERR_UPLOAD_TYPE');
    const html = await upload(userA, { name: 'photo.png', type: 'image/png', data: Buffer.from('<html><script>alert(1)</script></html>') });
    expect(html.statusCode).toBe(415);
    expect(html.json().error).toBe('ERR_UPLOAD_TYPE');
    const svg = await upload(userA, { name: 'x.svg', type: 'image/svg+xml', data: Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>') });
    expect(svg.statusCode).toBe(415);
    expect(filesOf(a.companyId).length).toBe(before);
  });

  test('over the per-call limit or over UPLOAD_LIMIT: 413 ERR_PAYLOAD_TOO_LARGE and no file left on disk', async () => {
    const before = filesOf(a.companyId).length;
    const small = await upload(userA, { name: 'a.png', type: 'image/png', data: Buffer.concat([PNG, Buffer.alloc(5000)]) }, '?max=4096');
    expect(small.statusCode).toBe(413);
    expect(small.json().error).toBe('ERR_PAYLOAD_TOO_LARGE');
    // Past the 64 KiB head, so a partial file was written and must be gone.
    const mid = await upload(userA, { name: 'a.png', type: 'image/png', data: Buffer.concat([PNG, Buffer.alloc(100_000)]) }, '?max=80000');
    expect(mid.statusCode).toBe(413);
    expect(mid.json().error).toBe('ERR_PAYLOAD_TOO_LARGE');
    const huge = await upload(userA, { name: 'a.png', type: 'image/png', data: Buffer.concat([PNG, Buffer.alloc(UPLOAD_LIMIT + 10)]) });
    expect(huge.statusCode).toBe(413);
    expect(huge.json().error).toBe('ERR_PAYLOAD_TOO_LARGE');
    expect(filesOf(a.companyId).length).toBe(before);
  });

  test('an empty file is 400 ERR_VALIDATION; a request without a file part is refused', async () => {
    const empty = await upload(userA, { name: 'a.png', type: 'image/png', data: Buffer.alloc(0) });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error).toBe('ERR_VALIDATION');
    const json = await k.as(userA, 'POST', '/test-upload', { file: 'x' });
    expect(json.statusCode).toBe(415);
    expect(json.json().error).toBe('ERR_UNSUPPORTED_MEDIA_TYPE');
  });

  test('text passes only where allowed and only as UTF-8 without NULs; csv keeps its type', async () => {
    const txt = await upload(userA, { name: 'notes.txt', type: 'text/plain', data: Buffer.from('olá, mundo\nlinha 2\n') }, '?kind=text');
    expect(txt.statusCode).toBe(200);
    expect(txt.json()).toMatchObject({ mimeType: 'text/plain', fileName: 'notes.txt' });
    expect(txt.json().path).toMatch(/\.txt$/);
    const csv = await upload(userA, { name: 'list.csv', type: 'application/vnd.ms-excel', data: Buffer.from('name;number\nAna;5511999999999\n') }, '?kind=text');
    expect(csv.statusCode).toBe(200);
    expect(csv.json()).toMatchObject({ mimeType: 'text/csv' });
    expect(csv.json().path).toMatch(/\.csv$/);
    const nul = await upload(userA, { name: 'a.txt', type: 'text/plain', data: Buffer.from('abc\u0000def') }, '?kind=text');
    expect(nul.statusCode).toBe(415);
    const latin1 = await upload(userA, { name: 'a.txt', type: 'text/plain', data: Buffer.from('ol\xe1', 'latin1') }, '?kind=text');
    expect(latin1.statusCode).toBe(415);
    // Invalid UTF-8 after the head is caught while streaming, and the partial file removed.
    const before = filesOf(a.companyId).length;
    const late = await upload(userA, { name: 'a.txt', type: 'text/plain', data: Buffer.concat([Buffer.alloc(70_000, 'a'), Buffer.from([0xff, 0xfe])]) }, '?kind=text');
    expect(late.statusCode).toBe(415);
    expect(late.json().error).toBe('ERR_UPLOAD_TYPE');
    expect(filesOf(a.companyId).length).toBe(before);
    // Text is not allowed on the image route.
    const onImages = await upload(userA, { name: 'a.txt', type: 'text/plain', data: Buffer.from('hello') });
    expect(onImages.statusCode).toBe(415);
  });

  test('over real HTTP, accepted, refused and oversized uploads all answer (the part is drained)', async () => {
    const base = await k.listen();
    const send = async (data: Buffer, name: string, query = '') => {
      const fd = new FormData();
      fd.append('file', new Blob([data], { type: 'image/png' }), name);
      const res = await fetch(`${base}/test-upload${query}`, { method: 'POST', body: fd, headers: { authorization: `Bearer ${userA.token}` } });
      return { status: res.status, body: (await res.json()) as { error?: string; url?: string } };
    };
    expect((await send(Buffer.concat([EXE, randomBytes(150_000)]), 'x.png')).status).toBe(415);
    expect((await send(Buffer.concat([PNG, randomBytes(150_000)]), 'x.png', '?max=70000')).status).toBe(413);
    expect((await send(Buffer.concat([PNG, randomBytes(UPLOAD_LIMIT)]), 'x.png')).status).toBe(413);
    const ok = await send(Buffer.concat([PNG, randomBytes(1000)]), 'x.png');
    expect(ok.status).toBe(200);
    const img = await fetch(`${base}${local(ok.body.url!)}`);
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await img.arrayBuffer()).subarray(0, PNG.length).equals(PNG)).toBe(true);
  });

  describe('serving', () => {
    let stored: { path: string; url: string };
    let pdf: { path: string; url: string };
    beforeAll(async () => {
      stored = (await upload(userA, { name: 'p.png', type: 'image/png', data: PNG })).json();
      pdf = (await upload(userA, { name: 'doc.pdf', type: 'application/pdf', data: PDF })).json();
    });
    const fileUrl = (companyId: number, path: string) => `/public/company${companyId}/${path}`;

    test('same company with a bearer token: 200, the bytes, image type, nosniff, inline', async () => {
      const res = await k.as(a.admin, 'GET', fileUrl(a.companyId, stored.path));
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-disposition']).toBe('inline');
      expect(res.headers['content-length']).toBe(String(PNG.length));
      expect(res.rawPayload.equals(PNG)).toBe(true);
    });

    test('documents are served as attachments', async () => {
      const res = await k.as(userA, 'GET', fileUrl(a.companyId, pdf.path));
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/pdf');
      expect(res.headers['content-disposition']).toMatch(/^attachment; filename="[0-9a-f-]{36}\.pdf"$/);
      expect(res.rawPayload.equals(PDF)).toBe(true);
    });

    test('another company (bearer) gets 403 ERR_NO_PERMISSION, for existing and unknown files alike', async () => {
      const res = await k.as(b.admin, 'GET', fileUrl(a.companyId, stored.path));
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe('ERR_NO_PERMISSION');
      const unknown = await k.as(b.admin, 'GET', fileUrl(a.companyId, 'test/nothing.png'));
      expect(unknown.statusCode).toBe(403);
      expect(unknown.json().error).toBe('ERR_NO_PERMISSION');
      // The super admin of company 1 is not a member of company A either.
      expect((await k.as(k.superAdmin, 'GET', fileUrl(a.companyId, stored.path))).statusCode).toBe(403);
    });

    test('no credentials: 403; an invalid bearer token alone: 403 ERR_INVALID_TOKEN', async () => {
      const none = await k.as(null, 'GET', fileUrl(a.companyId, stored.path));
      expect(none.statusCode).toBe(403);
      expect(none.json().error).toBe('ERR_NO_PERMISSION');
      const bad = await k.as({ token: 'not.a.jwt' }, 'GET', fileUrl(a.companyId, stored.path));
      expect(bad.statusCode).toBe(403);
      expect(bad.json().error).toBe('ERR_INVALID_TOKEN');
    });

    test('a signed URL works without a bearer token (as <img> loads it)', async () => {
      const res = await k.as(null, 'GET', local(stored.url));
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.rawPayload.equals(PNG)).toBe(true);
    });

    test('tampered signature, tampered expiry, other path or other company: 403 ERR_NO_PERMISSION', async () => {
      const u = new URL(stored.url);
      const t = u.searchParams.get('t')!;
      const e = u.searchParams.get('e')!;
      const flipped = (t[0] === 'A' ? 'B' : 'A') + t.slice(1);
      const cases = [
        `${u.pathname}?e=${e}&t=${flipped}`,
        `${u.pathname}?e=${Number(e) + 3600}&t=${t}`,
        `${u.pathname}?e=${e}`,
        `${u.pathname}?t=${t}`,
        `${u.pathname}?e=abc&t=${t}`,
        `${u.pathname}?e=${e}&t=${t}x`,
        `${fileUrl(a.companyId, pdf.path)}?e=${e}&t=${t}`,
        `${fileUrl(b.companyId, stored.path)}?e=${e}&t=${t}`,
      ];
      for (const url of cases) {
        const res = await k.as(null, 'GET', url);
        expect({ url, status: res.statusCode, error: res.json().error }).toEqual({ url, status: 403, error: 'ERR_NO_PERMISSION' });
      }
      // A bad signature does not hide behind another company's bearer either.
      const mixed = await k.as(b.admin, 'GET', `${u.pathname}?e=${e}&t=${flipped}`);
      expect(mixed.statusCode).toBe(403);
    });

    test('an expired signature: 403 ERR_NO_PERMISSION', async () => {
      const store = new UploadStore({ dir: k.config.uploadsDir, publicUrl: 'http://x', secret: k.config.jwtSecret, maxBytes: UPLOAD_LIMIT });
      const fresh = store.url(a.companyId, stored.path);
      expect((await k.as(null, 'GET', local(fresh))).statusCode).toBe(200);
      const old = store.url(a.companyId, stored.path, Date.now() - 8 * 86400_000);
      const res = await k.as(null, 'GET', local(old));
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe('ERR_NO_PERMISSION');
      // Signed with another secret: refused.
      const other = new UploadStore({ dir: k.config.uploadsDir, publicUrl: 'http://x', secret: 'another-secret-another-secret-xx', maxBytes: 1 });
      expect((await k.as(null, 'GET', local(other.url(a.companyId, stored.path)))).statusCode).toBe(403);
    });

    test('unknown file of the own company: 404 ERR_NOT_FOUND', async () => {
      const res = await k.as(a.admin, 'GET', fileUrl(a.companyId, 'test/00000000-0000-0000-0000-000000000000.png'));
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toBe('ERR_NOT_FOUND');
      const dir = await k.as(a.admin, 'GET', fileUrl(a.companyId, 'test'));
      expect(dir.statusCode).toBe(404);
    });

    test('path traversal is refused with 4xx and never serves a file outside the company folder', async () => {
      const c = `/public/company${a.companyId}`;
      // Paths reaching the route are checked segment by segment (400); the router resolves plain dot
      // segments itself, so those never reach it (404); a double-encoded name is just an unknown file.
      const cases: [string, number][] = [
        [`${c}/..%2f..%2fsecrets.json`, 400],
        [`${c}/test/..%2F..%2F..%2Fsecrets.json`, 400],
        [`${c}/..%5c..%5csecrets.json`, 400],
        [`${c}/test/..%2f..%2fcompany${b.companyId}%2ftest%2fx.png`, 400],
        [`${c}//etc/passwd`, 400],
        [`${c}/%2fetc%2fpasswd`, 400],
        [`${c}/.hidden`, 400],
        // Resolved to `test/` by the URL parser, then to `test` (the kernel drops a trailing slash): a folder, no file.
        [`${c}/test/.`, 404],
        [`${c}/test/a%00.png`, 400],
        [`${c}/test/a%0a.png`, 400],
        [`${c}/%2e%2e/%2e%2e/secrets.json`, 404],
        [`${c}/../../secrets.json`, 404],
        [`${c}/test/%252e%252e%252fx`, 404],
        [`/public/company0/test/x.png`, 400],
        [`/public/companyabc/test/x.png`, 400],
      ];
      for (const [url, status] of cases) {
        const res = await k.as(a.admin, 'GET', url);
        expect({ url, status: res.statusCode }).toEqual({ url, status });
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.json().error).toBe(status === 400 ? 'ERR_VALIDATION' : 'ERR_NOT_FOUND');
      }
    });

    test('a single byte range is answered with 206', async () => {
      const res = await k.as(a.admin, 'GET', fileUrl(a.companyId, stored.path), undefined, { range: 'bytes=0-7' });
      expect(res.statusCode).toBe(206);
      expect(res.headers['content-range']).toBe(`bytes 0-7/${PNG.length}`);
      expect(res.rawPayload.equals(PNG.subarray(0, 8))).toBe(true);
    });

    test('remove deletes the file; a traversal path is ignored', async () => {
      const s = (await upload(userA, { name: 'r.png', type: 'image/png', data: PNG })).json();
      const sentinel = join(k.config.uploadsDir, 'sentinel.txt');
      writeFileSync(sentinel, 'keep');
      for (const p of ['../sentinel.txt', 'test/../../sentinel.txt', `${k.config.uploadsDir}/sentinel.txt`]) {
        expect((await k.as(userA, 'DELETE', `/test-upload?path=${encodeURIComponent(p)}`)).statusCode).toBe(200);
      }
      expect(existsSync(sentinel)).toBe(true);
      // Company B cannot remove company A's file through its own scope.
      await k.as(b.admin, 'DELETE', `/test-upload?path=${encodeURIComponent(s.path)}`);
      expect(existsSync(join(areaDir(a.companyId), s.path.split('/')[1]))).toBe(true);
      await k.as(userA, 'DELETE', `/test-upload?path=${encodeURIComponent(s.path)}`);
      expect(existsSync(join(areaDir(a.companyId), s.path.split('/')[1]))).toBe(false);
      expect((await k.as(userA, 'GET', fileUrl(a.companyId, s.path))).statusCode).toBe(404);
    });
  });

  test('helpers: sanitizeFileName, typeAllowed, parseRange', () => {
    expect(sanitizeFileName('C:\\Users\\x\\My "file".pdf')).toBe('My file.pdf');
    expect(sanitizeFileName('a/b/../c.png')).toBe('c.png');
    expect(sanitizeFileName('')).toBe('file');
    expect(sanitizeFileName('x'.repeat(300) + '.png')).toHaveLength(200);
    expect(typeAllowed('image/png', ['image/*'])).toBe(true);
    expect(typeAllowed('image/svg+xml', ['image/*'])).toBe(false);
    expect(typeAllowed('image/svg+xml', ['image/svg+xml'])).toBe(true);
    expect(typeAllowed('application/pdf', ['image/*', '*/*'])).toBe(false);
    expect(parseRange('bytes=2-', 10)).toEqual({ start: 2, end: 9 });
    expect(parseRange('bytes=-3', 10)).toEqual({ start: 7, end: 9 });
    expect(parseRange('bytes=20-30', 10)).toBeUndefined();
    expect(parseRange('bytes=0-1,3-4', 10)).toBeUndefined();
  });
});
