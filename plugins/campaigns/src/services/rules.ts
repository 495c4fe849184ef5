/**
 * The campaigns plugin's pure rules (no I/O; unit tested in test/rules.test.ts): scheduled times in the
 * company's zone, connection id lists, message variants and variables, pacing, the edit rule, numbers.
 */
import { DateTime } from 'luxon';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { AppError } from '@atendo/sdk';
import { EDIT_LEAD_MS, MESSAGE_VARIANTS, type CampaignSettings, type CampaignStatus, type CampaignVariable } from '../contract';

/** The company's zone when its `timeZone` setting is unset or invalid. */
export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

/**
 * A `scheduledAt` value to an instant. Empty strings and null are "no schedule" (null). A string with an
 * offset or `Z` (ISO-8601) is taken as it is; one without (`YYYY-MM-DD HH:mm[:ss]`, `YYYY-MM-DDTHH:mm[:ss]`,
 * the product family's form format) is a wall time of `timeZone` (the company's setting). Throws 400
 * ERR_VALIDATION for anything else.
 */
export function parseScheduledAt(value: string | null | undefined, timeZone: string): Date | null {
  const s = (value ?? '').trim();
  if (!s) return null;
  const zone = DateTime.local().setZone(timeZone).isValid ? timeZone : DEFAULT_TIME_ZONE;
  const hasOffset = /(Z|[+-]\d{2}(:?\d{2})?)$/i.test(s) && /T|\s/.test(s);
  const iso = s.replace(' ', 'T');
  const dt = hasOffset ? DateTime.fromISO(iso, { setZone: true }) : DateTime.fromISO(iso, { zone });
  if (!dt.isValid || !/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(s)) throw new AppError('ERR_VALIDATION', 'scheduledAt must be YYYY-MM-DD HH:mm:ss (company time) or an ISO-8601 time with an offset');
  return dt.toJSDate();
}

/**
 * The connection ids of a `whatsappId` value: a number, a comma-joined string (`"3,5"`, the product family's
 * form), an array, or null/'' (none). Order kept, duplicates dropped. 400 ERR_VALIDATION for anything else.
 */
export function parseWhatsappIds(value: unknown): number[] {
  if (value === null || value === undefined || value === '') return [];
  const parts: unknown[] = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];
  const out: number[] = [];
  for (const p of parts) {
    const n = typeof p === 'number' ? p : typeof p === 'string' && /^\s*\d{1,10}\s*$/.test(p) ? Number(p.trim()) : NaN;
    if (!Number.isInteger(n) || n < 1 || n > 2147483647) throw new AppError('ERR_VALIDATION', 'whatsappId must be a connection id, or ids joined by commas');
    if (!out.includes(n)) out.push(n);
  }
  if (out.length > 20) throw new AppError('ERR_VALIDATION', 'at most 20 connections per campaign');
  return out;
}

/** The message fields of a campaign. */
export type CampaignMessages = Record<`message${1 | 2 | 3 | 4 | 5}` | `confirmationMessage${1 | 2 | 3 | 4 | 5}`, string>;

/** The variants (1..5) whose `messageN` is not blank, in order. */
export function variantsOf(c: Pick<CampaignMessages, `message${1 | 2 | 3 | 4 | 5}`>): number[] {
  const out: number[] = [];
  for (let i = 1; i <= MESSAGE_VARIANTS; i++) if ((c[`message${i}` as `message1`] ?? '').trim()) out.push(i);
  return out;
}

/** The variant of the recipient at position `seq` (1-based): the variants in turn (seq 1 -> first, 2 -> second, ...). */
export function variantFor(seq: number, variants: number[]): number {
  if (!variants.length) throw new AppError('ERR_CAMPAIGN_INCOMPLETE');
  return variants[(seq - 1) % variants.length];
}

/**
 * The confirmation text of variant `v`: its own `confirmationMessageN`, else the first non-blank
 * confirmation message (a variant without its own confirmation text shares the first one), else ''.
 */
export function confirmationTextFor(c: CampaignMessages, v: number): string {
  const own = (c[`confirmationMessage${v}` as `confirmationMessage1`] ?? '').trim();
  if (own) return own;
  for (let i = 1; i <= MESSAGE_VARIANTS; i++) {
    const t = (c[`confirmationMessage${i}` as `confirmationMessage1`] ?? '').trim();
    if (t) return t;
  }
  return '';
}

