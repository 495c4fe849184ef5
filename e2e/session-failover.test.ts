/**
 * Issue 33 item 4: a WhatsApp (Baileys) session moves to another node when its node dies.
 *
 * Two kernel processes (the sessions and the ticket pipeline; e2e/support/baileys-node.ts) share one
 * PostgreSQL database and one RabbitMQ exchange; their whatsapp-sessions plugin talks to a Baileys stand-in
 * run by this test (e2e/support/baileys-stand-in.ts) instead of WhatsApp, with short lease timings
 * (WHATSAPP_SESSIONS_LEASE_TTL_MS 3 s, RENEW 1 s, SCAN 1 s). A connection is created, its QR code scanned on
 * the stand-in, and it connects on whichever node took its lease. That node is killed with SIGKILL: the
 * other node must take the lease over (epoch 2) and open the session within 30 s, logging in with the
 * credentials stored in PostgreSQL (the stand-in never shows a second QR code), and a customer's message sent
 * through the stand-in afterwards must land in the database through the surviving node.
 *
 * Needs RabbitMQ: runs when AMQP_URL is set, otherwise it is skipped with a message saying so.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { freePort } from '../shell/test/harness';
import { BaileysStandIn } from './support/baileys-stand-in';
import { cleanEnv, migratedDatabase, startNode, waitForUrl, type NodeProcess } from './support/processes';

const ROOT = resolve(__dirname, '..');
const AMQP_URL = process.env.AMQP_URL;
if (!AMQP_URL) console.warn('e2e/session-failover.test.ts skipped: AMQP_URL is not set (two kernel nodes need RabbitMQ)');
const describeWithBroker = AMQP_URL ? describe : describe.skip;

jest.setTimeout(240_000);

const PASSWORD = `failover-${randomBytes(6).toString('hex')}`;
/** Longest a dead node's session may take to move (issue 33: 30 s). */
const TAKEOVER_LIMIT_MS = 30_000;

