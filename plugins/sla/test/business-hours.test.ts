/**
 * The SLA clock's arithmetic (pure): due times in a queue's business hours across a closed lunch hour, a
 * weekend, a night, the `23:59` end of day, a daylight-saving change, and queues that are always open or never.
 */
import type { QueueSchedule } from '@atendo/plugin-queues/contract';
import { addBusinessTime, dayRangeInstants } from '../src/services/business-hours';
import { dueTimes, nextCheckAt, stateOf, type SlaRow } from '../src/services/tracker';

const SP = 'America/Sao_Paulo'; // UTC-3 all year
const MIN = 60_000;

const day = (weekdayEn: string, a: [string, string] | null, b: [string, string] | null = null): QueueSchedule => ({
  weekday: weekdayEn,
  weekdayEn,
  startTimeA: a?.[0] ?? '',
  endTimeA: a?.[1] ?? '',
  startTimeB: b?.[0] ?? '',
  endTimeB: b?.[1] ?? '',
});

/** Monday to Friday 08:00-12:00 and 13:00-18:00; Saturday and Sunday closed (Sunday listed without times). */
const OFFICE: QueueSchedule[] = [
  ...['monday', 'tuesday', 'wednesday', 'thursday', 'friday'].map((d) => day(d, ['08:00', '12:00'], ['13:00', '18:00'])),
  day('sunday', null),
];

const due = (start: string, minutes: number, schedules: QueueSchedule[] | null, zone = SP) => addBusinessTime(new Date(start), minutes * MIN, schedules, zone)?.toISOString() ?? null;

describe('addBusinessTime', () => {
  // 2026-03-02 is a Monday; São Paulo is UTC-3.
  it('skips a closed business hour (lunch): 11:30 + 60 min = 13:30', () => {
    expect(due('2026-03-02T14:30:00Z', 60, OFFICE)).toBe('2026-03-02T16:30:00.000Z');
  });

  it('keeps seconds: 11:59:30 + 1 min = 13:00:30', () => {
    expect(due('2026-03-02T14:59:30Z', 1, OFFICE)).toBe('2026-03-02T16:00:30.000Z');
  });

  it('ends inside the first shift when it fits', () => {
    expect(due('2026-03-02T11:10:00Z', 30, OFFICE)).toBe('2026-03-02T11:40:00.000Z'); // 08:10 + 30 = 08:40
  });

  it('a start at the end of a shift waits for the next one (12:00 is closed)', () => {
    expect(due('2026-03-02T15:00:00Z', 15, OFFICE)).toBe('2026-03-02T16:15:00.000Z');
  });

  it('a start before opening counts from the opening: 07:00 + 30 min = 08:30', () => {
    expect(due('2026-03-02T10:00:00Z', 30, OFFICE)).toBe('2026-03-02T11:30:00.000Z');
  });

  it('crosses the night and the weekend: Friday 17:30 + 120 min = Monday 09:30', () => {
    expect(due('2026-03-06T20:30:00Z', 120, OFFICE)).toBe('2026-03-09T12:30:00.000Z');
  });

  it('a start on a closed weekend day waits for Monday', () => {
    expect(due('2026-03-07T15:00:00Z', 90, OFFICE)).toBe('2026-03-09T12:30:00.000Z'); // Saturday -> Monday 08:00 + 90
  });

  it('spans several days: 9 business hours a day, 20 hours from Monday 08:00 = Wednesday 10:00', () => {
    expect(due('2026-03-02T11:00:00Z', 20 * 60, OFFICE)).toBe('2026-03-04T13:00:00.000Z');
  });

  it('an end of 23:59 runs to midnight', () => {
    const s = [day('sunday', ['00:00', '23:59']), day('monday', ['08:00', '09:00'])];
    // Sunday 2026-03-01 23:30 local: 30 minutes to midnight, then Monday 08:00 + 30.
    expect(due('2026-03-02T02:30:00Z', 60, s)).toBe('2026-03-02T11:30:00.000Z');
  });

  it('a queue without schedules is always open', () => {
    expect(due('2026-03-07T15:00:00Z', 90, [])).toBe('2026-03-07T16:30:00.000Z');
    expect(due('2026-03-07T15:00:00Z', 90, null)).toBe('2026-03-07T16:30:00.000Z');
  });

  it('a queue whose days are all closed never comes due', () => {
    expect(due('2026-03-02T14:30:00Z', 60, [day('monday', null), day('tuesday', ['10:00', '10:00'])])).toBeNull();
  });

  it('counts real time across a daylight-saving change (Berlin, 2026-03-29 02:00 -> 03:00)', () => {
    const always = ['sunday', 'monday'].map((d) => day(d, ['00:00', '23:59']));
    // 01:30 CET (00:30Z) + 60 min = 01:30Z = 03:30 CEST.
    expect(due('2026-03-29T00:30:00Z', 60, always, 'Europe/Berlin')).toBe('2026-03-29T01:30:00.000Z');
    // A shift 08:00-09:00 on that Sunday is 08:00 CEST (06:00Z).
    expect(due('2026-03-29T00:30:00Z', 30, [day('sunday', ['08:00', '09:00'])], 'Europe/Berlin')).toBe('2026-03-29T06:30:00.000Z');
  });

  it('an unknown zone reads the hours in São Paulo', () => {
    expect(due('2026-03-02T14:30:00Z', 60, OFFICE, 'Mars/Olympus')).toBe('2026-03-02T16:30:00.000Z');
  });
});

