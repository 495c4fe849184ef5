/** Lines with the same message (and level) written per second before the rest of that second is dropped. */
export const LOG_SAMPLE_PER_SECOND = 20;
/** Messages that are one line per request by design: never sampled. */
const EXEMPT = new Set(['request completed', 'request errored', 'incoming request']);
/** Distinct messages tracked at once (the map starts over beyond it). */
const MAX_KEYS = 2_000;

interface Window {
  start: number;
  count: number;
  dropped: number;
}

/**
 * A pino `hooks.logMethod` that samples repeated lines: per level and message text (the format string, not
 * its arguments), the first LOG_SAMPLE_PER_SECOND lines of each second are written and the rest dropped;
 * the next line of that message written afterwards carries `suppressed: <n>`, the number dropped before it.
 * One malformed 10,000-item webhook body writes about 20 lines instead of 10,000. The per-request lines
 * are exempt.
 */
export function logSampler(perSecond = LOG_SAMPLE_PER_SECOND, now: () => number = Date.now): (this: unknown, args: unknown[], method: (...a: unknown[]) => void, level: number) => void {
  const windows = new Map<string, Window>();
  return function logMethod(this: unknown, args: unknown[], method: (...a: unknown[]) => void, level: number): void {
    const first = args[0];
    const msg = typeof first === 'string' ? first : typeof args[1] === 'string' ? args[1] : undefined;
    if (msg === undefined || EXEMPT.has(msg)) {
      method.apply(this, args);
      return;
    }
    const key = `${level}\u0000${msg}`;
    const t = now();
    let w = windows.get(key);
    let suppressed = 0;
    if (!w || t - w.start >= 1_000) {
      suppressed = w?.dropped ?? 0;
      if (!w && windows.size >= MAX_KEYS) windows.clear();
      w = { start: t, count: 0, dropped: 0 };
      windows.set(key, w);
    }
    if (++w.count > perSecond) {
      w.dropped++;
      return;
    }
    if (suppressed > 0) {
      if (typeof first === 'object' && first !== null && !(first instanceof Error)) args = [{ ...(first as object), suppressed }, ...args.slice(1)];
      else if (first instanceof Error) args = [{ err: first, suppressed }, ...args.slice(1)];
      else args = [{ suppressed }, ...args];
    }
    method.apply(this, args);
  };
}
