/**
 * GET /tickets and GET /ticket/kanban: parameters (validation, JSON arrays), pagination and ordering,
 * counts, filters (unread, tags, users, connections, days, statuses), the text search (names, numbers,
 * message bodies, and each step of its plan) and the kanban list. Visibility has its own file
 * (visibility.test.ts). Tickets and messages are inserted directly, in precise states.
 */
import type { TestKernel, TestUser } from '@atendo/testing';
import { likeEscape, resolveStatuses, TicketListService } from '../src/services/list';
import type { TicketRow } from '../src/model';
import {
  bulkContacts,
  createAgent,
  createConnection,
  createContact,
  createTag,
  createTenant,
  insertMessage,
  insertTicket,
  ticketsDeps,
  ticketsKernel,
  type Tenant,
} from './helpers';

jest.setTimeout(60000);

let k: TestKernel;

beforeAll(async () => {
  k = await ticketsKernel();
});

afterAll(async () => {
  await k?.close();
});

type Query = Record<string, string | number | boolean | unknown[]>;
interface Answer {
  tickets: (TicketRow & { contact: { id: number; name: string; number: string }; tags: { id: number; name: string; color: string }[]; queue: unknown; user: unknown; whatsapp: unknown })[];
  count: number;
  hasMore: boolean;
  counts: { open: number; pending: number; group: number };
}

function qs(params: Query): string {
  return Object.entries(params)
    .map(([key, v]) => `${key}=${encodeURIComponent(Array.isArray(v) ? JSON.stringify(v) : String(v))}`)
    .join('&');
}

async function get(user: { token: string }, params: Query | string, path = '/tickets'): Promise<Answer> {
  const r = await k.as(user, 'GET', `${path}?${typeof params === 'string' ? params : qs(params)}`);
  if (r.statusCode !== 200) throw new Error(`HTTP ${r.statusCode}: ${r.body}`);
  return r.json();
}

const ids = (a: Answer) => a.tickets.map((x) => x.id);
const newestFirst = (rows: TicketRow[]) => [...rows].sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || b.id - a.id).map((r) => r.id);

describe('parameters', () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await createTenant(k);
    await insertTicket(k, t.companyId, { contactId: t.contact.id, whatsappId: t.conn.id, queueId: t.queueA.id });
  });

  test.each([
    'status=foo',
    'status=nps',
    'status=',
    'pageNumber=0',
    'pageNumber=-1',
    'pageNumber=abc',
    'pageNumber=1.5',
    'pageNumber=100001',
    'showAll=maybe',
    'withUnreadMessages=yes',
    'queueIds=%5B1%2C2',
    'queueIds=%5B',
    'queueIds=%7B%22a%22%3A1%7D',
    'queueIds=%5B%22x%22%5D',
    'queueIds=%5B-1%5D',
    'queueIds=%5B2147483648%5D',
    'queueIds=%5B1.5%5D',
    'queueIds=abc',
    'queueIds=1&queueIds=x',
    `queueIds=${encodeURIComponent(JSON.stringify(Array.from({ length: 201 }, (_, i) => i + 1)))}`,
    'tags=%5B%5B1%5D%5D',
    'tags=%5B%7B%22id%22%3A1%7D%5D',
    'users=%5Bnull%5D',
    'whatsapps=%5B%221%3BDROP%22%5D',
    'whatsappIds=-3',
    'statusFilter=%5B%22bogus%22%5D',
    'statusFilter=%5B1%5D',
    'date=2026-13-01',
    'dateStart=2026-02-30',
    'dateEnd=yesterday',
    'updatedAt=2026-1-1',
    `searchParam=${'a'.repeat(201)}`,
  ])('GET /tickets?%s -> 400 ERR_VALIDATION', async (query) => {
    const r = await k.as(t.admin, 'GET', `/tickets?${query}`);
    expect(r.statusCode).toBe(400);
    expect(r.json().error).toBe('ERR_VALIDATION');
  });

  test.each(['pageNumber=0', 'queueIds=%5Bx%5D', 'tags=nope', 'users=%5B0%5D', 'dateStart=2026-02-30', 'showAll=2'])('GET /ticket/kanban?%s -> 400 ERR_VALIDATION', async (query) => {
    const r = await k.as(t.admin, 'GET', `/ticket/kanban?${query}`);
    expect(r.statusCode).toBe(400);
    expect(r.json().error).toBe('ERR_VALIDATION');
  });

  test.each([
    'queueIds=QA',
    'queueIds=QA&queueIds=QB',
    'queueIds=%5BQA%2CQB%5D',
    'queueIds=',
    'queueIds=%5B%5D',
    'queueIds=%5B0%5D',
    'queueIds=%5B0%2CQA%5D',
    'statusFilter=pending&status=search',
    'statusFilter=pending&statusFilter=open&status=search',
    'showAll=false',
    'showAll=true&withUnreadMessages=false',
    'date=2026-02-28',
    'unknownParam=1&teste=true',
  ])('GET /tickets?%s is accepted', async (query) => {
    const r = await k.as(t.admin, 'GET', `/tickets?${query.replace(/QA/g, String(t.queueA.id)).replace(/QB/g, String(t.queueB.id))}`);
    expect(r.statusCode).toBe(200);
    expect(Array.isArray(r.json().tickets)).toBe(true);
  });

  test('a JSON array and repeated keys mean the same', async () => {
    const a = await get(t.admin, `status=pending&queueIds=${encodeURIComponent(JSON.stringify([t.queueA.id]))}`);
    const b = await get(t.admin, `status=pending&queueIds=${t.queueA.id}`);
    const c = await get(t.admin, `status=pending&queueIds=${t.queueB.id}&queueIds=${t.queueA.id}`);
    expect(ids(a)).toHaveLength(1);
    expect(ids(b)).toEqual(ids(a));
    expect(ids(c)).toEqual(ids(a));
  });

  test('no token -> 401 ERR_SESSION_EXPIRED; a bad token -> 403 ERR_INVALID_TOKEN', async () => {
    for (const path of ['/tickets', '/ticket/kanban']) {
      const none = await k.as(null, 'GET', path);
      expect(none.statusCode).toBe(401);
      expect(none.json().error).toBe('ERR_SESSION_EXPIRED');
      const bad = await k.as({ token: 'not-a-jwt' }, 'GET', path);
      expect(bad.statusCode).toBe(403);
      expect(bad.json().error).toBe('ERR_INVALID_TOKEN');
    }
  });

  test('the answer is the wire shape, without secrets', async () => {
    const a = await get(t.admin, { status: 'pending' });
    const x = a.tickets[0];
    expect(x).toMatchObject({
      status: 'pending',
      companyId: t.companyId,
      contactId: t.contact.id,
      queueId: t.queueA.id,
      userId: null,
      contact: { id: t.contact.id, name: t.contact.name, number: t.contact.number, tags: [] },
      queue: { id: t.queueA.id, name: t.queueA.name, color: t.queueA.color },
      user: null,
      tags: [],
      whatsapp: { id: t.conn.id, name: t.conn.name, channel: 'whatsapp', groupAsTicket: 'disabled' },
    });
    expect(typeof x.uuid).toBe('string');
    expect(new Date(x.updatedAt as unknown as string).toISOString()).toBe(x.updatedAt);
    const text = JSON.stringify(a);
    for (const secret of ['passwordHash', 'tokenVersion', 'session', 'facebookUserToken', 'token"']) expect(text).not.toContain(secret);
  });
});

