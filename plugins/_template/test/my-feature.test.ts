import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestKernel, type TestKernel, type TestUser } from '@atendo/testing';
import { errorCatalogue, type BusMessage } from '@atendo/sdk';
import myFeature from '../src/index';
import { entryCreated, myFeatureService } from '../src/contract';

describe('my-feature plugin', () => {
  let k: TestKernel;
  let A: { companyId: number; admin: TestUser; user: TestUser };
  let B: { companyId: number; admin: TestUser };
  const published: BusMessage<{ companyId: number; entryId: number }>[] = [];

  beforeAll(async () => {
    k = await createTestKernel({ plugins: [myFeature], env: { MY_FEATURE_PAGE_SIZE: '2' } });
    const a = await k.createCompany();
    A = { ...a, user: await k.createUser(a.companyId, { profile: 'user' }) };
    B = await k.createCompany();
    await k.bus.subscribe(entryCreated, (m) => void published.push(m), { queue: 'my-feature-test' });
  });
  afterAll(() => k.close());

  test('create, page (MY_FEATURE_PAGE_SIZE), read and delete; the bus event after create', async () => {
    const ids: number[] = [];
    for (const title of ['  Primeira ', 'Segunda', 'Terceira']) {
      const res = await k.as(A.user, 'POST', '/my-feature', { title });
      expect(res.statusCode).toBe(200);
      ids.push(res.json().id);
    }
    const first = (await k.as(A.user, 'GET', `/my-feature/${ids[0]}`)).json();
    expect(first).toEqual({ id: ids[0], companyId: A.companyId, title: 'Primeira', createdBy: A.user.id, createdAt: expect.any(String), updatedAt: expect.any(String) });
    const p1 = (await k.as(A.user, 'GET', '/my-feature')).json();
    expect(p1).toMatchObject({ count: 3, hasMore: true });
    expect(p1.records.map((r: { title: string }) => r.title)).toEqual(['Terceira', 'Segunda']);
    expect((await k.as(A.user, 'GET', '/my-feature?searchParam=SEG')).json().records).toHaveLength(1);
    for (let i = 0; i < 50 && published.length < 3; i++) await new Promise((r) => setTimeout(r, 20));
    expect(published.map((m) => m.payload)).toEqual(ids.map((entryId) => ({ companyId: A.companyId, entryId })));

    expect((await k.as(A.user, 'DELETE', `/my-feature/${ids[0]}`)).statusCode).toBe(403);
    expect((await k.as(A.admin, 'DELETE', `/my-feature/${ids[0]}`)).json()).toEqual({ message: 'Entry deleted' });
    const gone = await k.as(A.user, 'GET', `/my-feature/${ids[0]}`);
    expect({ status: gone.statusCode, error: gone.json().error }).toEqual({ status: 404, error: 'ERR_NO_MY_FEATURE_ENTRY_FOUND' });
    expect(errorCatalogue().ERR_NO_MY_FEATURE_ENTRY_FOUND).toMatchObject({ status: 404, owner: 'my-feature' });
  });

  test('bad input is 400 ERR_VALIDATION; another company sees nothing; no token is 401', async () => {
    for (const body of [{}, { title: '' }, { title: '   ' }, { title: 'x'.repeat(201) }]) {
      const res = await k.as(A.user, 'POST', '/my-feature', body);
      expect({ status: res.statusCode, error: res.json().error }).toEqual({ status: 400, error: 'ERR_VALIDATION' });
    }
    const mine = (await k.as(A.user, 'POST', '/my-feature', { title: 'Só de A' })).json();
    expect((await k.as(B.admin, 'GET', `/my-feature/${mine.id}`)).statusCode).toBe(404);
    expect((await k.as(B.admin, 'DELETE', `/my-feature/${mine.id}`)).statusCode).toBe(404);
    expect((await k.as(B.admin, 'GET', '/my-feature')).json()).toEqual({ records: [], count: 0, hasMore: false });
    expect((await k.as(null, 'GET', '/my-feature')).statusCode).toBe(401);
  });

  test('the service, by its typed ref, is scoped to the company', async () => {
    const svc = k.services.get(myFeatureService);
    const e = (await k.as(A.user, 'POST', '/my-feature', { title: 'Pelo serviço' })).json();
    expect(await svc.get(A.companyId, e.id)).toMatchObject({ id: e.id, title: 'Pelo serviço' });
    expect(await svc.get(B.companyId, e.id)).toBeUndefined();
    expect(await svc.count(B.companyId)).toBe(0);
  });

  test('i18n/errors.json translates exactly the declared codes in the four languages', () => {
    const texts = JSON.parse(readFileSync(join(__dirname, '..', 'i18n', 'errors.json'), 'utf8')) as Record<string, Record<string, string>>;
    expect(Object.keys(texts)).toEqual(['pt-BR', 'en', 'es', 'tr']);
    for (const table of Object.values(texts)) expect(Object.keys(table).sort()).toEqual(Object.keys(myFeature.errors ?? {}).sort());
  });
});
