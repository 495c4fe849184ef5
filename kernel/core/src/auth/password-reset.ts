import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';

/** A code works for this long after it is issued (milliseconds). */
export const RESET_CODE_TTL_MS = 10 * 60_000;
/** Wrong codes allowed per issued code (spec 3-campaigns-and-tools.md §5, §9: 3 attempts). */
export const RESET_MAX_ATTEMPTS = 3;
/** Rows older than this are deleted (opportunistically, when a new code is asked for). */
export const RESET_RETENTION_MS = 24 * 3600_000;

/** Digits of a phone number as typed (`+55 (11) 99999-8888` -> `5511999998888`). */
export const digitsOf = (wpp: string): string => String(wpp ?? '').replace(/\D/g, '');

/**
 * A Brazilian national number (DDD + subscriber) with and without the mobile "9th digit": `11999998888`
 * <-> `1199998888` (only for subscribers that start with 6-9, i.e. mobiles).
 */
function ninthDigitVariants(national: string): string[] {
  if (national.length === 11 && national[2] === '9' && /[6-9]/.test(national[3])) return [national, national.slice(0, 2) + national.slice(3)];
  if (national.length === 10 && /[6-9]/.test(national[2])) return [national, `${national.slice(0, 2)}9${national.slice(2)}`];
  return [national];
}

/**
 * Every digit string that designates the same WhatsApp number as `digits`: the number itself and, when it
 * looks Brazilian (12/13 digits starting with 55, or 10/11 digits without a country code), the forms with
 * and without the country code and with and without the 9th digit. Equivalent inputs give the same set.
 */
export function wppCandidates(digits: string): string[] {
  const out = new Set<string>([digits]);
  let national: string | undefined;
  if (digits.startsWith('55') && (digits.length === 12 || digits.length === 13)) national = digits.slice(2);
  else if (digits.length === 10 || digits.length === 11) national = digits;
  if (national) {
    for (const n of ninthDigitVariants(national)) {
      out.add(n);
      out.add(`55${n}`);
    }
  }
  return [...out].sort();
}

/** The canonical key of a number (the same for every equivalent form): the smallest candidate. */
export const wppKey = (digits: string): string => wppCandidates(digits)[0];

/** Where to send a code for a stored number: its digits, with 55 added to a Brazilian national number. */
export function deliveryNumber(stored: string): string {
  const d = digitsOf(stored);
  return d.length === 10 || d.length === 11 ? `55${d}` : d;
}

/** A fresh 6-digit code (uniform, from the CSPRNG). */
export const newResetCode = (): string => String(randomInt(0, 1_000_000)).padStart(6, '0');

/**
 * The stored form of a code: HMAC-SHA256 keyed with a server secret over `resetId:code`, hex. Binding the
 * row id means a hash copied to another row does not match there; the key means a database dump alone
 * cannot be brute-forced offline.
 */
export function hashResetCode(secret: string, resetId: string, code: string): string {
  return createHmac('sha256', secret).update(`${resetId}:${code}`).digest('hex');
}

/** Constant-time check of `code` against the stored hash of reset `resetId`. */
export function resetCodeMatches(secret: string, resetId: string, code: string, storedHash: string): boolean {
  const a = Buffer.from(hashResetCode(secret, resetId, code), 'hex');
  const b = Buffer.from(String(storedHash ?? ''), 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The WhatsApp text with the code, in the user's language (pt-BR by default). */
export function resetCodeText(code: string, language?: string | null): string {
  switch ((language ?? '').slice(0, 2)) {
    case 'en':
      return `Your Atendo verification code is ${code}. It expires in 10 minutes. Do not share it with anyone.`;
    case 'es':
      return `Tu código de verificación de Atendo es ${code}. Vence en 10 minutos. No lo compartas con nadie.`;
    case 'tr':
      return `Atendo doğrulama kodunuz ${code}. 10 dakika içinde geçerliliğini yitirir. Kimseyle paylaşmayın.`;
    default:
      return `Seu código de verificação do Atendo é ${code}. Ele expira em 10 minutos. Não o compartilhe com ninguém.`;
  }
}
