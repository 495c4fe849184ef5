import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PermanentError, RetryableError } from '@atendo/sdk';
import {
  DEFAULT_GRAPH_URL,
  GraphClient,
  GraphPermanentError,
  GraphRetryableError,
  graphErrorOf,
  isRetryableGraphError,
  safeEqual,
  signBody,
  splitText,
  verifySignature,
} from '../src/index';
import { metaCompact } from './fixtures';

const SECRET = 'app-secret-for-tests';

describe('verifySignature (X-Hub-Signature-256 over the raw bytes)', () => {
  const body = Buffer.from(metaCompact({ object: 'page', entry: [{ text: 'äöå 😃' }] }));

  test('accepts the HMAC-SHA256 of the exact bytes, hex in either case', () => {
    const header = signBody(body, SECRET);
    expect(header).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifySignature(body, header, SECRET)).toBe(true);
    expect(verifySignature(body, `  ${header.toUpperCase().replace('SHA256=', 'sha256=')}  `, SECRET)).toBe(true);
  });

  test('refuses a missing, malformed, truncated or wrong signature, an empty secret and another secret', () => {
    const good = signBody(body, SECRET);
    for (const header of [undefined, '', 'sha256=', good.slice(7), good.replace('sha256=', 'sha1='), good.slice(0, -2), `${good}00`, `sha256=${'0'.repeat(64)}`, `sha256=${'z'.repeat(64)}`]) {
      expect(verifySignature(body, header, SECRET)).toBe(false);
    }
    expect(verifySignature(body, good, '')).toBe(false);
    expect(verifySignature(body, good, 'another-secret')).toBe(false);
    expect(verifySignature(Buffer.concat([body, Buffer.from(' ')]), good, SECRET)).toBe(false);
  });

  test('Meta escapes non-ASCII as \\uXXXX: re-serializing the parsed body breaks the signature', () => {
    const header = signBody(body, SECRET);
    expect(body.toString()).toContain('\\u00e4\\u00f6\\u00e5 \\ud83d\\ude03');
    const reserialized = Buffer.from(JSON.stringify(JSON.parse(body.toString())));
    expect(reserialized.toString()).toContain('äöå 😃');
    expect(verifySignature(reserialized, header, SECRET)).toBe(false);
  });

  test('safeEqual compares tokens in constant time and refuses empty ones', () => {
    expect(safeEqual('token-1', 'token-1')).toBe(true);
    expect(safeEqual('token-1', 'token-2')).toBe(false);
    expect(safeEqual('token-1', 'token-1x')).toBe(false);
    expect(safeEqual('', '')).toBe(false);
    expect(safeEqual(undefined, 'x')).toBe(false);
  });
});

describe('Graph error classification', () => {
  test.each([4, 17, 32, 613, 80001, 80007, 130429, 131056, 131057, 2])('code %i is retryable', (code) => {
    expect(isRetryableGraphError(code, 400)).toBe(true);
  });
  test.each([190, 100, 551, 10, 200, 131026, 131047, 131030, 131051])('code %i is permanent, even on 5xx', (code) => {
    expect(isRetryableGraphError(code, 400)).toBe(false);
    expect(isRetryableGraphError(code, 500)).toBe(false);
  });
  test('unknown codes: 5xx, 429, 408 and is_transient retry; other 4xx do not; network failures retry', () => {
    expect(isRetryableGraphError(999999, 503)).toBe(true);
    expect(isRetryableGraphError(undefined, 502)).toBe(true);
    expect(isRetryableGraphError(undefined, 429)).toBe(true);
    expect(isRetryableGraphError(undefined, 408)).toBe(true);
    expect(isRetryableGraphError(999999, 400, true)).toBe(true);
    expect(isRetryableGraphError(999999, 400)).toBe(false);
    expect(isRetryableGraphError(undefined, 404)).toBe(false);
    expect(isRetryableGraphError(undefined, undefined)).toBe(true);
  });
});

