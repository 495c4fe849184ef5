import { createHmac, randomBytes } from 'node:crypto';
import { io as ioClient, type Socket } from 'socket.io-client';
import { createTestKernel, type TestKernel, type TestUser } from '@atendo/testing';
import { dropDatabase } from '../src/db';
import { withDb } from '@atendo/testing/src/global-setup';

/**
 * Security issue item 2: an access token stops working at once when its session ends (logout, password
 * change, deletion, demotion, company deactivation), on every node; tokens without `exp` or with another
 * algorithm are refused; sockets are refused with an expired token and disconnected on revocation or at
 * expiry without renewal; a profile change moves a socket to the new profile's rooms instead.
 */

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
/** A JWT signed by hand with `alg` (HS256/HS384/HS512) and `secret`. */
function handToken(alg: 'HS256' | 'HS384' | 'HS512', payload: Record<string, unknown>, secret: string): string {
  const head = `${b64({ alg, typ: 'JWT' })}.${b64(payload)}`;
  return `${head}.${createHmac(`sha${alg.slice(2)}`, secret).update(head).digest('base64url')}`;
}

const cookieOf = (res: { cookies: { name: string; value: string }[] }) => res.cookies.find((c) => c.name === 'jrt')!.value;

describe('sessions are revoked at once', () => {
  let k: TestKernel;
  let base: string;
  const open: Socket[] = [];
  beforeAll(async () => {
    k = await createTestKernel();
    base = await k.listen();
  });
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });
  afterAll(() => k.close());

  const signIn = async (u: { email: string; password: string }) => {
    const res = await k.app.inject({ method: 'POST', url: '/auth/login', payload: { email: u.email, password: u.password } });
    expect(res.statusCode).toBe(200);
    return { token: res.json().token as string, cookie: cookieOf(res) };
  };
  const me = (token: string) => k.app.inject({ method: 'GET', url: '/auth/me', headers: { authorization: `Bearer ${token}` } });
  const connect = async (token: string) => {
    const s = await k.socket(token, base);
    open.push(s);
    return s;
  };
  /** Starts watching `s` for a disconnect (before the change that should cause it). */
  const watch = (s: Socket) => {
    const w = { at: 0, reason: '' };
    s.once('disconnect', (reason) => Object.assign(w, { at: Date.now(), reason }));
    return w;
  };
  /** The disconnect reason, once it happened; fails when it does not happen within `ms` from now. */
  const disconnected = async (w: { at: number; reason: string }, ms = 1000) => {
    const t0 = Date.now();
    while (!w.at && Date.now() - t0 < ms) await new Promise((r) => setTimeout(r, 10));
    if (!w.at) throw new Error(`still connected after ${ms} ms`);
    return w.reason;
  };

  test('logout: the access token is refused at once, and the socket it opened is disconnected', async () => {
    const { companyId } = await k.createCompany();
    const u = await k.createUser(companyId);
    const { token, cookie } = await signIn(u);
    expect((await me(token)).statusCode).toBe(200);
    const socket = await connect(token);
    const gone = watch(socket);
    const t0 = Date.now();
    const out = await k.app.inject({ method: 'DELETE', url: '/auth/logout', cookies: { jrt: cookie }, headers: { authorization: `Bearer ${token}` } });
    expect(out.statusCode).toBe(204);
    const after = await me(token);
    expect(after.statusCode).toBe(403);
    expect(after.json().error).toBe('ERR_INVALID_TOKEN');
    expect(await disconnected(gone)).toBe('io server disconnect');
    expect(Date.now() - t0).toBeLessThan(1000);
    // The user is marked offline although the token no longer verifies its session.
    expect((await k.db('users').where({ id: u.id }).first('online')).online).toBe(false);
    // And the refresh cookie is dead too.
    expect((await k.app.inject({ method: 'POST', url: '/auth/refresh_token', cookies: { jrt: cookie } })).statusCode).toBe(401);
  });

  test('logout: a socket opened by the session cookie alone (clients of the product family) is disconnected too', async () => {
    const { companyId } = await k.createCompany();
    const u = await k.createUser(companyId);
    const { token, cookie } = await signIn(u);
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = ioClient(base, { transports: ['websocket'], query: { companyId: String(companyId), userId: String(u.id) }, reconnection: false, forceNew: true, extraHeaders: { cookie: `jrt=${cookie}` } });
      s.on('connect', () => resolve(s));
      s.on('connect_error', (err) => {
        s.close();
        reject(err);
      });
    });
    open.push(socket);
    const gone = watch(socket);
    const out = await k.app.inject({ method: 'DELETE', url: '/auth/logout', cookies: { jrt: cookie }, headers: { authorization: `Bearer ${token}` } });
    expect(out.statusCode).toBe(204);
    expect(await disconnected(gone)).toBe('io server disconnect');
    // And it cannot come back with that cookie.
    await expect(new Promise<void>((resolve, reject) => {
      const s = ioClient(base, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: { cookie: `jrt=${cookie}` } });
      s.on('connect', () => {
        s.close();
        resolve();
      });
      s.on('connect_error', (err) => {
        s.close();
        reject(err);
      });
    })).rejects.toThrow('ERR_SESSION_EXPIRED');
  });

  test('logout without the cookie (the bearer token only) still ends the token session: token refused, sockets of token and cookie disconnected', async () => {
    const { companyId } = await k.createCompany();
    const u = await k.createUser(companyId);
    const { token, cookie } = await signIn(u);
    const tokenSocket = await connect(token);
    const cookieSocket = await new Promise<Socket>((resolve, reject) => {
      const s = ioClient(base, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: { cookie: `jrt=${cookie}` } });
      s.on('connect', () => resolve(s));
      s.on('connect_error', (err) => {
        s.close();
        reject(err);
      });
    });
    open.push(cookieSocket);
    const goneToken = watch(tokenSocket);
    const goneCookie = watch(cookieSocket);
    const out = await k.app.inject({ method: 'DELETE', url: '/auth/logout', headers: { authorization: `Bearer ${token}` } });
    expect(out.statusCode).toBe(204);
    expect((await me(token)).statusCode).toBe(403);
    await disconnected(goneToken);
    await disconnected(goneCookie);
    expect((await k.app.inject({ method: 'POST', url: '/auth/refresh_token', cookies: { jrt: cookie } })).statusCode).toBe(401);
  });

  test('password change: the old token is refused; one\'s own password needs the current one, admins included', async () => {
    const { companyId, admin } = await k.createCompany();
    const { token } = await signIn(admin);
    const socket = await connect(token);
    const noCurrent = await k.as({ token }, 'PUT', `/users/${admin.id}`, { password: 'brand-new-1' });
    expect(noCurrent.statusCode).toBe(400);
    expect(noCurrent.json().error).toBe('ERR_WRONG_CURRENT_PASSWORD');
    const wrong = await k.as({ token }, 'PUT', `/users/${admin.id}`, { password: 'brand-new-1', currentPassword: 'not-it' });
    expect(wrong.json().error).toBe('ERR_WRONG_CURRENT_PASSWORD');
    expect((await me(token)).statusCode).toBe(200);
    const gone = watch(socket);
    const ok = await k.as({ token }, 'PUT', `/users/${admin.id}`, { password: 'brand-new-1', currentPassword: admin.password });
    expect(ok.statusCode).toBe(200);
    expect((await me(token)).statusCode).toBe(403);
    await disconnected(gone);
    // An admin still sets another user's password without knowing it; that user's token dies.
    const other = await k.createUser(companyId);
    const otherToken = (await signIn(other)).token;
    const { token: adminToken } = await signIn({ email: admin.email, password: 'brand-new-1' });
    expect((await k.as({ token: adminToken }, 'PUT', `/users/${other.id}`, { password: 'set-by-admin' })).statusCode).toBe(200);
    expect((await me(otherToken)).statusCode).toBe(403);
  });

  test('deletion: the deleted user\'s token is refused and its socket disconnected', async () => {
    const { companyId, admin } = await k.createCompany();
    const u = await k.createUser(companyId);
    const { token } = await signIn(u);
    const socket = await connect(token);
    const gone = watch(socket);
    expect((await k.as(admin, 'DELETE', `/users/${u.id}`)).statusCode).toBe(200);
    expect((await me(token)).statusCode).toBe(403);
    await disconnected(gone);
  });

  test('demotion: the admin token is refused (the refreshed one carries the new profile); its socket stays, with the new profile', async () => {
    const { companyId, admin } = await k.createCompany();
    const boss = await k.createUser(companyId, { profile: 'admin' });
    const { token, cookie } = await signIn(boss);
    expect((await k.as({ token }, 'GET', '/users')).statusCode).toBe(200);
    const socket = await connect(token);
    let dropped = false;
    socket.on('disconnect', () => (dropped = true));
    expect((await k.as(admin, 'PUT', `/users/${boss.id}`, { profile: 'user' })).statusCode).toBe(200);
    const old = await k.as({ token }, 'GET', '/users');
    expect(old.statusCode).toBe(403);
    expect(old.json().error).toBe('ERR_INVALID_TOKEN');
    const refreshed = await k.app.inject({ method: 'POST', url: '/auth/refresh_token', cookies: { jrt: cookie } });
    expect(refreshed.statusCode).toBe(200);
    const fresh = refreshed.json().token as string;
    expect((await me(fresh)).statusCode).toBe(200);
    expect((await k.as({ token: fresh }, 'GET', '/users')).json().error).toBe('ERR_NO_PERMISSION');
    await new Promise((r) => setTimeout(r, 300));
    expect(dropped).toBe(false);
    const server = [...k.realtime.io.sockets.sockets.values()].find((s) => (s.data.user as { id: number }).id === boss.id)!;
    expect(server.data.user).toMatchObject({ id: boss.id, profile: 'user' });
  });

  test('company deactivation: its users\' tokens are refused and sockets disconnected; new sockets refused', async () => {
    const { companyId } = await k.createCompany();
    const u = await k.createUser(companyId);
    const { token } = await signIn(u);
    const socket = await connect(token);
    const gone = watch(socket);
    const res = await k.as(k.superAdmin, 'PUT', `/companies/${companyId}`, { status: false });
    expect(res.statusCode).toBe(200);
    expect((await me(token)).statusCode).toBe(403);
    await disconnected(gone);
    await expect(connect(token)).rejects.toThrow('ERR_INVALID_TOKEN');
  });

  test('tokens without exp, with another algorithm, or signed with alg none are refused', async () => {
    const secret = String(k.config.jwtSecret);
    const claims = { id: k.superAdmin.id, companyId: 1, profile: 'admin', super: true, tv: 0 };
    const now = Math.floor(Date.now() / 1000);
    expect((await me(handToken('HS256', { ...claims, iat: now, exp: now + 600 }, secret))).statusCode).toBe(200);
    expect((await me(handToken('HS256', { ...claims, iat: now }, secret))).statusCode).toBe(403);
    expect((await me(handToken('HS512', { ...claims, iat: now, exp: now + 600 }, secret))).statusCode).toBe(403);
    expect((await me(handToken('HS384', { ...claims, iat: now, exp: now + 600 }, secret))).statusCode).toBe(403);
    expect((await me(`${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...claims, exp: now + 600 })}.`)).statusCode).toBe(403);
    // A token of a user that never existed (or with another token version) is refused too.
    expect((await me(handToken('HS256', { ...claims, id: 999999, iat: now, exp: now + 600 }, secret))).statusCode).toBe(403);
    expect((await me(handToken('HS256', { ...claims, tv: 3, iat: now, exp: now + 600 }, secret))).statusCode).toBe(403);
  });

  test('sockets: an expired token is refused; a socket is disconnected when its token expires, unless renewed', async () => {
    const secret = String(k.config.jwtSecret);
    const claims = { id: k.superAdmin.id, companyId: 1, profile: 'admin', super: true, tv: 0 };
    const now = Math.floor(Date.now() / 1000);
    await expect(connect(handToken('HS256', { ...claims, iat: now - 100, exp: now - 10 }, secret))).rejects.toThrow('ERR_INVALID_TOKEN');
    await expect(connect(handToken('HS256', { ...claims, iat: now }, secret))).rejects.toThrow('ERR_INVALID_TOKEN');

    const short = await connect(handToken('HS256', { ...claims, iat: now, exp: now + 2 }, secret));
    // Watched at once: on a busy machine the steps below can outlast the token's 2 s.
    const shortWatch = watch(short);
    const renewed = await connect(handToken('HS256', { ...claims, iat: now, exp: now + 2 }, secret));
    const ack = await renewed.timeout(1000).emitWithAck('renewToken', handToken('HS256', { ...claims, iat: now, exp: now + 60 }, secret));
    expect(ack).toEqual({ ok: true });
    // Another user's token does not renew a socket.
    const stranger = await k.createUser(1);
    expect(await renewed.timeout(1000).emitWithAck('renewToken', stranger.token)).toEqual({ ok: false, error: 'ERR_INVALID_TOKEN' });
    expect(await disconnected(shortWatch, 4000)).toBe('io server disconnect');
    await new Promise((r) => setTimeout(r, 300));
    expect(renewed.connected).toBe(true);
  });
});

