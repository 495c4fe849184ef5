/**
 * Test harness of the bot: a kernel with the real pipeline (channels -> tickets -> automation -> channels)
 * on a WhatsApp Cloud connection whose Graph API is a local HTTP server, so a test writes as a customer
 * (signed webhooks) and reads what the customer receives (the Graph calls), in order.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { createTestKernel, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import queuesPlugin from '@atendo/plugin-queues';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';
import connectionsPlugin from '@atendo/plugin-connections';
import ticketsPlugin from '@atendo/plugin-tickets';
import channelsPlugin from '@atendo/plugin-channels';
import { metaSerialize, sign } from '../../../scripts/replay';
import { createAutomationPlugin } from '../src/plugin';

export const SECRET = randomBytes(16).toString('hex');

/** One message the Graph server received for a phone-number id. */
export interface Sent {
  phoneId: string;
  to: string;
  text: string;
  at: number;
}

/** The local Graph API: records text sends and answers them with a wamid. */
export class Graph {
  readonly sent: Sent[] = [];
  private server?: Server;
  private n = 0;
  url = '';

  /** Listens on the first free port of 8185-8189 (the test's port range), else any free port. */
  async start(): Promise<void> {
    for (const port of [8185, 8186, 8187, 8188, 8189, 0]) {
      const server = createServer((req, res) => {
        let raw = '';
        req.on('data', (c) => (raw += c));
        req.on('end', () => {
          res.setHeader('content-type', 'application/json');
          let body: Record<string, unknown> = {};
          try {
            body = JSON.parse(raw || '{}');
          } catch {
            /* not JSON */
          }
          const m = /^\/([^/]+)\/messages/.exec(req.url ?? '');
          if (req.method === 'POST' && m) {
            const text = (body.text as { body?: string } | undefined)?.body ?? '';
            this.sent.push({ phoneId: m[1], to: String(body.to ?? ''), text, at: Date.now() });
            res.end(JSON.stringify({ messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: body.to }], messages: [{ id: `wamid.OUT${++this.n}${randomBytes(3).toString('hex')}` }] }));
            return;
          }
          res.end(JSON.stringify({ id: 'x' }));
        });
      });
      const ok = await new Promise<boolean>((resolve) => {
        server.once('error', () => resolve(false));
        server.listen(port, '127.0.0.1', () => resolve(true));
      });
      if (ok) {
        this.server = server;
        this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        return;
      }
    }
    throw new Error('no port for the Graph server');
  }

  async stop(): Promise<void> {
    await new Promise((r) => this.server?.close(r));
  }

  /** Texts sent to `to` so far. */
  to(to: string): string[] {
    return this.sent.filter((s) => s.to === to).map((s) => s.text);
  }
}

/** A mutable clock for the bot (opening hours, variables). */
export const clock = { now: new Date() };

export const PLUGINS = () => [queuesPlugin, tagsPlugin, contactsPlugin, connectionsPlugin, ticketsPlugin, channelsPlugin, createAutomationPlugin({ now: () => clock.now })];

const JWT = { JWT_SECRET: randomBytes(32).toString('hex'), JWT_REFRESH_SECRET: randomBytes(32).toString('hex') };

/** Environment shared by every kernel of a test file (two kernels of one database accept each other's tokens). */
export const sharedEnv = (graphUrl: string) => ({
  ...JWT,
  CHANNELS_META_APP_SECRET: SECRET,
  CHANNELS_META_VERIFY_TOKEN: 'verify-me',
  CHANNELS_META_GRAPH_URL: graphUrl,
});

let seq = 0;

/** A company with a WhatsApp Cloud connection (`phoneId`) and helpers to talk to it as customers. */
export class Tenant {
  connectionId = 0;
  constructor(
    readonly k: TestKernel,
    readonly graph: Graph,
    readonly companyId: number,
    readonly admin: TestUser,
    readonly phoneId: string,
  ) {}

  static async create(k: TestKernel, graph: Graph, phoneId: string, connection: Record<string, unknown> = {}): Promise<Tenant> {
    const c = await k.createCompany();
    const t = new Tenant(k, graph, c.companyId, c.admin, phoneId);
    const res = await k.as(c.admin, 'POST', '/whatsapp', { name: `Cloud ${phoneId}`, channel: 'whatsappapi', facebookPageUserId: phoneId, facebookUserToken: `token-${phoneId}`, ...connection });
    if (res.statusCode !== 200) throw new Error(`connection: ${res.body}`);
    t.connectionId = res.json().id;
    return t;
  }

