/**
 * Operations (issue 19, items 4 and 5): GET /health (liveness), GET /ready (database and bus, with
 * deadlines), GET /metrics (Prometheus: HTTP latency by route, bus queue depth, inbound messages, sockets),
 * the request log line (request id, company and user of the caller) and secrets kept out of the logs, and
 * a graceful close that answers the request in flight. Runs on RabbitMQ when AMQP_URL is set.
 */
import { randomBytes } from 'node:crypto';
import { createTestKernel, type TestKernel } from '@atendo/testing';
import { definePlugin, Type } from '@atendo/sdk';
import { redactUrl } from '../src/logging';

/** Collects the kernel's JSON log lines. */
function logSink(): { lines: Record<string, unknown>[]; raw: string[]; write(line: string): void } {
  const sink = {
    lines: [] as Record<string, unknown>[],
    raw: [] as string[],
    write(line: string) {
      sink.raw.push(line);
      for (const l of line.split('\n').filter(Boolean)) sink.lines.push(JSON.parse(l));
    },
  };
  return sink;
}

/** A plugin with a slow route (to be in flight at close), a queue consumer, and a metric of its own. */
let release: (() => void) | undefined;
const probe = definePlugin({
  id: 'ops-probe',
  async register({ app, bus, metrics }) {
    const hits = metrics.counter({ name: 'atendo_ops_probe_hits_total', help: 'test', labelNames: ['kind'] });
    app.get('/ops-probe/slow', { config: { role: 'public' }, schema: { response: { 200: Type.Object({ done: Type.Boolean() }) } } }, async () => {
      hits.inc({ kind: 'slow' });
      await new Promise<void>((resolve) => (release = resolve));
      return { done: true };
    });
    app.post('/ops-probe/login-echo', { config: { role: 'public' }, schema: { body: Type.Object({ password: Type.String(), code: Type.String() }) } }, async (req) => {
      req.log.info({ body: req.body }, 'echo');
      return { ok: true };
    });
    await bus.subscribe('ops.work', async () => undefined, { queue: 'ops-probe.work' });
  },
});