describe('pagination, ordering and count', () => {
  let t: Tenant;
  let rows: TicketRow[];
  beforeAll(async () => {
    t = await createTenant(k);
    const contacts = await bulkContacts(k, t.companyId, 45, 'Page');
    const base = Date.UTC(2026, 2, 1, 12);
    rows = [];
    // (i * 37) % 45 permutes 0..44: insertion order and activity order differ; tickets 10 and 11 share
    // their updatedAt, so the id decides between them
    const hour = (i: number) => ((i === 11 ? 10 : i) * 37) % 45;
    for (let i = 0; i < 45; i++) {
      rows.push(
        await insertTicket(k, t.companyId, {
          contactId: contacts[i].id,
          whatsappId: t.conn.id,
          queueId: i % 2 === 0 ? t.queueA.id : t.queueB.id,
          userId: t.userB.id,
          status: 'closed',
          updatedAt: new Date(base + hour(i) * 3_600_000),
        }),
      );
    }
  });

  test('page 1 of 45 visible tickets: 40, hasMore, newest activity first (id breaks ties)', async () => {
    const p1 = await get(t.admin, { status: 'closed', pageNumber: 1 });
    expect(p1.tickets).toHaveLength(40);
    expect(p1.hasMore).toBe(true);
    expect(p1.count).toBe(45);
    expect(ids(p1)).toEqual(newestFirst(rows).slice(0, 40));
    const p2 = await get(t.admin, { status: 'closed', pageNumber: 2 });
    expect(ids(p2)).toEqual(newestFirst(rows).slice(40));
    expect(p2.hasMore).toBe(false);
    expect(p2.count).toBe(45);
    const p3 = await get(t.admin, { status: 'closed', pageNumber: 3 });
    expect(p3.tickets).toEqual([]);
    expect(p3.hasMore).toBe(false);
  });

  test('the tie on updatedAt is broken by id, higher first', async () => {
    const [a, b] = [rows[10], rows[11]];
    expect(a.updatedAt.getTime()).toBe(b.updatedAt.getTime());
    expect(b.id).toBeGreaterThan(a.id);
    const order = newestFirst(rows);
    expect(order.indexOf(b.id)).toBe(order.indexOf(a.id) - 1);
    const all = [...ids(await get(t.admin, { status: 'closed' })), ...ids(await get(t.admin, { status: 'closed', pageNumber: 2 }))];
    expect(all).toEqual(order);
    expect(new Set(all).size).toBe(45);
  });

  test('counting and paging follow visibility: userA sees the 23 queue-A tickets on one page', async () => {
    const a = await get(t.userA, { status: 'closed' });
    expect(a.tickets).toHaveLength(23);
    expect(a.count).toBe(23);
    expect(a.hasMore).toBe(false);
    expect(ids(a)).toEqual(newestFirst(rows.filter((r) => r.queueId === t.queueA.id)));
  });

  test('the search tab without a term lists every status, also paged', async () => {
    const p1 = await get(t.admin, { status: 'search' });
    expect(ids(p1)).toEqual(newestFirst(rows).slice(0, 40));
    expect(p1.hasMore).toBe(true);
    const p2 = await get(t.admin, { status: 'search', pageNumber: 2 });
    expect(ids(p2)).toEqual(newestFirst(rows).slice(40));
  });

  test('counts hold only active tickets', async () => {
    expect((await get(t.admin, { status: 'closed', showAll: true })).counts).toEqual({ open: 0, pending: 0, group: 0 });
  });
});

