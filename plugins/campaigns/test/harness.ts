/**
 * Test harness of the campaigns plugin: a kernel with the real outbound path (campaigns -> tickets ->
 * channels -> a WhatsApp Cloud connection) whose Graph API is a local HTTP server, so a test reads what each
 * recipient receives (and when), and writes as a customer with signed webhooks.
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
import type { PluginDefinition } from '@atendo/sdk';
import { metaSerialize, sign } from '../../../scripts/replay';
import campaignsPlugin from '../src';

export const SECRET = randomBytes(16).toString('hex');

/** One message the Graph server received. */
export interface Sent {
  phoneId: string;
  to: string;
  type: string;
  /** The text, or the media caption. */
  text: string;
  /** The media link, when a media message. */
  link?: string;
  at: number;
}

/** The local Graph API: records sends (text and media) and answers them with a wamid. */
export class Graph {
  readonly sent: Sent[] = [];
  private server?: Server;
  private n = 0;
  url = '';
  /** Status code to answer sends with (a test can make the provider refuse). */
  failWith: number | null = null;

  /** Listens on the first free port of `ports` (the test's range), else any free port. */
  async start(ports: number[] = [8225, 8226, 8227, 8228, 8229]): Promise<void> {
    for (const port of [...ports, 0]) {
      const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          res.setHeader('content-type', 'application/json');
          let body: Record<string, any> = {}; // eslint-disable-line @typescript-eslint/no-explicit-any
          try {
            body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
          } catch {
            /* not JSON */
          }
          const m = /^\/([^/]+)\/messages/.exec(req.url ?? '');
          if (req.method === 'POST' && m) {
            if (this.failWith) {
              res.statusCode = this.failWith;
              res.end(JSON.stringify({ error: { message: 'refused', type: 'OAuthException', code: 131026 } }));
              return;
            }
            const type = String(body.type ?? 'text');
            const part = body[type] ?? {};
            this.sent.push({ phoneId: m[1], to: String(body.to ?? ''), type, text: part.body ?? part.caption ?? '', link: part.link, at: Date.now() });
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

  /** Sends to `to` so far. */
  to(to: string): Sent[] {
    return this.sent.filter((s) => s.to === to);
  }
}

export const PLUGINS = (): PluginDefinition[] => [queuesPlugin, tagsPlugin, contactsPlugin, connectionsPlugin, ticketsPlugin, channelsPlugin, campaignsPlugin] as PluginDefinition[];

const JWT = { JWT_SECRET: randomBytes(32).toString('hex'), JWT_REFRESH_SECRET: randomBytes(32).toString('hex') };

/** Environment shared by every kernel of a test file (two kernels of one database accept each other's tokens). */
export const sharedEnv = (graphUrl: string, extra: Record<string, string> = {}) => ({
  ...JWT,
  CHANNELS_META_APP_SECRET: SECRET,
  CHANNELS_META_VERIFY_TOKEN: 'verify-me',
  CHANNELS_META_GRAPH_URL: graphUrl,
  ...extra,
});

export async function bootKernel(graph: Graph, opts: { dbName?: string; plugins?: PluginDefinition[]; env?: Record<string, string> } = {}): Promise<TestKernel> {
  return createTestKernel({ plugins: opts.plugins ?? PLUGINS(), env: sharedEnv(graph.url, opts.env), ...(opts.dbName ? { dbName: opts.dbName } : {}) });
}

let seq = 0;
/** A new phone number (BR mobile, E.164 digits) unique in this run. */
export function phone(): string {
  return `55119${String(Date.now() % 1e4).padStart(4, '0')}${String(++seq % 10000).padStart(4, '0')}`;
}

/** A company with WhatsApp Cloud connections and the API helpers the tests use. */
export class Tenant {
  readonly connections: { id: number; phoneId: string }[] = [];
  constructor(
    readonly k: TestKernel,
    readonly companyId: number,
    readonly admin: TestUser,
  ) {}

  static async create(k: TestKernel, opts: { without?: 'useCampaigns'[] } = {}): Promise<Tenant> {
    const c = await k.createCompany({ without: opts.without });
    return new Tenant(k, c.companyId, c.admin);
  }

  /** Adds a Cloud connection answering for phone-number id `phoneId`. */
  async connection(phoneId: string, body: Record<string, unknown> = {}): Promise<number> {
    const res = await this.k.as(this.admin, 'POST', '/whatsapp', { name: `Cloud ${phoneId}`, channel: 'whatsappapi', facebookPageUserId: phoneId, facebookUserToken: `token-${phoneId}`, ...body });
    if (res.statusCode !== 200) throw new Error(`connection: ${res.body}`);
    this.connections.push({ id: res.json().id, phoneId });
    return res.json().id;
  }

  async api(method: string, url: string, body?: unknown, who: TestUser = this.admin): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const res = await this.k.as(who, method, url, body);
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  }

  /** A contact list with these items (created one by one through the API). */
  async list(items: { name: string; number: string; email?: string }[], name = 'Lista'): Promise<number> {
    const l = await this.api('POST', '/contact-lists', { name });
    for (const it of items) await this.api('POST', '/contact-list-items', { ...it, contactListId: l.id });
    return l.id;
  }

  async settings(s: Record<string, unknown>): Promise<void> {
    await this.api('POST', '/campaign-settings', { settings: s });
  }

  /** Creates a campaign scheduled now (it starts at once). */
  async campaign(body: Record<string, unknown>): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
    return this.api('POST', '/campaigns', { name: 'Campanha', scheduledAt: new Date(Date.now() - 1000).toISOString(), ...body });
  }

  async status(id: number): Promise<string> {
    return (await this.api('GET', `/campaigns/${id}`)).status;
  }

  /** Waits until the campaign has `status` (and returns it). */
  async until(id: number, status: string, ms = 20_000): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
    let last = '';
    try {
      return await waitFor(async () => {
        const c = await this.api('GET', `/campaigns/${id}`);
        last = c.status;
        return c.status === status ? c : undefined;
      }, ms, 100);
    } catch {
      throw new Error(`campaign ${id} never became ${status} (last ${last})`);
    }
  }

  /** Posts a signed inbound text webhook from `from` to connection `phoneId`. */
  async says(from: string, text: string, phoneId = this.connections[0].phoneId, name = 'Cliente'): Promise<void> {
    const body = {
      object: 'whatsapp_business_account',
      entry: [{
        id: 'waba-1',
        changes: [{
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: '15550001234', phone_number_id: phoneId },
            contacts: [{ profile: { name }, wa_id: from }],
            messages: [{ from, id: `wamid.IN${randomBytes(8).toString('hex')}`, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: text } }],
          },
        }],
      }],
    };
    const bytes = metaSerialize(body);
    const res = await this.k.app.inject({ method: 'POST', url: '/webhook', payload: bytes, headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(bytes, SECRET) } });
    if (res.statusCode !== 200) throw new Error(`webhook: ${res.statusCode} ${res.body}`);
  }
}

/** Asserts nothing more reaches `to` within `ms` beyond `count`. */
export async function noMore(graph: Graph, to: string, count: number, ms = 1500): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
  expect(graph.to(to)).toHaveLength(count);
}