async function until<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs: number, detail?: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await check();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}${detail ? `\n${detail()}` : ''}`);
}

describeWithBroker('a Baileys session moves to the other node after a kill -9 of its node', () => {
  const standIn = new BaileysStandIn();
  let db: { url: string; drop(): Promise<void> };
  let sql: Knex;
  const ports = { a: 0, b: 0 };
  const nodes: Record<'a' | 'b', NodeProcess | undefined> = { a: undefined, b: undefined };
  const dataDirs: string[] = [];
  let env: Record<string, string | undefined>;
  const base = (n: 'a' | 'b') => `http://127.0.0.1:${ports[n]}`;
  const output = () => [nodes.a, nodes.b].map((n) => n?.output().split('\n').slice(-30).join('\n') ?? '').join('\n');

  const start = (n: 'a' | 'b') => {
    const dataDir = `/tmp/atendo-failover-${n}-${randomBytes(4).toString('hex')}`;
    dataDirs.push(dataDir);
    // One process (no tsx CLI wrapper): SIGKILL must take the kernel itself.
    return startNode(`node-${n}`, ['--import', 'tsx', 'e2e/support/baileys-node.ts'], { cwd: ROOT, env: { ...env, PORT: String(ports[n]), DATA_DIR: dataDir } });
  };

  beforeAll(async () => {
    await standIn.start();
    // Cloned from the run's migrated template: the nodes boot without running migrations.
    db = await migratedDatabase('atendo_failover');
    sql = knexFactory({ client: 'pg', connection: db.url, pool: { min: 0, max: 2 } });
    ports.a = await freePort();
    ports.b = await freePort();
    env = cleanEnv({
      NODE_ENV: 'development',
      DATABASE_URL: db.url,
      AMQP_URL,
      AMQP_EXCHANGE: `atendo.failover.${randomBytes(3).toString('hex')}`,
      HOST: '127.0.0.1',
      JWT_SECRET: randomBytes(32).toString('hex'),
      JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
      ADMIN_EMAIL: 'owner@example.com',
      ADMIN_PASSWORD: PASSWORD,
      SEED_DEMO: 'false',
      BAILEYS_STAND_IN: standIn.address,
      WHATSAPP_SESSIONS_AUTOSTART: 'true',
      WHATSAPP_SESSIONS_LEASE_TTL_MS: '3000',
      WHATSAPP_SESSIONS_LEASE_RENEW_MS: '1000',
      WHATSAPP_SESSIONS_LEASE_SCAN_MS: '1000',
      WHATSAPP_SESSIONS_PROBE_INTERVAL_MS: '1000',
      WHATSAPP_SESSIONS_PROBE_TIMEOUT_MS: '1000',
      LOG_LEVEL: 'warn',
      SHUTDOWN_GRACE_MS: '3000',
    });
    // Both at once: the database has no migration to run (knex takes its migration lock inside a transaction,
    // so two nodes wait for each other instead of failing), and the first-start seed is serialised.
    nodes.a = start('a');
    nodes.b = start('b');
    await Promise.all([waitForUrl(`${base('a')}/ready`, nodes.a, 180_000), waitForUrl(`${base('b')}/ready`, nodes.b, 180_000)]);
  }, 400_000);

  afterAll(async () => {
    await Promise.all([nodes.a, nodes.b].map((n) => n?.stop('SIGTERM', 10_000).catch(() => undefined)));
    await standIn.stop();
    await sql?.destroy();
    await db?.drop().catch(() => undefined);
    for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
  });

  test('the lease moves (epoch 2) and the session opens on the survivor within 30 s, on the auth state stored in PostgreSQL', async () => {
    const call = async (n: 'a' | 'b', token: string | null, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base(n)}${path}`, { method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${method} ${path} -> ${res.status} ${text}`);
      return JSON.parse(text) as Record<string, unknown>;
    };
    const token = (await call('a', null, 'POST', '/auth/login', { email: 'owner@example.com', password: PASSWORD })).token as string;
    // A new WhatsApp connection: with autostart on, the node that takes its lease starts it; the stand-in shows a QR code.
    const id = (await call('a', token, 'POST', '/whatsapp', { name: 'Loja', channel: 'whatsapp' })).id as number;
    await until('the QR code', () => standIn.qrs.some((q) => q.connectionId === id), 30_000, output);
    await until('status qrcode', async () => (await call('a', token, 'GET', `/whatsapp/${id}`)).status === 'qrcode', 10_000, output);
    standIn.scan(id);
    await until('CONNECTED', async () => (await call('b', token, 'GET', `/whatsapp/${id}`)).status === 'CONNECTED', 10_000, output);
    // Paired: the credentials are in PostgreSQL (never on a node's disk).
    await until('stored credentials', async () => {
      const row = await sql('baileys_auth').where({ connection_id: id, key_type: 'creds' }).first('value');
      return row && (JSON.parse(row.value) as { registered?: boolean }).registered === true;
    }, 10_000);
    const first = standIn.live(id)!;
    const lease = await sql('whatsapp_session_leases').where({ connection_id: id }).first();
    expect(Number(lease.epoch)).toBe(1);
    const owner: 'a' | 'b' = String(nodes.a!.proc.pid) === first.node ? 'a' : 'b';
    const survivor: 'a' | 'b' = owner === 'a' ? 'b' : 'a';
    expect(String(lease.node_id)).toContain(`:${nodes[owner]!.proc.pid}:`);

    // kill -9 of the session's node.
    const killedAt = Date.now();
    nodes[owner]!.proc.kill('SIGKILL');
    await nodes[owner]!.exited;
    const moved = await until('the session on the other node', () => {
      const p = standIn.live(id);
      return p && p.node === String(nodes[survivor]!.proc.pid) && p.openedAt ? p : undefined;
    }, TAKEOVER_LIMIT_MS + 5_000, output);
    const tookMs = moved.openedAt! - killedAt;
    console.log(`session moved to node ${survivor} ${tookMs} ms after the kill -9 (lease ttl 3 s, scan 1 s)`);
    expect(tookMs).toBeLessThan(TAKEOVER_LIMIT_MS);
    // Logged in with the stored credentials: no second QR code.
    expect(moved.registered).toBe(true);
    expect(standIn.qrs.filter((q) => q.connectionId === id)).toHaveLength(1);
    await until('CONNECTED on the survivor', async () => (await call(survivor, token, 'GET', `/whatsapp/${id}`)).status === 'CONNECTED', 10_000, output);
    const after = await sql('whatsapp_session_leases').where({ connection_id: id }).first();
    expect(Number(after.epoch)).toBe(2);
    expect(String(after.node_id)).toContain(`:${nodes[survivor]!.proc.pid}:`);
    expect(new Date(after.expires_at).getTime()).toBeGreaterThan(Date.now());

    // The session works on its new node: a customer's message lands in the database.
    const text = `oi depois da troca ${randomBytes(3).toString('hex')}`;
    standIn.deliver(id, '5511966665555', `IN${randomBytes(6).toString('hex').toUpperCase()}`, text);
    await until('the message stored', async () => Boolean(await sql('messages').where({ body: text }).first('id')), 15_000, output);
    // Nobody opened a third socket: one session at a time.
    expect(standIn.peers.filter((p) => p.connectionId === id && !p.closed)).toHaveLength(1);
  });
});