describe('operations endpoints and logs', () => {
  let k: TestKernel;
  let closed = false;
  const sink = logSink();

  beforeAll(async () => {
    k = await createTestKernel({ plugins: [probe], env: { LOG_LEVEL: 'info' }, logStream: sink });
  });
  afterAll(async () => {
    release?.();
    if (!closed) await k?.close().catch(() => undefined);
  });

  test('GET /health: liveness', async () => {
    const res = await k.app.inject('/health');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'ok', version: expect.any(String), uptime: expect.any(Number) });
  });

  test('GET /ready: database and bus answer', async () => {
    const res = await k.app.inject('/ready');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'ready', database: { ok: true }, bus: { ok: true, kind: process.env.AMQP_URL ? 'rabbitmq' : 'in-process' } });
  });

  test('GET /metrics: Prometheus text with HTTP latency by route, bus, inbound, sockets and plugin metrics', async () => {
    const base = await k.listen();
    const sock = await k.socket(k.superAdmin.token, base);
    await k.app.inject({ method: 'GET', url: '/auth/me', headers: { authorization: `Bearer ${k.superAdmin.token}` } });
    await k.bus.publish('channel.inbound.whatsappapi.message', { test: true });
    await k.bus.publish('channel.inbound.whatsappapi.message', { test: true });
    await k.bus.publish('channel.inbound.facebook.status', { test: true });
    const res = await k.app.inject('/metrics');
    sock.disconnect();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.body;
    expect(text).toMatch(/^atendo_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/auth\/me",status_code="200"\} \d+$/m);
    expect(text).toMatch(/^atendo_inbound_messages_total\{channel="whatsappapi",kind="message"\} 2$/m);
    expect(text).toMatch(/^atendo_inbound_messages_total\{channel="facebook",kind="status"\} 1$/m);
    expect(text).toMatch(/^atendo_bus_published_total\{topic="channel\.inbound\.whatsappapi\.message"\} 2$/m);
    expect(text).toMatch(/^atendo_sockets_connected 1$/m);
    expect(text).toMatch(/^atendo_bus_queue_depth\{queue="ops-probe\.work"\} \d+$/m);
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    // Unmatched URLs are one series, never one per raw URL.
    await k.app.inject('/no/such/path/' + randomBytes(4).toString('hex'));
    expect((await k.app.inject('/metrics')).body).toMatch(/route="unmatched",status_code="404"/);
  });

  test('one request line with request id, company and user; secrets redacted from URLs and bodies', async () => {
    sink.lines.length = 0;
    const res = await k.app.inject({ method: 'GET', url: '/auth/me', headers: { authorization: `Bearer ${k.superAdmin.token}`, 'x-request-id': 'proxy-abc-123' } });
    expect(res.headers['x-request-id']).toBe('proxy-abc-123');
    const line = sink.lines.find((l) => l.msg === 'request completed' && (l.req as { route?: string }).route === '/auth/me');
    expect(line).toMatchObject({ reqId: 'proxy-abc-123', companyId: 1, userId: k.superAdmin.id, req: { method: 'GET', url: '/auth/me' }, res: { statusCode: 200 } });
    expect(typeof line!.responseTime).toBe('number');
    expect(sink.lines.some((l) => l.msg === 'incoming request')).toBe(false); // debug level

    // A request id is generated when the caller gives none (or a bad one).
    const gen = await k.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(gen.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);

    sink.raw.length = 0;
    await k.app.inject({ method: 'GET', url: '/webhook?hub.mode=subscribe&hub.verify_token=SUPERSECRET1&hub.challenge=42' });
    await k.app.inject({ method: 'GET', url: '/api/verificar-code/5511999990000?code=654321' });
    await k.app.inject({ method: 'GET', url: '/socket.io/?token=SUPERSECRET2&EIO=4' });
    await k.app.inject({ method: 'POST', url: '/ops-probe/login-echo', payload: { password: 'SUPERSECRET3', code: '112233' } });
    await k.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'nobody@example.com', password: 'SUPERSECRET4' } });
    const all = sink.raw.join('');
    for (const secret of ['SUPERSECRET1', '654321', 'SUPERSECRET2', 'SUPERSECRET3', 'SUPERSECRET4']) expect({ secret, logged: all.includes(secret) }).toEqual({ secret, logged: false });
    expect(all).toContain('hub.verify_token=[redacted]');
    expect(all).toContain('hub.challenge=42');
  });

  test('redactUrl keeps ordinary parameters and hides secret ones', () => {
    expect(redactUrl('/tickets?pageNumber=2&status=open')).toBe('/tickets?pageNumber=2&status=open');
    expect(redactUrl('/x?token=a&apiKey=b&access_token=c&q=d&signature=e')).toBe('/x?token=[redacted]&apiKey=[redacted]&access_token=[redacted]&q=d&signature=[redacted]');
    expect(redactUrl('/x?hub%2Everify_token=a')).toBe('/x?hub%2Everify_token=[redacted]');
    // A signed upload URL's signature opens the file: it is a credential too.
    expect(redactUrl('/public/company1/user/a.png?e=1893456000&t=c2lnbmF0dXJl')).toBe('/public/company1/user/a.png?e=1893456000&t=[redacted]');
  });

  test('graceful close: the request in flight is answered, no new one is served, the close completes', async () => {
    const base = await k.listen();
    const inFlight = fetch(`${base}/ops-probe/slow`).then(async (r) => ({ status: r.status, body: await r.json() }));
    await new Promise((r) => setTimeout(r, 200));
    expect(release).toBeDefined();
    closed = true;
    const closing = k.close();
    await new Promise((r) => setTimeout(r, 100));
    // A new request is refused (503 on a kept-alive connection, or no connection at all).
    const during = await fetch(`${base}/ready`, { signal: AbortSignal.timeout(3000) }).then((r) => r.status, () => 'refused');
    expect([503, 'refused']).toContain(during);
    release!();
    expect(await inFlight).toEqual({ status: 200, body: { done: true } });
    await closing;
  });
});
