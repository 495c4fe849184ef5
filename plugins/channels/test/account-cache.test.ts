import type { BusMessage, Envelope } from '@atendo/sdk';
import { createTestKernel, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import { signBody } from '@atendo/channel-meta-common';
import connectionsPlugin from '@atendo/plugin-connections';
import { connectionsService, type ConnectionRef, type ConnectionsService } from '@atendo/plugin-connections/contract';
import channelsPlugin from '../src/index';
import { AccountCache } from '../src/services/account-cache';
import { capture, createConnection, fixture, metaCompact, sleep } from './helpers';

const SECRET = 'meta-app-secret-for-account-cache-tests';
const PHONE_OLD = '104512345678901';
const PHONE_NEW = '104599999999999';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('AccountCache (unit)', () => {
  const ref = (id: number): ConnectionRef => ({ id, companyId: 7, channel: 'whatsappapi' }) as ConnectionRef;
  let clock = 0;
  const now = () => clock;
  beforeEach(() => {
    clock = 1_000;
  });

  test('hits are kept 30 s, misses 5 s; errors are not cached', async () => {
    const db = new Map<string, ConnectionRef>([['A', ref(1)]]);
    const find = jest.fn(async (_ch: string, acc: string) => {
      if (acc === 'boom') throw new Error('db down');
      return db.get(acc);
    });
    const cache = new AccountCache({ findByExternalAccount: find as never }, { now });
    expect(await cache.find('whatsappapi', 'A')).toEqual(ref(1));
    expect(await cache.find('whatsappapi', 'A')).toEqual(ref(1));
    expect(await cache.find('whatsappapi', 'B')).toBeUndefined();
    expect(await cache.find('whatsappapi', 'B')).toBeUndefined();
    expect(find).toHaveBeenCalledTimes(2);
    // the channel is part of the key
    expect(await cache.find('facebook', 'A')).toEqual(ref(1));
    expect(find).toHaveBeenCalledTimes(3);
    clock += 5_001; // miss expired, hit not
    expect(await cache.find('whatsappapi', 'B')).toBeUndefined();
    expect(await cache.find('whatsappapi', 'A')).toEqual(ref(1));
    expect(find).toHaveBeenCalledTimes(4);
    clock += 25_000; // hit expired (30 001 ms after it was stored)
    expect(await cache.find('whatsappapi', 'A')).toEqual(ref(1));
    expect(find).toHaveBeenCalledTimes(5);
    await expect(cache.find('whatsappapi', 'boom')).rejects.toThrow('db down');
    await expect(cache.find('whatsappapi', 'boom')).rejects.toThrow('db down');
    expect(find).toHaveBeenCalledTimes(7);
  });

  test('bounded: the oldest stored entry is evicted past maxEntries', async () => {
    const find = jest.fn(async (_ch: string, acc: string) => ref(Number(acc)));
    const cache = new AccountCache({ findByExternalAccount: find as never }, { now, maxEntries: 3 });
    for (const acc of ['1', '2', '3', '4']) await cache.find('whatsappapi', acc);
    expect(cache.size).toBe(3);
    await cache.find('whatsappapi', '4');
    expect(find).toHaveBeenCalledTimes(4);
    await cache.find('whatsappapi', '1'); // evicted: looked up again
    expect(find).toHaveBeenCalledTimes(5);
    expect(cache.size).toBe(3);
  });

  test('invalidate(id) drops that connection and every miss, keeps other hits; a lookup in flight across an invalidation is not stored', async () => {
    const db = new Map<string, ConnectionRef>([['A', ref(1)], ['B', ref(2)]]);
    const find = jest.fn(async (_ch: string, acc: string) => db.get(acc));
    const cache = new AccountCache({ findByExternalAccount: find as never }, { now });
    await cache.find('whatsappapi', 'A');
    await cache.find('whatsappapi', 'B');
    await cache.find('whatsappapi', 'C'); // miss
    expect(find).toHaveBeenCalledTimes(3);
    cache.invalidate(1);
    expect(cache.size).toBe(1);
    await cache.find('whatsappapi', 'B');
    expect(find).toHaveBeenCalledTimes(3);
    await cache.find('whatsappapi', 'A');
    await cache.find('whatsappapi', 'C');
    expect(find).toHaveBeenCalledTimes(5);

    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    find.mockImplementationOnce(async (_ch, acc) => {
      await gate;
      return db.get(acc);
    });
    cache.invalidate();
    expect(cache.size).toBe(0);
    const pending = cache.find('whatsappapi', 'A'); // reads the old row...
    cache.invalidate(1); // ...while the connection changes
    release();
    expect(await pending).toEqual(ref(1));
    expect(cache.size).toBe(0); // the stale answer was not stored
  });
});

describe('webhook routing through the account cache', () => {
  let k: TestKernel;
  let A: { companyId: number; admin: TestUser };
  let service: ConnectionsService;
  let inbound: BusMessage<Envelope>[];
  let connId: number;

  beforeAll(async () => {
    k = await createTestKernel({ plugins: [connectionsPlugin, channelsPlugin], env: { META_APP_SECRET: SECRET, CHANNELS_WEBHOOK_RETRY_DELAY_MS: '10' } });
    service = k.services.get(connectionsService);
    A = await k.createCompany();
    connId = await createConnection(k, A.admin, 'whatsappapi', PHONE_OLD, 'token-wa-a');
    inbound = await capture<Envelope>(k, 'channel.inbound.#');
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await k?.close();
  });

  let seq = 0;
  /** A signed WhatsApp text body for phone-number id `phone`, with a fresh message id. */
  const send = async (phone: string) => {
    const body: Json = fixture('whatsapp-cloud', 'text.json');
    body.entry[0].changes[0].value.metadata.phone_number_id = phone;
    body.entry[0].changes[0].value.messages[0].id = `wamid.CACHE-${++seq}`;
    const raw = metaCompact(body);
    const res = await k.app.inject({ method: 'POST', url: '/webhook', payload: raw, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signBody(Buffer.from(raw), SECRET) } });
    expect(res.statusCode).toBe(200);
    return `wamid.CACHE-${seq}`;
  };

  test('a cache hit avoids the lookup; a changed account id routes right after PUT /whatsapp/:id', async () => {
    const spy = jest.spyOn(service, 'findByExternalAccount');
    const calls = () => spy.mock.calls.map(([ch, acc]) => `${ch}:${acc}`);

    // first body: one lookup; second body for the same account: served by the cache
    const m1 = await send(PHONE_OLD);
    await waitFor(() => inbound.length === 1);
    const m2 = await send(PHONE_OLD);
    await waitFor(() => inbound.length === 2);
    expect(calls()).toEqual([`whatsappapi:${PHONE_OLD}`]);
    expect(inbound.map((m) => [m.payload.externalId, m.payload.companyId, m.payload.connectionId])).toEqual([
      [m1, A.companyId, connId],
      [m2, A.companyId, connId],
    ]);

    // an unknown account: looked up once, skipped, the miss cached
    await send(PHONE_NEW);
    await waitFor(() => spy.mock.calls.length === 2);
    await send(PHONE_NEW);
    await sleep(100);
    expect(calls()).toEqual([`whatsappapi:${PHONE_OLD}`, `whatsappapi:${PHONE_NEW}`]);
    expect(inbound).toHaveLength(2);

    // the connection moves to the new phone-number id: the very next bodies route by the new id
    const put = await k.as(A.admin, 'PUT', `/whatsapp/${connId}`, { facebookPageUserId: PHONE_NEW });
    expect(put.statusCode).toBe(200);
    expect((put.json() as Json).facebookPageUserId).toBe(PHONE_NEW);
    const m3 = await send(PHONE_NEW);
    await waitFor(() => inbound.length === 3);
    expect([inbound[2].payload.externalId, inbound[2].payload.companyId, inbound[2].payload.connectionId]).toEqual([m3, A.companyId, connId]);
    // ...and the old id no longer routes (its cached hit was dropped: looked up again, now unknown)
    await send(PHONE_OLD);
    await waitFor(() => spy.mock.calls.length === 4);
    await sleep(100);
    expect(inbound).toHaveLength(3);
    expect(calls()).toEqual([`whatsappapi:${PHONE_OLD}`, `whatsappapi:${PHONE_NEW}`, `whatsappapi:${PHONE_NEW}`, `whatsappapi:${PHONE_OLD}`]);

    // the new id is now a cached hit
    const m4 = await send(PHONE_NEW);
    await waitFor(() => inbound.length === 4);
    expect(inbound[3].payload.externalId).toBe(m4);
    expect(spy).toHaveBeenCalledTimes(4);

    // deleting the connection: its account id stops routing once the deletion reached this node's bus (the
    // cache is invalidated by the broadcast `connection.deleted`, which over RabbitMQ may trail the answer)
    let heard!: () => void;
    const deleted = new Promise<void>((r) => (heard = r));
    const sub = await k.bus.subscribe('connection.deleted', () => heard(), { broadcast: true });
    expect((await k.as(A.admin, 'DELETE', `/whatsapp/${connId}`)).statusCode).toBe(200);
    await deleted;
    await sub.unsubscribe();
    await sleep(100);
    await send(PHONE_NEW);
    await waitFor(() => spy.mock.calls.length === 5);
    await sleep(100);
    expect(inbound).toHaveLength(4);
  });
});
