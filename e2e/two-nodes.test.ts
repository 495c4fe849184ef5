/**
 * Two kernel nodes on one RabbitMQ and one PostgreSQL (issue 19, item 6: the topology of
 * deploy/compose.yaml, natively): two processes of the compiled kernel (`npm run build`, NODE_ENV=production)
 * share DATABASE_URL, AMQP_URL, the bus exchange and the JWT secrets. The admin signs in through node A and
 * listens on a socket of node A; customers write in through node B (signed WhatsApp Cloud webhooks), and
 * their messages reach node A's socket. Then, under load (webhooks spread over the nodes like a load
 * balancer would, a request refused by a node that is going away retried on the other), node B is stopped
 * (SIGTERM: graceful) and started again: every message is stored exactly once and reaches the socket exactly
 * once.
 *
 * Needs RabbitMQ: runs when AMQP_URL is set (CI starts RabbitMQ and sets it), otherwise it is skipped with
 * a message saying so. The database is an empty one on the test run's PostgreSQL server (DATABASE_URL's
 * when set), migrated by node A at boot.
 */
import { execFileSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { io as ioClient, type Socket } from 'socket.io-client';
import knexFactory, { type Knex } from 'knex';
import { freePort } from '../shell/test/harness';
import { cleanEnv, emptyDatabase, startNode, waitForUrl, type NodeProcess } from './support/processes';

const ROOT = resolve(__dirname, '..');
const AMQP_URL = process.env.AMQP_URL;
if (!AMQP_URL) console.warn('e2e/two-nodes.test.ts skipped: AMQP_URL is not set (two kernel nodes need RabbitMQ; .ci/run starts it and sets AMQP_URL)');
const describeWithBroker = AMQP_URL ? describe : describe.skip;

jest.setTimeout(300_000);

const SECRET = randomBytes(16).toString('hex');
const PHONE_ID = String(300000000000000 + Math.floor(Math.random() * 1e9));
const PASSWORD = `two-nodes-${randomBytes(6).toString('hex')}`;

/** A WhatsApp Cloud webhook body with one text message, as Meta posts it. */
function webhookBody(wid: string, from: string, text: string): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: PHONE_ID },
              contacts: [{ profile: { name: `Cliente ${from.slice(-4)}` }, wa_id: from }],
              messages: [{ from, id: wid, timestamp: String(Math.floor(Date.now() / 1000)), text: { body: text }, type: 'text' }],
            },
            field: 'messages',
          },
        ],
      },
    ],
  });
}

