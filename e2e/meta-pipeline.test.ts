/**
 * The main job end to end on the real pipeline (issues "Channels" and "The main job end to end"):
 * a signed WhatsApp Cloud webhook becomes a contact, a pending ticket and a message pushed live to the
 * company's sockets; a redelivery stores nothing twice; the attendant accepts and replies; the reply reaches
 * a local Graph server with the right recipient, text and token; a signed status webhook moves its ack; a
 * socket of another company receives none of it. Runs on the in-process bus, and on RabbitMQ + PostgreSQL
 * when AMQP_URL / DATABASE_URL are set (CI).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Socket } from 'socket.io-client';
import { createTestKernel, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import queuesPlugin from '@atendo/plugin-queues';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';
import connectionsPlugin from '@atendo/plugin-connections';
import ticketsPlugin from '@atendo/plugin-tickets';
import channelsPlugin from '@atendo/plugin-channels';
import { metaSerialize, rewriteAccount, sign } from '../scripts/replay';

const FIXTURES = join(__dirname, '..', 'fixtures', 'channels');
const fixture = (file: string) => JSON.parse(readFileSync(join(FIXTURES, 'whatsapp-cloud', file), 'utf8')) as Record<string, unknown>;

const SECRET = randomBytes(16).toString('hex');
const PHONE_A = '200000000000001';
const PHONE_B = '200000000000002';
const PAGE_A = '300000000000001';
const TOKEN_A = 'EAAG-test-token-' + randomBytes(6).toString('hex');
// Shared by both kernel processes of the fan-out test (same database, bus exchange and secrets).
const SHARED_ENV = {
  CHANNELS_META_APP_SECRET: SECRET,
  CHANNELS_META_VERIFY_TOKEN: 'verify-me',
  JWT_SECRET: randomBytes(32).toString('hex'),
  JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
};
const PLUGINS = [queuesPlugin, tagsPlugin, contactsPlugin, connectionsPlugin, ticketsPlugin, channelsPlugin];

/** A valid 1x1 PNG (the upload store sniffs real bytes). */
const TINY_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

interface GraphCall {
  path: string;
  auth: string | undefined;
  body: Record<string, unknown>;
}

