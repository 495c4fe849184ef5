import { DateTime } from 'luxon';
import { DEFAULT_TIME_ZONE } from './template';

/**
 * One weekday of opening hours. Connections and queues split a day in two shifts
 * (`startTimeA`-`endTimeA`, `startTimeB`-`endTimeB`); the company settings screen sends one
 * (`startTime`-`endTime`). Times are `HH:mm`; empty or missing means "no such shift".
 */
export interface ScheduleRow {
  weekday?: string | null;
  weekdayEn?: string | null;
  startTime?: string | null;
  endTime?: string | null;
  startTimeA?: string | null;
  endTimeA?: string | null;
  startTimeB?: string | null;
  endTimeB?: string | null;
}

/** The setting `scheduleType` (1-platform.md §3): whose hours apply. */
export type ScheduleType = 'disabled' | 'company' | 'queue' | 'connection';

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
const TIME = /^([01]?\d|2[0-3]):([0-5]\d)$/;

const toMinutes = (t: string | null | undefined): number | undefined => {
  const m = TIME.exec((t ?? '').trim());
  return m ? Number(m[1]) * 60 + Number(m[2]) : undefined;
};

/**
 * The shifts of one schedule row as minute ranges `[start, end)` of the day. An end of `23:59` means the
 * end of the day (time inputs cannot say 24:00). A shift whose end is before its start runs overnight:
 * `[start, 1440)` on this day plus `[0, end)` on the next (returned as `overnight`). Equal start and end:
 * no shift. Malformed times: no shift.
 */
export function shiftsOf(row: ScheduleRow): { today: [number, number][]; overnight: [number, number][] } {
  const today: [number, number][] = [];
  const overnight: [number, number][] = [];
  const pairs: [string | null | undefined, string | null | undefined][] = [
    [row.startTime, row.endTime],
    [row.startTimeA, row.endTimeA],
    [row.startTimeB, row.endTimeB],
  ];
  for (const [s, e] of pairs) {
    const start = toMinutes(s);
    let end = toMinutes(e);
    if (start === undefined || end === undefined) continue;
    if (end === 23 * 60 + 59) end = 24 * 60;
    if (end > start) today.push([start, end]);
    else if (end < start) {
      today.push([start, 24 * 60]);
      if (end > 0) overnight.push([0, end]);
    }
  }
  return { today, overnight };
}

/** The row of a weekday (by `weekdayEn`, any case), or undefined. */
function rowOf(schedules: readonly ScheduleRow[], weekday: string): ScheduleRow | undefined {
  return schedules.find((s) => String(s.weekdayEn ?? '').trim().toLowerCase() === weekday);
}

/** True when the schedule list says anything: at least one row with a valid shift. */
export function hasHours(schedules: readonly ScheduleRow[] | null | undefined): boolean {
  return Array.isArray(schedules) && schedules.some((r) => shiftsOf(r).today.length > 0);
}

/**
 * The open intervals of `schedules` (wall clock of `timeZone`) that touch the days from `from` to `to`,
 * as epoch-millisecond ranges `[start, end)`, merged and sorted.
 */
function openIntervals(schedules: readonly ScheduleRow[], from: DateTime, to: DateTime): [number, number][] {
  const out: [number, number][] = [];
  for (let day = from.startOf('day'); day <= to; day = day.plus({ days: 1 })) {
    const at = (min: number) => (min >= 24 * 60 ? day.plus({ days: 1 }).startOf('day') : day.set({ hour: Math.floor(min / 60), minute: min % 60, second: 0, millisecond: 0 }));
    const row = rowOf(schedules, WEEKDAYS[day.weekday - 1]);
    if (row) for (const [s, e] of shiftsOf(row).today) out.push([at(s).toMillis(), at(e).toMillis()]);
    const prev = rowOf(schedules, WEEKDAYS[day.minus({ days: 1 }).weekday - 1]);
    if (prev) for (const [s, e] of shiftsOf(prev).overnight) out.push([at(s).toMillis(), at(e).toMillis()]);
  }
  out.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const iv of out) {
    const last = merged[merged.length - 1];
    if (last && iv[0] <= last[1]) last[1] = Math.max(last[1], iv[1]);
    else merged.push([...iv]);
  }
  return merged;
}

