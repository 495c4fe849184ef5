/**
 * Outbound fetches of inbound media (issue 18 item 8): the SDK's SSRF-safe fetcher (`@atendo/sdk/fetch`)
 * refuses loopback, private and link-local addresses after DNS resolution, re-checks every redirect, and
 * bounds size and time; the channels plugin downloads media only through it, from Meta's hosts (or the
 * configured Graph URL's origin), and sends the WhatsApp Cloud token only to token hosts, never to an
 * arbitrary URL the Graph API returns. Local servers stand in for Meta and for an attacker.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { OutboundFetchError, addressAllowed, safeFetch, type SafeFetchPolicy } from '@atendo/sdk/fetch';
import type { Envelope } from '@atendo/sdk';
import type { ConnectionsService } from '@atendo/plugin-connections/contract';
import { UploadStore } from '@atendo/core/src/uploads';
import { downloadInboundMedia, type MediaDeps } from '../src/services/media';
import { resolveSettings, type ChannelsConfig } from '../src/config';

jest.setTimeout(30000);

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000a49444154789c6300010000050001' + '0d0a2db40000000049454e44ae426082', 'hex');

interface Hit {
  url: string;
  headers: IncomingHttpHeaders;
}
/** A local HTTP server recording its hits; `route` answers them. */
async function server(route: (url: string, res: import('node:http').ServerResponse, port: number) => void): Promise<{ port: number; hits: Hit[]; close(): Promise<void> }> {
  const hits: Hit[] = [];
  let port = 0;
  const s: Server = createServer((req, res) => {
    hits.push({ url: req.url ?? '', headers: req.headers });
    route(req.url ?? '', res, port);
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  port = (s.address() as AddressInfo).port;
  return { port, hits, close: () => new Promise<void>((r) => { s.closeAllConnections(); s.close(() => r()); }) };
}

const refusal = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
    return 'fetched';
  } catch (err) {
    return err instanceof OutboundFetchError ? err.reason : `other: ${(err as Error).message}`;
  }
};

let target: Awaited<ReturnType<typeof server>>;
const base: SafeFetchPolicy = { maxBytes: 1000, timeoutMs: 2000 };

beforeAll(async () => {
  target = await server((url, res, port) => {
    if (url === '/big') return res.end(Buffer.alloc(2000));
    if (url === '/chunked') {
      res.setHeader('transfer-encoding', 'chunked');
      for (let i = 0; i < 4; i++) res.write(Buffer.alloc(400));
      return res.end();
    }
    if (url === '/slow') return; // never answers
    if (url === '/to-metadata') return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    if (url === '/to-private') return res.writeHead(302, { location: 'http://10.1.2.3/' }).end();
    if (url === '/to-localhost') return res.writeHead(302, { location: `http://localhost:${port}/ok` }).end();
    if (url.startsWith('/loop')) return res.writeHead(302, { location: `/loop${Math.random()}` }).end();
    res.end('ok');
  });
});

afterAll(async () => {
  await target?.close();
});

test('addresses: public unicast only, unless allowed', () => {
  for (const a of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fc00::1', '::ffff:127.0.0.1', '224.0.0.1']) {
    expect({ a, ok: addressAllowed(a) }).toEqual({ a, ok: false });
  }
  for (const a of ['157.240.1.35', '2a03:2880:f10c:83:face:b00c:0:25de']) expect(addressAllowed(a)).toBe(true);
  expect(addressAllowed('127.0.0.1', ['127.0.0.0/8'])).toBe(true);
  expect(addressAllowed('::1', ['127.0.0.0/8'])).toBe(false);
});

