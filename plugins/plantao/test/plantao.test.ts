import { randomBytes } from 'node:crypto';
import { createTestKernel, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import queuesPlugin from '@atendo/plugin-queues';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';
import connectionsPlugin from '@atendo/plugin-connections';
import ticketsPlugin from '@atendo/plugin-tickets';
import channelsPlugin from '@atendo/plugin-channels';
import { metaSerialize, sign } from '../../../scripts/replay';
import { createPlantaoPlugin } from '../src/plugin';
import { plantaoTick, WEEKDAYS } from '../src/contract';
import { onDuty, wallClock } from '../src/services/notifier';
import { Graph } from './graph';

const SECRET = randomBytes(16).toString('hex');
const clock = { now: new Date() };
const allDays = (except?: string) => WEEKDAYS.map((d) => ({ ...d, startTime: d.weekdayEn === except ? null : '00:00', endTime: d.weekdayEn === except ? null : '23:59' }));

describe('plantao', () => {
  let k: TestKernel;
  let graph: Graph;
  let A: { companyId: number; admin: TestUser };
  let B: { companyId: number; admin: TestUser };
  const phoneId = String(1000000 + (Date.now() % 1e6));

  beforeAll(async () => {
    graph = new Graph();
    await graph.start();
    k = await createTestKernel({
      plugins: [queuesPlugin, tagsPlugin, contactsPlugin, connectionsPlugin, ticketsPlugin, channelsPlugin, createPlantaoPlugin({ now: () => clock.now })],
      env: { CHANNELS_META_APP_SECRET: SECRET, CHANNELS_META_VERIFY_TOKEN: 'v', CHANNELS_META_GRAPH_URL: graph.url, PLANTAO_CRON: '0 0 1 1 *' },
    });
    A = await k.createCompany();
    B = await k.createCompany();
    const res = await k.as(A.admin, 'POST', '/whatsapp', { name: 'Cloud', channel: 'whatsappapi', facebookPageUserId: phoneId, facebookUserToken: 'tok' });
    if (res.statusCode !== 200) throw new Error(res.body);
    expect(res.statusCode).toBe(200);
  });
  afterAll(async () => {
    await k.close();
    await graph.stop();
  });

  test("the product family's ModalPlantao body: capitalised weekdayEn (\"Monday\"); stored and answered canonical", async () => {
    const cap = (w: string) => w[0].toUpperCase() + w.slice(1);
    const days = WEEKDAYS.map((d) => ({ weekday: d.weekday, weekdayEn: cap(d.weekdayEn), startTime: d.weekdayEn === 'monday' ? '08:00' : null, endTime: d.weekdayEn === 'monday' ? '18:00' : null }));
    const res = await k.as(A.admin, 'POST', '/plantao', { userId: A.admin.id, phone: '(11) 97777-0001', interval: 1, days });
    expect([res.statusCode, res.statusCode === 200 ? '' : res.body]).toEqual([200, '']);
    expect(res.json().days[0]).toEqual({ weekday: 'Segunda-feira', weekdayEn: 'monday', startTime: '08:00', endTime: '18:00' });
    expect(res.json().days.map((d: { weekdayEn: string }) => d.weekdayEn)).toEqual(WEEKDAYS.map((d) => d.weekdayEn));
    // Still only the seven weekdays.
    const wrong = await k.as(A.admin, 'POST', '/plantao', { userId: A.admin.id, phone: '11977770001', days: days.map((d, i) => (i === 0 ? { ...d, weekdayEn: 'Mondays' } : d)) });
    expect([wrong.statusCode, wrong.json().error]).toEqual([400, 'ERR_VALIDATION']);
    expect((await k.as(A.admin, 'DELETE', `/plantao/${res.json().id}`)).statusCode).toBe(200);
  });

  test('CRUD with the spec validation, tenant-scoped', async () => {
    const body = { userId: A.admin.id, phone: '+55 (11) 98888-0001', interval: 3, days: allDays() };
    const created = await k.as(A.admin, 'POST', '/plantao', body);
    expect(created.statusCode).toBe(200);
    expect(created.json()).toMatchObject({ userId: A.admin.id, user: { id: A.admin.id }, phone: '5511988880001', interval: 3 });
    expect(created.json().days.map((d: { weekdayEn: string }) => d.weekdayEn)).toEqual(WEEKDAYS.map((d) => d.weekdayEn));
    const id = created.json().id;
    const bad = async (b: unknown) => (await k.as(A.admin, 'POST', '/plantao', b)).json();
    expect(await bad({ ...body, phone: '' })).toMatchObject({ error: 'ERR_VALIDATION', message: 'Informe o telefone' });
    const oneEnd = allDays().map((d, i) => (i === 0 ? { ...d, endTime: null } : d));
    expect(await bad({ ...body, days: oneEnd })).toMatchObject({ error: 'ERR_VALIDATION', message: 'Informe o fim do plantão' });
    const oneStart = allDays().map((d, i) => (i === 0 ? { ...d, startTime: null } : d));
    expect(await bad({ ...body, days: oneStart })).toMatchObject({ error: 'ERR_VALIDATION', message: 'Informe o início do plantão' });
    const none = WEEKDAYS.map((d) => ({ ...d, startTime: null, endTime: null }));
    expect(await bad({ ...body, days: none })).toMatchObject({ error: 'ERR_VALIDATION', message: 'Pelo menos um dia da semana deve ter o horário de início e fim preenchido' });
    expect(await bad({ ...body, days: allDays().map((d) => ({ ...d, startTime: '25:00' })) })).toMatchObject({ error: 'ERR_VALIDATION' });
    expect(await bad({ ...body, userId: B.admin.id })).toMatchObject({ error: 'ERR_NO_USER_FOUND' });
    const noInterval = await k.as(A.admin, 'POST', '/plantao', { ...body, interval: undefined });
    expect(noInterval.json().interval).toBe(1);
    expect((await k.as(A.admin, 'DELETE', `/plantao/${noInterval.json().id}`)).json()).toEqual({ message: 'Plantão removido com sucesso.' });

    expect((await k.as(B.admin, 'GET', `/plantao/${id}`)).statusCode).toBe(404);
    expect((await k.as(B.admin, 'PUT', `/plantao/${id}`, { ...body, userId: B.admin.id })).statusCode).toBe(404);
    expect((await k.as(B.admin, 'DELETE', `/plantao/${id}`)).statusCode).toBe(404);
    expect((await k.as(B.admin, 'GET', '/plantao')).json()).toEqual([]);
    const user = await k.createUser(A.companyId, { profile: 'user' });
    expect((await k.as(user, 'GET', '/plantao')).json()).toHaveLength(1);
    expect((await k.as(user, 'DELETE', `/plantao/${id}`)).statusCode).toBe(403);
    const put = await k.as(A.admin, 'PUT', `/plantao/${id}`, { ...body, interval: 5 });
    expect(put.json().interval).toBe(5);
    expect((await k.as(A.admin, 'DELETE', `/plantao/${id}`)).statusCode).toBe(200);
    expect((await k.as(A.admin, 'GET', '/plantao')).json()).toEqual([]);
  });

  test('hours on the company time zone wall clock', () => {
    const days = WEEKDAYS.map((d) => ({ ...d, startTime: d.weekdayEn === 'monday' ? '08:00' : null, endTime: d.weekdayEn === 'monday' ? '18:00' : null }));
    const mon9sp = new Date('2026-11-23T09:00:00-03:00');
    expect(wallClock(mon9sp, 'America/Sao_Paulo')).toEqual({ weekdayEn: 'monday', hhmm: '09:00' });
    expect(onDuty(days, mon9sp, 'America/Sao_Paulo')).toBe(true);
    expect(onDuty(days, new Date('2026-11-23T18:00:00-03:00'), 'America/Sao_Paulo')).toBe(false);
    expect(onDuty(days, new Date('2026-11-23T07:59:00-03:00'), 'America/Sao_Paulo')).toBe(false);
    // 09:00 in São Paulo is 21:00 in Tokyo: off duty there.
    expect(onDuty(days, mon9sp, 'Asia/Tokyo')).toBe(false);
    const night = WEEKDAYS.map((d) => ({ ...d, startTime: '22:00', endTime: '06:00' }));
    expect(onDuty(night, new Date('2026-11-23T23:30:00-03:00'), 'America/Sao_Paulo')).toBe(true);
    expect(onDuty(night, new Date('2026-11-23T12:00:00-03:00'), 'America/Sao_Paulo')).toBe(false);
  });

  test('notifications through the Graph server at the right times (fixed clock), until the ticket is taken', async () => {
    let n = 0;
    /** Runs one notifier tick now and waits until it finished. */
    const tick = async (at: Date) => {
      clock.now = at;
      const key = `t${++n}`;
      await k.jobs.schedule(plantaoTick, {}, { key });
      await waitFor(async () => ((await k.db.raw(`SELECT 1 FROM graphile_worker._private_jobs WHERE key = ?`, [`plantao.tick:${key}`])).rows.length ? undefined : true), 10_000);
    };
    // P2 is on duty only three days from now: off duty on every day the test's clock touches, even when it
    // runs across midnight (the fixed clock goes at most 10 minutes past the ticket's creation).
    const dutyDay = wallClock(new Date(Date.now() + 3 * 86_400_000), 'America/Sao_Paulo').weekdayEn;
    const onlyOn = (day: string) => WEEKDAYS.map((d) => ({ ...d, startTime: d.weekdayEn === day ? '00:00' : null, endTime: d.weekdayEn === day ? '23:59' : null }));
    const P1 = '5511970000001';
    const P2 = '5511970000002';
    expect((await k.as(A.admin, 'POST', '/plantao', { userId: A.admin.id, phone: P1, interval: 2, days: allDays() })).statusCode).toBe(200);
    // Outside hours: off duty on the days of the test.
    expect((await k.as(A.admin, 'POST', '/plantao', { userId: A.admin.id, phone: P2, interval: 1, days: onlyOn(dutyDay) })).statusCode).toBe(200);

    // A customer writes: a pending ticket without a user.
    const customer = `55119${Date.now() % 1e7}`;
    const payload = { object: 'whatsapp_business_account', entry: [{ id: 'w', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '1555', phone_number_id: phoneId }, contacts: [{ profile: { name: 'Maria' }, wa_id: customer }], messages: [{ from: customer, id: `wamid.IN${Date.now()}`, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: 'oi' } }] } }] }] };
    const bytes = metaSerialize(payload);
    expect((await k.app.inject({ method: 'POST', url: '/webhook', payload: bytes, headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(bytes, SECRET) } })).statusCode).toBe(200);
    const ticket = await waitFor(() => k.db('tickets').where({ companyId: A.companyId }).first(), 10_000);
    expect(ticket).toMatchObject({ status: 'pending', userId: null });
    const t0 = new Date(ticket.createdAt).getTime();
    const quiet = async () => {
      await new Promise((r) => setTimeout(r, 800));
      return graph.sent.filter((s) => s.to === P1 || s.to === P2).length;
    };

    await tick(new Date(t0 + 30_000)); // waiting 30 s < 2 min
    expect(await quiet()).toBe(0);
    await tick(new Date(t0 + 125_000)); // 2 min 5 s: P1 notified; P2 is off duty
    const first = await waitFor(() => (graph.to(P1).length ? graph.to(P1) : undefined), 10_000);
    expect(first![0]).toBe(`🔔 Plantão: 1 ticket aguardando atendimento. O mais antigo é o #${ticket.id} (Maria), aguardando há 2 min.`);
    expect(graph.to(P2)).toEqual([]);
    await tick(new Date(t0 + 180_000)); // 55 s after the last one: interval not reached
    expect(await quiet()).toBe(1);
    await tick(new Date(t0 + 250_000)); // 2 min 5 s after the last one
    await waitFor(() => (graph.to(P1).length === 2 ? true : undefined), 10_000);
    expect(graph.to(P1)[1]).toContain('aguardando há 4 min');

    // Taken: no more notifications.
    const queue = (await k.as(A.admin, 'POST', '/queue', { name: 'Suporte', color: '#123456' })).json();
    const taken = await k.as(A.admin, 'PUT', `/tickets/${ticket.id}`, { status: 'open', userId: A.admin.id, queueId: queue.id });
    expect(taken.body).toContain('"status":"open"');
    await tick(new Date(t0 + 600_000));
    expect(await quiet()).toBe(2);
    expect(graph.to(P2)).toEqual([]);
  });
});