/**
 * True when `now` is inside the opening hours `schedules` on the wall clock of `timeZone` (IANA name,
 * default America/Sao_Paulo). A list without any valid shift means "no hours set": always open. A weekday
 * missing from a non-empty list, or with empty times, is closed all day. Shifts are open from their start
 * (inclusive) to their end (exclusive), to the minute.
 * @throws Error for an unknown time zone.
 */
export function isOpen(schedules: readonly ScheduleRow[] | null | undefined, now: Date, timeZone = DEFAULT_TIME_ZONE): boolean {
  return closedWindow(schedules, now, timeZone) === null;
}

/** The closed period `now` falls in: from the end of the last shift to the start of the next one. */
export interface ClosedWindow {
  /** When the company (queue, connection) closed; null when no shift ended in the last 8 days. */
  start: Date | null;
  /** When it opens again; null when no shift starts in the next 8 days. */
  end: Date | null;
}

/**
 * The closed window around `now`, or null when `now` is inside opening hours (or no hours are set). Used to
 * send the out-of-hours message once per window: two messages in the same night share `start`.
 * @throws Error for an unknown time zone.
 */
export function closedWindow(schedules: readonly ScheduleRow[] | null | undefined, now: Date, timeZone = DEFAULT_TIME_ZONE): ClosedWindow | null {
  if (!schedules || !hasHours(schedules)) return null;
  const here = DateTime.fromJSDate(now, { zone: timeZone });
  if (!here.isValid) throw new Error(`unknown time zone: ${String(timeZone).slice(0, 50)}`);
  const t = now.getTime();
  const intervals = openIntervals(schedules, here.minus({ days: 8 }), here.plus({ days: 8 }));
  let start: number | null = null;
  for (const [s, e] of intervals) {
    if (s <= t && t < e) return null;
    if (e <= t) start = e;
    else return { start: start === null ? null : new Date(start), end: new Date(s) };
  }
  return { start: start === null ? null : new Date(start), end: null };
}

/** Whose hours and which message apply to a ticket, by `scheduleType`. */
export interface HoursSource {
  /** Dedupe scope of the out-of-hours message: `company`, `connection:<id>`, `queue:<id>`. */
  scope: string;
  schedules: readonly ScheduleRow[];
  /** The text to send outside hours (may be empty: then nothing is sent, the ticket is still flagged). */
  message: string | null;
}

/**
 * The hours that apply (1-platform.md §3 `scheduleType`; issue: types `company` and `connection` send the
 * connection's `outOfHoursMessage`, type `queue` the queue's once the ticket has a queue):
 * `disabled` (or an unknown value) -> null; `company` -> the company's schedules; `connection` -> the
 * connection's; `queue` -> the ticket's queue's, or null while it has none.
 */
export function hoursSource(
  type: string | null | undefined,
  ctx: {
    companySchedules: readonly ScheduleRow[];
    connection: { id: number; schedules: readonly ScheduleRow[] | null; outOfHoursMessage: string | null };
    queue?: { id: number; schedules: readonly ScheduleRow[] | null; outOfHoursMessage: string | null } | null;
  },
): HoursSource | null {
  switch (type) {
    case 'company':
      return { scope: 'company', schedules: ctx.companySchedules ?? [], message: ctx.connection.outOfHoursMessage };
    case 'connection':
      return { scope: `connection:${ctx.connection.id}`, schedules: ctx.connection.schedules ?? [], message: ctx.connection.outOfHoursMessage };
    case 'queue':
      return ctx.queue ? { scope: `queue:${ctx.queue.id}`, schedules: ctx.queue.schedules ?? [], message: ctx.queue.outOfHoursMessage } : null;
    default:
      return null;
  }
}

/**
 * The dedupe key of the out-of-hours window: its start as an ISO string. A window without a known start
 * (closed for more than 8 days) is keyed by the day of `now`, so the message goes at most once a day.
 */
export function windowKey(w: ClosedWindow, now: Date, timeZone = DEFAULT_TIME_ZONE): string {
  return w.start ? w.start.toISOString() : `day:${DateTime.fromJSDate(now, { zone: timeZone }).toISODate()}`;
}
