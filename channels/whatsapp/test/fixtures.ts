import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { BufferJSON } from '@whiskeysockets/baileys';
import { Envelope, envelopeId } from '@atendo/sdk';

/** The repository's recorded Baileys events: fixtures/channels/whatsapp-baileys at the repository root. */
export const FIXTURES_DIR = join(__dirname, '..', '..', '..', 'fixtures', 'channels', 'whatsapp-baileys');

/** The fixture files, sorted. Throws when the folder is missing (tests must not pass vacuously). */
export function fixtureFiles(): string[] {
  if (!existsSync(FIXTURES_DIR)) throw new Error(`fixture folder missing: ${FIXTURES_DIR}`);
  return readdirSync(FIXTURES_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort();
}

/** A fixture read the way Baileys reads stored JSON (`BufferJSON.reviver`), and its event name (file prefix). */
export function loadFixture(file: string): { event: string; data: any } { // eslint-disable-line @typescript-eslint/no-explicit-any
  return { event: file.split('--')[0], data: JSON.parse(readFileSync(join(FIXTURES_DIR, file), 'utf8'), BufferJSON.reviver) };
}

/** Asserts an envelope matches the SDK schema (errors in the message) and that its id derives from its key. */
export function expectValidEnvelope(e: Envelope): void {
  const errors = [...Value.Errors(Envelope, e)].map((x) => `${x.path}: ${x.message}`);
  expect(errors).toEqual([]);
  expect(Value.Check(Envelope, e)).toBe(true);
  expect(e.id).toBe(envelopeId(e.idempotencyKey));
  // raw must survive JSON (it becomes the message's dataJson).
  if (e.raw !== undefined) expect(JSON.parse(JSON.stringify(e.raw))).toEqual(e.raw);
}

/** The envelope without `id` and `raw` (asserted separately), for exact comparisons. */
export function core(e: Envelope): Omit<Envelope, 'id' | 'raw'> {
  const { id: _id, raw: _raw, ...rest } = e;
  return rest;
}
