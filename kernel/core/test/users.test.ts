import { collectEvents, createTestKernel, nextEvent, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD, type TestKernel, type TestUser } from '@atendo/testing';
import type { ErrorCode } from '@atendo/sdk';

const cookieOf = (res: { cookies: { name: string; value: string }[] }) => res.cookies.find((c) => c.name === 'jrt')?.value;

/** Fails when an answer carries any secret of a users row. */
function expectNoSecrets(res: { body: string }) {
  expect(res.body).not.toMatch(/passwordHash|password_hash|tokenVersion|token_version|\$argon2|lastSeenAt|"password"/i);
}

/** Fails unless the answer is `status` with catalogue `code`. */
function expectError(res: { statusCode: number; json(): { error: string } }, status: number, code: ErrorCode) {
  expect({ status: res.statusCode, error: res.json().error }).toEqual({ status, error: code });
}

describe('users routes', () => {
  let k: TestKernel;
  let a: { companyId: number; admin: TestUser };
  let b: { companyId: number; admin: TestUser };
  let aUser: TestUser;
  let bUser: TestUser;
  let n = 0;
  const email = () => `user${Date.now().toString(36)}${n++}@example.com`;
  const login = (e: string, password: string) => k.app.inject({ method: 'POST', url: '/auth/login', payload: { email: e, password } });

  beforeAll(async () => {
    k = await createTestKernel();
    a = await k.createCompany();
    b = await k.createCompany();
    aUser = await k.createUser(a.companyId, { profile: 'user', name: 'Alice Plain' });
    bUser = await k.createUser(b.companyId, { profile: 'user', name: 'Bob Other' });
  });
  afterAll(() => k.close());

  test('admin creates, reads, lists, updates and deletes a user of its company', async () => {
    const e = email();
    const created = await k.as(a.admin, 'POST', '/users', {
      name: '  Maria Silva ', email: e.toUpperCase(), password: 'segredo1', profile: 'supervisor', startWork: '08:00', endWork: '18:00',
      allTicket: 'enable', allowGroup: true, defaultTheme: 'dark', defaultMenu: 'open', farewellMessage: 'Tchau', language: 'pt-BR',
    });
    expect(created.statusCode).toBe(200);
    expectNoSecrets(created);
    const u = created.json();
    expect(u).toMatchObject({
      companyId: a.companyId, name: 'Maria Silva', email: e, profile: 'supervisor', super: false, online: false, startWork: '08:00', endWork: '18:00',
      allTicket: 'enable', allowGroup: true, defaultTheme: 'dark', defaultMenu: 'open', farewellMessage: 'Tchau', language: 'pt-BR', whatsappId: null,
    });
    expect(typeof u.id).toBe('number');
    expect(Number.isNaN(Date.parse(u.createdAt))).toBe(false);

    const one = await k.as(a.admin, 'GET', `/users/${u.id}`);
    expect(one.statusCode).toBe(200);
    expectNoSecrets(one);
    expect(one.json()).toMatchObject({ id: u.id, email: e });

    const list = await k.as(a.admin, 'GET', '/users?searchParam=maria');
    expect(list.statusCode).toBe(200);
    expectNoSecrets(list);
    expect(list.json()).toEqual({ users: [expect.objectContaining({ id: u.id, name: 'Maria Silva' })], count: 1, hasMore: false });
    const byEmail = await k.as(a.admin, 'GET', `/users/?searchParam=${encodeURIComponent(e.slice(0, 10).toUpperCase())}`);
    expect(byEmail.json().users.map((x: { id: number }) => x.id)).toEqual([u.id]);

    // No connections plugin here: no id can name a connection (issue 37 item 5; foreign-ids.test.ts checks them with it).
    expect((await k.as(a.admin, 'PUT', `/users/${u.id}`, { whatsappId: 7 })).json()).toMatchObject({ error: 'ERR_VALIDATION' });
    const upd = await k.as(a.admin, 'PUT', `/users/${u.id}`, { name: 'Maria Souza', profile: 'user', whatsappId: null, startWork: '', companyId: b.companyId });
    expect(upd.statusCode).toBe(200);
    expectNoSecrets(upd);
    expect(upd.json()).toMatchObject({ id: u.id, name: 'Maria Souza', profile: 'user', whatsappId: null, startWork: '00:00', companyId: a.companyId });

    const del = await k.as(a.admin, 'DELETE', `/users/${u.id}`);
    expect(del.statusCode).toBe(200);
    expect(del.json()).toEqual({ message: 'User deleted' });
    expectError(await k.as(a.admin, 'GET', `/users/${u.id}`), 404, 'ERR_NO_USER_FOUND');
    expectError(await k.as(a.admin, 'DELETE', `/users/${u.id}`), 404, 'ERR_NO_USER_FOUND');
    expect(await k.db('users').where({ id: u.id }).first()).toBeUndefined();
  });

  test('defaults: profile user, work hours 00:00-23:59, allTicket disable', async () => {
    // The old modal sends empty selects as ''.
    const res = await k.as(a.admin, 'POST', '/users', { name: 'Default Person', email: email(), password: 'abcde', whatsappId: '', companyId: '', language: '', startWork: '', farewellMessage: '' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ companyId: a.companyId, whatsappId: null, language: null, farewellMessage: null, profile: 'user', startWork: '00:00', endWork: '23:59', allTicket: 'disable', allowGroup: false, defaultTheme: 'light', defaultMenu: 'closed', super: false });
  });

  test('GET /users pages by 20, newest first, scoped to the company', async () => {
    const { companyId, admin } = await k.createCompany();
    // Rows inserted one by one (ids and createdAt ascend); the hash is a dummy, these users never log in.
    for (let i = 0; i < 24; i++) await k.db('users').insert({ companyId, name: `Paged ${i}`, email: email(), passwordHash: 'x' });
    const p1 = await k.as(admin, 'GET', '/users?pageNumber=1');
    expect(p1.statusCode).toBe(200);
    expect(p1.json().users).toHaveLength(20);
    expect(p1.json()).toMatchObject({ count: 25, hasMore: true });
    const p2 = await k.as(admin, 'GET', '/users?pageNumber=2&companyId=1');
    expect(p2.json().users).toHaveLength(5);
    expect(p2.json()).toMatchObject({ count: 25, hasMore: false });
    const all = [...p1.json().users, ...p2.json().users];
    expect(new Set(all.map((u: { id: number }) => u.id)).size).toBe(25);
    expect(all.every((u: { companyId: number }) => u.companyId === companyId)).toBe(true);
    // Newest first: ids (serial, created in order) descend.
    const ids = all.map((u: { id: number }) => u.id);
    expect(ids).toEqual([...ids].sort((x, y) => y - x));
    const none = await k.as(admin, 'GET', '/users?searchParam=%25_%5C');
    expect(none.statusCode).toBe(200);
    expect(none.json()).toEqual({ users: [], count: 0, hasMore: false });
  });

  test('GET /users/list: any signed-in user, own company only, no secrets and no extra fields', async () => {
    const res = await k.as(aUser, 'GET', `/users/list?companyId=${b.companyId}`);
    expect(res.statusCode).toBe(200);
    expectNoSecrets(res);
    const rows = res.json() as Record<string, unknown>[];
    expect(rows.map((r) => r.id).sort()).toEqual(
      (await k.db('users').where({ companyId: a.companyId }).pluck('id')).sort(),
    );
    for (const r of rows) expect(Object.keys(r).sort()).toEqual(['email', 'id', 'name', 'online', 'profile']);
    expect(rows.some((r) => r.id === bUser.id)).toBe(false);
  });

  test('a plain user cannot list, create, delete or read others; it reads and edits itself', async () => {
    const supervisor = await k.createUser(a.companyId, { profile: 'supervisor' });
    for (const who of [aUser, supervisor]) {
      expectError(await k.as(who, 'GET', '/users'), 403, 'ERR_NO_PERMISSION');
      expectError(await k.as(who, 'GET', '/users/'), 403, 'ERR_NO_PERMISSION');
      expectError(await k.as(who, 'POST', '/users', { name: 'Nope Nope', email: email(), password: 'abcdef' }), 403, 'ERR_NO_PERMISSION');
      expectError(await k.as(who, 'DELETE', `/users/${a.admin.id}`), 403, 'ERR_NO_PERMISSION');
      expectError(await k.as(who, 'GET', `/users/${a.admin.id}`), 403, 'ERR_NO_PERMISSION');
      expectError(await k.as(who, 'PUT', `/users/${a.admin.id}`, { name: 'Hacked' }), 403, 'ERR_NO_PERMISSION');
    }
    expect((await k.db('users').where({ id: a.admin.id }).first()).name).not.toBe('Hacked');
    const me = await k.as(aUser, 'GET', `/users/${aUser.id}`);
    expect(me.statusCode).toBe(200);
    expect(me.json().id).toBe(aUser.id);

    // The old modal posts the whole form: unchanged admin-only fields pass, changed ones are refused.
    const ok = await k.as(aUser, 'PUT', `/users/${aUser.id}`, {
      name: 'Alice Renamed', defaultTheme: 'dark', language: 'en', farewellMessage: 'bye', profile: 'user', allTicket: 'disable', startWork: '00:00', endWork: '23:59', whatsappId: null, allowGroup: false,
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ name: 'Alice Renamed', defaultTheme: 'dark', language: 'en', farewellMessage: 'bye', profile: 'user' });
    for (const change of [{ profile: 'admin' }, { allTicket: 'enable' }, { allowGroup: true }, { whatsappId: 3 }, { startWork: '09:00' }, { endWork: '17:00' }, { super: true }]) {
      expectError(await k.as(aUser, 'PUT', `/users/${aUser.id}`, change), 403, 'ERR_NO_PERMISSION');
    }
    const row = await k.db('users').where({ id: aUser.id }).first();
    expect(row).toMatchObject({ profile: 'user', allTicket: 'disable', allowGroup: false, whatsappId: null, super: false });
  });

  test("an admin gets 404 for another company's user on every /users/:id route; a super user reaches it", async () => {
    expectError(await k.as(a.admin, 'GET', `/users/${bUser.id}`), 404, 'ERR_NO_USER_FOUND');
    expectError(await k.as(a.admin, 'PUT', `/users/${bUser.id}`, { name: 'Stolen' }), 404, 'ERR_NO_USER_FOUND');
    expectError(await k.as(a.admin, 'PUT', `/users/${bUser.id}`, { password: 'newpass1' }), 404, 'ERR_NO_USER_FOUND');
    expectError(await k.as(a.admin, 'DELETE', `/users/${bUser.id}`), 404, 'ERR_NO_USER_FOUND');
    expectError(await k.as(aUser, 'GET', `/users/${bUser.id}`), 404, 'ERR_NO_USER_FOUND');
    expectError(await k.as(a.admin, 'GET', '/users/2147483647'), 404, 'ERR_NO_USER_FOUND');
    const listed = await k.as(a.admin, 'GET', `/users?companyId=${b.companyId}&searchParam=Bob`);
    expect(listed.json()).toEqual({ users: [], count: 0, hasMore: false });
    const row = await k.db('users').where({ id: bUser.id }).first();
    expect(row.name).toBe('Bob Other');

    const read = await k.as(k.superAdmin, 'GET', `/users/${bUser.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ id: bUser.id, companyId: b.companyId });
    const upd = await k.as(k.superAdmin, 'PUT', `/users/${bUser.id}`, { name: 'Bob Edited By Super' });
    expect(upd.statusCode).toBe(200);
    expect(upd.json()).toMatchObject({ name: 'Bob Edited By Super', companyId: b.companyId });
    const victim = await k.createUser(b.companyId);
    expect((await k.as(k.superAdmin, 'DELETE', `/users/${victim.id}`)).statusCode).toBe(200);
    expect(await k.db('users').where({ id: victim.id }).first()).toBeUndefined();
  });

  test('body companyId is honoured only for super users; only super users create super users', async () => {
    expectError(await k.as(a.admin, 'POST', '/users', { name: 'Intruder', email: email(), password: 'abcdef', companyId: b.companyId }), 403, 'ERR_NO_PERMISSION');
    expect(await k.db('users').where({ name: 'Intruder' }).first()).toBeUndefined();
    const own = await k.as(a.admin, 'POST', '/users', { name: 'Own Company', email: email(), password: 'abcdef', companyId: a.companyId });
    expect(own.json().companyId).toBe(a.companyId);
    expectError(await k.as(a.admin, 'POST', '/users', { name: 'Wannabe', email: email(), password: 'abcdef', super: true }), 403, 'ERR_NO_PERMISSION');

    const bySuper = await k.as(k.superAdmin, 'POST', '/users', { name: 'Placed In B', email: email(), password: 'abcdef', companyId: b.companyId, super: true });
    expect(bySuper.statusCode).toBe(200);
    expect(bySuper.json()).toMatchObject({ companyId: b.companyId, super: true });
    expect((await k.db('users').where({ id: bySuper.json().id }).first()).companyId).toBe(b.companyId);
    expectError(await k.as(k.superAdmin, 'POST', '/users', { name: 'Nowhere', email: email(), password: 'abcdef', companyId: 999999 }), 404, 'ERR_NO_COMPANY_FOUND');
    await k.db('users').where({ id: bySuper.json().id }).del();
  });

  test('e-mails are unique platform-wide, case-insensitively: 409 ERR_DUPLICATED_EMAIL', async () => {
    expectError(await k.as(b.admin, 'POST', '/users', { name: 'Copycat', email: a.admin.email.toUpperCase(), password: 'abcdef' }), 409, 'ERR_DUPLICATED_EMAIL');
    expectError(await k.as(a.admin, 'POST', '/users', { name: 'Copycat', email: TEST_ADMIN_EMAIL, password: 'abcdef' }), 409, 'ERR_DUPLICATED_EMAIL');
    const u = await k.createUser(a.companyId);
    expectError(await k.as(a.admin, 'PUT', `/users/${u.id}`, { email: bUser.email.toUpperCase() }), 409, 'ERR_DUPLICATED_EMAIL');
    const same = await k.as(a.admin, 'PUT', `/users/${u.id}`, { email: u.email.toUpperCase() });
    expect(same.statusCode).toBe(200);
    expect(same.json().email).toBe(u.email);
    const concurrent = await Promise.all(
      [a.admin, b.admin].map((adm) => k.as(adm, 'POST', '/users', { name: 'Racer', email: 'race@example.com', password: 'abcdef' })),
    );
    expect(concurrent.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(concurrent.find((r) => r.statusCode === 409)!.json().error).toBe('ERR_DUPLICATED_EMAIL');
  });

  test('changing a password re-hashes it, bumps tokenVersion and revokes every refresh session', async () => {
    const e = email();
    const created = await k.as(a.admin, 'POST', '/users', { name: 'Session Holder', email: e, password: 'first-pass' });
    const id = created.json().id;
    const s1 = cookieOf(await login(e, 'first-pass'))!;
    const s2 = cookieOf(await login(e, 'first-pass'))!;
    expect(s1 && s2).toBeTruthy();
    const before = await k.db('users').where({ id }).first();

    const upd = await k.as(a.admin, 'PUT', `/users/${id}`, { password: 'second-pass' });
    expect(upd.statusCode).toBe(200);
    expectNoSecrets(upd);
    const after = await k.db('users').where({ id }).first();
    expect(after.tokenVersion).toBe(before.tokenVersion + 1);
    expect(after.passwordHash).not.toBe(before.passwordHash);
    expect(after.passwordHash.startsWith('$argon2id$')).toBe(true);
    for (const c of [s1, s2]) expectError(await k.app.inject({ method: 'POST', url: '/auth/refresh_token', cookies: { jrt: c } }), 401, 'ERR_SESSION_EXPIRED');
    expectError(await login(e, 'first-pass'), 401, 'ERR_INVALID_CREDENTIALS');
    const fresh = await login(e, 'second-pass');
    expect(fresh.statusCode).toBe(200);

    // The user changes its own password: same effect; an empty password leaves it unchanged.
    const self = { id, companyId: a.companyId, profile: 'user' as const, super: false, email: e, password: 'second-pass', token: fresh.json().token };
    const c3 = cookieOf(fresh)!;
    const noop = await k.as(self, 'PUT', `/users/${id}`, { password: '', name: 'Session Holder 2' });
    expect(noop.statusCode).toBe(200);
    expect((await k.db('users').where({ id }).first()).tokenVersion).toBe(after.tokenVersion);
    expect((await k.app.inject({ method: 'POST', url: '/auth/refresh_token', cookies: { jrt: c3 } })).statusCode).toBe(200);
    // Its own password takes the current one (the profile modal): missing or wrong -> 400, nothing changes.
    expectError(await k.as(self, 'PUT', `/users/${id}`, { password: 'third-pass' }), 400, 'ERR_WRONG_CURRENT_PASSWORD');
    expectError(await k.as(self, 'PUT', `/users/${id}`, { password: 'third-pass', currentPassword: 'first-pass' }), 400, 'ERR_WRONG_CURRENT_PASSWORD');
    expect((await k.db('users').where({ id }).first()).tokenVersion).toBe(after.tokenVersion);
    const own = await k.as(self, 'PUT', `/users/${id}`, { password: 'third-pass', currentPassword: 'second-pass' });
    expect(own.statusCode).toBe(200);
    expect((await k.db('users').where({ id }).first()).tokenVersion).toBe(after.tokenVersion + 1);
    expect(await k.db('authSessions').where({ userId: id }).whereNull('revokedAt').first()).toBeUndefined();
  });

  test('deleting: not yourself, not the last super user; only super users touch super users', async () => {
    expectError(await k.as(a.admin, 'DELETE', `/users/${a.admin.id}`), 400, 'ERR_CANNOT_DELETE_SELF');
    expectError(await k.as(k.superAdmin, 'DELETE', `/users/${k.superAdmin.id}`), 400, 'ERR_CANNOT_DELETE_SELF');
    // A non-super admin of company 1 cannot change or delete the super admin.
    const platformAdmin = await k.createUser(1, { profile: 'admin' });
    expectError(await k.as(platformAdmin, 'DELETE', `/users/${k.superAdmin.id}`), 403, 'ERR_NO_PERMISSION');
    expectError(await k.as(platformAdmin, 'PUT', `/users/${k.superAdmin.id}`, { password: 'takeover1' }), 403, 'ERR_NO_PERMISSION');
    // The only super user cannot drop its own flag.
    expectError(await k.as(k.superAdmin, 'PUT', `/users/${k.superAdmin.id}`, { super: false }), 400, 'ERR_LAST_SUPER_USER');
    // A caller whose super flag was removed meanwhile (stale token) cannot delete the last super user: the
    // token no longer matches its session (not as signed) and is refused before anything is looked at.
    const other = await k.createUser(1, { profile: 'admin', super: true });
    await k.db('users').where({ id: other.id }).update({ super: false });
    expectError(await k.as(other, 'DELETE', `/users/${k.superAdmin.id}`), 403, 'ERR_INVALID_TOKEN');
    expect(await k.db('users').where({ id: k.superAdmin.id }).first()).toBeDefined();
    // With two super users, one may demote the other.
    await k.db('users').where({ id: other.id }).update({ super: true });
    const demoted = await k.as(k.superAdmin, 'PUT', `/users/${other.id}`, { super: false });
    expect(demoted.statusCode).toBe(200);
    expect(demoted.json().super).toBe(false);
  });

  test('userCreation disabled on the platform: non-super callers get 403 ERR_USER_CREATION_DISABLED', async () => {
    await k.db('settings').insert({ companyId: 1, key: 'userCreation', value: 'disabled' }).onConflict(['companyId', 'key']).merge();
    try {
      expectError(await k.as(a.admin, 'POST', '/users', { name: 'Blocked', email: email(), password: 'abcdef' }), 403, 'ERR_USER_CREATION_DISABLED');
      const bySuper = await k.as(k.superAdmin, 'POST', '/users', { name: 'Allowed', email: email(), password: 'abcdef' });
      expect(bySuper.statusCode).toBe(200);
    } finally {
      await k.db('settings').where({ companyId: 1, key: 'userCreation' }).del();
    }
    expect((await k.as(a.admin, 'POST', '/users', { name: 'Allowed Again', email: email(), password: 'abcdef' })).statusCode).toBe(200);
  });

  test('company-{id}-user events reach the company sockets only, after commit, without secrets', async () => {
    const base = await k.listen();
    const sa = await k.socket(aUser.token, base);
    const sb = await k.socket(bUser.token, base);
    try {
      const created = nextEvent<{ action: string; user: Record<string, unknown> }>(sa, `company-${a.companyId}-user`);
      const leakB = collectEvents(sb, `company-${a.companyId}-user`, 600);
      const e = email();
      const res = await k.as(a.admin, 'POST', '/users', { name: 'Evented', email: e, password: 'abcdef' });
      const ev = await created;
      expect(ev).toMatchObject({ action: 'create', user: { id: res.json().id, email: e, companyId: a.companyId } });
      expect(JSON.stringify(ev)).not.toMatch(/passwordHash|tokenVersion|argon2/);
      const updated = nextEvent<{ action: string; user: { id: number; name: string } }>(sa, `company-${a.companyId}-user`);
      await k.as(a.admin, 'PUT', `/users/${res.json().id}`, { name: 'Evented Two' });
      expect(await updated).toMatchObject({ action: 'update', user: { id: res.json().id, name: 'Evented Two' } });
      const deleted = nextEvent<{ action: string; userId: number }>(sa, `company-${a.companyId}-user`);
      await k.as(a.admin, 'DELETE', `/users/${res.json().id}`);
      expect(await deleted).toEqual({ action: 'delete', userId: res.json().id });
      expect(await leakB).toEqual([]);
      // B's own events do reach B.
      const bEvent = nextEvent(sb, `company-${b.companyId}-user`);
      await k.as(b.admin, 'PUT', `/users/${bUser.id}`, { defaultMenu: 'open' });
      expect(await bEvent).toMatchObject({ action: 'update' });
    } finally {
      sa.close();
      sb.close();
    }
  });

  test('bad input answers 4xx catalogue codes, never 500', async () => {
    const ok = { name: 'Valid Name', email: email(), password: 'abcdef' };
    const bodies: Record<string, unknown>[] = [
      { ...ok, name: 'a' },
      { ...ok, name: ' a ' },
      { ...ok, name: 'x'.repeat(51) },
      { ...ok, email: 'not-an-email' },
      { ...ok, email: `${'x'.repeat(260)}@example.com` },
      { ...ok, password: '1234' },
      { ...ok, password: 'x'.repeat(51) },
      { name: 'No Password', email: email() },
      { ...ok, profile: 'root' },
      { ...ok, startWork: '25:00' },
      { ...ok, endWork: '9am' },
      { ...ok, allTicket: 'yes' },
      { ...ok, defaultTheme: 'blue' },
      { ...ok, language: 'xx' },
      { ...ok, whatsappId: 'abc' },
      { ...ok, whatsappId: -4 },
      { ...ok, queueIds: ['x'] },
      { ...ok, queueIds: [0] },
      { ...ok, queueIds: 'nope' },
      { ...ok, farewellMessage: 'x'.repeat(5001) },
      { ...ok, companyId: 'abc' },
    ];
    for (const body of bodies) {
      const res = await k.as(a.admin, 'POST', '/users', body);
      expect({ body, status: res.statusCode }).toEqual({ body, status: 400 });
      expect(res.json().error).toBe('ERR_VALIDATION');
    }
    for (const url of ['/users/-1', '/users/0', '/users/abc', '/users/99999999999', '/users/1.5']) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = await k.as(a.admin, method, url, method === 'PUT' ? { name: 'Whatever' } : undefined);
        expect({ url, method, status: res.statusCode }).toEqual({ url, method, status: 400 });
        expect(res.json().error).toBe('ERR_VALIDATION');
      }
    }
    for (const q of ['pageNumber=-1', 'pageNumber=abc', 'pageNumber=999999999', `searchParam=${'x'.repeat(201)}`]) {
      const res = await k.as(a.admin, 'GET', `/users?${q}`);
      expect({ q, status: res.statusCode }).toEqual({ q, status: 400 });
    }
    for (const body of [{ password: '123' }, { email: 'bad' }, { name: '' }, { profile: 'owner' }, { super: 'maybe' }]) {
      const res = await k.as(a.admin, 'PUT', `/users/${aUser.id}`, body);
      expect({ body, status: res.statusCode }).toEqual({ body, status: 400 });
      expect(res.json().error).toBe('ERR_VALIDATION');
    }
    const notJson = await k.as(a.admin, 'POST', '/users', '{"name":', { 'content-type': 'application/json' });
    expect(notJson.statusCode).toBe(400);
    expect(notJson.json().error).toBe('ERR_INVALID_JSON');
    expectError(await k.as(null, 'GET', '/users/list'), 401, 'ERR_SESSION_EXPIRED');
  });

  test('the super admin can still log in with its seeded password (sanity)', async () => {
    expect((await login(TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD)).statusCode).toBe(200);
  });

  test('profile picture: POST /users/:id/media-upload (the user itself or an admin) stores it, answers profileImageUrl (signed), replaces the previous file', async () => {
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    const upload = async (who: TestUser, id: number, field = 'profileImage', data = png, type = 'image/png') => {
      const fd = new FormData();
      fd.append('userId', String(id));
      fd.append('typeArch', 'user');
      fd.append(field, new Blob([new Uint8Array(data)], { type }), 'me.png');
      const res = new Response(fd);
      return k.app.inject({ method: 'POST', url: `/users/${id}/media-upload`, payload: Buffer.from(await res.arrayBuffer()), headers: { 'content-type': res.headers.get('content-type')!, authorization: `Bearer ${who.token}` } });
    };
    const first = await upload(aUser, aUser.id);
    expect(first.statusCode).toBe(200);
    const u1 = first.json();
    expect(u1.profileImage).toMatch(/^[0-9a-f-]+\.png$/);
    expect(u1.profileImageUrl).toMatch(new RegExp(`/public/company${a.companyId}/user/${u1.profileImage}\\?`));
    const img = new URL(u1.profileImageUrl);
    const served = await k.app.inject({ method: 'GET', url: img.pathname + img.search });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toMatch(/^image\/png/);
    const second = (await upload(a.admin, aUser.id)).json();
    expect(second.profileImage).not.toBe(u1.profileImage);
    expect((await k.app.inject({ method: 'GET', url: img.pathname + img.search })).statusCode).toBe(404);
    expect((await k.as(aUser, 'GET', `/users/${aUser.id}`)).json().profileImageUrl).toMatch(/\/user\//);
    // Another user, another company, a wrong field and a non-image are refused.
    const other = await k.createUser(a.companyId, { profile: 'user' });
    expectError(await upload(other, aUser.id), 403, 'ERR_NO_PERMISSION');
    expectError(await upload(b.admin, aUser.id), 404, 'ERR_NO_USER_FOUND');
    expectError(await upload(aUser, aUser.id, 'file'), 400, 'ERR_VALIDATION');
    expectError(await upload(aUser, aUser.id, 'profileImage', Buffer.from('%PDF-1.4\n'), 'application/pdf'), 415, 'ERR_UPLOAD_TYPE');
  });
});