describe('filters', () => {
  let t: Tenant;
  const f: Record<string, TicketRow> = {};
  let t1: { id: number; name: string; color: string };
  let t2: { id: number; name: string; color: string };
  let conn2Id: number;

  beforeAll(async () => {
    t = await createTenant(k);
    conn2Id = t.conn2.id;
    t1 = await createTag(k, t.companyId, { name: 'Alpha tag', kanban: 1 });
    t2 = await createTag(k, t.companyId, { name: 'Beta tag', kanban: 1 });
    const c = async () => (await createContact(k, t.companyId)).id;
    f.f1 = await insertTicket(k, t.companyId, { contactId: await c(), whatsappId: t.conn.id, queueId: t.queueA.id, status: 'pending', unreadMessages: 2, updatedAt: new Date('2026-01-10T15:00:00Z') });
    // 02:30 UTC on the 11th is still the 10th in São Paulo
    f.f2 = await insertTicket(k, t.companyId, { contactId: await c(), whatsappId: conn2Id, queueId: t.queueA.id, status: 'pending', updatedAt: new Date('2026-01-11T02:30:00Z') });
    f.f3 = await insertTicket(k, t.companyId, { contactId: await c(), whatsappId: t.conn.id, queueId: t.queueB.id, userId: t.userB.id, status: 'open', unreadMessages: 1, updatedAt: new Date('2026-01-11T15:00:00Z') });
    f.f4 = await insertTicket(k, t.companyId, { contactId: await c(), whatsappId: conn2Id, queueId: t.queueA.id, userId: t.userA.id, status: 'open', updatedAt: new Date('2026-01-12T12:00:00Z') });
    f.f5 = await insertTicket(k, t.companyId, { contactId: await c(), whatsappId: t.conn.id, queueId: t.queueA.id, userId: t.userB.id, status: 'closed', updatedAt: new Date('2026-01-09T12:00:00Z') });
    f.f6 = await insertTicket(k, t.companyId, { contactId: t.group.id, whatsappId: t.conn.id, queueId: null, status: 'group', isGroup: true, unreadMessages: 3, updatedAt: new Date('2026-01-12T13:00:00Z') });
    await k.db('ticketTags').insert([
      { ticketId: f.f1.id, tagId: t1.id, companyId: t.companyId },
      { ticketId: f.f1.id, tagId: t2.id, companyId: t.companyId },
      { ticketId: f.f2.id, tagId: t1.id, companyId: t.companyId },
      { ticketId: f.f5.id, tagId: t2.id, companyId: t.companyId },
    ]);
  });

  const names = (a: Answer) => a.tickets.map((x) => Object.entries(f).find(([, r]) => r.id === x.id)?.[0] ?? `?${x.id}`);
  const admin = (q: Query) => get(t.admin, { status: 'search', showAll: true, ...q });

  test('withUnreadMessages', async () => {
    expect(names(await admin({ withUnreadMessages: true }))).toEqual(['f6', 'f3', 'f1']);
    expect(names(await get(t.admin, { status: 'pending', withUnreadMessages: 'true' }))).toEqual(['f1']);
    expect(names(await admin({ withUnreadMessages: false }))).toEqual(['f6', 'f4', 'f3', 'f2', 'f1', 'f5']);
  });

  test('tags: a ticket must carry every tag given; tickets carry their tags', async () => {
    expect(names(await admin({ tags: [t1.id] }))).toEqual(['f2', 'f1']);
    expect(names(await admin({ tags: [t2.id] }))).toEqual(['f1', 'f5']);
    expect(names(await admin({ tags: [t1.id, t2.id] }))).toEqual(['f1']);
    const a = await admin({ tags: [t1.id, t2.id] });
    expect(a.tickets[0].tags).toEqual([
      { id: t1.id, name: 'Alpha tag', color: t1.color },
      { id: t2.id, name: 'Beta tag', color: t2.color },
    ]);
    expect(names(await admin({ tags: [999999] }))).toEqual([]);
  });

  test('users: an admin filter; ignored for plain users', async () => {
    expect(names(await admin({ users: [t.userB.id] }))).toEqual(['f3', 'f5']);
    expect(names(await admin({ users: [t.userA.id, t.userB.id] }))).toEqual(['f4', 'f3', 'f5']);
    const plain = names(await get(t.userA, { status: 'search' }));
    expect(plain).toEqual(['f4', 'f2', 'f1', 'f5']);
    expect(names(await get(t.userA, { status: 'search', users: [t.userB.id] }))).toEqual(plain);
  });

  test('whatsapps / whatsappIds: connections', async () => {
    expect(names(await admin({ whatsapps: [conn2Id] }))).toEqual(['f4', 'f2']);
    expect(names(await admin({ whatsappIds: [conn2Id] }))).toEqual(['f4', 'f2']);
    expect(names(await get(t.admin, `status=search&showAll=true&whatsapps=${conn2Id}&whatsapps=${t.conn.id}`))).toEqual(['f6', 'f4', 'f3', 'f2', 'f1', 'f5']);
  });

  test('date, updatedAt, dateStart, dateEnd: days of São Paulo on updatedAt', async () => {
    expect(names(await admin({ date: '2026-01-10' }))).toEqual(['f2', 'f1']);
    expect(names(await admin({ updatedAt: '2026-01-12' }))).toEqual(['f6', 'f4']);
    expect(names(await admin({ dateStart: '2026-01-11' }))).toEqual(['f6', 'f4', 'f3']);
    expect(names(await admin({ dateStart: '2026-01-10', dateEnd: '2026-01-11' }))).toEqual(['f3', 'f2', 'f1']);
    expect(names(await admin({ dateEnd: '2026-01-09' }))).toEqual(['f5']);
    expect(names(await admin({ dateStart: '2026-01-12', dateEnd: '2026-01-11' }))).toEqual([]);
  });

  test('statuses: statusFilter on the search tab; no status = active tickets', async () => {
    expect(names(await admin({ statusFilter: ['open', 'closed'] }))).toEqual(['f4', 'f3', 'f5']);
    expect(names(await admin({ statusFilter: ['group'] }))).toEqual(['f6']);
    expect(names(await get(t.admin, { showAll: true }))).toEqual(['f6', 'f4', 'f3', 'f2', 'f1']);
    expect(names(await get(t.admin, { status: 'closed' }))).toEqual(['f5']);
    expect(names(await get(t.admin, { status: 'group' }))).toEqual(['f6']);
  });

  test('counts apply the filters (not the tab)', async () => {
    expect((await admin({})).counts).toEqual({ open: 2, pending: 2, group: 1 });
    expect((await admin({ withUnreadMessages: true })).counts).toEqual({ open: 1, pending: 1, group: 1 });
    expect((await admin({ whatsapps: [conn2Id] })).counts).toEqual({ open: 1, pending: 1, group: 0 });
    expect((await get(t.admin, { status: 'pending' })).counts).toEqual({ open: 0, pending: 2, group: 1 });
    expect((await get(t.userA, { status: 'pending' })).counts).toEqual({ open: 1, pending: 2, group: 0 });
  });

  test('combined filters narrow together', async () => {
    expect(names(await admin({ tags: [t1.id], whatsapps: [t.conn.id], withUnreadMessages: true, date: '2026-01-10' }))).toEqual(['f1']);
    expect(names(await admin({ tags: [t1.id], whatsapps: [conn2Id], withUnreadMessages: true }))).toEqual([]);
  });
});