test('refuses loopback, private and link-local targets, by literal and after DNS resolution', async () => {
  const p = target.port;
  expect(await refusal(safeFetch(`http://127.0.0.1:${p}/`, base))).toBe('address');
  expect(await refusal(safeFetch(`http://[::1]:${p}/`, base))).toBe('address');
  expect(await refusal(safeFetch('http://169.254.169.254/latest/meta-data/', base))).toBe('address');
  // A name that resolves to loopback: refused at connect time, after the lookup.
  expect(await refusal(safeFetch(`http://localhost:${p}/`, base))).toBe('address');
  expect(await refusal(safeFetch(`file:///etc/passwd`, base))).toBe('scheme');
  expect(await refusal(safeFetch(`http://127.0.0.1:${p}/`, { ...base, allowHosts: ['graph.facebook.com'] }))).toBe('host');
  expect(target.hits).toEqual([]);
  // Allowed explicitly (tests' local servers): fetched.
  const ok = await safeFetch(`http://127.0.0.1:${p}/ok`, { ...base, allowPrivate: ['127.0.0.1'] });
  expect(ok.status).toBe(200);
  ok.body.resume();
});

test('redirects are checked again at every hop; size and time are bounded', async () => {
  const p = target.port;
  const local: SafeFetchPolicy = { ...base, allowHosts: [`127.0.0.1:${p}`], allowPrivate: ['127.0.0.1'] };
  // Any host allowed, only 127.0.0.1 of the non-public addresses: the redirect's address is refused.
  const anyHost: SafeFetchPolicy = { ...base, allowPrivate: ['127.0.0.1'] };
  expect(await refusal(safeFetch(`http://127.0.0.1:${p}/to-metadata`, anyHost))).toBe('address');
  expect(await refusal(safeFetch(`http://127.0.0.1:${p}/to-private`, anyHost))).toBe('address');
  expect(await refusal(safeFetch(`http://127.0.0.1:${p}/to-metadata`, local))).toBe('host');
  expect(await refusal(safeFetch(`http://127.0.0.1:${p}/to-localhost`, local))).toBe('host');
  expect(await refusal(safeFetch(`http://127.0.0.1:${p}/loop`, local))).toBe('redirect');
  expect(await refusal(safeFetch(`http://127.0.0.1:${p}/big`, local))).toBe('size');
  const chunked = await safeFetch(`http://127.0.0.1:${p}/chunked`, local);
  expect(await refusal((async () => { for await (const _ of chunked.body) void _; })())).toBe('size');
  const started = Date.now();
  expect(await refusal(safeFetch(`http://127.0.0.1:${p}/slow`, { ...local, timeoutMs: 300 }))).toBe('timeout');
  expect(Date.now() - started).toBeLessThan(2000);
});

