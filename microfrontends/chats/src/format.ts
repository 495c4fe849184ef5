const pad = (n: number) => String(n).padStart(2, '0');

/** `HH:mm` when `iso` is today (browser time zone), else `dd/MM/yyyy HH:mm`; '' for a bad date. */
export function messageTime(iso: string | null | undefined, now: Date = new Date()): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  const sameDay = d.getFullYear() === now.getFullYear() && d.getMonth() === now.getMonth() && d.getDate() === now.getDate();
  return sameDay ? time : `${pad(d.getDate())}/${pad(d.getMonth() + 1)}/${d.getFullYear()} ${time}`;
}

export { initials } from '@atendo/web-kit';
