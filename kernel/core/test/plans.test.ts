import { createTestKernel, type TestKernel, type TestUser } from '@atendo/testing';
import { errorCatalogue, PLAN_FEATURES } from '@atendo/sdk';

type Res = { statusCode: number; json(): { error?: string } & Record<string, unknown> };

/** A 4xx answer with a catalogue code (never a 500). */
function expectRefused(res: Res, status: number, code: string) {
  expect({ status: res.statusCode, error: res.json().error }).toEqual({ status, error: code });
}
function expectCatalogue4xx(res: Res) {
  expect(res.statusCode).toBeGreaterThanOrEqual(400);
  expect(res.statusCode).toBeLessThan(500);
  expect(Object.keys(errorCatalogue())).toContain(res.json().error);
}

describe('plans', () => {
  let k: TestKernel;
  let admin: TestUser; // admin of another company
  let user: TestUser; // plain user of another company
  let supervisor: TestUser;
  let tenantPlanId: number;

  beforeAll(async () => {
    k = await createTestKernel();
    const c = await k.createCompany();
    admin = c.admin;
    tenantPlanId = c.planId;
    user = await k.createUser(c.companyId, { profile: 'user' });
    supervisor = await k.createUser(c.companyId, { profile: 'supervisor' });
  });
  afterAll(() => k.close());

  const create = (body: Record<string, unknown>) => k.as(k.superAdmin, 'POST', '/plans', body);

  test('super creates a plan: flags default to true, amount answered as a 2-decimal string', async () => {
    const res = await create({ name: 'Ouro', users: 10, connections: 3, queues: 7, amount: 99.9 });
    expect(res.statusCode).toBe(201);
    const plan = res.json();
    expect(plan).toMatchObject({ name: 'Ouro', users: 10, connections: 3, queues: 7, amount: '99.90', isPublic: true });
    for (const f of PLAN_FEATURES) expect(plan[f]).toBe(true);
    expect(typeof plan.id).toBe('number');
    expect(typeof plan.createdAt).toBe('string');
    expect(Number.isNaN(Date.parse(plan.createdAt as string))).toBe(false);

    const got = await k.as(k.superAdmin, 'GET', `/plans/${plan.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(plan);
  });

  test('amount accepts decimal strings (dot or comma); flags and isPublic can be switched off', async () => {
    const res = await create({ name: 'Prata', users: '5', connections: 1, queues: 0, amount: '149,5', isPublic: false, useKanban: false, useOpenAi: 'false' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ name: 'Prata', users: 5, queues: 0, amount: '149.50', isPublic: false, useKanban: false, useOpenAi: false, useWhatsapp: true });
    const zero = await create({ name: 'Gratis', amount: '0' });
    expect(zero.statusCode).toBe(201);
    expect(zero.json().amount).toBe('0.00');
  });

  test('duplicate name (any case) -> 409 ERR_DUPLICATED_NAME on create and update', async () => {
    expectRefused(await create({ name: 'ouro' }), 409, 'ERR_DUPLICATED_NAME');
    expectRefused(await create({ name: 'Ouro' }), 409, 'ERR_DUPLICATED_NAME');
    const other = (await create({ name: 'Bronze' })).json();
    expectRefused(await k.as(k.superAdmin, 'PUT', `/plans/${other.id}`, { name: 'OURO' }), 409, 'ERR_DUPLICATED_NAME');
    // Renaming to its own name is fine.
    const same = await k.as(k.superAdmin, 'PUT', `/plans/${other.id}`, { name: 'Bronze', users: 2 });
    expect(same.statusCode).toBe(200);
    expect(same.json()).toMatchObject({ id: other.id, name: 'Bronze', users: 2 });
  });

  test('update changes only the given fields and drops the plan cache of every company using it', async () => {
    // The tenant's plan has every feature; its admin can read its own plan.
    expect((await k.identity.getCompanyPlan(admin.companyId))?.useKanban).toBe(true);
    const res = await k.as(k.superAdmin, 'PUT', `/plans/${tenantPlanId}`, { useKanban: false, amount: '12.34' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: tenantPlanId, useKanban: false, amount: '12.34', useCampaigns: true });
    // Cached for 5 s otherwise: the write invalidated it.
    expect((await k.identity.getCompanyPlan(admin.companyId))?.useKanban).toBe(false);
    const own = await k.as(admin, 'GET', `/companies/listPlan/${admin.companyId}`);
    expect(own.statusCode).toBe(200);
    expect(own.json().plan).toMatchObject({ id: tenantPlanId, useKanban: false });
  });

  test('a plan write publishes plan.changed on the bus', async () => {
    const got: unknown[] = [];
    const sub = await k.bus.subscribe('plan.changed', (m) => void got.push(m.payload), { queue: `test-plan-changed-${k.dbName}` });
    try {
      const res = await create({ name: 'Evento' });
      expect(res.statusCode).toBe(201);
      for (let i = 0; i < 100 && !got.length; i++) await new Promise((r) => setTimeout(r, 20));
      expect(got).toEqual([{}]);
    } finally {
      await sub.unsubscribe();
    }
  });

  test('GET /plans/list and /plans/listPublic need no token and show only public plans, by name', async () => {
    for (const url of ['/plans/list', '/plans/listPublic', '/plans/listPublic?isPublic=true']) {
      const res = await k.as(null, 'GET', url);
      expect(res.statusCode).toBe(200);
      const names = (res.json() as unknown as { name: string; isPublic: boolean }[]).map((p) => p.name);
      const all = await k.db('plans').where({ isPublic: true }).orderBy('name').pluck('name');
      expect(names).toEqual(all);
      expect(names).toContain('Ouro');
      expect(names).not.toContain('Prata'); // isPublic false
      expect(names).not.toContain('Plataforma'); // the seeded private plan
    }
  });

  test('GET /plans/all (super) lists every plan by name; GET /plans paginates {plans, count, hasMore}', async () => {
    const all = await k.as(k.superAdmin, 'GET', '/plans/all');
    expect(all.statusCode).toBe(200);
    const names = (all.json() as unknown as { name: string }[]).map((p) => p.name);
    expect(names).toEqual(await k.db('plans').orderBy('name').pluck('name'));
    expect(names).toContain('Prata');

    const total = names.length;
    const p1 = await k.as(k.superAdmin, 'GET', '/plans');
    expect(p1.statusCode).toBe(200);
    expect(p1.json()).toMatchObject({ count: total, hasMore: false });
    expect((p1.json().plans as unknown[]).length).toBe(total);

    const search = await k.as(k.superAdmin, 'GET', '/plans?searchParam=PRAT&pageNumber=1');
    expect(search.json()).toMatchObject({ count: 1, hasMore: false });
    expect((search.json().plans as { name: string }[])[0].name).toBe('Prata');
    // LIKE wildcards are literal.
    expect((await k.as(k.superAdmin, 'GET', '/plans?searchParam=%25')).json()).toMatchObject({ count: 0 });

    for (let i = 0; i < 21; i++) await k.db('plans').insert({ name: `Z-Page ${String(i).padStart(2, '0')}` });
    const q1 = await k.as(k.superAdmin, 'GET', '/plans?searchParam=z-page&pageNumber=1');
    expect(q1.json()).toMatchObject({ count: 21, hasMore: true });
    expect((q1.json().plans as unknown[]).length).toBe(20);
    const q2 = await k.as(k.superAdmin, 'GET', '/plans?searchParam=z-page&pageNumber=2');
    expect(q2.json()).toMatchObject({ count: 21, hasMore: false });
    expect((q2.json().plans as { name: string }[]).map((p) => p.name)).toEqual(['Z-Page 20']);
  });

  test('delete: a plan no company uses is deleted; a plan in use -> 409 ERR_PLAN_IN_USE; unknown -> 404', async () => {
    const p = (await create({ name: 'Descartavel' })).json();
    const del = await k.as(k.superAdmin, 'DELETE', `/plans/${p.id}`);
    expect(del.statusCode).toBe(200);
    expect(del.json()).toMatchObject({ id: p.id, name: 'Descartavel' });
    expect(await k.db('plans').where({ id: p.id }).first()).toBeUndefined();
    expectRefused(await k.as(k.superAdmin, 'GET', `/plans/${p.id}`), 404, 'ERR_NO_PLAN_FOUND');
    expectRefused(await k.as(k.superAdmin, 'DELETE', `/plans/${p.id}`), 404, 'ERR_NO_PLAN_FOUND');
    expectRefused(await k.as(k.superAdmin, 'PUT', `/plans/${p.id}`, { name: 'x' }), 404, 'ERR_NO_PLAN_FOUND');

    expectRefused(await k.as(k.superAdmin, 'DELETE', `/plans/${tenantPlanId}`), 409, 'ERR_PLAN_IN_USE');
    expect(await k.db('plans').where({ id: tenantPlanId }).first('id')).toBeTruthy();
  });

  test('admins, supervisors and users of any company get 403 on every super route; no token -> 401', async () => {
    const routes: [string, string, unknown?][] = [
      ['GET', '/plans/all'],
      ['GET', '/plans'],
      ['GET', `/plans/${tenantPlanId}`],
      ['POST', '/plans', { name: 'Hack' }],
      ['PUT', `/plans/${tenantPlanId}`, { users: 9999 }],
      ['DELETE', `/plans/${tenantPlanId}`],
    ];
    // A company-1 admin without the super flag is not super either.
    const platformAdmin = await k.createUser(1, { profile: 'admin' });
    for (const who of [admin, user, supervisor, platformAdmin]) {
      for (const [method, url, body] of routes) {
        const res = await k.as(who, method, url, body);
        expectRefused(res, 403, 'ERR_NO_PERMISSION');
      }
    }
    for (const [method, url, body] of routes) expectRefused(await k.as(null, method, url, body), 401, 'ERR_SESSION_EXPIRED');
    expect(await k.db('plans').where({ name: 'Hack' }).first()).toBeUndefined();
    expect((await k.db('plans').where({ id: tenantPlanId }).first('users')).users).toBe(50);
  });

  test('bad input answers 4xx catalogue codes, never 500', async () => {
    const big = 'x'.repeat(10_000);
    const bodies: unknown[] = [
      {},
      { name: '' },
      { name: '   ' },
      { name: big },
      { name: { a: 1 } },
      { name: ['a', 'b'] },
      { name: 'n1', users: -1 },
      { name: 'n2', users: 1.5 },
      { name: 'n3', users: 'abc' },
      { name: 'n4', users: 1e12 },
      { name: 'n5', connections: {} },
      { name: 'n6', amount: 'abc' },
      { name: 'n7', amount: -5 },
      { name: 'n8', amount: '1e400' },
      { name: 'n9', amount: 1e20 },
      { name: 'n10', amount: big },
      { name: 'n11', useKanban: 'perhaps' },
      { name: 'n12', isPublic: { x: 1 } },
    ];
    for (const b of bodies) {
      const res = await create(b as Record<string, unknown>);
      expectCatalogue4xx(res);
      expect(res.json().error).toBe('ERR_VALIDATION');
    }
    expect(await k.db('plans').where('name', 'like', 'n%').whereRaw('length(name) < 4').first()).toBeUndefined();

    for (const id of ['0', '-1', 'abc', '99999999999', '1.5', '%20']) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = await k.as(k.superAdmin, method, `/plans/${id}`, method === 'PUT' ? { name: 'y' } : undefined);
        expectRefused(res, 400, 'ERR_VALIDATION');
      }
    }
    expectRefused(await k.as(k.superAdmin, 'GET', '/plans/2147483647'), 404, 'ERR_NO_PLAN_FOUND');
    expectRefused(await k.as(k.superAdmin, 'GET', `/plans?searchParam=${big}`), 400, 'ERR_VALIDATION');
    expectRefused(await k.as(k.superAdmin, 'GET', '/plans?pageNumber=0'), 400, 'ERR_VALIDATION');
    expectRefused(await k.as(k.superAdmin, 'GET', '/plans?pageNumber=abc'), 400, 'ERR_VALIDATION');
    const notJson = await k.as(k.superAdmin, 'POST', '/plans', '{"name":', { 'content-type': 'application/json' });
    expectCatalogue4xx(notJson);
  });
});
