import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AllowList, SafeHttp } from '../src/services/safe-http';

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
