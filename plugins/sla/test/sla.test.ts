/**
 * The SLA plugin on a real kernel (tickets pipeline, queues, dashboard): due times computed from the tickets
 * plugin's events across a closed business hour; a breach found by the `sla.check` job and notified to the
 * queue's supervisor only (not to its attendants, not to admins of a supervised queue, not to another company);
 * the first response, close, reopen and transfer; the dashboard's share per queue and attendant; roles,
 * validation, visibility and tenant isolation of every route.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { createTestKernel, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import type { PluginDefinition } from '@atendo/sdk';
import queuesPlugin from '@atendo/plugin-queues';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';
import connectionsPlugin from '@atendo/plugin-connections';
import ticketsPlugin from '@atendo/plugin-tickets';
import dashboardPlugin from '@atendo/plugin-dashboard';
import { ticketsService, type TicketsService } from '@atendo/plugin-tickets/contract';
import type { QueueSchedule } from '@atendo/plugin-queues/contract';
import slaPlugin from '../src';
import { slaService, type SlaSocketEvent, type SlaTicket } from '../src/contract';

let k: TestKernel;
let tickets: TicketsService;
let base: string;
let seq = 0;
const MIN = 60_000;
const uniq = () => `${Date.now().toString(36)}${seq++}${randomBytes(2).toString('hex')}`;

interface Tenant {
  companyId: number;
  admin: TestUser;
  conn: number;
}

async function tenant(timeZone?: string): Promise<Tenant> {
  const { companyId, admin } = await k.createCompany();
  if (timeZone) {
    await k.db('companySettings').insert({ companyId, key: 'timeZone', value: timeZone }).onConflict(['companyId', 'key']).merge();
    k.identity.invalidateSettings(companyId);
  }
  const [conn] = await k.db('whatsapps').insert({ companyId, name: `Conn ${uniq()}`, channel: 'whatsapp', status: 'CONNECTED', number: '5511900000000', token: `tok${uniq()}` }).returning('id');
  return { companyId, admin, conn: conn.id };
}

async function queue(companyId: number, schedules: QueueSchedule[] = []): Promise<number> {
  const [row] = await k.db('queues').insert({ companyId, name: `Q ${uniq()}`, color: `#${randomBytes(3).toString('hex')}`, schedules: JSON.stringify(schedules) }).returning('id');
  return row.id;
}

async function user(companyId: number, profile: 'admin' | 'user' | 'supervisor', queueIds: number[]): Promise<TestUser> {
  const u = await k.createUser(companyId, { profile, name: `${profile} ${uniq()}` });
  if (queueIds.length) await k.db('userQueues').insert(queueIds.map((queueId) => ({ userId: u.id, queueId, companyId })));
  return u;
}

async function contact(companyId: number): Promise<number> {
  const [row] = await k.db('contacts').insert({ companyId, name: `C ${uniq()}`, number: `55119${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}${seq++ % 10}`, channel: 'whatsapp' }).returning('id');
  return row.id;
}

/** A pending ticket of a new contact opened through the tickets service (`ticket.created` follows). */
async function pending(t: Tenant, queueId: number | null) {
  return tickets.findOrOpen!(t.companyId, { contactId: await contact(t.companyId), whatsappId: t.conn, queueId });
}

/** A pending ticket inserted with a past creation time and no queue (no event: the fixture of an old conversation). */
async function oldTicket(t: Tenant, createdAt: Date): Promise<number> {
  const [row] = await k.db('tickets')
    .insert({ uuid: randomUUID(), companyId: t.companyId, contactId: await contact(t.companyId), whatsappId: t.conn, status: 'pending', createdAt, updatedAt: createdAt })
    .returning('id');
  return row.id;
}

const put = (u: TestUser, queueId: number, body: unknown) => k.as(u, 'PUT', `/sla/policies/${queueId}`, body);
const slaOf = async (u: TestUser, ticketId: number) => k.as(u, 'GET', `/sla/tickets/${ticketId}`);
const waitSla = async (u: TestUser, ticketId: number, ok: (s: SlaTicket) => boolean = () => true): Promise<SlaTicket> =>
  (await waitFor(async () => {
    const res = await slaOf(u, ticketId);
    return res.statusCode === 200 && ok(res.json()) ? (res.json() as SlaTicket) : undefined;
  }, 5000)) as SlaTicket;