/** Revocation on another node: needs RabbitMQ (the in-process bus is private to a kernel). */
const describeAmqp = process.env.AMQP_URL ? describe : describe.skip;
describeAmqp('revocation across two kernels (AMQP_URL)', () => {
  const dbName = `t_revoke_${process.pid}_${Date.now().toString(36)}`;
  const env = { JWT_SECRET: randomBytes(32).toString('hex'), JWT_REFRESH_SECRET: randomBytes(32).toString('hex') };
  let k1: TestKernel;
  let k2: TestKernel;
  afterAll(async () => {
    await k2?.close();
    await k1?.close();
    await dropDatabase(withDb(process.env.ATENDO_TEST_PG_BASE!, dbName));
  });

  test('a logout on node 1 is refused on node 2 within a second (node 2 had the session cached)', async () => {
    k1 = await createTestKernel({ dbName, env });
    k2 = await createTestKernel({ dbName, env });
    const { companyId } = await k1.createCompany();
    const u: TestUser = await k1.createUser(companyId);
    const login = await k1.app.inject({ method: 'POST', url: '/auth/login', payload: { email: u.email, password: u.password } });
    const token = login.json().token as string;
    // Node 2 has checked (and cached) the session.
    expect((await k2.as({ token }, 'GET', '/auth/me')).statusCode).toBe(200);
    await k1.app.inject({ method: 'DELETE', url: '/auth/logout', cookies: { jrt: cookieOf(login) } });
    const t0 = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - t0 < 1000) {
      status = (await k2.as({ token }, 'GET', '/auth/me')).statusCode;
      if (status === 200) await new Promise((r) => setTimeout(r, 20));
    }
    expect(status).toBe(403);
  });
});
