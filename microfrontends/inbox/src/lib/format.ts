/** Text and time formatting of the ticket rows (spec 2-tickets.md §2 "Ticket card / row", §9). */

/** Longest contact name shown on a row. */
export const NAME_CUT = 60;
/** Longest last-message preview on a row. */
export const LAST_MESSAGE_CUT = 40;

/** `text` cut to `max` characters, with '...' when something was cut. */
export function cut(text: string | null | undefined, max: number): string {
  const s = text ?? '';
  const chars = Array.from(s);
  return chars.length > max ? `${chars.slice(0, max).join('')}...` : s;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `HH:mm` when `iso` is today (in the browser's time zone), else `dd/MM/yyyy`; '' for a bad date. */
export function formatTicketTime(iso: string | null | undefined, now: Date = new Date()): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const sameDay = d.getFullYear() === now.getFullYear() && d.getMonth() === now.getMonth() && d.getDate() === now.getDate();
  return sameDay ? `${pad(d.getHours())}:${pad(d.getMinutes())}` : `${pad(d.getDate())}/${pad(d.getMonth() + 1)}/${d.getFullYear()}`;
}

export { initials } from '@atendo/web-kit';

/** Kinds of last message shown as a word instead of their text. */
export type LastMessageKind = 'location' | 'vcard' | 'text';

/**
 * What a last message is: a location (the server's 'Localização' marker, or an old client's base64 map
 * thumbnail), a contact card (the server's 'Contato' marker, or raw vCard text) or text.
 */
export function lastMessageKind(lastMessage: string | null | undefined): LastMessageKind {
  const s = (lastMessage ?? '').trim();
  if (s === 'Localização' || s.startsWith('data:image/png;base64')) return 'location';
  if (s === 'Contato' || s.includes('BEGIN:VCARD')) return 'vcard';
  return 'text';
}

/** Emoji of a customer rating 1..5 (undefined outside that range). */
export function ratingEmoji(rating: number | null | undefined): string | undefined {
  const emojis = ['😡', '🙁', '😐', '🙂', '😍'];
  return typeof rating === 'number' && Number.isInteger(rating) && rating >= 1 && rating <= 5 ? emojis[rating - 1] : undefined;
}
