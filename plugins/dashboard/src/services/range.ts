import { AppError } from '@atendo/sdk';

/** An inclusive range of calendar days (`YYYY-MM-DD`) in a time zone. */
export interface DayRange {
  from: string;
  to: string;
  timeZone: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const MAX_DAYS = 366;

/** Today's date (`YYYY-MM-DD`) in `timeZone`. */
export function today(timeZone: string, now: Date = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

/** `day` plus `n` days (calendar arithmetic, no time zone involved). */
export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** Whole days from `a` to `b`. */
export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);
}

/** A valid calendar day, or undefined. */
function validDay(v: string | undefined): string | undefined {
  if (!v) return undefined;
  const s = v.slice(0, 10);
  if (!DAY.test(s)) return undefined;
  const d = new Date(`${s}T00:00:00Z`);
  return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== s ? undefined : s;
}

/**
 * The range a dashboard query asks for, in the company's `timeZone`:
 * - `days` (1..366): the last `days` days, today included (`days=1` is today);
 * - else `from`/`to` (either may be missing: one alone is a single day... the other end defaults to it);
 * - neither: the current month up to today (the screen's default).
 * 400 ERR_DASHBOARD_RANGE when the start is after the end or the range is longer than 366 days.
 */
export function resolveRange(q: { days?: number; from?: string; to?: string }, timeZone: string, now: Date = new Date()): DayRange {
  const t = today(timeZone, now);
  if (q.days !== undefined && q.days > 0) {
    if (q.days > MAX_DAYS) throw new AppError('ERR_DASHBOARD_RANGE');
    return { from: addDays(t, -(q.days - 1)), to: t, timeZone };
  }
  const from = validDay(q.from);
  const to = validDay(q.to);
  if ((q.from && !from) || (q.to && !to)) throw new AppError('ERR_DASHBOARD_RANGE');
  const range = from || to ? { from: from ?? to!, to: to ?? (from! > t ? from! : t) } : { from: `${t.slice(0, 8)}01`, to: t };
  if (range.from > range.to || daysBetween(range.from, range.to) >= MAX_DAYS) throw new AppError('ERR_DASHBOARD_RANGE');
  return { ...range, timeZone };
}

/** The time zone to use: a valid IANA name, else America/Sao_Paulo. */
export function safeTimeZone(zone: string | undefined): string {
  if (zone) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
      return zone;
    } catch {
      /* fall through */
    }
  }
  return 'America/Sao_Paulo';
}

/** Every day of the range, in order. */
export function eachDay(r: DayRange): string[] {
  const out: string[] = [];
  for (let d = r.from; d <= r.to; d = addDays(d, 1)) out.push(d);
  return out;
}

/**
 * Parses an id-list filter: a JSON array (`[1,2]`) or a comma list (`1,2`); 0 may stand for "none" (no
 * queue). Undefined or empty: no filter. 400 ERR_DASHBOARD_FILTER otherwise.
 */
export function parseIds(v: string | undefined): number[] | undefined {
  if (v === undefined) return undefined;
  const s = v.trim();
  if (!s || s === '[]') return undefined;
  let items: unknown[];
  if (s.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(s);
      if (!Array.isArray(parsed)) throw new Error('not an array');
      items = parsed;
    } catch {
      throw new AppError('ERR_DASHBOARD_FILTER');
    }
  } else items = s.split(',').map((x) => x.trim());
  const ids = items.map((x) => (typeof x === 'number' ? x : /^\d{1,10}$/.test(String(x)) ? Number(x) : NaN));
  if (ids.some((n) => !Number.isInteger(n) || n < 0 || n > 2147483647)) throw new AppError('ERR_DASHBOARD_FILTER');
  return [...new Set(ids)];
}
