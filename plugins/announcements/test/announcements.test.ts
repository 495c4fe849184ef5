import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { collectEvents, createTestKernel, nextEvent, type TestKernel, type TestUser } from '@atendo/testing';
import { errorCatalogue } from '@atendo/sdk';
import announcements from '../src/index';
import { MEDIA_MAX_BYTES } from '../src/contract';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]), Buffer.alloc(64), Buffer.from([0xff, 0xd9])]);
const PDF = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n', 'latin1');
const GIF = Buffer.concat([Buffer.from('GIF89a'), Buffer.from([1, 0, 1, 0, 0, 0, 0]), Buffer.alloc(32)]);

type Res = { statusCode: number; json(): Record<string, any> };
type File = { name: string; type: string; data: Buffer };

function expectRefused(res: Res, status: number, code: string) {
  expect({ status: res.statusCode, error: res.json().error }).toEqual({ status, error: code });
}

/** A multipart/form-data body with one file part plus text fields. */
function form(file: File | null, fields: Record<string, string> = {}) {
  const boundary = `----atendo${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  if (file) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`), file.data, Buffer.from('\r\n'));
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe('announcements plugin', () => {
  let k: TestKernel;
  let A: number;
  let adminA: TestUser;
  let userA: TestUser;
  let adminB: TestUser;

  beforeAll(async () => {
    k = await createTestKernel({ plugins: [announcements] });
    const a = await k.createCompany();
    const b = await k.createCompany({ without: ['useKanban', 'useCampaigns', 'useInternalChat'] });
    A = a.companyId;
    adminA = a.admin;
    adminB = b.admin;
    userA = await k.createUser(A, { profile: 'user' });
  });
  afterAll(() => k.close());
  beforeEach(async () => {
    await k.db('announcements').del();
  });

  const su = (method: string, url: string, body?: unknown, headers?: Record<string, string>) => k.as(k.superAdmin, method, url, body, headers);
  const create = async (body: Record<string, unknown>) => {
    const res = await su('POST', '/announcements/', body);
    expect(res.statusCode).toBe(200);
    return res.json();
  };
  const upload = (who: TestUser, id: number, file: File | null) => {
    const f = form(file, { typeArch: 'announcements' });
    return k.as(who, 'POST', `/announcements/${id}/media-upload`, f.payload, f.headers);
  };
  const files = () => {
    const dir = join(k.config.uploadsDir, 'company1', 'announcements');
    return existsSync(dir) ? readdirSync(dir) : [];
  };
  const local = (url: string) => {
    const u = new URL(url);
    return u.pathname + u.search;
  };
  const titles = (res: Res) => (res.json().records as { title: string }[]).map((r) => r.title);

  test('super creates, reads, updates and deletes; the wire shape; defaults priority 3 and active', async () => {
    const created = await create({ title: '  Manutenção programada ', text: ' Sábado às 22h. ', mediaPath: '/etc/passwd', companyId: A });
    expect(created).toEqual({
      id: expect.any(Number),
      priority: 3,
      title: 'Manutenção programada',
      text: 'Sábado às 22h.',
      mediaPath: null,
      mediaName: null,
      companyId: 1,
      status: true,
      targetCompanyIds: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await su('GET', `/announcements/${created.id}`)).json()).toEqual(created);

    const upd = await su('PUT', `/announcements/${created.id}`, { priority: '1', status: 'false', text: 'Domingo às 22h.' });
    expect(upd.statusCode).toBe(200);
    expect(upd.json()).toMatchObject({ id: created.id, title: 'Manutenção programada', text: 'Domingo às 22h.', priority: 1, status: false });
    expect(await k.db('announcements').where({ id: created.id }).first('priority', 'status')).toEqual({ priority: 1, status: false });

    const del = await su('DELETE', `/announcements/${created.id}`);
    expect(del.statusCode).toBe(200);
    expect(del.json()).toEqual({ message: expect.any(String) });
    for (const [method, body] of [['GET'], ['PUT', { title: 'x' }], ['DELETE'], ['DELETE-media']] as [string, unknown?][]) {
      const res = method === 'DELETE-media' ? await su('DELETE', `/announcements/${created.id}/media-upload`) : await su(method, `/announcements/${created.id}`, body);
      expectRefused(res, 404, 'ERR_NO_ANNOUNCEMENT_FOUND');
    }
    expectRefused(await upload(k.superAdmin, created.id, { name: 'a.png', type: 'image/png', data: PNG }), 404, 'ERR_NO_ANNOUNCEMENT_FOUND');
    expect(await k.db('announcements').count<{ count: string }[]>({ count: '*' })).toEqual([{ count: 0 }]);
  });

  test('writes are super only: admins (even of the platform company) and users get 403 and change nothing', async () => {
    const target = await create({ title: 'Alvo', text: 'texto' });
    const platformAdmin = await k.createUser(1, { profile: 'admin' });
    for (const who of [adminA, userA, adminB, platformAdmin]) {
      expectRefused(await k.as(who, 'POST', '/announcements/', { title: 'Invasão', text: 'x' }), 403, 'ERR_NO_PERMISSION');
      expectRefused(await k.as(who, 'POST', '/announcements', { title: 'Invasão', text: 'x' }), 403, 'ERR_NO_PERMISSION');
      expectRefused(await k.as(who, 'GET', `/announcements/${target.id}`), 403, 'ERR_NO_PERMISSION');
      expectRefused(await k.as(who, 'PUT', `/announcements/${target.id}`, { title: 'Mudado' }), 403, 'ERR_NO_PERMISSION');
      expectRefused(await k.as(who, 'DELETE', `/announcements/${target.id}`), 403, 'ERR_NO_PERMISSION');
      expectRefused(await upload(who, target.id, { name: 'a.png', type: 'image/png', data: PNG }), 403, 'ERR_NO_PERMISSION');
      expectRefused(await k.as(who, 'DELETE', `/announcements/${target.id}/media-upload`), 403, 'ERR_NO_PERMISSION');
    }
    expect(await k.db('announcements').select('title', 'mediaPath')).toEqual([{ title: 'Alvo', mediaPath: null }]);
    expect(files()).toEqual([]);
    for (const [method, url] of [['GET', '/announcements/'], ['GET', '/announcements/1'], ['POST', '/announcements/'], ['PUT', '/announcements/1'], ['DELETE', '/announcements/1']]) {
      expectRefused(await k.as(null, method, url, method === 'POST' || method === 'PUT' ? { title: 'x', text: 'y' } : undefined), 401, 'ERR_SESSION_EXPIRED');
    }
  });

  test('bad input answers 400 ERR_VALIDATION and stores nothing', async () => {
    const big = 'x'.repeat(10_001);
    for (const body of [
      {},
      { title: 'só título' },
      { text: 'só texto' },
      { title: '', text: 'x' },
      { title: '   ', text: 'x' },
      { title: 'x', text: '  ' },
      { title: 'x'.repeat(201), text: 'x' },
      { title: 'x', text: big },
      { title: 'x', text: 'y', priority: 0 },
      { title: 'x', text: 'y', priority: 4 },
      { title: 'x', text: 'y', priority: '9' },
      { title: 'x', text: 'y', priority: 1.5 },
      { title: 'x', text: 'y', priority: 'alta' },
      { title: 'x', text: 'y', status: 'maybe' },
      { title: { a: 1 }, text: 'y' },
      { title: 'x', text: ['y'] },
    ]) {
      const res = await su('POST', '/announcements/', body);
      expect({ body, status: res.statusCode, error: res.json().error }).toEqual({ body, status: 400, error: 'ERR_VALIDATION' });
      expect(Object.keys(errorCatalogue())).toContain(res.json().error);
    }
    expect(await k.db('announcements').count<{ count: string }[]>({ count: '*' })).toEqual([{ count: 0 }]);
    const a = await create({ title: 'Válido', text: 'ok', priority: 2 });
    for (const body of [{ title: '' }, { text: '   ' }, { priority: 5 }, { priority: null }, { status: 1 }]) {
      expectRefused(await su('PUT', `/announcements/${a.id}`, body), 400, 'ERR_VALIDATION');
    }
    expect(await k.db('announcements').where({ id: a.id }).first('title', 'text', 'priority')).toEqual({ title: 'Válido', text: 'ok', priority: 2 });
    for (const url of ['/announcements/abc', '/announcements/0', '/announcements/-1', '/announcements/99999999999', '/announcements/?pageNumber=0', '/announcements/?pageNumber=x', `/announcements/?searchParam=${'s'.repeat(201)}`]) {
      expectRefused(await su('GET', url), 400, 'ERR_VALIDATION');
    }
    expectRefused(await su('GET', '/announcements/2147483647'), 404, 'ERR_NO_ANNOUNCEMENT_FOUND');
    const badJson = await su('POST', '/announcements/', '{"title": ', { 'content-type': 'application/json' });
    expectRefused(badJson, 400, 'ERR_INVALID_JSON');
  });

  test('non-super users of every company list only the active ones, highest priority then newest first; super lists all', async () => {
    const low = await create({ title: 'Baixa antiga', text: 't', priority: 3 });
    await create({ title: 'Inativa', text: 't', priority: 1, status: false });
    const high = await create({ title: 'Alta', text: 't', priority: 1 });
    await create({ title: 'Média', text: 't', priority: 2 });
    await create({ title: 'Baixa nova', text: 't', priority: 3 });
    await k.db('announcements').where({ id: low.id }).update({ createdAt: new Date(Date.now() - 3_600_000) });
    await k.db('announcements').where({ id: high.id }).update({ createdAt: new Date(Date.now() - 7_200_000) });

    for (const who of [userA, adminA, adminB]) {
      for (const url of ['/announcements/', '/announcements', '/announcements/?status=false']) {
        const res = await k.as(who, 'GET', url);
        expect(res.statusCode).toBe(200);
        expect(titles(res)).toEqual(['Alta', 'Média', 'Baixa nova', 'Baixa antiga']);
        expect(res.json()).toMatchObject({ count: 4, hasMore: false });
      }
    }
    const all = await su('GET', '/announcements/');
    expect(titles(all)).toEqual(['Inativa', 'Alta', 'Média', 'Baixa nova', 'Baixa antiga']);
    expect(all.json().records[0]).toMatchObject({ title: 'Inativa', status: false });
    expect(titles(await su('GET', '/announcements/?status=false'))).toEqual(['Inativa']);
    expect(titles(await su('GET', '/announcements/?status=true'))).toEqual(['Alta', 'Média', 'Baixa nova', 'Baixa antiga']);

    // Deactivating hides it from the others at once.
    await su('PUT', `/announcements/${high.id}`, { status: false });
    expect(titles(await k.as(adminB, 'GET', '/announcements/'))).toEqual(['Média', 'Baixa nova', 'Baixa antiga']);
  });

  test('search on the title (case-insensitive, wildcards literal) and 20 a page with count and hasMore', async () => {
    const rows = Array.from({ length: 45 }, (_, i) => ({ title: `Aviso ${String(i).padStart(2, '0')}`, text: 'corpo', priority: 3, status: true, companyId: 1, createdAt: new Date(Date.now() - i * 60_000) }));
    await k.db('announcements').insert(rows);
    await create({ title: '100% de desconto_promo', text: 'x' });

    const p1 = await k.as(userA, 'GET', '/announcements/?pageNumber=1');
    expect(p1.json()).toMatchObject({ count: 46, hasMore: true });
    expect(p1.json().records).toHaveLength(20);
    expect(titles(p1)[0]).toBe('100% de desconto_promo');
    expect(titles(p1)[1]).toBe('Aviso 00');
    const p3 = await k.as(userA, 'GET', '/announcements/?pageNumber=3');
    expect(p3.json()).toMatchObject({ count: 46, hasMore: false });
    expect(titles(p3)).toEqual(['Aviso 39', 'Aviso 40', 'Aviso 41', 'Aviso 42', 'Aviso 43', 'Aviso 44']);
    expect((await k.as(userA, 'GET', '/announcements/?pageNumber=4')).json()).toEqual({ records: [], count: 46, hasMore: false });

    expect(titles(await k.as(userA, 'GET', '/announcements/?searchParam=aviso%2004'))).toEqual(['Aviso 04']);
    const s = await k.as(adminB, 'GET', `/announcements/?searchParam=${encodeURIComponent('AVISO 1')}`);
    expect(s.json()).toMatchObject({ count: 10, hasMore: false });
    expect(titles(await k.as(userA, 'GET', '/announcements/?searchParam=100%25'))).toEqual(['100% de desconto_promo']);
    expect(titles(await k.as(userA, 'GET', '/announcements/?searchParam=%25'))).toEqual(['100% de desconto_promo']);
    expect(titles(await k.as(userA, 'GET', '/announcements/?searchParam=o_p'))).toEqual(['100% de desconto_promo']);
    expect((await k.as(userA, 'GET', '/announcements/?searchParam=corpo')).json()).toEqual({ records: [], count: 0, hasMore: false });
  });

  describe('media', () => {
    test('PNG and JPEG are stored; the signed URL loads for a user of another company without a bearer; replace and remove delete the files', async () => {
      const a = await create({ title: 'Com imagem', text: 'veja' });
      const up = await upload(k.superAdmin, a.id, { name: 'banner.png', type: 'image/png', data: PNG });
      expect(up.statusCode).toBe(200);
      const body = up.json();
      expect(body).toMatchObject({ id: a.id, mediaName: 'banner.png' });
      expect(body.mediaPath).toMatch(/\/public\/company1\/announcements\/[0-9a-f-]{36}\.png\?e=\d+&t=[A-Za-z0-9_-]{43}$/);
      const row = await k.db('announcements').where({ id: a.id }).first();
      expect(row.mediaPath).toMatch(/^announcements\/[0-9a-f-]{36}\.png$/);

      // What company B's user receives from the list loads as an <img> would (no bearer).
      const seen = (await k.as(adminB, 'GET', '/announcements/')).json().records[0];
      const dl = await k.as(null, 'GET', local(seen.mediaPath));
      expect(dl.statusCode).toBe(200);
      expect(dl.headers['content-type']).toBe('image/png');
      expect(dl.rawPayload.equals(PNG)).toBe(true);

      const jpg = await upload(k.superAdmin, a.id, { name: 'foto.jpeg', type: 'image/jpeg', data: JPEG });
      expect(jpg.statusCode).toBe(200);
      expect(jpg.json()).toMatchObject({ mediaName: 'foto.jpeg' });
      expect(existsSync(join(k.config.uploadsDir, 'company1', row.mediaPath))).toBe(false);
      expect(files()).toHaveLength(1);

      const removed = await su('DELETE', `/announcements/${a.id}/media-upload`);
      expect(removed.statusCode).toBe(200);
      expect(removed.json()).toMatchObject({ id: a.id, mediaPath: null, mediaName: null });
      expect(files()).toEqual([]);

      await upload(k.superAdmin, a.id, { name: 'b.png', type: 'image/png', data: PNG });
      expect(files()).toHaveLength(1);
      await su('DELETE', `/announcements/${a.id}`);
      expect(files()).toEqual([]);
    });

    test('type is checked by content (PDF, GIF, text named .png refused 415), size over 5 MiB 413, no file 400, JSON 415; nothing stored', async () => {
      const a = await create({ title: 'Sem imagem', text: 'x' });
      for (const file of [
        { name: 'x.png', type: 'image/png', data: PDF },
        { name: 'x.jpg', type: 'image/jpeg', data: GIF },
        { name: 'x.png', type: 'image/png', data: Buffer.from('just some text pretending to be an image') },
      ]) {
        expectRefused(await upload(k.superAdmin, a.id, file), 415, 'ERR_UPLOAD_TYPE');
      }
      const huge = Buffer.concat([PNG.subarray(0, 16), Buffer.alloc(MEDIA_MAX_BYTES + 1024)]);
      expectRefused(await upload(k.superAdmin, a.id, { name: 'big.png', type: 'image/png', data: huge }), 413, 'ERR_PAYLOAD_TOO_LARGE');
      expectRefused(await upload(k.superAdmin, a.id, null), 400, 'ERR_VALIDATION');
      expectRefused(await su('POST', `/announcements/${a.id}/media-upload`, { file: 'x' }), 415, 'ERR_UNSUPPORTED_MEDIA_TYPE');
      expect(files()).toEqual([]);
      expect((await k.db('announcements').where({ id: a.id }).first()).mediaPath).toBeNull();
    });
  });

  test('every write emits company-announcement to signed-in sockets of every company', async () => {
    const base = await k.listen();
    const sb = await k.socket(adminB.token, base);
    const sa = await k.socket(userA.token, base);
    try {
      let ev = nextEvent<Record<string, any>>(sb, 'company-announcement');
      let evA = nextEvent<Record<string, any>>(sa, 'company-announcement');
      const a = await create({ title: 'Ao vivo', text: 'novo', priority: 1 });
      expect(await ev).toEqual({ action: 'create', record: a });
      expect(await evA).toEqual({ action: 'create', record: a });

      ev = nextEvent(sb, 'company-announcement');
      const put = (await su('PUT', `/announcements/${a.id}`, { title: 'Ao vivo 2' })).json();
      expect(await ev).toEqual({ action: 'update', record: put });

      ev = nextEvent(sb, 'company-announcement');
      await upload(k.superAdmin, a.id, { name: 'a.png', type: 'image/png', data: PNG });
      expect(await ev).toMatchObject({ action: 'update', record: { id: a.id, mediaName: 'a.png' } });

      ev = nextEvent(sb, 'company-announcement');
      await su('DELETE', `/announcements/${a.id}/media-upload`);
      expect(await ev).toMatchObject({ action: 'update', record: { id: a.id, mediaPath: null } });

      ev = nextEvent(sb, 'company-announcement');
      await su('DELETE', `/announcements/${a.id}`);
      expect(await ev).toEqual({ action: 'delete', id: a.id });

      // Refused writes emit nothing.
      const none = collectEvents(sb, 'company-announcement', 500);
      await k.as(adminA, 'POST', '/announcements/', { title: 'x', text: 'y' });
      await su('POST', '/announcements/', { title: '', text: 'y' });
      expect(await none).toEqual([]);
    } finally {
      sa.close();
      sb.close();
    }
  });
  test('drafts reach no reader socket; targeted announcements reach only their companies; activation pushes them', async () => {
    const base = await k.listen();
    const sb = await k.socket(adminB.token, base);
    const sa = await k.socket(userA.token, base);
    const su1 = await k.socket(k.superAdmin.token, base);
    try {
      // A draft: no reader hears it; the super users' admin screen does.
      const heardB = collectEvents<Record<string, any>>(sb, 'company-announcement', 600);
      const heardA = collectEvents<Record<string, any>>(sa, 'company-announcement', 600);
      const superEv = nextEvent<Record<string, any>>(su1, 'company-announcement');
      const draft = await create({ title: 'Rascunho', text: 'ainda não', status: false });
      expect(await superEv).toEqual({ action: 'create', record: draft });
      await su('PUT', `/announcements/${draft.id}`, { title: 'Rascunho 2' });
      expect(await heardB).toEqual([]);
      expect(await heardA).toEqual([]);
      // Nor do readers list it.
      expect(titles(await k.as(userA, 'GET', '/announcements/'))).not.toContain('Rascunho 2');

      // Activated for company A only: A hears `create`, B hears nothing and does not list it.
      const onlyB = collectEvents<Record<string, any>>(sb, 'company-announcement', 600);
      const evA = nextEvent<Record<string, any>>(sa, 'company-announcement');
      const activated = (await su('PUT', `/announcements/${draft.id}`, { status: true, targetCompanyIds: [A] })).json();
      expect(activated.targetCompanyIds).toEqual([A]);
      expect(await evA).toEqual({ action: 'create', record: activated });
      expect(await onlyB).toEqual([]);
      expect(titles(await k.as(userA, 'GET', '/announcements/'))).toContain('Rascunho 2');
      expect(titles(await k.as(adminB, 'GET', '/announcements/'))).not.toContain('Rascunho 2');

      // Retargeted to every company: B hears `create` now; deactivated: everyone hears `delete`.
      const evB = nextEvent<Record<string, any>>(sb, 'company-announcement');
      const all = (await su('PUT', `/announcements/${draft.id}`, { targetCompanyIds: null })).json();
      expect(all.targetCompanyIds).toBeNull();
      expect(await evB).toEqual({ action: 'create', record: all });
      const goneA = nextEvent<Record<string, any>>(sa, 'company-announcement');
      const goneB = nextEvent<Record<string, any>>(sb, 'company-announcement');
      await su('PUT', `/announcements/${draft.id}`, { status: false });
      expect(await goneA).toEqual({ action: 'delete', id: draft.id });
      expect(await goneB).toEqual({ action: 'delete', id: draft.id });
    } finally {
      sa.close();
      sb.close();
      su1.close();
    }
  });
});
