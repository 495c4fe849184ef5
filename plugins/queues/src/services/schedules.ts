import { AppError } from '@atendo/sdk';
import type { QueueSchedule } from '../contract';

/** A schedule item as a body may carry it (times may be null or absent: both mean `''`). */
export interface QueueScheduleInput {
  weekday: string;
  weekdayEn: string;
  startTimeA?: string | null;
  endTimeA?: string | null;
  startTimeB?: string | null;
  endTimeB?: string | null;
}

/** English weekday names (`weekdayEn`), indexed like `Date#getDay()` (0 = sunday). */
export const WEEKDAYS_EN = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
export type WeekdayEn = (typeof WEEKDAYS_EN)[number];

/**
 * Accepted display names (`weekday`) per day. The old queue modal sends `weekday` translated into the
 * interface language (pt-BR, en, es, tr), so each of them is accepted; comparison ignores case and accents.
 */
const WEEKDAY_NAMES: Record<WeekdayEn, string[]> = {
  sunday: ['Domingo', 'Sunday', 'Pazar'],
  monday: ['Segunda-feira', 'Segunda', 'Monday', 'Lunes', 'Pazartesi'],
  tuesday: ['Terça-feira', 'Terça', 'Tuesday', 'Martes', 'Salı'],
  wednesday: ['Quarta-feira', 'Quarta', 'Wednesday', 'Miércoles', 'Çarşamba'],
  thursday: ['Quinta-feira', 'Quinta', 'Thursday', 'Jueves', 'Perşembe'],
  friday: ['Sexta-feira', 'Sexta', 'Friday', 'Viernes', 'Cuma'],
  saturday: ['Sábado', 'Saturday', 'Cumartesi'],
};

/** Lower case, no accents, Turkish dotless i folded: 'Terça-feira' -> 'terca-feira', 'Salı' -> 'sali'. */
function fold(s: string): string {
  return s.trim().toLowerCase().replace(/ı/g, 'i').normalize('NFD').replace(/[\u0300-\u036f]/g, '');
}
const FOLDED_NAMES = new Map<WeekdayEn, Set<string>>(WEEKDAYS_EN.map((d) => [d, new Set(WEEKDAY_NAMES[d].map(fold))]));

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
const TIME_KEYS = ['startTimeA', 'endTimeA', 'startTimeB', 'endTimeB'] as const;

/** `HH:mm` -> minutes since midnight. */
function minutes(t: string): number {
  return Number(t.slice(0, 2)) * 60 + Number(t.slice(3, 5));
}

/**
 * Validates and normalises a queue's weekly schedule (spec 2-tickets.md §2 service-hours tab, §3 "Queue"):
 * - at most 7 items, each weekday at most once (`weekdayEn`: 'sunday'..'saturday', any case, stored in
 *   lower case; `weekday`: that same day's name in pt-BR ('Segunda-feira'), en, es or tr, stored trimmed);
 * - times are `HH:mm` (00:00..23:59) or `''` (null / absent become `''`);
 * - a shift is both times or none; `startTimeA <= endTimeA`; shift B needs shift A and
 *   `endTimeA <= startTimeB <= endTimeB`.
 * An empty list means "no service hours configured" (the queue is always open).
 * @throws AppError ERR_VALIDATION naming the offending item.
 */
export function validateSchedules(items: QueueScheduleInput[]): QueueSchedule[] {
  if (!Array.isArray(items) || items.length > 7) throw new AppError('ERR_VALIDATION', 'schedules must be a list of at most 7 weekdays');
  const seen = new Set<string>();
  return items.map((s, i) => {
    const bad = (msg: string): never => {
      throw new AppError('ERR_VALIDATION', `schedules[${i}]: ${msg}`);
    };
    const en = fold(String(s.weekdayEn ?? '')) as WeekdayEn;
    if (!FOLDED_NAMES.has(en)) bad(`weekdayEn must be one of ${WEEKDAYS_EN.join(', ')}`);
    if (seen.has(en)) bad(`${en} appears more than once`);
    seen.add(en);
    const weekday = String(s.weekday ?? '').trim();
    if (!FOLDED_NAMES.get(en)!.has(fold(weekday))) bad(`weekday '${weekday.slice(0, 30)}' is not ${en}`);
    const out: QueueSchedule = { weekday, weekdayEn: en, startTimeA: '', endTimeA: '', startTimeB: '', endTimeB: '' };
    for (const k of TIME_KEYS) {
      const v = (s[k] ?? '').trim();
      if (v !== '' && !TIME.test(v)) bad(`${k} must be HH:mm or empty`);
      out[k] = v;
    }
    if (!out.startTimeA !== !out.endTimeA) bad('shift A needs both startTimeA and endTimeA');
    if (!out.startTimeB !== !out.endTimeB) bad('shift B needs both startTimeB and endTimeB');
    if (out.startTimeA && minutes(out.startTimeA) > minutes(out.endTimeA)) bad('startTimeA must not be after endTimeA');
    if (out.startTimeB) {
      if (!out.startTimeA) bad('shift B needs shift A');
      if (minutes(out.startTimeB) < minutes(out.endTimeA)) bad('shift B must start at or after the end of shift A');
      if (minutes(out.startTimeB) > minutes(out.endTimeB)) bad('startTimeB must not be after endTimeB');
    }
    return out;
  });
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * Weekday and minutes since midnight of `date` on the wall clock of `timeZone` (IANA name).
 * @throws AppError ERR_VALIDATION for an unknown time zone or an invalid date.
 */
export function wallClock(date: Date, timeZone: string): { weekdayEn: WeekdayEn; minutes: number } {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) throw new AppError('ERR_VALIDATION', 'invalid date');
  let fmt = formatters.get(timeZone);
  if (!fmt) {
    try {
      fmt = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'long', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    } catch {
      throw new AppError('ERR_VALIDATION', `unknown time zone: ${String(timeZone).slice(0, 50)}`);
    }
    formatters.set(timeZone, fmt);
  }
  const parts = Object.fromEntries(fmt.formatToParts(date).map((p) => [p.type, p.value]));
  const hour = Number(parts.hour) % 24;
  return { weekdayEn: String(parts.weekday).toLowerCase() as WeekdayEn, minutes: hour * 60 + Number(parts.minute) };
}

/**
 * True when `date` falls inside the service hours `schedules` (as stored by `validateSchedules`), read on
 * the wall clock of `timeZone`:
 * - an empty list: always open (no service hours configured);
 * - a weekday missing from a non-empty list, or listed with empty times: closed all day;
 * - a shift is open from its start (inclusive) to its end (exclusive), to the minute: 08:00-12:00 is open
 *   at 11:59:59 and closed at 12:00. An end of `23:59` means the end of the day (the time inputs cannot
 *   say 24:00), so 00:00-23:59 is open all day.
 */
export function isOpenInSchedules(schedules: QueueSchedule[], date: Date, timeZone = 'America/Sao_Paulo'): boolean {
  const { weekdayEn, minutes: now } = wallClock(date, timeZone);
  if (!schedules.length) return true;
  const day = schedules.find((s) => fold(String(s.weekdayEn ?? '')) === weekdayEn);
  if (!day) return false;
  const within = (start: string, end: string) => {
    if (!start || !end || !TIME.test(start) || !TIME.test(end)) return false;
    const e = end === '23:59' ? 24 * 60 : minutes(end);
    return minutes(start) <= now && now < e;
  };
  return within(day.startTimeA, day.endTimeA) || within(day.startTimeB, day.endTimeB);
}