describe('channels: inbound media downloads', () => {
  let graph: Awaited<ReturnType<typeof server>>;
  let evil: Awaited<ReturnType<typeof server>>;
  let dir: string;
  let lookupAnswer = '';
  const TOKEN = 'EAAG-test-token';

  beforeAll(async () => {
    evil = await server((_url, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(PNG));
    graph = await server((url, res, port) => {
      if (url.startsWith('/v25.0/MEDIA')) return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: lookupAnswer.replace('GRAPH', `127.0.0.1:${port}`) }));
      if (url.startsWith('/media-bytes')) return res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      res.writeHead(404).end();
    });
    dir = mkdtempSync(join(tmpdir(), 'atendo-media-'));
  });
  afterAll(async () => {
    await graph?.close();
    await evil?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const deps = (policy?: MediaDeps['policy']): MediaDeps => ({
    uploads: new UploadStore({ dir, publicUrl: 'http://localhost:8080', secret: 'x'.repeat(32), maxBytes: 1_000_000 }),
    connections: { getWithSecrets: async () => ({ facebookUserToken: TOKEN }) } as unknown as ConnectionsService,
    log: { warn: () => undefined, info: () => undefined, error: () => undefined, debug: () => undefined } as never,
    graphUrl: `http://127.0.0.1:${graph.port}/v25.0`,
    timeoutMs: 2000,
    maxBytes: 1_000_000,
    policy,
  });
  const envelope = (channel: 'whatsappapi' | 'facebook', media: { id?: string; url?: string }): Envelope => ({
    schemaVersion: 1 as never,
    id: randomUUID(),
    idempotencyKey: `k-${randomUUID()}`,
    companyId: 1,
    connectionId: 1,
    channel,
    direction: 'in',
    kind: 'message',
    occurredAt: new Date().toISOString(),
    thread: { externalId: '5511987654321', isGroup: false },
    content: { type: 'image', media: { ...media, mimeType: 'image/png' } },
  }) as unknown as Envelope;

  test('WhatsApp Cloud: the token goes to the Graph origin; a returned URL elsewhere is not fetched, or fetched without the token', async () => {
    // 1. The URL is on the Graph origin (the test server): fetched with the token, stored.
    lookupAnswer = 'http://GRAPH/media-bytes/1';
    const e1 = envelope('whatsappapi', { id: 'MEDIA1' });
    await downloadInboundMedia(deps(), e1);
    expect(e1.content?.media?.path).toMatch(/^messages\//);
    expect(readFileSync(join(dir, 'company1', e1.content!.media!.path!)).equals(PNG)).toBe(true);
    expect(graph.hits.map((h) => [h.url, h.headers.authorization])).toEqual([
      ['/v25.0/MEDIA1', `Bearer ${TOKEN}`],
      ['/media-bytes/1', `Bearer ${TOKEN}`],
    ]);
    // 2. The API returns a URL on another host (not a media host): nothing fetched, nothing stored.
    lookupAnswer = `http://127.0.0.1:${evil.port}/steal`;
    const e2 = envelope('whatsappapi', { id: 'MEDIA2' });
    await downloadInboundMedia(deps(), e2);
    expect(e2.content?.media?.path).toBeUndefined();
    expect(evil.hits).toEqual([]);
    // 3. Even when that host is an allowed media host (and its address allowed), the token never goes there.
    const e3 = envelope('whatsappapi', { id: 'MEDIA3' });
    await downloadInboundMedia(deps({ hosts: [`127.0.0.1:${evil.port}`], tokenHosts: ['lookaside.fbsbx.com'], allowPrivate: ['127.0.0.1'] }), e3);
    expect(evil.hits).toHaveLength(1);
    expect(evil.hits[0].headers.authorization).toBeUndefined();
  });

  test('Messenger: an attachment URL pointing at 127.0.0.1 or a metadata address is refused', async () => {
    for (const url of [`http://127.0.0.1:${evil.port}/x.png`, 'http://169.254.169.254/latest/meta-data/', `http://localhost:${evil.port}/x.png`]) {
      const e = envelope('facebook', { url });
      await downloadInboundMedia(deps({ hosts: ['127.0.0.1', 'localhost', '169.254.169.254', `127.0.0.1:${evil.port}`, `localhost:${evil.port}`], tokenHosts: [], allowPrivate: [] }), e);
      expect(e.content?.media?.path).toBeUndefined();
    }
    const before = evil.hits.length;
    expect(before).toBe(1); // only the allowed fetch of the previous test
  });
});

test('a malformed private allow-list refuses to boot', () => {
  const cfg = { metaGraphUrl: 'https://graph.facebook.com/v25.0', graphTimeoutMs: 1000, outboundRetries: 1, outboundRetryDelayMs: 1, outboundMaxDelayMs: 1, webhookRetries: 1, webhookRetryDelayMs: 1, mediaHosts: 'lookaside.fbsbx.com', mediaTokenHosts: 'lookaside.fbsbx.com' } as ChannelsConfig;
  expect(() => resolveSettings({ ...cfg, mediaAllowPrivate: '127.0.0.1,not-a-cidr' })).toThrow('CHANNELS_MEDIA_ALLOW_PRIVATE');
  expect(resolveSettings({ ...cfg, mediaAllowPrivate: '127.0.0.0/8, ::1' }).media.allowPrivate).toEqual(['127.0.0.0/8', '::1']);
});
