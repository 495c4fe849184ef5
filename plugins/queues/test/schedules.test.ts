import { AppError } from '@atendo/sdk';
import type { QueueSchedule } from '../src/contract';
import { isOpenInSchedules, validateSchedules, wallClock } from '../src/services/schedules';

/** A São Paulo wall-clock time (UTC-3 all year since 2019) as a Date. */
const sp = (local: string) => new Date(`${local}-03:00`);

const day = (weekdayEn: string, a = ['', ''], b = ['', '']): QueueSchedule => ({
  weekday: weekdayEn, weekdayEn, startTimeA: a[0], endTimeA: a[1], startTimeB: b[0], endTimeB: b[1],
});

function validationError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('ERR_VALIDATION');
    return (err as AppError).message;
  }
  throw new Error('expected ERR_VALIDATION');
}

describe('isOpenInSchedules', () => {
  // 2026-03-02 is a Monday.
  const week: QueueSchedule[] = [
    day('monday', ['08:00', '12:00'], ['13:00', '18:00']),
    day('tuesday', ['00:00', '23:59']),
    day('wednesday'),
    day('sunday', ['20:00', '23:00']),
  ];

  test('both shifts of a day: start inclusive, end exclusive, to the minute', () => {
    const cases: [string, boolean][] = [
      ['2026-03-02T07:59:59', false],
      ['2026-03-02T08:00:00', true],
      ['2026-03-02T11:59:59', true],
      ['2026-03-02T12:00:00', false],
      ['2026-03-02T12:30:00', false],
      ['2026-03-02T13:00:00', true],
      ['2026-03-02T17:59:00', true],
      ['2026-03-02T18:00:00', false],
      ['2026-03-02T23:59:59', false],
    ];
    expect(cases.map(([t]) => [t, isOpenInSchedules(week, sp(t))])).toEqual(cases);
  });

  test('an end of 23:59 means the end of the day; 00:00 opens the day', () => {
    expect(isOpenInSchedules(week, sp('2026-03-03T00:00:00'))).toBe(true);
    expect(isOpenInSchedules(week, sp('2026-03-03T23:59:30'))).toBe(true);
    expect(isOpenInSchedules([day('tuesday', ['00:00', '23:58'])], sp('2026-03-03T23:58:30'))).toBe(false);
  });

  test('a day with empty times or missing from the list is closed; an empty list is always open', () => {
    expect(isOpenInSchedules(week, sp('2026-03-04T10:00:00'))).toBe(false); // wednesday, empty times
    expect(isOpenInSchedules(week, sp('2026-03-05T10:00:00'))).toBe(false); // thursday, missing
    expect(isOpenInSchedules([], sp('2026-03-05T03:00:00'))).toBe(true);
    expect(isOpenInSchedules([], new Date('2026-03-07T23:59:59Z'), 'Asia/Tokyo')).toBe(true);
  });

  test('the weekday and time are read in the time zone, across day boundaries', () => {
    // Sunday 22:00 in São Paulo is Monday 01:00 UTC: Sunday's 20:00-23:00 shift applies, not Monday's.
    const sundayNight = new Date('2026-03-02T01:00:00Z');
    expect(wallClock(sundayNight, 'America/Sao_Paulo')).toEqual({ weekdayEn: 'sunday', minutes: 22 * 60 });
    expect(isOpenInSchedules(week, sundayNight)).toBe(true);
    expect(isOpenInSchedules(week, sundayNight, 'UTC')).toBe(false); // Monday 01:00 UTC
    // Monday 09:00 UTC is Monday 06:00 in São Paulo (closed) and Monday 18:00 in Tokyo (closed, end exclusive).
    const mondayMorningUtc = new Date('2026-03-02T09:00:00Z');
    expect(isOpenInSchedules(week, mondayMorningUtc)).toBe(false);
    expect(isOpenInSchedules(week, mondayMorningUtc, 'UTC')).toBe(true);
    expect(isOpenInSchedules(week, mondayMorningUtc, 'Asia/Tokyo')).toBe(false);
    expect(isOpenInSchedules(week, new Date('2026-03-02T08:59:00Z'), 'Asia/Tokyo')).toBe(true);
    // Tuesday 00:30 in São Paulo (Tuesday is open all day) while it is still Monday 21:30 in Los Angeles.
    const t = sp('2026-03-03T00:30:00');
    expect(isOpenInSchedules(week, t)).toBe(true);
    expect(wallClock(t, 'America/Los_Angeles')).toEqual({ weekdayEn: 'monday', minutes: 19 * 60 + 30 });
    expect(isOpenInSchedules(week, t, 'America/Los_Angeles')).toBe(false);
  });

  test('shift B counts as open time; weekdayEn is matched case-insensitively', () => {
    const s = [{ ...day('monday', ['08:00', '09:00'], ['20:00', '21:00']), weekdayEn: 'Monday' }];
    expect(isOpenInSchedules(s, sp('2026-03-02T20:30:00'))).toBe(true);
    expect(isOpenInSchedules(s, sp('2026-03-02T19:30:00'))).toBe(false);
  });

  test('an unknown time zone or an invalid date is ERR_VALIDATION', () => {
    validationError(() => isOpenInSchedules(week, new Date(), 'Mars/Olympus_Mons'));
    validationError(() => isOpenInSchedules(week, new Date('not a date')));
  });
});

