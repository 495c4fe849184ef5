/**
 * The list answer cache (src/services/answer-cache.ts) on its own, and behind GET /tickets: answers are
 * reused per caller and query, carry an ETag (304 on If-None-Match), are forgotten the moment this node
 * emits an event of the company (a REST change shows in the very next list), are forgotten on another
 * node when the event arrives over the bus, and never cross callers or companies.
 */
import { randomBytes } from 'node:crypto';
import { createTestKernel, waitFor, type TestKernel } from '@atendo/testing';
import { Value } from '@sinclair/typebox/value';
import { ANSWER_TTL_MS, AnswerCache } from '../src/services/answer-cache';
import { StatsCache } from '../src/services/list';
import { TicketsConfig } from '../src/config';
import { createContact, createTenant, insertTicket, TICKETS_PLUGINS, type Tenant } from './helpers';

jest.setTimeout(60000);

const deferred = <T>() => {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
};

describe('AnswerCache', () => {
  test('serves a stored answer until the company is bumped; other companies keep theirs', async () => {
    const c = new AnswerCache();
    let n = 0;
    const load = async () => JSON.stringify({ n: ++n });
    const a1 = await c.get(1, 'k1', [], load);
    const a2 = await c.get(1, 'k1', [], load);
    expect(a2.body.toString()).toBe('{"n":1}');
    expect(a2.etag).toBe(a1.etag);
    const b1 = await c.get(2, 'k2', [], load);
    c.bump(1);
    expect((await c.get(1, 'k1', [], load)).body.toString()).toBe('{"n":3}');
    expect((await c.get(2, 'k2', [], load)).etag).toBe(b1.etag);
    expect(n).toBe(3);
  });

  test('a scoped bump forgets only the answers of callers in those scopes', async () => {
    const c = new AnswerCache();
    let n = 0;
    const load = async () => String(++n);
    await c.get(1, 'queue1', ['tickets:queue:1', 'tickets:noqueue'], load);
    await c.get(1, 'queue2', ['tickets:queue:2', 'tickets:noqueue'], load);
    await c.get(1, 'admin', ['tickets:all'], load);
    c.bump(1, ['tickets:all', 'tickets:queue:2']);
    expect((await c.get(1, 'queue1', ['tickets:queue:1', 'tickets:noqueue'], load)).body.toString()).toBe('1');
    expect((await c.get(1, 'queue2', ['tickets:queue:2', 'tickets:noqueue'], load)).body.toString()).toBe('4');
    expect((await c.get(1, 'admin', ['tickets:all'], load)).body.toString()).toBe('5');
    c.bump(1, ['tickets:noqueue']);
    c.bump(1); // the whole company
    expect((await c.get(1, 'queue1', ['tickets:queue:1', 'tickets:noqueue'], load)).body.toString()).toBe('6');
    expect((await c.get(1, 'admin', ['tickets:all'], load)).body.toString()).toBe('7');
  });

  test('TICKETS_LIST_CACHE_MS (configSchema): default, 0 stores nothing, bad values refused', async () => {
    expect(Value.Default(TicketsConfig, {})).toEqual({ listCacheMs: ANSWER_TTL_MS });
    expect(Value.Check(TicketsConfig, { listCacheMs: 2500 })).toBe(true);
    for (const bad of [-1, 'abc', 1.5, 600001, 9e9]) expect(Value.Check(TicketsConfig, { listCacheMs: bad })).toBe(false);
    const c = new AnswerCache(0);
    let n = 0;
    await c.get(1, 'k', [], async () => String(++n));
    expect((await c.get(1, 'k', [], async () => String(++n))).body.toString()).toBe('2');
    expect(c.size).toBe(0);
  });

  test('concurrent requests share one computation', async () => {
    const c = new AnswerCache();
    const gate = deferred<string>();
    const load = jest.fn(() => gate.promise);
    const all = Promise.all([c.get(1, 'k', [], load), c.get(1, 'k', [], load), c.get(1, 'k', [], load)]);
    gate.resolve('{"x":1}');
    const answers = await all;
    expect(load).toHaveBeenCalledTimes(1);
    expect(new Set(answers.map((a) => a.body.toString()))).toEqual(new Set(['{"x":1}']));
  });

  test('an answer computed across a change is answered once and not stored', async () => {
    const c = new AnswerCache();
    const gate = deferred<string>();
    const first = c.get(1, 'k', [], () => gate.promise);
    c.bump(1); // the change lands while the old answer is being computed
    // A request after the change does not join the old computation.
    const second = c.get(1, 'k', [], async () => '{"v":"new"}');
    gate.resolve('{"v":"old"}');
    expect((await first).body.toString()).toBe('{"v":"old"}');
    expect((await second).body.toString()).toBe('{"v":"new"}');
    expect((await c.get(1, 'k', [], async () => '{"v":"newer"}')).body.toString()).toBe('{"v":"new"}');
  });

  test('a failed computation is not cached; TTL and stored bytes bound the entries', async () => {
    const c = new AnswerCache(50, 2); // at most 2 bytes of bodies
    await expect(c.get(1, 'k', [], async () => Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    expect((await c.get(1, 'k', [], async () => '1')).body.toString()).toBe('1');
    await c.get(1, 'k2', [], async () => '2');
    await c.get(1, 'k3', [], async () => '3'); // evicts k (least recently used)
    expect(c.size).toBe(2);
    expect(c.storedBytes).toBe(2);
    expect((await c.get(1, 'k', [], async () => 'again')).body.toString()).toBe('again');
    expect(c.storedBytes).toBe(2); // 'again' (5 bytes) is answered, but larger than the whole cache: not stored
    await new Promise((r) => setTimeout(r, 60));
    expect((await c.get(1, 'k', [], async () => 'expired')).body.toString()).toBe('expired');
  });
});

describe('StatsCache (the tab counts and capped counts)', () => {
  test('one statement per key and version; a bump of the scopes or the company recounts; failures are not kept', async () => {
    const answers = new AnswerCache();
    const stats = new StatsCache((c, scopes) => answers.version(c, scopes));
    let n = 0;
    const load = async () => ({ counts: { open: ++n, pending: 0, group: 0 } });
    const scopes = ['tickets:queue:1'];
    const [a, b] = await Promise.all([stats.get(1, 'k', scopes, load), stats.get(1, 'k', scopes, load)]);
    expect(a).toBe(b);
    expect(n).toBe(1);
    answers.bump(1, ['tickets:queue:2']); // another audience: still valid
    expect((await stats.get(1, 'k', scopes, load)).counts!.open).toBe(1);
    answers.bump(1, ['tickets:queue:1']);
    expect((await stats.get(1, 'k', scopes, load)).counts!.open).toBe(2);
    answers.bump(1);
    expect((await stats.get(1, 'k', scopes, load)).counts!.open).toBe(3);
    answers.bump(2); // another company
    expect((await stats.get(1, 'k', scopes, load)).counts!.open).toBe(3);
    await expect(stats.get(1, 'bad', scopes, async () => Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    expect((await stats.get(1, 'bad', scopes, load)).counts!.open).toBe(4);
    expect(stats.hits).toBe(3);
  });

  test('entries expire after the TTL', async () => {
    const stats = new StatsCache(() => 0, 30);
    let n = 0;
    const load = async () => ({ count: ++n });
    await stats.get(1, 'k', [], load);
    expect((await stats.get(1, 'k', [], load)).count).toBe(1);
    await new Promise((r) => setTimeout(r, 40));
    expect((await stats.get(1, 'k', [], load)).count).toBe(2);
  });
});

describe('GET /tickets through the cache', () => {
  const env = { JWT_SECRET: randomBytes(32).toString('hex'), JWT_REFRESH_SECRET: randomBytes(32).toString('hex') };
  let k: TestKernel;
  let t: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    k = await createTestKernel({ plugins: TICKETS_PLUGINS, env });
    t = await createTenant(k);
    other = await createTenant(k);
    await insertTicket(k, t.companyId, { contactId: t.contact.id, whatsappId: t.conn.id, queueId: t.queueA.id });
  });

  afterAll(async () => {
    await k?.close();
  });

  const list = (user: { token: string }, headers: Record<string, string> = {}) =>
    k.app.inject({ method: 'GET', url: '/tickets?status=pending&showAll=true', headers: { authorization: `Bearer ${user.token}`, ...headers } });
  const names = (body: string) => (JSON.parse(body) as { tickets: { contact: { name: string } }[] }).tickets.map((x) => x.contact.name);

  test('the same caller gets the same answer with an ETag; If-None-Match answers 304 without a body', async () => {
    const r1 = await list(t.admin);
    expect(r1.statusCode).toBe(200);
    expect(r1.headers['content-type']).toMatch(/^application\/json/);
    expect(r1.headers['cache-control']).toBe('private, no-cache');
    const etag = r1.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const r2 = await list(t.admin);
    expect(r2.headers.etag).toBe(etag);
    expect(r2.body).toBe(r1.body);
    const r3 = await list(t.admin, { 'if-none-match': etag });
    expect(r3.statusCode).toBe(304);
    expect(r3.body).toBe('');
    expect((await list(t.admin, { 'if-none-match': '"stale"' })).statusCode).toBe(200);
  });

  test('answers are per caller: a plain user of another queue never gets the admin answer', async () => {
    const admin = JSON.parse((await list(t.admin)).body);
    const userB = JSON.parse((await list(t.userB)).body);
    expect(admin.tickets).toHaveLength(1);
    expect(userB.tickets).toHaveLength(0);
    expect(JSON.parse((await list(other.admin)).body).tickets).toHaveLength(0);
  });

  test('cached until the company changes; a REST change shows in the very next list', async () => {
    const before = await list(t.admin);
    // A row written behind the plugins' back (no event) is not seen: the answer really is cached.
    await k.db('contacts').where({ id: t.contact.id }).update({ name: 'Written Directly' });
    expect(names((await list(t.admin)).body)).toEqual([t.contact.name]);
    // A change through the API emits the company's event on this node: no waiting needed.
    const put = await k.as(t.admin, 'PUT', `/contacts/${t.contact.id}`, { name: 'Renamed Via Api', number: t.contact.number });
    expect(put.statusCode).toBe(200);
    const after = await list(t.admin);
    expect(names(after.body)).toEqual(['Renamed Via Api']);
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  test("another company's events do not touch this company's answers", async () => {
    const first = await list(t.admin);
    await k.db('contacts').where({ id: t.contact.id }).update({ name: 'Hidden Change' });
    const put = await k.as(other.admin, 'PUT', `/contacts/${other.contact.id}`, { name: 'Other Co Rename', number: other.contact.number });
    expect(put.statusCode).toBe(200);
    expect((await list(t.admin)).headers.etag).toBe(first.headers.etag);
  });

  test("a ticket event forgets the lists of the viewers who see the ticket, and only theirs", async () => {
    const queueB = await insertTicket(k, t.companyId, { contactId: (await createContact(k, t.companyId)).id, whatsappId: t.conn.id, queueId: t.queueB.id });
    await k.db('tickets').where({ id: queueB.id }).update({ unreadMessages: 0 });
    const userA0 = await list(t.userA);
    const userB0 = await list(t.userB);
    expect(JSON.parse(userB0.body).tickets.map((x: { id: number }) => x.id)).toContain(queueB.id);
    const admin0 = await list(t.admin);
    // Written behind the plugins' back (no event): shows only in lists that get recomputed.
    await k.db('contacts').where({ id: t.contact.id }).update({ name: 'Scoped Hidden' });
    // userB accepts the queue-B ticket: its event goes to queue B, userB and the admins, not to userA.
    const put = await k.as(t.userB, 'PUT', `/tickets/${queueB.id}`, { status: 'open', userId: t.userB.id, queueId: t.queueB.id });
    expect(put.statusCode).toBe(200);
    expect((await list(t.userA)).headers.etag).toBe(userA0.headers.etag);
    expect(names((await list(t.userA)).body)).not.toContain('Scoped Hidden');
    const admin1 = await list(t.admin);
    expect(admin1.headers.etag).not.toBe(admin0.headers.etag);
    expect(names(admin1.body)).toContain('Scoped Hidden');
    const userB1 = JSON.parse((await list(t.userB)).body);
    expect(userB1.tickets.map((x: { id: number }) => x.id)).not.toContain(queueB.id);
    expect(userB1.counts.open).toBe(JSON.parse(userB0.body).counts.open + 1);
  });

  test('the tab counts are shared by the pages of a list and move at once with a ticket change', async () => {
    const page = async (n: number) => JSON.parse((await k.as(t.admin, 'GET', `/tickets?status=pending&showAll=true&pageNumber=${n}`)).body) as { counts: { open: number; pending: number } };
    const first = await page(1);
    // A ticket written behind the plugins' back (no event): page 2 (another answer) reuses page 1's counts.
    const hidden = await insertTicket(k, t.companyId, { contactId: (await createContact(k, t.companyId)).id, whatsappId: t.conn.id, queueId: t.queueA.id });
    expect((await page(2)).counts).toEqual(first.counts);
    // A change through the API: its event moves the counts in the very next list, whatever the page.
    const put = await k.as(t.admin, 'PUT', `/tickets/${hidden.id}`, { status: 'open', userId: t.admin.id });
    expect(put.statusCode).toBe(200);
    const after = await page(3);
    expect(after.counts.open).toBe(first.counts.open + 1);
    expect(after.counts.pending).toBe(first.counts.pending);
  });

  // Two kernels sharing the database and the bus: a change made through one reaches the other's cached
  // answers with its event.
  (process.env.AMQP_URL ? test : test.skip)('a change made on another node shows once its event arrives', async () => {
    const k2 = await createTestKernel({ plugins: TICKETS_PLUGINS, dbName: k.dbName, env });
    try {
      await list(t.admin); // cached on node 1
      const put = await k2.as(t.admin, 'PUT', `/contacts/${t.contact.id}`, { name: 'Renamed On Node Two', number: t.contact.number });
      expect(put.statusCode).toBe(200);
      await waitFor(async () => names((await list(t.admin)).body)[0] === 'Renamed On Node Two' || undefined, 10000);
    } finally {
      await k2.close();
    }
  });
});

test('TICKETS_LIST_CACHE_MS=0: every list is read fresh', async () => {
  const k = await createTestKernel({ plugins: TICKETS_PLUGINS, env: { TICKETS_LIST_CACHE_MS: '0' } });
  try {
    const t = await createTenant(k);
    await insertTicket(k, t.companyId, { contactId: t.contact.id, whatsappId: t.conn.id, queueId: t.queueA.id });
    const names = async () => ((await k.as(t.admin, 'GET', '/tickets?status=pending&showAll=true')).json() as { tickets: { contact: { name: string } }[] }).tickets.map((x) => x.contact.name);
    expect(await names()).toEqual([t.contact.name]);
    await k.db('contacts').where({ id: t.contact.id }).update({ name: 'Fresh Every Time' });
    expect(await names()).toEqual(['Fresh Every Time']);
  } finally {
    await k.close();
  }
});

test('TICKETS_LIST_CACHE_MS out of range refuses boot', async () => {
  await expect(createTestKernel({ plugins: TICKETS_PLUGINS, env: { TICKETS_LIST_CACHE_MS: '600001' } })).rejects.toThrow(/invalid config for plugin tickets.*listCacheMs/);
});
