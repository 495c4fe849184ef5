/**
 * Issue 30's fault test: nothing accepted is lost when the process dies during a provider outage, on both buses.
 *
 * A kernel runs as its own process (the TypeScript sources through tsx's loader) on a fresh database, with the WhatsApp
 * Cloud API replaced by a local stand-in that answers every send 503 (`is_transient`) while "down". Attendant
 * replies on several tickets, a schedule that falls due during the outage, a campaign's items and the bot's
 * answers to customers who write in are accepted (200); once each of them
 * was tried and refused at least once, the kernel is killed with SIGKILL. A new kernel starts on the same data, the
 * provider comes back, and every message must reach the provider exactly once (one accepted send per text, none
 * twice). Run on the in-process bus (the default `npm start`) and, when AMQP_URL is set, on RabbitMQ.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { resolve } from 'node:path';
import { freePort } from '../shell/test/harness';
import { cleanEnv, emptyDatabase, startNode, waitForUrl, type NodeProcess } from './support/processes';

jest.setTimeout(600_000);

const ROOT = resolve(__dirname, '..');
const PHONE_ID = String(500000000000000 + Math.floor(Math.random() * 1e9));
const PASSWORD = `outbox-${randomBytes(6).toString('hex')}`;
const APP_SECRET = 'secret-outbox';
const GREETING = 'Olá! Escolha um departamento';

/** A signed WhatsApp Cloud webhook: `from` writes `text` to the connection's number. */
function inbound(from: string, text: string): { body: string; signature: string } {
  const body = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [{ id: '102290129340398', changes: [{ field: 'messages', value: {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: '15550783881', phone_number_id: PHONE_ID },
      contacts: [{ profile: { name: `Cliente ${from.slice(-3)}` }, wa_id: from }],
      messages: [{ from, id: `wamid.IN${randomBytes(6).toString('hex')}`, timestamp: String(Math.floor(Date.now() / 1000)), text: { body: text }, type: 'text' }],
    } }] }],
  });
  return { body, signature: `sha256=${createHmac('sha256', APP_SECRET).update(body).digest('hex')}` };
}

/** The WhatsApp Cloud stand-in: 503 for every send while `down`, else accepted with a new wamid. */
class CloudStandIn {
  down = true;
  readonly sends: { text: string; to: string; status: number }[] = [];
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    const port = await freePort();
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      req.on('end', () => {
        let body: { text?: { body?: string }; to?: string } = {};
        try {
          body = JSON.parse(raw) as typeof body;
        } catch {
          /* not JSON */
        }
        const text = body.text?.body ?? '';
        if (!req.url?.endsWith('/messages')) {
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
          return;
        }
        const status = this.down ? 503 : 200;
        this.sends.push({ text, to: String(body.to ?? ''), status });
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(
          this.down
            ? JSON.stringify({ error: { message: 'Service temporarily unavailable', type: 'OAuthException', code: 2, is_transient: true, fbtrace_id: 'T' } })
            : JSON.stringify({ messaging_product: 'whatsapp', contacts: [{ input: 'x', wa_id: 'x' }], messages: [{ id: `wamid.OK${this.sends.length}` }] }),
        );
      });
    });
    await new Promise<void>((r) => this.server!.listen(port, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${port}/v25.0`;
  }

  tried(text: string): number {
    return this.sends.filter((s) => s.text.includes(text)).length;
  }

  accepted(text: string): number {
    return this.sends.filter((s) => s.status === 200 && s.text.includes(text)).length;
  }

  stop(): Promise<void> {
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

async function waitUntil(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, node?: NodeProcess, detail?: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}${detail ? `: ${detail()}` : ''}${node ? `\n${node.output().split('\n').slice(-40).join('\n')}` : ''}`);
}

/** `YYYY-MM-DDTHH:mm:ss` of `date` in America/Sao_Paulo (a schedule's `sendAt`, read in the company's time zone). */
function saoPaulo(date: Date): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false }).formatToParts(date);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '00';
  return `${get('year')}-${get('month')}-${get('day')}T${get('hour') === '24' ? '00' : get('hour')}:${get('minute')}:${get('second')}`;
}

const buses = [['in-process', false], ...(process.env.AMQP_URL ? [['rabbitmq', true]] : [])] as [string, boolean][];

