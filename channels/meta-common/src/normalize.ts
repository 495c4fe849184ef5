import { ENVELOPE_SCHEMA_VERSION, envelopeId, idempotencyKey, type Envelope } from '@atendo/sdk';
import { isRetryableGraphError } from './graph';

/** `normalize`'s account resolver: provider account id -> the connection it belongs to. */
export type Resolve = (externalAccountId: string) => { companyId: number; connectionId: number } | undefined;
export type Rec = Record<string, unknown>;
export type EnvelopeContent = NonNullable<Envelope['content']>;

/** Thrown inside adapters for an item without the documented shape; caught per item and reported as `malformed`. */
export class MalformedItem extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedItem';
  }
}

/** `v` as a plain object, else undefined. */
export function rec(v: unknown): Rec | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : undefined;
}

/** `v` as an array, else []. */
export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** A non-empty string, else undefined. */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** An id that Meta may send as a string or a number (finite integers only), as a string. */
export function idOf(v: unknown): string | undefined {
  if (typeof v === 'string' && v.length > 0 && v.length <= 512) return v;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return String(v);
  return undefined;
}

/** Like `idOf`, but throws `MalformedItem` naming `what` when absent. */
export function requireId(v: unknown, what: string): string {
  const id = idOf(v);
  if (id === undefined) throw new MalformedItem(`${what} is missing`);
  return id;
}

const MIN_MS = Date.UTC(2000, 0, 1);
const MAX_MS = Date.UTC(2200, 0, 1);

/** ISO time of a Unix time in milliseconds (number or digit string). Throws `MalformedItem` when out of range. */
export function isoFromMs(v: unknown, what = 'timestamp'): string {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,16}$/.test(v) ? Number(v) : NaN;
  if (!Number.isFinite(n) || n < MIN_MS || n > MAX_MS) throw new MalformedItem(`${what} is not a time in milliseconds`);
  return new Date(n).toISOString();
}

/** ISO time of a Unix time in seconds (WhatsApp sends digit strings). Throws `MalformedItem` when out of range. */
export function isoFromSeconds(v: unknown, what = 'timestamp'): string {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,13}$/.test(v) ? Number(v) : NaN;
  if (!Number.isFinite(n)) throw new MalformedItem(`${what} is not a time in seconds`);
  return isoFromMs(n * 1000, what);
}

/** Removes `undefined` properties, recursively through plain objects and arrays (keeps JSON and checks tidy). */
export function compact<T>(v: T): T {
  if (Array.isArray(v)) return v.map((x) => compact(x)) as T;
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const out: Rec = {};
    const src = v as Rec;
    for (const k in src) {
      const x = src[k];
      if (x === undefined) continue;
      out[k] = x !== null && typeof x === 'object' ? compact(x) : x;
    }
    return out as T;
  }
  return v;
}

/** Fields of an envelope that `buildEnvelope` computes (version, ids). */
export type EnvelopeInput = Omit<Envelope, 'schemaVersion' | 'id' | 'idempotencyKey'> & {
  /** Appended to the idempotency key when one external id yields several events (status state, edit number, ...). */
  keySuffix?: string;
};

/**
 * Builds an envelope: `idempotencyKey` = `<channel>:<connectionId>:<kind>:<externalId>[:<suffix>]`, `id`
 * derived from it (stable across redeliveries), `undefined` fields removed.
 */
export function buildEnvelope(input: EnvelopeInput): Envelope {
  const { keySuffix, ...rest } = input;
  const key = idempotencyKey(rest.channel, rest.connectionId, rest.kind, rest.externalId, keySuffix);
  return compact({ schemaVersion: ENVELOPE_SCHEMA_VERSION, id: envelopeId(key), idempotencyKey: key, ...rest }) as Envelope;
}

/**
 * A WhatsApp-style error object (`{code, title, message, error_data: {details}}`) as the envelope's error,
 * with `retryable` from the Graph classification.
 */
export function envelopeErrorOf(e: unknown): NonNullable<NonNullable<Envelope['status']>['error']> | undefined {
  const r = rec(e);
  if (!r) return undefined;
  const code = typeof r.code === 'number' && Number.isFinite(r.code) ? r.code : typeof r.code === 'string' && /^\d{1,9}$/.test(r.code) ? Number(r.code) : undefined;
  return compact({
    code: code !== undefined ? String(code) : undefined,
    title: str(r.title) ?? str(r.message),
    detail: str(rec(r.error_data)?.details) ?? str(r.message),
    retryable: isRetryableGraphError(code, undefined, false) && code !== undefined,
  });
}

/** Runs `fn` for one item; a throw is reported as `malformed` with `detail` and yields []. */
export function perItem<T>(onSkip: ((reason: 'malformed', detail: Record<string, unknown>) => void) | undefined, detail: Record<string, unknown>, fn: () => T[]): T[] {
  try {
    return fn();
  } catch (err) {
    onSkip?.('malformed', { ...detail, error: err instanceof Error ? err.message : String(err) });
    return [];
  }
}
