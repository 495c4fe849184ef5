/**
 * The visibility rule of spec 2-tickets.md §6 on GET /tickets and on live `company-{id}-ticket` events:
 * admins (and super users) see every ticket of their company; a user sees tickets of their queues, tickets
 * without a queue and tickets assigned to them; allTicket users see all; group tickets only with allowGroup
 * (or admin / allTicket); showAll is ignored for plain users; queueIds never widens; another company sees
 * nothing. Plus lgpdHideNumber masking on lists.
 */
import type { Socket } from 'socket.io-client';
import { collectEvents, type TestKernel, type TestUser } from '@atendo/testing';
import { contactsService } from '@atendo/plugin-contacts/contract';
import { emitTicketUpdate } from '../src/services/core';
import type { TicketRow } from '../src/model';
import { createAgent, createContact, createTenant, insertTicket, setCompanySetting, ticketsDeps, ticketsKernel, type Tenant } from './helpers';

jest.setTimeout(60000);

let k: TestKernel;
let t: Tenant;
let other: Tenant;
let superUser: TestUser;
let allUser: TestUser;
let groupUser: TestUser;
let noQueueUser: TestUser;
/** The tickets of company A, by kind. */
const tk: Record<string, TicketRow> = {};

const KINDS = ['queueA', 'queueB', 'noQueue', 'queueBMine', 'queueBOther', 'adminOpen', 'groupA', 'groupNoQueue', 'closedA', 'closedB'] as const;
type Kind = (typeof KINDS)[number];

type Query = Record<string, string | number | boolean | unknown[]>;
function qs(params: Query): string {
  return Object.entries(params)
    .map(([key, v]) => `${key}=${encodeURIComponent(Array.isArray(v) ? JSON.stringify(v) : String(v))}`)
    .join('&');
}

async function list(user: { token: string }, params: Query = {}): Promise<{ tickets: { id: number; contact: { number: string } }[]; count: number; hasMore: boolean; counts: Record<string, number> }> {
  const r = await k.as(user, 'GET', `/tickets?${qs(params)}`);
  expect(r.statusCode).toBe(200);
  return r.json();
}

/** The kinds a list answer holds (sorted), failing on tickets that are not fixtures. */
async function kinds(user: { token: string }, params: Query = { status: 'search' }): Promise<Kind[]> {
  const body = await list(user, params);
  const byId = new Map(Object.entries(tk).map(([kind, row]) => [row.id, kind as Kind]));
  return body.tickets.map((x) => {
    const kind = byId.get(x.id);
    if (!kind) throw new Error(`unexpected ticket ${x.id}`);
    return kind;
  }).sort();
}

const sorted = (xs: Kind[]) => [...xs].sort();

beforeAll(async () => {
  k = await ticketsKernel();
  t = await createTenant(k);
  other = await createTenant(k);
  superUser = await k.createUser(t.companyId, { profile: 'user', super: true });
  allUser = await createAgent(k, t.companyId, { queueIds: [t.queueA.id], allTicket: 'enable' });
  groupUser = await createAgent(k, t.companyId, { queueIds: [t.queueA.id], allowGroup: true });
  noQueueUser = await createAgent(k, t.companyId, { queueIds: [] });
  const c = async () => (await createContact(k, t.companyId)).id;
  const g = async () => (await createContact(k, t.companyId, { isGroup: true, number: `120363${Date.now()}${Math.floor(Math.random() * 1e4)}` })).id;
  const base = Date.UTC(2026, 0, 1);
  let n = 0;
  const at = () => new Date(base + n++ * 60_000);
  const w = t.conn.id;
  tk.queueA = await insertTicket(k, t.companyId, { contactId: await c(), whatsappId: w, queueId: t.queueA.id, status: 'pending', updatedAt: at() });
  tk.queueB = await insertTicket(k, t.companyId, { contactId: await c(), whatsappId: w, queueId: t.queueB.id, status: 'pending', updatedAt: at() });
  tk.noQueue = await insertTicket(k, t.companyId, { contactId: await c(), whatsappId: w, queueId: null, status: 'pending', updatedAt: at() });
  tk.queueBMine = await insertTicket(k, t.companyId, { contactId: await c(), whatsappId: w, queueId: t.queueB.id, userId: t.userA.id, status: 'open', updatedAt: at() });
  tk.queueBOther = await insertTicket(k, t.companyId, { contactId: await c(), whatsappId: w, queueId: t.queueB.id, userId: t.userB.id, status: 'open', updatedAt: at() });
  tk.adminOpen = await insertTicket(k, t.companyId, { contactId: await c(), whatsappId: w, queueId: t.queueA.id, userId: t.admin.id, status: 'open', updatedAt: at() });
  tk.groupA = await insertTicket(k, t.companyId, { contactId: await g(), whatsappId: w, queueId: t.queueA.id, status: 'group', isGroup: true, updatedAt: at() });
  tk.groupNoQueue = await insertTicket(k, t.companyId, { contactId: await g(), whatsappId: w, queueId: null, status: 'group', isGroup: true, updatedAt: at() });
  tk.closedA = await insertTicket(k, t.companyId, { contactId: await c(), whatsappId: w, queueId: t.queueA.id, userId: t.userB.id, status: 'closed', updatedAt: at() });
  tk.closedB = await insertTicket(k, t.companyId, { contactId: await c(), whatsappId: w, queueId: t.queueB.id, userId: t.userB.id, status: 'closed', updatedAt: at() });
  // Company B has tickets too (they must never show up in A's lists, and A's never in B's).
  await insertTicket(k, other.companyId, { contactId: other.contact.id, whatsappId: other.conn.id, queueId: other.queueA.id, status: 'pending' });
});

