import net from 'node:net';
import Fastify from 'fastify';
import type { KernelConfig } from '../src/config';
import { createKnex } from '../src/db';
import { KernelMetrics } from '../src/metrics';
import { healthRoutes } from '../src/routes/health';
import { operationsRoutes, type ProbedBus } from '../src/routes/operations';

/**
 * A PostgreSQL that accepts connections and never answers (a frozen server: SIGSTOP, a stuck disk): the
 * liveness probe answers at once (it never waits on the database), the readiness probe within READY_TIMEOUT_MS.
 */
describe('probes with the database frozen', () => {
  const sockets = new Set<net.Socket>();
  const frozen = net.createServer((s) => void sockets.add(s));
  let db: ReturnType<typeof createKnex>;
  const app = Fastify();

  beforeAll(async () => {
    await new Promise<void>((r) => frozen.listen(0, '127.0.0.1', () => r()));
    const port = (frozen.address() as net.AddressInfo).port;
    db = createKnex(`postgres://u:p@127.0.0.1:${port}/frozen`, 2);
    const config = { READY_TIMEOUT_MS: 1000 } as KernelConfig;
    const bus = { kind: 'in-process', probe: async () => true, queueDepths: async () => ({}) } as unknown as ProbedBus;
    await healthRoutes(app, { db, config, version: 'test' });
    await operationsRoutes(app, { config, db, bus, metrics: new KernelMetrics({ defaultMetrics: false }), version: 'test' });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    for (const s of sockets) s.destroy();
    frozen.close();
    await db.destroy().catch(() => undefined);
  });

  test('GET /health (liveness) never waits on the frozen database: answers at once, database not ok; one check in flight', async () => {
    const t0 = Date.now();
    const answers = await Promise.all([app.inject('/health'), app.inject('/health'), app.inject('/health')]);
    for (const res of answers) {
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: 'ok', database: { ok: false } });
    }
    // READY_TIMEOUT_MS is 1000: an answer that waited for the check would take that long.
    expect(Date.now() - t0).toBeLessThan(500);
    // Past the timeout, the check still hanging: still at once, still not ok, no second check opened.
    await new Promise((r) => setTimeout(r, 1100));
    const t1 = Date.now();
    const late = await app.inject('/health');
    expect(Date.now() - t1).toBeLessThan(500);
    expect(late.json().database).toMatchObject({ ok: false, ms: expect.any(Number) });
    expect(late.json().database.ms).toBeGreaterThanOrEqual(1000);
    expect(sockets.size).toBe(1);
  });

  test('GET /ready answers 503 within the timeout', async () => {
    const t0 = Date.now();
    const res = await app.inject('/ready');
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ status: 'unavailable', database: { ok: false }, bus: { ok: true } });
    expect(Date.now() - t0).toBeLessThan(2500);
  });
});
