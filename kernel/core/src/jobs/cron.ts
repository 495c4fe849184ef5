import { Cron } from 'croner';

/** A parsed cron schedule: 5 fields (minute-level) or 6 (leading seconds), read in an IANA time zone. */
export interface CronSchedule {
  cron: string;
  tz: string;
  /** The first tick strictly after `after`, or null when the pattern never matches again. */
  next(after: Date): Date | null;
}

/**
 * Parses `cron` in time zone `tz` (default UTC). Day-of-month and day-of-week combine with OR when both
 * are restricted, as in Vixie cron. Throws `invalid cron ...` / `invalid time zone ...`.
 */
export function parseCron(cron: string, tz = 'UTC'): CronSchedule {
  if (typeof cron !== 'string' || !cron.trim()) throw new Error('invalid cron: empty');
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) throw new Error(`invalid cron "${cron}": expected 5 or 6 fields`);
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
  } catch {
    throw new Error(`invalid time zone: ${tz}`);
  }
  let pattern: Cron;
  try {
    pattern = new Cron(fields.join(' '), { timezone: tz, mode: '5-or-6-parts', paused: true });
  } catch (err) {
    throw new Error(`invalid cron "${cron}": ${(err as Error).message}`);
  }
  return { cron: fields.join(' '), tz, next: (after) => pattern.nextRun(after) };
}