afterAll(async () => {
  await k?.close();
});

const ALL: Kind[] = [...KINDS];
const USER_A: Kind[] = ['queueA', 'noQueue', 'queueBMine', 'adminOpen', 'closedA'];
/** Queue A like userA (but queueBMine is assigned to userA, not to them) plus every group ticket. */
const GROUP_USER: Kind[] = ['queueA', 'noQueue', 'adminOpen', 'closedA', 'groupA', 'groupNoQueue'];

describe('GET /tickets visibility (spec §6)', () => {
  test('admin sees every ticket of the company, super users too', async () => {
    expect(await kinds(t.admin)).toEqual(sorted(ALL));
    expect(await kinds(superUser)).toEqual(sorted(ALL));
  });

  test('a user sees their queues, tickets without a queue and tickets assigned to them; no groups', async () => {
    expect(await kinds(t.userA)).toEqual(sorted(USER_A));
    // closedA sits in queue A but is assigned to userB
    expect(await kinds(t.userB)).toEqual(sorted(['queueB', 'noQueue', 'queueBMine', 'queueBOther', 'closedA', 'closedB']));
    expect(await kinds(noQueueUser)).toEqual(['noQueue']);
  });

  test('allTicket users see everything, groups included', async () => {
    expect(await kinds(allUser)).toEqual(sorted(ALL));
  });

  test('allowGroup adds the group tickets, nothing else', async () => {
    expect(await kinds(groupUser)).toEqual(sorted([...GROUP_USER]));
    expect(await kinds(groupUser, { status: 'group' })).toEqual(['groupA', 'groupNoQueue']);
    expect(await kinds(t.userA, { status: 'group' })).toEqual([]);
    expect(await kinds(t.admin, { status: 'group' })).toEqual(['groupA', 'groupNoQueue']);
  });

  test('showAll is ignored for plain users (every tab)', async () => {
    expect(await kinds(t.userA, { status: 'search', showAll: true })).toEqual(sorted(USER_A));
    expect(await kinds(t.userA, { status: 'open', showAll: true })).toEqual(['queueBMine']);
    expect(await kinds(t.userA, { status: 'pending', showAll: true })).toEqual(['noQueue', 'queueA']);
    expect(await kinds(t.userA, { status: 'closed', showAll: true })).toEqual(['closedA']);
  });

  test('the open tab: own tickets unless show-all is permitted (admin, allTicket)', async () => {
    expect(await kinds(t.userA, { status: 'open' })).toEqual(['queueBMine']);
    expect(await kinds(t.admin, { status: 'open' })).toEqual(['adminOpen']);
    expect(await kinds(t.admin, { status: 'open', showAll: true })).toEqual(['adminOpen', 'queueBMine', 'queueBOther']);
    expect(await kinds(allUser, { status: 'open' })).toEqual([]);
    expect(await kinds(allUser, { status: 'open', showAll: 'true' })).toEqual(['adminOpen', 'queueBMine', 'queueBOther']);
  });

  test('queueIds never widens a user’s visibility', async () => {
    // queue B is not userA's: only the always-visible part remains (no queue, assigned to userA)
    expect(await kinds(t.userA, { status: 'search', queueIds: [t.queueB.id] })).toEqual(['noQueue', 'queueBMine']);
    expect(await kinds(t.userA, { status: 'search', queueIds: [t.queueA.id, t.queueB.id], showAll: true })).toEqual(sorted(USER_A));
    expect(await kinds(t.userA, { status: 'pending', queueIds: [t.queueB.id] })).toEqual(['noQueue']);
    // an admin without show-all narrows to the given queues (plus no queue and own tickets)
    expect(await kinds(t.admin, { status: 'search', queueIds: [t.queueB.id] })).toEqual(sorted(['queueB', 'noQueue', 'queueBMine', 'queueBOther', 'adminOpen', 'groupNoQueue', 'closedB']));
    expect(await kinds(t.admin, { status: 'search', queueIds: [t.queueB.id], showAll: true })).toEqual(sorted(ALL));
    // 0 is the "no queue" pseudo-queue of the product family's clients
    expect(await kinds(t.userA, { status: 'search', queueIds: [0] })).toEqual(['noQueue', 'queueBMine']);
    expect(await kinds(t.admin, { status: 'search', queueIds: [0] })).toEqual(sorted(['noQueue', 'groupNoQueue', 'adminOpen']));
  });

  test('a company B user never sees company A tickets, whatever the parameters', async () => {
    const a = t;
    const paramsList: Query[] = [
      {},
      { status: 'search', showAll: true },
      { status: 'search', queueIds: [a.queueA.id, a.queueB.id], showAll: true },
      { status: 'open', showAll: true, users: [a.userA.id, a.admin.id] },
      { status: 'pending', whatsapps: [a.conn.id], showAll: true },
      { status: 'search', searchParam: 'Contact', statusFilter: ['open', 'pending', 'closed', 'group'] },
      { status: 'closed', showAll: true, queueIds: [a.queueA.id] },
      { status: 'group', showAll: true },
    ];
    const aIds = new Set(Object.values(tk).map((x) => x.id));
    for (const user of [other.admin, other.userA]) {
      for (const params of paramsList) {
        const body = await list(user, params);
        expect(body.tickets.filter((x) => aIds.has(x.id))).toEqual([]);
        expect(body.tickets.every((x) => (x as unknown as { companyId: number }).companyId === other.companyId)).toBe(true);
      }
    }
    const b = await list(other.admin, { status: 'pending', showAll: true });
    expect(b.tickets).toHaveLength(1);
    expect(b.counts).toEqual({ open: 0, pending: 1, group: 0 });
  });

  test('the tab counts follow the same rule', async () => {
    expect((await list(t.admin, { showAll: true })).counts).toEqual({ open: 3, pending: 3, group: 2 });
    expect((await list(t.admin, {})).counts).toEqual({ open: 1, pending: 3, group: 2 });
    expect((await list(t.userA, { showAll: true })).counts).toEqual({ open: 1, pending: 2, group: 0 });
    expect((await list(groupUser, {})).counts).toEqual({ open: 0, pending: 2, group: 2 });
    expect((await list(noQueueUser, {})).counts).toEqual({ open: 0, pending: 1, group: 0 });
  });
});