function startGraph(calls: GraphCall[]): Promise<Server> {
  let n = 0;
  const server = createServer((req: IncomingMessage, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw || '{}');
      } catch {
        /* multipart uploads are not used by this test */
      }
      calls.push({ path: req.url ?? '', auth: req.headers.authorization, body });
      res.setHeader('content-type', 'application/json');
      if (req.method === 'GET' && (req.url ?? '').startsWith('/media-bytes/')) {
        res.setHeader('content-type', 'image/png');
        res.end(TINY_PNG);
        return;
      }
      if (req.method === 'GET' && (req.url ?? '').startsWith('/1709782812782215')) {
        // WhatsApp Cloud media lookup: a short-lived URL of the bytes.
        const port = (server.address() as AddressInfo).port;
        res.end(JSON.stringify({ url: `http://127.0.0.1:${port}/media-bytes/1709782812782215`, mime_type: 'image/png', id: '1709782812782215' }));
        return;
      }
      if (req.method === 'GET') {
        // Messenger profile lookup: /{psid}?fields=first_name,last_name,profile_pic
        res.end(JSON.stringify({ first_name: 'Maria', last_name: 'Souza', profile_pic: 'https://example.invalid/p.jpg', id: (req.url ?? '').split('?')[0].split('/').pop() }));
        return;
      }
      res.end(JSON.stringify({ messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: body.to }], messages: [{ id: `wamid.OUT${++n}` }] }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('Meta pipeline end to end: webhook -> ticket -> reply -> Graph -> status -> ack', () => {
  let k: TestKernel;
  let graph: Server;
  const calls: GraphCall[] = [];
  let adminA: TestUser;
  let adminB: TestUser;
  let sockA: Socket;
  let sockB: Socket;
  const seenA: { event: string; payload: any }[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
  const seenB: string[] = [];

  const post = (body: Record<string, unknown>, account: string) => {
    const bytes = metaSerialize(rewriteAccount(body, account)!.body);
    return k.app.inject({ method: 'POST', url: '/webhook', payload: bytes, headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(bytes, SECRET) } });
  };

  beforeAll(async () => {
    graph = await startGraph(calls);
    const graphUrl = `http://127.0.0.1:${(graph.address() as AddressInfo).port}`;
    k = await createTestKernel({ plugins: PLUGINS, env: { ...SHARED_ENV, CHANNELS_META_GRAPH_URL: graphUrl } });
    const a = await k.createCompany();
    const b = await k.createCompany();
    adminA = a.admin;
    adminB = b.admin;
    for (const [admin, phone] of [[adminA, PHONE_A], [adminB, PHONE_B]] as const) {
      const res = await k.as(admin, 'POST', '/whatsapp', { name: `Cloud ${phone}`, channel: 'whatsappapi', facebookPageUserId: phone, facebookUserToken: admin === adminA ? TOKEN_A : 'other-token' });
      expect(res.statusCode).toBe(200);
    }
    const page = await k.as(adminA, 'POST', '/whatsapp', { name: 'Messenger A', channel: 'facebook', facebookPageUserId: PAGE_A, facebookUserToken: TOKEN_A });
    expect(page.statusCode).toBe(200);
    const base = await k.listen();
    sockA = await k.socket(adminA.token, base);
    sockB = await k.socket(adminB.token, base);
    sockA.onAny((event, payload) => seenA.push({ event, payload }));
    sockB.onAny((event) => seenB.push(event));
  });

  afterAll(async () => {
    sockA?.close();
    sockB?.close();
    await k?.close();
    await new Promise((r) => graph?.close(r));
  });

  test('the whole flow', async () => {
    const cid = adminA.companyId;
    // Handshake.
    const hs = await k.app.inject({ method: 'GET', url: '/webhook?hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=12345' });
    expect(hs.statusCode).toBe(200);
    expect(hs.body).toBe('12345');

    // Inbound text: contact, pending ticket, message, live event.
    const text = fixture('text.json');
    expect((await post(text, PHONE_A)).statusCode).toBe(200);
    const created = await waitFor(() => seenA.find((e) => e.event === `company-${cid}-appMessage` && e.payload.action === 'create'), 10000) as { event: string; payload: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(created.payload.message.body).toBe('Hi! Do you have this jacket in size M?');
    expect(created.payload.message.fromMe).toBe(false);
    const ticketId: number = created.payload.ticket.id;
    const ticket = await k.db('tickets').where({ id: ticketId }).first();
    expect(ticket).toMatchObject({ companyId: cid, status: 'pending', unreadMessages: 1, channel: 'whatsappapi' });
    const contact = await k.db('contacts').where({ id: ticket.contactId }).first();
    expect(contact).toMatchObject({ companyId: cid, number: '15555550123', name: 'Alex Example' });

    // A wrong signature is refused and stores nothing.
    const bytes = metaSerialize(rewriteAccount(text, PHONE_A)!.body);
    const forged = await k.app.inject({ method: 'POST', url: '/webhook', payload: bytes, headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(bytes, 'not-the-secret') } });
    expect(forged.statusCode).toBe(401);

    // Redelivery of the same webhook stores nothing twice.
    expect((await post(text, PHONE_A)).statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 700));
    expect(Number((await k.db('messages').where({ companyId: cid }).count({ n: '*' }))[0].n)).toBe(1);
    expect(Number((await k.db('tickets').where({ companyId: cid }).count({ n: '*' }))[0].n)).toBe(1);

    // An image: the media is downloaded through the Graph API into the upload store and served signed.
    expect((await post(fixture('image-with-caption.json'), PHONE_A)).statusCode).toBe(200);
    const image = (await waitFor(() => seenA.find((e) => e.event === `company-${cid}-appMessage` && e.payload.action === 'create' && e.payload.message.mediaType === 'image'), 10000)) as { payload: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(image.payload.message.mediaUrl).toMatch(/\/public\/company\d+\/messages\//);
    const file = await k.app.inject({ method: 'GET', url: new URL(image.payload.message.mediaUrl).pathname + new URL(image.payload.message.mediaUrl).search });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(calls.some((c) => c.path.startsWith('/1709782812782215') && c.auth === `Bearer ${TOKEN_A}`)).toBe(true);

    // The ticket has no queue (the connection has none). Once the company has a queue, accepting asks for one
    // (a company with no queue at all accepts without: issue 31 item 2), then takes it.
    const support = await k.as(adminA, 'POST', '/queue', { name: 'Suporte', color: '#654321' });
    expect(support.statusCode).toBe(200);
    const noQueue = await k.as(adminA, 'PUT', `/tickets/${ticketId}`, { status: 'open', userId: adminA.id });
    expect(noQueue.statusCode).toBe(400);
    const accept = await k.as(adminA, 'PUT', `/tickets/${ticketId}`, { status: 'open', userId: adminA.id, queueId: support.json().id });
    expect(accept.statusCode).toBe(200);
    expect(accept.json()).toMatchObject({ status: 'open', userId: adminA.id, queueId: support.json().id });
    const reply = await k.as(adminA, 'POST', `/messages/${ticketId}`, { body: 'Temos sim! Tamanho M disponível.', signMessage: false });
    expect(reply.statusCode).toBe(200);
    const messageId: number = reply.json().id;

    // The reply reaches the Graph server with the right recipient, text and token.
    const call = await waitFor(() => calls.find((c) => c.path.includes(`/${PHONE_A}/messages`) && (c.body.text as { body?: string } | undefined)?.body?.includes('Tamanho M')), 10000) as GraphCall;
    expect(call.body).toMatchObject({ messaging_product: 'whatsapp', to: '15555550123', type: 'text' });
    expect(call.auth).toBe(`Bearer ${TOKEN_A}`);
    const sent = await waitFor(async () => {
      const m = await k.db('messages').where({ id: messageId }).first();
      return m?.wid ? m : undefined;
    }, 10000);
    expect(sent.ack).toBe(1);

    // A status webhook for that wamid moves the ack to read (3), live.
    const status = fixture('status-read.json');
    ((((status.entry as any[])[0].changes[0].value.statuses) as any[])[0]).id = sent.wid; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect((await post(status, PHONE_A)).statusCode).toBe(200);
    await waitFor(async () => (await k.db('messages').where({ id: messageId }).first()).ack === 3, 10000);
    await waitFor(() => seenA.find((e) => e.event === `company-${cid}-appMessage` && e.payload.action === 'update' && e.payload.message.id === messageId && e.payload.message.ack === 3), 5000);

    // Transfer to another department, then close.
    const queue = await k.as(adminA, 'POST', '/queue', { name: 'Vendas', color: '#123456' });
    expect(queue.statusCode).toBe(200);
    const transfer = await k.as(adminA, 'PUT', `/tickets/${ticketId}`, { queueId: queue.json().id, userId: null, status: 'pending' });
    expect(transfer.statusCode).toBe(200);
    expect(transfer.json()).toMatchObject({ status: 'pending', queueId: queue.json().id, userId: null });
    const close = await k.as(adminA, 'PUT', `/tickets/${ticketId}`, { status: 'closed', sendFarewellMessage: false });
    expect(close.statusCode).toBe(200);
    expect(close.json().status).toBe('closed');

    // A Messenger message: the webhook has no name; the contact gets it from the Graph profile.
    const messenger = JSON.parse(readFileSync(join(FIXTURES, 'messenger', 'text.json'), 'utf8')) as Record<string, unknown>;
    expect((await post(messenger, PAGE_A)).statusCode).toBe(200);
    const named = await waitFor(async () => {
      const c = await k.db('contacts').where({ companyId: cid, channel: 'facebook' }).first();
      return c?.name === 'Maria Souza' ? c : undefined;
    }, 10000);
    expect(named.number).toBe('9990000000000017');
    expect(calls.some((c) => c.path.startsWith('/9990000000000017') && c.auth === `Bearer ${TOKEN_A}`)).toBe(true);

    // Company B saw nothing of company A.
    expect(seenB.filter((e) => e.includes('appMessage') || e.includes('ticket'))).toEqual([]);
    expect(seenB.some((e) => e.includes(`company-${cid}-`))).toBe(false);
  });

  // Issue 33 item 5 (the measured defect): a contact saved as 55 11 9XXXX-XXXX writes from its 12-digit
  // WhatsApp id (the Cloud API's `wa_id` of many numbers registered before the ninth digit).
  test('WhatsApp Cloud: a contact saved with the 9th digit writing from its 12-digit wa_id gets no second contact or ticket; the reply goes to the wa_id', async () => {
    const cid = adminA.companyId;
    const saved = await k.as(adminA, 'POST', '/contacts', { name: 'Cliente Nove', number: '+55 11 98765-0042' });
    expect(saved.statusCode).toBe(200);
    expect(saved.json().number).toBe('5511987650042');
    const webhook = (wamid: string, body: string) => {
      const w = JSON.parse(JSON.stringify(fixture('text.json'))) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
      const value = w.entry[0].changes[0].value;
      value.contacts[0] = { profile: { name: 'Cliente' }, wa_id: '551187650042' };
      Object.assign(value.messages[0], { from: '551187650042', id: wamid, text: { body } });
      return w as Record<string, unknown>;
    };
    expect((await post(webhook('wamid.NINE1', 'Oi, é a cliente'), PHONE_A)).statusCode).toBe(200);
    expect((await post(webhook('wamid.NINE2', 'Ainda aí?'), PHONE_A)).statusCode).toBe(200);
    const rows = await waitFor(async () => {
      const m = await k.db('messages').where({ companyId: cid }).whereIn('wid', ['wamid.NINE1', 'wamid.NINE2']);
      return m.length === 2 ? m : undefined;
    }, 10000);
    expect(rows!.map((m: { contactId: number }) => m.contactId)).toEqual([saved.json().id, saved.json().id]);
    expect(new Set(rows!.map((m: { ticketId: number }) => m.ticketId)).size).toBe(1);
    expect(await k.db('contacts').where({ companyId: cid, number: '551187650042' }).first()).toBeUndefined();
    const ticketId = rows![0].ticketId as number;
    expect((await k.as(adminA, 'PUT', `/tickets/${ticketId}`, { status: 'open', userId: adminA.id, queueId: (await k.db('queues').where({ companyId: cid }).first('id')).id })).statusCode).toBe(200);
    expect((await k.as(adminA, 'POST', `/messages/${ticketId}`, { body: 'Olá! Em que posso ajudar?', signMessage: false })).statusCode).toBe(200);
    const call = await waitFor(() => calls.find((c) => (c.body.text as { body?: string } | undefined)?.body === 'Olá! Em que posso ajudar?'), 10000) as GraphCall;
    // To the id WhatsApp gave (the contact keeps the number it was saved with).
    expect(call.body.to).toBe('551187650042');
    expect(await k.db('contacts').where({ id: saved.json().id }).first()).toMatchObject({ number: '5511987650042', remoteJid: '551187650042@s.whatsapp.net' });
  });

  // Two kernel processes sharing PostgreSQL and RabbitMQ: a message received by one reaches a socket
  // connected to the other. Needs RabbitMQ (the in-process bus is one process by definition).
  (process.env.AMQP_URL ? test : test.skip)('two kernels: a webhook received by one is pushed by the other', async () => {
    const k2 = await createTestKernel({ plugins: PLUGINS, dbName: k.dbName, env: { ...SHARED_ENV, CHANNELS_META_GRAPH_URL: 'http://127.0.0.1:9' } });
    try {
      const base2 = await k2.listen();
      const sock2 = await k2.socket(adminA.token, base2);
      const got: any[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
      sock2.on(`company-${adminA.companyId}-appMessage`, (p) => got.push(p));
      const before = seenA.length;
      const other = fixture('location.json'); // not posted by the first test (a redelivery would store nothing)
      expect((await post(other, PHONE_A)).statusCode).toBe(200);
      // Whichever process consumed the webhook, the sockets of BOTH processes get the event, so one of
      // them got it from the other process through the bus.
      const ev = await waitFor(() => got.find((p) => p.action === 'create' && !p.message.fromMe), 10000);
      expect(ev.ticket.companyId).toBe(adminA.companyId);
      await waitFor(() => seenA.slice(before).find((e) => e.event === `company-${adminA.companyId}-appMessage` && e.payload.message?.id === ev.message.id), 10000);
      sock2.close();
    } finally {
      await k2.close();
    }
  });
});