describe('search', () => {
  let t: Tenant;
  const s: Record<string, TicketRow> = {};
  beforeAll(async () => {
    t = await createTenant(k);
    const maria = await createContact(k, t.companyId, { name: 'Maria Silva', number: '5511987650001' });
    const joao = await createContact(k, t.companyId, { name: 'João Pereira', number: '5511912340002' });
    const mariana = await createContact(k, t.companyId, { name: 'Mariana Costa', number: '5511955550003' });
    const carlos = await createContact(k, t.companyId, { name: 'Carlos Lima', number: '5511944440004' });
    const at = (d: number) => new Date(Date.UTC(2026, 3, d, 12));
    s.s1 = await insertTicket(k, t.companyId, { contactId: maria.id, whatsappId: t.conn.id, queueId: t.queueA.id, status: 'pending', updatedAt: at(4) });
    s.s2 = await insertTicket(k, t.companyId, { contactId: joao.id, whatsappId: t.conn.id, queueId: t.queueB.id, status: 'closed', updatedAt: at(1) });
    s.s3 = await insertTicket(k, t.companyId, { contactId: mariana.id, whatsappId: t.conn.id, queueId: t.queueA.id, userId: t.userA.id, status: 'open', updatedAt: at(3) });
    s.s4 = await insertTicket(k, t.companyId, { contactId: carlos.id, whatsappId: t.conn.id, queueId: t.queueB.id, status: 'pending', updatedAt: at(2) });
    await insertMessage(k, t.companyId, { ticketId: s.s1.id, contactId: maria.id, body: 'Olá, preciso do BOLETO atualizado' });
    await insertMessage(k, t.companyId, { ticketId: s.s2.id, contactId: joao.id, body: 'O pagamento de 100% foi feito' });
    await insertMessage(k, t.companyId, { ticketId: s.s3.id, contactId: mariana.id, body: 'bom dia' });
    await insertMessage(k, t.companyId, { ticketId: s.s4.id, fromMe: true, body: 'Segue a segunda via do boleto' });
    // another company's ticket with the same words never shows up
    const o = await createTenant(k);
    const om = await createContact(k, o.companyId, { name: 'Maria Outra', number: '5511987650009' });
    const ot = await insertTicket(k, o.companyId, { contactId: om.id, whatsappId: o.conn.id, queueId: o.queueA.id, status: 'pending' });
    await insertMessage(k, o.companyId, { ticketId: ot.id, body: 'boleto pagamento 100%' });
  });

  const names = (a: Answer) => a.tickets.map((x) => Object.entries(s).find(([, r]) => r.id === x.id)?.[0] ?? `?${x.id}`);
  const find = (user: { token: string }, searchParam: string, q: Query = {}) => get(user, { status: 'search', showAll: true, searchParam, ...q });

  test('by contact name, case-insensitive contains', async () => {
    expect(names(await find(t.admin, 'maria'))).toEqual(['s1', 's3']);
    expect(names(await find(t.admin, 'MARIA SILVA'))).toEqual(['s1']);
    expect(names(await find(t.admin, '  joão '))).toEqual(['s2']);
  });

  test('by contact number digits (typed with or without formatting)', async () => {
    expect(names(await find(t.admin, '98765'))).toEqual(['s1']);
    expect(names(await find(t.admin, '(11) 98765-0001'))).toEqual(['s1']);
    expect(names(await find(t.admin, '+55 11 9'))).toEqual(['s1', 's3', 's4', 's2']);
  });

  test('by message body (case-insensitive), newest activity first; LIKE wildcards are literal', async () => {
    expect(names(await find(t.admin, 'boleto'))).toEqual(['s1', 's4']);
    expect(names(await find(t.admin, 'SEGUNDA VIA'))).toEqual(['s4']);
    expect(names(await find(t.admin, '100%'))).toEqual(['s2']);
    expect(names(await find(t.admin, '_0%'))).toEqual([]);
    expect(names(await find(t.admin, 'nothing like this'))).toEqual([]);
  });

  test('terms under 3 characters match contacts only (not bodies)', async () => {
    expect(names(await find(t.admin, 'bo'))).toEqual([]);
    expect(names(await find(t.admin, 'ca'))).toEqual(['s4']);
    expect(names(await find(t.admin, 'an'))).toEqual(['s3']);
    expect(names(await find(t.admin, '%'))).toEqual([]);
  });

  test('statusFilter and the tabs narrow a search', async () => {
    expect(names(await find(t.admin, 'boleto', { statusFilter: ['closed'] }))).toEqual([]);
    expect(names(await find(t.admin, 'pagamento', { statusFilter: ['closed'] }))).toEqual(['s2']);
    expect(names(await get(t.admin, { status: 'open', showAll: true, searchParam: 'mariana' }))).toEqual(['s3']);
    expect(names(await get(t.admin, { status: 'pending', searchParam: 'maria' }))).toEqual(['s1']);
  });

  test('a search shows only what the caller sees', async () => {
    expect(names(await find(t.userA, 'boleto'))).toEqual(['s1']);
    expect(names(await find(t.userA, 'pagamento'))).toEqual([]);
    expect(names(await find(t.userB, 'boleto'))).toEqual(['s4']);
  });

  test('count is a lower bound for searches (exact when one page holds all)', async () => {
    const a = await find(t.admin, 'boleto');
    expect(a.count).toBe(2);
    expect(a.hasMore).toBe(false);
    expect(a.counts).toEqual({ open: 1, pending: 2, group: 0 });
  });
});

