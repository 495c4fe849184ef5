import { DateTime } from 'luxon';

/** A wall-clock time as the client sends it: `YYYY-MM-DDTHH:mm`, seconds and milliseconds optional, `T` or a space. */
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/;
/** A full ISO 8601 time with an offset (`Z`, `+02:00`, `-0300`). */
const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-](?:0\d|1[0-4])(?::?[0-5]\d)?)$/i;

/**
 * The instant of a schedule's `sendAt` (spec 2-tickets.md §4 "Schedule"; wire-shapes "POST /schedules"):
 * the client's `YYYY-MM-DDTHH:mm` (the datetime-local input) is a wall-clock time of `timeZone` (the
 * company's, an IANA name); a time with an offset is taken as it is. Undefined for anything else: a bad
 * format, an impossible date (2026-02-30), or a wall-clock time that does not exist in the zone (the hour
 * skipped when daylight saving time starts). Pure.
 */
export function parseSendAt(input: string, timeZone: string): Date | undefined {
  const text = input.trim();
  if (WITH_OFFSET.test(text)) {
    const dt = DateTime.fromISO(text, { setZone: true });
    return dt.isValid ? dt.toJSDate() : undefined;
  }
  const m = LOCAL.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, ms] = m;
  const parts = { year: +y, month: +mo, day: +d, hour: +h, minute: +mi, second: s ? +s : 0, millisecond: ms ? +ms.padEnd(3, '0') : 0 };
  const dt = DateTime.fromObject(parts, { zone: timeZone });
  if (!dt.isValid) return undefined;
  // Luxon moves a time inside a DST gap forward: such a wall-clock time does not exist there.
  if (dt.year !== parts.year || dt.month !== parts.month || dt.day !== parts.day || dt.hour !== parts.hour || dt.minute !== parts.minute) return undefined;
  return dt.toJSDate();
}

/** True when `zone` is an IANA time zone luxon knows. */
export function isTimeZone(zone: string): boolean {
  return DateTime.now().setZone(zone).isValid;
}