describe.each(buses)('no loss on the %s bus: kill -9 during a provider outage', (busName, rabbit) => {
  let cloud: CloudStandIn;
  let db: { url: string; drop(): Promise<void> };
  let node: NodeProcess | undefined;
  let env: Record<string, string | undefined>;
  let base = '';

  const start = async () => {
    // One process (no tsx CLI wrapper): SIGKILL must take the kernel itself.
    node = startNode(`kernel-${busName}`, ['--import', 'tsx', 'kernel/core/src/main.ts'], { cwd: ROOT, env });
    await waitForUrl(`${base}/ready`, node, 240_000);
  };
  const call = async (token: string | null, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${method} ${path} -> ${res.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };

  beforeAll(async () => {
    cloud = new CloudStandIn();
    await cloud.start();
    db = await emptyDatabase('outbox_no_loss');
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = cleanEnv({
      NODE_ENV: 'development',
      DATABASE_URL: db.url,
      AMQP_URL: rabbit ? process.env.AMQP_URL : undefined,
      AMQP_EXCHANGE: rabbit ? `atendo.test.outbox-no-loss.${randomBytes(4).toString('hex')}` : undefined,
      DATA_DIR: `/tmp/atendo-outbox-no-loss-${randomBytes(4).toString('hex')}`,
      HOST: '127.0.0.1',
      PORT: String(port),
      JWT_SECRET: randomBytes(32).toString('hex'),
      JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
      ADMIN_EMAIL: 'owner@example.com',
      ADMIN_PASSWORD: PASSWORD,
      SEED_DEMO: 'false',
      META_GRAPH_URL: cloud.url,
      META_APP_SECRET: APP_SECRET,
      WHATSAPP_SESSIONS_AUTOSTART: 'false',
      CHANNELS_OUTBOUND_RETRIES: '1',
      CHANNELS_OUTBOUND_RETRY_DELAY_MS: '200',
      CHANNELS_SEND_RETRY_FIRST_DELAY_MS: '1000',
      LOG_LEVEL: 'warn',
      SHUTDOWN_GRACE_MS: '2000',
    });
    await start();
  }, 600_000);

  afterAll(async () => {
    await node?.stop('SIGTERM', 20_000).catch(() => undefined);
    await cloud?.stop();
    await db?.drop().catch(() => undefined);
  });

  test('replies, a due schedule, campaign items and bot answers accepted during the outage: each delivered exactly once after kill -9, restart and recovery', async () => {
    const login = await call(null, 'POST', '/auth/login', { email: 'owner@example.com', password: PASSWORD });
    const token = login.token as string;
    // Two queues and a greeting: a customer who writes in gets the bot's menu.
    const queues = [await call(token, 'POST', '/queue', { name: 'Vendas', color: '#1E88E5' }), await call(token, 'POST', '/queue', { name: 'Suporte', color: '#43A047' })];
    const conn = await call(token, 'POST', '/whatsapp', { name: 'Cloud', channel: 'whatsappapi', facebookPageUserId: PHONE_ID, facebookUserToken: 'EAAG-outbox', greetingMessage: GREETING, queueIds: queues.map((q) => q.id) });
    const texts: string[] = [];
    for (let c = 0; c < 4; c++) {
      const contact = await call(token, 'POST', '/contacts', { name: `Cliente ${c}`, number: `55119${String(70000000 + c * 1111).padStart(8, '0')}` });
      const ticket = await call(token, 'POST', '/tickets', { contactId: contact.id, queueId: null, whatsappId: conn.id });
      for (let m = 0; m < 5; m++) {
        const text = `reply-${busName}-${c}-${m}`;
        texts.push(text);
        await call(token, 'POST', `/messages/${ticket.id}`, { body: text });
      }
      if (c === 0) {
        const text = `schedule-${busName}-${randomBytes(3).toString('hex')}`;
        texts.push(text);
        await call(token, 'POST', '/schedules', { body: text, contactId: contact.id, sendAt: saoPaulo(new Date(Date.now() + 8_000)) });
      }
    }
    // A campaign to three new numbers, launched at once (no interval between its items).
    await call(token, 'POST', '/campaign-settings', { settings: { messageInterval: 0 } });
    const list = await call(token, 'POST', '/contact-lists', { name: `Lista ${busName}` });
    const campaignText = `campaign-${busName}-${randomBytes(3).toString('hex')}`;
    for (const [i, name] of ['Ana', 'Bia', 'Caio'].entries()) {
      await call(token, 'POST', '/contact-list-items', { name, number: `55119${String(80000000 + i * 1111).padStart(8, '0')}`, contactListId: list.id });
      texts.push(`${campaignText} ${name}`);
    }
    await call(token, 'POST', '/campaigns', { name: `Campanha ${busName}`, contactListId: list.id, whatsappId: conn.id, message1: `${campaignText} {nome}`, scheduledAt: new Date(Date.now() - 1000).toISOString() });
    // Three customers write in: the bot answers each with its menu (the greeting), during the outage too.
    const customers = ['5511966660001', '5511966660002', '5511966660003'];
    for (const from of customers) {
      const w = inbound(from, 'oi');
      const res = await fetch(`${base}/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': w.signature }, body: w.body });
      expect(res.status).toBe(200);
    }
    const greetings = () => cloud.sends.filter((x) => x.text.includes(GREETING));
    // Every one was tried and refused during the outage (the schedule once it fell due, each greeting once).
    await waitUntil('every message tried during the outage', () => texts.every((t) => cloud.tried(t) >= 1) && new Set(greetings().map((g) => g.to)).size >= customers.length, 120_000, node, () =>
      `${texts.filter((t) => cloud.tried(t) < 1).join(', ')}; greetings tried ${greetings().length}`);
    expect(texts.every((t) => cloud.accepted(t) === 0)).toBe(true);

    node!.proc.kill('SIGKILL');
    await node!.exited;
    cloud.down = false;
    await start();
    const acceptedGreetings = () => greetings().filter((g) => g.status === 200).length;
    const greeted = () => new Set(greetings().filter((g) => g.status === 200).map((g) => g.to)).size;
    await waitUntil('every message accepted by the provider after the restart', () => texts.every((t) => cloud.accepted(t) >= 1) && greeted() >= customers.length, 180_000, node, () =>
      `${texts.filter((t) => cloud.accepted(t) < 1).map((t) => `${t} (tried ${cloud.tried(t)})`).join(', ')}; greetings accepted ${acceptedGreetings()}`);
    // A while more: nothing arrives twice (one menu per customer).
    await new Promise((r) => setTimeout(r, 5_000));
    const twice = texts.filter((t) => cloud.accepted(t) !== 1);
    expect(twice).toEqual([]);
    expect(acceptedGreetings()).toBe(customers.length);
  });
});