describe('search plan steps', () => {
  let t: Tenant;
  let rows: TicketRow[];
  let service: TicketListService;
  let small: TicketListService;
  let sqls: string[];

  beforeAll(async () => {
    t = await createTenant(k);
    const contact = await createContact(k, t.companyId, { name: 'Plan Contact' });
    rows = [];
    for (let i = 0; i < 50; i++) {
      // closed tickets may share a contact; ticket i is older than ticket i+1
      const row = await insertTicket(k, t.companyId, { contactId: contact.id, whatsappId: t.conn.id, queueId: t.queueA.id, status: 'closed', updatedAt: new Date(Date.UTC(2026, 4, 1) + i * 60_000) });
      rows.push(row);
      await insertMessage(k, t.companyId, { ticketId: row.id, body: i % 2 === 0 ? `pedido número ${i}` : `mensagem ${i}` });
      if (i === 3) await insertMessage(k, t.companyId, { ticketId: row.id, body: 'uma palavra raríssima' });
    }
    const deps = ticketsDeps(k);
    service = new TicketListService(deps);
    small = new TicketListService(deps, { recentWindow: 5, messageMatchCap: 3 });
    sqls = [];
    k.db.on('query', (q: { sql: string }) => sqls.push(q.sql));
  });

  const ask = (svc: TicketListService, searchParam: string, pageNumber = 1) => svc.list(t.admin, { status: 'search', showAll: true, searchParam, pageNumber });
  const even = () => [...rows].reverse().filter((_, i) => i % 2 === 1).map((r) => r.id); // newest first: 49 (odd), 48 (even), ...

  test('a common word fills page 1 from the newest tickets (step 1)', async () => {
    sqls.length = 0;
    const a = await ask(service, 'pedido');
    expect(a.tickets.map((x) => x.id)).toEqual(even());
    expect(a.hasMore).toBe(false);
    expect(sqls.some((q) => q.includes('array_agg'))).toBe(false);
  });

  test('a rare word outside the window comes from the trigram index (step 2), exact', async () => {
    sqls.length = 0;
    const a = await ask(small, 'raríssima');
    expect(a.tickets.map((x) => x.id)).toEqual([rows[3].id]);
    expect(sqls.some((q) => q.includes('array_agg'))).toBe(true);
    expect((await ask(service, 'raríssima')).tickets.map((x) => x.id)).toEqual([rows[3].id]);
  });

  test('more matches than the cap: the full walk (step 3) gives the same answer as step 1', async () => {
    sqls.length = 0;
    const a = await ask(small, 'pedido');
    expect(a.tickets.map((x) => x.id)).toEqual(even());
    expect(sqls.filter((q) => q.includes('LEFT JOIN LATERAL')).length).toBe(2);
  });

  test('no match anywhere: empty, through every step', async () => {
    expect((await ask(small, 'inexistente')).tickets).toEqual([]);
    expect((await ask(service, 'inexistente')).tickets).toEqual([]);
  });

  test('paging a search: 41+ matches give hasMore and a second page', async () => {
    const a = await ask(service, 'número');
    expect(a.tickets).toHaveLength(25);
    const b = await ask(service, 'mensagem');
    expect(b.tickets).toHaveLength(25);
    const all = await ask(service, 'plan contact');
    expect(all.tickets.map((x) => x.id)).toEqual([...rows].reverse().slice(0, 40).map((r) => r.id));
    expect(all.hasMore).toBe(true);
    expect(all.count).toBe(41);
    const p2 = await ask(service, 'plan contact', 2);
    expect(p2.tickets.map((x) => x.id)).toEqual([...rows].reverse().slice(40).map((r) => r.id));
    expect(p2.hasMore).toBe(false);
    expect(p2.count).toBe(50);
    const smallP2 = await ask(small, 'plan contact', 2);
    expect(smallP2.tickets.map((x) => x.id)).toEqual(p2.tickets.map((x) => x.id));
  });
});

