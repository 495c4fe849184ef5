import { createHash } from 'node:crypto';
import { isEnvelope, type BusMessage, type Envelope } from '@atendo/sdk';
import { createTestKernel, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import { signBody } from '@atendo/channel-meta-common';
import connectionsPlugin from '@atendo/plugin-connections';
import channelsPlugin from '../src/index';
import { channelsService, META_INBOX_SOURCE, WEBHOOK_QUEUE } from '../src/contract';
import { capture, createConnection, fixture, metaCompact, recordInbox, sleep, type Accepted } from './helpers';

const SECRET = 'meta-app-secret-for-webhook-tests';
const VERIFY = 'verify-token-for-webhook-tests';
const WA_PHONE = '104512345678901';
const WA_PHONE_B = '104500000000002';
const FB_PAGE = '999000000000001';
const IG_ACCOUNT = '17841400000000042';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('Meta webhook: handshake, signature, queueing, routing', () => {
  let k: TestKernel;
  let A: { companyId: number; admin: TestUser };
  let B: { companyId: number; admin: TestUser };
  const conn: Record<string, number> = {};
  let inbound: BusMessage<Envelope>[];
  let queued: Accepted[];
  let webhookQueue: string;

  beforeAll(async () => {
    // The plain META_* names (the kernel's environment) configure the plugin; CHANNELS_* is tested below.
    k = await createTestKernel({ plugins: [connectionsPlugin, channelsPlugin], env: { META_APP_SECRET: SECRET, META_VERIFY_TOKEN: VERIFY, CHANNELS_WEBHOOK_RETRY_DELAY_MS: '10' } });
    webhookQueue = k.services.get(channelsService).queues.webhooks;
    expect(webhookQueue.endsWith(WEBHOOK_QUEUE)).toBe(true);
    A = await k.createCompany();
    B = await k.createCompany();
    conn.waA = await createConnection(k, A.admin, 'whatsappapi', WA_PHONE, 'token-wa-a');
    conn.fbA = await createConnection(k, A.admin, 'facebook', FB_PAGE, 'token-fb-a');
    conn.igB = await createConnection(k, B.admin, 'instagram', IG_ACCOUNT, 'token-ig-b');
    conn.waB = await createConnection(k, B.admin, 'whatsappapi', WA_PHONE_B, 'token-wa-b');
    inbound = await capture<Envelope>(k, 'channel.inbound.#');
    queued = recordInbox(k);
  });
  afterAll(async () => {
    await k?.close();
  });
  beforeEach(() => {
    inbound.length = 0;
    queued.length = 0;
  });

  const post = (raw: string | Buffer, headers: Record<string, string> = {}) =>
    k.app.inject({ method: 'POST', url: '/webhook', payload: raw, headers: { 'content-type': 'application/json', ...headers } });
  const signed = (raw: string | Buffer, secret = SECRET) => post(raw, { 'x-hub-signature-256': signBody(Buffer.from(raw), secret) });
  const expectError = (res: { statusCode: number; json(): Json }, status: number, code: string) => expect({ status: res.statusCode, error: res.json().error }).toEqual({ status, error: code });

  describe('GET /webhook handshake', () => {
    test('subscribe with the right token echoes the challenge as text/plain', async () => {
      const res = await k.app.inject({ method: 'GET', url: `/webhook?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=${VERIFY}` });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.body).toBe('1158201444');
      const str = await k.app.inject({ method: 'GET', url: `/webhook?hub.verify_token=${VERIFY}&hub.challenge=CHALLENGE_ACCEPTED&hub.mode=subscribe` });
      expect(str.body).toBe('CHALLENGE_ACCEPTED');
    });

    test('a wrong or missing token, another mode or no parameters: 403 ERR_NO_PERMISSION', async () => {
      for (const qs of [
        'hub.mode=subscribe&hub.challenge=1&hub.verify_token=wrong',
        `hub.mode=subscribe&hub.challenge=1&hub.verify_token=${VERIFY}x`,
        'hub.mode=subscribe&hub.challenge=1',
        `hub.mode=unsubscribe&hub.challenge=1&hub.verify_token=${VERIFY}`,
        `hub.challenge=1&hub.verify_token=${VERIFY}`,
        '',
      ]) {
        const res = await k.app.inject({ method: 'GET', url: `/webhook?${qs}` });
        expectError(res, 403, 'ERR_NO_PERMISSION');
        expect(res.body).not.toContain(VERIFY);
      }
    });

    test('an oversized challenge is a 400 ERR_VALIDATION', async () => {
      expectError(await k.app.inject({ method: 'GET', url: `/webhook?hub.mode=subscribe&hub.verify_token=${VERIFY}&hub.challenge=${'9'.repeat(1001)}` }), 400, 'ERR_VALIDATION');
    });
  });

  describe('POST /webhook', () => {
    test('a missing or wrong signature: 401 ERR_INVALID_SIGNATURE, nothing queued or published', async () => {
      const raw = metaCompact(fixture('whatsapp-cloud', 'text.json'));
      expectError(await post(raw), 401, 'ERR_INVALID_SIGNATURE');
      expectError(await post(raw, { 'x-hub-signature-256': 'sha256=' }), 401, 'ERR_INVALID_SIGNATURE');
      expectError(await post(raw, { 'x-hub-signature-256': signBody(raw, 'another-secret') }), 401, 'ERR_INVALID_SIGNATURE');
      expectError(await post(raw, { 'x-hub-signature-256': signBody(`${raw} `, SECRET) }), 401, 'ERR_INVALID_SIGNATURE');
      expectError(await post(raw, { 'x-hub-signature': 'sha1=' + createHash('sha1').update(raw).digest('hex') }), 401, 'ERR_INVALID_SIGNATURE');
      await sleep(150);
      expect(queued).toEqual([]);
      expect(inbound).toEqual([]);
      expect(await k.bus.deadLetters(webhookQueue)).toEqual([]);
    });

    test('a signed WhatsApp body: 200 {received:true} after queueing; envelopes published with the company and connection', async () => {
      const raw = metaCompact(fixture('whatsapp-cloud', 'text.json'));
      const res = await signed(raw);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ received: true });
      // committed to the inbox before the answer (a row id), keyed by the sha256 of the raw bytes, the exact bytes
      expect(queued).toHaveLength(1);
      expect(queued[0]).toMatchObject({ source: META_INBOX_SOURCE, key: createHash('sha256').update(raw).digest('hex'), id: expect.any(Number), duplicate: false });
      expect(queued[0].payload.toString()).toBe(raw);
      expect(queued[0].meta).toEqual({ object: 'whatsapp_business_account', signedWith: 'app' });

      await waitFor(() => inbound.length === 1);
      const [m] = inbound;
      expect(m.topic).toBe('channel.inbound.whatsappapi.message');
      expect(m.id).toBe(m.payload.idempotencyKey);
      expect(isEnvelope(m.payload)).toBe(true);
      expect(m.payload).toMatchObject({
        companyId: A.companyId,
        connectionId: conn.waA,
        channel: 'whatsappapi',
        direction: 'in',
        kind: 'message',
        idempotencyKey: `whatsappapi:${conn.waA}:message:wamid.HBgLMTU1NTU1NTAxMjMVAgASGBQ5MkI4MUQ2RTFGODk2Mjg0N0FDMQA=`,
        thread: { externalId: '15555550123', isGroup: false },
        sender: { externalId: '15555550123', name: 'Alex Example' },
        content: { type: 'text', text: 'Hi! Do you have this jacket in size M?' },
      });
    });

    test('routing across companies: page -> company A, Instagram account -> company B, two phone ids in one body -> both', async () => {
      expect((await signed(metaCompact(fixture('messenger', 'text.json')))).statusCode).toBe(200);
      expect((await signed(metaCompact(fixture('instagram', 'text.json')))).statusCode).toBe(200);
      const two = fixture('whatsapp-cloud', 'status-read.json');
      const second = JSON.parse(JSON.stringify(two.entry[0]));
      second.changes[0].value.metadata.phone_number_id = WA_PHONE_B;
      second.changes[0].value.statuses[0].id = 'wamid.OTHER';
      two.entry.push(second);
      expect((await signed(metaCompact(two))).statusCode).toBe(200);
      await waitFor(() => inbound.length === 4);
      const seen = inbound.map((m) => [m.topic, m.payload.companyId, m.payload.connectionId, m.payload.externalId]).sort((a, b) => String(a[0] + String(a[3])).localeCompare(String(b[0]) + String(b[3])));
      expect(seen).toEqual(
        [
          ['channel.inbound.facebook.message', A.companyId, conn.fbA, 'm_sS6tSBHHNElxN2hNj1gCvh1Lk8sffgNYQQCQgd0XAitMjp25_87cutj8oa8PD8as_hDR8S7Td-0JRlvf9QR5pw'],
          ['channel.inbound.instagram.message', B.companyId, conn.igB, inbound.find((m) => m.payload.channel === 'instagram')!.payload.externalId],
          ['channel.inbound.whatsappapi.status', A.companyId, conn.waA, 'wamid.HBgLMTU1NTU1NTAxMjMVAgARGBQzRURGODdEQTZEQzJCRDlBMTQ4NAA='],
          ['channel.inbound.whatsappapi.status', B.companyId, conn.waB, 'wamid.OTHER'],
        ].sort((a, b) => String(a[0] + String(a[3])).localeCompare(String(b[0]) + String(b[3]))),
      );
      expect(inbound.find((m) => m.payload.channel === 'instagram')!.payload.content).toEqual({ type: 'text', text: 'Hello! Do you ship to Portugal?' });
    });

    test('the signature covers the exact bytes: \\uXXXX-escaped vs raw UTF-8 forms of the same JSON', async () => {
      const body = fixture('whatsapp-cloud', 'image-with-caption.json');
      const escaped = Buffer.from(metaCompact(body));
      const utf8 = Buffer.from(JSON.stringify(body));
      expect(escaped.toString()).toContain('\\ud83d\\ude15');
      expect(utf8.toString()).toContain('😕');
      expect(escaped.equals(utf8)).toBe(false);
      const header = signBody(escaped, SECRET);
      // Re-serializing (what a JSON body parser + JSON.stringify would do) breaks Meta's signature.
      expectError(await post(utf8, { 'x-hub-signature-256': header }), 401, 'ERR_INVALID_SIGNATURE');
      expect((await post(escaped, { 'x-hub-signature-256': header })).statusCode).toBe(200);
      await waitFor(() => inbound.length === 1);
      expect(inbound[0].payload.content?.text).toBe('This is the damaged box 😕');
      // Raw UTF-8 bytes are fine too when they are what was signed.
      expect((await signed(utf8)).statusCode).toBe(200);
      await waitFor(() => inbound.length === 2);
      expect(inbound[1].payload.idempotencyKey).toBe(inbound[0].payload.idempotencyKey);
    });

    test('malformed JSON: 400 ERR_INVALID_JSON; unknown object, arrays or scalars: 400 ERR_VALIDATION; nothing queued', async () => {
      expectError(await signed('{"object": "page", "entry": ['), 400, 'ERR_INVALID_JSON');
      expectError(await signed(''), 400, 'ERR_INVALID_JSON');
      expectError(await signed('{"object":"user","entry":[]}'), 400, 'ERR_VALIDATION');
      expectError(await signed('{"entry":[]}'), 400, 'ERR_VALIDATION');
      expectError(await signed('[{"object":"page"}]'), 400, 'ERR_VALIDATION');
      expectError(await signed('42'), 400, 'ERR_VALIDATION');
      expectError(await signed('{"object":"toString","entry":[]}'), 400, 'ERR_VALIDATION');
      await sleep(100);
      expect(queued).toEqual([]);
    });

    test('other content types: 415; bodies over 1 MiB: 413', async () => {
      const raw = metaCompact(fixture('messenger', 'text.json'));
      const res = await k.app.inject({ method: 'POST', url: '/webhook', payload: raw, headers: { 'content-type': 'text/plain', 'x-hub-signature-256': signBody(raw, SECRET) } });
      expectError(res, 415, 'ERR_UNSUPPORTED_MEDIA_TYPE');
      const big = JSON.stringify({ object: 'page', entry: [], pad: 'x'.repeat(1_048_600) });
      expectError(await signed(big), 413, 'ERR_PAYLOAD_TOO_LARGE');
      // ~1000 updates in one body (Meta's batch ceiling) fit under the limit and are all published
      const batch = fixture('whatsapp-cloud', 'status-read.json');
      const status = batch.entry[0].changes[0].value.statuses[0];
      batch.entry[0].changes[0].value.statuses = Array.from({ length: 1000 }, (_, i) => ({ ...status, id: `wamid.BATCH${i}` }));
      const batchRaw = metaCompact(batch);
      expect(batchRaw.length).toBeLessThan(1_048_576);
      expect((await signed(batchRaw)).statusCode).toBe(200);
      await waitFor(() => inbound.length === 1000, 10_000);
      expect(new Set(inbound.map((m) => m.payload.externalId)).size).toBe(1000);
    });

    test('one good and one malformed entry: the good one is published and the consumer keeps running', async () => {
      const body = fixture('messenger', 'text.json');
      body.entry.push({ id: FB_PAGE, messaging: [{ sender: {}, timestamp: 'x', message: 7 }] }, 'garbage', null);
      expect((await signed(metaCompact(body))).statusCode).toBe(200);
      await waitFor(() => inbound.length === 1);
      await sleep(50);
      expect(inbound.map((m) => m.payload.externalId)).toEqual(['m_sS6tSBHHNElxN2hNj1gCvh1Lk8sffgNYQQCQgd0XAitMjp25_87cutj8oa8PD8as_hDR8S7Td-0JRlvf9QR5pw']);
      expect(await k.bus.deadLetters(webhookQueue)).toEqual([]);
      // still consuming
      expect((await signed(metaCompact(fixture('messenger', 'reaction-react.json')))).statusCode).toBe(200);
      await waitFor(() => inbound.length === 2);
      expect(inbound[1].topic).toBe('channel.inbound.facebook.reaction');
    });

    test('a body whose entry is not an array passes the route but is dead-lettered in the inbox at once; processing goes on', async () => {
      const raw = '{"object":"page","entry":{"id":"1"}}';
      expect((await signed(raw)).statusCode).toBe(200);
      const deadRow = () => k.db.raw("SELECT payload, attempts, last_error FROM inbox_events WHERE source = ? AND state = 'dead'", [META_INBOX_SOURCE]).then((r: { rows: { payload: Buffer; attempts: number; last_error: string }[] }) => r.rows);
      await waitFor(async () => (await deadRow()).length === 1);
      const [dead] = await deadRow();
      expect(dead.attempts).toBe(1); // permanent: no retries
      expect(dead.payload.toString()).toBe(raw);
      expect(dead.last_error).toMatch(/PermanentError: webhook body has no known object or no entry array/);
      expect((await signed(metaCompact(fixture('messenger', 'read.json')))).statusCode).toBe(200);
      await waitFor(() => inbound.length === 1);
      expect(inbound[0].topic).toBe('channel.inbound.facebook.status');
    });

    test('unknown accounts are skipped (nothing published)', async () => {
      const body = fixture('messenger', 'text.json');
      body.entry[0].id = '123456789';
      expect((await signed(metaCompact(body))).statusCode).toBe(200);
      await waitFor(() => queued.length === 1);
      await sleep(150);
      expect(inbound).toEqual([]);
    });

    test('redelivery of the same body publishes envelopes with the same idempotency keys and ids', async () => {
      const raw = metaCompact(fixture('whatsapp-cloud', 'reaction.json'));
      expect((await signed(raw)).statusCode).toBe(200);
      await waitFor(() => inbound.length === 1);
      // Redelivered once the first is done and its inbox row deleted (until then it is a duplicate of it).
      await waitFor(async () => (await k.db('inboxEvents').where({ key: queued[0].key }).first()) === undefined);
      expect((await signed(raw)).statusCode).toBe(200);
      await waitFor(() => inbound.length === 2);
      const [a, b] = inbound;
      expect(a.id).toBe(b.id);
      expect(a.payload).toEqual(b.payload);
      expect(a.payload.idempotencyKey).toBe(`whatsappapi:${conn.waA}:reaction:wamid.HBgLMTU1NTU1NTAxMjMVAgARGBQzRURGODdEQTZEQzJCRDlBMTQ4NAA=:wamid.HBgLMTU1NTU1NTAxMjMVAgASGBRGODk5NjkyRkE1MTlFQTM1MDQ3MQA=`);
      expect(queued.map((q) => q.key)).toEqual([queued[0].key, queued[0].key]);
    });

    test('the same body twice at once: both answered 200, one row, handled once', async () => {
      const body = fixture('whatsapp-cloud', 'reaction.json');
      body.entry[0].changes[0].value.messages[0].id = 'wamid.TWICE';
      const raw = metaCompact(body);
      const [r1, r2] = await Promise.all([signed(raw), signed(raw)]);
      expect([r1.statusCode, r2.statusCode]).toEqual([200, 200]);
      expect(queued.map((q) => q.duplicate).sort()).toEqual([false, true]);
      await waitFor(() => inbound.length === 1);
      await sleep(150);
      expect(inbound).toHaveLength(1);
    });
  });
});

