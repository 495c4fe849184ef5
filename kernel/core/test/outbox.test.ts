import { randomUUID } from 'node:crypto';
import { PermanentError, type Bus, type BusMessage } from '@atendo/sdk';
import { createTestKernel, waitFor, type TestKernel } from '@atendo/testing';
import { InProcessBroker, InProcessBus } from '../src/bus/in-process';
import { RabbitMqBus } from '../src/bus/rabbitmq';
import { Outbox, OutboxBus } from '../src/bus/outbox';
import { DeadLetterStore } from '../src/inbox/dead-letters';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The transactional outbox (kernel/core/src/bus/outbox.ts) on both buses: events written with a transaction leave
 * with its commit and never with its rollback (savepoints too); an event whose process died between the commit and
 * the relay is published by the next start; the in-process broker at its bound loses nothing (back-pressure); the
 * relay deletes a row only once the bus has it for good.
 */
describe.each([
  ['in-process', false],
  ['rabbitmq', true],
] as const)('outbox on the %s bus', (_name, rabbit) => {
  const run = rabbit && !process.env.AMQP_URL ? test.skip : test;
  let k: TestKernel;
  const closers: (() => Promise<void>)[] = [];

  const makeBus = async (opts: { maxQueueLength?: number; broker?: InProcessBroker } = {}): Promise<Bus> => {
    if (rabbit) {
      const b = new RabbitMqBus({ url: process.env.AMQP_URL!, exchange: `atendo.test.outbox.${randomUUID()}`, queuePrefix: `outbox-${randomUUID().slice(0, 8)}.`, logger: quiet });
      await b.connect();
      return b;
    }
    return new InProcessBus({ broker: opts.broker ?? new InProcessBroker({ maxQueueLength: opts.maxQueueLength }), privateBroker: !opts.broker, logger: quiet });
  };
  const make = async (raw: Bus, opts: { maxHeld?: number } = {}) => {
    const outbox = new Outbox({ db: k.db, bus: raw, log: quiet, singleNode: !rabbit, leaseMs: 30_000, pollMs: 50, maxHeld: opts.maxHeld });
    const bus = new OutboxBus(raw, outbox);
    closers.push(async () => {
      await outbox.stop(500);
      await raw.close();
    });
    return { outbox, bus };
  };
  const rows = async (topic: string) => ((await k.db.raw('SELECT id, state, lease_until FROM outbox_events WHERE topic = ?', [topic])) as { rows: { id: string; state: string }[] }).rows;

  beforeAll(async () => {
    k = await createTestKernel();
    // These tests run outboxes of their own on the kernel's database: the kernel's relay must not take their rows.
    await k.outbox.stop(0);
  });
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
  });
  afterAll(() => k.close());

  run('an event published with a transaction leaves with its commit, never with its rollback or a rolled-back savepoint', async () => {
    const { outbox, bus } = await make(await makeBus());
    const topic = `test.outbox.${randomUUID().slice(0, 8)}`;
    const got: BusMessage<{ n: number }>[] = [];
    await bus.subscribe<{ n: number }>(topic, (m) => void got.push(m), { queue: `q-${topic}` });
    await outbox.start();

    await k.db.transaction(async (trx) => {
      await bus.publish(topic, { n: 1 }, { trx, id: 'one' });
      await sleep(150);
      // Not before the commit.
      expect(got).toHaveLength(0);
    });
    await waitFor(() => got.length === 1);
    expect(got[0]).toMatchObject({ id: 'one', payload: { n: 1 } });

    await expect(
      k.db.transaction(async (trx) => {
        await bus.publish(topic, { n: 2 }, { trx });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await k.db.transaction(async (trx) => {
      await trx.transaction(async (sp) => {
        await bus.publish(topic, { n: 3 }, { trx: sp });
        throw new Error('savepoint rolled back');
      }).catch(() => undefined);
      await trx.transaction(async (sp) => bus.publish(topic, { n: 4 }, { trx: sp }));
    });
    await waitFor(() => got.length === 2);
    await sleep(200);
    expect(got.map((m) => m.payload.n)).toEqual([1, 4]);
    // Published rows are deleted.
    await waitFor(async () => (await rows(topic)).length === 0);
  });

  run('the events one transaction publishes at once share one INSERT and keep their order', async () => {
    const { outbox, bus } = await make(await makeBus());
    const topic = `test.outbox.${randomUUID().slice(0, 8)}`;
    const got: number[] = [];
    await bus.subscribe<{ n: number }>(topic, (m) => void got.push(m.payload.n), { queue: `q-${topic}`, prefetch: 1 });
    await outbox.start();
    const statements: string[] = [];
    const onQuery = (q: { sql: string }) => statements.push(q.sql);
    k.db.on('query', onQuery);
    try {
      await k.db.transaction(async (trx) => {
        await Promise.all(Array.from({ length: 50 }, (_, n) => bus.publish(topic, { n }, { trx })));
      });
    } finally {
      k.db.removeListener('query', onQuery);
    }
    expect(statements.filter((s) => s.includes('INSERT INTO outbox_events'))).toHaveLength(1);
    await waitFor(() => got.length === 50);
    expect(got).toEqual(Array.from({ length: 50 }, (_, n) => n));
  });

  run('a process that died between the commit and the relay: the next start publishes the event', async () => {
    const topic = `test.outbox.${randomUUID().slice(0, 8)}`;
    // The first process commits and dies before its relay hands the event over (its outbox never started: the
    // rows it wrote are not leased to it, as after a crash once the lease is released).
    const first = await make(await makeBus());
    await k.db.transaction((trx) => first.bus.publish(topic, { n: 7 }, { trx, id: 'after-crash' }));
    expect(await rows(topic)).toHaveLength(1);

    const second = await make(await makeBus());
    const got: BusMessage[] = [];
    await second.bus.subscribe(topic, (m) => void got.push(m), { queue: `q-${topic}` });
    await second.outbox.start();
    await waitFor(() => got.length === 1);
    expect(got[0]).toMatchObject({ id: 'after-crash', payload: { n: 7 } });
    await waitFor(async () => (await rows(topic)).length === 0);
  });

  run('a publish without a transaction is durable before it resolves', async () => {
    const { outbox, bus } = await make(await makeBus());
    const topic = `test.outbox.${randomUUID().slice(0, 8)}`;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const got: number[] = [];
    await bus.subscribe<{ n: number }>(topic, async (m) => {
      await gate;
      got.push(m.payload.n);
    }, { queue: `q-${topic}` });
    await outbox.start();
    await bus.publish(topic, { n: 1 });
    if (!rabbit) {
      // In-process: the row stays until the consumer handled it (a crash now would publish it again).
      expect(await rows(topic)).toHaveLength(1);
    }
    release();
    await waitFor(() => got.length === 1);
    await waitFor(async () => (await rows(topic)).length === 0);
  });
});

describe('outbox: the in-process broker at its bound', () => {
  let k: TestKernel;
  beforeAll(async () => {
    k = await createTestKernel();
    await k.outbox.stop(0);
  });
  afterAll(() => k.close());

  test('2,000 events into a queue of 20 with a slow consumer: every one delivered once, none refused, none dropped', async () => {
    const raw = new InProcessBus({ broker: new InProcessBroker({ maxQueueLength: 20 }), privateBroker: true, logger: quiet });
    const outbox = new Outbox({ db: k.db, bus: raw, log: quiet, singleNode: true, leaseMs: 30_000, pollMs: 50, maxHeld: 100 });
    const bus = new OutboxBus(raw, outbox);
    const topic = 'test.outbox.bound';
    const seen = new Map<number, number>();
    await bus.subscribe<{ n: number }>(topic, async (m) => {
      await sleep(1);
      seen.set(m.payload.n, (seen.get(m.payload.n) ?? 0) + 1);
    }, { queue: 'q-bound', prefetch: 4 });
    await outbox.start();
    try {
      const N = 2_000;
      for (let i = 0; i < N; i += 200) {
        await k.db.transaction((trx) => Promise.all(Array.from({ length: 200 }, (_, j) => bus.publish(topic, { n: i + j }, { trx }))));
      }
      await waitFor(() => seen.size === N, 60_000);
      expect([...seen.values()].every((c) => c === 1)).toBe(true);
      // Nothing left behind, nothing dead.
      await waitFor(async () => Number((await k.db.raw("SELECT count(*)::int AS n FROM outbox_events WHERE topic = ?", [topic])).rows[0].n) === 0);
    } finally {
      await outbox.stop(500);
      await raw.close();
    }
  }, 90_000);
});

describe('dead letters: GET /dead-letters and POST /dead-letters/redrive', () => {
  let k: TestKernel;
  beforeAll(async () => {
    k = await createTestKernel();
  });
  afterAll(() => k.close());

  test("a company admin sees and redrives its own company's dead letters only; the super admin sees every company's", async () => {
    const A = await k.createCompany();
    const B = await k.createCompany();
    const topic = `test.dead.${randomUUID().slice(0, 8)}`;
    let fail = true;
    const handled: number[] = [];
    await k.bus.subscribe<{ companyId: number }>(topic, (m) => {
      if (fail) throw new PermanentError('refused by the test');
      handled.push(m.payload.companyId);
    }, { queue: `q-${topic}`, maxRetries: 0 });
    await k.bus.publish(topic, { companyId: A.companyId, text: 'for A' });
    await k.bus.publish(topic, { companyId: B.companyId, text: 'for B' });
    const list = async (user: { token: string }) => (await k.as(user, 'GET', '/dead-letters')).json() as { records: { id: string; topic: string; companyId: number; error: string }[]; count: number };
    await waitFor(async () => (await list(k.superAdmin)).records.filter((r) => r.topic === topic).length === 2);

    const a = await list(A.admin);
    expect(a.records.map((r) => r.companyId)).toEqual([A.companyId]);
    expect(a.records[0]).toMatchObject({ topic, error: expect.stringContaining('refused by the test') });
    const b = await list(B.admin);
    expect(b.records.every((r) => r.companyId === B.companyId)).toBe(true);
    const user = await k.createUser(A.companyId, { profile: 'user' });
    expect((await k.as(user, 'GET', '/dead-letters')).statusCode).toBe(403);

    // A's admin redriving B's id changes nothing; its own is put back and handled.
    fail = false;
    const res = await k.as(A.admin, 'POST', '/dead-letters/redrive', { ids: [b.records[0].id] });
    expect(res.json()).toEqual({ redriven: 0 });
    expect((await k.as(A.admin, 'POST', '/dead-letters/redrive', { ids: ['nonsense'] })).statusCode).toBe(400);
    expect((await k.as(A.admin, 'POST', '/dead-letters/redrive', {})).json()).toEqual({ redriven: 1 });
    await waitFor(() => handled.includes(A.companyId), 15_000);
    expect(handled).not.toContain(B.companyId);
    await waitFor(async () => (await list(A.admin)).count === 0, 15_000);
    expect((await list(B.admin)).count).toBe(1);
  });

  test('in-process redrive: the stored dead letter is deleted only once its consumer handled it; a crash meanwhile leaves it marked', async () => {
    const store = new DeadLetterStore(k.db, quiet);
    const topic = `test.redrive.${randomUUID().slice(0, 8)}`;
    const queue = `q-${topic}`;
    const [{ id }] = (
      await k.db.raw('INSERT INTO bus_dead_letters (queue, message_id, topic, payload, headers, attempt, error, company_id, redrive_at) VALUES (?, ?, ?, ?::jsonb, ?::jsonb, 1, ?, 5, now()) RETURNING id', [queue, `m-${topic}`, topic, JSON.stringify({ companyId: 5 }), '{}', 'refused'])
    ).rows as { id: string }[];
    const marked = async () => ((await k.db.raw('SELECT redrive_at IS NOT NULL AS marked FROM bus_dead_letters WHERE id = ?', [id])).rows[0] as { marked: boolean } | undefined)?.marked;

    // A process whose consumer is slow dies while the message waits in memory: the row stays, still marked.
    const first = new InProcessBus({ broker: new InProcessBroker(), privateBroker: true, logger: quiet });
    let release!: () => void;
    const started = new Promise<void>((r) => (release = r));
    await first.subscribe(topic, () => {
      release();
      return new Promise(() => undefined); // never finishes: the process "dies" first
    }, { queue });
    expect(await store.redriveMarked(first)).toBe(1);
    await started;
    expect(await store.redriveMarked(first)).toBe(0); // already in memory: not put back twice
    void first.close();
    await sleep(50);
    expect(await marked()).toBe(true);

    // The next process puts it back again; once its consumer handled it, the row is gone.
    const store2 = new DeadLetterStore(k.db, quiet);
    const second = new InProcessBus({ broker: new InProcessBroker(), privateBroker: true, logger: quiet });
    const handled: unknown[] = [];
    await second.subscribe(topic, (m) => {
      handled.push(m.payload);
    }, { queue });
    expect(await store2.redriveMarked(second)).toBe(1);
    await waitFor(async () => (await marked()) === undefined, 10_000);
    expect(handled).toEqual([{ companyId: 5 }]);
    await second.close();
  });

  test('the store lists dead outbox events with their company and puts them back to pending', async () => {
    const store = new DeadLetterStore(k.db, quiet);
    const [{ id }] = (
      await k.db.raw("INSERT INTO outbox_events (message_id, topic, payload, company_id, state, last_error) VALUES ('m-dead', 'test.dead.outbox', '{\"companyId\": 77}', 77, 'dead', 'refused') RETURNING id")
    ).rows as { id: string }[];
    const page = await store.list(77, 1);
    expect(page.records).toEqual([expect.objectContaining({ id: `outbox:${id}`, kind: 'outbox', topic: 'test.dead.outbox', companyId: 77, error: 'refused' })]);
    expect((await store.list(78, 1)).count).toBe(0);
    expect(await store.redrive(78, [`outbox:${id}`])).toBe(0);
    expect(await store.redrive(77, [`outbox:${id}`])).toBe(1);
    const { rows } = await k.db.raw('SELECT state FROM outbox_events WHERE id = ?', [id]);
    expect(rows[0].state).toBe('pending');
    await k.db.raw('DELETE FROM outbox_events WHERE id = ?', [id]);
  });
});
