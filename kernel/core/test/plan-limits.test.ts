import { createTestKernel, type TestKernel } from '@atendo/testing';
import { errorCatalogue } from '@atendo/sdk';
import queuesPlugin from '@atendo/plugin-queues';

/**
 * Plan limits under concurrency: the limit check runs inside the inserting transaction with the company
 * row locked, so parallel creates never overshoot. Also: malformed input never reaches a 500.
 */
describe('plan limits', () => {
  let k: TestKernel;
  beforeAll(async () => {
    k = await createTestKernel({ plugins: [queuesPlugin] });
  });
  afterAll(() => k.close());

  test('users: 10 concurrent creates against {users: 3} -> exactly the allowed number succeed', async () => {
    const { companyId, admin } = await k.createCompany({ limits: { users: 3 } });
    // createCompany already made the company's admin: 2 places left.
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => k.as(admin, 'POST', '/users', { name: `Concurrent ${i}`, email: `limit-${companyId}-${i}@example.com`, password: 'abcdef' })),
    );
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
    expect(statuses.filter((s) => s === 400)).toHaveLength(8);
    for (const r of results.filter((x) => x.statusCode === 400)) expect(r.json()).toMatchObject({ error: 'ERR_PLAN_LIMIT_REACHED', limit: 'users', max: 3 });
    const { c } = (await k.db('users').where({ companyId }).count({ c: '*' }).first()) as { c: number };
    expect(Number(c)).toBe(3);
    // Another company is not affected by this one's limit.
    const other = await k.createCompany({ limits: { users: 5 } });
    expect((await k.as(other.admin, 'POST', '/users', { name: 'Unaffected', email: `limit-other-${other.companyId}@example.com`, password: 'abcdef' })).statusCode).toBe(200);
  });

  test('users: a super user creating in another company is held to that company limit', async () => {
    const { companyId } = await k.createCompany({ limits: { users: 1 } });
    const res = await k.as(k.superAdmin, 'POST', '/users', { name: 'Over Limit', email: `limit-super-${companyId}@example.com`, password: 'abcdef', companyId });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('ERR_PLAN_LIMIT_REACHED');
  });

  test('queues: 10 concurrent creates against {queues: 2} -> exactly 2 succeed', async () => {
    const { companyId, admin } = await k.createCompany({ limits: { queues: 2 } });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => k.as(admin, 'POST', '/queue', { name: `Fila ${i}`, color: `#0000${String(i).padStart(2, '0')}` })),
    );
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
    expect(statuses.filter((s) => s === 400)).toHaveLength(8);
    for (const r of results.filter((x) => x.statusCode === 400)) expect(r.json()).toMatchObject({ error: 'ERR_PLAN_LIMIT_REACHED', limit: 'queues', max: 2 });
    const { c } = (await k.db('queues').where({ companyId }).count({ c: '*' }).first()) as { c: number };
    expect(Number(c)).toBe(2);
    // Deleting one frees a place.
    const first = results.find((r) => r.statusCode === 200)!.json();
    expect((await k.as(admin, 'DELETE', `/queue/${first.id}`)).statusCode).toBe(200);
    expect((await k.as(admin, 'POST', '/queue', { name: 'Depois', color: '#abcabc' })).statusCode).toBe(200);
    expect((await k.as(admin, 'POST', '/queue', { name: 'Demais', color: '#abcabd' })).json().error).toBe('ERR_PLAN_LIMIT_REACHED');
  });

  test('bad input on limited creates answers 4xx catalogue codes, never 500', async () => {
    const { admin } = await k.createCompany({ limits: { users: 50, queues: 50 } });
    const junk: unknown[] = [
      null, 'text', 42, [], [1, 2], {}, { name: null }, { name: 123456 }, { name: { $gt: '' } }, { name: ['a', 'b'] },
      { name: 'x'.repeat(10_000) }, { name: 'ok name', email: 'a@b.co', password: 'abcdef', profile: ['admin', 'user'] },
      { name: 'ok name', email: 'a@b.co', password: 'abcdef', queueIds: [1e20] }, { name: 'ok name', email: 'a@b.co', password: 'abcdef', whatsappId: 1e20 },
      { name: 'Fila', color: '#123456', orderQueue: 1e20 }, { name: 'Fila', color: '#123456', schedules: [null] },
      { name: 'Fila', color: '#123456', schedules: [{ weekday: 'x'.repeat(100), weekdayEn: 'y' }] }, { name: '\u0000\u0000', color: '#123' },
      { name: 'nul\u0000name', email: 'nul-name@example.com', password: 'abcdef' }, { name: 'Nul Email', email: 'nul\u0000@example.com', password: 'abcdef' },
      { name: 'Nul Search', color: '#321', greetingMessage: 'oi\u0000' },
    ];
    for (const url of ['/users', '/queue']) {
      for (const payload of junk) {
        const res = await k.app.inject({
          method: 'POST',
          url,
          payload: JSON.stringify(payload),
          headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
        });
        expect({ url, payload, status: res.statusCode < 500 && res.statusCode >= 400 }).toEqual({ url, payload, status: true });
        expect(Object.keys(errorCatalogue())).toContain(res.json().error);
      }
      const text = await k.app.inject({ method: 'POST', url, payload: 'name=x', headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'text/plain' } });
      expect({ status: text.statusCode, error: text.json().error }).toEqual({ status: 400, error: 'ERR_VALIDATION' });
      const xml = await k.app.inject({ method: 'POST', url, payload: '<a/>', headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/xml' } });
      expect({ status: xml.statusCode, error: xml.json().error }).toEqual({ status: 415, error: 'ERR_UNSUPPORTED_MEDIA_TYPE' });
    }
  });
});
