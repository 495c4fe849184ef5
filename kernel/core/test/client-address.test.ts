import { createTestKernel, type TestKernel } from '@atendo/testing';
import { loadConfig, parseTrustProxy } from '../src/config';
import { DOCS_CSP } from '../src/app';

/**
 * Security issue items 1, 6 (sign-up) and 9: the client address cannot be spoofed through X-Forwarded-For
 * unless TRUST_PROXY says which proxies to believe; address-keyed limits are counted in PostgreSQL, so every
 * node shares one allowance; 429 carries Retry-After; sign-up answers one code for a taken e-mail or name;
 * /docs has its own Content-Security-Policy.
 */
describe('client address and shared limits', () => {
  let k: TestKernel;
  beforeAll(async () => {
    k = await createTestKernel({ env: { LOGIN_RATE_LIMIT: '3', LOGIN_IP_RATE_LIMIT: '5', SIGNUP_RATE_LIMIT: '2' } });
  });
  afterAll(() => k.close());

  const login = (email: string, password: string, xff: string) =>
    k.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password }, headers: { 'x-forwarded-for': xff }, remoteAddress: '203.0.113.7' });

  test('TRUST_PROXY is off by default: a new X-Forwarded-For per request does not reset the failed-login lockout', async () => {
    const u = await k.createUser(1, { email: 'spoof-lockout@example.com' });
    for (let i = 0; i < 3; i++) expect((await login(u.email, 'wrong-password', `198.51.100.${i}`)).statusCode).toBe(401);
    const blocked = await login(u.email, u.password, '198.51.100.99');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error).toBe('ERR_TOO_MANY_REQUESTS');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    // The request log and the sessions see the real peer, not the header.
    const ok = await k.app.inject({ method: 'POST', url: '/auth/login', payload: { email: u.email, password: u.password }, headers: { 'x-forwarded-for': '198.51.100.5' }, remoteAddress: '203.0.113.8' });
    expect(ok.statusCode).toBe(200);
    expect(await k.db('authSessions').where({ userId: u.id }).first('ip')).toEqual({ ip: '203.0.113.8' });
  });

  test('every login attempt counts against the address (all e-mails together), spoofed header or not; 429 with Retry-After', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await k.app.inject({ method: 'POST', url: '/auth/login', payload: { email: `spray${i}@example.com`, password: 'x' }, headers: { 'x-forwarded-for': `192.0.2.${i}` }, remoteAddress: '203.0.113.9' });
      codes.push(res.statusCode);
      if (res.statusCode === 429) {
        expect(res.json().error).toBe('ERR_TOO_MANY_REQUESTS');
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
        expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
      }
    }
    expect(codes).toEqual([401, 401, 401, 401, 401, 429, 429]);
    // Counted in the shared table, keyed by the peer address.
    const rows = await k.db('rateLimits').where('key', 'like', 'rl:POST /auth/login|%').select('key', 'count');
    expect(rows.filter((r) => r.key.includes('192.0.2.'))).toEqual([]);
    expect(rows.find((r) => r.key === 'rl:POST /auth/login|203.0.113.9')).toEqual({ key: 'rl:POST /auth/login|203.0.113.9', count: 7 });
  });

  test('sign-up answers one code for a taken e-mail and for a taken company name', async () => {
    const plan = await k.db('plans').where({ isPublic: true }).first('id');
    const signup = (body: Record<string, unknown>, ip: string) => k.app.inject({ method: 'POST', url: '/auth/signup', payload: { name: 'Maria', password: 'segredo1', planId: plan.id, ...body }, remoteAddress: ip });
    const taken = await k.createCompany({ name: 'Padaria Tomada' });
    const byEmail = await signup({ companyName: 'Nova Padaria', email: taken.admin.email.toUpperCase() }, '203.0.113.20');
    const byName = await signup({ companyName: 'padaria tomada', email: 'new-owner@example.com' }, '203.0.113.21');
    for (const res of [byEmail, byName]) {
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ error: 'ERR_SIGNUP_REFUSED', message: expect.any(String) });
    }
    expect(byEmail.body).toBe(byName.body);
  });

  test('TRUST_PROXY parsing: off, hop counts and address lists; `true` and garbage refused', () => {
    expect(parseTrustProxy(undefined)).toBe(false);
    expect(parseTrustProxy('false')).toBe(false);
    expect(parseTrustProxy('0')).toBe(false);
    expect(parseTrustProxy('1')).toBe(1);
    expect(parseTrustProxy('10.0.0.0/8, 127.0.0.1,::1,fd00::/8,loopback')).toEqual(['10.0.0.0/8', '127.0.0.1', '::1', 'fd00::/8', 'loopback']);
    expect(() => parseTrustProxy('true')).toThrow(/TRUST_PROXY/);
    expect(() => parseTrustProxy('10.0.0.0/33')).toThrow(/TRUST_PROXY/);
    expect(() => parseTrustProxy('proxy.example.com')).toThrow(/TRUST_PROXY/);
    expect(loadConfig({ DATA_DIR: k.config.dataDir, TRUST_PROXY: '2' }).trustProxy).toBe(2);
  });

  test('/docs has its own Content-Security-Policy; the API answers nosniff', async () => {
    const docs = await k.app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-security-policy']).toBe(DOCS_CSP);
    expect(DOCS_CSP).toContain("script-src 'self'");
    expect(DOCS_CSP).toContain("frame-ancestors 'none'");
    expect(DOCS_CSP).not.toContain('unsafe-eval');
    const asset = await k.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(asset.headers['content-security-policy']).toBe(DOCS_CSP);
    const api = await k.app.inject({ method: 'GET', url: '/health' });
    expect(api.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('TRUST_PROXY set: the proxy-given address is used', () => {
  let k: TestKernel;
  beforeAll(async () => {
    k = await createTestKernel({ env: { TRUST_PROXY: '1', LOGIN_IP_RATE_LIMIT: '2' } });
  });
  afterAll(() => k.close());

  test('one trusted hop: the address the proxy appended keys the limit, whatever the client put before it', async () => {
    const attempt = (xff: string) =>
      k.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'x@example.com', password: 'x' }, headers: { 'x-forwarded-for': xff }, remoteAddress: '10.0.0.2' });
    // Client A spoofs a different first value each time; the proxy appends its real address 198.51.100.1.
    expect((await attempt('1.1.1.1, 198.51.100.1')).statusCode).toBe(401);
    expect((await attempt('2.2.2.2, 198.51.100.1')).statusCode).toBe(401);
    expect((await attempt('3.3.3.3, 198.51.100.1')).statusCode).toBe(429);
    // Client B (another real address) has its own allowance.
    expect((await attempt('198.51.100.2')).statusCode).toBe(401);
  });
});

