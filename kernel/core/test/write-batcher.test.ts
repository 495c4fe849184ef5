import { BatchLoader, isDataError, WriteBatcher } from '@atendo/sdk';

/** The SDK's group commit (kernel/sdk/src/batch.ts): what waits during a flush goes together into the next one. */
describe('WriteBatcher', () => {
  const deferred = () => {
    let resolve!: () => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
    return { promise, resolve, reject };
  };

  test('an idle batcher flushes the first item at once; items added during that flush go in one next flush, in order', async () => {
    const flushes: number[][] = [];
    const gates: ReturnType<typeof deferred>[] = [];
    const b = new WriteBatcher<number>((items) => {
      flushes.push(items);
      const g = deferred();
      gates.push(g);
      return g.promise;
    });
    const first = b.add(1);
    expect(flushes).toEqual([[1]]);
    const rest = [b.add(2), b.add(3), b.add(4)];
    expect(b.pending).toBe(3);
    let firstDone = false;
    void first.then(() => (firstDone = true));
    gates[0].resolve();
    await first;
    expect(firstDone).toBe(true);
    await new Promise((r) => setImmediate(r));
    expect(flushes).toEqual([[1], [2, 3, 4]]);
    gates[1].resolve();
    await Promise.all(rest);
    expect(b.pending).toBe(0);
  });

  test("a failed flush rejects its own items only, and the next items still flush", async () => {
    let calls = 0;
    const b = new WriteBatcher<string>(async (items) => {
      calls++;
      if (items.includes('bad')) throw new Error('constraint');
    });
    const bad = b.add('bad');
    const good = b.add('good');
    await expect(bad).rejects.toThrow('constraint');
    await expect(good).resolves.toBeUndefined();
    expect(calls).toBe(2);
  });

  test('maxBatch caps one flush', async () => {
    const sizes: number[] = [];
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    const b = new WriteBatcher<number>(async (items) => {
      sizes.push(items.length);
      if (sizes.length === 1) await hold;
    }, 2);
    const all = [b.add(0), b.add(1), b.add(2), b.add(3), b.add(4)];
    release();
    await Promise.all(all);
    expect(sizes).toEqual([1, 2, 2]);
    expect(() => new WriteBatcher(async () => undefined, 0)).toThrow(/maxBatch/);
  });
});

/** The read side of the same group commit: each caller gets its own item's result. */
describe('BatchLoader', () => {
  test('reads waiting together go in one flush and each caller gets its own result, in order', async () => {
    const flushes: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const l = new BatchLoader<number, string>(async (items) => {
      flushes.push(items);
      if (flushes.length === 1) await gate;
      return items.map((i) => `v${i}`);
    });
    const first = l.load(1);
    const rest = [l.load(2), l.load(3), l.load(2)];
    release();
    expect(await first).toBe('v1');
    expect(await Promise.all(rest)).toEqual(['v2', 'v3', 'v2']);
    expect(flushes).toEqual([[1], [2, 3, 2]]);
  });

  test('a flush that answers the wrong number of results rejects its batch, not the next one', async () => {
    const l = new BatchLoader<number, number>(async (items) => (items.includes(0) ? [] : items.map((i) => i * 2)));
    const bad = l.load(0);
    const good = l.load(4);
    await expect(bad).rejects.toThrow('flush answered 0 results for 1 items');
    await expect(good).resolves.toBe(8);
  });

  test('maxBatch must be a positive integer', () => {
    expect(() => new BatchLoader(async () => [], 0)).toThrow('BatchLoader: maxBatch must be a positive integer');
    expect(() => new WriteBatcher(async () => undefined, 1.5)).toThrow('WriteBatcher: maxBatch must be a positive integer');
  });
});

describe('BatchLoader: one bad item', () => {
  const constraint = (item: string) => Object.assign(new Error(`duplicate ${item}`), { code: '23505' });

  test('a data error of a batch flushes each item on its own: only the bad one is rejected', async () => {
    const flushes: string[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const l = new BatchLoader<string, string>(async (items) => {
      flushes.push(items);
      if (flushes.length === 1) await gate;
      const bad = items.find((i) => i.startsWith('bad'));
      if (bad) throw constraint(bad);
      return items.map((i) => i.toUpperCase());
    });
    const first = l.load('a');
    const rest = [l.load('b'), l.load('bad-c'), l.load('d')].map((p) => p.then((v) => ({ v }), (e: Error) => ({ e: e.message })));
    release();
    await first;
    expect(await Promise.all(rest)).toEqual([{ v: 'B' }, { e: 'duplicate bad-c' }, { v: 'D' }]);
    expect(flushes).toEqual([['a'], ['b', 'bad-c', 'd'], ['b'], ['bad-c'], ['d']]);
  });

  test('another error (a lost connection) rejects the whole batch at once, with no retries', async () => {
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const l = new BatchLoader<number, number>(async (items) => {
      calls++;
      if (calls === 1) {
        await gate;
        return items;
      }
      throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    });
    const first = l.load(0);
    const rest = [l.load(1), l.load(2)].map((p) => p.catch((e: Error) => e.message));
    release();
    await first;
    expect(await Promise.all(rest)).toEqual(['connect ECONNREFUSED', 'connect ECONNREFUSED']);
    expect(calls).toBe(2);
    expect(isDataError({ code: '22P02' })).toBe(true);
    expect(isDataError({ code: '08006' })).toBe(false);
    expect(isDataError(new Error('x'))).toBe(false);
  });
});

describe('BatchLoader: linger', () => {
  test('lingerMs: a partial batch waits that long for more, so items added meanwhile share its flush; a full one does not wait', async () => {
    const flushes: number[][] = [];
    const l = new WriteBatcher<number>(async (items) => void flushes.push(items), { lingerMs: 30, maxBatch: 3 });
    const first = [l.add(1), l.add(2)];
    await new Promise((r) => setTimeout(r, 10));
    first.push(l.add(3), l.add(4));
    await Promise.all(first);
    // 1 and 2 waited; 3 arrived within the linger; 4 waited for the next one.
    expect(flushes).toEqual([[1, 2, 3], [4]]);
    expect(() => new WriteBatcher(async () => undefined, { lingerMs: -1 })).toThrow('WriteBatcher: lingerMs must be a non-negative number');
  });
});
