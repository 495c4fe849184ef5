/**
 * The campaigns plugin's pure rules (no I/O; unit tested in test/rules.test.ts): scheduled times in the
 * company's zone, connection id lists, message variants and variables, pacing, the edit rule, numbers.
 */
import { DateTime } from 'luxon';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { AppError } from '@atendo/sdk';
import { EDIT_LEAD_MS, LEGAL_BASES, MESSAGE_VARIANTS, type CampaignSettings, type LegalBasis, type CampaignStatus, type CampaignVariable } from '../contract';

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

/** A label compared loosely: lower case, no accents, letters only (`Interesse legítimo` -> `interesselegitimo`). */
const labelKey = (v: string) => v.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z]/g, '');

/** Words a spreadsheet may use for each legal basis (pt-BR, en, es, tr; compared through `labelKey`). */
const LEGAL_BASIS_WORDS: Record<LegalBasis, string[]> = {
  consent: ['consent', 'consentimento', 'consentimiento', 'riza', 'acikriza'],
  'legal-obligation': ['legalobligation', 'obrigacaolegal', 'cumprimentodeobrigacaolegal', 'obligacionlegal', 'yasalyukumluluk'],
  'public-policy': ['publicpolicy', 'politicaspublicas', 'administracaopublica', 'politicapublica', 'kamupolitikasi'],
  research: ['research', 'estudos', 'pesquisa', 'investigacion', 'arastirma'],
  contract: ['contract', 'contrato', 'execucaodecontrato', 'sozlesme'],
  'legal-claims': ['legalclaims', 'exercicioregulardedireitos', 'exercicioderechos', 'hukukitalepler'],
  'vital-interest': ['vitalinterest', 'protecaodavida', 'protecciondelavida', 'hayatikorunmasi'],
  health: ['health', 'tuteladasaude', 'saude', 'salud', 'saglik'],
  'legitimate-interest': ['legitimateinterest', 'interesselegitimo', 'intereslegitimo', 'mesrumenfaat'],
  'credit-protection': ['creditprotection', 'protecaodocredito', 'protecaoaocredito', 'protecciondelcredito', 'kredikorumasi'],
};

/**
 * A legal basis as typed (issue 34 item 4): one of `LEGAL_BASES`, or a spreadsheet's word for it in the four
 * languages (`Consentimento`, `interesse legítimo`, `legal_obligation`...). '' or null: none (null). Throws 400
 * ERR_VALIDATION for anything else.
 */
export function parseLegalBasis(value: string | null | undefined): LegalBasis | null {
  const s = (value ?? '').trim();
  if (!s) return null;
  if ((LEGAL_BASES as readonly string[]).includes(s)) return s as LegalBasis;
  const key = labelKey(s);
  for (const basis of LEGAL_BASES) if (labelKey(basis) === key || LEGAL_BASIS_WORDS[basis].includes(key)) return basis;
  throw new AppError('ERR_VALIDATION', `legalBasis must be one of ${LEGAL_BASES.join(', ')}`);
}

/** Excel's day 0 (1899-12-30) in Unix milliseconds: serial day numbers of .xls cells count from it. */
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);

/**
 * A consent date as typed or read from a sheet (issue 34 item 4): an ISO 8601 date (`YYYY-MM-DD`, taken
 * as midnight UTC) or date-time, a Brazilian `DD/MM/YYYY` date, or a spreadsheet's day serial (an .xls
 * date cell, 1..2958465). '' or null: none (null). Throws 400 ERR_VALIDATION for anything else or for a
 * time more than a day after `now` (a consent cannot come from the future).
 */
export function parseConsentAt(value: string | null | undefined, now: Date = new Date()): Date | null {
  const s = (value ?? '').trim();
  if (!s) return null;
  let d: DateTime | null = null;
  if (/^\d{4}-\d{2}-\d{2}$/.test(s)) d = DateTime.fromISO(s, { zone: 'utc' });
  else if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(s)) d = DateTime.fromISO(s.replace(' ', 'T'), { zone: 'utc' });
  else if (/^\d{1,2}\/\d{1,2}\/\d{4}$/.test(s)) d = DateTime.fromFormat(s, 'd/M/yyyy', { zone: 'utc' });
  else if (/^\d{1,7}(\.\d+)?$/.test(s) && Number(s) >= 1 && Number(s) <= 2958465) d = DateTime.fromMillis(Math.round(EXCEL_EPOCH_MS + Number(s) * 86_400_000), { zone: 'utc' });
  if (!d?.isValid) throw new AppError('ERR_VALIDATION', 'consentAt must be a date (YYYY-MM-DD or DD/MM/YYYY) or an ISO 8601 date-time');
  if (d.toMillis() > now.getTime() + 86_400_000) throw new AppError('ERR_VALIDATION', 'consentAt cannot be in the future');
  return d.toJSDate();
}
