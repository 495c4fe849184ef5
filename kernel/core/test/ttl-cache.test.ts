import { TtlCache } from '@atendo/sdk';

/** The SDK's per-process read cache (kernel/sdk/src/cache.ts). */
describe('TtlCache', () => {
  test('shares concurrent loads, expires, forgets failures, stays bounded', async () => {
    const cache = new TtlCache<number>(50, 3);
    let loads = 0;
    const load = async () => ++loads;
    expect(await Promise.all([cache.get('a', load), cache.get('a', load)])).toEqual([1, 1]);
    expect(loads).toBe(1);
    await new Promise((r) => setTimeout(r, 60));
    expect(await cache.get('a', load)).toBe(2);
    await expect(cache.get('bad', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await new Promise((r) => setImmediate(r));
    expect(await cache.get('bad', async () => 7)).toBe(7);
    for (const key of ['x', 'y', 'z', 'w']) await cache.get(key, load);
    expect(cache.size).toBe(3);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  test('delete and deletePrefix forget entries at once; the oldest insertion is evicted first', async () => {
    const cache = new TtlCache<string>(60_000, 3);
    let n = 0;
    const load = (tag: string) => async () => `${tag}${++n}`;
    await cache.get('1:a', load('a'));
    await cache.get('1:b', load('b'));
    await cache.get('2:a', load('c'));
    expect(await cache.get('1:a', load('x'))).toBe('a1');
    cache.deletePrefix('1:');
    expect(await cache.get('1:a', load('a'))).toBe('a4');
    expect(await cache.get('2:a', load('x'))).toBe('c3');
    cache.delete('2:a');
    expect(await cache.get('2:a', load('c'))).toBe('c5');
    // Full (1:a, 2:a and one more): a new key evicts the oldest insertion (1:a).
    await cache.get('3:a', load('d'));
    await cache.get('4:a', load('e'));
    expect(cache.size).toBe(3);
    expect(await cache.get('1:a', load('a'))).toBe('a8');
  });
});
