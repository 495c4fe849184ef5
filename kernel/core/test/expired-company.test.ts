import { createTestKernel, type TestKernel, type TestUser } from '@atendo/testing';
import { isExpired } from '../src/auth/session-guard';

/** `YYYY-MM-DD` `days` from today (UTC). */
function day(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

type Res = { statusCode: number; json(): Record<string, any> };
const status = (res: Res) => ({ status: res.statusCode, error: res.statusCode >= 400 ? res.json().error : undefined });

describe('isExpired (unit)', () => {
  test('a company is usable through its due date; null never expires', () => {
    const now = new Date('2026-03-10T23:59:00Z');
    expect(isExpired('2026-03-09', now)).toBe(true);
    expect(isExpired('2026-03-10', now)).toBe(false);
    expect(isExpired('2026-03-11', now)).toBe(false);
    expect(isExpired(null, now)).toBe(false);
  });
});

describe('expired companies (spec 1-platform.md §4 sign-in, /financeiro-aberto)', () => {
  let k: TestKernel;
  let expired: { companyId: number; planId: number; admin: TestUser };
  let user: TestUser;
  let other: { companyId: number; planId: number; admin: TestUser };

  beforeAll(async () => {
    k = await createTestKernel();
    expired = await k.createCompany({ name: 'Vencida Ltda' });
    other = await k.createCompany({ name: 'Em Dia SA' });
    user = await k.createUser(expired.companyId, { profile: 'user' });
    await k.db('companies').where({ id: expired.companyId }).update({ dueDate: day(-3), recurrence: 'MONTHLY' });
    await k.db('companies').where({ id: other.companyId }).update({ dueDate: day(0) });
    // Changed behind the API's back: forget what the session guard may have cached.
    k.app.sessionGuard.changed({ companyId: expired.companyId });
    k.app.sessionGuard.changed({ companyId: other.companyId });
  });
  afterAll(() => k.close());

  test('private routes answer 403 ERR_SUBSCRIPTION_EXPIRED, except what the open-invoices page needs', async () => {
    for (const u of [expired.admin, user]) {
      for (const url of ['/users/', '/settings', `/companies/${expired.companyId}`, '/users/list']) {
        expect({ url, ...status(await k.as(u, 'GET', url)) }).toEqual({ url, status: 403, error: 'ERR_SUBSCRIPTION_EXPIRED' });
      }
      expect(status(await k.as(u, 'PUT', `/users/${u.id}`, { name: 'Outro nome' }))).toEqual({ status: 403, error: 'ERR_SUBSCRIPTION_EXPIRED' });
      const me = await k.as(u, 'GET', '/auth/me');
      expect(me.statusCode).toBe(200);
      expect(me.json()).toMatchObject({ id: u.id, companyId: expired.companyId });
      const plan = await k.as(u, 'GET', `/companies/listPlan/${expired.companyId}`);
      expect(plan.statusCode).toBe(200);
      expect(plan.json()).toMatchObject({ id: expired.companyId, dueDate: day(-3), plan: { id: expired.planId } });
      expect(typeof plan.json().plan.amount).toBe('string');
    }
    // Still only its own company.
    expect(status(await k.as(expired.admin, 'GET', `/companies/listPlan/${other.companyId}`))).toEqual({ status: 403, error: 'ERR_NO_PERMISSION' });
  });

  test('sign-in and refresh still work (the client lands on /financeiro-aberto); logout too', async () => {
    const login = await k.app.inject({ method: 'POST', url: '/auth/login', payload: { email: expired.admin.email, password: expired.admin.password } });
    expect(login.statusCode).toBe(200);
    expect(login.json().user.company.dueDate).toBe(day(-3));
    const jrt = login.cookies.find((c) => c.name === 'jrt')!.value;
    const refreshed = await k.app.inject({ method: 'POST', url: '/auth/refresh_token', cookies: { jrt } });
    expect(refreshed.statusCode).toBe(200);
    const token = refreshed.json().token as string;
    expect(status(await k.as({ token }, 'GET', '/users/'))).toEqual({ status: 403, error: 'ERR_SUBSCRIPTION_EXPIRED' });
    expect((await k.app.inject({ method: 'DELETE', url: '/auth/logout', cookies: { jrt: refreshed.cookies.find((c) => c.name === 'jrt')!.value } })).statusCode).toBe(204);
  });

  test('a company due today, and company 1, are open', async () => {
    expect((await k.as(other.admin, 'GET', '/users/')).statusCode).toBe(200);
    expect((await k.as(k.superAdmin, 'GET', '/users/')).statusCode).toBe(200);
  });

  test('no socket for an expired company', async () => {
    const base = await k.listen();
    await expect(k.socket(expired.admin.token, base)).rejects.toThrow('ERR_SUBSCRIPTION_EXPIRED');
    const ok = await k.socket(other.admin.token, base);
    ok.close();
  });

  describe('open sockets of a company that expires (issue 37 item 3: the same lock as REST)', () => {
    let late: { companyId: number; planId: number; admin: TestUser };
    let base: string;
    beforeAll(async () => {
      base = await k.listen();
      late = await k.createCompany({ name: 'Vence Agora Ltda' });
      await k.db('companies').where({ id: late.companyId }).update({ dueDate: day(5) });
      k.app.sessionGuard.changed({ companyId: late.companyId });
    });
    /** The due date passes behind the API's back (no company.changed), and the guard's cached copy (60 s) ages out. */
    const passDueDate = async () => {
      await k.db('companies').where({ id: late.companyId }).update({ dueDate: day(-1) });
    };
    const later = <T>(fn: () => Promise<T>): Promise<T> => {
      const real = Date.now.bind(Date);
      const spy = jest.spyOn(Date, 'now').mockImplementation(() => real() + 61_000);
      return fn().finally(() => spy.mockRestore());
    };
    afterEach(async () => {
      await k.db('companies').where({ id: late.companyId }).update({ dueDate: day(5) });
      k.app.sessionGuard.changed({ companyId: late.companyId });
    });

    test('the periodic sweep cuts a socket whose company passed its due date while it was open; others stay', async () => {
      const s = await k.socket(late.admin.token, base);
      const fine = await k.socket(other.admin.token, base);
      const cut = new Promise<string>((resolve) => s.on('disconnect', (reason) => resolve(reason)));
      await passDueDate();
      await later(() => k.realtime.sweepSessions());
      expect(await cut).toBe('io server disconnect');
      expect(fine.connected).toBe(true);
      fine.close();
    });

    test('a due date set in the past cuts the open sockets at once', async () => {
      const s = await k.socket(late.admin.token, base);
      const cut = new Promise<string>((resolve) => s.on('disconnect', (reason) => resolve(reason)));
      expect((await k.as(k.superAdmin, 'PUT', `/companies/${late.companyId}`, { dueDate: day(-1) })).statusCode).toBe(200);
      expect(await cut).toBe('io server disconnect');
    });

    test('renewToken is refused (ERR_SUBSCRIPTION_EXPIRED) and the socket cut', async () => {
      const s = await k.socket(late.admin.token, base);
      const cut = new Promise<string>((resolve) => s.on('disconnect', (reason) => resolve(reason)));
      await passDueDate();
      const fresh = k.tokenFor(late.admin);
      // The emit leaves first: the client's own heartbeat check reads the clock too.
      const answered = new Promise<unknown>((resolve) => s.emit('renewToken', fresh, resolve));
      const ack = await later(() => answered);
      expect(ack).toEqual({ ok: false, error: 'ERR_SUBSCRIPTION_EXPIRED' });
      expect(await cut).toBe('io server disconnect');
    });
  });

  test('a renewal by a super admin reopens it at once, with the same token', async () => {
    expect(status(await k.as(expired.admin, 'GET', '/users/'))).toEqual({ status: 403, error: 'ERR_SUBSCRIPTION_EXPIRED' });
    const renewed = await k.as(k.superAdmin, 'POST', `/companies/${expired.companyId}/renew`);
    expect(renewed.statusCode).toBe(200);
    expect(renewed.json().dueDate > day(0)).toBe(true);
    const users = await k.as(expired.admin, 'GET', '/users/');
    expect(users.statusCode).toBe(200);
    expect((await k.as(user, 'GET', '/users/list')).statusCode).toBe(200);
    // And closed again at once when a super admin sets a past due date.
    expect((await k.as(k.superAdmin, 'PUT', `/companies/${expired.companyId}`, { dueDate: day(-1) })).statusCode).toBe(200);
    expect(status(await k.as(expired.admin, 'GET', '/users/'))).toEqual({ status: 403, error: 'ERR_SUBSCRIPTION_EXPIRED' });
  });
});
