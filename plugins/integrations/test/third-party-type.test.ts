import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestKernel, type TestKernel } from '@atendo/testing';
import integrationsPlugin from '../src/index';
import { AllowList, SafeHttp } from '../src/services/safe-http';
import echoPlugin from './fixtures/echo-type-plugin';
import { Graph, PLUGINS, sharedEnv, Tenant } from './harness';

/** The `integrations.types` extension point: a third-party type is accepted by the CRUD and runs like the built-in ones. */
describe('a third-party integration type', () => {
  let k: TestKernel;
  const graph = new Graph();
  beforeAll(async () => {
    await graph.start();
    k = await createTestKernel({ plugins: [...PLUGINS(), integrationsPlugin, echoPlugin], env: sharedEnv(graph.url) });
  });
  afterAll(async () => {
    await k?.close();
    await graph.stop();
  });

  test('type echo: created through /queueIntegration, answers the customer, keeps its per-ticket state, hands over', async () => {
    const t = await Tenant.create(k, graph);
    const res = await k.as(t.admin, 'POST', '/queueIntegration', { type: 'echo', name: 'Eco' });
    expect(res.statusCode).toBe(200);
    await t.setConnection({ integrationId: res.json().id });
    const c = t.customer('Gil');
    await c.says('oi');
    expect(await c.receives(1)).toEqual(['eco 1: oi']);
    await c.says('tudo bem?');
    expect(await c.receives(1)).toEqual(['eco 2: tudo bem?']);
    await c.says('tchau');
    expect(await c.receives(1)).toEqual(['Até mais!']);
    await c.ticketBecomes({ useIntegration: false, status: 'pending' });
  }, 60_000);
});

/** The outbound client refuses private addresses at connect time (names resolving to them, no rebinding). */
describe('SafeHttp', () => {
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => res.end('{"ok":true}'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  // A public-looking name whose DNS answer is a private address (rebinding): the resolver stands in for DNS.
  const rebinding = (addr: string) => (host: string, cb: (err: NodeJS.ErrnoException | null, addrs: { address: string; family: number }[]) => void) =>
    host === 'hooks.example.test' ? cb(null, [{ address: addr, family: addr.includes(':') ? 6 : 4 }]) : cb(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }), []);

  test('a name resolving to a private address is refused when connecting; allow-listed, it is reached', async () => {
    const strict = new SafeHttp(new AllowList(''), 2000, rebinding('127.0.0.1'));
    const refused = await strict.request(`http://hooks.example.test:${port}/`).catch((e: Error & { cause?: { code?: string } }) => e);
    expect((refused as Error & { cause?: { code?: string } }).cause?.code).toBe('ERR_INTEGRATION_URL_NOT_ALLOWED');
    await expect(strict.request(`http://127.0.0.1:${port}/`)).rejects.toMatchObject({ code: 'ERR_INTEGRATION_URL_NOT_ALLOWED' });
    await expect(strict.request(`http://[::ffff:127.0.0.1]:${port}/`)).rejects.toMatchObject({ code: 'ERR_INTEGRATION_URL_NOT_ALLOWED' });
    await strict.close();
    const metadata = new SafeHttp(new AllowList(''), 2000, rebinding('169.254.169.254'));
    const r2 = await metadata.request('http://hooks.example.test/latest').catch((e: Error & { cause?: { code?: string } }) => e);
    expect((r2 as Error & { cause?: { code?: string } }).cause?.code).toBe('ERR_INTEGRATION_URL_NOT_ALLOWED');
    await metadata.close();
    const allowed = new SafeHttp(new AllowList('127.0.0.0/8'), 2000, rebinding('127.0.0.1'));
    expect((await allowed.request(`http://hooks.example.test:${port}/`)).json).toEqual({ ok: true });
    await allowed.close();
  });
});
