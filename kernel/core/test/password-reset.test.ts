import { PASSWORD_RESET_CODE_TOPIC, type BusMessage, type PasswordResetCodeEvent, type Subscription } from '@atendo/sdk';
import { createTestKernel, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import { wppCandidates, wppKey } from '@atendo/core/src/auth/password-reset';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const cookieOf = (res: { cookies: { name: string; value: string }[] }) => res.cookies.find((c) => c.name === 'jrt')?.value;

describe('password reset by WhatsApp code', () => {
  let k: TestKernel;
  let sub: Subscription;
  const events: PasswordResetCodeEvent[] = [];
  let ipSeq = 0;
  /** A fresh client address per test, so the per-IP limit only bites where a test wants it to. */
  const newIp = () => `10.0.${Math.floor(++ipSeq / 250)}.${ipSeq % 250}`;
  let numSeq = 0;
  /** A distinct Brazilian mobile number per call (13 digits). */
  const newNumber = () => `55119${String(70000000 + ++numSeq * 7919).slice(-8)}`;

  beforeAll(async () => {
    k = await createTestKernel({ env: { PASSWORD_RESET_RATE_LIMIT: '6', PASSWORD_RESET_PER_NUMBER: '4' } });
    sub = await k.bus.subscribe<PasswordResetCodeEvent>(PASSWORD_RESET_CODE_TOPIC, (m: BusMessage<PasswordResetCodeEvent>) => {
      events.push(m.payload);
    }, { broadcast: true });
  });
  afterAll(async () => {
    await sub.unsubscribe();
    await k.close();
  });

  const send = (wpp: unknown, ip: string) => k.app.inject({ method: 'POST', url: '/api/enviar-email', payload: { wpp }, remoteAddress: ip });
  const verify = (wpp: string, code: string, ip: string, userId?: string) =>
    k.app.inject({ method: 'GET', url: `/api/verificar-code/${encodeURIComponent(wpp)}?code=${encodeURIComponent(code)}${userId ? `&userId=${userId}` : ''}`, remoteAddress: ip });
  const update = (payload: unknown, ip: string) => k.app.inject({ method: 'PUT', url: '/api/atualizar-senha', payload: payload as never, remoteAddress: ip });
  const login = (email: string, password: string) => k.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password } });

  /** A user of `companyId` with WhatsApp number `wpp` as stored (any formatting). */
  async function userWith(companyId: number, wpp: string): Promise<TestUser> {
    const u = await k.createUser(companyId);
    await k.db('users').where({ id: u.id }).update({ wpp });
    return u;
  }
  /** Asks a code for `wpp` and returns the reset id and the code the bus carried. */
  async function codeFor(u: TestUser, wpp: string, ip = newIp()): Promise<{ resetId: string; code: string; event: PasswordResetCodeEvent }> {
    const before = events.length;
    const res = await send(wpp, ip);
    expect(res.statusCode).toBe(200);
    const resetId = res.json().userId as string;
    const event = (await waitFor(() => events.slice(before).find((e) => e.userId === u.id)))!;
    return { resetId, code: event.code, event };
  }
  /** A 6-digit code different from `code`. */
  const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

  test('wpp candidates: country code and the 9th digit are optional; equivalent forms share one key', () => {
    expect(wppCandidates('5511987654321')).toEqual(['1187654321', '11987654321', '551187654321', '5511987654321']);
    expect(wppKey('11987654321')).toBe(wppKey('551187654321'));
    expect(wppCandidates('1133334444')).toEqual(['1133334444', '551133334444']); // landline: no 9th digit
    expect(wppCandidates('447911123456')).toEqual(['447911123456']); // not Brazilian
  });

  test('success end to end: code by bus only, verified, password changed, every session revoked, single use', async () => {
    const { companyId } = await k.createCompany();
    const u = await userWith(companyId, '+55 (11) 98765-4321');
    const session = await login(u.email, u.password);
    expect(session.statusCode).toBe(200);
    const refresh = cookieOf(session)!;
    const tokenVersion = (await k.db('users').where({ id: u.id }).first('tokenVersion')).tokenVersion;

    const ip = newIp();
    const before = events.length;
    const sent = await send('(11) 98765-4321', ip);
    expect(sent.statusCode).toBe(200);
    expect(Object.keys(sent.json())).toEqual(['userId']);
    const resetId = sent.json().userId;
    expect(resetId).toMatch(UUID);
    expect(resetId).not.toBe(String(u.id));
    const event = (await waitFor(() => events.slice(before).find((e) => e.userId === u.id)))!;
    expect(event).toMatchObject({ companyId, userId: u.id, to: '5511987654321' });
    expect(event.code).toMatch(/^\d{6}$/);
    expect(event.text).toContain(event.code);
    // Only an HMAC is stored.
    const row = await k.db('passwordResets').where({ id: resetId }).first();
    expect(row).toMatchObject({ userId: u.id, companyId, attempts: 0, usedAt: null });
    expect(row.codeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(event.code);
    expect(new Date(row.expiresAt).getTime() - new Date(row.createdAt).getTime()).toBeCloseTo(600_000, -3);

    const ok = await verify('5511987654321', event.code, ip, resetId);
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ valid: true, userId: resetId });
    expect(JSON.stringify(ok.json())).not.toContain(event.code);

    const done = await update({ userId: resetId, code: event.code, newPassword: 'brand-new-pass' }, ip);
    expect(done.statusCode).toBe(200);
    expect((await login(u.email, u.password)).statusCode).toBe(401);
    expect((await login(u.email, 'brand-new-pass')).statusCode).toBe(200);
    // The refresh session opened before the reset is dead.
    const stale = await k.app.inject({ method: 'POST', url: '/auth/refresh_token', cookies: { jrt: refresh } });
    expect(stale.statusCode).toBe(401);
    expect((await k.db('users').where({ id: u.id }).first('tokenVersion')).tokenVersion).toBe(tokenVersion + 1);
    // Issue 34: the credentials change is audited (the reset flow as actor, the caller's address; no secret).
    const audit = await k.db('auditLogs').where({ entity: 'user', entityId: String(u.id), action: 'update' }).orderBy('id', 'desc').first();
    expect(audit).toMatchObject({ companyId: u.companyId, actorKind: 'system', actorLabel: 'password-reset', userId: null, ip, after: { credentials: 'reset-by-code', sessionsRevoked: true } });
    expect(JSON.stringify(audit)).not.toMatch(/brand-new-pass|passwordHash/);

    // Single use: the same code neither verifies nor resets again.
    const again = await update({ userId: resetId, code: event.code, newPassword: 'another-pass' }, ip);
    expect(again.statusCode).toBe(400);
    expect(again.json().error).toBe('ERR_INVALID_RESET_CODE');
    expect((await verify('5511987654321', event.code, ip)).json().error).toBe('ERR_INVALID_RESET_CODE');
    expect((await login(u.email, 'brand-new-pass')).statusCode).toBe(200);
  });

  test('a number stored without country code or 9th digit matches; delivery goes to the full number', async () => {
    const u = await userWith(1, '1187651234');
    const { event, resetId, code } = await codeFor(u, '+55 11 98765-1234');
    expect(event.to).toBe('551187651234');
    expect((await verify('11987651234', code, newIp(), resetId)).statusCode).toBe(200);
  });

  test('admins register a user\'s WhatsApp number (wpp) through /users; a plain user cannot change its own', async () => {
    const { companyId, admin } = await k.createCompany();
    const u = await k.createUser(companyId);
    const wpp = newNumber();
    const mine = await k.as(u, 'PUT', `/users/${u.id}`, { wpp });
    expect([mine.statusCode, mine.json().error]).toEqual([403, 'ERR_NO_PERMISSION']);
    expect((await k.as(admin, 'PUT', `/users/${u.id}`, { wpp: 'not a number!' })).statusCode).toBe(400);
    const set = await k.as(admin, 'PUT', `/users/${u.id}`, { wpp: `+${wpp}` });
    expect(set.statusCode).toBe(200);
    expect(set.json().wpp).toBe(`+${wpp}`);
    const { event } = await codeFor(u, wpp);
    expect(event).toMatchObject({ userId: u.id, companyId, to: wpp });
    const created = await k.as(admin, 'POST', '/users', { name: 'Com Zap', email: `zap${numSeq}@example.com`, password: 'secret1', wpp: '(21) 99876-0000' });
    expect(created.json().wpp).toBe('(21) 99876-0000');
  });

  test('wrong codes: attempts left 2, 1, then exceeded; the right code no longer works afterwards', async () => {
    const wpp = newNumber();
    const u = await userWith(1, wpp);
    const { resetId, code } = await codeFor(u, wpp);
    const ip = newIp();
    const r1 = await verify(wpp, wrong(code), ip);
    expect(r1.statusCode).toBe(400);
    expect(r1.json()).toMatchObject({ error: 'ERR_INVALID_RESET_CODE', attemptsLeft: 2 });
    const r2 = await update({ userId: resetId, code: wrong(code), newPassword: 'whatever1' }, ip);
    expect(r2.json()).toMatchObject({ error: 'ERR_INVALID_RESET_CODE', attemptsLeft: 1 });
    const r3 = await verify(wpp, wrong(code), ip);
    expect(r3.statusCode).toBe(429);
    expect(r3.json().error).toBe('ERR_RESET_ATTEMPTS_EXCEEDED');
    const late = await verify(wpp, code, ip);
    expect(late.statusCode).toBe(429);
    expect(late.json().error).toBe('ERR_RESET_ATTEMPTS_EXCEEDED');
    const lateUpdate = await update({ userId: resetId, code, newPassword: 'whatever1' }, ip);
    expect(lateUpdate.json().error).toBe('ERR_RESET_ATTEMPTS_EXCEEDED');
    expect((await login(u.email, u.password)).statusCode).toBe(200);
  });

  test('an expired code is refused by both steps', async () => {
    const wpp = newNumber();
    const u = await userWith(1, wpp);
    const { resetId, code } = await codeFor(u, wpp);
    await k.db('passwordResets').where({ id: resetId }).update({ expiresAt: new Date(Date.now() - 1000) });
    const ip = newIp();
    const v = await verify(wpp, code, ip);
    expect(v.statusCode).toBe(400);
    expect(v.json().error).toBe('ERR_RESET_CODE_EXPIRED');
    const p = await update({ userId: resetId, code, newPassword: 'whatever1' }, ip);
    expect(p.json().error).toBe('ERR_RESET_CODE_EXPIRED');
    expect((await login(u.email, u.password)).statusCode).toBe(200);
  });

  test('a new code supersedes the previous one', async () => {
    const wpp = newNumber();
    const u = await userWith(1, wpp);
    const first = await codeFor(u, wpp);
    const second = await codeFor(u, wpp);
    const ip = newIp();
    const old = await update({ userId: first.resetId, code: first.code, newPassword: 'whatever1' }, ip);
    expect(old.json().error).toBe('ERR_INVALID_RESET_CODE');
    expect((await verify(wpp, second.code, ip)).statusCode).toBe(200);
  });

  test('an unknown number is indistinguishable: same answer, same verification behaviour, nothing sent', async () => {
    const known = newNumber();
    const u = await userWith(1, known);
    const unknown = newNumber();
    const ip = newIp();
    const before = events.length;
    const a = await send(known, ip);
    const b = await send(unknown, ip);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(Object.keys(b.json())).toEqual(Object.keys(a.json()));
    expect(b.json().userId).toMatch(UUID);
    await waitFor(() => events.slice(before).some((e) => e.userId === u.id));
    await new Promise((r) => setTimeout(r, 150));
    expect(events.slice(before)).toHaveLength(1);
    // Wrong codes walk through the same answers for both numbers.
    const answers = async (wpp: string) => {
      const out: unknown[] = [];
      for (let i = 0; i < 4; i++) {
        const r = await verify(wpp, '000000', newIp());
        out.push([r.statusCode, r.json().error, r.json().attemptsLeft]);
      }
      return out;
    };
    const known4 = await answers(known);
    expect(known4).toEqual(await answers(unknown));
    expect(known4[3]).toEqual([429, 'ERR_RESET_ATTEMPTS_EXCEEDED', undefined]);
  });

  test('a number shared by two users sends no code', async () => {
    const wpp = newNumber();
    await userWith(1, wpp);
    const { companyId } = await k.createCompany();
    await userWith(companyId, wpp);
    const before = events.length;
    expect((await send(wpp, newIp())).statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 150));
    expect(events.slice(before)).toHaveLength(0);
  });

  test('per-number limit: PASSWORD_RESET_PER_NUMBER codes an hour, registered or not, whatever the formatting', async () => {
    const known = newNumber();
    await userWith(1, known);
    const unknown = newNumber();
    for (const wpp of [known, unknown]) {
      const national = wpp.slice(2);
      const forms = [wpp, `+${wpp}`, national, `(${national.slice(0, 2)}) ${national.slice(2)}`];
      for (const f of forms) expect((await send(f, newIp())).statusCode).toBe(200);
      const blocked = await send(`${national.slice(0, 2)}${national.slice(3)}`, newIp()); // without the 9th digit
      expect(blocked.statusCode).toBe(429);
      expect(blocked.json().error).toBe('ERR_TOO_MANY_REQUESTS');
    }
  });

  test('per-IP limit on each route', async () => {
    const ip = newIp();
    for (let i = 0; i < 6; i++) expect((await send(newNumber(), ip)).statusCode).toBe(200);
    const blocked = await send(newNumber(), ip);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error).toBe('ERR_TOO_MANY_REQUESTS');
    const ip2 = newIp();
    for (let i = 0; i < 6; i++) expect((await verify(newNumber(), '123456', ip2)).statusCode).toBe(400);
    expect((await verify(newNumber(), '123456', ip2)).statusCode).toBe(429);
  });

  test('bad input answers 400 ERR_VALIDATION', async () => {
    const ip = () => newIp();
    const uuid = '0b6f3c1e-7a53-4a4e-9a55-0e7b9a9a0001';
    const cases = [
      await k.app.inject({ method: 'POST', url: '/api/enviar-email', payload: {}, remoteAddress: ip() }),
      await send(5511987654321, ip()),
      await send('abc-defg-hij', ip()),
      await send('123-45-67', ip()),
      await send('+1234567890123456', ip()),
      await verify('5511987654321', 'abc', ip()),
      await verify('5511987654321', '12345', ip()),
      await verify('not-a-number', '123456', ip()),
      await verify('5511987654321', '123456', ip(), 'nope'),
      await k.app.inject({ method: 'GET', url: '/api/verificar-code/5511987654321', remoteAddress: ip() }),
      await update({ userId: 42, code: '123456', newPassword: 'whatever1' }, ip()),
      await update({ userId: uuid, code: '123456', newPassword: '1234' }, ip()),
      await update({ userId: uuid, code: 123456, newPassword: 'whatever1' }, ip()),
      await update({ userId: uuid, code: '123456' }, ip()),
    ];
    for (const res of cases) {
      expect([res.statusCode, res.json().error]).toEqual([400, 'ERR_VALIDATION']);
    }
  });

  test('company isolation: a code issued for user A cannot reset user B', async () => {
    const a = await k.createCompany();
    const b = await k.createCompany();
    const wa = newNumber();
    const wb = newNumber();
    const ua = await userWith(a.companyId, wa);
    const ub = await userWith(b.companyId, wb);
    const ca = await codeFor(ua, wa);
    let cb = await codeFor(ub, wb);
    while (cb.code === ca.code) cb = await codeFor(ub, wb); // one chance in a million

    const ip = newIp();
    // A's code with B's reset id, or on B's number: refused.
    const cross = await update({ userId: cb.resetId, code: ca.code, newPassword: 'hijacked-1' }, ip);
    expect(cross.json().error).toBe('ERR_INVALID_RESET_CODE');
    expect((await verify(wb, ca.code, ip, ca.resetId)).json().error).toBe('ERR_INVALID_RESET_CODE');
    // A's real reset changes A only.
    expect((await update({ userId: ca.resetId, code: ca.code, newPassword: 'only-for-a' }, ip)).statusCode).toBe(200);
    expect((await login(ua.email, 'only-for-a')).statusCode).toBe(200);
    expect((await login(ub.email, 'only-for-a')).statusCode).toBe(401);
    expect((await login(ub.email, ub.password)).statusCode).toBe(200);
    // The reset id is opaque: B's numeric user id is not accepted in its place.
    expect((await update({ userId: ub.id, code: cb.code, newPassword: 'hijacked-1' }, ip)).statusCode).toBe(400);
  });
});