describe('Meta webhook configuration', () => {
  test('CHANNELS_META_* config; the Instagram app secret is accepted for instagram bodies only', async () => {
    const k = await createTestKernel({
      plugins: [connectionsPlugin, channelsPlugin],
      env: { CHANNELS_META_APP_SECRET: 'cfg-app-secret', CHANNELS_META_INSTAGRAM_APP_SECRET: 'cfg-ig-secret', CHANNELS_META_VERIFY_TOKEN: 'cfg-verify' },
    });
    try {
      const { admin } = await k.createCompany();
      await createConnection(k, admin, 'instagram', IG_ACCOUNT, 'tok');
      const inbound = await capture<Envelope>(k, 'channel.inbound.#');
      const hs = await k.app.inject({ method: 'GET', url: '/webhook?hub.mode=subscribe&hub.verify_token=cfg-verify&hub.challenge=abc' });
      expect([hs.statusCode, hs.body]).toEqual([200, 'abc']);
      const post = (raw: string, secret: string) =>
        k.app.inject({ method: 'POST', url: '/webhook', payload: raw, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signBody(raw, secret) } });
      const ig = metaCompact(fixture('instagram', 'text.json'));
      const page = metaCompact(fixture('messenger', 'text.json'));
      expect((await post(ig, 'cfg-ig-secret')).statusCode).toBe(200);
      await waitFor(() => inbound.length === 1);
      // The same body again would be a duplicate of the first while its inbox row is kept: another byte.
      expect((await post(`${ig} `, 'cfg-app-secret')).statusCode).toBe(200);
      expect((await post(page, 'cfg-ig-secret')).json()).toEqual({ error: 'ERR_INVALID_SIGNATURE', message: 'Invalid signature' });
      await waitFor(() => inbound.length === 2);
      expect(inbound.map((m) => m.payload.channel)).toEqual(['instagram', 'instagram']);
    } finally {
      await k.close();
    }
  });

  test('without META_APP_SECRET: signed bodies get 503 ERR_SERVICE_UNAVAILABLE, unsigned ones 401, handshakes 403', async () => {
    // Blank values count as unset.
    const k = await createTestKernel({ plugins: [connectionsPlugin, channelsPlugin], env: { CHANNELS_META_APP_SECRET: '', META_APP_SECRET: ' ' } });
    try {
      const queued = recordInbox(k);
      const raw = metaCompact(fixture('messenger', 'text.json'));
      const res = await k.app.inject({ method: 'POST', url: '/webhook', payload: raw, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signBody(raw, 'anything') } });
      expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 503, body: { error: 'ERR_SERVICE_UNAVAILABLE', message: 'Webhook secret not configured' } });
      const unsigned = await k.app.inject({ method: 'POST', url: '/webhook', payload: raw, headers: { 'content-type': 'application/json' } });
      expect(unsigned.statusCode).toBe(401);
      const hs = await k.app.inject({ method: 'GET', url: '/webhook?hub.mode=subscribe&hub.verify_token=&hub.challenge=1' });
      expect(hs.statusCode).toBe(403);
      await sleep(100);
      expect(queued).toEqual([]);
    } finally {
      await k.close();
    }
  });
});