/** A fixed-offset zone whose wall clock reads 11:xx now (Etc/GMT+N is UTC-N). */
function zoneAtEleven(now = new Date()): string {
  const n = now.getUTCHours() - 11;
  return n === 0 ? 'Etc/GMT' : n > 0 ? `Etc/GMT+${n}` : `Etc/GMT${n}`;
}

const EVERY_DAY = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

let A: Tenant;
let B: Tenant;
const sockets: Socket[] = [];

beforeAll(async () => {
  k = await createTestKernel({ plugins: [queuesPlugin, tagsPlugin, contactsPlugin, connectionsPlugin, ticketsPlugin, slaPlugin, dashboardPlugin] as PluginDefinition[] });
  tickets = k.services.get(ticketsService);
  base = await k.listen();
  A = await tenant();
  B = await tenant();
}, 60_000);

afterAll(async () => {
  for (const s of sockets) s.close();
  await k?.close();
});

async function socketOf(u: TestUser): Promise<Socket> {
  const s = await k.socket(u.token, base);
  sockets.push(s);
  return s;
}

describe('due times across a closed business hour', () => {
  it('first response inside the shift, resolution after the 13:00-14:00 closed hour (company time zone)', async () => {
    const t = await tenant(zoneAtEleven());
    // Every day 08:00-13:00 and 14:00-23:59 local: the ticket opens at 11:xx local.
    const q = await queue(t.companyId, EVERY_DAY.map((d) => ({ weekday: d, weekdayEn: d, startTimeA: '08:00', endTimeA: '13:00', startTimeB: '14:00', endTimeB: '23:59' })));
    const res = await put(t.admin, q, { firstResponseMinutes: 30, resolutionMinutes: 180 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ queueId: q, firstResponseMinutes: 30, resolutionMinutes: 180, warnPercent: 80 });
    const ticket = await pending(t, q);
    const sla = await waitSla(t.admin, ticket.id);
    const created = new Date(ticket.createdAt).getTime();
    const at = (ms: number) => new Date(created + ms).toISOString();
    expect(sla).toMatchObject({ ticketId: ticket.id, uuid: ticket.uuid, queueId: q, userId: null, startedAt: at(0) });
    // 30 business minutes, all before 13:00.
    expect(sla.firstResponse).toEqual({ minutes: 30, warnAt: at(24 * MIN), dueAt: at(30 * MIN), doneAt: null, breachedAt: null, state: 'ok' });
    // 180 business minutes from 11:xx: the closed hour 13:00-14:00 pushes the due time to creation + 4 h (warn: 144 + 60 min).
    expect(sla.resolution).toEqual({ minutes: 180, warnAt: at(204 * MIN), dueAt: at(240 * MIN), doneAt: null, breachedAt: null, state: 'ok' });
    // The check job waits for the first warn time.
    const job = await k.db.raw(`SELECT run_at FROM graphile_worker._private_jobs WHERE key = ?`, [`sla.check:ticket-${ticket.id}`]);
    expect(new Date(job.rows[0].run_at).toISOString()).toBe(at(24 * MIN));
    // The change was audited on the queue.
    const audit = await k.db('auditLogs').where({ companyId: t.companyId, entity: 'queue', entityId: String(q), action: 'update' }).first();
    expect(audit).toMatchObject({ userId: t.admin.id, after: { slaFirstResponseMinutes: 30, slaResolutionMinutes: 180, slaWarnPercent: 80 } });
  });
});

