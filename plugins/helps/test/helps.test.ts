import { createTestKernel, type TestKernel, type TestUser } from '@atendo/testing';
import { errorCatalogue } from '@atendo/sdk';
import helpsPlugin from '../src';

type Res = { statusCode: number; body: string; json(): Record<string, any> };

function expectRefused(res: Res, status: number, code: string) {
  expect({ status: res.statusCode, error: res.json().error }).toEqual({ status, error: code });
}

describe('helps plugin', () => {
  let k: TestKernel;
  let admin: TestUser;
  let user: TestUser;
  let otherUser: TestUser;

  beforeAll(async () => {
    k = await createTestKernel({ plugins: [helpsPlugin] });
    const a = await k.createCompany();
    admin = a.admin;
    user = await k.createUser(a.companyId, { profile: 'user' });
    const b = await k.createCompany({ without: ['useKanban', 'useCampaigns', 'useWhatsapp'] });
    otherUser = await k.createUser(b.companyId, { profile: 'supervisor' });
  });
  afterAll(() => k.close());

  const su = (method: string, url: string, body?: unknown) => k.as(k.superAdmin, method, url, body);

  test('super creates, reads, updates and deletes help entries', async () => {
    const created = await su('POST', '/helps', { title: '  Como conectar o WhatsApp ', video: 'dQw4w9WgXcQ', description: 'Passo a passo', link: 'https://example.com/ajuda' });
    expect(created.statusCode).toBe(201);
    const h = created.json();
    expect(h).toEqual({
      id: expect.any(Number),
      title: 'Como conectar o WhatsApp',
      video: 'dQw4w9WgXcQ',
      description: 'Passo a passo',
      link: 'https://example.com/ajuda',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await su('GET', `/helps/${h.id}`)).json()).toEqual(h);

    const upd = await su('PUT', `/helps/${h.id}`, { description: 'Novo texto', link: '' });
    expect(upd.statusCode).toBe(200);
    expect(upd.json()).toMatchObject({ id: h.id, title: 'Como conectar o WhatsApp', video: 'dQw4w9WgXcQ', description: 'Novo texto', link: null });

    const del = await su('DELETE', `/helps/${h.id}`);
    expect(del.statusCode).toBe(200);
    expect(del.json()).toMatchObject({ id: h.id, description: 'Novo texto' });
    expectRefused(await su('GET', `/helps/${h.id}`), 404, 'ERR_NO_HELP_FOUND');
    expectRefused(await su('PUT', `/helps/${h.id}`, { title: 'x' }), 404, 'ERR_NO_HELP_FOUND');
    expectRefused(await su('DELETE', `/helps/${h.id}`), 404, 'ERR_NO_HELP_FOUND');
  });

  test('only a title is required; video and description default to empty strings', async () => {
    const res = await su('POST', '/helps', { title: 'Só título' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ title: 'Só título', video: '', description: '', link: null });
    await su('DELETE', `/helps/${res.json().id}`);
  });

  test('every signed-in user of every company lists the platform-wide entries ordered by title', async () => {
    for (const title of ['Campanhas', 'Agendamentos', 'Kanban']) expect((await su('POST', '/helps', { title, video: `v-${title}` })).statusCode).toBe(201);
    for (const who of [user, admin, otherUser, k.superAdmin]) {
      for (const url of ['/helps', '/helps/list']) {
        const res = await k.as(who, 'GET', url);
        expect(res.statusCode).toBe(200);
        expect((res.json() as unknown as { title: string }[]).map((h) => h.title)).toEqual(['Agendamentos', 'Campanhas', 'Kanban']);
      }
    }
    const first = ((await k.as(user, 'GET', '/helps')).json() as unknown as { id: number }[])[0];
    expect((await k.as(otherUser, 'GET', `/helps/${first.id}`)).json()).toMatchObject({ id: first.id, title: 'Agendamentos' });
    expectRefused(await k.as(user, 'GET', '/helps/2147483647'), 404, 'ERR_NO_HELP_FOUND');
  });

  test('no token -> 401 on every route', async () => {
    for (const [method, url] of [['GET', '/helps'], ['GET', '/helps/list'], ['GET', '/helps/1'], ['POST', '/helps'], ['PUT', '/helps/1'], ['DELETE', '/helps/1']]) {
      expectRefused(await k.as(null, method, url, method === 'GET' || method === 'DELETE' ? undefined : { title: 'x' }), 401, 'ERR_SESSION_EXPIRED');
    }
  });

  test('admins, supervisors and users (not super) get 403 on every write and change nothing', async () => {
    const target = (await su('POST', '/helps', { title: 'Alvo', video: 'abc' })).json();
    const platformAdmin = await k.createUser(1, { profile: 'admin' });
    for (const who of [admin, user, otherUser, platformAdmin]) {
      expectRefused(await k.as(who, 'POST', '/helps', { title: 'Invasão' }), 403, 'ERR_NO_PERMISSION');
      expectRefused(await k.as(who, 'PUT', `/helps/${target.id}`, { title: 'Mudado' }), 403, 'ERR_NO_PERMISSION');
      expectRefused(await k.as(who, 'DELETE', `/helps/${target.id}`), 403, 'ERR_NO_PERMISSION');
    }
    expect(await k.db('helps').where({ id: target.id }).first('title', 'video')).toEqual({ title: 'Alvo', video: 'abc' });
    expect(await k.db('helps').where({ title: 'Invasão' }).first()).toBeUndefined();
  });

  test('bad input answers 400 ERR_VALIDATION, never 500', async () => {
    const big = 'x'.repeat(10_000);
    const before = await k.db('helps').count<{ count: number }[]>({ count: '*' });
    for (const body of [
      {},
      { title: '' },
      { title: '   ' },
      { title: 'x'.repeat(201) },
      { title: big },
      { title: { a: 1 } },
      { title: 'ok', video: big },
      { title: 'ok', description: 'x'.repeat(5001) },
      { title: 'ok', description: { a: 1 } },
      { title: 'ok', link: 'javascript:alert(1)' },
      { title: 'ok', link: `https://${big}` },
    ]) {
      const res = await su('POST', '/helps', body);
      expect(res.statusCode).toBe(400);
      expect(Object.keys(errorCatalogue())).toContain(res.json().error);
      expect(res.json().error).toBe('ERR_VALIDATION');
    }
    expect(await k.db('helps').count<{ count: number }[]>({ count: '*' })).toEqual(before);
    const h = (await su('POST', '/helps', { title: 'Válido' })).json();
    for (const body of [{ title: '' }, { title: big }, { video: big }]) expectRefused(await su('PUT', `/helps/${h.id}`, body), 400, 'ERR_VALIDATION');
    for (const id of ['0', '-1', 'abc', '99999999999', '1.5']) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        expectRefused(await su(method, `/helps/${id}`, method === 'PUT' ? { title: 'x' } : undefined), 400, 'ERR_VALIDATION');
      }
      expectRefused(await k.as(user, 'GET', `/helps/${id}`), 400, 'ERR_VALIDATION');
    }
  });

  test('the table has no company column: entries are platform-wide', async () => {
    const rows: { columnName: string }[] = await k.db('information_schema.columns').where({ tableName: 'helps' }).select('columnName');
    const cols = rows.map((r) => r.columnName);
    expect(cols.sort()).toEqual(['created_at', 'description', 'id', 'link', 'title', 'updated_at', 'video']);
  });
});
