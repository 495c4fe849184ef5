import { createTestKernel, type TestKernel, type TestUser } from '@atendo/testing';
import { AppError, errorCatalogue } from '@atendo/sdk';
import { addMonths, isCalendarDate, parseDueDate, recurrenceMonths, renewDueDate } from '../src/routes/companies';

type Res = { statusCode: number; body: string; json(): Record<string, any> };

function expectRefused(res: Res, status: number, code: string) {
  expect({ status: res.statusCode, error: res.json().error }).toEqual({ status, error: code });
}
function expectCatalogue4xx(res: Res) {
  expect(res.statusCode).toBeGreaterThanOrEqual(400);
  expect(res.statusCode).toBeLessThan(500);
  expect(Object.keys(errorCatalogue())).toContain(res.json().error);
}
/** No user secrets anywhere in an answer. */
function expectNoSecrets(res: Res) {
  expect(res.body).not.toMatch(/passwordHash|password_hash|tokenVersion|"password"/);
}

describe('renewal date arithmetic (unit)', () => {
  test('addMonths clamps to the end of the target month', () => {
    expect(addMonths('2024-01-31', 1)).toBe('2024-02-29'); // leap year
    expect(addMonths('2023-01-31', 1)).toBe('2023-02-28');
    expect(addMonths('2100-01-31', 1)).toBe('2100-02-28'); // not a leap year (century)
    expect(addMonths('2000-01-31', 1)).toBe('2000-02-29'); // leap year (400)
    expect(addMonths('2024-03-31', 1)).toBe('2024-04-30');
    expect(addMonths('2024-08-31', 6)).toBe('2025-02-28');
    expect(addMonths('2024-02-29', 12)).toBe('2025-02-28');
    expect(addMonths('2024-02-29', 48)).toBe('2028-02-29');
    expect(addMonths('2024-05-15', 1)).toBe('2024-06-15');
  });

  test('addMonths crosses year ends and accepts 0 and negative months', () => {
    expect(addMonths('2024-11-30', 2)).toBe('2025-01-30');
    expect(addMonths('2024-12-31', 1)).toBe('2025-01-31');
    expect(addMonths('2024-10-31', 3)).toBe('2025-01-31');
    expect(addMonths('2024-07-31', 12)).toBe('2025-07-31');
    expect(addMonths('2024-06-10', 0)).toBe('2024-06-10');
    expect(addMonths('2024-03-31', -1)).toBe('2024-02-29');
    expect(addMonths('2024-01-15', -1)).toBe('2023-12-15');
  });

  test('addMonths refuses malformed dates', () => {
    for (const bad of ['2024-02-30', '2024-13-01', '2024-00-10', '24-01-01', '2024-1-1', '', 'abc', '2024-01-01T00:00:00Z']) {
      expect(() => addMonths(bad, 1)).toThrow(AppError);
    }
    expect(() => addMonths('2024-01-01', 1.5)).toThrow(AppError);
  });

  test('each recurrence, in both spellings and any case, advances 1, 2, 3, 6 or 12 months', () => {
    const cases: [string, string, number, string][] = [
      ['MONTHLY', 'MENSAL', 1, '2024-02-29'],
      ['BIMONTHLY', 'BIMESTRAL', 2, '2024-03-31'],
      ['QUARTERLY', 'TRIMESTRAL', 3, '2024-04-30'],
      ['SEMESTER', 'SEMESTRAL', 6, '2024-07-31'],
      ['YEARLY', 'ANUAL', 12, '2025-01-31'],
    ];
    for (const [en, pt, months, expected] of cases) {
      for (const r of [en, pt, en.toLowerCase(), ` ${pt.toLowerCase()} `]) {
        expect(recurrenceMonths(r)).toBe(months);
        expect(renewDueDate('2024-01-31', r)).toBe(expected);
      }
    }
  });

  test('renewal without a due date or a known recurrence is a 400 ERR_VALIDATION', () => {
    for (const [due, rec] of [[null, 'MONTHLY'], ['', 'MONTHLY'], ['2024-01-01', null], ['2024-01-01', ''], ['2024-01-01', 'WEEKLY']] as const) {
      let caught: unknown;
      try {
        renewDueDate(due, rec);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(AppError);
      expect((caught as AppError).code).toBe('ERR_VALIDATION');
      expect((caught as AppError).statusCode).toBe(400);
    }
  });

  test('parseDueDate: empty -> null, ISO date-time -> its date, impossible dates refused', () => {
    expect(parseDueDate(undefined)).toBeUndefined();
    expect(parseDueDate(null)).toBeNull();
    expect(parseDueDate('')).toBeNull();
    expect(parseDueDate('  ')).toBeNull();
    expect(parseDueDate('2025-03-01')).toBe('2025-03-01');
    expect(parseDueDate('2025-03-01T00:00:00.000Z')).toBe('2025-03-01');
    expect(() => parseDueDate('2025-02-29')).toThrow(AppError);
    expect(() => parseDueDate('01/03/2025')).toThrow(AppError);
    expect(isCalendarDate('2024-02-29')).toBe(true);
    expect(isCalendarDate('2023-02-29')).toBe(false);
  });
});

describe('companies', () => {
  let k: TestKernel;
  let a: { companyId: number; planId: number; admin: TestUser }; // tenant A
  let b: { companyId: number; planId: number; admin: TestUser }; // tenant B
  let userA: TestUser;
  let userB: TestUser;
  let essencialId: number;

  beforeAll(async () => {
    k = await createTestKernel();
    a = await k.createCompany({ name: 'Alpha Ltda' });
    b = await k.createCompany({ name: 'Beta SA' });
    userA = await k.createUser(a.companyId, { profile: 'user' });
    userB = await k.createUser(b.companyId, { profile: 'user' });
    essencialId = (await k.db('plans').where({ name: 'Essencial' }).first('id')).id;
  });
  afterAll(() => k.close());

  const su = (method: string, url: string, body?: unknown) => k.as(k.superAdmin, method, url, body);
  let n = 0;
  const form = (over: Record<string, unknown> = {}) => {
    n++;
    return { name: `Empresa ${n}`, email: `dono${n}@example.com`, password: 'senha-123', planId: essencialId, phone: '5511999990000', document: '12.345.678/0001-90', paymentMethod: 'pix', dueDate: '2030-01-31', recurrence: 'MONTHLY', ...over };
  };
  const login = (email: string, password: string) => k.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password } });

  test('super creates a company and its first admin in one go; the admin can sign in', async () => {
    const body = form({ email: 'Dono.Novo@Example.com', campaignsEnabled: true });
    const res = await su('POST', '/companies', body);
    expect(res.statusCode).toBe(201);
    expectNoSecrets(res);
    const c = res.json();
    expect(c).toMatchObject({
      name: body.name,
      email: 'dono.novo@example.com',
      phone: '5511999990000',
      document: '12.345.678/0001-90',
      paymentMethod: 'pix',
      status: true,
      dueDate: '2030-01-31',
      recurrence: 'MONTHLY',
      planId: essencialId,
      schedules: [],
      lastLogin: null,
      plan: { id: essencialId, name: 'Essencial', amount: '99.90' },
    });
    const users = await k.db('users').where({ companyId: c.id });
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({ email: 'dono.novo@example.com', profile: 'admin', super: false, name: body.name });
    expect(await k.db('companySettings').where({ companyId: c.id, key: 'campaignsEnabled' }).first('value')).toEqual({ value: 'true' });

    const signin = await login('dono.novo@example.com', 'senha-123');
    expect(signin.statusCode).toBe(200);
    expect(signin.json().user).toMatchObject({ companyId: c.id, profile: 'admin', super: false });
    // The new admin reads its own company and plan, and nothing else.
    const token = { token: signin.json().token as string };
    expect((await k.as(token, 'GET', `/companies/listPlan/${c.id}`)).json().plan).toMatchObject({ id: essencialId, useCampaigns: false });
    expectRefused(await k.as(token, 'GET', `/companies/listPlan/${a.companyId}`), 403, 'ERR_NO_PERMISSION');
    expectRefused(await k.as(token, 'GET', '/companies'), 403, 'ERR_NO_PERMISSION');
  });

  test('numberAttendants and numberConections: default 1, set on create, changed on update, numeric only', async () => {
    const plain = await su('POST', '/companies', form());
    expect(plain.statusCode).toBe(201);
    expect(plain.json()).toMatchObject({ numberAttendants: 1, numberConections: 1 });
    const set = await su('POST', '/companies', form({ numberAttendants: '5', numberConections: 2 }));
    expect(set.statusCode).toBe(201);
    expect(set.json()).toMatchObject({ numberAttendants: 5, numberConections: 2 });
    const up = await su('PUT', `/companies/${set.json().id}`, { numberAttendants: 8 });
    expect(up.statusCode).toBe(200);
    expect(up.json()).toMatchObject({ numberAttendants: 8, numberConections: 2 });
    expect((await su('GET', `/companies/${set.json().id}`)).json()).toMatchObject({ numberAttendants: 8, numberConections: 2 });
    expectRefused(await su('PUT', `/companies/${set.json().id}`, { numberConections: 'muitas' }), 400, 'ERR_VALIDATION');
    expectRefused(await su('PUT', `/companies/${set.json().id}`, { numberAttendants: -1 }), 400, 'ERR_VALIDATION');
  });

  test('create: duplicated name (any case) or e-mail -> 409, unknown plan -> 404; nothing is left behind', async () => {
    const before = await k.db('companies').count<{ count: number }[]>({ count: '*' });
    expectRefused(await su('POST', '/companies', form({ name: 'ALPHA LTDA' })), 409, 'ERR_DUPLICATED_NAME');
    expectRefused(await su('POST', '/companies', form({ email: a.admin.email.toUpperCase() })), 409, 'ERR_DUPLICATED_EMAIL');
    expectRefused(await su('POST', '/companies', form({ planId: 2147483647 })), 404, 'ERR_NO_PLAN_FOUND');
    expect(await k.db('companies').count<{ count: number }[]>({ count: '*' })).toEqual(before);
  });

  test('concurrent creates with one e-mail: one company, the others 409 and rolled back', async () => {
    const names = ['Corrida 1', 'Corrida 2', 'Corrida 3', 'Corrida 4'];
    const results = await Promise.all(names.map((name) => su('POST', '/companies', form({ name, email: 'corrida@example.com' }))));
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes).toEqual([201, 409, 409, 409]);
    for (const r of results) if (r.statusCode === 409) expect(r.json().error).toBe('ERR_DUPLICATED_EMAIL');
    expect(await k.db('companies').whereIn('name', names).count<{ count: number }[]>({ count: '*' })).toEqual([{ count: 1 }]);
    expect(await k.db('users').where({ email: 'corrida@example.com' }).count<{ count: number }[]>({ count: '*' })).toEqual([{ count: 1 }]);
  });

  test('create: due date forms and recurrence spellings', async () => {
    const empty = await su('POST', '/companies', form({ dueDate: '' }));
    expect(empty.statusCode).toBe(201);
    expect(empty.json().dueDate).toBeNull();
    const nul = await su('POST', '/companies', form({ dueDate: null, recurrence: null }));
    expect(nul.json()).toMatchObject({ dueDate: null, recurrence: null });
    const isoDt = await su('POST', '/companies', form({ dueDate: '2031-07-15T03:00:00.000Z', recurrence: 'TRIMESTRAL' }));
    expect(isoDt.json()).toMatchObject({ dueDate: '2031-07-15', recurrence: 'TRIMESTRAL' });
    const lower = await su('POST', '/companies', form({ recurrence: 'yearly' }));
    expect(lower.json().recurrence).toBe('yearly');
    expectRefused(await su('POST', '/companies', form({ recurrence: 'WEEKLY' })), 400, 'ERR_VALIDATION');
    expectRefused(await su('POST', '/companies', form({ dueDate: '2031-02-30' })), 400, 'ERR_VALIDATION');
    expectRefused(await su('POST', '/companies', form({ dueDate: 'amanhã' })), 400, 'ERR_VALIDATION');
  });

  test('lists: GET /companies and /companies/list (arrays with plan), /companiesPlan paginated and searched', async () => {
    for (const url of ['/companies', '/companies/list']) {
      const res = await su('GET', url);
      expect(res.statusCode).toBe(200);
      expectNoSecrets(res);
      const list = res.json() as unknown as { id: number; name: string; dueDate: string; plan: { id: number } | null }[];
      expect(list.map((c) => c.name)).toEqual(await k.db('companies').orderBy('name').pluck('name'));
      expect(list.find((c) => c.id === a.companyId)?.plan?.id).toBe(a.planId);
      expect(list.find((c) => c.id === 1)?.dueDate).toBe('2999-12-31');
    }
    for (const url of ['/companiesPlan/', '/companiesPlan']) {
      const res = await su('GET', `${url}?searchParam=beta&pageNumber=1`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ count: 1, hasMore: false });
      expect(res.json().companies[0]).toMatchObject({ id: b.companyId, plan: { id: b.planId } });
    }
    // By e-mail too.
    expect((await su('GET', `/companiesPlan/?searchParam=${encodeURIComponent('dono.novo@')}`)).json().count).toBe(1);
    for (let i = 0; i < 22; i++) await k.db('companies').insert({ name: `Zeta ${String(i).padStart(2, '0')}`, planId: essencialId });
    const p1 = await su('GET', '/companiesPlan/?searchParam=zeta&pageNumber=1');
    expect(p1.json()).toMatchObject({ count: 22, hasMore: true });
    expect(p1.json().companies).toHaveLength(20);
    const p2 = await su('GET', '/companiesPlan/?searchParam=zeta&pageNumber=2');
    expect(p2.json()).toMatchObject({ count: 22, hasMore: false });
    expect(p2.json().companies.map((c: { name: string }) => c.name)).toEqual(['Zeta 20', 'Zeta 21']);
    expect((await su('GET', '/companiesPlan/?searchParam=_')).json().count).toBe(0);
  });

  test('GET /companies/:id: super any; an admin its own only; users and other tenants 403', async () => {
    const own = await k.as(a.admin, 'GET', `/companies/${a.companyId}`);
    expect(own.statusCode).toBe(200);
    expect(own.json()).toMatchObject({ id: a.companyId, name: 'Alpha Ltda', plan: { id: a.planId } });
    expectNoSecrets(own);
    expect((await su('GET', `/companies/${b.companyId}`)).json()).toMatchObject({ id: b.companyId, name: 'Beta SA' });

    const cross = await k.as(a.admin, 'GET', `/companies/${b.companyId}`);
    expectRefused(cross, 403, 'ERR_NO_PERMISSION');
    expect(cross.body).not.toContain('Beta SA');
    expectRefused(await k.as(a.admin, 'GET', '/companies/1'), 403, 'ERR_NO_PERMISSION');
    // Unknown ids answer the same 403 to non-super callers (no probing).
    expectRefused(await k.as(a.admin, 'GET', '/companies/2147483647'), 403, 'ERR_NO_PERMISSION');
    expectRefused(await k.as(userA, 'GET', `/companies/${a.companyId}`), 403, 'ERR_NO_PERMISSION');
    expectRefused(await su('GET', '/companies/2147483647'), 404, 'ERR_NO_COMPANY_FOUND');
  });

  test('GET /companies/listPlan/:id: any user of the company gets it with its plan; other tenants 403; unknown 404', async () => {
    const res = await k.as(userA, 'GET', `/companies/listPlan/${a.companyId}`);
    expect(res.statusCode).toBe(200);
    expectNoSecrets(res);
    const plan = res.json().plan;
    expect(res.json()).toMatchObject({ id: a.companyId, name: 'Alpha Ltda', status: true });
    expect(plan).toMatchObject({ id: a.planId, users: 50, connections: 10, queues: 20, amount: '10.00', useWhatsapp: true, useKanban: true, useIntegration: true });
    for (const who of [userB, b.admin]) {
      const cross = await k.as(who, 'GET', `/companies/listPlan/${a.companyId}`);
      expectRefused(cross, 403, 'ERR_NO_PERMISSION');
      expect(cross.body).not.toContain('Alpha');
    }
    expect((await su('GET', `/companies/listPlan/${b.companyId}`)).json()).toMatchObject({ id: b.companyId, plan: { id: b.planId } });
    expectRefused(await su('GET', '/companies/listPlan/2147483647'), 404, 'ERR_NO_COMPANY_FOUND');
    const one = await k.as(await k.createUser(1), 'GET', '/companies/listPlan/1');
    expect(one.json()).toMatchObject({ id: 1, dueDate: '2999-12-31', plan: { name: 'Plataforma' } });
  });

  test('PUT /companies/:id (super) changes plan, status, due date; the plan cache follows at once', async () => {
    const c = (await su('POST', '/companies', form())).json();
    expect((await k.identity.getCompanyPlan(c.id))?.id).toBe(essencialId); // now cached
    const res = await su('PUT', `/companies/${c.id}`, { planId: a.planId, status: false, dueDate: '2032-12-31', recurrence: 'ANUAL', phone: '', campaignsEnabled: 'false' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: c.id, planId: a.planId, status: false, dueDate: '2032-12-31', recurrence: 'ANUAL', phone: null, name: c.name, plan: { id: a.planId } });
    expect((await k.identity.getCompanyPlan(c.id))?.id).toBe(a.planId);
    expect(await k.db('companySettings').where({ companyId: c.id, key: 'campaignsEnabled' }).first('value')).toEqual({ value: 'false' });
    // An inactive company cannot sign in.
    expectRefused(await login(c.email, 'senha-123'), 403, 'ERR_COMPANY_INACTIVE');

    expectRefused(await su('PUT', `/companies/${c.id}`, { name: 'alpha ltda' }), 409, 'ERR_DUPLICATED_NAME');
    expectRefused(await su('PUT', `/companies/${c.id}`, { planId: 2147483647 }), 404, 'ERR_NO_PLAN_FOUND');
    expectRefused(await su('PUT', '/companies/2147483647', { name: 'Nada' }), 404, 'ERR_NO_COMPANY_FOUND');
  });

  test('a company write publishes company.changed {companyId}', async () => {
    const got: unknown[] = [];
    const sub = await k.bus.subscribe('company.changed', (m) => void got.push(m.payload), { queue: `test-company-changed-${k.dbName}` });
    try {
      expect((await su('PUT', `/companies/${b.companyId}`, { phone: '551100000000' })).statusCode).toBe(200);
      for (let i = 0; i < 100 && !got.length; i++) await new Promise((r) => setTimeout(r, 20));
      expect(got).toEqual([{ companyId: b.companyId }]);
    } finally {
      await sub.unsubscribe();
    }
  });

  test('PUT password and e-mail apply to the owner: the old password stops working', async () => {
    const c = (await su('POST', '/companies', form({ email: 'troca@example.com' }))).json();
    expect((await su('PUT', `/companies/${c.id}`, { password: '' })).statusCode).toBe(200); // '' = unchanged
    expect((await login('troca@example.com', 'senha-123')).statusCode).toBe(200);
    expect((await su('PUT', `/companies/${c.id}`, { email: 'novo.dono@example.com', password: 'outra-senha' })).statusCode).toBe(200);
    expect((await login('novo.dono@example.com', 'outra-senha')).statusCode).toBe(200);
    expect((await login('novo.dono@example.com', 'senha-123')).statusCode).toBe(401);
    expect((await login('troca@example.com', 'outra-senha')).statusCode).toBe(401);
    expectRefused(await su('PUT', `/companies/${c.id}`, { email: a.admin.email }), 409, 'ERR_DUPLICATED_EMAIL');
    expectRefused(await su('PUT', `/companies/${c.id}`, { password: 'abc' }), 400, 'ERR_VALIDATION');
  });

  test('an admin can never change its own plan, status or due date', async () => {
    const before = await k.db('companies').where({ id: a.companyId }).first();
    for (const body of [{ planId: essencialId }, { status: false }, { dueDate: '2999-12-31' }, { name: 'Alpha renomeada' }]) {
      expectRefused(await k.as(a.admin, 'PUT', `/companies/${a.companyId}`, body), 403, 'ERR_NO_PERMISSION');
    }
    expectRefused(await k.as(a.admin, 'POST', `/companies/${a.companyId}/renew`), 403, 'ERR_NO_PERMISSION');
    // Smuggling fields through the schedules route changes nothing but the schedules.
    const sneaky = await k.as(a.admin, 'PUT', `/companies/${a.companyId}/schedules`, { schedules: [], planId: essencialId, status: false, dueDate: '2999-12-31' });
    expect(sneaky.statusCode).toBe(200);
    const after = await k.db('companies').where({ id: a.companyId }).first();
    expect({ planId: after.planId, status: after.status, dueDate: after.dueDate, name: after.name, recurrence: after.recurrence }).toEqual({
      planId: before.planId, status: before.status, dueDate: before.dueDate, name: before.name, recurrence: before.recurrence,
    });
  });

  test('PUT /companies/:id/schedules: super or an admin of that company; validated', async () => {
    const schedules = [
      { weekday: 'Segunda-feira', weekdayEn: 'monday', startTimeA: '08:00', endTimeA: '12:00', startTimeB: '13:00', endTimeB: '18:00' },
      { weekday: 'Sábado', weekdayEn: 'saturday', startTimeA: '08:00', endTimeA: '12:00', startTimeB: '', endTimeB: '' },
    ];
    const own = await k.as(a.admin, 'PUT', `/companies/${a.companyId}/schedules`, { schedules });
    expect(own.statusCode).toBe(200);
    expect(own.json().schedules).toEqual(schedules);
    expect((await k.db('companies').where({ id: a.companyId }).first('schedules')).schedules).toEqual(schedules);

    const bBefore = (await k.db('companies').where({ id: b.companyId }).first('schedules')).schedules;
    expectRefused(await k.as(a.admin, 'PUT', `/companies/${b.companyId}/schedules`, { schedules }), 403, 'ERR_NO_PERMISSION');
    expectRefused(await k.as(userB, 'PUT', `/companies/${b.companyId}/schedules`, { schedules }), 403, 'ERR_NO_PERMISSION');
    expect((await k.db('companies').where({ id: b.companyId }).first('schedules')).schedules).toEqual(bBefore);

    const bySuper = await su('PUT', `/companies/${b.companyId}/schedules`, { schedules: [{ weekday: 'Domingo', weekdayEn: 'sunday' }] });
    expect(bySuper.json().schedules).toEqual([{ weekday: 'Domingo', weekdayEn: 'sunday', startTimeA: '', endTimeA: '', startTimeB: '', endTimeB: '' }]);
    expectRefused(await su('PUT', '/companies/2147483647/schedules', { schedules }), 404, 'ERR_NO_COMPANY_FOUND');

    // The settings screen's one-shift rows are stored as sent; the bot reads both shapes.
    const screen = [
      { weekday: 'Segunda-feira', weekdayEn: 'monday', startTime: '08:00', endTime: '18:00' },
      { weekday: 'Domingo', weekdayEn: 'sunday', startTime: '', endTime: '' },
    ];
    const fromScreen = await k.as(a.admin, 'PUT', `/companies/${a.companyId}/schedules`, { schedules: screen });
    expect(fromScreen.statusCode).toBe(200);
    expect(fromScreen.json().schedules).toEqual(screen);
    expectRefused(await k.as(a.admin, 'PUT', `/companies/${a.companyId}/schedules`, { schedules: [{ weekday: 'Segunda', weekdayEn: 'monday', startTime: '08:00' }] }), 400, 'ERR_VALIDATION');
    expectRefused(await k.as(a.admin, 'PUT', `/companies/${a.companyId}/schedules`, { schedules: [{ weekday: 'Segunda', weekdayEn: 'monday', startTime: '8 horas', endTime: '18:00' }] }), 400, 'ERR_VALIDATION');
    expect((await k.db('companies').where({ id: a.companyId }).first('schedules')).schedules).toEqual(screen);

    const bad = [
      {},
      { schedules: 'x' },
      { schedules: [{ weekday: 'Segunda', weekdayEn: 'funday' }] },
      { schedules: [{ weekday: 'Segunda', weekdayEn: 'monday', startTimeA: '25:00' }] },
      { schedules: [{ weekday: 'Segunda', weekdayEn: 'monday', endTimeB: '8h' }] },
      { schedules: [{ weekday: 'x'.repeat(10_000), weekdayEn: 'monday' }] },
      { schedules: [{ weekday: 'a', weekdayEn: 'monday' }, { weekday: 'b', weekdayEn: 'monday' }] },
      { schedules: Array.from({ length: 8 }, () => ({ weekday: 'a', weekdayEn: 'monday' })) },
    ];
    for (const body of bad) expectRefused(await k.as(a.admin, 'PUT', `/companies/${a.companyId}/schedules`, body), 400, 'ERR_VALIDATION');
  });

  test('company 1 never expires, cannot be deactivated, renewed or deleted', async () => {
    // Even a stored date other than the fixed one answers 2999-12-31.
    await k.db('companies').where({ id: 1 }).update({ dueDate: '2020-01-01' });
    expect((await su('GET', '/companies/1')).json().dueDate).toBe('2999-12-31');
    await k.db('companies').where({ id: 1 }).update({ dueDate: '2999-12-31' });

    expectRefused(await su('PUT', '/companies/1', { status: false }), 400, 'ERR_COMPANY_NOT_DELETABLE');
    expectRefused(await su('PUT', '/companies/1', { dueDate: '2030-01-01' }), 400, 'ERR_COMPANY_NOT_DELETABLE');
    expectRefused(await su('DELETE', '/companies/1'), 400, 'ERR_COMPANY_NOT_DELETABLE');
    expectRefused(await su('POST', '/companies/1/renew'), 400, 'ERR_COMPANY_NOT_DELETABLE');
    const ok = await su('PUT', '/companies/1', { dueDate: '2999-12-31', status: true, phone: '551133334444' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ id: 1, status: true, dueDate: '2999-12-31', phone: '551133334444' });
    // The form's empty date keeps the fixed one.
    expect((await su('PUT', '/companies/1', { dueDate: '' })).json().dueDate).toBe('2999-12-31');
    expect(await k.db('companies').where({ id: 1 }).first('status', 'dueDate')).toEqual({ status: true, dueDate: '2999-12-31' });
  });

  test('POST /companies/:id/renew advances the due date by the recurrence', async () => {
    const c = (await su('POST', '/companies', form({ dueDate: '2024-01-31', recurrence: 'MENSAL' }))).json();
    const r1 = await su('POST', `/companies/${c.id}/renew`);
    expect(r1.statusCode).toBe(200);
    expect(r1.json().dueDate).toBe('2024-02-29');
    expect((await su('POST', `/companies/${c.id}/renew`)).json().dueDate).toBe('2024-03-29');
    await su('PUT', `/companies/${c.id}`, { recurrence: 'SEMESTER', dueDate: '2024-08-31' });
    expect((await su('POST', `/companies/${c.id}/renew`)).json().dueDate).toBe('2025-02-28');
    expect((await k.db('companies').where({ id: c.id }).first('dueDate')).dueDate).toBe('2025-02-28');

    await su('PUT', `/companies/${c.id}`, { dueDate: null });
    expectRefused(await su('POST', `/companies/${c.id}/renew`), 400, 'ERR_VALIDATION');
    await su('PUT', `/companies/${c.id}`, { dueDate: '2025-01-01', recurrence: '' });
    expectRefused(await su('POST', `/companies/${c.id}/renew`), 400, 'ERR_VALIDATION');
    expect((await k.db('companies').where({ id: c.id }).first('dueDate')).dueDate).toBe('2025-01-01');
    expectRefused(await su('POST', '/companies/2147483647/renew'), 404, 'ERR_NO_COMPANY_FOUND');
  });

  test('DELETE /companies/:id removes the company, its users and settings', async () => {
    const c = (await su('POST', '/companies', form({ email: 'apagar@example.com', campaignsEnabled: false }))).json();
    const del = await su('DELETE', `/companies/${c.id}`);
    expect(del.statusCode).toBe(200);
    expect(del.json()).toMatchObject({ id: c.id, name: c.name });
    expect(await k.db('companies').where({ id: c.id }).first()).toBeUndefined();
    expect(await k.db('users').where({ companyId: c.id }).first()).toBeUndefined();
    expect(await k.db('companySettings').where({ companyId: c.id }).first()).toBeUndefined();
    expect((await login('apagar@example.com', 'senha-123')).statusCode).toBe(401);
    expectRefused(await su('DELETE', `/companies/${c.id}`), 404, 'ERR_NO_COMPANY_FOUND');
    expectRefused(await su('GET', `/companies/${c.id}`), 404, 'ERR_NO_COMPANY_FOUND');
  });

  test('admins and users of any company get 403 on every super route and change nothing', async () => {
    const platformAdmin = await k.createUser(1, { profile: 'admin' });
    const routes: [string, string, unknown?][] = [
      ['GET', '/companies'],
      ['GET', '/companies/list'],
      ['GET', '/companiesPlan/'],
      ['GET', '/companiesPlan'],
      ['POST', '/companies', form({ name: 'Invasora', email: 'invasora@example.com' })],
      ['PUT', `/companies/${b.companyId}`, { status: false }],
      ['PUT', `/companies/${a.companyId}`, { status: false }],
      ['DELETE', `/companies/${b.companyId}`],
      ['DELETE', `/companies/${a.companyId}`],
      ['POST', `/companies/${b.companyId}/renew`],
      ['POST', `/companies/${a.companyId}/renew`],
    ];
    for (const who of [a.admin, userA, b.admin, userB, platformAdmin]) {
      for (const [method, url, body] of routes) {
        const res = await k.as(who, method, url, body);
        expectRefused(res, 403, 'ERR_NO_PERMISSION');
      }
      if (who !== platformAdmin) expectRefused(await k.as(who, 'GET', '/companies/1'), 403, 'ERR_NO_PERMISSION');
    }
    // A company-1 admin without the super flag reads its own company, nothing more.
    expect((await k.as(platformAdmin, 'GET', '/companies/1')).statusCode).toBe(200);
    expectRefused(await k.as(platformAdmin, 'GET', `/companies/${a.companyId}`), 403, 'ERR_NO_PERMISSION');
    for (const [method, url, body] of routes) expectRefused(await k.as(null, method, url, body), 401, 'ERR_SESSION_EXPIRED');
    expect(await k.db('companies').where({ name: 'Invasora' }).first()).toBeUndefined();
    expect(await k.db('companies').whereIn('id', [a.companyId, b.companyId]).pluck('status')).toEqual([true, true]);
  });

  test('bad input answers 4xx catalogue codes, never 500', async () => {
    const big = 'x'.repeat(10_000);
    const bodies: Record<string, unknown>[] = [
      {},
      form({ name: undefined }),
      form({ name: 'A' }),
      form({ name: ' A ' }),
      form({ name: big }),
      form({ name: { x: 1 } }),
      form({ email: undefined }),
      form({ email: 'not-an-email' }),
      form({ email: `${big}@example.com` }),
      form({ password: undefined }),
      form({ password: '1234' }),
      form({ password: big }),
      form({ planId: undefined }),
      form({ planId: 'abc' }),
      form({ planId: 0 }),
      form({ planId: -1 }),
      form({ planId: 99999999999 }),
      form({ planId: '' }),
      form({ phone: big }),
      form({ document: big }),
      form({ paymentMethod: big }),
      form({ status: 'perhaps' }),
      form({ dueDate: big }),
      form({ dueDate: 12345 }),
      form({ recurrence: big }),
      form({ campaignsEnabled: 'sometimes' }),
    ];
    for (const body of bodies) {
      const res = await su('POST', '/companies', body);
      expectCatalogue4xx(res);
      expect(res.json().error).toBe('ERR_VALIDATION');
    }
    for (const body of [{ name: 'B' }, { email: 'x' }, { planId: -1 }, { status: [] }, { dueDate: '2024-02-31' }, { password: 'abc' }]) {
      expectRefused(await su('PUT', `/companies/${b.companyId}`, body), 400, 'ERR_VALIDATION');
    }
    for (const id of ['0', '-1', 'abc', '99999999999', '1.5']) {
      for (const [method, url] of [['GET', `/companies/${id}`], ['GET', `/companies/listPlan/${id}`], ['PUT', `/companies/${id}`], ['DELETE', `/companies/${id}`], ['POST', `/companies/${id}/renew`], ['PUT', `/companies/${id}/schedules`]]) {
        const res = await su(method, url, method === 'PUT' ? { schedules: [] } : undefined);
        expectRefused(res, 400, 'ERR_VALIDATION');
      }
    }
    expectRefused(await su('GET', `/companiesPlan/?searchParam=${big}`), 400, 'ERR_VALIDATION');
    expectRefused(await su('GET', '/companiesPlan/?pageNumber=-1'), 400, 'ERR_VALIDATION');
    // Company B is untouched.
    expect(await k.db('companies').where({ id: b.companyId }).first('name', 'status')).toEqual({ name: 'Beta SA', status: true });
  });
});