describe('a breach', () => {
  let q: number;
  let supervisor: TestUser;
  let attendant: TestUser;
  let ticketId: number;
  let breach: SlaSocketEvent;
  const others: SlaSocketEvent[][] = [[], [], []];

  it('is found by the check job and notified to the queue supervisor only', async () => {
    q = await queue(A.companyId);
    supervisor = await user(A.companyId, 'supervisor', [q]);
    attendant = await user(A.companyId, 'user', [q]);
    const qB = await queue(B.companyId);
    const supervisorB = await user(B.companyId, 'supervisor', [qB]);
    expect((await put(A.admin, q, { firstResponseMinutes: 1, resolutionMinutes: null })).statusCode).toBe(200);
    // The targets were set long ago; the conversation started 10 minutes ago, before it reached the queue.
    await k.db('slaPolicies').where({ companyId: A.companyId, queueId: q }).update({ updatedAt: new Date(Date.now() - 86_400_000) });
    ticketId = await oldTicket(A, new Date(Date.now() - 10 * MIN));

    const [sup, att, adm, supB] = await Promise.all([supervisor, attendant, A.admin, supervisorB].map(socketOf));
    [att, adm, supB].forEach((s, i) => s.on(`company-${s === supB ? B.companyId : A.companyId}-sla`, (e: SlaSocketEvent) => others[i].push(e)));
    const breachOf = new Promise<SlaSocketEvent>((resolve) => sup.on(`company-${A.companyId}-sla`, (e: SlaSocketEvent) => e.action === 'breach' && resolve(e)));
    await tickets.update(A.companyId, ticketId, { queueId: q });
    breach = await Promise.race([breachOf, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no breach in 5 s')), 5000))]);
    expect(breach).toEqual({
      action: 'breach',
      breach: { ticketId, uuid: expect.any(String), queueId: q, userId: null, target: 'firstResponse', dueAt: expect.any(String), breachedAt: expect.any(String) },
    });
    const b = (breach as Extract<SlaSocketEvent, { action: 'breach' }>).breach;
    expect(new Date(b.dueAt).getTime()).toBeLessThan(Date.now() - 8 * MIN);
  });

  it('reaches neither the attendants, nor the admin of a supervised queue, nor another company', async () => {
    await new Promise((r) => setTimeout(r, 300));
    const [att, adm, supB] = others;
    // The attendant and the admin see the ticket's updates (the badge), never the breach notification.
    for (const got of [att, adm]) {
      expect(got.some((e) => e.action === 'update' && e.sla.ticketId === ticketId && e.sla.firstResponse?.state === 'breached')).toBe(true);
      expect(got.filter((e) => e.action === 'breach')).toEqual([]);
    }
    expect(supB).toEqual([]);
  });

  it('is listed for the supervisor and shown on the ticket', async () => {
    const list = await k.as(supervisor, 'GET', '/sla/breaches');
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([(breach as Extract<SlaSocketEvent, { action: 'breach' }>).breach]);
    expect((await k.as(A.admin, 'GET', '/sla/breaches')).json()).toHaveLength(1);
    expect((await k.as(attendant, 'GET', '/sla/breaches')).statusCode).toBe(403);
    expect((await k.as(B.admin, 'GET', '/sla/breaches')).json()).toEqual([]);
    const sla = (await slaOf(attendant, ticketId)).json() as SlaTicket;
    expect(sla.firstResponse).toMatchObject({ minutes: 1, state: 'breached', doneAt: null, breachedAt: expect.any(String) });
    expect(sla.resolution).toBeNull();
    // Recorded once: a second check changes nothing.
    await k.services.get(slaService).check(A.companyId, ticketId);
    expect((await slaOf(attendant, ticketId)).json().firstResponse.breachedAt).toBe(sla.firstResponse!.breachedAt);
  });

  it('a late first response closes the breach as missed', async () => {
    await tickets.update(A.companyId, ticketId, { userId: attendant.id, status: 'open' });
    await tickets.sendText(A.companyId, ticketId, 'Olá, desculpe a demora', { userId: attendant.id });
    const sla = await waitSla(attendant, ticketId, (s) => Boolean(s.firstResponse?.doneAt));
    expect(sla.firstResponse).toMatchObject({ state: 'missed' });
    expect(sla.userId).toBe(attendant.id);
    expect((await k.as(supervisor, 'GET', '/sla/breaches')).json()).toEqual([]);
  });
});

describe('the life of a ticket', () => {
  let q: number;
  let qFree: number;
  let agent: TestUser;
  let ticketId: number;

  beforeAll(async () => {
    q = await queue(A.companyId);
    qFree = await queue(A.companyId);
    agent = await user(A.companyId, 'user', [q, qFree]);
    await put(A.admin, q, { firstResponseMinutes: 60, resolutionMinutes: 120, warnPercent: 50 });
  });

  it('bot messages do not count; the attendant answer and the close are met', async () => {
    const t = await pending(A, q);
    ticketId = t.id;
    await waitSla(agent, ticketId);
    await tickets.sendText(A.companyId, ticketId, 'Bem-vindo! Escolha uma opção', { fromBot: true });
    await tickets.update(A.companyId, ticketId, { userId: agent.id, status: 'open' });
    await tickets.sendText(A.companyId, ticketId, 'Oi, sou a atendente', { userId: agent.id });
    const answered = await waitSla(agent, ticketId, (s) => Boolean(s.firstResponse?.doneAt));
    expect(answered.firstResponse).toMatchObject({ state: 'met', minutes: 60 });
    expect(new Date(answered.firstResponse!.warnAt!).getTime() - new Date(answered.startedAt).getTime()).toBe(30 * MIN);
    await tickets.close(A.companyId, ticketId, { kind: 'user', userId: agent.id });
    const closed = await waitSla(agent, ticketId, (s) => Boolean(s.resolution?.doneAt));
    expect(closed.resolution).toMatchObject({ state: 'met' });
    expect(await k.db.raw(`SELECT count(*)::int AS n FROM graphile_worker._private_jobs WHERE key = ?`, [`sla.check:ticket-${ticketId}`]).then((r) => r.rows[0].n)).toBe(0);
  });

  it('a reopening starts a new clock', async () => {
    const before = (await slaOf(agent, ticketId)).json() as SlaTicket;
    await tickets.update(A.companyId, ticketId, { status: 'open', userId: agent.id });
    const again = await waitSla(agent, ticketId, (s) => s.resolution?.doneAt === null);
    expect(new Date(again.startedAt).getTime()).toBeGreaterThan(new Date(before.startedAt).getTime());
    expect(again.firstResponse).toMatchObject({ doneAt: null, state: 'ok' });
  });

  it('a transfer to another queue with targets recomputes the targets not done, from the same start', async () => {
    const qFast = await queue(A.companyId);
    await put(A.admin, qFast, { firstResponseMinutes: 10, resolutionMinutes: 20 });
    const before = (await slaOf(agent, ticketId)).json() as SlaTicket;
    await tickets.update(A.companyId, ticketId, { queueId: qFast });
    const moved = await waitSla(A.admin, ticketId, (x) => x.queueId === qFast);
    expect(moved.startedAt).toBe(before.startedAt);
    const start = new Date(moved.startedAt).getTime();
    expect(moved.firstResponse).toMatchObject({ minutes: 10, dueAt: new Date(start + 10 * MIN).toISOString(), warnAt: new Date(start + 8 * MIN).toISOString() });
    expect(moved.resolution).toMatchObject({ minutes: 20, dueAt: new Date(start + 20 * MIN).toISOString() });
  });

  it('an answer given before the ticket reached a queue with targets counts as its first response', async () => {
    const t = await pending(A, null);
    await tickets.update(A.companyId, t.id, { userId: agent.id, status: 'open' });
    const reply = await tickets.sendText(A.companyId, t.id, 'Já estou vendo', { userId: agent.id });
    await new Promise((r) => setTimeout(r, 200));
    await tickets.update(A.companyId, t.id, { queueId: q });
    const sla = await waitSla(agent, t.id);
    expect(sla.firstResponse).toMatchObject({ doneAt: new Date(reply.createdAt).toISOString(), state: 'met' });
    expect(sla.startedAt).toBe(new Date(t.createdAt).toISOString());
  });

  it('a transfer to a queue without targets drops the SLA', async () => {
    await tickets.update(A.companyId, ticketId, { queueId: qFree });
    await waitFor(async () => (await slaOf(agent, ticketId)).statusCode === 404, 5000);
    expect((await slaOf(agent, ticketId)).json().error).toBe('ERR_NO_SLA_FOUND');
  });
});

describe('the dashboard share', () => {
  it('per queue and attendant, over the clocks started in the range, this company only', async () => {
    const t = await tenant('America/Sao_Paulo');
    const q1 = await queue(t.companyId);
    const q2 = await queue(t.companyId);
    const ana = await user(t.companyId, 'user', [q1]);
    const bia = await user(t.companyId, 'user', [q2]);
    const at = (s: string) => new Date(s);
    let n = 900_000_000 + Math.floor(Math.random() * 1e6);
    const row = (companyId: number, queueId: number, userId: number | null, start: string, o: Record<string, unknown>) => ({
      ticketId: n++, companyId, uuid: randomUUID(), queueId, userId, startedAt: at(start), ...o,
    });
    const fr = (due: string, done: string | null, by: number | null = null) => ({ firstResponseMinutes: 30, firstResponseDueAt: at(due), firstResponseAt: done ? at(done) : null, firstResponseUserId: by });
    const res = (due: string, done: string | null, by: number | null = null) => ({ resolutionMinutes: 240, resolutionDueAt: at(due), resolvedAt: done ? at(done) : null, resolutionUserId: by });
    await k.db('slaTickets').insert([
      // Nov 2 local (UTC-3): q1, Ana answers in time and closes late.
      row(t.companyId, q1, ana.id, '2026-11-02T12:00:00Z', { ...fr('2026-11-02T12:30:00Z', '2026-11-02T12:10:00Z', ana.id), ...res('2026-11-02T16:00:00Z', '2026-11-02T17:00:00Z', ana.id) }),
      // q1, Ana answers late; still open, resolution not due yet (far future).
      row(t.companyId, q1, ana.id, '2026-11-02T13:00:00Z', { ...fr('2026-11-02T13:30:00Z', '2026-11-02T14:00:00Z', ana.id), ...res('2999-01-01T00:00:00Z', null) }),
      // q2, nobody answered, past due; resolution in time by Bia.
      row(t.companyId, q2, bia.id, '2026-11-03T13:00:00Z', { ...fr('2026-11-03T13:30:00Z', null), ...res('2026-11-03T17:00:00Z', '2026-11-03T15:00:00Z', bia.id) }),
      // Started 23:30 local Oct 31 (02:30Z Nov 1): outside the range.
      row(t.companyId, q2, bia.id, '2026-11-01T02:30:00Z', { ...fr('2026-11-01T03:00:00Z', null) }),
      // Another company, same days.
      row(A.companyId, q1, null, '2026-11-02T12:00:00Z', { ...fr('2026-11-02T12:30:00Z', null) }),
    ]);
    const res1 = await k.as(t.admin, 'GET', '/dashboard/sla?date_from=2026-11-01&date_to=2026-11-05');
    expect(res1.statusCode).toBe(200);
    const body = res1.json();
    const s = (total: number, met: number, breached: number, share: number | null) => ({ total, met, breached, running: total - met - breached, share });
    expect(body.totals).toEqual({ firstResponse: s(3, 1, 2, 33.33), resolution: s(3, 1, 1, 50) });
    expect(body.queues).toEqual([
      { queueId: q1, name: expect.any(String), color: expect.any(String), firstResponse: s(2, 1, 1, 50), resolution: s(2, 0, 1, 0) },
      { queueId: q2, name: expect.any(String), color: expect.any(String), firstResponse: s(1, 0, 1, 0), resolution: s(1, 1, 0, 100) },
    ]);
    expect(body.attendants).toEqual([
      { userId: ana.id, name: expect.stringContaining('user'), firstResponse: s(2, 1, 1, 50), resolution: s(2, 0, 1, 0) },
      { userId: bia.id, name: expect.stringContaining('user'), firstResponse: s(1, 0, 1, 0), resolution: s(1, 1, 0, 100) },
    ]);
    // A day with nothing: empty groups, null shares.
    const empty = (await k.as(t.admin, 'GET', '/dashboard/sla?date_from=2026-10-01&date_to=2026-10-02')).json();
    expect(empty).toEqual({ totals: { firstResponse: s(0, 0, 0, null), resolution: s(0, 0, 0, null) }, queues: [], attendants: [] });
    expect((await k.as(ana, 'GET', '/dashboard/sla')).statusCode).toBe(403);
    expect((await k.as(t.admin, 'GET', '/dashboard/sla?date_from=2026-11-05&date_to=2026-11-01')).json().error).toBe('ERR_DASHBOARD_RANGE');
  });
});

describe('routes: roles, validation, visibility, tenants', () => {
  let q: number;
  let ticketId: number;
  let member: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    q = await queue(A.companyId);
    member = await user(A.companyId, 'user', [q]);
    stranger = await user(A.companyId, 'user', [await queue(A.companyId)]);
    await put(A.admin, q, { firstResponseMinutes: 15, resolutionMinutes: 60 });
    ticketId = (await pending(A, q)).id;
    await waitSla(A.admin, ticketId);
  });

  it('policies: the list has every queue of the company; only admins change them; bad bodies are 400', async () => {
    const list = (await k.as(A.admin, 'GET', '/sla/policies')).json() as Array<{ queueId: number; firstResponseMinutes: number | null }>;
    expect(list.find((p) => p.queueId === q)).toMatchObject({ firstResponseMinutes: 15, resolutionMinutes: 60, warnPercent: 80 });
    const own = await k.db('queues').where({ companyId: A.companyId }).pluck('id');
    expect(list.map((p) => p.queueId).sort()).toEqual(own.sort());
    expect((await k.as(member, 'GET', '/sla/policies')).statusCode).toBe(403);
    expect((await put(member, q, { firstResponseMinutes: 1, resolutionMinutes: 1 })).statusCode).toBe(403);
    for (const body of [{ firstResponseMinutes: 0, resolutionMinutes: null }, { firstResponseMinutes: 5 }, { firstResponseMinutes: 5, resolutionMinutes: null, warnPercent: 100 }, { firstResponseMinutes: '5', resolutionMinutes: null }]) {
      const res = await put(A.admin, q, body);
      expect([res.statusCode, res.json().error]).toEqual([400, 'ERR_VALIDATION']);
    }
    expect((await put(A.admin, 2147483647, { firstResponseMinutes: 5, resolutionMinutes: null })).json().error).toBe('ERR_NO_QUEUE_FOUND');
  });

  it('removing the targets keeps the clocks already running', async () => {
    const q2 = await queue(A.companyId);
    await put(A.admin, q2, { firstResponseMinutes: 5, resolutionMinutes: null });
    const res = await put(A.admin, q2, { firstResponseMinutes: null, resolutionMinutes: null });
    expect(res.json()).toMatchObject({ queueId: q2, firstResponseMinutes: null, resolutionMinutes: null, updatedAt: null });
    expect(await k.db('slaPolicies').where({ queueId: q2 }).first()).toBeUndefined();
    expect((await slaOf(A.admin, ticketId)).statusCode).toBe(200);
  });

  it("tickets: the viewer's tickets only; bad id lists are 400", async () => {
    expect(((await k.as(member, 'GET', `/sla/tickets?ticketIds=${ticketId},2147483647`)).json() as SlaTicket[]).map((s) => s.ticketId)).toEqual([ticketId]);
    expect((await k.as(member, 'GET', `/sla/tickets?ticketIds=[${ticketId}]`)).json()).toHaveLength(1);
    expect((await k.as(stranger, 'GET', `/sla/tickets?ticketIds=${ticketId}`)).json()).toEqual([]);
    expect((await slaOf(stranger, ticketId)).statusCode).toBe(404);
    for (const bad of ['abc', '1,,2', '-1', '']) expect((await k.as(member, 'GET', `/sla/tickets?ticketIds=${bad}`)).statusCode).toBe(400);
    const many = Array.from({ length: 201 }, (_, i) => i + 1).join(',');
    expect((await k.as(member, 'GET', `/sla/tickets?ticketIds=${many}`)).json().error).toBe('ERR_VALIDATION');
    expect((await k.as(null, 'GET', `/sla/tickets/${ticketId}`)).statusCode).toBe(401);
  });

  it("company B gets 404 or nothing for company A's queues and tickets", async () => {
    expect((await put(B.admin, q, { firstResponseMinutes: 1, resolutionMinutes: 1 })).statusCode).toBe(404);
    expect((await k.db('slaPolicies').where({ queueId: q }).first()).firstResponseMinutes).toBe(15);
    expect((await k.as(B.admin, 'GET', '/sla/policies')).json().map((p: { queueId: number }) => p.queueId)).not.toContain(q);
    const res = await slaOf(B.admin, ticketId);
    expect([res.statusCode, res.json().error]).toEqual([404, 'ERR_NO_SLA_FOUND']);
    expect((await k.as(B.admin, 'GET', `/sla/tickets?ticketIds=${ticketId}`)).json()).toEqual([]);
    expect(await k.services.get(slaService).ticket(B.companyId, ticketId)).toBeUndefined();
  });

  it('a deleted ticket loses its SLA', async () => {
    expect((await k.as(A.admin, 'DELETE', `/tickets/${ticketId}`)).statusCode).toBe(200);
    await waitFor(async () => (await slaOf(A.admin, ticketId)).statusCode === 404, 5000);
  });
});