describe('lgpdHideNumber on lists', () => {
  test('profile user gets masked numbers, admins the real ones; groups are never masked', async () => {
    const m = await createTenant(k);
    const group = await insertTicket(k, m.companyId, { contactId: m.group.id, whatsappId: m.conn.id, queueId: null, status: 'group', isGroup: true });
    const single = await insertTicket(k, m.companyId, { contactId: m.contact.id, whatsappId: m.conn.id, queueId: m.queueA.id, status: 'pending' });
    const groupViewer = await createAgent(k, m.companyId, { queueIds: [m.queueA.id], allowGroup: true });
    await setCompanySetting(k, m.companyId, 'lgpdHideNumber', 'enabled');
    const numberOf = (body: Awaited<ReturnType<typeof list>>, id: number) => body.tickets.find((x) => x.id === id)?.contact.number;

    const asUser = await list(groupViewer, { status: 'search' });
    expect(numberOf(asUser, single.id)).toBe(k.services.get(contactsService).maskNumber(m.contact.number, false));
    expect(numberOf(asUser, single.id)).not.toBe(m.contact.number);
    expect(numberOf(asUser, group.id)).toBe(m.group.number);
    const asAdmin = await list(m.admin, { status: 'search' });
    expect(numberOf(asAdmin, single.id)).toBe(m.contact.number);
    expect(numberOf(asAdmin, group.id)).toBe(m.group.number);

    // disabled (another company): nobody is masked
    const plain = await list(t.userA, { status: 'pending' });
    const row = plain.tickets.find((x) => x.id === tk.queueA.id)!;
    const stored = await k.db('contacts').where({ id: tk.queueA.contactId }).first('number');
    expect(row.contact.number).toBe(stored.number);
  });
});

