import { AppError, OutageError, PermanentError, type InboxEvent } from '@atendo/sdk';
import { createTestKernel, waitFor, type TestKernel } from '@atendo/testing';
import { createKnex } from '../src/db';
import { DurableInbox, scopedInbox, type DurableInboxOptions } from '../src/inbox/inbox';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

describe('durable inbox', () => {
  let k: TestKernel;
  const inboxes: DurableInbox[] = [];
  let n = 0;
  const source = () => `test.src${n++}`;
  const make = (opts: Partial<DurableInboxOptions> = {}) => {
    const inbox = new DurableInbox({ db: k.db, log: quiet, singleNode: false, maxBacklog: 10_000, concurrency: 16, leaseMs: 30_000, maxAttempts: 3, pollMs: 50, ...opts });
    inboxes.push(inbox);
    return inbox;
  };
  const rows = async (src: string) =>
    ((await k.db.raw('SELECT id, key, state, attempts, last_error, lease_until, next_at FROM inbox_events WHERE source = ? ORDER BY id', [src])) as {
      rows: { id: string; key: string; state: string; attempts: number; last_error: string | null; lease_until: Date | null; next_at: Date }[];
    }).rows;

  beforeAll(async () => {
    k = await createTestKernel();
  });
  afterEach(async () => {
    await Promise.all(inboxes.splice(0).map((i) => i.stop(1000)));
  });
  afterAll(() => k.close());

  test('an accepted event is committed before accept resolves, handed to the handler, then deleted', async () => {
    const src = source();
    const inbox = make();
    const seen: InboxEvent[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    inbox.process(src, async (e) => {
      await gate;
      seen.push(e);
    });
    await inbox.start();
    const r = await inbox.accept(src, { key: 'k1', payload: Buffer.from('{"a":1}'), meta: { object: 'x' } });
    expect(r).toEqual({ id: expect.any(Number), duplicate: false });
    // Committed: another connection sees it while the handler is still running.
    const other = createKnex(withDbUrl(k), 1);
    try {
      const { rows: found } = await other.raw('SELECT payload, meta, lease_until FROM inbox_events WHERE id = ?', [r.id!]);
      expect(found).toHaveLength(1);
      expect(found[0].payload.toString()).toBe('{"a":1}');
      expect(found[0].meta).toEqual({ object: 'x' });
      expect(found[0].lease_until).not.toBeNull(); // leased to this node, handed out from memory
    } finally {
      await other.destroy();
    }
    release();
    await waitFor(() => seen.length === 1);
    expect(seen[0]).toMatchObject({ id: r.id, source: src, key: 'k1', meta: { object: 'x' }, attempts: 0 });
    expect(seen[0].payload.toString()).toBe('{"a":1}');
    await inbox.drained();
    expect(await rows(src)).toEqual([]);
  });

  test('concurrent accepts share INSERTs (group commit); a key waiting already is a duplicate; finished rows share DELETEs', async () => {
    const src = source();
    const inbox = make();
    const handled: string[] = [];
    inbox.process(src, async (e) => void handled.push(e.key));
    await inbox.start();
    let inserts = 0;
    let deletes = 0;
    const count = (q: { sql: string }) => {
      if (/INSERT INTO inbox_events/.test(q.sql)) inserts++;
      if (/DELETE FROM inbox_events/.test(q.sql)) deletes++;
    };
    k.db.on('query', count);
    try {
      const results = await Promise.all(Array.from({ length: 300 }, (_, i) => inbox.accept(src, { key: `g${i % 250}`, payload: Buffer.from(String(i)) })));
      expect(results.filter((r) => r.duplicate)).toHaveLength(50);
      expect(new Set(results.filter((r) => !r.duplicate).map((r) => r.id)).size).toBe(250);
      await waitFor(() => handled.length === 250, 10_000);
      await inbox.drained();
    } finally {
      k.db.off('query', count);
    }
    expect(inserts).toBeGreaterThanOrEqual(1);
    expect(inserts).toBeLessThanOrEqual(10);
    // Each finished row waits up to 20 ms for others: a burst costs a few DELETEs, not one per handler slot.
    expect(deletes).toBeGreaterThanOrEqual(1);
    expect(deletes).toBeLessThanOrEqual(5);
    expect(new Set(handled).size).toBe(250);
    expect(await rows(src)).toEqual([]);
  });

  test('the backlog is bounded: past maxBacklog pending events accept answers 503 ERR_SERVICE_UNAVAILABLE', async () => {
    const src = source();
    const inbox = make({ maxBacklog: 5 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    inbox.process(src, () => gate);
    await inbox.start();
    for (let i = 0; i < 5; i++) await inbox.accept(src, { key: `b${i}`, payload: Buffer.from('x') });
    const refused = await inbox.accept(src, { key: 'b5', payload: Buffer.from('x') }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'ERR_SERVICE_UNAVAILABLE', statusCode: 503 });
    expect((await rows(src)).map((r) => r.key)).toEqual(['b0', 'b1', 'b2', 'b3', 'b4']);
    release();
    await inbox.drained();
    await new Promise((r) => setTimeout(r, 1100)); // the table's count is read again at most every second
    await expect(inbox.accept(src, { key: 'b6', payload: Buffer.from('x') })).resolves.toMatchObject({ duplicate: false });
  });

  test('failures: PermanentError dead-letters at once; other errors are retried with a delay, then dead-lettered; outages never', async () => {
    const src = source();
    const inbox = make({ maxAttempts: 2 });
    const tries = new Map<string, number>();
    inbox.process(src, async (e) => {
      const t = (tries.get(e.key) ?? 0) + 1;
      tries.set(e.key, t);
      if (e.key === 'perm') throw new PermanentError('never');
      if (e.key === 'flaky') throw new Error(`try ${t} failed`);
      if (e.key === 'outage' && t <= 3) throw new OutageError('database down', { cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) });
    });
    await inbox.start();
    for (const key of ['perm', 'flaky', 'outage']) await inbox.accept(src, { key, payload: Buffer.from(key) });
    // A finished row's DELETE lingers up to 20 ms to share its statement: wait for it as well as for the tries.
    await waitFor(async () => {
      const now = await rows(src);
      return now.filter((r) => r.state === 'dead').length === 2 && (tries.get('outage') ?? 0) >= 4 && !now.some((r) => r.key === 'outage');
    }, 10_000, 50);
    const byKey = Object.fromEntries((await rows(src)).map((r) => [r.key, r]));
    expect(byKey.perm).toMatchObject({ state: 'dead', attempts: 1, last_error: 'PermanentError: never' });
    expect(byKey.flaky).toMatchObject({ state: 'dead', attempts: 2, last_error: 'Error: try 2 failed' });
    expect(tries.get('perm')).toBe(1);
    expect(tries.get('flaky')).toBe(2);
    // The outage: four tries (three failed while "down"), never counted as attempts, done and deleted.
    expect(tries.get('outage')).toBe(4);
    expect(byKey.outage).toBeUndefined();
  });

  test('a previous run\'s leases are released at start on a single node; other nodes\' leases run out first', async () => {
    const src = source();
    // Rows a crashed run had taken (leased for another 10 minutes) and one due later.
    await k.db.raw(`INSERT INTO inbox_events (source, key, payload, lease_until) VALUES (?, 'crashed1', 'a', now() + interval '10 minutes'), (?, 'crashed2', 'b', now() + interval '10 minutes')`, [src, src]);
    const multi = make({ singleNode: false });
    const seenMulti: string[] = [];
    multi.process(src, async (e) => void seenMulti.push(e.key));
    await multi.start();
    await new Promise((r) => setTimeout(r, 300));
    expect(seenMulti).toEqual([]); // leased by someone else: not taken
    await multi.stop(100);
    const single = make({ singleNode: true });
    const seen: string[] = [];
    single.process(src, async (e) => void seen.push(e.key));
    await single.start();
    await waitFor(() => seen.length === 2);
    expect(seen.sort()).toEqual(['crashed1', 'crashed2']);
    await single.drained();
    expect(await rows(src)).toEqual([]);
  });

  test('rows written by another node (not leased to this one) are claimed and handled', async () => {
    const src = source();
    const writer = make(); // no handler for src: it writes rows unleased
    await writer.start();
    for (let i = 0; i < 100; i++) await writer.accept(src, { key: `w${i}`, payload: Buffer.from(String(i)) });
    expect((await rows(src)).every((r) => r.lease_until === null)).toBe(true);
    const reader = make();
    const seen: string[] = [];
    reader.process(src, async (e) => void seen.push(e.key));
    await reader.start();
    await waitFor(() => seen.length === 100, 10_000);
    await reader.drained();
    expect(new Set(seen).size).toBe(100);
    expect(await rows(src)).toEqual([]);
  });

  test('the database unreachable: accept answers 503, nothing is lost that was acknowledged', async () => {
    const url = new URL(withDbUrl(k));
    url.port = '1';
    const dead = createKnex(url.toString(), 1);
    try {
      const inbox = new DurableInbox({ db: dead, log: quiet, singleNode: true, maxBacklog: 100, concurrency: 4, leaseMs: 30_000, maxAttempts: 3 });
      inboxes.push(inbox);
      const refused = await inbox.accept('test.down', { key: 'x', payload: Buffer.from('x') }).catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: 'ERR_SERVICE_UNAVAILABLE', statusCode: 503, message: 'Database unavailable, deliver again later' });
    } finally {
      await dead.destroy();
    }
  });

  test('a plugin names its sources after itself', () => {
    const inbox = make();
    const scoped = scopedInbox(inbox, 'channels');
    expect(() => scoped.process('tickets.x', async () => undefined)).toThrow(/channels\.<name>/);
    expect(() => scoped.process('channels.meta-test', async () => undefined)).not.toThrow();
    expect(() => inbox.process('channels.meta-test', async () => undefined)).toThrow(/already has a handler/);
  });
});

function withDbUrl(k: TestKernel): string {
  const u = new URL(process.env.ATENDO_TEST_PG_BASE!);
  u.pathname = `/${k.dbName}`;
  return u.toString();
}
