import { useTranslation } from 'react-i18next';
import styled from 'styled-components';

/**
 * The weekly service-hours editor shared by queues, connections and the company settings (spec
 * 2-tickets.md §3 schedules "per weekday: weekday, weekdayEn, startTimeA, endTimeA, startTimeB, endTimeB";
 * §9 default 08:00-12:00 and 13:00-18:00). Times are `HH:mm` or `''` (no such shift).
 */

/** One weekday's hours (the wire shape of queues' and connections' `schedules`). */
export interface WeekSchedule {
  weekday: string;
  weekdayEn: string;
  startTimeA: string;
  endTimeA: string;
  startTimeB: string;
  endTimeB: string;
}

/** Monday first, as the screens list them. */
export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
/** The pt-BR day names the API stores in `weekday` (it accepts any of the four languages). */
const WEEKDAY_PT: Record<Weekday, string> = {
  monday: 'Segunda-feira',
  tuesday: 'Terça-feira',
  wednesday: 'Quarta-feira',
  thursday: 'Quinta-feira',
  friday: 'Sexta-feira',
  saturday: 'Sábado',
  sunday: 'Domingo',
};
const TIME_KEYS = ['startTimeA', 'endTimeA', 'startTimeB', 'endTimeB'] as const;

/** The default week: every day 08:00-12:00 and 13:00-18:00. */
export function defaultWeek(): WeekSchedule[] {
  return WEEKDAYS.map((d) => ({ weekday: WEEKDAY_PT[d], weekdayEn: d, startTimeA: '08:00', endTimeA: '12:00', startTimeB: '13:00', endTimeB: '18:00' }));
}

/** `schedules` as stored (any order, possibly partial or empty) as a full week, Monday first; missing days closed. */
export function toWeek(schedules: Partial<WeekSchedule>[] | null | undefined): WeekSchedule[] {
  if (!schedules || schedules.length === 0) return defaultWeek();
  return WEEKDAYS.map((d) => {
    const s = schedules.find((x) => String(x.weekdayEn ?? '').toLowerCase() === d);
    return { weekday: WEEKDAY_PT[d], weekdayEn: d, startTimeA: s?.startTimeA ?? '', endTimeA: s?.endTimeA ?? '', startTimeB: s?.startTimeB ?? '', endTimeB: s?.endTimeB ?? '' };
  });
}

const minutes = (t: string) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3, 5));

/**
 * The i18n key (namespace admin) of what is wrong with a day, or null: a shift needs both times, a shift
 * may not end before it starts, shift B needs shift A and starts at or after its end (the API's rules).
 */
export function dayError(s: WeekSchedule): string | null {
  if (!s.startTimeA !== !s.endTimeA || !s.startTimeB !== !s.endTimeB) return 'schedules.errors.bothTimes';
  if (s.startTimeA && minutes(s.startTimeA) > minutes(s.endTimeA)) return 'schedules.errors.order';
  if (s.startTimeB && !s.startTimeA) return 'schedules.errors.needsA';
  if (s.startTimeB && (minutes(s.startTimeB) < minutes(s.endTimeA) || minutes(s.startTimeB) > minutes(s.endTimeB))) return 'schedules.errors.order';
  return null;
}

/** Whether the whole week is valid. */
export const weekValid = (week: WeekSchedule[]) => week.every((d) => dayError(d) === null);

const Table = styled.table`
  width: 100%;
  border-collapse: collapse;
  th, td { padding: 6px 8px; text-align: left; border-bottom: 1px solid ${(p) => p.theme.colors.border}; }
  th { font-size: ${(p) => p.theme.font.size.sm}; color: ${(p) => p.theme.colors.textMuted}; font-weight: ${(p) => p.theme.font.weight.medium}; }
  input { height: 34px; padding: 0 6px; border: 1px solid ${(p) => p.theme.colors.border}; border-radius: ${(p) => p.theme.radius.sm}; background: ${(p) => p.theme.colors.surface}; color: ${(p) => p.theme.colors.text}; }
  .error { color: ${(p) => p.theme.colors.danger}; font-size: ${(p) => p.theme.font.size.xs}; font-weight: ${(p) => p.theme.font.weight.regular}; }
`;

/** A table of the seven days with two shifts each (time inputs, 10-minute steps); errors per day. */
export function WeeklyHoursEditor({ value, onChange, testId = 'weekly-hours' }: { value: WeekSchedule[]; onChange: (week: WeekSchedule[]) => void; testId?: string }) {
  const { t } = useTranslation('admin');
  const set = (i: number, key: (typeof TIME_KEYS)[number], v: string) => onChange(value.map((d, j) => (j === i ? { ...d, [key]: v } : d)));
  return (
    <Table data-testid={testId}>
      <thead>
        <tr>
          <th scope="col">{t('schedules.weekday')}</th>
          <th scope="col">{t('schedules.startA')}</th>
          <th scope="col">{t('schedules.endA')}</th>
          <th scope="col">{t('schedules.startB')}</th>
          <th scope="col">{t('schedules.endB')}</th>
        </tr>
      </thead>
      <tbody>
        {value.map((day, i) => {
          const error = dayError(day);
          const name = t(`schedules.days.${day.weekdayEn}`);
          return (
            <tr key={day.weekdayEn} data-testid={`${testId}-${day.weekdayEn}`}>
              <th scope="row">
                {name}
                {error ? (
                  <div className="error" role="alert">
                    {t(error)}
                  </div>
                ) : null}
              </th>
              {TIME_KEYS.map((k) => (
                <td key={k}>
                  <input type="time" step={600} value={day[k]} aria-label={`${name} ${t(`schedules.${k === 'startTimeA' ? 'startA' : k === 'endTimeA' ? 'endA' : k === 'startTimeB' ? 'startB' : 'endB'}`)}`} onChange={(e) => set(i, k, e.target.value)} />
                </td>
              ))}
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}
