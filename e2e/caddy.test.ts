/**
 * deploy/Caddyfile run for real (issue 31, item 9): Debian's caddy (/usr/bin/caddy, installed by .ci/run) runs
 * the repository's Caddyfile as it is (adapted by caddy itself; only the site address and the upstreams come
 * from the environment variables the file reads, and the admin endpoint is turned off so that runs do not
 * collide) in front of stand-in upstreams: two API nodes and the web server, each an HTTP server that answers
 * with the path and headers it received. The test checks what the proxy publishes and refuses: the API's
 * metrics answer 404 (in every spelling) and never reach a node; REST, the socket.io websocket and the
 * webhooks reach the API with the prefix stripped; everything else reaches the web server; client-sent
 * X-Forwarded-* headers are replaced; the sticky cookie pins a client to one node.
 *
 * Skipped only outside CI when caddy is not installed; in CI (CI=true) a missing caddy fails.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../shell/test/harness';

const CADDYFILE = resolve(__dirname, '..', 'deploy', 'Caddyfile');
const CADDY = ['/usr/bin/caddy', '/usr/local/bin/caddy'].find((p) => existsSync(p));
const inCi = Boolean(process.env.CI);

jest.setTimeout(60_000);

interface Seen {
  upstream: string;
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

/** A stand-in upstream: answers every request with JSON naming itself, the URL and the headers it got; websocket upgrades get 101. */
function standIn(name: string, seen: Seen[]): Server {
  const server = createServer((req, res) => {
    if (req.url === '/ready' && name.startsWith('api')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ready"}');
      return;
    }
    seen.push({ upstream: name, method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    // Long enough for Caddy's `encode` (it compresses from 512 bytes).
    const body = JSON.stringify({ upstream: name, url: req.url, headers: req.headers, padding: 'x'.repeat(2048) });
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  server.on('upgrade', (req, socket) => {
    seen.push({ upstream: name, method: 'UPGRADE', url: req.url ?? '', headers: req.headers });
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-Upstream: ${name}\r\nSec-WebSocket-Accept: stand-in\r\n\r\n`);
    socket.end();
  });
  return server;
}

const listen = (server: Server, port: number) => new Promise<void>((ok) => server.listen(port, '127.0.0.1', () => ok()));

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A raw HTTP request to the proxy (node:http: no automatic decompression, headers as sent). */
function call(port: number, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((ok, fail) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('latin1') }));
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      ok({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
    });
    req.on('error', fail);
    req.end();
  });
}

const describeCaddy = CADDY || inCi ? describe : describe.skip;

/** Runs caddy with the repository's Caddyfile under `vars` (admin endpoint off); resolves once it answers on `port`. */
async function runCaddy(vars: Record<string, string>, port: number, dir: string): Promise<{ proc: ChildProcess; output(): string }> {
  const env = { PATH: process.env.PATH, HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config'), ...vars };
  const json = JSON.parse(execFileSync(CADDY!, ['adapt', '--config', CADDYFILE, '--adapter', 'caddyfile'], { env, stdio: ['ignore', 'pipe', 'pipe'] }).toString('utf8')) as Record<string, unknown>;
  json.admin = { disabled: true };
  const config = join(dir, `caddy-${port}.json`);
  writeFileSync(config, JSON.stringify(json));
  const proc = spawn(CADDY!, ['run', '--config', config], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  for (const s of [proc.stdout!, proc.stderr!]) s.on('data', (d: Buffer) => (out = (out + d.toString('utf8')).slice(-20_000)));
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`caddy exited (${proc.exitCode}):\n${out}`);
    try {
      await call(port, '/healthz');
      return { proc, output: () => out };
    } catch {
      if (Date.now() > deadline) throw new Error(`caddy did not listen on ${port}:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

const stopCaddy = async (proc: ChildProcess | undefined) => {
  if (!proc || proc.exitCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  await exited;
};

describeCaddy('deploy/Caddyfile under Debian caddy', () => {
  const seen: Seen[] = [];
  const servers: Server[] = [];
  let caddy: ChildProcess | undefined;
  let upstreams: Record<string, string> = {};
  let port = 0;
  let dir = '';

  beforeAll(async () => {
    // In CI caddy must be there (.ci/run installs it).
    expect(CADDY).toBeDefined();
    const [api1, api2, web] = [await freePort(), await freePort(), await freePort()];
    port = await freePort();
    for (const [name, p] of [['api-1', api1], ['api-2', api2], ['web', web]] as const) {
      const s = standIn(name, seen);
      servers.push(s);
      await listen(s, p);
    }
    dir = mkdtempSync(join(tmpdir(), 'atendo-caddy-'));
    upstreams = { API_UPSTREAMS: `127.0.0.1:${api1} 127.0.0.1:${api2}`, WEB_UPSTREAM: `127.0.0.1:${web}` };
    const run = await runCaddy({ SITE_ADDRESS: `:${port}`, INTERNAL_ADDRESS: `http://proxy:${port}`, ...upstreams }, port, dir);
    caddy = run.proc;
  });

  afterAll(async () => {
    await stopCaddy(caddy);
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    seen.length = 0;
  });

  test('the metrics are refused (404) in every spelling and never reach an API node', async () => {
    const paths = ['/backend/metrics', '/backend/metrics/', '/backend/metrics?format=prometheus', '/backend/METRICS', '/backend/Metrics/x', '/backend//metrics', '/backend/./metrics', '/backend/foo/../metrics', '/backend/%6detrics', '/BACKEND/metrics'];
    for (const path of paths) {
      const res = await call(port, path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
    }
    // Nothing named metrics reached any upstream (the web server's own /backend proxy included).
    expect(seen.filter((s) => /metrics/i.test(decodeURIComponent(s.url))).map((s) => `${s.upstream} ${s.url}`)).toEqual([]);
  });

  test('REST and webhooks reach an API node with the prefix stripped; client-sent X-Forwarded-* are replaced', async () => {
    const res = await call(port, '/backend/tickets?pageNumber=1', { 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'https', accept: 'application/json' });
    expect(res.status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0].upstream).toMatch(/^api-[12]$/);
    expect(seen[0].url).toBe('/tickets?pageNumber=1');
    // The API (TRUST_PROXY=1) believes the last hop's address: Caddy's view of the client, not what it claimed.
    expect(seen[0].headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen[0].headers['x-forwarded-proto']).toBe('http');
    const hook = await call(port, '/backend/webhook/meta');
    expect(hook.status).toBe(200);
    expect(seen[1].url).toBe('/webhook/meta');
    // Other API routes that contain the word stay published.
    expect((await call(port, '/backend/reports/metrics-summary')).status).toBe(200);
  });

  test('the sticky cookie pins a client to one node', async () => {
    const first = await call(port, '/backend/socket.io/?EIO=4&transport=polling');
    const cookie = String(first.headers['set-cookie'] ?? '');
    expect(cookie).toMatch(/^atendo_node=/);
    const node = seen[0].upstream;
    for (let i = 0; i < 6; i += 1) await call(port, '/backend/socket.io/?EIO=4&transport=polling', { cookie: cookie.split(';')[0] });
    expect(new Set(seen.map((s) => s.upstream))).toEqual(new Set([node]));
  });

  test('the socket.io websocket upgrade reaches an API node with the prefix stripped', async () => {
    const res = await call(port, '/backend/socket.io/?EIO=4&transport=websocket', { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' });
    expect(res.status).toBe(101);
    expect(String(res.headers['x-upstream'])).toMatch(/^api-[12]$/);
    expect(seen.map((s) => [s.method, s.url])).toEqual([['UPGRADE', '/socket.io/?EIO=4&transport=websocket']]);
  });

  test('everything else goes to the web server as it is, compressed when the client accepts it', async () => {
    for (const path of ['/', '/login', '/tickets/42', '/env.js', '/areas/inbox/remoteEntry.js', '/backend', '/metrics']) {
      const res = await call(port, path);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(seen.at(-1)).toMatchObject({ upstream: 'web', url: path });
    }
    const gz = await call(port, '/login', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
  });

  test('with a host-name SITE_ADDRESS, the compose network still reaches the API as http://proxy (k6), other hosts get nothing', async () => {
    const p2 = await freePort();
    // A host-name site (plain http here: no certificate in a test) and the internal address of compose.
    const run = await runCaddy({ SITE_ADDRESS: `http://atendo.example.com:${p2}`, INTERNAL_ADDRESS: `http://proxy:${p2}`, ...upstreams }, p2, dir);
    try {
      const viaProxy = await call(p2, '/backend/ready', { host: `proxy:${p2}` });
      expect(viaProxy.status).toBe(200);
      expect(JSON.parse(viaProxy.body)).toMatchObject({ status: 'ready' });
      const tickets = await call(p2, '/backend/tickets', { host: `proxy:${p2}` });
      expect([tickets.status, (JSON.parse(tickets.body) as { upstream: string }).upstream]).toEqual([200, expect.stringMatching(/^api-[12]$/)]);
      expect((await call(p2, '/backend/metrics', { host: `proxy:${p2}` })).status).toBe(404);
      expect((await call(p2, '/backend/tickets', { host: `atendo.example.com:${p2}` })).status).toBe(200);
      // What k6 measured before: a host no site serves gets Caddy's empty answer, never the API.
      const other = await call(p2, '/backend/tickets', { host: `elsewhere.example:${p2}` });
      expect(other.body).toBe('');
    } finally {
      await stopCaddy(run.proc);
    }
  });
});