/** The recipient a campaign text is filled for. */
export interface Recipient {
  name: string;
  number: string;
  email: string;
}

/**
 * A campaign text with its campaign variables filled: `{nome}` (the recipient's name), `{numero}` (number),
 * `{email}`, then each custom variable `{key}` of the settings (keys are matched exactly, case-sensitively,
 * as written). The spec's message variables in double braces (`{{name}}`, `{{ms}}`, `{{protocol}}`, ...)
 * are left for the tickets plugin, which fills them for every outgoing text.
 */
export function fillCampaignText(text: string, r: Recipient, variables: CampaignVariable[]): string {
  let out = text.replace(/(?<!\{)\{nome\}(?!\})/g, r.name).replace(/(?<!\{)\{numero\}(?!\})/g, r.number).replace(/(?<!\{)\{email\}(?!\})/g, r.email);
  for (const v of variables) {
    if (!v.key) continue;
    const escaped = v.key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    out = out.replace(new RegExp(`(?<!\\{)\\{${escaped}\\}(?!\\})`, 'g'), () => v.value);
  }
  return out;
}

/**
 * Pacing: after a send, the recipients sent since the last long pause (`sentInBlock`, this send counted)
 * decide the wait before the next send. Every `longerIntervalAfter`-th send (when both it and
 * `greaterInterval` are above 0) is followed by `greaterInterval` seconds and starts a new block; any other
 * send by `messageInterval` seconds. With messageInterval 5, longerIntervalAfter 2, greaterInterval 20 the
 * sends happen at 0, 5, 25, 30, 50, 55, ... seconds.
 */
export function gapAfter(sentInBlock: number, s: Pick<CampaignSettings, 'messageInterval' | 'longerIntervalAfter' | 'greaterInterval'>): { gapSeconds: number; sentInBlock: number } {
  if (s.longerIntervalAfter > 0 && s.greaterInterval > 0 && sentInBlock >= s.longerIntervalAfter) return { gapSeconds: s.greaterInterval, sentInBlock: 0 };
  return { gapSeconds: s.messageInterval, sentInBlock };
}

/**
 * How many recipients may go at once (no wait between them): 1 when `messageInterval` is above 0, else the
 * rest of the current block when long pauses are on, else `max`.
 */
export function burstSize(sentInBlock: number, s: Pick<CampaignSettings, 'messageInterval' | 'longerIntervalAfter' | 'greaterInterval'>, max: number): number {
  if (s.messageInterval > 0) return 1;
  if (s.longerIntervalAfter > 0 && s.greaterInterval > 0) return Math.max(1, Math.min(max, s.longerIntervalAfter - sentInBlock));
  return max;
}

/**
 * What an update may change (spec §4): everything while INATIVA, or PROGRAMADA with `scheduledAt` more than
 * an hour after `now`; only the message fields when CANCELADA; nothing otherwise.
 */
export function editScope(status: CampaignStatus, scheduledAt: Date | null, now: Date): 'all' | 'messages' | 'none' {
  if (status === 'INATIVA') return 'all';
  if (status === 'PROGRAMADA') return scheduledAt && scheduledAt.getTime() - now.getTime() > EDIT_LEAD_MS ? 'all' : 'none';
  if (status === 'CANCELADA') return 'messages';
  return 'none';
}

/**
 * A typed phone number to its stored form: spaces, dashes, dots, parentheses and a leading '+' removed;
 * read as international, then as national in `defaultCountry`; valid ones become E.164 digits without '+'.
 * Digits libphonenumber cannot validate are kept (WhatsApp reaches some numbers it calls invalid). null
 * when anything but digits remains or nothing is left.
 */
export function normalizeNumber(raw: string, defaultCountry: CountryCode = 'BR'): string | null {
  const digits = raw.trim().replace(/[\s\-().]/g, '').replace(/^\+/, '');
  if (!/^\d+$/.test(digits)) return null;
  const intl = parsePhoneNumberFromString(`+${digits}`);
  if (intl?.isValid()) return intl.number.slice(1);
  const national = parsePhoneNumberFromString(digits, defaultCountry);
  if (national?.isValid()) return national.number.slice(1);
  return digits;
}
