import { createHmac, timingSafeEqual } from 'node:crypto';

const HEADER = /^sha256=([0-9a-fA-F]{64})$/;

/**
 * Verifies Meta's `X-Hub-Signature-256: sha256=<hex>` header: HMAC-SHA256 of the EXACT raw body bytes keyed
 * with the app secret (GRAPH_API.md §2). Never pass a re-serialized body: Meta signs its own serialization
 * (non-ASCII escaped as `\uXXXX`), which `JSON.stringify(JSON.parse(body))` does not reproduce.
 *
 * Returns false (never throws) for a missing or malformed header, an empty secret, or a mismatch. The digest
 * comparison is constant-time (`crypto.timingSafeEqual` over the 32 decoded bytes; the header shape is
 * checked first, so lengths always match).
 */
export function verifySignature(rawBody: Buffer, header: string | undefined, secret: string): boolean {
  if (typeof header !== 'string' || !secret || !Buffer.isBuffer(rawBody)) return false;
  const m = HEADER.exec(header.trim());
  if (!m) return false;
  const given = Buffer.from(m[1], 'hex');
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The `X-Hub-Signature-256` value for `rawBody` (for tests and local tools). */
export function signBody(rawBody: Buffer | string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/** Constant-time string equality (for the webhook verify token); false when either side is empty. */
export function safeEqual(a: string | undefined, b: string | undefined): boolean {
  if (typeof a !== 'string' || typeof b !== 'string' || !a || !b) return false;
  const ha = createHmac('sha256', 'atendo-compare').update(a).digest();
  const hb = createHmac('sha256', 'atendo-compare').update(b).digest();
  return timingSafeEqual(ha, hb) && a === b;
}
