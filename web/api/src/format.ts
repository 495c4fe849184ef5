/** Formatting shared by the shell and the areas (spec 1-platform.md §9: dates DD/MM/YYYY, amounts R$). */

/** The calendar date (`YYYY-MM-DD`) of a `YYYY-MM-DD` or ISO date-time string, or undefined. */
export function calendarDate(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  return m ? `${m[1]}-${m[2]}-${m[3]}` : undefined;
}

/** `DD/MM/YYYY` of a `YYYY-MM-DD` or ISO date-time string ('' when absent or malformed). */
export function formatDate(value: string | null | undefined): string {
  const d = calendarDate(value);
  if (!d) return '';
  const [y, m, day] = d.split('-');
  return `${day}/${m}/${y}`;
}

/** Today's calendar date in the browser's time zone, `YYYY-MM-DD`. */
export function today(now: Date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${p(now.getMonth() + 1)}-${p(now.getDate())}`;
}

/** Whole days from `now`'s calendar date to `date` (negative when past); undefined for a bad date. */
export function daysUntil(date: string | null | undefined, now: Date = new Date()): number | undefined {
  const d = calendarDate(date);
  if (!d) return undefined;
  const toUtc = (s: string) => {
    const [y, m, day] = s.split('-').map(Number);
    return Date.UTC(y, m - 1, day);
  };
  return Math.round((toUtc(d) - toUtc(today(now))) / 86_400_000);
}

const brl = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL', minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** An amount ("99.90" or 99.9) in Brazilian reais: "R$ 99,90". Non-numbers give "-". */
export function formatBRL(amount: string | number | null | undefined): string {
  const n = typeof amount === 'number' ? amount : Number(amount);
  return amount === null || amount === undefined || amount === '' || !Number.isFinite(n) ? '-' : brl.format(n);
}
