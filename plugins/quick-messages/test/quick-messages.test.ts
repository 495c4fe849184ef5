import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { collectEvents, createTestKernel, nextEvent, type TestKernel, type TestUser } from '@atendo/testing';
import quickMessages from '../src/index';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const PDF = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n', 'latin1');
const EXE = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(510)]);

/** A multipart/form-data body with one file part plus text fields. */
function form(file: { name: string; type: string; data: Buffer } | null, fields: Record<string, string> = {}) {
  const boundary = `----atendo${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  if (file) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`), file.data, Buffer.from('\r\n'));
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe('quick messages', () => {
  let k: TestKernel;
  let A: number;
  let B: number;
  let adminA: TestUser;
  let supA: TestUser;
  let user1: TestUser;
  let user2: TestUser;
  let adminB: TestUser;

  beforeAll(async () => {
    k = await createTestKernel({ plugins: [quickMessages] });
    const a = await k.createCompany();
    const b = await k.createCompany();
    A = a.companyId;
    B = b.companyId;
    adminA = a.admin;
    adminB = b.admin;
    supA = await k.createUser(A, { profile: 'supervisor' });
    user1 = await k.createUser(A, { profile: 'user' });
    user2 = await k.createUser(A, { profile: 'user' });
  });
  afterAll(() => k.close());

  const create = (user: TestUser, body: Record<string, unknown>) => k.as(user, 'POST', '/quick-messages', body);
  const created = async (user: TestUser, body: Record<string, unknown>) => {
    const res = await create(user, body);
    expect(res.statusCode).toBe(200);
    return res.json();
  };
  const uploadMedia = (user: TestUser, id: number, file: { name: string; type: string; data: Buffer } | null) => {
    const f = form(file, { typeArch: 'quickMessage' });
    return k.as(user, 'POST', `/quick-messages/${id}/media-upload`, f.payload, f.headers);
  };
  const mediaDir = (companyId: number) => join(k.config.uploadsDir, `company${companyId}`, 'quickMessage');
  const mediaFiles = (companyId: number) => (existsSync(mediaDir(companyId)) ? readdirSync(mediaDir(companyId)) : []);
  const local = (url: string) => {
    const u = new URL(url);
    return u.pathname + u.search;
  };

  test('CRUD: create, read, update, delete with the wire shape', async () => {
    const res = await create(adminA, { shortcode: '  hello ', message: 'Olá {{name}}!', geral: true, isMedia: false, mediaPath: '/etc/passwd', companyId: B, userId: 999 });
    expect(res.statusCode).toBe(200);
    const qm = res.json();
    expect(qm).toEqual({
      id: expect.any(Number),
      companyId: A,
      userId: adminA.id,
      shortcode: 'hello',
      message: 'Olá {{name}}!',
      geral: true,
      status: true,
      isMedia: false,
      mediaPath: null,
      mediaName: null,
      mediaType: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const got = await k.as(user1, 'GET', `/quick-messages/${qm.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(qm);

    const put = await k.as(adminA, 'PUT', `/quick-messages/${qm.id}`, { message: 'Changed', status: false });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ id: qm.id, shortcode: 'hello', message: 'Changed', status: false, geral: true });

    const del = await k.as(adminA, 'DELETE', `/quick-messages/${qm.id}`);
    expect(del.statusCode).toBe(200);
    expect(del.json()).toEqual({ message: 'Quick message deleted' });
    const gone = await k.as(adminA, 'GET', `/quick-messages/${qm.id}`);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error).toBe('ERR_NO_QUICK_MESSAGE_FOUND');
    expect((await k.as(adminA, 'DELETE', `/quick-messages/${qm.id}`)).statusCode).toBe(404);
  });

  test('shortcodes are unique per company, case-insensitively (409 ERR_DUPLICATED_NAME); other companies may reuse them', async () => {
    const first = await created(adminA, { shortcode: 'Dup', message: 'x' });
    const again = await create(user1, { shortcode: 'dUP', message: 'y' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toBe('ERR_DUPLICATED_NAME');
    expect((await create(adminB, { shortcode: 'dup', message: 'z' })).statusCode).toBe(200);
    const other = await created(adminA, { shortcode: 'Dup2' });
    const clash = await k.as(adminA, 'PUT', `/quick-messages/${other.id}`, { shortcode: 'DUP' });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().error).toBe('ERR_DUPLICATED_NAME');
    expect((await k.as(adminA, 'GET', `/quick-messages/${other.id}`)).json().shortcode).toBe('Dup2');
    expect(first.message).toBe('x');
    expect(other.message).toBe('');
  });

  describe('role matrix (spec §6)', () => {
    test('a user creates only non-general ones: geral true -> 403 ERR_NO_PERMISSION', async () => {
      const refused = await create(user1, { shortcode: 'u-general', message: 'x', geral: true });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error).toBe('ERR_NO_PERMISSION');
      expect((await k.db('quickMessages').where({ companyId: A, shortcode: 'u-general' })).length).toBe(0);
      const own = await created(user1, { shortcode: 'u-own', message: 'x', geral: false });
      expect(own).toMatchObject({ geral: false, userId: user1.id });
    });

    test('a user edits and deletes only own non-general ones', async () => {
      const own = await created(user1, { shortcode: 'm-own' });
      const others = await created(user2, { shortcode: 'm-other' });
      const general = await created(supA, { shortcode: 'm-general', geral: true });

      expect((await k.as(user1, 'PUT', `/quick-messages/${own.id}`, { message: 'mine' })).statusCode).toBe(200);
      const promote = await k.as(user1, 'PUT', `/quick-messages/${own.id}`, { geral: true });
      expect(promote.statusCode).toBe(403);
      expect(promote.json().error).toBe('ERR_NO_PERMISSION');
      for (const [method, url, body] of [
        ['PUT', `/quick-messages/${others.id}`, { message: 'hijack' }],
        ['PUT', `/quick-messages/${general.id}`, { message: 'hijack' }],
        ['DELETE', `/quick-messages/${others.id}`, undefined],
        ['DELETE', `/quick-messages/${general.id}`, undefined],
        ['DELETE', `/quick-messages/${general.id}/media-upload`, undefined],
      ] as const) {
        const res = await k.as(user1, method, url, body);
        expect({ method, url, status: res.statusCode, error: res.json().error }).toEqual({ method, url, status: 403, error: 'ERR_NO_PERMISSION' });
      }
      const before = mediaFiles(A).length;
      const up = await uploadMedia(user1, general.id, { name: 'a.png', type: 'image/png', data: PNG });
      expect(up.statusCode).toBe(403);
      expect(mediaFiles(A).length).toBe(before);
      expect((await k.as(adminA, 'GET', `/quick-messages/${others.id}`)).json().message).toBe('');
      expect((await k.as(adminA, 'GET', `/quick-messages/${general.id}`)).json().message).toBe('');
      expect((await k.as(user1, 'DELETE', `/quick-messages/${own.id}`)).statusCode).toBe(200);
    });

    test('supervisors and admins edit and delete any and set the general flag', async () => {
      for (const manager of [supA, adminA]) {
        const mine = await created(user2, { shortcode: `x-${manager.id}` });
        const put = await k.as(manager, 'PUT', `/quick-messages/${mine.id}`, { geral: true, message: 'by manager' });
        expect(put.statusCode).toBe(200);
        expect(put.json()).toMatchObject({ geral: true, message: 'by manager', userId: user2.id });
        const back = await k.as(manager, 'PUT', `/quick-messages/${mine.id}`, { geral: false });
        expect(back.json().geral).toBe(false);
        expect((await k.as(manager, 'DELETE', `/quick-messages/${mine.id}`)).statusCode).toBe(200);
        expect((await created(manager, { shortcode: `g-${manager.id}`, geral: true })).geral).toBe(true);
      }
    });
  });

  test('GET /quick-messages pages by 20 ordered by shortcode, searches shortcode and message, ignores companyId/userId', async () => {
    const { companyId } = await k.createCompany();
    const admin = await k.createUser(companyId, { profile: 'admin' });
    for (let i = 25; i >= 1; i--) await created(admin, { shortcode: `s${String(i).padStart(2, '0')}`, message: i === 7 ? 'Special 100%_off' : `text ${i}` });
    const p1 = await k.as(admin, 'GET', `/quick-messages?companyId=${A}&userId=${adminA.id}`);
    expect(p1.statusCode).toBe(200);
    expect(p1.json().count).toBe(25);
    expect(p1.json().hasMore).toBe(true);
    expect(p1.json().records.map((r: { shortcode: string }) => r.shortcode)).toEqual(Array.from({ length: 20 }, (_, i) => `s${String(i + 1).padStart(2, '0')}`));
    const p2 = await k.as(admin, 'GET', '/quick-messages?pageNumber=2');
    expect(p2.json()).toMatchObject({ count: 25, hasMore: false });
    expect(p2.json().records).toHaveLength(5);
    const byMessage = await k.as(admin, 'GET', `/quick-messages?searchParam=${encodeURIComponent('100%_OFF')}`);
    expect(byMessage.json().records.map((r: { shortcode: string }) => r.shortcode)).toEqual(['s07']);
    const wildcard = await k.as(admin, 'GET', `/quick-messages?searchParam=${encodeURIComponent('%')}`);
    expect(wildcard.json().count).toBe(1);
    const byCode = await k.as(admin, 'GET', '/quick-messages?searchParam=S2');
    expect(byCode.json().records.map((r: { shortcode: string }) => r.shortcode)).toEqual(['s20', 's21', 's22', 's23', 's24', 's25']);
    // Clients of the product family call it with a trailing slash: the same list, not the :id route.
    const slash = await k.as(admin, 'GET', '/quick-messages/?searchParam=S2&pageNumber=1');
    expect(slash.statusCode).toBe(200);
    expect(slash.json()).toEqual(byCode.json());
  });

  test("GET /quick-messages/list: active general ones plus the caller's own", async () => {
    const { companyId, admin } = await k.createCompany();
    const u1 = await k.createUser(companyId, { profile: 'user' });
    const u2 = await k.createUser(companyId, { profile: 'user' });
    await created(admin, { shortcode: 'b-general', geral: true });
    await created(admin, { shortcode: 'c-general-off', geral: true, status: false });
    await created(admin, { shortcode: 'd-admin-private' });
    await created(u1, { shortcode: 'a-u1' });
    await created(u1, { shortcode: 'e-u1-off', status: false });
    await created(u2, { shortcode: 'f-u2' });
    const codes = async (u: TestUser) => {
      const res = await k.as(u, 'GET', `/quick-messages/list?companyId=${A}&userId=${u2.id}`);
      expect(res.statusCode).toBe(200);
      return res.json().map((r: { shortcode: string }) => r.shortcode);
    };
    expect(await codes(u1)).toEqual(['a-u1', 'b-general']);
    expect(await codes(u2)).toEqual(['b-general', 'f-u2']);
    expect(await codes(admin)).toEqual(['b-general', 'd-admin-private']);
    expect(await codes(adminA)).not.toContain('b-general');
  });

  describe('media', () => {
    test('upload stores the file, answers a signed mediaPath that loads without a bearer; replace deletes the old file', async () => {
      const qm = await created(user1, { shortcode: 'with-media', message: 'see attachment', isMedia: true });
      const up = await uploadMedia(user1, qm.id, { name: 'Foto da loja.png', type: 'image/png', data: PNG });
      expect(up.statusCode).toBe(200);
      const body = up.json();
      expect(body).toMatchObject({ id: qm.id, isMedia: true, mediaName: 'Foto da loja.png', mediaType: 'image/png' });
      expect(body.mediaPath).toMatch(new RegExp(`/public/company${A}/quickMessage/[0-9a-f-]{36}\\.png\\?e=\\d+&t=[A-Za-z0-9_-]{43}$`));
      const row = await k.db('quickMessages').where({ id: qm.id }).first();
      expect(row.mediaPath).toMatch(/^quickMessage\/[0-9a-f-]{36}\.png$/);

      const dl = await k.as(null, 'GET', local(body.mediaPath));
      expect(dl.statusCode).toBe(200);
      expect(dl.headers['content-type']).toBe('image/png');
      expect(dl.rawPayload.equals(PNG)).toBe(true);
      // Company B can neither fetch it with its bearer nor with a path lifted from the URL.
      expect((await k.as(adminB, 'GET', new URL(body.mediaPath).pathname)).statusCode).toBe(403);
      // GET answers a fresh signed URL that works too.
      const again = (await k.as(user1, 'GET', `/quick-messages/${qm.id}`)).json();
      expect((await k.as(null, 'GET', local(again.mediaPath))).statusCode).toBe(200);

      const replaced = await uploadMedia(user1, qm.id, { name: 'tabela.pdf', type: 'application/pdf', data: PDF });
      expect(replaced.statusCode).toBe(200);
      expect(replaced.json()).toMatchObject({ mediaName: 'tabela.pdf', mediaType: 'application/pdf' });
      expect(existsSync(join(k.config.uploadsDir, `company${A}`, row.mediaPath))).toBe(false);
      expect((await k.as(null, 'GET', local(body.mediaPath))).statusCode).toBe(404);
      const newRow = await k.db('quickMessages').where({ id: qm.id }).first();
      expect(existsSync(join(k.config.uploadsDir, `company${A}`, newRow.mediaPath))).toBe(true);

      const removed = await k.as(user1, 'DELETE', `/quick-messages/${qm.id}/media-upload`);
      expect(removed.statusCode).toBe(200);
      expect(removed.json()).toMatchObject({ isMedia: false, mediaPath: null, mediaName: null, mediaType: null });
      expect(existsSync(join(k.config.uploadsDir, `company${A}`, newRow.mediaPath))).toBe(false);
    });

    test('deleting a quick message deletes its media file', async () => {
      const qm = await created(adminA, { shortcode: 'del-media' });
      await uploadMedia(adminA, qm.id, { name: 'a.png', type: 'image/png', data: PNG });
      const row = await k.db('quickMessages').where({ id: qm.id }).first();
      const file = join(k.config.uploadsDir, `company${A}`, row.mediaPath);
      expect(existsSync(file)).toBe(true);
      expect((await k.as(adminA, 'DELETE', `/quick-messages/${qm.id}`)).statusCode).toBe(200);
      expect(existsSync(file)).toBe(false);
    });

    test('refused media: EXE 415 ERR_UPLOAD_TYPE, JSON body 415, no file part 400; nothing stored', async () => {
      const qm = await created(adminA, { shortcode: 'bad-media' });
      const before = mediaFiles(A).length;
      const exe = await uploadMedia(adminA, qm.id, { name: 'x.png', type: 'image/png', data: EXE });
      expect(exe.statusCode).toBe(415);
      expect(exe.json().error).toBe('ERR_UPLOAD_TYPE');
      const txt = await uploadMedia(adminA, qm.id, { name: 'x.txt', type: 'text/plain', data: Buffer.from('hello') });
      expect(txt.statusCode).toBe(415);
      const json = await k.as(adminA, 'POST', `/quick-messages/${qm.id}/media-upload`, { file: 'x' });
      expect(json.statusCode).toBe(415);
      expect(json.json().error).toBe('ERR_UNSUPPORTED_MEDIA_TYPE');
      const none = await uploadMedia(adminA, qm.id, null);
      expect(none.statusCode).toBe(400);
      expect(none.json().error).toBe('ERR_VALIDATION');
      expect(mediaFiles(A).length).toBe(before);
      expect((await k.db('quickMessages').where({ id: qm.id }).first()).mediaPath).toBeNull();
    });
  });

  test('cross-tenant: every :id route answers 404 ERR_NO_QUICK_MESSAGE_FOUND and changes nothing', async () => {
    const qm = await created(adminA, { shortcode: 'tenant-a', message: 'secret of A', geral: true });
    await uploadMedia(adminA, qm.id, { name: 'a.png', type: 'image/png', data: PNG });
    const before = await k.db('quickMessages').where({ id: qm.id }).first();
    const filesB = mediaFiles(B).length;
    const f = form({ name: 'b.png', type: 'image/png', data: PNG });
    const calls = [
      k.as(adminB, 'GET', `/quick-messages/${qm.id}`),
      k.as(adminB, 'PUT', `/quick-messages/${qm.id}`, { message: 'pwned' }),
      k.as(adminB, 'DELETE', `/quick-messages/${qm.id}`),
      k.as(adminB, 'POST', `/quick-messages/${qm.id}/media-upload`, f.payload, f.headers),
      k.as(adminB, 'DELETE', `/quick-messages/${qm.id}/media-upload`),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toBe('ERR_NO_QUICK_MESSAGE_FOUND');
    }
    const after = await k.db('quickMessages').where({ id: qm.id }).first();
    expect(after).toEqual(before);
    expect(mediaFiles(B).length).toBe(filesB);
    const listB = await k.as(adminB, 'GET', `/quick-messages?companyId=${A}&searchParam=tenant-a`);
    expect(listB.json()).toEqual({ records: [], count: 0, hasMore: false });
    expect((await k.as(adminB, 'GET', `/quick-messages/list?companyId=${A}`)).json().map((r: { id: number }) => r.id)).not.toContain(qm.id);
  });

  test('bad input answers 4xx catalogue codes, never 500', async () => {
    const qm = await created(adminA, { shortcode: 'valid' });
    const cases: [string, string, unknown, number, string][] = [
      ['POST', '/quick-messages', {}, 400, 'ERR_VALIDATION'],
      ['POST', '/quick-messages', { shortcode: '' }, 400, 'ERR_VALIDATION'],
      ['POST', '/quick-messages', { shortcode: '   ' }, 400, 'ERR_VALIDATION'],
      ['POST', '/quick-messages', { shortcode: 'x'.repeat(51) }, 400, 'ERR_VALIDATION'],
      ['POST', '/quick-messages', { shortcode: 'ok1', message: 'm'.repeat(10001) }, 400, 'ERR_VALIDATION'],
      ['POST', '/quick-messages', { shortcode: 'ok2', geral: 'maybe' }, 400, 'ERR_VALIDATION'],
      ['POST', '/quick-messages', { shortcode: 'ok3', status: { a: 1 } }, 400, 'ERR_VALIDATION'],
      ['POST', '/quick-messages', { shortcode: ['a', 'b'] }, 400, 'ERR_VALIDATION'],
      ['PUT', `/quick-messages/${qm.id}`, { shortcode: '' }, 400, 'ERR_VALIDATION'],
      ['PUT', `/quick-messages/${qm.id}`, { message: 'm'.repeat(10001) }, 400, 'ERR_VALIDATION'],
      ['GET', '/quick-messages/abc', undefined, 400, 'ERR_VALIDATION'],
      ['GET', '/quick-messages/0', undefined, 400, 'ERR_VALIDATION'],
      ['GET', '/quick-messages/-1', undefined, 400, 'ERR_VALIDATION'],
      ['GET', '/quick-messages/99999999999', undefined, 400, 'ERR_VALIDATION'],
      ['GET', '/quick-messages/2147483647', undefined, 404, 'ERR_NO_QUICK_MESSAGE_FOUND'],
      ['PUT', '/quick-messages/1.5', { message: 'x' }, 400, 'ERR_VALIDATION'],
      ['DELETE', '/quick-messages/abc', undefined, 400, 'ERR_VALIDATION'],
      ['DELETE', '/quick-messages/abc/media-upload', undefined, 400, 'ERR_VALIDATION'],
      ['GET', '/quick-messages?pageNumber=0', undefined, 400, 'ERR_VALIDATION'],
      ['GET', '/quick-messages?pageNumber=abc', undefined, 400, 'ERR_VALIDATION'],
      ['GET', `/quick-messages?searchParam=${'s'.repeat(201)}`, undefined, 400, 'ERR_VALIDATION'],
    ];
    for (const [method, url, body, status, error] of cases) {
      const res = await k.as(adminA, method, url, body);
      expect({ method, url, status: res.statusCode, error: res.json().error }).toEqual({ method, url, status, error });
    }
    const badJson = await k.as(adminA, 'POST', '/quick-messages', '{"shortcode": ', { 'content-type': 'application/json' });
    expect(badJson.statusCode).toBe(400);
    expect(badJson.json().error).toBe('ERR_INVALID_JSON');
    const noToken = await k.as(null, 'GET', '/quick-messages');
    expect(noToken.statusCode).toBe(401);
    expect(noToken.json().error).toBe('ERR_SESSION_EXPIRED');
  });

  test('events on company-{cid}-quickmessage after each write, only to that company', async () => {
    const base = await k.listen();
    const sa = await k.socket(adminA.token, base);
    const sb = await k.socket(adminB.token, base);
    try {
      const event = `company-${A}-quickmessage`;
      const leaked = collectEvents(sb, event, 1500);
      const leakedB = collectEvents(sb, `company-${B}-quickmessage`, 1500);

      let ev = nextEvent<{ action: string; record: { id: number; shortcode: string } }>(sa, event);
      const qm = await created(user1, { shortcode: 'evt' });
      expect(await ev).toEqual({ action: 'create', record: qm });

      ev = nextEvent(sa, event);
      const put = (await k.as(user1, 'PUT', `/quick-messages/${qm.id}`, { message: 'changed' })).json();
      expect(await ev).toEqual({ action: 'update', record: put });

      ev = nextEvent(sa, event);
      await uploadMedia(user1, qm.id, { name: 'a.png', type: 'image/png', data: PNG });
      expect(await ev).toMatchObject({ action: 'update', record: { id: qm.id, isMedia: true } });

      ev = nextEvent(sa, event);
      await k.as(user1, 'DELETE', `/quick-messages/${qm.id}/media-upload`);
      expect(await ev).toMatchObject({ action: 'update', record: { id: qm.id, isMedia: false } });

      const del = nextEvent(sa, event);
      await k.as(user1, 'DELETE', `/quick-messages/${qm.id}`);
      expect(await del).toEqual({ action: 'delete', id: qm.id });

      // Refused writes emit nothing.
      const none = collectEvents(sa, event, 500);
      await create(user1, { shortcode: 'evt2', geral: true });
      expect(await none).toEqual([]);

      expect(await leaked).toEqual([]);
      expect(await leakedB).toEqual([]);
    } finally {
      sa.close();
      sb.close();
    }
  });
});
