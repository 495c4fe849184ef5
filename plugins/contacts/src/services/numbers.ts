import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { maskNumber as sdkMaskNumber } from '@atendo/sdk';

/**
 * Cleans a typed phone number: strips spaces, dashes, dots, parentheses and one leading '+'. Returns the
 * digits, or `null` when anything else remains (letters, '*', other symbols) or nothing is left.
 */
export function cleanNumber(raw: string): string | null {
  const s = raw.trim().replace(/[\s\-().]/g, '').replace(/^\+/, '');
  return /^\d+$/.test(s) ? s : null;
}

/**
 * Normalises phone digits to E.164 without '+': first as an international number ("5511987654321"),
 * then as a national number of `defaultCountry` ("11987654321" with BR -> "5511987654321"). Digits that
 * libphonenumber does not recognise as a valid number either way are kept as they are (WhatsApp ids of
 * numbers the library calls invalid still work). Digits valid both ways (Peru "+51 988881111" vs Porto
 * Alegre "(51) 98888-1111") are read as international, the product family's convention (numbers are
 * typed with their country code).
 */
export function normalizePhone(digits: string, defaultCountry: CountryCode = 'BR'): string {
  const intl = parsePhoneNumberFromString(`+${digits}`);
  if (intl?.isValid()) return intl.number.slice(1);
  const national = parsePhoneNumberFromString(digits, defaultCountry);
  if (national?.isValid()) return national.number.slice(1);
  return digits;
}

/**
 * Every stored form a typed number may have: the digits, their international reading and their national
 * reading in `defaultCountry` (each when valid), and the Brazilian 9th-digit twin of each (`phoneVariants`),
 * without duplicates. For lookups by a typed number.
 */
export function phoneCandidates(digits: string, defaultCountry: CountryCode = 'BR'): string[] {
  const out = [digits];
  const intl = parsePhoneNumberFromString(`+${digits}`);
  if (intl?.isValid()) out.push(intl.number.slice(1));
  const national = parsePhoneNumberFromString(digits, defaultCountry);
  if (national?.isValid()) out.push(national.number.slice(1));
  return [...new Set(out.flatMap((n) => phoneVariants(n)))];
}

/**
 * The spellings WhatsApp may give one Brazilian mobile: `digits` (E.164 without '+') and, for a Brazilian
 * number (country calling code 55 as libphonenumber reads it), its 9th-digit twin:
 * - 13 digits `55 DD 9 NXXX XXXX` (N 6..9, a valid MOBILE number) -> also `55 DD NXXX XXXX`, the 12-digit
 *   id WhatsApp keeps for many numbers registered before the ninth digit (2012-2016);
 * - 12 digits `55 DD NXXX XXXX` (N 6..9; not a valid Brazilian number as such) -> also `55 DD 9NXXX XXXX`
 *   when that is a valid MOBILE number.
 * Eight-digit Brazilian numbers starting with 6..9 no longer exist (landlines start with 2..5), so the two
 * spellings always name one line. Anything else: `[digits]`. The first element is always `digits`.
 */
export function phoneVariants(digits: string): string[] {
  if (!/^55\d{10,11}$/.test(digits)) return [digits];
  const parsed = parsePhoneNumberFromString(`+${digits}`);
  if (!parsed || parsed.countryCallingCode !== '55') return [digits];
  const nat = String(parsed.nationalNumber);
  if (nat.length === 11 && nat[2] === '9' && /[6-9]/.test(nat[3]) && parsed.getType() === 'MOBILE') return [digits, `55${nat.slice(0, 2)}${nat.slice(3)}`];
  if (nat.length === 10 && /[6-9]/.test(nat[2]) && !parsed.isValid()) {
    const twin = parsePhoneNumberFromString(`+55${nat.slice(0, 2)}9${nat.slice(2)}`);
    if (twin?.isValid() && twin.getType() === 'MOBILE') return [digits, twin.number.slice(1)];
  }
  return [digits];
}

/**
 * One key for every spelling of a number (`phoneVariants`): the smallest spelling. Two numbers with the
 * same key name one WhatsApp account; the contacts plugin locks on it while creating a contact.
 */
export function phoneKey(digits: string): string {
  return phoneVariants(digits).reduce((a, b) => (b < a ? b : a));
}

/**
 * The user part of a WhatsApp LID JID (`104857600000123@lid` or `104857600000123:12@lid` -> `104857600000123`),
 * or undefined when `jid` is not a LID JID.
 */
export function lidUser(jid: string | null | undefined): string | undefined {
  const m = /^(\d{1,40})(?::\d+)?@lid$/.exec(String(jid ?? '').trim());
  return m?.[1];
}

/** A LID JID in its stored form (`user@lid`, the device part dropped), or null when `jid` is not one. */
export function canonicalLid(jid: string | null | undefined): string | null {
  const user = lidUser(jid);
  return user ? `${user}@lid` : null;
}

/**
 * A contact with the LGPD display mask applied: its number, and its name when the name is the number (a
 * Facebook or Instagram contact whose profile name is unknown shows its id as its name). Groups unchanged.
 */
export function maskContact<T extends { number: string; isGroup: boolean; name?: string | null }>(c: T): T {
  const number = maskNumber(c.number, c.isGroup);
  return c.name && c.name === c.number ? { ...c, number, name: number } : { ...c, number };
}

/** The LGPD display mask: the SDK's (`@atendo/sdk` lgpd.ts), the one the kernel's serializer applies. */
export function maskNumber(number: string, isGroup: boolean): string {
  return sdkMaskNumber(number, isGroup);
}
