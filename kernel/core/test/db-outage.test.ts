/**
 * Issue 37 item 8: after an external PostgreSQL outage under load, the pool connected to itself on the
 * database's port (a TCP self-connect to the dead listener's port: local port == remote port on 127.0.0.1),
 * so PostgreSQL could not start again until the API restarted.
 *
 * 1. A self-connection, forced (a connect to 127.0.0.1:P from local port P while nothing listens on P):
 *    pg alone waits forever on it, the socket kept open (the kernel's own sockets, bound without
 *    SO_REUSEADDR, then keep PostgreSQL from binding P); the kernel's guarded socket drops it at connect
 *    with an outage error (503).
 * 2. A real throw-away PostgreSQL cluster on a free port, the kernel's db layer (createKnex) under load, the
 *    server stopped for DB_OUTAGE_TEST_MS (default 2 s) and started again on the same port: meanwhile
 *    queries fail at once as outages (503), with few connection attempts (jittered backoff, not one per
 *    query); the server starts again on its port and every worker's queries succeed again within a few
 *    seconds, no kept connection connected to itself.
 */
import net from 'node:net';
import pg from 'pg';
import { isOutage } from '@atendo/sdk';
import { throwawayPostgres, type ThrowawayPostgres } from '@atendo/testing';
import { createKnex } from '../src/db';
import { connectStats, DatabaseBackoffError, GuardedSocket, isSelfConnected, ReconnectGate, SelfConnectError } from '../src/db-connect';
import { toErrorReply } from '../src/plugins/errors';

const quiet = { warn: () => undefined, debug: () => undefined, info: () => undefined, error: () => undefined };
const OUTAGE_MS = Number(process.env.DB_OUTAGE_TEST_MS ?? 2000);
const RECONNECT_MAX_MS = 200;

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

/** A socket whose connects leave from the port they go to: a forced self-connect when nothing listens there. */
class SelfBoundPlain extends net.Socket {
  override connect(...args: unknown[]): this {
    const [port, host] = args as [number, string];
    return super.connect({ port, host, localAddress: '127.0.0.1', localPort: port });
  }
}
class SelfBoundGuarded extends GuardedSocket {
  override connect(...args: unknown[]): this {
    const [port, host] = args as [number, string];
    return super.connect({ port, host, localAddress: '127.0.0.1', localPort: port });
  }
}

describe('TCP self-connect to a dead listener port', () => {
  test('the hazard is real here: a socket to a port nothing listens on, from that same port, connects to itself', async () => {
    const port = await freePort();
    const s = new SelfBoundPlain();
    await new Promise<void>((resolve, reject) => {
      s.once('connect', resolve);
      s.once('error', reject);
      s.connect(port, '127.0.0.1');
    });
    expect(isSelfConnected(s)).toBe(true);
    s.destroy();
  });

  test('pg on a self-connection waits forever, its socket kept; through the guarded socket it fails at once (503) and the socket is gone', async () => {
    const port = await freePort();
    const config = { host: '127.0.0.1', port, user: 'u', password: 'p', database: 'd' };
    const streamOf = (c: pg.Client) => (c as unknown as { connection: { stream: net.Socket } }).connection.stream;
    // Without the guard: no answer, no error (pg waits for a reply to its own startup message).
    const plain = new pg.Client({ ...config, stream: () => new SelfBoundPlain() });
    plain.on('error', () => undefined);
    const outcome = await Promise.race([plain.connect().then(() => 'connected', () => 'failed'), new Promise((r) => setTimeout(() => r('still waiting'), 400))]);
    expect(outcome).toBe('still waiting');
    expect(streamOf(plain).destroyed).toBe(false);
    expect(isSelfConnected(streamOf(plain))).toBe(true);
    streamOf(plain).destroy();

    // With the guard: dropped at connect, with an outage error the API answers 503.
    const t0 = Date.now();
    const guarded = new pg.Client({ ...config, stream: () => new SelfBoundGuarded() });
    guarded.on('error', () => undefined);
    const err = await guarded.connect().then(() => undefined, (e: unknown) => e);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(err).toBeInstanceOf(SelfConnectError);
    expect(err).toMatchObject({ code: 'ESELFCONNECT' });
    // Counted as a failed attempt of that server (its reconnects now back off, see below).
    expect(connectStats('127.0.0.1', port)).toEqual({ attempts: 1, failures: 1, selfConnects: 1, refused: 0 });
    expect(streamOf(guarded).destroyed).toBe(true);
    expect(isOutage(err)).toBe(true);
    expect(toErrorReply(err as Error)).toMatchObject({ status: 503, body: { error: 'ERR_SERVICE_UNAVAILABLE' } });
  });
});