describe('GET /ticket/kanban', () => {
  let t: Tenant;
  let lane: { id: number; name: string; color: string };
  const r: Record<string, TicketRow> = {};
  let userAB: TestUser;

  beforeAll(async () => {
    t = await createTenant(k);
    lane = await createTag(k, t.companyId, { name: 'Lane 1', kanban: 1 });
    userAB = await createAgent(k, t.companyId, { queueIds: [t.queueA.id, t.queueB.id] });
    const c = async () => (await createContact(k, t.companyId)).id;
    const at = (m: number) => new Date(Date.UTC(2026, 5, 1, 15) + m * 60_000); // noon in São Paulo
    r.pendA = await insertTicket(k, t.companyId, { contactId: await c(), whatsappId: t.conn.id, queueId: t.queueA.id, status: 'pending', updatedAt: at(1) });
    r.openB = await insertTicket(k, t.companyId, { contactId: await c(), whatsappId: t.conn.id, queueId: t.queueB.id, userId: t.userB.id, status: 'open', updatedAt: at(2) });
    r.openA = await insertTicket(k, t.companyId, { contactId: await c(), whatsappId: t.conn.id, queueId: t.queueA.id, userId: t.userA.id, status: 'open', updatedAt: at(3) });
    r.closedA = await insertTicket(k, t.companyId, { contactId: await c(), whatsappId: t.conn.id, queueId: t.queueA.id, status: 'closed', updatedAt: at(4) });
    r.group = await insertTicket(k, t.companyId, { contactId: t.group.id, whatsappId: t.conn.id, queueId: t.queueA.id, status: 'group', isGroup: true, updatedAt: at(5) });
    await k.db('ticketTags').insert({ ticketId: r.openA.id, tagId: lane.id, companyId: t.companyId });
  });

  const names = (a: Answer) => a.tickets.map((x) => Object.entries(r).find(([, row]) => row.id === x.id)?.[0] ?? `?${x.id}`);

  test('pending and open tickets only, newest first, with their tags; no counts', async () => {
    const a = await get(t.admin, { queueIds: [t.queueA.id, t.queueB.id], teste: true }, '/ticket/kanban');
    expect(names(a)).toEqual(['openA', 'openB', 'pendA']);
    expect(a.tickets[0].tags).toEqual([{ id: lane.id, name: 'Lane 1', color: lane.color }]);
    expect(a.tickets[0].contact).toMatchObject({ id: r.openA.contactId });
    expect(a.count).toBe(3);
    expect(a.hasMore).toBe(false);
    expect(a).not.toHaveProperty('counts');
  });

  test('scoped by the queue ids given and by visibility', async () => {
    expect(names(await get(t.admin, { queueIds: [t.queueB.id] }, '/ticket/kanban'))).toEqual(['openB']);
    expect(names(await get(t.userA, { queueIds: [t.queueA.id] }, '/ticket/kanban'))).toEqual(['openA', 'pendA']);
    expect(names(await get(t.userA, { queueIds: [t.queueB.id] }, '/ticket/kanban'))).toEqual(['openA']);
    expect(names(await get(t.userA, {}, '/ticket/kanban'))).toEqual(['openA', 'pendA']);
    expect(names(await get(userAB, {}, '/ticket/kanban'))).toEqual(['openA', 'openB', 'pendA']);
  });

  test('filters: tags, users (admins), searchParam, days', async () => {
    expect(names(await get(t.admin, { tags: [lane.id] }, '/ticket/kanban'))).toEqual(['openA']);
    expect(names(await get(t.admin, { users: [t.userB.id], showAll: true }, '/ticket/kanban'))).toEqual(['openB']);
    expect(names(await get(t.admin, { dateStart: '2026-06-02' }, '/ticket/kanban'))).toEqual([]);
    expect(names(await get(t.admin, { dateStart: '2026-06-01', dateEnd: '2026-06-01' }, '/ticket/kanban'))).toEqual(['openA', 'openB', 'pendA']);
    const contact = await k.db('contacts').where({ id: r.openB.contactId }).first('name');
    expect(names(await get(t.admin, { searchParam: contact.name }, '/ticket/kanban'))).toEqual(['openB']);
  });

  test('lane: 0 = tickets with no kanban tag (plain tags do not count), a tag id = that lane; each lane counted on its own', async () => {
    const plain = await createTag(k, t.companyId, { name: 'Plain', kanban: 0 });
    const other = await createTag(k, t.companyId, { name: 'Lane 2', kanban: 1 });
    await k.db('ticketTags').insert({ ticketId: r.pendA.id, tagId: plain.id, companyId: t.companyId });
    try {
      const def = await get(t.admin, { lane: 0 }, '/ticket/kanban');
      expect(names(def)).toEqual(['openB', 'pendA']);
      expect(def.count).toBe(2);
      const l1 = await get(t.admin, { lane: lane.id }, '/ticket/kanban');
      expect(names(l1)).toEqual(['openA']);
      expect(l1.count).toBe(1);
      expect(names(await get(t.admin, { lane: other.id }, '/ticket/kanban'))).toEqual([]);
      // visibility and the other filters still apply inside a lane
      expect(names(await get(t.userA, { lane: 0 }, '/ticket/kanban'))).toEqual(['pendA']);
      expect(names(await get(t.admin, { lane: 0, queueIds: [t.queueB.id] }, '/ticket/kanban'))).toEqual(['openB']);
      // another company's kanban tags are not this company's lanes
      const o = await createTenant(k);
      const foreign = await createTag(k, o.companyId, { name: 'Foreign lane', kanban: 1 });
      expect(names(await get(t.admin, { lane: foreign.id }, '/ticket/kanban'))).toEqual([]);
      expect(names(await get(t.admin, { lane: 0 }, '/ticket/kanban'))).toEqual(['openB', 'pendA']);
      for (const bad of ['lane=-1', 'lane=x', 'lane=1.5']) {
        const res = await k.as(t.admin, 'GET', `/ticket/kanban?${bad}`);
        expect([bad, res.statusCode, res.json().error]).toEqual([bad, 400, 'ERR_VALIDATION']);
      }
    } finally {
      await k.db('ticketTags').where({ ticketId: r.pendA.id, tagId: plain.id }).del();
      await k.db('tags').whereIn('id', [plain.id, other.id]).del();
    }
  });

  test('pages of 40: 41+ tickets give hasMore and a second page', async () => {
    const p = await createTenant(k);
    const contacts = await bulkContacts(k, p.companyId, 42, 'Kanban');
    for (const [i, c] of contacts.entries()) {
      await insertTicket(k, p.companyId, { contactId: c.id, whatsappId: p.conn.id, queueId: p.queueA.id, status: i % 2 ? 'open' : 'pending', userId: i % 2 ? p.userA.id : null, updatedAt: new Date(Date.UTC(2026, 5, 2) + i * 1000) });
    }
    const a = await get(p.admin, {}, '/ticket/kanban');
    expect(a.tickets).toHaveLength(40);
    expect(a.hasMore).toBe(true);
    expect(a.count).toBe(42);
    const b = await get(p.admin, { pageNumber: 2 }, '/ticket/kanban');
    expect(b.tickets).toHaveLength(2);
    expect(b.hasMore).toBe(false);
    expect(new Set([...ids(a), ...ids(b)]).size).toBe(42);
  });

  test('needs the plan feature useKanban (403 ERR_FEATURE_NOT_IN_PLAN); tenants stay apart', async () => {
    const { admin } = await k.createCompany({ without: ['useKanban'] });
    const r1 = await k.as(admin, 'GET', '/ticket/kanban');
    expect(r1.statusCode).toBe(403);
    expect(r1.json().error).toBe('ERR_FEATURE_NOT_IN_PLAN');
    const ok = await k.as(admin, 'GET', '/tickets');
    expect(ok.statusCode).toBe(200);
    const other = await createTenant(k);
    const seen = await get(other.admin, { queueIds: [t.queueA.id, t.queueB.id], showAll: true }, '/ticket/kanban');
    expect(seen.tickets).toEqual([]);
  });
});

