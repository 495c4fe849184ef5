import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { io as ioClient, type Socket } from 'socket.io-client';
import type { AuthUser, PlanFeature, PluginDefinition } from '@atendo/sdk';
import { buildKernel, type Kernel } from '@atendo/core/src/app';
import { dropDatabase, ensureDatabase } from '@atendo/core/src/db';
import { hashPassword } from '@atendo/core/src/identity/service';
import { signAccess } from '@atendo/core/src/plugins/auth';
import { withDb } from './global-setup';

export const TEST_ADMIN_EMAIL = 'admin@example.com';
export const TEST_ADMIN_PASSWORD = 'test-admin-password';

export interface TestUser extends AuthUser {
  email: string;
  password: string;
  token: string;
}

export interface TestKernel extends Kernel {
  dbName: string;
  /** The seeded super admin of company 1. */
  superAdmin: TestUser;
  /** `app.inject` with a bearer token. */
  as(user: { token: string } | null, method: string, url: string, payload?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** Creates a company with its own plan (every feature on unless listed in `without`). */
  createCompany(opts?: { name?: string; without?: PlanFeature[]; limits?: { users?: number; connections?: number; queues?: number } }): Promise<{ companyId: number; planId: number; admin: TestUser }>;
  createUser(companyId: number, opts?: { profile?: 'admin' | 'user' | 'supervisor'; super?: boolean; name?: string; email?: string }): Promise<TestUser>;
  tokenFor(user: AuthUser): string;
  /** Starts listening on a random port (for sockets) and returns the base URL. */
  listen(): Promise<string>;
  /** A connected socket.io client (rejects with the server's connect_error). */
  socket(token: string | undefined, baseUrl: string): Promise<Socket>;
}

let counter = 0;

/**
 * A kernel on a fresh database cloned from the run's migrated template (see global-setup), seeded with
 * company 1 and its super admin, logging off, secrets random. Uses RabbitMQ when AMQP_URL is set (with
 * an exchange private to this database, so kernels of one test can share it and others cannot).
 * `close()` also drops the database.
 */
export async function createTestKernel(opts: { plugins?: PluginDefinition[] | 'discover'; env?: Record<string, string>; dbName?: string; /** The kernel's log lines (JSON) go here instead of nowhere. */ logStream?: { write(line: string): void } } = {}): Promise<TestKernel> {
  const base = process.env.ATENDO_TEST_PG_BASE;
  const template = process.env.ATENDO_TEST_TEMPLATE;
  if (!base || !template) throw new Error('jest globalSetup (kernel/testing) did not run');
  const shared = Boolean(opts.dbName);
  const dbName = opts.dbName ?? `t_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  const url = withDb(base, dbName);
  await ensureDatabase(url, template);
  const env: Record<string, string | undefined> = {
    NODE_ENV: 'test',
    DATABASE_URL: url,
    AMQP_URL: process.env.AMQP_URL,
    AMQP_EXCHANGE: `atendo.test.${dbName}`,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'atendo-test-data-')),
    JWT_SECRET: randomBytes(32).toString('hex'),
    JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
    ADMIN_EMAIL: TEST_ADMIN_EMAIL,
    ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
    LOG_LEVEL: 'silent',
    FRONTEND_URL: 'http://localhost:3000',
    ...opts.env,
  };
  const kernel = await buildKernel({ env, plugins: opts.plugins ?? [], ...(opts.logStream ? { logStream: opts.logStream } : { logger: false }) });
  const tokenFor = (u: AuthUser) => signAccess(kernel.app, u);
  const superRow = await kernel.db('users').where({ email: TEST_ADMIN_EMAIL }).first();
  const superAdmin: TestUser = { id: superRow.id, companyId: 1, profile: 'admin', super: true, email: TEST_ADMIN_EMAIL, password: TEST_ADMIN_PASSWORD, token: '' };
  superAdmin.token = tokenFor(superAdmin);

  const createUser: TestKernel['createUser'] = async (companyId, o = {}) => {
    const password = 'secret-' + randomBytes(4).toString('hex');
    const email = o.email ?? `u${Date.now().toString(36)}${counter++}@example.com`;
    const [row] = await kernel.db('users')
      .insert({ companyId, name: o.name ?? 'Test User', email, passwordHash: await hashPassword(password), profile: o.profile ?? 'user', super: o.super ?? false })
      .returning('*');
    const user: TestUser = { id: row.id, companyId, profile: row.profile, super: row.super, email, password, token: '' };
    user.token = tokenFor(user);
    return user;
  };

  let listening: string | undefined;
  const tk: TestKernel = {
    ...kernel,
    dbName,
    superAdmin,
    tokenFor,
    createUser,
    as: (user, method, url, payload, headers = {}) =>
      kernel.app.inject({
        method: method as 'GET',
        url,
        payload: payload as never,
        headers: { ...(user ? { authorization: `Bearer ${user.token}` } : {}), ...headers },
      }),
    createCompany: async (o = {}) => {
      const n = counter++;
      const flags: Record<string, boolean> = {};
      for (const f of o.without ?? []) flags[f] = false;
      const [plan] = await kernel.db('plans')
        .insert({ name: `Plan ${dbName} ${n}`, users: o.limits?.users ?? 50, connections: o.limits?.connections ?? 10, queues: o.limits?.queues ?? 20, amount: 10, isPublic: true, ...flags })
        .returning('*');
      const [company] = await kernel.db('companies')
        .insert({ name: o.name ?? `Company ${dbName} ${n}`, email: `c${n}@example.com`, planId: plan.id, status: true, dueDate: '2999-01-01', recurrence: 'MONTHLY' })
        .returning('*');
      const admin = await createUser(company.id, { profile: 'admin' });
      return { companyId: company.id, planId: plan.id, admin };
    },
    listen: async () => {
      if (!listening) listening = await kernel.app.listen({ port: 0, host: '127.0.0.1' });
      return listening;
    },
    socket: (token, baseUrl) =>
      new Promise((resolve, reject) => {
        const s = ioClient(baseUrl, { transports: ['websocket'], auth: token ? { token } : {}, reconnection: false, forceNew: true });
        s.on('connect', () => resolve(s));
        s.on('connect_error', (err) => {
          s.close();
          reject(err);
        });
      }),
    close: async () => {
      await kernel.close();
      rmSync(String(env.DATA_DIR), { recursive: true, force: true });
      if (!shared) await dropDatabase(url);
    },
  };
  return tk;
}

export { collectEvents, nextEvent, waitFor } from './wait';
export { Fake, Graph, type Answer, type Hit } from './stand-ins';
export { postgresBinaries, throwawayPostgres, type ThrowawayPostgres } from './throwaway-pg';
export { connectKernel, type RemoteAnswer, type RemoteKernel, type RemoteUser } from './remote';