describe('reconnect backoff of one server', () => {
  const refused = new Error('connect ECONNREFUSED');

  test('after a failure: connects fail at once until a jittered, doubling delay has passed, then one probe at a time; capped; a success ends it', () => {
    const gate = new ReconnectGate('127.0.0.1:1');
    let now = 1_000_000;
    expect(gate.admit(now)).toEqual({ go: true, probe: false });
    expect(gate.admit(now)).toEqual({ go: true, probe: false });
    // Both attempts fail: one round (the attempts were in flight together).
    gate.failed(now, false, refused, 400);
    gate.failed(now, false, refused, 400);
    const waits: number[] = [];
    for (let round = 0; round < 6; round++) {
      // Refused (without trying) until the delay has passed, each with an outage error saying when.
      const no = gate.admit(now);
      expect(no.go).toBe(false);
      const err = (no as { error: DatabaseBackoffError }).error;
      expect(err).toBeInstanceOf(DatabaseBackoffError);
      expect(isOutage(err)).toBe(true);
      expect(err.message).toMatch(/^database 127\.0\.0\.1:1 unreachable \(connect ECONNREFUSED\); next connection attempt in \d+ ms$/);
      expect(toErrorReply(err)).toMatchObject({ status: 503, body: { error: 'ERR_SERVICE_UNAVAILABLE' } });
      let t = now;
      while (!gate.admit(t).go) t++;
      waits.push(t - now);
      now = t;
      // That attempt is the probe: the others still fail at once while it runs.
      expect(gate.admit(now + 1).go).toBe(false);
      gate.failed(now + 5, true, refused, 400);
      now += 5;
    }
    // Delays 50, 100, 200, 400, 400, 400 ms (cap 400), each jittered within [half, all].
    const delays = [50, 100, 200, 400, 400, 400];
    waits.forEach((w, i) => {
      expect(w).toBeGreaterThanOrEqual(delays[i] / 2);
      expect(w).toBeLessThanOrEqual(delays[i] + 1);
    });
    expect(gate.stats).toMatchObject({ attempts: 2 + 6, failures: 2 + 6, selfConnects: 0 });
    // The next probe connects: everyone connects again at once.
    let t = now;
    while (!gate.admit(t).go) t++;
    gate.connected(t, true);
    expect(gate.admit(t)).toEqual({ go: true, probe: false });
    expect(gate.admit(t)).toEqual({ go: true, probe: false });
  });

  test('a probe that never settles holds the others back 30 s at most', () => {
    const gate = new ReconnectGate('127.0.0.1:2');
    gate.failed(0, false, refused, 100);
    expect(gate.admit(1_000)).toEqual({ go: true, probe: true });
    expect(gate.admit(20_000).go).toBe(false);
    expect(gate.admit(31_001)).toEqual({ go: true, probe: true });
  });
});