describe('connections list cache', () => {
  test('connection names are cached for up to 5 s; clearCaches forgets them', async () => {
    const t = await createTenant(k);
    const conn = await createConnection(k, t.companyId, { name: 'Before' });
    await insertTicket(k, t.companyId, { contactId: t.contact.id, whatsappId: conn.id, queueId: t.queueA.id });
    const deps = ticketsDeps(k);
    const svc = new TicketListService(deps);
    const first = await svc.list(t.admin, { status: 'pending' });
    expect((first.tickets[0].whatsapp as { name: string }).name).toBe('Before');
    await k.db('whatsapps').where({ id: conn.id }).update({ name: 'After' });
    expect(((await svc.list(t.admin, { status: 'pending' })).tickets[0].whatsapp as { name: string }).name).toBe('Before');
    svc.clearCaches();
    expect(((await svc.list(t.admin, { status: 'pending' })).tickets[0].whatsapp as { name: string }).name).toBe('After');
  });
});

describe('viewer cache', () => {
  test("a user's queues are cached for up to 5 s: leaving a queue hides its tickets once the cache is gone", async () => {
    const t = await createTenant(k);
    await insertTicket(k, t.companyId, { contactId: t.contact.id, whatsappId: t.conn.id, queueId: t.queueA.id });
    const svc = new TicketListService(ticketsDeps(k));
    expect((await svc.list(t.userA, { status: 'pending' })).tickets).toHaveLength(1);
    await k.db('userQueues').where({ userId: t.userA.id }).del();
    expect((await svc.list(t.userA, { status: 'pending' })).tickets).toHaveLength(1);
    svc.clearCaches();
    expect((await svc.list(t.userA, { status: 'pending' })).tickets).toHaveLength(0);
  });
});

describe('building blocks', () => {
  test('resolveStatuses: tabs, search with and without statusFilter, no tab', () => {
    expect(resolveStatuses('open', ['closed'])).toEqual(['open']);
    expect(resolveStatuses('closed', undefined)).toEqual(['closed']);
    expect(resolveStatuses('search', undefined)).toBeUndefined();
    expect(resolveStatuses('search', ['open', 'open', 'closed'])).toEqual(['open', 'closed']);
    expect(resolveStatuses(undefined, undefined)).toEqual(['open', 'pending', 'group']);
    expect(resolveStatuses(undefined, ['closed'])).toEqual(['closed']);
  });

  test('likeEscape escapes the LIKE wildcards and the escape character', () => {
    expect(likeEscape('100%_a\\b')).toBe('100\\%\\_a\\\\b');
  });
});
