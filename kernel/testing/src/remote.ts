/**
 * The remote test kit: tests of a plugin against a running kernel, over HTTP and socket.io only, from any
 * folder (a third party's package outside the repository installs it from the packed `@atendo/testing`;
 * `npm run pack:sdk`). The kernel is any Atendo API with the plugin installed: `npm start` in a checkout,
 * `NODE_ENV=production npm start` after `npm run build`, or a staging host. Unlike `createTestKernel`
 * (index.ts: an in-process kernel on a throw-away database, inside a checkout), it needs none of the
 * kernel's code: a company per test keeps tests apart on a shared kernel.
 *
 * ```ts
 * const k = await connectKernel(process.env.ATENDO_URL!, { email: process.env.ATENDO_ADMIN_EMAIL!, password: process.env.ATENDO_ADMIN_PASSWORD! });
 * const a = await k.createCompany();                          // a plan, a company and its admin, signed in
 * (await k.as(null, 'GET', '/my-plugin/things')).statusCode;  // 401: no token
 * (await k.as(a.admin, 'POST', '/my-plugin/things', { title: 'x' })).json();
 * ```
 */
import { randomBytes } from 'node:crypto';
import { io as ioClient, type Socket } from 'socket.io-client';
import { PLAN_FEATURES, type PlanFeature } from '@atendo/sdk/wire';

export { collectEvents, nextEvent, waitFor } from './wait';
export { Fake, Graph, type Answer, type Hit } from './stand-ins';

/** A signed-in user of the remote kernel: its access token is sent as `Authorization: Bearer`. */
export interface RemoteUser {
  id: number;
  companyId: number;
  profile: 'admin' | 'user' | 'supervisor';
  super: boolean;
  email: string;
  password: string;
  token: string;
}

/** An HTTP answer, shaped as `app.inject`'s (light-my-request) so tests read the same in both kits. */
export interface RemoteAnswer {
  statusCode: number;
  headers: Record<string, string>;
  /** The body as text. */
  body: string;
  /** The body parsed as JSON (throws when it is not JSON). */
  json<T = any>(): T; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface RemoteKernel {
  /** The API's base URL (no trailing slash). */
  url: string;
  /** The super admin the kit signed in as (company 1). */
  superAdmin: RemoteUser;
  /** A request with `user`'s bearer token (`null`: none); a JSON `payload` is sent as JSON. */
  as(user: { token: string } | null, method: string, path: string, payload?: unknown, headers?: Record<string, string>): Promise<RemoteAnswer>;
  /** Signs in through `POST /auth/login`. */
  login(email: string, password: string): Promise<RemoteUser>;
  /**
   * A new plan (every feature on unless listed in `without`), a company on it and its admin, signed in:
   * `POST /plans` and `POST /companies` as the super admin.
   */
  createCompany(opts?: { name?: string; without?: PlanFeature[] }): Promise<{ companyId: number; planId: number; admin: RemoteUser }>;
  /** A user of `admin`'s company (`POST /users` as that admin), signed in. */
  createUser(admin: RemoteUser, opts?: { profile?: 'admin' | 'user' | 'supervisor'; name?: string }): Promise<RemoteUser>;
  /** A connected socket.io client (rejects with the server's connect_error). */
  socket(token: string | undefined): Promise<Socket>;
}

const unique = () => `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;

/**
 * Connects to the kernel at `url` as its super admin (the first-start admin: ADMIN_EMAIL and
 * ADMIN_PASSWORD of that kernel). Rejects when the kernel does not answer or refuses the credentials.
 */
export async function connectKernel(url: string, admin: { email: string; password: string }): Promise<RemoteKernel> {
  const base = url.replace(/\/+$/, '');
  const as: RemoteKernel['as'] = async (user, method, path, payload, headers = {}) => {
    const hasBody = payload !== undefined;
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...(user ? { authorization: `Bearer ${user.token}` } : {}), ...headers },
      body: hasBody ? JSON.stringify(payload) : undefined,
    });
    const body = await res.text();
    return { statusCode: res.status, headers: Object.fromEntries(res.headers), body, json: () => JSON.parse(body) };
  };
  const ok = <T>(res: RemoteAnswer, what: string): T => {
    if (res.statusCode >= 300) throw new Error(`${what}: ${res.statusCode} ${res.body}`);
    return res.json<T>();
  };
  const login: RemoteKernel['login'] = async (email, password) => {
    const answer = ok<{ token: string; user: { id: number; companyId: number; profile: RemoteUser['profile']; super?: boolean } }>(
      await as(null, 'POST', '/auth/login', { email, password }),
      `POST /auth/login as ${email}`,
    );
    const u = answer.user;
    return { id: u.id, companyId: u.companyId, profile: u.profile, super: Boolean(u.super), email, password, token: answer.token };
  };
  const superAdmin = await login(admin.email, admin.password);
  if (!superAdmin.super) throw new Error(`${admin.email} is not a super admin: the remote kit creates companies as the super admin`);

  return {
    url: base,
    superAdmin,
    as,
    login,
    createCompany: async (opts = {}) => {
      const n = unique();
      const flags: Record<string, boolean> = {};
      for (const f of PLAN_FEATURES) flags[f] = !(opts.without ?? []).includes(f);
      const plan = ok<{ id: number }>(
        await as(superAdmin, 'POST', '/plans', { name: `Plan ${n}`, users: 50, connections: 10, queues: 20, amount: 10, isPublic: false, ...flags }),
        'POST /plans',
      );
      const email = `admin-${n}@example.com`;
      const password = `pw-${randomBytes(6).toString('hex')}`;
      const company = ok<{ id: number }>(
        await as(superAdmin, 'POST', '/companies', { name: opts.name ?? `Company ${n}`, email, password, planId: plan.id, dueDate: '2999-01-01', recurrence: 'MONTHLY' }),
        'POST /companies',
      );
      return { companyId: company.id, planId: plan.id, admin: await login(email, password) };
    },
    createUser: async (companyAdmin, opts = {}) => {
      const n = unique();
      const email = `user-${n}@example.com`;
      const password = `pw-${randomBytes(6).toString('hex')}`;
      ok(await as(companyAdmin, 'POST', '/users', { name: opts.name ?? `User ${n}`, email, password, profile: opts.profile ?? 'user' }), 'POST /users');
      return login(email, password);
    },
    socket: (token) =>
      new Promise((resolve, reject) => {
        const s = ioClient(base, { transports: ['websocket'], auth: token ? { token } : {}, reconnection: false, forceNew: true });
        s.on('connect', () => resolve(s));
        s.on('connect_error', (err) => {
          s.close();
          reject(err);
        });
      }),
  };
}