describe('an external PostgreSQL outage under load', () => {
  let cluster: ThrowawayPostgres | undefined;
  let db: ReturnType<typeof createKnex> | undefined;

  beforeAll(async () => {
    cluster = await throwawayPostgres(await freePort());
  }, 60_000);
  afterAll(async () => {
    await db?.destroy().catch(() => undefined);
    await cluster?.remove();
  });

  test('queries fail at once as outages (503) with few connection attempts; the server starts again on its port; queries succeed again', async () => {
    db = createKnex(cluster!.url, 4, quiet, { reconnectMaxMs: RECONNECT_MAX_MS, connectTimeoutMs: 2000 });
    type Outcome = { worker: number; at: number; ms: number; ok: boolean; err?: unknown };
    const outcomes: Outcome[] = [];
    let running = true;
    const WORKERS = 8;
    const loops = Array.from({ length: WORKERS }, async (_, worker) => {
      while (running) {
        const t0 = Date.now();
        try {
          await db!.raw('select 1');
          outcomes.push({ worker, at: t0, ms: Date.now() - t0, ok: true });
        } catch (err) {
          outcomes.push({ worker, at: t0, ms: Date.now() - t0, ok: false, err });
        }
        await new Promise((r) => setTimeout(r, 5));
      }
    });
    const okSince = (t: number) => new Set(outcomes.filter((o) => o.ok && o.at >= t).map((o) => o.worker)).size;
    try {
      // Under load, every worker served.
      const warm = Date.now();
      while (okSince(warm) < WORKERS) await new Promise((r) => setTimeout(r, 20));

      const port = cluster!.port;
      await cluster!.stop('fast');
      const down = Date.now();
      const before = { ...connectStats('127.0.0.1', port)! };
      await new Promise((r) => setTimeout(r, OUTAGE_MS));
      const during = outcomes.filter((o) => o.at >= down + 200);
      const attempts = connectStats('127.0.0.1', port)!.attempts - before.attempts;

      // Started again on the same port: nothing of ours holds it.
      await cluster!.start();
      const up = Date.now();
      while (okSince(up) < WORKERS && Date.now() - up < 10_000) await new Promise((r) => setTimeout(r, 20));
      const recoveredMs = Date.now() - up;
      running = false;
      await Promise.all(loops);

      const failed = during.filter((o) => !o.ok);
      console.log(`outage of ${OUTAGE_MS} ms under load: ${failed.length} queries failed at once (slowest ${Math.max(...failed.map((o) => o.ms))} ms), ${attempts} connection attempts; every worker served again ${recoveredMs} ms after the restart`);
      // While down: failures only, each at once, each an outage the API answers 503.
      expect(during.length).toBeGreaterThan(50);
      expect(failed.length).toBe(during.length);
      expect(Math.max(...failed.map((o) => o.ms))).toBeLessThan(1000);
      for (const f of failed) expect(toErrorReply(f.err as Error)).toMatchObject({ status: 503, body: { error: 'ERR_SERVICE_UNAVAILABLE' } });
      expect(failed.some((f) => f.err instanceof DatabaseBackoffError)).toBe(true);
      // Few attempts reached the network: a jittered backoff (25-200 ms apart here), not one per query.
      expect(attempts).toBeLessThan(Math.max(20, failed.length / 4));
      expect(attempts).toBeLessThan(OUTAGE_MS / 20);

      // Back without a human: every worker's queries succeed again, within the backoff's cap and a little.
      expect(okSince(up)).toBe(WORKERS);
      expect(recoveredMs).toBeLessThan(5000);
      expect(await db.raw('select 1 as one')).toMatchObject({ rows: [{ one: 1 }] });
      // No connection the pool keeps is connected to itself.
      const pool = (db.client as unknown as { pool: { free: { resource: unknown }[]; used: { resource: unknown }[] } }).pool;
      const sockets = [...pool.free, ...pool.used].map((r) => (r.resource as { connection: { stream: net.Socket } }).connection.stream);
      expect(sockets.length).toBeGreaterThan(0);
      for (const s of sockets) expect(isSelfConnected(s)).toBe(false);
    } finally {
      running = false;
      await Promise.all(loops);
    }
  }, 60_000);
});