describe('due times of a ticket', () => {
  it('warn at 80 % and due at 100 % of each target, both across the lunch hour', () => {
    const t = dueTimes(new Date('2026-03-02T14:30:00Z'), { firstResponseMinutes: 60, resolutionMinutes: 240, warnPercent: 80 }, OFFICE, SP);
    expect(t.firstResponseWarnAt?.toISOString()).toBe('2026-03-02T16:18:00.000Z'); // 11:30 + 48 = 12:18 -> 13:18
    expect(t.firstResponseDueAt?.toISOString()).toBe('2026-03-02T16:30:00.000Z');
    expect(t.resolutionWarnAt?.toISOString()).toBe('2026-03-02T18:42:00.000Z'); // 192 min: 30 before lunch, 162 after -> 15:42
    expect(t.resolutionDueAt?.toISOString()).toBe('2026-03-02T19:30:00.000Z'); // 30 before lunch, 210 after -> 16:30
  });

  it('states and the next check follow the clock', () => {
    const row = {
      ticketId: 1, companyId: 1, uuid: 'u', queueId: 1, userId: null, startedAt: new Date('2026-03-02T14:30:00Z'),
      ...dueTimes(new Date('2026-03-02T14:30:00Z'), { firstResponseMinutes: 60, resolutionMinutes: null, warnPercent: 80 }, OFFICE, SP),
      firstResponseAt: null, firstResponseUserId: null, firstResponseBreachedAt: null, resolvedAt: null, resolutionUserId: null, resolutionBreachedAt: null,
    } as SlaRow;
    const fr = (now: string, patch: Partial<SlaRow> = {}) => {
      const r = { ...row, ...patch };
      return stateOf({ minutes: r.firstResponseMinutes, warnAt: r.firstResponseWarnAt, dueAt: r.firstResponseDueAt, doneAt: r.firstResponseAt, breachedAt: r.firstResponseBreachedAt }, new Date(now));
    };
    expect(fr('2026-03-02T15:00:00Z')).toBe('ok');
    expect(fr('2026-03-02T16:20:00Z')).toBe('warning');
    expect(fr('2026-03-02T16:30:00Z')).toBe('breached');
    expect(fr('2026-03-02T17:00:00Z', { firstResponseAt: new Date('2026-03-02T16:29:00Z') })).toBe('met');
    expect(fr('2026-03-02T17:00:00Z', { firstResponseAt: new Date('2026-03-02T16:31:00Z') })).toBe('missed');
    expect(nextCheckAt(row, new Date('2026-03-02T15:00:00Z'))?.toISOString()).toBe('2026-03-02T16:18:00.000Z');
    expect(nextCheckAt(row, new Date('2026-03-02T16:20:00Z'))?.toISOString()).toBe('2026-03-02T16:30:00.000Z');
    expect(nextCheckAt(row, new Date('2026-03-02T17:00:00Z'))?.toISOString()).toBe('2026-03-02T17:00:00.000Z');
    expect(nextCheckAt({ ...row, firstResponseBreachedAt: new Date('2026-03-02T16:30:00Z') }, new Date('2026-03-02T17:00:00Z'))).toBeNull();
    expect(nextCheckAt({ ...row, firstResponseAt: new Date('2026-03-02T16:00:00Z') }, new Date('2026-03-02T15:00:00Z'))).toBeNull();
  });

  it('a day range is read in the zone', () => {
    const r = dayRangeInstants({ from: '2026-03-01', to: '2026-03-02', timeZone: SP });
    expect([r.start.toISOString(), r.end.toISOString()]).toEqual(['2026-03-01T03:00:00.000Z', '2026-03-03T03:00:00.000Z']);
  });
});