describe('validateSchedules', () => {
  const full = (over: Partial<QueueSchedule> = {}) => ({
    weekday: 'Segunda-feira', weekdayEn: 'monday', startTimeA: '08:00', endTimeA: '12:00', startTimeB: '13:00', endTimeB: '18:00', ...over,
  });

  test('accepts the old client shapes and normalises them', () => {
    expect(validateSchedules([
      full(),
      { weekday: ' Terça-feira ', weekdayEn: 'TUESDAY', startTimeA: '09:00', endTimeA: '09:00', startTimeB: null, endTimeB: undefined },
      { weekday: 'Wednesday', weekdayEn: 'wednesday' },
      { weekday: 'Jueves', weekdayEn: 'thursday', startTimeA: '08:00', endTimeA: '12:00', startTimeB: '12:00', endTimeB: '12:30' },
      { weekday: 'Cuma', weekdayEn: 'friday', startTimeA: '', endTimeA: '', startTimeB: '', endTimeB: '' },
      { weekday: 'sabado', weekdayEn: 'saturday', startTimeA: '00:00', endTimeA: '23:59' },
      { weekday: 'Pazar', weekdayEn: 'sunday' },
    ])).toEqual([
      full(),
      { weekday: 'Terça-feira', weekdayEn: 'tuesday', startTimeA: '09:00', endTimeA: '09:00', startTimeB: '', endTimeB: '' },
      { weekday: 'Wednesday', weekdayEn: 'wednesday', startTimeA: '', endTimeA: '', startTimeB: '', endTimeB: '' },
      { weekday: 'Jueves', weekdayEn: 'thursday', startTimeA: '08:00', endTimeA: '12:00', startTimeB: '12:00', endTimeB: '12:30' },
      { weekday: 'Cuma', weekdayEn: 'friday', startTimeA: '', endTimeA: '', startTimeB: '', endTimeB: '' },
      { weekday: 'sabado', weekdayEn: 'saturday', startTimeA: '00:00', endTimeA: '23:59', startTimeB: '', endTimeB: '' },
      { weekday: 'Pazar', weekdayEn: 'sunday', startTimeA: '', endTimeA: '', startTimeB: '', endTimeB: '' },
    ]);
    expect(validateSchedules([])).toEqual([]);
  });

  test('refuses what the spec does not allow, naming the item', () => {
    const bad: [unknown[], RegExp][] = [
      [[full(), full()], /schedules\[1\]: monday appears more than once/],
      [[full({ weekdayEn: 'funday' })], /weekdayEn must be one of/],
      [[full({ weekdayEn: 'Segunda-feira' })], /weekdayEn must be one of/],
      [[full({ weekday: 'Terça-feira' })], /weekday 'Terça-feira' is not monday/],
      [[full({ weekday: '' })], /is not monday/],
      [[full({ startTimeA: '8:00' })], /startTimeA must be HH:mm/],
      [[full({ endTimeA: '24:00' })], /endTimeA must be HH:mm/],
      [[full({ startTimeB: '13:60' })], /startTimeB must be HH:mm/],
      [[full({ endTimeA: '' })], /shift A needs both/],
      [[full({ endTimeB: '' })], /shift B needs both/],
      [[full({ startTimeA: '12:01', endTimeA: '12:00' })], /startTimeA must not be after endTimeA/],
      [[full({ startTimeB: '11:00' })], /shift B must start at or after the end of shift A/],
      [[full({ startTimeB: '19:00' })], /startTimeB must not be after endTimeB/],
      [[full({ startTimeA: '', endTimeA: '' })], /shift B needs shift A/],
      [Array.from({ length: 8 }, () => full()), /at most 7/],
    ];
    for (const [items, msg] of bad) expect(validationError(() => validateSchedules(items as never))).toMatch(msg);
  });
});
