import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BusMessage, InboxItem } from '@atendo/sdk';
import type { TestKernel, TestUser } from '@atendo/testing';

/** The repository's recorded channel payloads (fixtures/channels at the repository root). */
export const FIXTURES_DIR = join(__dirname, '..', '..', '..', 'fixtures', 'channels');

export function fixture<T = any>(folder: string, file: string): T { // eslint-disable-line @typescript-eslint/no-explicit-any
  return JSON.parse(readFileSync(join(FIXTURES_DIR, folder, file), 'utf8')) as T;
}

/** Meta's wire form: compact JSON, non-ASCII escaped as `\uXXXX`. */
export function metaCompact(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Creates a Meta connection through the REST API as `admin`; returns its id. */
export async function createConnection(k: TestKernel, admin: TestUser, channel: 'whatsappapi' | 'facebook' | 'instagram', accountId: string, token: string): Promise<number> {
  const res = await k.as(admin, 'POST', '/whatsapp', { name: `${channel} ${accountId}`, channel, facebookPageUserId: accountId, facebookUserToken: token });
  if (res.statusCode !== 200) throw new Error(`connection create failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { id: number }).id;
}

/**
 * Collects every message matching `pattern` on this kernel's bus, through a broadcast subscription (a
 * private, auto-deleted queue: nothing outlives the test on a shared RabbitMQ).
 */
export async function capture<T = unknown>(k: TestKernel, pattern: string | string[]): Promise<BusMessage<T>[]> {
  const got: BusMessage<T>[] = [];
  await k.bus.subscribe<T>(pattern, (m) => {
    got.push(m);
  }, { broadcast: true });
  return got;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One `accept` of the kernel's durable inbox, as `recordInbox` saw it. */
export interface Accepted extends InboxItem {
  source: string;
  meta: Record<string, unknown>;
  /** The row id: set once the row is committed (absent for a duplicate). */
  id?: number;
  duplicate: boolean;
}

/** Records every event accepted into `k`'s durable inbox (after the commit, before the route answers). */
export function recordInbox(k: TestKernel): Accepted[] {
  const got: Accepted[] = [];
  const accept = k.inbox.accept.bind(k.inbox);
  k.inbox.accept = async (source, item) => {
    const r = await accept(source, item);
    got.push({ source, key: item.key, payload: item.payload, meta: item.meta ?? {}, id: r.id, duplicate: r.duplicate });
    return r;
  };
  return got;
}