describe('address limits are shared by every node', () => {
  let a: TestKernel;
  let b: TestKernel;
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  test('two kernels on one database share the sign-up allowance of an address', async () => {
    a = await createTestKernel({ env: { SIGNUP_RATE_LIMIT: '2' } });
    b = await createTestKernel({ dbName: a.dbName, env: { SIGNUP_RATE_LIMIT: '2' } });
    const plan = await a.db('plans').where({ isPublic: true }).first('id');
    const signup = (k: TestKernel, n: number) =>
      k.app.inject({ method: 'POST', url: '/auth/signup', payload: { companyName: `Shared Limit ${n}`, name: 'Owner', email: `shared-limit-${n}@example.com`, password: 'segredo1', planId: plan.id }, remoteAddress: '203.0.113.50' });
    expect((await signup(a, 1)).statusCode).toBe(201);
    expect((await signup(b, 2)).statusCode).toBe(201);
    const third = await signup(a, 3);
    expect(third.statusCode).toBe(429);
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    expect((await signup(b, 4)).statusCode).toBe(429);
    // Another address is not affected.
    const other = await b.app.inject({ method: 'POST', url: '/auth/signup', payload: { companyName: 'Shared Limit 5', name: 'Owner', email: 'shared-limit-5@example.com', password: 'segredo1', planId: plan.id }, remoteAddress: '203.0.113.51' });
    expect(other.statusCode).toBe(201);
  });
});
