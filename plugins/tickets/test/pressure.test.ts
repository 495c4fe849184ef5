/**
 * Ingestion first (src/services/pressure.ts): the inbound pipeline's load, and the concurrency limit of the
 * conversation turns that follows it.
 */
import { AdaptiveLimit, InboundPressure } from '../src/services/pressure';

const defer = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};
const tick = () => new Promise((r) => setImmediate(r));

describe('InboundPressure', () => {
  test('busy from `threshold` deliveries in progress, and for `holdMs` after', async () => {
    let now = 1_000;
    const p = new InboundPressure(3, 250, () => now);
    const gates = [defer(), defer(), defer()];
    const handler = p.track(async (i: number) => gates[i].promise);
    const calls = [handler(0), handler(1)];
    expect(p.busy()).toBe(false);
    calls.push(handler(2));
    expect(p.busy()).toBe(true);
    for (const g of gates) g.resolve();
    await Promise.all(calls);
    // None in progress, but it was busy 0 ms ago.
    expect(p.busy()).toBe(true);
    now += 249;
    expect(p.busy()).toBe(true);
    now += 2;
    expect(p.busy()).toBe(false);
  });

  test("a handler's error still counts it out", async () => {
    const p = new InboundPressure(1, 0, () => 0);
    const handler = p.track(async () => {
      throw new Error('bad delivery');
    });
    await expect(handler(undefined)).rejects.toThrow('bad delivery');
    expect(p.busy()).toBe(false);
  });
});

describe('AdaptiveLimit', () => {
  test('runs at most limit() at once, in order, and follows a limit that changes', async () => {
    let limit = 2;
    const l = new AdaptiveLimit(() => limit);
    const gates = Array.from({ length: 5 }, defer);
    const started: number[] = [];
    const runs = gates.map((g, i) => l.run(async () => {
      started.push(i);
      await g.promise;
      return i;
    }));
    await tick();
    expect(started).toEqual([0, 1]);
    expect([l.active, l.pending]).toEqual([2, 3]);
    // The pipeline got busy: one at a time from now on.
    limit = 1;
    gates[0].resolve();
    gates[1].resolve();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    // Not busy any more: the next end lets the others start together.
    limit = 8;
    gates[2].resolve();
    await tick();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    gates[3].resolve();
    gates[4].resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
  });

  test('a limit below 1 still runs one; a rejected task frees its slot', async () => {
    const l = new AdaptiveLimit(() => 0);
    await expect(l.run(async () => {
      throw new Error('turn failed');
    })).rejects.toThrow('turn failed');
    // A task that throws before returning its promise rejects the same way.
    await expect(l.run(() => {
      throw new Error('sync');
    })).rejects.toThrow('sync');
    expect(await l.run(async () => 'next')).toBe('next');
    await tick();
    expect(l.active).toBe(0);
  });

  test('rest: the slot stays taken after a task for rest(ms it ran), its promise settling at once', async () => {
    const l = new AdaptiveLimit(() => 1, () => 60);
    const t0 = Date.now();
    expect(await l.run(async () => 'first')).toBe('first');
    expect(Date.now() - t0).toBeLessThan(50);
    await tick();
    expect(l.active).toBe(1);
    const second = l.run(async () => Date.now());
    expect(await second).toBeGreaterThanOrEqual(t0 + 55);
    // No rest when rest() says 0.
    const free = new AdaptiveLimit(() => 1, () => 0);
    await free.run(async () => undefined);
    await tick();
    expect(free.active).toBe(0);
  });
});
