import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { BusMessage, MessageSentEvent, SendCommand } from '@atendo/sdk';
import { createTestKernel, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import connectionsPlugin from '@atendo/plugin-connections';
import channelsPlugin from '../src/index';
import { channelsService, type MetaSendFailedEvent } from '../src/contract';
import { capture, createConnection, sleep } from './helpers';

const WA_PHONE = '104512345678901';
const FB_PAGE = '999000000000001';
const IG_ACCOUNT = '17841400000000042';

interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
  json?: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}
type Reply = { status: number; body: unknown; headers?: Record<string, string> };

/** A local stand-in for graph.facebook.com: records requests, answers from a queue (else a default per path). */
class FakeGraph {
  server!: Server;
  seen: Seen[] = [];
  queue: Reply[] = [];
  base = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://x');
        const body = Buffer.concat(chunks);
        let json: unknown;
        if (String(req.headers['content-type']).startsWith('application/json')) json = JSON.parse(body.toString());
        const seen: Seen = { method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, body, json };
        this.seen.push(seen);
        const reply = this.queue.shift() ?? this.defaultReply(seen);
        res.writeHead(reply.status, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
        res.end(JSON.stringify(reply.body));
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v25.0`;
  }

  private defaultReply(s: Seen): Reply {
    if (s.path.endsWith('/media')) return { status: 200, body: { id: 'MEDIA-1' } };
    if (s.path === `/v25.0/${WA_PHONE}/messages`) return { status: 200, body: { messaging_product: 'whatsapp', contacts: [{ input: 'x', wa_id: 'x' }], messages: [{ id: `wamid.SENT${this.seen.length}`, message_status: 'accepted' }] } };
    if (s.path.endsWith('/messages')) return { status: 200, body: { recipient_id: s.json?.recipient?.id, message_id: `m_SENT${this.seen.length}` } };
    return { status: 200, body: { first_name: 'Ana', last_name: 'Souza', profile_pic: 'https://cdn.example/p.jpg', id: s.path.split('/').pop() } };
  }

  stop(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

describe('outbound: message.send through the Meta adapters', () => {
  const graph = new FakeGraph();
  let k: TestKernel;
  let A: { companyId: number; admin: TestUser };
  let B: { companyId: number; admin: TestUser };
  const conn: Record<string, number> = {};
  let sent: BusMessage<MessageSentEvent>[];
  let failed: BusMessage<MetaSendFailedEvent>[];
  let nextMessageId = 1000;

  beforeAll(async () => {
    await graph.start();
    k = await createTestKernel({
      plugins: [connectionsPlugin, channelsPlugin],
      env: {
        CHANNELS_META_GRAPH_URL: graph.base,
        CHANNELS_OUTBOUND_RETRIES: '3',
        CHANNELS_OUTBOUND_RETRY_DELAY_MS: '20',
        CHANNELS_OUTBOUND_MAX_DELAY_MS: '80',
        CHANNELS_GRAPH_TIMEOUT_MS: '2000',
        // Durable retries after the quick ones: 3 s from the first attempt, the first 100 ms later.
        CHANNELS_SEND_RETRY_HOURS: String(3 / 3600),
        CHANNELS_SEND_RETRY_FIRST_DELAY_MS: '100',
        BACKEND_URL: 'https://api.atendo.test',
      },
    });
    A = await k.createCompany();
    B = await k.createCompany();
    conn.wa = await createConnection(k, A.admin, 'whatsappapi', WA_PHONE, 'token-wa-a');
    conn.fb = await createConnection(k, A.admin, 'facebook', FB_PAGE, 'token-fb-a');
    conn.ig = await createConnection(k, B.admin, 'instagram', IG_ACCOUNT, 'token-ig-b');
    sent = await capture<MessageSentEvent>(k, 'message.sent');
    failed = await capture<MetaSendFailedEvent>(k, 'message.failed');
  });
  afterAll(async () => {
    await k?.close();
    await graph.stop();
  });
  beforeEach(() => {
    graph.seen = [];
    graph.queue = [];
    sent.length = 0;
    failed.length = 0;
  });

  const dlq = () => k.services.get(channelsService).queues.outbound;
  const send = async (cmd: Partial<SendCommand>): Promise<number> => {
    const messageId = nextMessageId++;
    await k.bus.publish(`message.send.${cmd.channel}`, { messageId, ticketId: 77, ...cmd });
    return messageId;
  };

  test('WhatsApp Cloud text: right path, bearer token, recipient, text and quoted reply; message.sent with the wamid', async () => {
    const messageId = await send({ companyId: A.companyId, connectionId: conn.wa, channel: 'whatsappapi', to: '5511999990000', body: 'Olá! Seu pedido saiu 🚚', quotedWid: 'wamid.QUOTED' });
    await waitFor(() => sent.length === 1);
    expect(graph.seen).toHaveLength(1);
    const [req] = graph.seen;
    expect([req.method, req.path, req.headers.authorization]).toEqual(['POST', `/v25.0/${WA_PHONE}/messages`, 'Bearer token-wa-a']);
    expect(req.query.toString()).toBe(''); // the token never travels in the URL
    expect(req.json).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '5511999990000',
      context: { message_id: 'wamid.QUOTED' },
      type: 'text',
      text: { body: 'Olá! Seu pedido saiu 🚚', preview_url: false },
    });
    expect(sent[0].payload).toEqual({ companyId: A.companyId, messageId, ticketId: 77, connectionId: conn.wa, channel: 'whatsappapi', wid: 'wamid.SENT1' });
    expect(failed).toEqual([]);
  });

  test('Messenger text: /{PAGE_ID}/messages with RESPONSE and reply_to; message.sent with the mid', async () => {
    const messageId = await send({ companyId: A.companyId, connectionId: conn.fb, channel: 'facebook', to: '9990000000000017', body: 'Obrigado!', quotedWid: 'm_QUOTED' });
    await waitFor(() => sent.length === 1);
    const [req] = graph.seen;
    expect([req.path, req.headers.authorization]).toEqual([`/v25.0/${FB_PAGE}/messages`, 'Bearer token-fb-a']);
    expect(req.json).toEqual({ recipient: { id: '9990000000000017' }, messaging_type: 'RESPONSE', message: { text: 'Obrigado!' }, reply_to: { mid: 'm_QUOTED' } });
    expect(sent[0].payload).toMatchObject({ companyId: A.companyId, messageId, channel: 'facebook', wid: 'm_SENT1' });
  });

  test('Instagram media: attachment by our signed URL, then the caption as text; long texts are split at 1000 bytes', async () => {
    const messageId = await send({
      companyId: B.companyId,
      connectionId: conn.ig,
      channel: 'instagram',
      to: '9990000000000023',
      body: 'Segue a foto',
      media: { path: 'messages/photo 1.jpg', mimeType: 'image/jpeg', fileName: 'photo 1.jpg' },
    });
    await waitFor(() => sent.length === 1 && graph.seen.length === 2);
    const [att, caption] = graph.seen;
    expect([att.path, att.headers.authorization]).toEqual(['/v25.0/me/messages', 'Bearer token-ig-b']);
    expect(att.json.message.attachment.type).toBe('image');
    expect(att.json.message.attachment.payload.is_reusable).toBe(false);
    expect(att.json.message.attachment.payload.url).toMatch(new RegExp(`^https://api\\.atendo\\.test/public/company${B.companyId}/messages/photo%201\\.jpg\\?e=\\d+&t=[A-Za-z0-9_-]+$`));
    expect(caption.json).toEqual({ recipient: { id: '9990000000000023' }, messaging_type: 'RESPONSE', message: { text: 'Segue a foto' } });
    expect(sent[0].payload).toMatchObject({ messageId, wid: 'm_SENT1' });

    graph.seen = [];
    sent.length = 0;
    const long = 'ação '.repeat(300); // 1500 characters, 2100 UTF-8 bytes
    expect(Buffer.byteLength(long)).toBe(2100);
    await send({ companyId: B.companyId, connectionId: conn.ig, channel: 'instagram', to: '9990000000000023', body: long });
    await waitFor(() => sent.length === 1 && graph.seen.length === 3);
    expect(graph.seen.map((s) => Buffer.byteLength(s.json.message.text) <= 1000)).toEqual([true, true, true]);
    expect(graph.seen.map((s) => s.json.message.text).join('')).toBe(long);
  });

  test('WhatsApp Cloud media: our stored file is uploaded first, then sent by media id with its caption', async () => {
    const dir = join(k.config.uploadsDir, `company${A.companyId}`, 'messages');
    mkdirSync(dir, { recursive: true });
    const bytes = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4]);
    writeFileSync(join(dir, 'box.jpg'), bytes);
    await send({ companyId: A.companyId, connectionId: conn.wa, channel: 'whatsappapi', to: '5511999990000', body: 'A caixa', media: { path: 'messages/box.jpg', mimeType: 'image/jpeg', fileName: 'box.jpg' } });
    await waitFor(() => sent.length === 1);
    const [upload, msg] = graph.seen;
    expect([upload.path, upload.headers.authorization]).toEqual([`/v25.0/${WA_PHONE}/media`, 'Bearer token-wa-a']);
    expect(String(upload.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
    const text = upload.body.toString('latin1');
    expect(text).toContain('name="messaging_product"\r\n\r\nwhatsapp');
    expect(text).toContain('name="type"\r\n\r\nimage/jpeg');
    expect(text).toContain('filename="box.jpg"');
    expect(upload.body.includes(bytes)).toBe(true);
    expect(msg.json).toEqual({ messaging_product: 'whatsapp', recipient_type: 'individual', to: '5511999990000', type: 'image', image: { id: 'MEDIA-1', caption: 'A caixa' } });
    expect(sent[0].payload.wid).toBe('wamid.SENT2');

    // a path escaping the company's folder is never read: sent by nothing -> permanent failure
    graph.seen = [];
    sent.length = 0;
    const messageId = await send({ companyId: A.companyId, connectionId: conn.wa, channel: 'whatsappapi', to: '5511999990000', media: { path: '../../secrets.json', mimeType: 'application/json', fileName: 'secrets.json' } });
    await waitFor(() => failed.length === 1);
    expect(graph.seen).toEqual([]);
    expect(failed[0].payload).toMatchObject({ messageId, error: { code: 'ERR_SENDING_WAPP_MSG', retryable: false } });
  });

  test('130429 (throughput) and 5xx are retried with backoff; success publishes message.sent once', async () => {
    graph.queue.push(
      { status: 400, body: { error: { message: '(#130429) Rate limit hit', type: 'OAuthException', code: 130429, fbtrace_id: 'T1' } } },
      { status: 503, body: { error: { message: 'Service unavailable', code: 2, is_transient: true } } },
    );
    const started = Date.now();
    const messageId = await send({ companyId: A.companyId, connectionId: conn.wa, channel: 'whatsappapi', to: '5511999990000', body: 'retry me' });
    await waitFor(() => sent.length === 1);
    expect(graph.seen).toHaveLength(3);
    expect(graph.seen.every((s) => s.json.text.body === 'retry me')).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(20 + 40); // 20 ms, then doubled
    expect(sent[0].payload).toMatchObject({ messageId, wid: 'wamid.SENT3' });
    await sleep(50);
    expect(failed).toEqual([]);
    expect(sent).toHaveLength(1);
  });

  test('a permanent Graph error (131047, outside the window) publishes message.failed at once: a definite answer, nothing to redrive', async () => {
    graph.queue.push({ status: 400, body: { error: { message: '(#131047) Re-engagement message', type: 'OAuthException', code: 131047, error_data: { details: 'More than 24 hours have passed' }, fbtrace_id: 'T2' } } });
    const dlqBefore = (await k.bus.deadLetters(dlq())).length;
    const messageId = await send({ companyId: A.companyId, connectionId: conn.wa, channel: 'whatsappapi', to: '5511999990000', body: 'late' });
    await waitFor(() => failed.length === 1);
    expect(failed[0].payload).toEqual({
      companyId: A.companyId,
      messageId,
      ticketId: 77,
      connectionId: conn.wa,
      channel: 'whatsappapi',
      error: { code: '131047', text: '(#131047) Re-engagement message: More than 24 hours have passed', retryable: false },
    });
    await new Promise((r) => setTimeout(r, 300));
    expect((await k.bus.deadLetters(dlq())).length).toBe(dlqBefore);
    expect(graph.seen).toHaveLength(1);
    expect(sent).toEqual([]);
  });

  test('a provider failing for the whole retry window: quick retries, then durable ones, then message.failed (retryable) with its reason', async () => {
    for (let i = 0; i < 40; i++) graph.queue.push({ status: 500, body: { error: { message: 'An unknown error occurred', code: 1 } } });
    const messageId = await send({ companyId: A.companyId, connectionId: conn.fb, channel: 'facebook', to: '9990000000000017', body: 'x' });
    await waitFor(() => failed.length === 1, 15_000);
    // 1 + 3 quick attempts, then at least one durable retry before the window (3 s) ended.
    expect(graph.seen.length).toBeGreaterThanOrEqual(5);
    expect(failed[0].payload).toMatchObject({ messageId, error: { code: '1', text: expect.stringContaining('An unknown error occurred'), retryable: true } });
    expect(sent).toEqual([]);
    graph.queue = [];
  });

  test('an outage longer than the quick retries: the send is retried durably and delivered once, when the provider is back', async () => {
    for (let i = 0; i < 6; i++) graph.queue.push({ status: 503, body: { error: { message: 'Service temporarily unavailable', code: 2, is_transient: true } } });
    const messageId = await send({ companyId: A.companyId, connectionId: conn.wa, channel: 'whatsappapi', to: '5511999990000', body: 'outage' });
    await waitFor(() => sent.length === 1, 15_000);
    expect(sent[0].payload).toMatchObject({ messageId, wid: expect.stringMatching(/^wamid\.SENT/) });
    expect(graph.seen).toHaveLength(7);
    expect(failed).toEqual([]);
    // Delivered again (a relay after a crash, a redrive): answered from the send ledger, not sent twice.
    await k.bus.publish('message.send.whatsappapi', { messageId, ticketId: 77, companyId: A.companyId, connectionId: conn.wa, channel: 'whatsappapi', to: '5511999990000', body: 'outage' });
    await waitFor(() => sent.length === 2);
    expect(sent[1].payload.wid).toBe(sent[0].payload.wid);
    expect(graph.seen).toHaveLength(7);
  });

  test("a command naming another company's connection is refused without calling Graph (message.failed ERR_NO_WAPP_FOUND)", async () => {
    const messageId = await send({ companyId: B.companyId, connectionId: conn.wa, channel: 'whatsappapi', to: '5511999990000', body: 'steal' });
    await waitFor(() => failed.length === 1);
    expect(failed[0].payload).toMatchObject({ companyId: B.companyId, messageId, error: { code: 'ERR_NO_WAPP_FOUND', retryable: false } });
    // a channel mismatch is refused too
    await send({ companyId: A.companyId, connectionId: conn.wa, channel: 'facebook', to: '1', body: 'x' });
    await waitFor(() => failed.length === 2);
    expect(failed[1].payload.error.code).toBe('ERR_SENDING_WAPP_MSG');
    expect(graph.seen).toEqual([]);
  });

  test("Baileys ('whatsapp') commands are not this consumer's: no call, no event", async () => {
    await send({ companyId: A.companyId, connectionId: conn.wa, channel: 'whatsapp', to: '5511999990000', body: 'baileys' });
    await sleep(150);
    expect(graph.seen).toEqual([]);
    expect(sent).toEqual([]);
    expect(failed).toEqual([]);
  });

  test('malformed commands fail permanently (nothing sent)', async () => {
    await k.bus.publish('message.send.facebook', { companyId: A.companyId, messageId: 5555, connectionId: 'x', channel: 'facebook', to: '1' });
    await waitFor(() => failed.length === 1);
    expect(failed[0].payload).toMatchObject({ companyId: A.companyId, messageId: 5555, error: { code: 'ERR_VALIDATION' } });
    await send({ companyId: A.companyId, connectionId: conn.fb, channel: 'facebook', to: '9990000000000017', body: '   ' });
    await waitFor(() => failed.length === 2);
    expect(graph.seen).toEqual([]);
  });

  test('a system message (messageId and ticketId 0, e.g. a password-reset code) is sent and reported with messageId 0', async () => {
    for (let i = 0; i < 2; i++) {
      await k.bus.publish('message.send.whatsappapi', { companyId: A.companyId, messageId: 0, ticketId: 0, connectionId: conn.wa, channel: 'whatsappapi', to: '5511988887777', body: `Seu código é 12345${i}` });
    }
    // Two results, not one: results of id 0 carry no dedupe id of their own.
    await waitFor(() => sent.length === 2);
    expect(graph.seen.map((r) => r.json?.text?.body)).toEqual(['Seu código é 123450', 'Seu código é 123451']);
    expect(sent[0].payload).toMatchObject({ companyId: A.companyId, messageId: 0, connectionId: conn.wa, channel: 'whatsappapi' });
    expect(sent[0].payload.ticketId).toBeUndefined();
    expect(sent[0].id).not.toBe(sent[1].id);
    // A refused one reports message.failed with messageId 0.
    await k.bus.publish('message.send.instagram', { companyId: A.companyId, messageId: 0, ticketId: 0, connectionId: conn.ig, channel: 'instagram', to: '1', body: 'x' });
    await waitFor(() => failed.length === 1);
    expect(failed[0].payload).toMatchObject({ companyId: A.companyId, messageId: 0, error: { code: 'ERR_NO_WAPP_FOUND' } });
  });

  test('the channels service reads contact profiles (Messenger first/last name, Instagram name/username)', async () => {
    const svc = k.services.get(channelsService);
    await expect(svc.fetchProfile(A.companyId, conn.fb, '9990000000000017')).resolves.toEqual({ name: 'Ana Souza', firstName: 'Ana', lastName: 'Souza', pictureUrl: 'https://cdn.example/p.jpg' });
    expect(graph.seen[0].path).toBe('/v25.0/9990000000000017');
    expect(graph.seen[0].query.get('fields')).toBe('first_name,last_name,profile_pic');
    expect(graph.seen[0].headers.authorization).toBe('Bearer token-fb-a');
    graph.queue.push({ status: 200, body: { name: 'Bia', username: 'bia.shop', profile_pic: 'https://cdn.example/b.jpg' } });
    await expect(svc.fetchProfile(B.companyId, conn.ig, '9990000000000023')).resolves.toEqual({ name: 'Bia', username: 'bia.shop', pictureUrl: 'https://cdn.example/b.jpg' });
    expect(graph.seen[1].query.get('fields')).toBe('name,username,profile_pic');
    // another company's connection: unknown
    await expect(svc.fetchProfile(B.companyId, conn.fb, '9990000000000017')).resolves.toBeUndefined();
    expect(graph.seen).toHaveLength(2);
  });
});
