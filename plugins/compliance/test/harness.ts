/**
 * Test harness of the compliance plugin (adapted from the schedules plugin's): a kernel with the tickets
 * pipeline (contacts, connections, tickets, channels), schedules, campaigns, dashboard and compliance, and WhatsApp Cloud
 * connections whose Graph API is a local HTTP server on the first free port of 8265-8269 (this test's
 * range), so a test reads what the customer receives; customers write in with signed webhooks.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { createTestKernel, type TestKernel, type TestUser } from '@atendo/testing';
import queuesPlugin from '@atendo/plugin-queues';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';
import connectionsPlugin from '@atendo/plugin-connections';
import ticketsPlugin from '@atendo/plugin-tickets';
import channelsPlugin from '@atendo/plugin-channels';
import { metaSerialize, sign } from '../../../scripts/replay';
import schedules from '@atendo/plugin-schedules';
import campaigns from '@atendo/plugin-campaigns';
import dashboard from '@atendo/plugin-dashboard';
import compliance from '../src/index';

export const SECRET = randomBytes(16).toString('hex');

export interface Sent {
  phoneId: string;
  to: string;
  text: string;
  at: number;
}

/** The local Graph API: records text sends; numbers in `refuse` get a permanent Graph error. */
export class Graph {
  readonly sent: Sent[] = [];
  readonly refuse = new Set<string>();
  url = '';
  private server?: Server;
  private n = 0;

  async start(): Promise<void> {
    for (const port of [8265, 8266, 8267, 8268, 8269, 0]) {
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
          const m = /^\/(?:v[\d.]+\/)?([^/]+)\/messages/.exec(req.url ?? '');
          if (req.method === 'POST' && m) {
            const to = String(body.to ?? '');
            if (this.refuse.has(to)) {
              res.statusCode = 400;
              res.end(JSON.stringify({ error: { message: '(#131026) Message undeliverable', type: 'OAuthException', code: 131026, error_data: { details: 'Recipient is not a valid WhatsApp user' } } }));
              return;
            }
            this.sent.push({ phoneId: m[1], to, text: (body.text as { body?: string } | undefined)?.body ?? '', at: Date.now() });
            res.end(JSON.stringify({ messaging_product: 'whatsapp', contacts: [{ input: to, wa_id: to }], messages: [{ id: `wamid.OUT${++this.n}${randomBytes(3).toString('hex')}` }] }));
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

  to(number: string): Sent[] {
    return this.sent.filter((s) => s.to === number);
  }
}

/** The plugins of a compliance kernel: the tickets pipeline and every plugin holding copies of a person's data (schedules, campaigns, dashboard). */
export const PLUGINS = () => [queuesPlugin, tagsPlugin, contactsPlugin, connectionsPlugin, ticketsPlugin, channelsPlugin, schedules, campaigns, dashboard, compliance];

const JWT = { JWT_SECRET: randomBytes(32).toString('hex'), JWT_REFRESH_SECRET: randomBytes(32).toString('hex') };

/** Environment shared by every kernel of a test file (two kernels of one database accept each other's tokens). */
export const sharedEnv = (graphUrl: string, extra: Record<string, string> = {}) => ({
  ...JWT,
  CHANNELS_META_APP_SECRET: SECRET,
  CHANNELS_META_VERIFY_TOKEN: 'verify-me',
  CHANNELS_META_GRAPH_URL: graphUrl,
  // Quick channel retries (a refused message fails for good at once anyway).
  CHANNELS_OUTBOUND_RETRY_DELAY_MS: '100',
  ...extra,
});

export function bootKernel(graph: Graph, opts: { dbName?: string; env?: Record<string, string> } = {}): Promise<TestKernel> {
  return createTestKernel({ plugins: PLUGINS(), env: sharedEnv(graph.url, opts.env), ...(opts.dbName ? { dbName: opts.dbName } : {}) });
}

let seq = 0;
/** A fresh customer number. */
export const newNumber = () => `55319${String(Date.now() % 1e6).padStart(6, '0')}${String(++seq).padStart(2, '0')}`;

/** A company with WhatsApp Cloud connections (the first is the default). */
export class Tenant {
  connections: { id: number; phoneId: string }[] = [];
  constructor(
    readonly k: TestKernel,
    readonly companyId: number,
    readonly admin: TestUser,
  ) {}

  static async create(k: TestKernel, phoneIds: string[], opts: { without?: 'useSchedules'[] } = {}): Promise<Tenant> {
    const c = await k.createCompany({ without: opts.without });
    const t = new Tenant(k, c.companyId, c.admin);
    for (const phoneId of phoneIds) {
      const res = await k.as(c.admin, 'POST', '/whatsapp', { name: `Cloud ${phoneId}`, channel: 'whatsappapi', facebookPageUserId: phoneId, facebookUserToken: `token-${phoneId}` });
      if (res.statusCode !== 200) throw new Error(`connection: ${res.body}`);
      t.connections.push({ id: res.json().id, phoneId });
    }
    return t;
  }

  async api(method: string, url: string, body?: unknown, who: TestUser = this.admin): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const res = await this.k.as(who, method, url, body);
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  }

  /** A contact created by REST (no ticket). */
  async contact(name: string, number = newNumber()): Promise<{ id: number; number: string; name: string }> {
    return this.api('POST', '/contacts', { name, number });
  }

  /** A customer writes in on connection `phoneId` (a ticket on it); resolves with the contact. */
  async writesIn(phoneId: string, name: string, number = newNumber(), text = 'oi'): Promise<{ id: number; number: string }> {
    const body = {
      object: 'whatsapp_business_account',
      entry: [{ id: 'waba-1', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550001234', phone_number_id: phoneId }, contacts: [{ profile: { name }, wa_id: number }], messages: [{ from: number, id: `wamid.IN${randomBytes(8).toString('hex')}`, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: text } }] } }] }],
    };
    const bytes = metaSerialize(body);
    const res = await this.k.app.inject({ method: 'POST', url: '/webhook', payload: bytes, headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(bytes, SECRET) } });
    if (res.statusCode !== 200) throw new Error(`webhook: ${res.statusCode} ${res.body}`);
    for (let i = 0; i < 200; i++) {
      const contact = await this.k.db('contacts').where({ companyId: this.companyId, number }).first();
      const ticket = contact && (await this.k.db('tickets').where({ companyId: this.companyId, contactId: contact.id }).first());
      if (ticket) return { id: contact.id, number };
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('the inbound message made no ticket');
  }

  /** A schedule `inMs` from now (an ISO time with an offset). */
  async schedule(contactId: number, body: string, inMs: number, who: TestUser = this.admin): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
    return this.api('POST', '/schedules', { body, contactId, sendAt: new Date(Date.now() + inMs).toISOString() }, who);
  }
}