const sign = (body: string) => `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;

describeWithBroker('two kernel nodes on one RabbitMQ and one PostgreSQL', () => {
  let db: { url: string; drop(): Promise<void> };
  let sql: Knex;
  let dataDir: string;
  let env: Record<string, string | undefined>;
  const ports = { a: 0, b: 0 };
  const nodes: { a?: NodeProcess; b?: NodeProcess } = {};
  let socket: Socket | undefined;
  let token: string;
  let companyId: number;
  /** Every message event node A's socket received: wid -> times. */
  const seen = new Map<string, number>();

  const base = (n: 'a' | 'b') => `http://127.0.0.1:${ports[n]}`;
  const start = (n: 'a' | 'b') => startNode(`node-${n}`, ['kernel/core/dist/src/main.js'], { cwd: ROOT, env: { ...env, PORT: String(ports[n]) } });

  beforeAll(async () => {
    execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--server-only'], { cwd: ROOT, stdio: 'pipe' });
    db = await emptyDatabase('atendo_two');
    sql = knexFactory({ client: 'pg', connection: db.url, pool: { min: 0, max: 2 } });
    dataDir = mkdtempSync(join(tmpdir(), 'atendo-two-nodes-'));
    ports.a = await freePort();
    ports.b = await freePort();
    env = cleanEnv({
      NODE_ENV: 'production',
      DATABASE_URL: db.url,
      AMQP_URL,
      AMQP_EXCHANGE: `atendo.two.${randomBytes(3).toString('hex')}`,
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      JWT_SECRET: randomBytes(32).toString('hex'),
      JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
      ADMIN_EMAIL: 'owner@example.com',
      ADMIN_PASSWORD: PASSWORD,
      META_APP_SECRET: SECRET,
      META_VERIFY_TOKEN: 'verify-two-nodes',
      WHATSAPP_SESSIONS_AUTOSTART: 'false',
      LOG_LEVEL: 'warn',
      SHUTDOWN_GRACE_MS: '15000',
    });
    // Node A first: it runs the migrations; then node B on the migrated database.
    nodes.a = start('a');
    await waitForUrl(`${base('a')}/ready`, nodes.a, 120_000);
    nodes.b = start('b');
    await waitForUrl(`${base('b')}/ready`, nodes.b, 120_000);

    // Sign in through node A; the WhatsApp Cloud connection is created there too.
    const login = await fetch(`${base('a')}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@example.com', password: PASSWORD }) });
    expect(login.status).toBe(200);
    const answer = (await login.json()) as { token: string; user: { companyId: number } };
    token = answer.token;
    companyId = answer.user.companyId;
    const conn = await fetch(`${base('a')}/whatsapp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'Cloud', channel: 'whatsappapi', facebookPageUserId: PHONE_ID, facebookUserToken: 'EAAG-two-nodes' }),
    });
    expect(conn.status).toBe(200);

    socket = ioClient(base('a'), { transports: ['websocket'], auth: { token }, reconnection: false, forceNew: true });
    await new Promise<void>((ok, fail) => {
      socket!.once('connect', () => ok());
      socket!.once('connect_error', fail);
    });
    socket.on(`company-${companyId}-appMessage`, (p: { action?: string; message?: { wid?: string } }) => {
      if (p.action === 'create' && p.message?.wid) seen.set(p.message.wid, (seen.get(p.message.wid) ?? 0) + 1);
    });
  }, 300_000);

  afterAll(async () => {
    socket?.disconnect();
    for (const n of [nodes.a, nodes.b]) await n?.stop('SIGTERM').catch(() => undefined);
    await sql?.destroy();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** Posts one message's webhook to `node`; true when accepted (200). */
  async function post(node: 'a' | 'b', wid: string, from: string): Promise<boolean> {
    const body = webhookBody(wid, from, `msg ${wid}`);
    try {
      const res = await fetch(`${base(node)}/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(body) }, body, signal: AbortSignal.timeout(10_000) });
      return res.status === 200;
    } catch {
      return false;
    }
  }

  async function waitUntil(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  test('a message written in through node B reaches the socket of node A', async () => {
    const wid = `wamid.TWO${randomBytes(6).toString('hex').toUpperCase()}`;
    expect(await post('b', wid, '5511900000001')).toBe(true);
    await waitUntil(() => seen.get(wid) === 1, 20_000, 'the event on node A');
    const rows = await sql('messages').where({ wid }).count({ n: '*' });
    expect(Number(rows[0].n)).toBe(1);
  });

  test('under load, node B stopped and started: nothing lost, nothing duplicated', async () => {
    const sent: string[] = [];
    let phase: 'both' | 'a-only' = 'both';
    let refusedByB = 0;
    let running = true;
    let seq = 0;
    // 8 senders, each: next message to the next node (round robin), retried on the other node when refused.
    const sender = async (slot: number) => {
      while (running) {
        const wid = `wamid.LOAD${slot}X${(seq++).toString(36).toUpperCase()}${randomBytes(3).toString('hex').toUpperCase()}`;
        const from = String(5511910000000 + (seq % 200));
        sent.push(wid);
        const first: 'a' | 'b' = phase === 'a-only' || seq % 2 === 0 ? 'a' : 'b';
        let ok = await post(first, wid, from);
        if (!ok && first === 'b') refusedByB++;
        for (let i = 0; !ok && i < 20; i++) {
          await new Promise((r) => setTimeout(r, 100));
          ok = await post(i % 2 === 0 ? 'a' : first, wid, from);
        }
        if (!ok) throw new Error(`webhook ${wid} never accepted`);
      }
    };
    const t0 = Date.now();
    const senders = Array.from({ length: 8 }, (_, i) => sender(i));

    await new Promise((r) => setTimeout(r, 3000));
    // Node B goes away gracefully while requests and bus deliveries are in flight.
    const stopping = nodes.b!.stop('SIGTERM', 30_000);
    phase = 'a-only';
    expect(await stopping).toBe(0);
    await new Promise((r) => setTimeout(r, 2000));
    // ...and comes back, taking its share again.
    nodes.b = start('b');
    await waitForUrl(`${base('b')}/ready`, nodes.b, 120_000);
    phase = 'both';
    await new Promise((r) => setTimeout(r, 3000));
    running = false;
    await Promise.all(senders);

    const want = new Set(sent);
    expect(want.size).toBe(sent.length);
    await waitUntil(() => [...want].every((w) => seen.has(w)), 60_000, `every event on node A (${[...want].filter((w) => seen.has(w)).length}/${want.size})`);
    const rows = (await sql('messages').whereIn('wid', [...want]).select('wid')) as { wid: string }[];
    const perWid = new Map<string, number>();
    for (const r of rows) perWid.set(r.wid, (perWid.get(r.wid) ?? 0) + 1);
    const lost = [...want].filter((w) => !perWid.has(w));
    const duplicatedRows = [...perWid].filter(([, n]) => n > 1).map(([w]) => w);
    const duplicatedEvents = [...want].filter((w) => (seen.get(w) ?? 0) > 1);
    console.log(`two nodes: ${want.size} messages in ${((Date.now() - t0) / 1000).toFixed(0)} s with node B stopped and restarted; ${refusedByB} posts to B refused and retried on A; lost ${lost.length}, duplicated rows ${duplicatedRows.length}, duplicated events ${duplicatedEvents.length}`);
    expect({ lost, duplicatedRows, duplicatedEvents }).toEqual({ lost: [], duplicatedRows: [], duplicatedEvents: [] });
    expect(want.size).toBeGreaterThan(100);
  });
});
