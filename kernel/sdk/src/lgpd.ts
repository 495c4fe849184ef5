/**
 * LGPD number masking (company setting `lgpdHideNumber`, spec 2-tickets.md §6): viewers who are not
 * admins never receive a contact's full number. One serializer, `maskNumbersDeep`, is applied by the kernel
 * to every HTTP answer of such a viewer and to every socket event delivered to such a viewer's sockets;
 * plugins emit and answer full numbers and never decide the mask themselves (they may still mask earlier:
 * masking is idempotent).
 */

/** Who gets masked numbers when the company enables lgpdHideNumber: profile 'user' without the super flag. */
export function masksNumbersFor(viewer: { profile: string; super?: boolean }): boolean {
  return !viewer.super && String(viewer.profile).toLowerCase() === 'user';
}

/**
 * The display mask: of the final eight characters, all but the last two become '*'; earlier characters
 * stay. `5511987654321` -> `55119******21`. Groups are never masked. Idempotent.
 */
export function maskNumber(number: string, isGroup = false): string {
  if (isGroup || !number) return number;
  const n = number.length;
  const tailStart = Math.max(0, n - 8);
  const keepFrom = Math.max(tailStart, n - 2);
  return number.slice(0, tailStart) + '*'.repeat(keepFrom - tailStart) + number.slice(keepFrom);
}

/**
 * Keys whose object value (or array of objects) is a contact (`shipping`: a campaign's recipients). Objects
 * with an `isGroup` flag (contacts) or a numeric `contactListId` (campaign contact-list items: people with a
 * number) are contacts wherever they are.
 */
const CONTACT_KEYS = new Set(['contact', 'contacts', 'Contact', 'shipping']);
/** Keys holding a WhatsApp JID or a bare number of a person (`5511987654321@s.whatsapp.net`). */
const JID_KEYS = new Set(['remoteJid', 'participant', 'lid']);
/** Raw provider payloads (JSON text): JIDs and the providers' number fields inside are masked. */
const RAW_KEYS = new Set(['dataJson']);
const RAW_NUMBER_FIELDS = /("(?:wa_id|from|to|phone|phone_number|recipient_id|remoteJid|participant|senderPn|number)"\s*:\s*")(\+?\d{6,})(")/g;
const JID_IN_TEXT = /(\d{6,})(?=@(?:s\.whatsapp\.net|c\.us|lid))/g;

function maskJid(value: string): string {
  const at = value.indexOf('@');
  if (at < 0) return /^\+?\d{6,}$/.test(value) ? maskNumber(value) : value;
  const local = value.slice(0, at);
  if (value.slice(at) === '@g.us') return value; // groups are never masked
  return (/^\d{6,}(:\d+)?$/.test(local) ? maskNumber(local.split(':')[0]) + (local.includes(':') ? local.slice(local.indexOf(':')) : '') : local) + value.slice(at);
}

function maskRaw(text: string): string {
  return text.replace(RAW_NUMBER_FIELDS, (_m, a: string, digits: string, z: string) => a + maskNumber(digits) + z).replace(JID_IN_TEXT, (d: string) => maskNumber(d));
}

function maskContact(c: Record<string, unknown>): Record<string, unknown> {
  const number = c.number;
  if (typeof number !== 'string') return c;
  const isGroup = c.isGroup === true;
  const masked = maskNumber(number, isGroup);
  const out: Record<string, unknown> = { ...c, number: masked };
  if (typeof c.name === 'string' && c.name === number) out.name = masked;
  return out;
}

/**
 * A copy of `value` (JSON-like: plain objects, arrays, primitives, Dates kept) with every contact number
 * masked: `number` (and `name` when it is the number) of contact objects (objects with an `isGroup` flag or
 * a numeric `contactListId` (contact-list items), or under a `contact`/`contacts`/`shipping` key), JIDs in `remoteJid`/`participant`/`lid`, and numbers inside raw
 * provider payloads (`dataJson`). Groups are left as they are. Objects are copied only where something
 * changes; the input is never modified.
 */
export function maskNumbersDeep<T>(value: T): T {
  return walk(value, false, 0) as T;
}

function walk(value: unknown, contactContext: boolean, depth: number): unknown {
  if (value === null || typeof value !== 'object' || depth > 12) return value;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const w = walk(v, contactContext, depth + 1);
      if (w !== v) changed = true;
      return w;
    });
    return changed ? out : value;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value; // Dates, Buffers, class instances
  const obj = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  const set = (k: string, v: unknown) => {
    if (v === obj[k]) return;
    out ??= { ...obj };
    out[k] = v;
  };
  for (const k of Object.keys(obj)) {
    const v = obj[k];
    if (typeof v === 'string') {
      if (JID_KEYS.has(k)) set(k, maskJid(v));
      else if (RAW_KEYS.has(k)) set(k, maskRaw(v));
    } else if (v !== null && typeof v === 'object') {
      set(k, walk(v, CONTACT_KEYS.has(k), depth + 1));
    }
  }
  const current = out ?? obj;
  const contactLike = contactContext || typeof obj.isGroup === 'boolean' || typeof obj.contactListId === 'number';
  if (contactLike && typeof obj.number === 'string') return maskContact(current);
  return current;
}
