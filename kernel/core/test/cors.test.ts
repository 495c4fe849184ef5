import { createTestKernel, type TestKernel } from '@atendo/testing';

/**
 * CORS of the API for the web UI's origin (FRONTEND_URL): the UI sends PUT, PATCH and DELETE with
 * credentials, so their preflights must be allowed (@fastify/cors allows only GET, HEAD and POST by
 * default); other origins get no CORS headers.
 */
describe('CORS', () => {
  let k: TestKernel;
  const ORIGIN = 'http://web.example.test';

  beforeAll(async () => {
    k = await createTestKernel({ env: { FRONTEND_URL: ORIGIN } });
  });
  afterAll(() => k.close());

  test.each(['PUT', 'PATCH', 'DELETE', 'POST', 'GET'])('the web origin may send %s with credentials', async (method) => {
    const res = await k.app.inject({
      method: 'OPTIONS',
      url: '/tickets/1',
      headers: { origin: ORIGIN, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(String(res.headers['access-control-allow-methods']).split(',').map((m) => m.trim())).toContain(method);
  });

  test('another origin gets no CORS grant', async () => {
    const res = await k.app.inject({ method: 'OPTIONS', url: '/tickets/1', headers: { origin: 'http://evil.example.test', 'access-control-request-method': 'PUT' } });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});
