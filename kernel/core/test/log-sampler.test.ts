import { createTestKernel } from '@atendo/testing';
import { LOG_SAMPLE_PER_SECOND, logSampler } from '../src/log-sampler';

describe('repeated log lines are sampled', () => {
  test('per message and second: the first 20 pass, the next line after says how many were dropped', () => {
    let t = 1_000_000;
    const hook = logSampler(20, () => t);
    const written: unknown[][] = [];
    const method = (...a: unknown[]) => void written.push(a);
    for (let i = 0; i < 10_000; i++) hook.call(null, [{ i }, 'same thing happened'], method, 40);
    hook.call(null, ['another message'], method, 40);
    hook.call(null, [{ i: 'x' }, 'same thing happened'], method, 50); // another level: its own window
    expect(written).toHaveLength(22);
    t += 1_000;
    hook.call(null, [{ i: 'later' }, 'same thing happened'], method, 40);
    expect(written[22]).toEqual([{ i: 'later', suppressed: 9_980 }, 'same thing happened']);
    hook.call(null, ['same thing happened'], method, 40);
    expect(written[23]).toEqual(['same thing happened']);
    // The per-request lines are never sampled.
    for (let i = 0; i < 100; i++) hook.call(null, [{ i }, 'request completed'], method, 30);
    expect(written).toHaveLength(124);
  });

  test("the kernel's logger samples: 10,000 identical warnings write about twenty lines", async () => {
    const lines: string[] = [];
    const k = await createTestKernel({ env: { LOG_LEVEL: 'info' }, logStream: { write: (l: string) => void lines.push(l) } });
    try {
      lines.length = 0;
      const started = Date.now();
      for (let i = 0; i < 10_000; i++) k.app.log.child({ plugin: 'x' }).warn({ item: i }, 'malformed item skipped');
      // The loop may span several one-second windows on a busy machine: each lets LOG_SAMPLE_PER_SECOND lines
      // through (the first line of a window also says how many the previous one dropped).
      const windows = Math.floor((Date.now() - started) / 1000) + 2;
      const same = lines.filter((l) => l.includes('malformed item skipped'));
      expect(same.length).toBeGreaterThanOrEqual(1);
      expect(same.length).toBeLessThanOrEqual(LOG_SAMPLE_PER_SECOND * windows);
      expect(same.length).toBeLessThan(500); // unsampled: 10,000
    } finally {
      await k.close();
    }
  });
});
