import { createTestKernel, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD, nextEvent, type TestKernel } from '@atendo/testing';
import { SECURITY_HEADERS } from '@atendo/core/src/app';

const cookieOf = (res: { cookies: { name: string; value: string }[] }) => res.cookies.find((c) => c.name === 'jrt')?.value;

describe('auth', () => {
  let k: TestKernel;
  beforeAll(async () => {
    k = await createTestKernel({ env: { LOGIN_RATE_LIMIT: '3' } });
  });
  afterAll(() => k.close());

  const login = (email: string, password: string) => k.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password } });

  test('login answers a token, the user without secrets, and an httpOnly refresh cookie', async () => {
    const res = await login(TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(typeof body.token).toBe('string');
    expect(body.user).toMatchObject({ email: TEST_ADMIN_EMAIL, companyId: 1, super: true, profile: 'admin' });
    expect(body.user.passwordHash).toBeUndefined();
    expect(body.user.tokenVersion).toBeUndefined();
    expect(body.user.company).toMatchObject({ id: 1, dueDate: '2999-12-31' });
    expect(body.user.company.plan.useKanban).toBe(true);
    expect(Array.isArray(body.user.company.companieSettings)).toBe(true);
    const cookie = res.cookies.find((c) => c.name === 'jrt');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    const me = await k.app.inject({ method: 'GET', url: '/auth/me', headers: { authorization: `Bearer ${body.token}` } });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ id: body.user.id, super: true, companyId: 1 });
  });

  test('wrong password and unknown e-mail answer 401 ERR_INVALID_CREDENTIALS', async () => {
    const a = await login(TEST_ADMIN_EMAIL, 'nope-nope');
    expect(a.statusCode).toBe(401);
    expect(a.json().error).toBe('ERR_INVALID_CREDENTIALS');
    const b = await login('nobody@example.com', 'whatever');
    expect(b.statusCode).toBe(401);
    expect(b.json().error).toBe('ERR_INVALID_CREDENTIALS');
  });

  test('failed logins are rate limited with 429', async () => {
    const u = await k.createUser(1, { email: 'ratelimit@example.com' });
    for (let i = 0; i < 3; i++) expect((await login(u.email, 'bad-password')).statusCode).toBe(401);
    const blocked = await login(u.email, u.password);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error).toBe('ERR_TOO_MANY_REQUESTS');
  });

  test('no token: 401 ERR_SESSION_EXPIRED; invalid or expired token: 403 ERR_INVALID_TOKEN', async () => {
    const none = await k.app.inject({ method: 'GET', url: '/auth/me' });
    expect(none.statusCode).toBe(401);
    expect(none.json().error).toBe('ERR_SESSION_EXPIRED');
    const bad = await k.app.inject({ method: 'GET', url: '/auth/me', headers: { authorization: 'Bearer not.a.jwt' } });
    expect(bad.statusCode).toBe(403);
    expect(bad.json().error).toBe('ERR_INVALID_TOKEN');
    const expired = k.app.jwt.sign({ id: k.superAdmin.id, companyId: 1, profile: 'admin', super: true }, { expiresIn: -10 } as never);
    const exp = await k.app.inject({ method: 'GET', url: '/auth/me', headers: { authorization: `Bearer ${expired}` } });
    expect(exp.statusCode).toBe(403);
  });

  test('a cached verification ends with its token: accepted twice while valid, refused once expired', async () => {
    const short = k.app.jwt.sign({ id: k.superAdmin.id, companyId: 1, profile: 'admin', super: true }, { expiresIn: 2 } as never);
    const me = () => k.app.inject({ method: 'GET', url: '/auth/me', headers: { authorization: `Bearer ${short}` } });
    expect((await me()).statusCode).toBe(200);
    expect((await me()).statusCode).toBe(200); // from the verification cache
    await new Promise((r) => setTimeout(r, 2300));
    const late = await me();
    expect(late.statusCode).toBe(403);
    expect(late.json().error).toBe('ERR_INVALID_TOKEN');
    // A token whose signature fails is refused every time, cached or not.
    const forged = `${short.slice(0, short.lastIndexOf('.'))}.${'A'.repeat(43)}`;
    for (let i = 0; i < 2; i++) expect((await k.app.inject({ method: 'GET', url: '/auth/me', headers: { authorization: `Bearer ${forged}` } })).statusCode).toBe(403);
  });

  test('every answer carries the security headers computed at boot (success, error, unknown route)', async () => {
    expect(Object.isFrozen(SECURITY_HEADERS)).toBe(true);
    const answers = await Promise.all([
      k.app.inject({ method: 'GET', url: '/health' }),
      k.app.inject({ method: 'GET', url: '/auth/me' }),
      k.app.inject({ method: 'GET', url: '/no/such/route' }),
      k.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 1 } }),
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 401, 404, 400]);
    for (const a of answers) for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect([name, a.headers[name]]).toEqual([name, value]);
    expect(SECURITY_HEADERS['x-content-type-options']).toBe('nosniff');
    expect(SECURITY_HEADERS['cross-origin-resource-policy']).toBe('cross-origin');
  });

  test('refresh rotates the cookie; the old cookie reused later revokes the family; logout revokes', async () => {
    const res = await login(TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
    const c1 = cookieOf(res)!;
    const r1 = await k.app.inject({ method: 'POST', url: '/auth/refresh_token', cookies: { jrt: c1 } });
    expect(r1.statusCode).toBe(200);
    expect(typeof r1.json().token).toBe('string');
    expect(r1.json().user.email).toBe(TEST_ADMIN_EMAIL);
    const c2 = cookieOf(r1)!;
    expect(c2).not.toBe(c1);
    // Age the rotation beyond the grace window, then replay the old token: theft -> the family dies.
    await k.db('authSessions').whereNotNull('revokedAt').update({ revokedAt: new Date(Date.now() - 60_000) });
    const replay = await k.app.inject({ method: 'POST', url: '/auth/refresh_token', cookies: { jrt: c1 } });
    expect(replay.statusCode).toBe(401);
    expect(replay.json().error).toBe('ERR_SESSION_EXPIRED');
    const afterTheft = await k.app.inject({ method: 'POST', url: '/auth/refresh_token', cookies: { jrt: c2 } });
    expect(afterTheft.statusCode).toBe(401);

    const fresh = cookieOf(await login(TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD))!;
    const out = await k.app.inject({ method: 'DELETE', url: '/auth/logout', cookies: { jrt: fresh } });
    expect(out.statusCode).toBe(204);
    const again = await k.app.inject({ method: 'POST', url: '/auth/refresh_token', cookies: { jrt: fresh } });
    expect(again.statusCode).toBe(401);
    const missing = await k.app.inject({ method: 'POST', url: '/auth/refresh_token' });
    expect(missing.statusCode).toBe(401);
  });

  test('two parallel refreshes with one cookie both succeed (rotation grace window)', async () => {
    const c = cookieOf(await login(TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD))!;
    const [a, b] = await Promise.all([
      k.app.inject({ method: 'POST', url: '/auth/refresh_token', cookies: { jrt: c } }),
      k.app.inject({ method: 'POST', url: '/auth/refresh_token', cookies: { jrt: c } }),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
  });

  test('a second login tells the first session on company-{id}-auth', async () => {
    const base = await k.listen();
    const u = await k.createUser(1, { email: 'twice@example.com' });
    const other = await k.createUser(1, { email: 'bystander@example.com' });
    const s1 = await k.socket(u.token, base);
    const s2 = await k.socket(other.token, base);
    try {
      const got = nextEvent<{ action: string; user: { id: number } }>(s1, 'company-1-auth');
      let bystanderGot = false;
      s2.on('company-1-auth', () => (bystanderGot = true));
      expect((await login(u.email, u.password)).statusCode).toBe(200);
      const ev = await got;
      expect(ev).toMatchObject({ action: 'update', user: { id: u.id, companyId: 1 } });
      await new Promise((r) => setTimeout(r, 100));
      expect(bystanderGot).toBe(false);
    } finally {
      s1.close();
      s2.close();
    }
  });

  test('signup creates a new company on a public plan with its first admin; never joins an existing one', async () => {
    const plans = await k.db('plans').where({ isPublic: true }).first('id');
    const res = await k.app.inject({
      method: 'POST',
      url: '/auth/signup',
      payload: { companyName: 'Padaria Pão Quente', name: 'Maria', email: 'maria@padaria.com', password: 'segredo1', phone: '11999999999', planId: plans.id, companyId: 1 },
    });
    expect(res.statusCode).toBe(201);
    const company = res.json();
    expect(company.id).not.toBe(1);
    expect(company.planId).toBe(plans.id);
    const admin = await k.db('users').where({ email: 'maria@padaria.com' }).first();
    expect(admin).toMatchObject({ companyId: company.id, profile: 'admin', super: false });
    const logged = await login('maria@padaria.com', 'segredo1');
    expect(logged.statusCode).toBe(200);
    const dup = await k.app.inject({ method: 'POST', url: '/auth/signup', payload: { companyName: 'Outra', name: 'Maria', email: 'MARIA@padaria.com', password: 'segredo1', planId: plans.id } });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error).toBe('ERR_SIGNUP_REFUSED');
    const bad = await k.app.inject({ method: 'POST', url: '/auth/signup', payload: { companyName: 'X', name: 'M', email: 'no', password: '1', planId: 'abc' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('ERR_VALIDATION');
  });

  test('an expired company still signs in (the client sends it to /financeiro-aberto); an inactive one does not', async () => {
    const { companyId, admin } = await k.createCompany();
    await k.db('companies').where({ id: companyId }).update({ dueDate: '2020-01-01' });
    const ok = await login(admin.email, admin.password);
    expect(ok.statusCode).toBe(200);
    expect(ok.json().user.company.dueDate).toBe('2020-01-01');
    await k.db('companies').where({ id: companyId }).update({ status: false });
    const refused = await login(admin.email, admin.password);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toBe('ERR_COMPANY_INACTIVE');
  });
});
