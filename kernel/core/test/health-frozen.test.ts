import net from 'node:net';
import Fastify from 'fastify';
import type { KernelConfig } from '../src/config';
import { createKnex } from '../src/db';
import { KernelMetrics } from '../src/metrics';
import { healthRoutes } from '../src/routes/health';
import { operationsRoutes, type ProbedBus } from '../src/routes/operations';

/**
 * A PostgreSQL that accepts connections and never answers (a frozen server: SIGSTOP, a stuck disk): the
 * probes still answer within READY_TIMEOUT_MS.
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
    const config = { READY_TIMEOUT_MS: 300 } as KernelConfig;
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

  test('GET /health answers 200 within the timeout, database not ok; concurrent calls share one check', async () => {
    const t0 = Date.now();
    const answers = await Promise.all([app.inject('/health'), app.inject('/health'), app.inject('/health')]);
    const took = Date.now() - t0;
    for (const res of answers) {
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: 'ok', database: { ok: false } });
    }
    expect(took).toBeLessThan(1500);
    // Still hanging: the next call adds no query and still answers on time.
    const t1 = Date.now();
    expect((await app.inject('/health')).json().database.ok).toBe(false);
    expect(Date.now() - t1).toBeLessThan(1000);
  });

  test('GET /ready answers 503 within the timeout', async () => {
    const t0 = Date.now();
    const res = await app.inject('/ready');
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ status: 'unavailable', database: { ok: false }, bus: { ok: true } });
    expect(Date.now() - t0).toBeLessThan(1500);
  });
});