  async api(method: string, url: string, body?: unknown, who: TestUser = this.admin): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const res = await this.k.as(who, method, url, body);
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  }

  async queue(body: Record<string, unknown>): Promise<{ id: number; chatbots: any[] }> { // eslint-disable-line @typescript-eslint/no-explicit-any
    return this.api('POST', '/queue', { color: `#${randomBytes(3).toString('hex')}`, ...body });
  }

  async setConnection(body: Record<string, unknown>): Promise<void> {
    await this.api('PUT', `/whatsapp/${this.connectionId}`, body);
  }

  async setting(column: string, data: string): Promise<void> {
    await this.api('PUT', '/companySettings', { column, data });
  }

  /** A new customer number (each gets its own contact and ticket). */
  customer(name = 'Cliente Teste'): Customer {
    return new Customer(this, `55119${String(Date.now() % 1e6).padStart(6, '0')}${String(++seq).padStart(2, '0')}`, name);
  }
}

export class Customer {
  private seen = 0;
  constructor(readonly tenant: Tenant, readonly number: string, readonly name: string) {}

  /** Posts a signed inbound text webhook as this customer (`id`: the provider message id, default a new one). */
  async says(text: string, id = `wamid.IN${randomBytes(8).toString('hex')}`): Promise<void> {
    const body = {
      object: 'whatsapp_business_account',
      entry: [{
        id: 'waba-1',
        changes: [{
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: '15550001234', phone_number_id: this.tenant.phoneId },
            contacts: [{ profile: { name: this.name }, wa_id: this.number }],
            messages: [{ from: this.number, id, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: text } }],
          },
        }],
      }],
    };
    const bytes = metaSerialize(body);
    const res = await this.tenant.k.app.inject({ method: 'POST', url: '/webhook', payload: bytes, headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(bytes, SECRET) } });
    if (res.statusCode !== 200) throw new Error(`webhook: ${res.statusCode} ${res.body}`);
  }

  /** Waits for `n` new messages to this customer and answers them (in the order the Graph server got them). */
  async receives(n = 1, ms = 10_000): Promise<string[]> {
    const got = (await waitFor(() => {
      const all = this.tenant.graph.to(this.number);
      return all.length >= this.seen + n ? all : undefined;
    }, ms)) as string[];
    const out = got.slice(this.seen, this.seen + n);
    this.seen += n;
    return out;
  }

  /** Asserts nothing more arrives within `ms`. */
  async receivesNothing(ms = 1200): Promise<void> {
    await new Promise((r) => setTimeout(r, ms));
    const extra = this.tenant.graph.to(this.number).slice(this.seen);
    if (extra.length) throw new Error(`unexpected messages to ${this.number}: ${JSON.stringify(extra)}`);
  }

  /** Says `text` and waits for exactly one reply. */
  async ask(text: string): Promise<string> {
    await this.says(text);
    const [reply] = await this.receives(1);
    return reply;
  }

  /** The customer's current (newest) ticket row. */
  async ticket(): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const k = this.tenant.k;
    const contact = await waitFor(() => k.db('contacts').where({ companyId: this.tenant.companyId, number: this.number }).first(), 10_000);
    return waitFor(() => k.db('tickets').where({ companyId: this.tenant.companyId, contactId: contact.id }).orderBy('id', 'desc').first(), 10_000);
  }

  /** Waits until the customer's newest ticket matches `fields` (bot actions after a reply are not instant). */
  async ticketBecomes(fields: Record<string, unknown>, ms = 10_000): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
    let last: Record<string, unknown> = {};
    try {
      return await waitFor(async () => {
        last = await this.ticket();
        return Object.entries(fields).every(([k, v]) => last[k] === v) ? last : undefined;
      }, ms);
    } catch {
      throw new Error(`ticket never became ${JSON.stringify(fields)}: ${JSON.stringify(Object.fromEntries(Object.keys(fields).map((k) => [k, last[k]])))}`);
    }
  }

  async contact(): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
    return this.tenant.k.db('contacts').where({ companyId: this.tenant.companyId, number: this.number }).first();
  }
}

/** Moves the pending job `<jobName>:<key>` to run now (a timer whose wait a test cannot afford). */
export async function fireNow(k: TestKernel, jobName: string, key: string): Promise<number> {
  const res = await k.db.raw(`UPDATE graphile_worker._private_jobs SET run_at = now() WHERE key = ? AND locked_at IS NULL RETURNING id`, [`${jobName}:${key}`]);
  await k.db.raw(`SELECT pg_notify('jobs:insert', '{"count":1}')`);
  return res.rows.length;
}

/** The pending job `<jobName>:<key>`, or undefined. */
export async function pendingJob(k: TestKernel, jobName: string, key: string): Promise<{ id: string; run_at: Date } | undefined> {
  const res = await k.db.raw(`SELECT id, run_at FROM graphile_worker._private_jobs WHERE key = ?`, [`${jobName}:${key}`]);
  return res.rows[0];
}

export async function bootKernel(graph: Graph, dbName?: string): Promise<TestKernel> {
  return createTestKernel({ plugins: PLUGINS(), env: sharedEnv(graph.url), ...(dbName ? { dbName } : {}) });
}
