import { randomBytes } from 'node:crypto';
import { OutageError, PermanentError, RetryableError, type Bus, type BusMessage, type SubscribeOptions } from '@atendo/sdk';

/** Options of the contract suite. */
export interface BusContractOptions {
  /** Called after each test with the (non-broadcast) queue names the test declared, e.g. to delete them on a shared broker. */
  cleanupQueues?: (queues: string[]) => Promise<void>;
}

/** Random lower-case suffix so tests against a shared broker never collide. */
export function uid(): string {
  return randomBytes(5).toString('hex');
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `cond` every 10 ms until it is truthy; throws `what` after `timeoutMs`. */
export async function waitFor(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 4000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await cond()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await sleep(10);
  }
}

/** A deferred promise. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Time to wait for "nothing else arrives" checks. */
const SETTLE_MS = 250;

/**
 * The `Bus` contract suite shared by every implementation. `make` returns a fresh, ready bus; buses made
 * within one suite must share the same broker (several calls emulate several processes). Every bus made
 * during a test is closed after it.
 */
export function busContract(name: string, make: () => Promise<Bus>, options: BusContractOptions = {}): void {
  describe(`Bus contract: ${name}`, () => {
    const buses: Bus[] = [];
    let queues: string[] = [];

    const newBus = async (): Promise<Bus> => {
      const bus = await make();
      buses.push(bus);
      return bus;
    };
    /** A unique queue name, remembered for cleanup. */
    const q = (label: string): string => {
      const queue = `test.${label}.${uid()}`;
      queues.push(queue);
      return queue;
    };
    /** Subscribes and records deliveries. */
    const collect = async (
      bus: Bus,
      pattern: string | string[],
      opts: SubscribeOptions,
      onMessage?: (m: BusMessage) => Promise<void> | void,
    ) => {
      const received: BusMessage[] = [];
      const sub = await bus.subscribe(
        pattern,
        async (m) => {
          received.push(m);
          if (onMessage) await onMessage(m);
        },
        opts,
      );
      return { received, sub };
    };

    afterEach(async () => {
      await Promise.allSettled(buses.splice(0).map((b) => b.close()));
      const used = queues;
      queues = [];
      if (options.cleanupQueues && used.length > 0) await options.cleanupQueues(used);
    });

    it('reports its kind and is ready', async () => {
      const bus = await newBus();
      expect(['rabbitmq', 'in-process']).toContain(bus.kind);
      expect(bus.isReady()).toBe(true);
    });

    it('routes by topic wildcards: * is one word, # zero or more', async () => {
      const bus = await newBus();
      const ns = `ns${uid()}`;
      const star = await collect(bus, `${ns}.*.created`, { queue: q('star') });
      const hash = await collect(bus, `${ns}.#`, { queue: q('hash') });
      const order = await collect(bus, [`${ns}.order.*`, `${ns}.order.#`], { queue: q('order') });
      const exact = await collect(bus, `${ns}.user.created`, { queue: q('exact') });
      const topics = [`${ns}.order.created`, `${ns}.order.item.created`, `${ns}.user.created`, ns, `${ns}x.order.created`];
      for (const t of topics) await bus.publish(t, { t });
      await waitFor(() => hash.received.length >= 4, 'the # queue to receive 4 messages');
      await sleep(SETTLE_MS);
      const sorted = (r: BusMessage[]) => r.map((m) => m.topic).sort();
      expect(sorted(star.received)).toEqual([`${ns}.order.created`, `${ns}.user.created`].sort());
      expect(sorted(hash.received)).toEqual([ns, `${ns}.order.created`, `${ns}.order.item.created`, `${ns}.user.created`].sort());
      // A message matching two bindings of one queue is delivered to that queue once.
      expect(sorted(order.received)).toEqual([`${ns}.order.created`, `${ns}.order.item.created`].sort());
      expect(sorted(exact.received)).toEqual([`${ns}.user.created`]);
    });

    it('fans out a copy to every queue whose binding matches', async () => {
      const bus = await newBus();
      const topic = `fan${uid()}.message.received`;
      const a = await collect(bus, topic, { queue: q('fan-a') });
      const b = await collect(bus, topic, { queue: q('fan-b') });
      for (let i = 0; i < 3; i++) await bus.publish(topic, { i });
      await waitFor(() => a.received.length >= 3 && b.received.length >= 3, 'both queues to receive 3 messages');
      await sleep(SETTLE_MS);
      expect(a.received).toHaveLength(3);
      expect(b.received).toHaveLength(3);
      const ids = (r: BusMessage[]) => r.map((m) => m.id).sort();
      expect(ids(a.received)).toEqual(ids(b.received));
      expect(a.received.map((m) => (m.payload as { i: number }).i).sort()).toEqual([0, 1, 2]);
    });

    it('competing consumers on one queue each get a share, every message exactly once', async () => {
      const bus1 = await newBus();
      const bus2 = await newBus();
      const topic = `compete${uid()}.job.created`;
      const queue = q('compete');
      const c1 = await collect(bus1, topic, { queue, prefetch: 1 }, () => sleep(5));
      const c2 = await collect(bus2, topic, { queue, prefetch: 1 }, () => sleep(5));
      const n = 20;
      await Promise.all(Array.from({ length: n }, (_, i) => bus1.publish(topic, { i })));
      await waitFor(() => c1.received.length + c2.received.length >= n, `${n} deliveries`);
      await sleep(SETTLE_MS);
      const all = [...c1.received, ...c2.received];
      expect(all).toHaveLength(n);
      expect(new Set(all.map((m) => m.id)).size).toBe(n);
      expect(all.map((m) => (m.payload as { i: number }).i).sort((x, y) => x - y)).toEqual(
        Array.from({ length: n }, (_, i) => i),
      );
      expect(c1.received.length).toBeGreaterThan(0);
      expect(c2.received.length).toBeGreaterThan(0);
    });

    it('broadcast delivers every message to every bus instance', async () => {
      const bus1 = await newBus();
      const bus2 = await newBus();
      const topic = `bcast${uid()}.conversation.updated`;
      const b1 = await collect(bus1, topic, { broadcast: true });
      const b2 = await collect(bus2, topic, { broadcast: true });
      await bus1.publish(topic, { n: 1 });
      await bus2.publish(topic, { n: 2 });
      await waitFor(() => b1.received.length >= 2 && b2.received.length >= 2, 'both instances to receive 2 messages');
      await sleep(SETTLE_MS);
      const ns = (r: BusMessage[]) => r.map((m) => (m.payload as { n: number }).n).sort();
      expect(ns(b1.received)).toEqual([1, 2]);
      expect(ns(b2.received)).toEqual([1, 2]);
    });

    it('round-trips id, topic, payload, headers, publishedAt and attempt', async () => {
      const bus = await newBus();
      const topic = `rt${uid()}.message.received`;
      const { received } = await collect(bus, topic, { queue: q('roundtrip') });
      const payload = {
        text: 'olá, 世界 👋',
        n: 42.5,
        flag: false,
        nothing: null,
        list: [1, 'two', { three: 3 }],
        nested: { deep: { deeper: 'yes' } },
      };
      const before = Date.now();
      await bus.publish(topic, payload, { id: 'msg-fixed-id-1', headers: { tenant: 'company-7', 'x-trace': 'abc' } });
      await bus.publish(topic, 'just a string');
      const after = Date.now();
      await waitFor(() => received.length >= 2, '2 messages');
      const m = received.find((r) => r.id === 'msg-fixed-id-1')!;
      expect(m).toBeDefined();
      expect(m.topic).toBe(topic);
      expect(m.payload).toEqual(payload);
      expect(m.headers).toEqual({ tenant: 'company-7', 'x-trace': 'abc' });
      expect(m.attempt).toBe(1);
      expect(m.publishedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      const t = Date.parse(m.publishedAt);
      expect(t).toBeGreaterThanOrEqual(before - 1);
      expect(t).toBeLessThanOrEqual(after + 1);
      const other = received.find((r) => r.id !== 'msg-fixed-id-1')!;
      expect(other.payload).toBe('just a string');
      expect(other.headers).toEqual({});
      expect(other.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    });

    it('delivers asynchronously: publish never runs a handler synchronously', async () => {
      const bus = await newBus();
      const topic = `async${uid()}.x.happened`;
      const { received } = await collect(bus, topic, { queue: q('async') });
      const p = bus.publish(topic, {});
      expect(received).toHaveLength(0);
      await p;
      await waitFor(() => received.length === 1, 'the message');
    });

    it('retries a failing handler with an incremented attempt, then succeeds', async () => {
      const bus = await newBus();
      const topic = `retry${uid()}.order.created`;
      const queue = q('retry');
      const { received } = await collect(bus, topic, { queue, maxRetries: 3, retryDelayMs: 30 }, (m) => {
        if (m.attempt === 1) throw new Error('plain errors are retryable');
        if (m.attempt === 2) throw new RetryableError('provider 503');
      });
      await bus.publish(topic, { order: 1 }, { id: 'retry-me', headers: { k: 'v' } });
      await waitFor(() => received.length >= 3, '3 attempts');
      await sleep(SETTLE_MS);
      expect(received.map((m) => m.attempt)).toEqual([1, 2, 3]);
      for (const m of received) {
        expect(m.id).toBe('retry-me');
        expect(m.topic).toBe(topic);
        expect(m.payload).toEqual({ order: 1 });
        expect(m.headers).toEqual({ k: 'v' });
      }
      expect(await bus.deadLetters(queue)).toEqual([]);
    });

    it('waits retryDelayMs between attempts', async () => {
      const bus = await newBus();
      const topic = `delay${uid()}.order.created`;
      const times: number[] = [];
      await bus.subscribe(
        topic,
        (m) => {
          times.push(Date.now());
          if (m.attempt === 1) throw new RetryableError('again');
        },
        { queue: q('delay'), maxRetries: 1, retryDelayMs: 150 },
      );
      await bus.publish(topic, {});
      await waitFor(() => times.length >= 2, '2 attempts');
      expect(times[1] - times[0]).toBeGreaterThanOrEqual(140);
    });

    it('dead-letters after maxRetries retries; deadLetters() lists it without removing it', async () => {
      const bus = await newBus();
      const topic = `dead${uid()}.order.created`;
      const queue = q('dead');
      const { received } = await collect(bus, topic, { queue, maxRetries: 2, retryDelayMs: 20 }, () => {
        throw new RetryableError('always failing');
      });
      await bus.publish(topic, { order: 2 }, { id: 'doomed', headers: { tenant: 't1' } });
      await waitFor(async () => (await bus.deadLetters(queue)).length >= 1, 'a dead letter');
      await sleep(SETTLE_MS);
      expect(received.map((m) => m.attempt)).toEqual([1, 2, 3]);
      const dead = await bus.deadLetters(queue);
      expect(dead).toHaveLength(1);
      expect(dead[0]).toMatchObject({ id: 'doomed', topic, payload: { order: 2 }, headers: { tenant: 't1' }, attempt: 3 });
      expect(dead[0].publishedAt).toBe(received[0].publishedAt);
      expect(await bus.deadLetters(queue)).toHaveLength(1); // still there
      expect(await bus.deadLetters(`${queue}.unknown`)).toEqual([]);
    });

    it('dead-letters a PermanentError at once, without retries', async () => {
      const bus = await newBus();
      const topic = `perm${uid()}.order.created`;
      const queue = q('perm');
      const { received } = await collect(bus, topic, { queue, maxRetries: 5, retryDelayMs: 10 }, () => {
        throw new PermanentError('bad payload');
      });
      await bus.publish(topic, { bad: true }, { id: 'perm-1' });
      await waitFor(async () => (await bus.deadLetters(queue)).length >= 1, 'a dead letter');
      await sleep(SETTLE_MS);
      expect(received).toHaveLength(1);
      const dead = await bus.deadLetters(queue);
      expect(dead).toHaveLength(1);
      expect(dead[0]).toMatchObject({ id: 'perm-1', attempt: 1, payload: { bad: true } });
    });

    it('retries an outage (database unreachable) beyond maxRetries with a growing delay, same attempt, never dead-lettered', async () => {
      const bus = await newBus();
      const topic = `outage${uid()}.order.created`;
      const queue = q('outage');
      const times: number[] = [];
      const { received } = await collect(bus, topic, { queue, maxRetries: 0, retryDelayMs: 10 }, () => {
        times.push(Date.now());
        if (times.length === 1) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
        if (times.length === 2) throw Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
        if (times.length === 3) throw new OutageError('database down', { cause: new Error('x') });
      });
      await bus.publish(topic, { n: 1 });
      await waitFor(() => received.length >= 4, '4 tries', 6000);
      await sleep(SETTLE_MS);
      expect(received).toHaveLength(4);
      expect(received.map((m) => m.attempt)).toEqual([1, 1, 1, 1]);
      // At least 100, 200 and 400 ms apart (the delay doubles from max(100, retryDelayMs)).
      expect(times[1] - times[0]).toBeGreaterThanOrEqual(90);
      expect(times[3] - times[2]).toBeGreaterThanOrEqual(360);
      expect(await bus.deadLetters(queue)).toEqual([]);
    });

    it('with maxRetries 0 the first failure dead-letters', async () => {
      const bus = await newBus();
      const topic = `zero${uid()}.order.created`;
      const queue = q('zero');
      const { received } = await collect(bus, topic, { queue, maxRetries: 0, retryDelayMs: 10 }, () => {
        throw new RetryableError('nope');
      });
      await bus.publish(topic, {});
      await waitFor(async () => (await bus.deadLetters(queue)).length >= 1, 'a dead letter');
      await sleep(SETTLE_MS);
      expect(received).toHaveLength(1);
      expect(await bus.deadLetters(queue)).toHaveLength(1);
    });

    it('keeps messages of a named queue while nobody consumes and delivers them on re-subscribe', async () => {
      const bus = await newBus();
      const topic = `durable${uid()}.invoice.issued`;
      const queue = q('durable');
      const first = await collect(bus, topic, { queue });
      await bus.publish(topic, { n: 1 });
      await waitFor(() => first.received.length === 1, 'the first message');
      await first.sub.unsubscribe();
      await bus.publish(topic, { n: 2 });
      await bus.publish(topic, { n: 3 });
      await sleep(100);
      const second = await collect(bus, topic, { queue });
      await waitFor(() => second.received.length >= 2, 'the 2 kept messages');
      await sleep(SETTLE_MS);
      expect(first.received.map((m) => (m.payload as { n: number }).n)).toEqual([1]);
      expect(second.received.map((m) => (m.payload as { n: number }).n).sort()).toEqual([2, 3]);
    });

    it('unsubscribe stops delivery to that handler', async () => {
      const bus = await newBus();
      const topic = `unsub${uid()}.x.happened`;
      const stopped = await collect(bus, topic, { queue: q('unsub-a') });
      const control = await collect(bus, topic, { queue: q('unsub-b') });
      const bcast = await collect(bus, topic, { broadcast: true });
      await stopped.sub.unsubscribe();
      await bcast.sub.unsubscribe();
      await stopped.sub.unsubscribe(); // idempotent
      await bus.publish(topic, { n: 1 });
      await waitFor(() => control.received.length === 1, 'the control queue');
      await sleep(SETTLE_MS);
      expect(stopped.received).toHaveLength(0);
      expect(bcast.received).toHaveLength(0);
    });

    it('limits in-flight messages per consumer to prefetch', async () => {
      const bus = await newBus();
      const run = async (prefetch: number, count: number) => {
        const topic = `prefetch${uid()}.x.happened`;
        let active = 0;
        let max = 0;
        let done = 0;
        await bus.subscribe(
          topic,
          async () => {
            active++;
            max = Math.max(max, active);
            await sleep(60);
            active--;
            done++;
          },
          { queue: q(`prefetch${prefetch}`), prefetch },
        );
        await Promise.all(Array.from({ length: count }, () => bus.publish(topic, {})));
        await waitFor(() => done === count, `${count} handled`);
        return max;
      };
      expect(await run(1, 4)).toBe(1);
      expect(await run(3, 7)).toBe(3);
    });

    it('close() waits for in-flight handlers and acks them', async () => {
      const bus = await newBus();
      const topic = `close${uid()}.x.happened`;
      const queue = q('close');
      const started = deferred();
      let finished = false;
      await bus.subscribe(
        topic,
        async () => {
          started.resolve();
          await sleep(200);
          finished = true;
        },
        { queue },
      );
      await bus.publish(topic, {});
      await started.promise;
      await bus.close();
      expect(finished).toBe(true);
      expect(bus.isReady()).toBe(false);
      // The message was acked before closing: nobody gets it again.
      const other = await newBus();
      const again = await collect(other, topic, { queue });
      await sleep(SETTLE_MS);
      expect(again.received).toHaveLength(0);
    });

    it('rejects publish and subscribe after close()', async () => {
      const bus = await newBus();
      await bus.close();
      await bus.close(); // idempotent
      expect(bus.isReady()).toBe(false);
      await expect(bus.publish(`closed${uid()}.x`, {})).rejects.toThrow();
      await expect(bus.subscribe(`closed${uid()}.x`, () => {}, { queue: q('closed') })).rejects.toThrow();
    });

    it('rejects a subscription without queue unless broadcast', async () => {
      const bus = await newBus();
      await expect(bus.subscribe(`noq${uid()}.x`, () => {}, {})).rejects.toThrow(TypeError);
      await expect(bus.subscribe([], () => {}, { queue: q('nopattern') })).rejects.toThrow(TypeError);
    });
  });
}
