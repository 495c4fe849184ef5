/**
 * Test harness: a kernel with the real pipeline (channels -> tickets -> handlers -> channels) on a WhatsApp
 * Cloud connection whose Graph API is a local HTTP server, and local HTTP servers standing in for the
 * integrations (webhook, n8n, Typebot, Dialogflow). Never the internet.
 */
import { randomBytes } from 'node:crypto';
import { Graph, waitFor, type TestKernel, type TestUser } from '@atendo/testing';

export { Fake, Graph, type Answer, type Hit } from '@atendo/testing';
import queuesPlugin from '@atendo/plugin-queues';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';
import connectionsPlugin from '@atendo/plugin-connections';
import ticketsPlugin from '@atendo/plugin-tickets';
import channelsPlugin from '@atendo/plugin-channels';
import automationPlugin from '@atendo/plugin-automation';
import { metaSerialize, sign } from '../../../scripts/replay';

export const SECRET = randomBytes(16).toString('hex');

export const PLUGINS = () => [queuesPlugin, tagsPlugin, contactsPlugin, connectionsPlugin, ticketsPlugin, channelsPlugin, automationPlugin];

const JWT = { JWT_SECRET: randomBytes(32).toString('hex'), JWT_REFRESH_SECRET: randomBytes(32).toString('hex') };

export const sharedEnv = (graphUrl: string) => ({
  ...JWT,
  CHANNELS_META_APP_SECRET: SECRET,
  CHANNELS_META_VERIFY_TOKEN: 'verify-me',
  CHANNELS_META_GRAPH_URL: graphUrl,
});

let seq = 0;

/** A company with a WhatsApp Cloud connection and helpers to talk to it as customers. */
export class Tenant {
  connectionId = 0;
  constructor(
    readonly k: TestKernel,
    readonly graph: Graph,
    readonly companyId: number,
    readonly admin: TestUser,
    readonly phoneId: string,
  ) {}

  static async create(k: TestKernel, graph: Graph, connection: Record<string, unknown> = {}): Promise<Tenant> {
    const c = await k.createCompany();
    const phoneId = `3300${Date.now() % 1e8}${++seq}`;
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

  async queue(body: Record<string, unknown>): Promise<{ id: number }> {
    return this.api('POST', '/queue', { color: `#${randomBytes(3).toString('hex')}`, ...body });
  }

  async setConnection(body: Record<string, unknown>): Promise<void> {
    await this.api('PUT', `/whatsapp/${this.connectionId}`, body);
  }

  customer(name = 'Cliente Teste'): Customer {
    return new Customer(this, `55219${String(Date.now() % 1e6).padStart(6, '0')}${String(++seq).padStart(2, '0')}`, name);
  }
}

export class Customer {
  private seen = 0;
  constructor(readonly tenant: Tenant, readonly number: string, readonly name: string) {}

  async says(text: string): Promise<void> {
    const id = `wamid.IN${randomBytes(8).toString('hex')}`;
    const body = {
      object: 'whatsapp_business_account',
      entry: [{ id: 'waba-1', changes: [{ field: 'messages', value: {
        messaging_product: 'whatsapp',
        metadata: { display_phone_number: '15550001234', phone_number_id: this.tenant.phoneId },
        contacts: [{ profile: { name: this.name }, wa_id: this.number }],
        messages: [{ from: this.number, id, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: text } }],
      } }] }],
    };
    const bytes = metaSerialize(body);
    const res = await this.tenant.k.app.inject({ method: 'POST', url: '/webhook', payload: bytes, headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(bytes, SECRET) } });
    if (res.statusCode !== 200) throw new Error(`webhook: ${res.statusCode} ${res.body}`);
  }

  async receives(n = 1, ms = 15_000): Promise<string[]> {
    const got = (await waitFor(() => {
      const all = this.tenant.graph.to(this.number);
      return all.length >= this.seen + n ? all : undefined;
    }, ms)) as string[];
    const out = got.slice(this.seen, this.seen + n);
    this.seen += n;
    return out;
  }

  async receivesNothing(ms = 1500): Promise<void> {
    await new Promise((r) => setTimeout(r, ms));
    const extra = this.tenant.graph.to(this.number).slice(this.seen);
    if (extra.length) throw new Error(`unexpected messages to ${this.number}: ${JSON.stringify(extra)}`);
  }

  async ticket(): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const k = this.tenant.k;
    const contact = await waitFor(() => k.db('contacts').where({ companyId: this.tenant.companyId, number: this.number }).first(), 10_000);
    return waitFor(() => k.db('tickets').where({ companyId: this.tenant.companyId, contactId: contact.id }).orderBy('id', 'desc').first(), 10_000);
  }

  async ticketBecomes(fields: Record<string, unknown>, ms = 15_000): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
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
}
