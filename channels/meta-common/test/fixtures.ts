import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { Envelope, envelopeErrors, envelopeId, type ChannelAdapter, type SkipReason } from '@atendo/sdk';

/**
 * Test helpers shared by the Meta adapters' tests: the repository's recorded payloads (fixtures/channels at the
 * repository root), Meta's compact serialization, and a checked normalize.
 */
export const FIXTURES_DIR = join(__dirname, '..', '..', '..', 'fixtures', 'channels');

/** The .json files of a fixture folder, sorted. Throws when the folder is missing (tests must not pass vacuously). */
export function fixtureFiles(folder: string): string[] {
  const dir = join(FIXTURES_DIR, folder);
  if (!existsSync(dir)) throw new Error(`fixture folder missing: ${dir}`);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
}

export function loadFixture<T = Record<string, unknown>>(folder: string, file: string): T {
  return JSON.parse(readFileSync(join(FIXTURES_DIR, folder, file), 'utf8')) as T;
}

/** Meta's wire form: compact JSON with every non-ASCII UTF-16 unit escaped as `\uXXXX` (GRAPH_API.md §2). */
export function metaCompact(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export const TARGET = { companyId: 3, connectionId: 7 };

export interface Normalized {
  envelopes: Envelope[];
  skips: { reason: SkipReason; detail: Record<string, unknown> }[];
}

/**
 * Normalizes `raw` with `adapter` (every account id resolving to TARGET unless `resolve` is given), asserts
 * every envelope passes the SDK schema (with the errors in the failure message) and that its id is derived
 * from its idempotency key.
 */
export function normalizeChecked(adapter: ChannelAdapter, raw: unknown, resolve: (id: string) => { companyId: number; connectionId: number } | undefined = () => TARGET): Normalized {
  const skips: Normalized['skips'] = [];
  const envelopes = adapter.normalize(raw, resolve, { receivedAt: '2025-01-02T03:04:05.000Z', onSkip: (reason, detail) => skips.push({ reason, detail }) });
  for (const e of envelopes) {
    expect(envelopeErrors(e)).toEqual([]);
    expect(Value.Check(Envelope, e)).toBe(true);
    expect(e.id).toBe(envelopeId(e.idempotencyKey));
  }
  return { envelopes, skips };
}

/** The envelope without `raw` and `id` (both checked elsewhere), for exact comparisons. */
export function core(e: Envelope): Omit<Envelope, 'raw' | 'id'> {
  const { raw: _raw, id: _id, ...rest } = e;
  return rest;
}
