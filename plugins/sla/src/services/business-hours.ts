import { DateTime } from 'luxon';
import type { QueueSchedule } from '@atendo/plugin-queues/contract';

/** Luxon weekday (1 = Monday .. 7 = Sunday) -> the queues plugin's `weekdayEn`. */
const WEEKDAYS = ['', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
/** How far ahead a due time is looked for before giving up (a schedule that opens once a year still fits). */
const MAX_DAYS = 400;

/** The time zone used when a company's `timeZone` setting is missing or unknown. */
export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

/** `zone` when luxon knows it, else America/Sao_Paulo. */
export function safeZone(zone: string | null | undefined): string {
  return zone && DateTime.now().setZone(zone).isValid ? zone : DEFAULT_TIME_ZONE;
}

/** The shifts of one weekday as `[start, end]` pairs of `HH:mm` (end `23:59` = the end of the day); invalid or empty shifts dropped. */
function shiftsOf(day: QueueSchedule | undefined): Array<[string, string]> {
  if (!day) return [];
  const out: Array<[string, string]> = [];
  for (const [s, e] of [
    [day.startTimeA, day.endTimeA],
    [day.startTimeB, day.endTimeB],
  ] as const) {
    if (s && e && TIME.test(s) && TIME.test(e) && (e === '23:59' || s < e)) out.push([s, e]);
  }
  return out;
}

/**
 * The open intervals (epoch ms, `[start, end)`, ascending) of the local calendar day `day` (a DateTime at
 * local midnight of the zone). A shift ending at `23:59` runs to the next local midnight (the time inputs cannot
 * say 24:00, as `isOpenInSchedules` of the queues plugin reads it). Wall-clock times skipped by a daylight
 * saving change move forward, as luxon resolves them.
 */
function dayIntervals(day: DateTime, byDay: Map<string, QueueSchedule>): Array<[number, number]> {
  const at = (hhmm: string) => day.set({ hour: Number(hhmm.slice(0, 2)), minute: Number(hhmm.slice(3, 5)), second: 0, millisecond: 0 }).toMillis();
  const out: Array<[number, number]> = [];
  for (const [s, e] of shiftsOf(byDay.get(WEEKDAYS[day.weekday]))) {
    const start = at(s);
    const end = e === '23:59' ? day.plus({ days: 1 }).startOf('day').toMillis() : at(e);
    if (end > start) out.push([start, end]);
  }
  return out;
}

/**
 * The instant at which `businessMs` milliseconds of the queue's service hours have passed since `start`
 * (the SLA clock: it runs only while the queue is open).
 *
 * `schedules` are the queue's weekly hours as the queues plugin stores them (`weekdayEn` sunday..saturday, two
 * optional shifts `HH:mm`-`HH:mm` per day), read on the wall clock of `timeZone` (an IANA name; daylight saving
 * handled by luxon):
 * - no schedules: the queue is always open, so the answer is `start + businessMs`;
 * - a weekday missing from the list or with empty times is closed all day;
 * - a shift is open from its start (inclusive) to its end (exclusive); an end of `23:59` means midnight.
 * `start` inside a closed period counts from the next opening. Answers null when the schedules never open
 * (every day closed) or the time does not fit in the next 400 days. `businessMs` <= 0 answers `start`.
 * Pure; throws nothing for an unknown zone (America/Sao_Paulo is used).
 */
export function addBusinessTime(start: Date, businessMs: number, schedules: readonly QueueSchedule[] | null | undefined, timeZone: string): Date | null {
  if (!schedules || schedules.length === 0) return new Date(start.getTime() + Math.max(0, businessMs));
  if (businessMs <= 0) return new Date(start.getTime());
  const byDay = new Map<string, QueueSchedule>();
  for (const s of schedules) byDay.set(String(s.weekdayEn ?? '').trim().toLowerCase(), s);
  if (!WEEKDAYS.some((d) => d && shiftsOf(byDay.get(d)).length > 0)) return null;
  const zone = safeZone(timeZone);
  const from = start.getTime();
  let remaining = businessMs;
  let day = DateTime.fromMillis(from, { zone }).startOf('day');
  for (let i = 0; i < MAX_DAYS; i++, day = day.plus({ days: 1 }).startOf('day')) {
    for (const [s, e] of dayIntervals(day, byDay)) {
      const open = Math.max(s, from);
      if (open >= e) continue;
      if (e - open >= remaining) return new Date(open + remaining);
      remaining -= e - open;
    }
  }
  return null;
}

/** The local day range `[from, to]` (`YYYY-MM-DD`, inclusive) of `timeZone` as instants `[start of from, start of the day after to)`. */
export function dayRangeInstants(range: { from: string; to: string; timeZone: string }): { start: Date; end: Date } {
  const zone = safeZone(range.timeZone);
  const start = DateTime.fromISO(range.from, { zone }).startOf('day');
  const end = DateTime.fromISO(range.to, { zone }).plus({ days: 1 }).startOf('day');
  if (!start.isValid || !end.isValid) throw new RangeError('invalid day range');
  return { start: start.toJSDate(), end: end.toJSDate() };
}
