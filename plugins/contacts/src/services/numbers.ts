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
 * reading in `defaultCountry` (each when valid), without duplicates. For lookups by a typed number.
 */
export function phoneCandidates(digits: string, defaultCountry: CountryCode = 'BR'): string[] {
  const out = [digits];
  const intl = parsePhoneNumberFromString(`+${digits}`);
  if (intl?.isValid()) out.push(intl.number.slice(1));
  const national = parsePhoneNumberFromString(digits, defaultCountry);
  if (national?.isValid()) out.push(national.number.slice(1));
  return [...new Set(out)];
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