describe('GraphClient against a local server', () => {
  let server: Server;
  let base: string;
  const seen: { method?: string; url?: string; auth?: string; body: string }[] = [];
  let handler: (req: IncomingMessage, res: ServerResponse, body: string) => void = (_q, res) => res.end('{}');

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        seen.push({ method: req.method, url: req.url, auth: req.headers.authorization, body });
        handler(req, res, body);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v99.0/`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => {
    seen.length = 0;
  });

  const json = (status: number, body: unknown, headers: Record<string, string> = {}) => (_q: IncomingMessage, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  test('the default base URL is a versioned graph.facebook.com URL', () => {
    expect(DEFAULT_GRAPH_URL).toMatch(/^https:\/\/graph\.facebook\.com\/v\d+\.0$/);
    expect(new GraphClient().url('123/messages', { a: 'b c' })).toBe(`${DEFAULT_GRAPH_URL}/123/messages?a=b+c`);
  });

  test('POSTs JSON with the bearer token (never in the URL) and returns the answer', async () => {
    handler = json(200, { recipient_id: '1', message_id: 'm_1' });
    const client = new GraphClient({ baseUrl: base });
    await expect(client.request({ method: 'POST', path: '555/messages', token: 'tok-1', json: { a: 'ç' } })).resolves.toEqual({ recipient_id: '1', message_id: 'm_1' });
    expect(seen).toEqual([{ method: 'POST', url: '/v99.0/555/messages', auth: 'Bearer tok-1', body: '{"a":"ç"}' }]);
  });

  test('maps Graph errors to retryable/permanent with code, subcode, details, trace id and wait hints', async () => {
    const client = new GraphClient({ baseUrl: base });
    handler = json(400, { error: { message: '(#131047) Re-engagement message', type: 'OAuthException', code: 131047, error_data: { details: 'More than 24 hours' }, fbtrace_id: 'TRACE1' } });
    const permanent = await client.request({ method: 'POST', path: 'x', token: 't', json: {} }).catch((e: unknown) => e);
    expect(permanent).toBeInstanceOf(GraphPermanentError);
    expect(permanent).toBeInstanceOf(PermanentError);
    expect(graphErrorOf(permanent)).toEqual({
      httpStatus: 400,
      code: 131047,
      type: 'OAuthException',
      message: '(#131047) Re-engagement message',
      details: 'More than 24 hours',
      fbtraceId: 'TRACE1',
      retryable: false,
    });

    handler = json(400, { error: { message: 'Rate limit hit', code: 130429, fbtrace_id: 'TRACE2' } }, { 'x-business-use-case-usage': JSON.stringify({ '555': [{ type: 'whatsapp', call_count: 100, estimated_time_to_regain_access: 2 }] }) });
    const throttled = await client.request({ method: 'POST', path: 'x', token: 't', json: {} }).catch((e: unknown) => e);
    expect(throttled).toBeInstanceOf(GraphRetryableError);
    expect(throttled).toBeInstanceOf(RetryableError);
    expect(graphErrorOf(throttled)).toMatchObject({ code: 130429, retryable: true, retryAfterMs: 120_000 });

    handler = json(503, { error: { message: 'Service temporarily unavailable', code: 999 } }, { 'retry-after': '7' });
    const unavailable = await client.request({ method: 'GET', path: 'x', token: 't' }).catch((e: unknown) => e);
    expect(graphErrorOf(unavailable)).toMatchObject({ httpStatus: 503, code: 999, retryable: true, retryAfterMs: 7000 });

    handler = (_q, res) => {
      res.writeHead(502);
      res.end('<html>bad gateway</html>');
    };
    expect(graphErrorOf(await client.request({ method: 'GET', path: 'x', token: 't' }).catch((e: unknown) => e))).toEqual({ httpStatus: 502, message: 'HTTP 502', retryable: true });

    handler = (_q, res) => {
      res.writeHead(200);
      res.end('not json');
    };
    expect(await client.request({ method: 'GET', path: 'x', token: 't' }).catch((e: unknown) => e)).toBeInstanceOf(GraphPermanentError);
  });

  test('timeouts and refused connections are retryable; a missing token is permanent without a call', async () => {
    handler = () => undefined; // never answers
    const slow = new GraphClient({ baseUrl: base, timeoutMs: 100 });
    const timedOut = await slow.request({ method: 'GET', path: 'x', token: 't' }).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(GraphRetryableError);
    expect(graphErrorOf(timedOut)?.message).toBe('timed out after 100 ms');

    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const refused = await new GraphClient({ baseUrl: `http://127.0.0.1:${port}` }).request({ method: 'GET', path: 'x', token: 't' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(GraphRetryableError);

    seen.length = 0;
    expect(await new GraphClient({ baseUrl: base }).request({ method: 'GET', path: 'x', token: '' }).catch((e: unknown) => e)).toBeInstanceOf(GraphPermanentError);
    expect(seen).toEqual([]);
  });
});

describe('splitText', () => {
  test('keeps short texts whole and drops blank ones', () => {
    expect(splitText('hello', { maxChars: 10 })).toEqual(['hello']);
    expect(splitText('   ', { maxChars: 10 })).toEqual([]);
    expect(splitText('', {})).toEqual([]);
  });
  test('splits on whitespace by code points, never inside a surrogate pair, within a byte limit', () => {
    expect(splitText('aaaa bbbb cccc', { maxChars: 10 })).toEqual(['aaaa bbbb ', 'cccc']);
    const emoji = '😃'.repeat(7);
    const parts = splitText(emoji, { maxBytes: 10 });
    expect(parts).toEqual(['😃😃', '😃😃', '😃😃', '😃']);
    expect(parts.join('')).toBe(emoji);
    const long = 'palavra '.repeat(400);
    const chunks = splitText(long, { maxBytes: 1000 });
    expect(chunks.every((c) => Buffer.byteLength(c) <= 1000)).toBe(true);
    expect(chunks.join('')).toBe(long);
  });
});
