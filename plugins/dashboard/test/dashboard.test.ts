/**
 * The dashboard plugin on a real kernel: numbers equal to hand-computed values on a fixture of tickets
 * with known times and ratings (existing tickets reach the model through the backfill), the São Paulo
 * time-zone edge (23:30 local is the next day in UTC), live updates from the tickets plugin's events,
 * tenant isolation of every route, roles and validation codes.
 */
import { randomUUID } from 'node:crypto';
import { createTestKernel, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import type { PluginDefinition } from '@atendo/sdk';
import queuesPlugin from '@atendo/plugin-queues';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';
import connectionsPlugin from '@atendo/plugin-connections';
import ticketsPlugin from '@atendo/plugin-tickets';
import automationPlugin from '@atendo/plugin-automation';
import { RATING_RECORDED } from '@atendo/plugin-automation/contract';
import dashboardPlugin from '../src';

let k: TestKernel;
let seq = 0;

interface Tenant {
  companyId: number;
  admin: TestUser;
  u1: TestUser;
  u2: TestUser;
  q1: number;
  q2: number;
  conn: number;
  contacts: number[];
  tickets: Record<string, number>;
}

const at = (s: string) => new Date(s);

async function contact(companyId: number, name: string): Promise<number> {
  const [row] = await k.db('contacts').insert({ companyId, name, number: `5511${Date.now() % 1e7}${seq++}`, channel: 'whatsapp' }).returning('id');
  return row.id;
}

async function ticket(
  companyId: number,
  o: { contactId: number; conn: number; queueId: number | null; userId: number | null; status: string; created: string; accepted?: string; closed?: string; isGroup?: boolean; lastMessage?: string },
): Promise<number> {
  const [row] = await k.db('tickets')
    .insert({
      uuid: randomUUID(),
      companyId,
      contactId: o.contactId,
      whatsappId: o.conn,
      queueId: o.queueId,
      userId: o.userId,
      status: o.status,
      createdAt: at(o.created),
      acceptedAt: o.accepted ? at(o.accepted) : null,
      closedAt: o.closed ? at(o.closed) : null,
      updatedAt: at(o.closed ?? o.accepted ?? o.created),
      isGroup: o.isGroup ?? false,
      lastMessage: o.lastMessage ?? null,
    })
    .returning('id');
  return row.id;
}

/** A rating answered at `answered` (an ISO instant). */
async function rate(companyId: number, ticketId: number, contactId: number, userId: number | null, rate: number, answered: string): Promise<void> {
  await k.db('automationNpsRatings').insert({ companyId, ticketId, userId, contactId, rate, createdAt: at(answered) });
}

/** A company in São Paulo time (UTC-3) with two attendants, two queues and the fixture tickets (see the table in each test). */
async function tenant(timeZone = 'America/Sao_Paulo'): Promise<Tenant> {
  const { companyId, admin } = await k.createCompany();
  await k.db('companySettings').insert({ companyId, key: 'timeZone', value: timeZone }).onConflict(['companyId', 'key']).merge();
  k.identity.invalidateSettings(companyId);
  await k.db('users').where({ id: admin.id }).update({ name: 'Admin' });
  const u1 = await k.createUser(companyId, { name: 'Ana' });
  const u2 = await k.createUser(companyId, { name: 'Bruno' });
  const [q1] = await k.db('queues').insert({ companyId, name: `Vendas ${seq++}`, color: '#111111' }).returning('id');
  const [q2] = await k.db('queues').insert({ companyId, name: `Suporte ${seq++}`, color: '#222222' }).returning('id');
  const [conn] = await k.db('whatsapps').insert({ companyId, name: 'Main', channel: 'whatsapp', status: 'CONNECTED', number: '5511900000000', token: `tok${randomUUID()}` }).returning('id');
  const c = [] as number[];
  for (let i = 1; i <= 5; i++) c.push(await contact(companyId, `C${i}`));
  const base = { conn: conn.id };
  const t: Record<string, number> = {};
  // T1: Ana, Vendas, C1, 09:00 local Nov 2; wait 10, support 30; rated 10 (promoter).
  t.T1 = await ticket(companyId, { ...base, contactId: c[0], queueId: q1.id, userId: u1.id, status: 'closed', created: '2026-11-02T12:00:00Z', accepted: '2026-11-02T12:10:00Z', closed: '2026-11-02T12:40:00Z' });
  // T2: Ana, Vendas, C2, 10:00 local Nov 2; wait 20, support 60; rated 8 (passive).
  t.T2 = await ticket(companyId, { ...base, contactId: c[1], queueId: q1.id, userId: u1.id, status: 'closed', created: '2026-11-02T13:00:00Z', accepted: '2026-11-02T13:20:00Z', closed: '2026-11-02T14:20:00Z' });
  // T3: Bruno, Suporte, C1, 12:00 local Nov 3; wait 5, support 15; rated 3 (detractor).
  t.T3 = await ticket(companyId, { ...base, contactId: c[0], queueId: q2.id, userId: u2.id, status: 'closed', created: '2026-11-03T15:00:00Z', accepted: '2026-11-03T15:05:00Z', closed: '2026-11-03T15:20:00Z' });
  // T4: Bruno, Suporte, C3, 13:00 local Nov 3; wait 30; open.
  t.T4 = await ticket(companyId, { ...base, contactId: c[2], queueId: q2.id, userId: u2.id, status: 'open', created: '2026-11-03T16:00:00Z', accepted: '2026-11-03T16:30:00Z' });
  // T5: nobody, Vendas, C4, 2026-11-04T02:30Z = 23:30 local Nov 3 (the time-zone edge); pending.
  t.T5 = await ticket(companyId, { ...base, contactId: c[3], queueId: q1.id, userId: null, status: 'pending', created: '2026-11-04T02:30:00Z' });
  // T6: Ana, no queue, C2, 07:00 local Nov 5; wait 15, support 60; not rated.
  t.T6 = await ticket(companyId, { ...base, contactId: c[1], queueId: null, userId: u1.id, status: 'closed', created: '2026-11-05T10:00:00Z', accepted: '2026-11-05T10:15:00Z', closed: '2026-11-05T11:15:00Z' });
  // T7: Ana, Vendas, C5, 2026-11-01T02:30Z = 23:30 local Oct 31; wait 10, support 15 (closed 23:55 local Oct 31); rated 9.
  t.T7 = await ticket(companyId, { ...base, contactId: c[4], queueId: q1.id, userId: u1.id, status: 'closed', created: '2026-11-01T02:30:00Z', accepted: '2026-11-01T02:40:00Z', closed: '2026-11-01T02:55:00Z' });
  // Answered 5 minutes after the close: T7's at 2026-11-01T03:00Z, 00:00 local Nov 1 (the ticket is of Oct 31).
  await rate(companyId, t.T1, c[0], u1.id, 10, '2026-11-02T12:45:00Z');
  await rate(companyId, t.T2, c[1], u1.id, 8, '2026-11-02T14:25:00Z');
  await rate(companyId, t.T3, c[0], u2.id, 3, '2026-11-03T15:25:00Z');
  await rate(companyId, t.T7, c[4], u1.id, 9, '2026-11-01T03:00:00Z');
  return { companyId, admin, u1, u2, q1: q1.id, q2: q2.id, conn: conn.id, contacts: c, tickets: t };
}

let A: Tenant;
let B: Tenant;
const NOV = 'date_from=2026-11-01&date_to=2026-11-05';
const NOV_I = 'initialDate=2026-11-01&finalDate=2026-11-05';

beforeAll(async () => {
  k = await createTestKernel({ plugins: [queuesPlugin, tagsPlugin, contactsPlugin, connectionsPlugin, ticketsPlugin, automationPlugin, dashboardPlugin] as PluginDefinition[] });
  A = await tenant();
  B = await tenant();
  // B differs from A by one more pending ticket on Nov 4 local.
  B.tickets.T8 = await ticket(B.companyId, { conn: B.conn, contactId: B.contacts[4], queueId: B.q2, userId: null, status: 'pending', created: '2026-11-04T15:00:00Z' });
}, 60_000);

afterAll(async () => {
  await k?.close();
});

const get = async (u: TestUser, url: string) => {
  const res = await k.as(u, 'GET', url);
  return { status: res.statusCode, body: res.json() };
};

describe('GET /dashboard on the fixture', () => {
  it('answers the hand-computed counters and attendants', async () => {
    const { status, body } = await get(A.admin, `/dashboard?${NOV}`);
    expect(status).toBe(200);
    expect(body.counters).toEqual({
      avgSupportTime: 41.25, // (30 + 60 + 15 + 60) / 4
      avgWaitTime: 16, // (10 + 20 + 5 + 30 + 15) / 5
      supportHappening: 1,
      supportPending: 1,
      supportFinished: 4,
      leads: 4,
      tickets: 6,
      waitRating: 0,
      withoutRating: 1,
      withRating: 3,
      percRating: 75,
      npsPromotersPerc: 33.33,
      npsPassivePerc: 33.33,
      npsDetractorsPerc: 33.33,
      npsScore: 0,
    });
    expect(body.attendants).toEqual([
      { id: A.admin.id, name: 'Admin', online: false, avgWaitTime: null, avgSupportTime: null, tickets: 0, rating: null, countRating: 0 },
      { id: A.u1.id, name: 'Ana', online: false, avgWaitTime: 15, avgSupportTime: 50, tickets: 3, rating: 9, countRating: 2 },
      { id: A.u2.id, name: 'Bruno', online: false, avgWaitTime: 17.5, avgSupportTime: 15, tickets: 2, rating: 3, countRating: 1 },
    ]);
  });

  it('puts 23:30 local on its local day, not the UTC one', async () => {
    const oct31 = await get(A.admin, '/dashboard?date_from=2026-10-31&date_to=2026-10-31');
    expect(oct31.body.counters).toMatchObject({ tickets: 1, supportFinished: 1, avgWaitTime: 10, avgSupportTime: 15, npsPromotersPerc: 100, npsScore: 100 });
    const nov3 = await get(A.admin, '/dashboard?date_from=2026-11-03&date_to=2026-11-03');
    expect(nov3.body.counters).toMatchObject({ tickets: 3, supportPending: 1, supportHappening: 1, supportFinished: 1 });
    // In UTC the edge ticket is Nov 4: a company in UTC with the same tickets sees it there.
    const utc = await tenant('UTC');
    expect((await get(utc.admin, '/dashboard?date_from=2026-11-04&date_to=2026-11-04')).body.counters.tickets).toBe(1);
    expect((await get(utc.admin, '/dashboard?date_from=2026-11-03&date_to=2026-11-03')).body.counters.tickets).toBe(2);
    const hours = (await get(utc.admin, '/dashboard/total-atendimentos?initialDate=2026-11-04&finalDate=2026-11-04')).body.hours;
    expect(hours.filter((h: { total: number }) => h.total)).toEqual([{ horario: 2, total: 1 }]);
  });

  it('answers the chart routes', async () => {
    const days = await get(A.admin, `/dashboard/total-atendimentos?${NOV_I}`);
    expect(days.body.count).toBe(6);
    expect(days.body.data).toEqual([
      { data: '2026-11-01', total: 0 },
      { data: '2026-11-02', total: 2 },
      { data: '2026-11-03', total: 3 },
      { data: '2026-11-04', total: 0 },
      { data: '2026-11-05', total: 1 },
    ]);
    const hours = Object.fromEntries(days.body.hours.filter((h: { total: number }) => h.total).map((h: { horario: number; total: number }) => [h.horario, h.total]));
    expect(hours).toEqual({ 7: 1, 9: 1, 10: 1, 12: 1, 13: 1, 23: 1 });
    expect(days.body.hours).toHaveLength(24);

    const queues = await get(A.admin, `/dashboard/queues?${NOV_I}`);
    expect(queues.body.map((q: { queueId: number; quantidade: number; color: string }) => [q.queueId, q.quantidade, q.color])).toEqual([
      [A.q1, 3, '#111111'],
      [A.q2, 2, '#222222'],
      [0, 1, '#9e9e9e'],
    ]);
    const users = await get(A.admin, `/dashboard/ticketsUsers?${NOV_I}`);
    expect(users.body.data).toEqual([
      { userId: A.u1.id, nome: 'Ana', quantidade: 3 },
      { userId: A.u2.id, nome: 'Bruno', quantidade: 2 },
      { userId: 0, nome: '', quantidade: 1 },
    ]);
    expect((await get(A.admin, `/dashboard/user-info?${NOV_I}`)).body).toEqual([
      { userId: A.u1.id, name: 'Ana', quantidade: 3 },
      { userId: A.u2.id, name: 'Bruno', quantidade: 2 },
    ]);
    expect((await get(A.admin, `/dashboard/nps-info?${NOV_I}`)).body).toEqual([{ total_notas: 3, ruim: 1, media: 1, boa: 1 }]);
    // Closed Nov 1..5 local: T1, T2, T3, T6 (T7 closed 23:55 local Oct 31).
    const closed = await k.as(A.admin, 'GET', `/dashboard/atendimentos-encerrados?${NOV_I}`);
    expect(closed.body).toBe('4');
    expect((await k.as(A.admin, 'GET', '/dashboard/atendimentos-encerrados?initialDate=2026-10-31&finalDate=2026-10-31')).body).toBe('1');
  });

  it('answers the attendance and duration report with filters and pages', async () => {
    const all = await get(A.admin, `/ticket/reports?${NOV_I}`);
    expect(all.status).toBe(200);
    expect(all.body.count).toBe(6);
    expect(all.body.timeZone).toBe('America/Sao_Paulo');
    // Durations (creation to close) of the closed ones: 40, 80, 20, 75.
    expect(all.body.totals).toEqual({ tickets: 6, contacts: 4, avgWaitTime: 16, avgSupportTime: 41.25, avgDuration: 53.75 });
    expect(all.body.tickets.map((t: { id: number }) => t.id)).toEqual([A.tickets.T6, A.tickets.T5, A.tickets.T4, A.tickets.T3, A.tickets.T2, A.tickets.T1]);
    const t2 = all.body.tickets.find((t: { id: number }) => t.id === A.tickets.T2);
    expect(t2).toMatchObject({
      status: 'closed',
      isGroup: false,
      contact: { id: A.contacts[1], name: 'C2' },
      queue: { id: A.q1, color: '#111111' },
      user: { id: A.u1.id, name: 'Ana' },
      whatsapp: { id: A.conn, name: 'Main' },
      createdAt: '2026-11-02T13:00:00.000Z',
      updatedAt: '2026-11-02T14:20:00.000Z',
      waitTime: 20,
      supportTime: 60,
      duration: 80,
      rating: 8,
    });
    const open = all.body.tickets.find((t: { id: number }) => t.id === A.tickets.T4);
    expect(open).toMatchObject({ waitTime: 30, supportTime: null, duration: null, rating: null });

    const ana = await get(A.admin, `/ticket/reports?${NOV_I}&userIds=[${A.u1.id}]&status=closed`);
    expect(ana.body.tickets.map((t: { id: number }) => t.id)).toEqual([A.tickets.T6, A.tickets.T2, A.tickets.T1]);
    const noQueue = await get(A.admin, `/ticket/reports?${NOV_I}&queueIds=0`);
    expect(noQueue.body.tickets.map((t: { id: number }) => t.id)).toEqual([A.tickets.T6]);
    const q2 = await get(A.admin, `/ticket/reports?${NOV_I}&queueIds=${A.q2}&whatsappIds=${A.conn}`);
    expect(q2.body.count).toBe(2);
    const p2 = await get(A.admin, `/ticket/reports?${NOV_I}&pageSize=4&pageNumber=2`);
    expect(p2.body).toMatchObject({ count: 6, hasMore: false });
    expect(p2.body.tickets.map((t: { id: number }) => t.id)).toEqual([A.tickets.T2, A.tickets.T1]);
    expect((await get(A.admin, `/ticket/reports?${NOV_I}&pageSize=4`)).body.hasMore).toBe(true);
  });

  it('answers the group attendance report (isGroup=true): the group conversations only, with their last activity and message', async () => {
    // In company B, Nov 10..12 local (the other tests read Nov 1..5).
    const G = B;
    const RANGE = 'initialDate=2026-11-10&finalDate=2026-11-12';
    const group = async (name: string, number: string) =>
      (await k.db('contacts').insert({ companyId: G.companyId, name, number, isGroup: true, channel: 'whatsapp' }).returning('id'))[0].id as number;
    const g1 = await group('Grupo Vendas', `120363${Date.now() % 1e9}1`);
    const g2 = await group('Grupo Suporte', `120363${Date.now() % 1e9}2`);
    // GA: a group conversation without a ticket flow (status group), 10:00 local Nov 10, last message 11:00 local.
    const GA = await ticket(G.companyId, { conn: G.conn, contactId: g1, queueId: null, userId: null, status: 'group', created: '2026-11-10T13:00:00Z', isGroup: true, lastMessage: 'Bom dia, grupo' });
    await k.db('tickets').where({ id: GA }).update({ updatedAt: at('2026-11-10T14:00:00Z') });
    // GB: a group served as a ticket (groupAsTicket): Ana, Suporte, wait 10, support 20, 09:00 local Nov 11.
    const GB = await ticket(G.companyId, { conn: G.conn, contactId: g2, queueId: G.q2, userId: G.u1.id, status: 'closed', created: '2026-11-11T12:00:00Z', accepted: '2026-11-11T12:10:00Z', closed: '2026-11-11T12:30:00Z', isGroup: true });
    // GC: the first group's earlier ticket, Nov 9 local: outside the range.
    await ticket(G.companyId, { conn: G.conn, contactId: g1, queueId: null, userId: null, status: 'closed', created: '2026-11-09T13:00:00Z', closed: '2026-11-09T14:00:00Z', isGroup: true });
    // P: a 1:1 conversation of the range (the attendance report's).
    const P = await ticket(G.companyId, { conn: G.conn, contactId: G.contacts[0], queueId: G.q1, userId: G.u2.id, status: 'closed', created: '2026-11-12T12:00:00Z', accepted: '2026-11-12T12:05:00Z', closed: '2026-11-12T12:15:00Z' });

    const groups = await get(G.admin, `/ticket/reports?${RANGE}&isGroup=true`);
    expect(groups.status).toBe(200);
    expect(groups.body.tickets.map((t: { id: number }) => t.id)).toEqual([GB, GA]);
    expect(groups.body.totals).toEqual({ tickets: 2, contacts: 2, avgWaitTime: 10, avgSupportTime: 20, avgDuration: 30 });
    expect(groups.body.tickets[1]).toMatchObject({
      id: GA,
      status: 'group',
      isGroup: true,
      contact: { id: g1, name: 'Grupo Vendas' },
      user: null,
      queue: null,
      whatsapp: { id: G.conn, name: 'Main' },
      createdAt: '2026-11-10T13:00:00.000Z',
      updatedAt: '2026-11-10T14:00:00.000Z',
      lastMessage: 'Bom dia, grupo',
      waitTime: null,
      duration: null,
    });
    expect(groups.body.tickets[0]).toMatchObject({ id: GB, isGroup: true, user: { id: G.u1.id, name: 'Ana' }, queue: { id: G.q2 }, waitTime: 10, supportTime: 20, duration: 30 });
    // The other filters hold within the groups; the attendance report (isGroup=false) is the 1:1 conversations.
    expect((await get(G.admin, `/ticket/reports?${RANGE}&isGroup=true&status=group`)).body.tickets.map((t: { id: number }) => t.id)).toEqual([GA]);
    expect((await get(G.admin, `/ticket/reports?${RANGE}&isGroup=true&userIds=${G.u1.id}`)).body.count).toBe(1);
    const people = await get(G.admin, `/ticket/reports?${RANGE}&isGroup=false`);
    expect(people.body.tickets.map((t: { id: number; isGroup: boolean }) => [t.id, t.isGroup])).toEqual([[P, false]]);
    expect((await get(G.admin, `/ticket/reports?${RANGE}`)).body.count).toBe(3);
    expect((await get(G.admin, `/ticket/reports?${RANGE}&isGroup=maybe`)).body.error).toBe('ERR_VALIDATION');
    // Another company has no group conversation: none of B's.
    expect((await get(A.admin, `/ticket/reports?${RANGE}&isGroup=true`)).body).toMatchObject({ count: 0, tickets: [], totals: { tickets: 0, contacts: 0, avgWaitTime: null } });
    expect((await get(A.admin, `/ticket/reports?${NOV_I}&isGroup=true`)).body.count).toBe(0);
  });

  it("answers the research report: the customers' NPS answers by the day they answered, filters, pages and totals", async () => {
    const all = await get(A.admin, `/ticket/reports/research?${NOV_I}`);
    expect(all.status).toBe(200);
    // T7's ticket is of Oct 31 local, its answer of Nov 1 local: in the range (the dashboard's NPS counts it on Oct 31).
    expect(all.body.answers.map((a: { ticketId: number; rate: number; npsClass: string }) => [a.ticketId, a.rate, a.npsClass])).toEqual([
      [A.tickets.T3, 3, 'detractor'],
      [A.tickets.T2, 8, 'passive'],
      [A.tickets.T1, 10, 'promoter'],
      [A.tickets.T7, 9, 'promoter'],
    ]);
    expect(all.body).toMatchObject({ count: 4, hasMore: false, timeZone: 'America/Sao_Paulo' });
    expect(all.body.totals).toEqual({ answers: 4, average: 7.5, promoters: 2, passives: 1, detractors: 1, promotersPerc: 50, passivesPerc: 25, detractorsPerc: 25, npsScore: 25 });
    expect(all.body.answers[0]).toEqual({
      ticketId: A.tickets.T3,
      uuid: expect.any(String),
      rate: 3,
      npsClass: 'detractor',
      ratedAt: '2026-11-03T15:25:00.000Z',
      createdAt: '2026-11-03T15:00:00.000Z',
      closedAt: '2026-11-03T15:20:00.000Z',
      contact: { id: A.contacts[0], name: 'C1', number: expect.any(String) },
      queue: { id: A.q2, name: expect.any(String), color: '#222222' },
      user: { id: A.u2.id, name: 'Bruno' },
      whatsapp: { id: A.conn, name: 'Main' },
    });
    const ids = async (query: string) => (await get(A.admin, `/ticket/reports/research?${NOV_I}&${query}`)).body.answers.map((a: { ticketId: number }) => a.ticketId);
    expect(await ids(`userIds=${A.u2.id}`)).toEqual([A.tickets.T3]);
    expect(await ids(`queueIds=[${A.q1}]`)).toEqual([A.tickets.T2, A.tickets.T1, A.tickets.T7]);
    expect(await ids('npsClass=promoter')).toEqual([A.tickets.T1, A.tickets.T7]);
    expect(await ids('npsClass=["passive","detractor"]')).toEqual([A.tickets.T3, A.tickets.T2]);
    const promoters = (await get(A.admin, `/ticket/reports/research?${NOV_I}&npsClass=promoter`)).body.totals;
    expect(promoters).toMatchObject({ answers: 2, average: 9.5, promotersPerc: 100, npsScore: 100 });
    const p2 = (await get(A.admin, `/ticket/reports/research?${NOV_I}&pageSize=3&pageNumber=2`)).body;
    expect(p2).toMatchObject({ count: 4, hasMore: false });
    expect(p2.answers.map((a: { ticketId: number }) => a.ticketId)).toEqual([A.tickets.T7]);
    expect((await get(A.admin, `/ticket/reports/research?${NOV_I}&pageSize=3`)).body.hasMore).toBe(true);
    // Oct 31 local: T7 was created then, but answered the next day.
    expect((await get(A.admin, '/ticket/reports/research?initialDate=2026-10-31&finalDate=2026-10-31')).body.count).toBe(0);
    expect((await get(A.admin, '/ticket/reports/research?initialDate=2026-11-01&finalDate=2026-11-01')).body.answers.map((a: { ticketId: number }) => a.ticketId)).toEqual([A.tickets.T7]);
    expect((await get(A.admin, `/ticket/reports/research?${NOV_I}&npsClass=nope`)).body.error).toBe('ERR_DASHBOARD_FILTER');
    expect((await get(A.admin, `/ticket/reports/research?${NOV_I}&userIds=[x]`)).body.error).toBe('ERR_DASHBOARD_FILTER');
    expect((await get(A.admin, `/ticket/reports/research?${NOV_I}&pageSize=0`)).body.error).toBe('ERR_VALIDATION');
    expect((await get(A.admin, '/ticket/reports/research?initialDate=2026-11-05&finalDate=2026-11-01')).body.error).toBe('ERR_DASHBOARD_RANGE');
  });

  it('answers an empty research report for a company with no answer', async () => {
    const { admin } = await k.createCompany();
    expect((await get(admin, `/ticket/reports/research?${NOV_I}`)).body).toEqual({
      answers: [],
      count: 0,
      hasMore: false,
      totals: { answers: 0, average: null, promoters: 0, passives: 0, detractors: 0, promotersPerc: 0, passivesPerc: 0, detractorsPerc: 0, npsScore: 0 },
      timeZone: 'America/Sao_Paulo',
    });
  });

  it("answers the product family's report page as it sends and reads it (GridReport): status=[] is no filter; totalTickets.total and flat names", async () => {
    // Its call: every filter JSON-encoded, empty lists when nothing is chosen, dateFrom/dateTo, page, pageSize.
    const family = (extra: Record<string, string>) =>
      `/ticket/reports?${new URLSearchParams({ searchParam: '', whatsappId: '[]', users: '[]', queueIds: '[]', status: '[]', dateFrom: '2026-11-01', dateTo: '2026-11-05', page: '1', pageSize: '10', ...extra })}`;
    const all = await get(A.admin, family({}));
    expect(all.status).toBe(200);
    expect(all.body.totalTickets).toEqual({ total: 6 });
    expect(all.body.tickets).toHaveLength(6);
    const t2 = all.body.tickets.find((t: { id: number }) => t.id === A.tickets.T2);
    expect(t2).toMatchObject({ id: A.tickets.T2, uuid: expect.any(String), status: 'closed', whatsappName: 'Main', contactName: 'C2', userName: 'Ana', NPS: 8 });
    expect(typeof t2.queueName).toBe('string');
    const closedAna = await get(A.admin, family({ status: '["closed"]', users: `[${A.u1.id}]` }));
    expect(closedAna.body.totalTickets.total).toBe(3);
    expect(closedAna.body.tickets.map((t: { id: number }) => t.id)).toEqual([A.tickets.T6, A.tickets.T2, A.tickets.T1]);
    const second = await get(A.admin, family({ page: '2', pageSize: '4' }));
    expect(second.body.tickets.map((t: { id: number }) => t.id)).toEqual([A.tickets.T2, A.tickets.T1]);
    // Its dates decide the range (a day outside holds nothing).
    expect((await get(A.admin, family({ dateFrom: '2026-12-01', dateTo: '2026-12-02' }))).body.totalTickets.total).toBe(0);
  });

  it("answers /dashboard/queues as the family's ChartsQueue charts it: a bare array of {queue.name, quantidade}", async () => {
    const res = await get(A.admin, `/dashboard/queues?${NOV_I}`);
    expect(Array.isArray(res.body)).toBe(true);
    for (const item of res.body as { queueId: number; quantidade: number; queue: { id: number; name: string } | null }[]) {
      expect(typeof item.quantidade).toBe('number');
      if (item.queueId === 0) expect(item.queue).toBeNull();
      else expect(item.queue).toMatchObject({ id: item.queueId, name: expect.any(String) });
    }
    expect(res.body.find((x: { queueId: number }) => x.queueId === A.q1).queue.color).toBe('#111111');
  });
});

describe('validation and roles', () => {
  it('refuses bad ranges and filters with catalogue codes', async () => {
    expect((await get(A.admin, '/dashboard?date_from=2026-11-05&date_to=2026-11-01')).body.error).toBe('ERR_DASHBOARD_RANGE');
    expect((await get(A.admin, '/dashboard?date_from=2026-02-30')).body.error).toBe('ERR_DASHBOARD_RANGE');
    expect((await get(A.admin, '/dashboard?days=400')).body.error).toBe('ERR_DASHBOARD_RANGE');
    expect((await get(A.admin, '/dashboard?days=abc')).body.error).toBe('ERR_VALIDATION');
    expect((await get(A.admin, `/ticket/reports?${NOV_I}&queueIds=[x]`)).body.error).toBe('ERR_DASHBOARD_FILTER');
    expect((await get(A.admin, `/ticket/reports?${NOV_I}&status=nope`)).body.error).toBe('ERR_DASHBOARD_FILTER');
    expect((await get(A.admin, `/ticket/reports?${NOV_I}&pageSize=501`)).body.error).toBe('ERR_VALIDATION');
  });

  it('keeps the statistics to admins (the panel to every user)', async () => {
    for (const url of ['/dashboard', '/dashboard/total-atendimentos', '/dashboard/queues', '/dashboard/ticketsUsers', '/dashboard/user-info', '/dashboard/nps-info', '/dashboard/atendimentos-encerrados', '/ticket/reports', '/ticket/reports/research']) {
      const res = await get(A.u1, url);
      expect([url, res.status]).toEqual([url, 403]);
    }
    expect((await k.as(null, 'GET', '/dashboard')).statusCode).toBe(401);
    expect((await get(A.u1, '/dashboard/moments')).status).toBe(200);
  });

  it('answers days and the current month', async () => {
    const month = await get(A.admin, '/dashboard');
    expect(month.status).toBe(200);
    expect((await get(A.admin, '/dashboard/total-atendimentos?days=7')).body.data).toHaveLength(7);
  });
});

describe('tenant isolation', () => {
  it('answers every route with the caller company only', async () => {
    const a = await get(A.admin, `/dashboard?${NOV}`);
    const b = await get(B.admin, `/dashboard?${NOV}`);
    expect(a.body.counters.tickets).toBe(6);
    expect(b.body.counters.tickets).toBe(7);
    expect(b.body.counters.supportPending).toBe(2);
    expect(b.body.attendants.map((u: { id: number }) => u.id).sort()).toEqual([B.admin.id, B.u1.id, B.u2.id].sort());
    expect((await get(B.admin, `/dashboard/total-atendimentos?${NOV_I}`)).body.data[3]).toEqual({ data: '2026-11-04', total: 1 });
    expect((await get(A.admin, `/dashboard/total-atendimentos?${NOV_I}`)).body.data[3]).toEqual({ data: '2026-11-04', total: 0 });
    const bq = (await get(B.admin, `/dashboard/queues?${NOV_I}`)).body.map((q: { queueId: number }) => q.queueId);
    expect(bq).not.toContain(A.q1);
    expect(bq).toContain(B.q2);
    const bu = (await get(B.admin, `/dashboard/ticketsUsers?${NOV_I}`)).body.data.map((u: { userId: number }) => u.userId);
    expect(bu).not.toContain(A.u1.id);
    expect((await get(B.admin, `/dashboard/user-info?${NOV_I}`)).body.map((u: { userId: number }) => u.userId)).not.toContain(A.u1.id);
    expect((await get(B.admin, `/dashboard/nps-info?${NOV_I}`)).body).toEqual([{ total_notas: 3, ruim: 1, media: 1, boa: 1 }]);
    expect((await k.as(B.admin, 'GET', `/dashboard/atendimentos-encerrados?${NOV_I}`)).body).toBe('4');
    const br = (await get(B.admin, `/ticket/reports?${NOV_I}&pageSize=500`)).body;
    expect(br.count).toBe(7);
    const aIds = new Set(Object.values(A.tickets));
    expect(br.tickets.filter((t: { id: number }) => aIds.has(t.id))).toEqual([]);
    // Another company's ids as filters match nothing.
    expect((await get(B.admin, `/ticket/reports?${NOV_I}&userIds=${A.u1.id}`)).body.count).toBe(0);
    const research = (await get(B.admin, `/ticket/reports/research?${NOV_I}&pageSize=500`)).body;
    expect(research.count).toBe(4);
    expect(research.answers.map((a: { ticketId: number }) => a.ticketId).sort()).toEqual([B.tickets.T1, B.tickets.T2, B.tickets.T3, B.tickets.T7].sort());
    expect((await get(B.admin, `/ticket/reports/research?${NOV_I}&userIds=${A.u1.id}`)).body.count).toBe(0);
    expect((await get(B.admin, `/ticket/reports/research?${NOV_I}&queueIds=${A.q1}`)).body.count).toBe(0);
    const bm = (await get(B.admin, '/dashboard/moments?showAll=true&dateStart=2026-11-01&dateEnd=2026-11-05')).body;
    expect(bm.map((t: { id: number }) => t.id).sort()).toEqual([B.tickets.T4, B.tickets.T5, B.tickets.T8].sort());
  });
});

describe('GET /dashboard/moments', () => {
  it("filters by the viewer's queues plus the no-queue pseudo queue; admins may show all", async () => {
    const range = 'dateStart=2026-11-01&dateEnd=2026-11-05';
    // Ana serves Vendas only: T5 (pending in Vendas); T4 is in Suporte.
    await k.db('userQueues').insert({ userId: A.u1.id, queueId: A.q1, companyId: A.companyId });
    const ana = (await get(A.u1, `/dashboard/moments?${range}`)).body;
    expect(ana.map((t: { id: number }) => t.id)).toEqual([A.tickets.T5]);
    expect(ana[0]).toMatchObject({ status: 'pending', user: null, queue: { id: A.q1 }, contact: { id: A.contacts[3], name: 'C4' }, whatsapp: { id: A.conn, name: 'Main' } });
    // showAll is for admins; a user asking for it keeps their queues.
    expect((await get(A.u1, `/dashboard/moments?${range}&showAll=true`)).body.map((t: { id: number }) => t.id)).toEqual([A.tickets.T5]);
    const all = (await get(A.admin, `/dashboard/moments?${range}&showAll=true`)).body;
    expect(all.map((t: { id: number }) => t.id).sort()).toEqual([A.tickets.T4, A.tickets.T5].sort());
    const open = (await get(A.admin, `/dashboard/moments?${range}&showAll=true&status=open`)).body;
    expect(open.map((t: { id: number; user: { name: string } }) => [t.id, t.user.name])).toEqual([[A.tickets.T4, 'Bruno']]);
    // Without a range: the 30-day window of activity (the fixture is older than that only if today is after Dec 5 2026).
    expect((await get(A.admin, '/dashboard/moments?showAll=true&queueIds=[0]')).status).toBe(200);
  });
});

describe('live updates from the tickets plugin', () => {
  it('counts a ticket opened, accepted and closed through the API, and its rating', async () => {
    const before = (await get(A.admin, '/dashboard?days=1')).body.counters;
    const contactId = await contact(A.companyId, 'Live');
    const created = await k.as(A.admin, 'POST', '/tickets', { contactId, whatsappId: A.conn, queueId: A.q1, status: 'pending' });
    expect(created.statusCode).toBe(200);
    const id = created.json().id as number;
    const status = created.json().status as string;
    const countOf = (c: Record<string, number>) => (status === 'open' ? c.supportHappening : c.supportPending);
    await waitFor(async () => {
      const c = (await get(A.admin, '/dashboard?days=1')).body.counters;
      if (c.tickets !== before.tickets + 1 || countOf(c) !== countOf(before) + 1) return false;
      return true;
    });
    if (status !== 'open') {
      expect((await k.as(A.admin, 'PUT', `/tickets/${id}`, { status: 'open', userId: A.u2.id })).statusCode).toBe(200);
      await waitFor(async () => {
        const c = (await get(A.admin, '/dashboard?days=1')).body.counters;
        if (c.supportHappening !== before.supportHappening + 1) return false;
        return true;
      });
    }
    // A message becomes the panel's last message of the ticket.
    const sent = await k.as(A.admin, 'POST', `/messages/${id}`, { body: 'Olá, tudo certo?' });
    expect(sent.statusCode).toBe(200);
    await waitFor(async () => {
      const list = (await get(A.admin, '/dashboard/moments?showAll=true')).body as { id: number; lastMessage: string | null }[];
      // (The company signs attendants' messages: `*Admin:*\n...`.)
      return Boolean(list.find((t) => t.id === id)?.lastMessage?.endsWith('Olá, tudo certo?'));
    });
    expect((await k.as(A.admin, 'PUT', `/tickets/${id}`, { status: 'closed' })).statusCode).toBe(200);
    const closed = await waitFor(async () => {
      const c = (await get(A.admin, '/dashboard?days=1')).body.counters;
      if (c.supportFinished !== before.supportFinished + 1) return false;
      return c;
    });
    expect(closed.supportPending).toBe(before.supportPending);
    expect(closed.supportHappening).toBe(before.supportHappening);
    expect(closed.withoutRating).toBe(before.withoutRating + 1);
    await k.bus.publish(RATING_RECORDED, { companyId: A.companyId, ticketId: id, userId: A.u2.id, queueId: A.q1, rate: 10 });
    const rated = await waitFor(async () => {
      const c = (await get(A.admin, '/dashboard?days=1')).body.counters;
      if (c.withRating !== before.withRating + 1) return false;
      return c;
    });
    expect(rated.withoutRating).toBe(before.withoutRating);
    // The research report has the answer, today (the company's day).
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(new Date());
    const research = (await get(A.admin, `/ticket/reports/research?initialDate=${today}&finalDate=${today}`)).body;
    expect(research.answers.find((a: { ticketId: number }) => a.ticketId === id)).toMatchObject({ rate: 10, npsClass: 'promoter', queue: { id: A.q1 } });
    // B never sees it.
    expect((await get(B.admin, '/dashboard?days=1')).body.counters.tickets).toBe(0);
  });
});

describe('ticket.updated with the fields it changed', () => {
  it("skips the re-read when none is the model's (a bot's flags) and re-reads when one is", async () => {
    const contactId = await contact(A.companyId, 'Campos');
    const created = await k.as(A.admin, 'POST', '/tickets', { contactId, whatsappId: A.conn, queueId: A.q1, status: 'pending' });
    const id = created.json().id as number;
    const status = created.json().status as string;
    const modelOf = () => k.db('dashboardTickets').where({ ticketId: id }).first();
    await waitFor(async () => (await modelOf())?.status === status);
    // The row changes behind the events' back; only an event that names a model field makes it re-read.
    await k.db('tickets').where({ id }).update({ queueId: A.q2, isBot: true, updatedAt: new Date(Date.now() + 1000) });
    const event = (fields: string[]) => ({ companyId: A.companyId, ticketId: id, status, queueId: A.q2, userId: created.json().userId ?? null, fields });
    await k.bus.publish('ticket.updated', event(['isBot', 'amountUsedBotQueues', 'lastMessage', 'fromMe']));
    await new Promise((r) => setTimeout(r, 600));
    expect(await modelOf()).toMatchObject({ queueId: A.q1 });
    await k.bus.publish('ticket.updated', event(['queueId']));
    await waitFor(async () => (await modelOf())?.queueId === A.q2);
  });
});

describe('refreshes arriving together', () => {
  it('share one read of the tickets and one upsert (a new ticket\'s created and changed events, several tickets at once)', async () => {
    const ids: number[] = [];
    for (const name of ['Lote 1', 'Lote 2', 'Lote 3']) {
      const contactId = await contact(A.companyId, name);
      ids.push((await k.as(A.admin, 'POST', '/tickets', { contactId, whatsappId: A.conn, queueId: A.q1, status: 'pending' })).json().id as number);
    }
    const models = () => k.db('dashboardTickets').whereIn('ticketId', ids).orderBy('ticketId');
    await waitFor(async () => (await models()).length === 3);
    await k.db('tickets').whereIn('id', ids).update({ queueId: A.q2, updatedAt: new Date(Date.now() + 1000) });
    const reads: string[] = [];
    const onQuery = (q: { sql: string }) => {
      if (/^select \* from "tickets" where "company_id" = \$1 and "id" in/.test(q.sql)) reads.push(q.sql);
    };
    k.db.on('query', onQuery);
    try {
      await Promise.all(
        ids.flatMap((id) => {
          const e = { companyId: A.companyId, ticketId: id, status: 'pending', queueId: A.q2, userId: null };
          return [
            k.bus.publish('ticket.updated', { ...e, fields: ['queueId'] }),
            k.bus.publish('ticket.changed', { ...e, contactId: 0, connectionId: A.conn, before: { status: 'pending', queueId: A.q1, userId: null }, after: { status: 'pending', queueId: A.q2, userId: null }, changed: ['queueId'], by: { kind: 'system', reason: 'test' } }),
          ];
        }),
      );
      await waitFor(async () => (await models()).every((m: { queueId: number }) => m.queueId === A.q2));
    } finally {
      k.db.off('query', onQuery);
    }
    // Six events, three tickets: one read (two when the broker spreads the deliveries past the linger).
    expect(reads.length).toBeLessThanOrEqual(2);
  });
});

describe('per-day rollups', () => {
  /** The company's non-empty rollup rows, per table, in a stable order. */
  async function rollupRows(companyId: number): Promise<Record<string, string[]>> {
    const out: Record<string, string[]> = {};
    for (const t of ['dashboard_day_users', 'dashboard_day_queues', 'dashboard_day_hours', 'dashboard_day_closed']) {
      const res = (await k.db.raw(`SELECT (to_jsonb(x) - 'company_id')::text AS r FROM ${t} x WHERE company_id = ? AND tickets <> 0`, [companyId])) as { rows: { r: string }[] };
      out[t] = res.rows.map((x) => x.r).sort();
    }
    return out;
  }

  it('kept by the trigger through creates, accepts, transfers, closes, ratings and deletions, equal a rebuild from the rows', async () => {
    const contactId = await contact(A.companyId, 'Rollup');
    const created = await k.as(A.admin, 'POST', '/tickets', { contactId, whatsappId: A.conn, queueId: A.q1, status: 'pending' });
    expect(created.statusCode).toBe(200);
    const id = created.json().id as number;
    expect((await k.as(A.admin, 'PUT', `/tickets/${id}`, { status: 'open', userId: A.u1.id, queueId: A.q2 })).statusCode).toBe(200);
    expect((await k.as(A.admin, 'PUT', `/tickets/${id}`, { status: 'closed' })).statusCode).toBe(200);
    await k.bus.publish(RATING_RECORDED, { companyId: A.companyId, ticketId: id, userId: A.u1.id, queueId: A.q2, rate: 4 });
    const other = await k.as(A.admin, 'POST', '/tickets', { contactId: await contact(A.companyId, 'Gone'), whatsappId: A.conn, queueId: A.q1, status: 'pending' });
    const goneId = other.json().id as number;
    await waitFor(async () => (await k.db('dashboardTickets').where({ ticketId: goneId }).first()) !== undefined);
    expect((await k.as(A.admin, 'DELETE', `/tickets/${goneId}`)).statusCode).toBe(200);
    await waitFor(async () => {
      const [row, gone] = await Promise.all([k.db('dashboardTickets').where({ ticketId: id }).first(), k.db('dashboardTickets').where({ ticketId: goneId }).first()]);
      return row?.rating === 4 && row?.status === 'closed' && !gone;
    }, 10_000);
    // Today's figures (from the rollups) count the closed, rated, transferred ticket and not the deleted one.
    const today = (await get(A.admin, '/dashboard/queues?days=1')).body as { queueId: number; quantidade: number }[];
    expect(today.find((q) => q.queueId === A.q2)?.quantidade).toBeGreaterThanOrEqual(1);
    const kept = await rollupRows(A.companyId);
    expect(kept.dashboard_day_users.length).toBeGreaterThan(0);
    expect(kept.dashboard_day_closed.length).toBeGreaterThan(0);
    // Forgetting the rollups' zone makes the next range rebuild them from the rows: the same rows.
    await k.db('dashboardZones').where({ companyId: A.companyId }).del();
    expect((await get(A.admin, '/dashboard?date_from=2020-01-01&date_to=2020-01-02')).body.counters.tickets).toBe(0);
    expect(await k.db('dashboardZones').where({ companyId: A.companyId }).first()).toMatchObject({ timeZone: 'America/Sao_Paulo' });
    expect(await rollupRows(A.companyId)).toEqual(kept);
  });

  it('count every ticket of the model once', async () => {
    await get(A.admin, '/dashboard?date_from=2020-02-01&date_to=2020-02-02');
    const users = await k.db('dashboardDayUsers').where({ companyId: A.companyId }).sum({ n: 'tickets' }).first();
    const rows = await k.db('dashboardTickets').where({ companyId: A.companyId }).count({ n: '*' }).first();
    expect(Number(users?.n)).toBe(Number(rows?.n));
  });
});