describe('live ticket events follow the same rule', () => {
  let base: string;
  const sockets: Record<string, Socket> = {};

  beforeAll(async () => {
    base = await k.listen();
    const viewers: Record<string, { token: string }> = {
      admin: t.admin,
      super: superUser,
      userA: t.userA,
      userB: t.userB,
      all: allUser,
      group: groupUser,
      noQueue: noQueueUser,
      otherAdmin: other.admin,
      otherUser: other.userA,
    };
    for (const [name, u] of Object.entries(viewers)) sockets[name] = await k.socket(u.token, base);
  });

  afterAll(() => {
    for (const s of Object.values(sockets)) s.close();
  });

  /** Emits an update of `ticket` (optionally moved from `previous`) and answers who received it. */
  async function receivers(ticket: TicketRow, previous?: Pick<TicketRow, 'isGroup' | 'queueId' | 'userId'>): Promise<string[]> {
    const event = `company-${t.companyId}-ticket`;
    const pending = Object.entries(sockets).map(async ([name, s]) => {
      const got = await collectEvents<{ action: string; ticket: { id: number } }>(s, event, 700);
      return got.some((e) => e.action === 'update' && e.ticket.id === ticket.id) ? name : undefined;
    });
    await new Promise((r) => setTimeout(r, 50));
    await emitTicketUpdate(ticketsDeps(k), ticket, previous);
    return (await Promise.all(pending)).filter((x): x is string => x !== undefined).sort();
  }

  const SEE_ALL = ['admin', 'all', 'super'];

  test.each([
    ['queueA', [...SEE_ALL, 'group', 'userA']],
    ['queueB', [...SEE_ALL, 'userB']],
    ['noQueue', [...SEE_ALL, 'group', 'noQueue', 'userA', 'userB']],
    ['queueBMine', [...SEE_ALL, 'userA', 'userB']],
    ['queueBOther', [...SEE_ALL, 'userB']],
    ['adminOpen', [...SEE_ALL, 'group', 'userA']],
    ['groupA', [...SEE_ALL, 'group']],
    ['groupNoQueue', [...SEE_ALL, 'group']],
    ['closedA', [...SEE_ALL, 'group', 'userA', 'userB']],
    ['closedB', [...SEE_ALL, 'userB']],
  ] as [Kind, string[]][])('a %s ticket reaches exactly %j', async (kind, expected) => {
    expect(await receivers(tk[kind])).toEqual([...expected].sort());
  });

  test('a ticket moved between queues reaches the viewers of both queues (so lists can drop it)', async () => {
    const moved = { ...tk.queueA, queueId: t.queueB.id };
    expect(await receivers(moved, tk.queueA)).toEqual([...SEE_ALL, 'group', 'userA', 'userB'].sort());
  });

  test("a user's queues changed by an admin: the open socket follows at once (new queue in, old queue out), no reconnect", async () => {
    const mover = await createAgent(k, t.companyId, { queueIds: [t.queueA.id], name: 'Mover' });
    const s = await k.socket(mover.token, base);
    try {
      const event = `company-${t.companyId}-ticket`;
      const gets = async (ticket: TicketRow) => {
        const got = collectEvents<{ action: string; ticket: { id: number } }>(s, event, 700);
        await new Promise((r) => setTimeout(r, 50));
        await emitTicketUpdate(ticketsDeps(k), ticket);
        return (await got).some((e) => e.action === 'update' && e.ticket.id === ticket.id);
      };
      expect([await gets(tk.queueA), await gets(tk.queueB)]).toEqual([true, false]);
      const id = s.id;
      expect((await k.as(t.admin, 'PUT', `/users/${mover.id}`, { queueIds: [t.queueB.id] })).statusCode).toBe(200);
      let seen: boolean[] = [];
      for (let i = 0; i < 20; i++) {
        seen = [await gets(tk.queueA), await gets(tk.queueB)];
        if (!seen[0] && seen[1]) break;
      }
      expect(seen).toEqual([false, true]);
      expect(s.id).toBe(id); // the same connection
    } finally {
      s.close();
    }
  });

  test('for every viewer, the tickets its socket receives are exactly the tickets its list shows', async () => {
    const users: Record<string, { token: string }> = { admin: t.admin, super: superUser, userA: t.userA, userB: t.userB, all: allUser, group: groupUser, noQueue: noQueueUser, otherAdmin: other.admin, otherUser: other.userA };
    const event = `company-${t.companyId}-ticket`;
    const received = Object.entries(sockets).map(async ([name, s]) => {
      const got = await collectEvents<{ action: string; ticket: { id: number } }>(s, event, 3000);
      return [name, [...new Set(got.filter((e) => e.action === 'update').map((e) => e.ticket.id))].sort((a, b) => a - b)] as const;
    });
    await new Promise((r) => setTimeout(r, 50));
    const deps = ticketsDeps(k);
    for (const kind of KINDS) await emitTicketUpdate(deps, tk[kind]);
    const live = new Map(await Promise.all(received));
    const fixtureIds = new Set(Object.values(tk).map((x) => x.id));
    for (const [name, u] of Object.entries(users)) {
      const listed = (await list(u, { status: 'search' })).tickets.map((x) => x.id).filter((id) => fixtureIds.has(id)).sort((a, b) => a - b);
      expect({ name, ids: live.get(name) }).toEqual({ name, ids: listed });
    }
    expect(live.get('otherAdmin')).toEqual([]);
  });
});
