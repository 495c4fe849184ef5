/**
 * The /schedules routes: wire shape, sendAt in the company's time zone or with an offset, validation, the
 * send job kept in step with the row, roles, tenant isolation, the plan gate, events; parseSendAt itself.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nextEvent, type TestKernel, type TestUser } from '@atendo/testing';
import { errorCatalogue } from '@atendo/sdk';
import schedules from '../src/index';
import { schedulesService, type Schedule } from '../src/contract';
import { parseSendAt } from '../src/rules/send-at';
import { fillAuthor } from '../src/services/sender';
import { bootKernel, Graph, pendingJob, Tenant } from './harness';

describe('parseSendAt', () => {
  test("the client's wall-clock time in the company's zone; a time with an offset as it is", () => {
    expect(parseSendAt('2030-01-15T10:00', 'America/Sao_Paulo')?.toISOString()).toBe('2030-01-15T13:00:00.000Z');
    expect(parseSendAt('2030-01-15 10:00:30', 'Asia/Tokyo')?.toISOString()).toBe('2030-01-15T01:00:30.000Z');
    expect(parseSendAt('2030-07-01T09:15', 'Europe/Lisbon')?.toISOString()).toBe('2030-07-01T08:15:00.000Z');
    expect(parseSendAt('2030-01-15T10:00:00+02:00', 'America/Sao_Paulo')?.toISOString()).toBe('2030-01-15T08:00:00.000Z');
    expect(parseSendAt('2030-01-15T10:00:00.250Z', 'Asia/Tokyo')?.toISOString()).toBe('2030-01-15T10:00:00.250Z');
    expect(parseSendAt('2030-01-15T10:00-0300', 'UTC')?.toISOString()).toBe('2030-01-15T13:00:00.000Z');
  });

  test('bad formats, impossible dates and wall-clock times skipped by daylight saving are refused', () => {
    for (const v of ['', 'amanhã', '2030-01-15', '15/01/2030 10:00', '2030-02-30T10:00', '2030-01-15T25:00', '2030-01-15T10:60', '2030-01-15T10:00+25:00', '1e10']) {
      expect([v, parseSendAt(v, 'America/Sao_Paulo')]).toEqual([v, undefined]);
    }
    expect(parseSendAt('2030-03-10T02:30', 'America/New_York')).toBeUndefined();
    expect(parseSendAt('2030-03-10T03:30', 'America/New_York')?.toISOString()).toBe('2030-03-10T07:30:00.000Z');
  });

  test('{{userName}} is the author; other variables are left to the tickets plugin', () => {
    expect(fillAuthor('Oi {{firstName}}, aqui é {{ userName }} ({{user}})', 'Ana Souza')).toBe('Oi {{firstName}}, aqui é Ana Souza (Ana Souza)');
    expect(fillAuthor('sem variáveis', null)).toBe('sem variáveis');
  });
});

describe('schedules routes', () => {
  let k: TestKernel;
  const graph = new Graph();
  let A: Tenant;
  let B: Tenant;
  let user: TestUser;
  let other: TestUser;
  let supervisor: TestUser;
  let ana: { id: number; name: string };
  let base: string;

  const err = (res: { statusCode: number; json(): { error: string } }) => ({ status: res.statusCode, error: res.json().error });
  const future = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

  beforeAll(async () => {
    await graph.start();
    k = await bootKernel(graph);
    base = await k.listen();
    A = await Tenant.create(k, ['246000000000001']);
    B = await Tenant.create(k, ['246000000000002']);
    user = await k.createUser(A.companyId, { profile: 'user', name: 'Usuária' });
    other = await k.createUser(A.companyId, { profile: 'user', name: 'Outro' });
    supervisor = await k.createUser(A.companyId, { profile: 'supervisor' });
    ana = await A.contact('Ana Cliente');
  });
  afterAll(async () => {
    await k?.close();
    await graph.stop();
  });

  test('create: the wire shape, the send job at sendAt, the create event on both event names', async () => {
    const socket = await k.socket(A.admin.token, base);
    try {
      const dashed = nextEvent<{ action: string; schedule: Schedule }>(socket, `company-${A.companyId}-schedule`);
      const legacy = nextEvent<{ action: string; schedule: Schedule }>(socket, `company${A.companyId}-schedule`);
      const sendAt = future(2);
      const res = await k.as(user, 'POST', '/schedules', { body: '  Lembrete da consulta  ', contactId: String(ana.id), sendAt, sentAt: '', userId: 999 });
      expect(res.statusCode).toBe(200);
      const s = res.json() as Schedule;
      expect(s).toEqual({
        id: expect.any(Number), body: 'Lembrete da consulta', sendAt, sentAt: null, contactId: ana.id, ticketId: null, userId: user.id, companyId: A.companyId,
        status: 'PENDENTE', error: null, createdAt: expect.any(String), updatedAt: expect.any(String), contact: { id: ana.id, name: 'Ana Cliente' }, user: { id: user.id, name: 'Usuária' },
      });
      expect(await dashed).toEqual({ action: 'create', schedule: s });
      expect(await legacy).toEqual({ action: 'create', schedule: s });
      const job = await pendingJob(k, s.id);
      expect(new Date(job!.run_at).toISOString()).toBe(sendAt);
      expect(job!.max_attempts).toBe(5);
      expect((await k.as(other, 'GET', `/schedules/${s.id}`)).json()).toEqual(s);
      expect(await k.services.get(schedulesService).get(A.companyId, s.id)).toEqual(s);
    } finally {
      socket.close();
    }
  });

  test("sendAt: the client's YYYY-MM-DDTHH:mm in the company's time zone; a past time is refused", async () => {
    await A.api('PUT', '/companySettings', { column: 'timeZone', data: 'Asia/Tokyo' });
    const tokyo = await A.api('POST', '/schedules', { body: 'Horário de Tóquio', contactId: ana.id, sendAt: '2031-01-15T10:00' });
    expect(tokyo.sendAt).toBe('2031-01-15T01:00:00.000Z');
    await A.api('PUT', '/companySettings', { column: 'timeZone', data: 'America/Sao_Paulo' });
    const sp = await A.api('POST', '/schedules', { body: 'Horário de Brasília', contactId: ana.id, sendAt: '2031-01-15T10:00' });
    expect(sp.sendAt).toBe('2031-01-15T13:00:00.000Z');
    const offset = await A.api('POST', '/schedules', { body: 'Com fuso explícito', contactId: ana.id, sendAt: '2031-01-15T10:00:00+02:00' });
    expect(offset.sendAt).toBe('2031-01-15T08:00:00.000Z');

    const past = new Date(Date.now() - 60_000);
    const p = (n: number) => String(n).padStart(2, '0');
    // One minute ago on the company's clock (São Paulo is UTC-3 all year).
    const local = new Date(past.getTime() - 3 * 3_600_000);
    const pastLocal = `${local.getUTCFullYear()}-${p(local.getUTCMonth() + 1)}-${p(local.getUTCDate())}T${p(local.getUTCHours())}:${p(local.getUTCMinutes())}`;
    for (const sendAt of [pastLocal, past.toISOString(), '2020-01-01T10:00']) {
      expect([sendAt, err(await k.as(A.admin, 'POST', '/schedules', { body: 'No passado', contactId: ana.id, sendAt }))]).toEqual([sendAt, { status: 400, error: 'ERR_SCHEDULE_IN_PAST' }]);
    }
    expect(errorCatalogue().ERR_SCHEDULE_IN_PAST).toMatchObject({ status: 400, owner: 'schedules' });
  });

  test('validation: body at least 5, contactId and sendAt required and valid, the contact must be the company’s', async () => {
    const ok = { body: 'Mensagem válida', contactId: ana.id, sendAt: future(1) };
    const bad: [string, Record<string, unknown>][] = [
      ['no body', { ...ok, body: undefined }],
      ['short body', { ...ok, body: 'oi' }],
      ['blank body', { ...ok, body: '       ' }],
      ['long body', { ...ok, body: 'x'.repeat(4097) }],
      ['no contact', { ...ok, contactId: undefined }],
      ['contact 0', { ...ok, contactId: 0 }],
      ['contact text', { ...ok, contactId: 'ana' }],
      ['no sendAt', { ...ok, sendAt: undefined }],
      ['sendAt date only', { ...ok, sendAt: '2031-01-15' }],
      ['sendAt words', { ...ok, sendAt: 'amanhã às 10:00' }],
      ['sendAt impossible', { ...ok, sendAt: '2031-02-30T10:00' }],
    ];
    for (const [what, body] of bad) expect([what, err(await k.as(A.admin, 'POST', '/schedules', body))]).toEqual([what, { status: 400, error: 'ERR_VALIDATION' }]);
    const theirs = await B.contact('Contato de B');
    expect(err(await k.as(A.admin, 'POST', '/schedules', { ...ok, contactId: theirs.id }))).toEqual({ status: 404, error: 'ERR_NO_CONTACT_FOUND' });
    expect(err(await k.as(A.admin, 'GET', '/schedules/abc'))).toEqual({ status: 400, error: 'ERR_VALIDATION' });
    expect(err(await k.as(A.admin, 'GET', '/schedules?pageNumber=0'))).toEqual({ status: 400, error: 'ERR_VALIDATION' });
    expect(err(await k.as(A.admin, 'PUT', `/schedules/1`, { body: 'x' }))).toEqual({ status: 400, error: 'ERR_VALIDATION' });
  });

  test('edit moves the job; an ERRO schedule edited goes back to PENDENTE; a sent one cannot change; delete cancels the job', async () => {
    const s = await A.schedule(ana.id, 'Primeira versão', 3 * 86_400_000);
    const later = future(4);
    const edited = await A.api('PUT', `/schedules/${s.id}`, { body: 'Segunda versão', sendAt: later });
    expect(edited).toMatchObject({ body: 'Segunda versão', sendAt: later, status: 'PENDENTE' });
    expect(new Date((await pendingJob(k, s.id))!.run_at).toISOString()).toBe(later);
    expect(err(await k.as(A.admin, 'PUT', `/schedules/${s.id}`, { sendAt: new Date(Date.now() - 1000).toISOString() }))).toEqual({ status: 400, error: 'ERR_SCHEDULE_IN_PAST' });

    // A schedule that failed: back to PENDENTE with a new time (or its own, when still ahead).
    await k.db('schedules').where({ id: s.id }).update({ status: 'ERRO', error: 'ERR_X: falhou' });
    await k.db.raw(`DELETE FROM graphile_worker._private_jobs WHERE key = ?`, [`schedules.send:schedule-${s.id}`]);
    const retried = await A.api('PUT', `/schedules/${s.id}`, { body: 'Terceira versão' });
    expect(retried).toMatchObject({ status: 'PENDENTE', error: null });
    expect(new Date((await pendingJob(k, s.id))!.run_at).toISOString()).toBe(later);

    await k.db('schedules').where({ id: s.id }).update({ status: 'ENVIADA', sentAt: new Date() });
    expect(err(await k.as(A.admin, 'PUT', `/schedules/${s.id}`, { body: 'Tarde demais' }))).toEqual({ status: 409, error: 'ERR_SCHEDULE_ALREADY_SENT' });

    const t = await A.schedule(ana.id, 'Para apagar', 86_400_000);
    expect(await pendingJob(k, t.id)).toBeDefined();
    expect(await A.api('DELETE', `/schedules/${t.id}`)).toEqual({ message: 'Schedule deleted' });
    expect(await pendingJob(k, t.id)).toBeUndefined();
    expect(err(await k.as(A.admin, 'GET', `/schedules/${t.id}`))).toEqual({ status: 404, error: 'ERR_NO_SCHEDULE_FOUND' });
  });

  test('roles: every user lists and creates; users change only their own; supervisors and admins any', async () => {
    const mine = await A.schedule(ana.id, 'Da usuária', 86_400_000, user);
    const admins = await A.schedule(ana.id, 'Do administrador', 86_400_000);
    expect((await k.as(other, 'GET', '/schedules')).statusCode).toBe(200);
    for (const [method, body] of [['PUT', { body: 'Mexendo no alheio' }], ['DELETE', undefined]] as const) {
      expect(err(await k.as(other, method, `/schedules/${mine.id}`, body))).toEqual({ status: 403, error: 'ERR_NO_PERMISSION' });
      expect(err(await k.as(user, method, `/schedules/${admins.id}`, body))).toEqual({ status: 403, error: 'ERR_NO_PERMISSION' });
    }
    expect((await k.as(user, 'PUT', `/schedules/${mine.id}`, { body: 'Minha edição' })).json().body).toBe('Minha edição');
    expect((await k.as(supervisor, 'PUT', `/schedules/${mine.id}`, { body: 'Edição da supervisora' })).json().body).toBe('Edição da supervisora');
    expect((await k.as(supervisor, 'DELETE', `/schedules/${admins.id}`)).statusCode).toBe(200);
    expect((await k.as(user, 'DELETE', `/schedules/${mine.id}`)).statusCode).toBe(200);
    expect((await k.as(null, 'GET', '/schedules')).statusCode).toBe(401);
  });

  test('list: newest first, 20 a page, search by body or contact, filters by contact and user', async () => {
    const c = await Tenant.create(k, []);
    const bia = await c.contact('Beatriz Lima');
    const caio = await c.contact('Caio Prado');
    const made: Schedule[] = [];
    for (let i = 0; i < 22; i++) made.push(await c.schedule(i % 2 ? bia.id : caio.id, `Aviso número ${i}`, 86_400_000 + i * 1000));
    const p1 = await c.api('GET', '/schedules');
    expect(p1).toMatchObject({ count: 22, hasMore: true });
    expect(p1.schedules).toHaveLength(20);
    expect(p1.schedules[0].id).toBe(made[21].id);
    expect((await c.api('GET', '/schedules/?pageNumber=2')).schedules.map((s: Schedule) => s.id)).toEqual([made[1].id, made[0].id]);
    expect((await c.api('GET', '/schedules?searchParam=BEATRIZ')).count).toBe(11);
    expect((await c.api('GET', '/schedules?searchParam=número 1')).schedules.map((s: Schedule) => s.body).sort()).toEqual(['Aviso número 1', ...Array.from({ length: 10 }, (_, i) => `Aviso número 1${i}`)].sort());
    expect((await c.api('GET', `/schedules?contactId=${caio.id}`)).count).toBe(11);
    expect((await c.api('GET', `/schedules?userId=${c.admin.id}&contactId=`)).count).toBe(22);
    expect((await c.api('GET', '/schedules?searchParam=%25')).count).toBe(0);
  });

  test('tenant isolation: another company sees, changes and deletes nothing of ours', async () => {
    const s = await A.schedule(ana.id, 'Só da empresa A', 86_400_000);
    expect((await B.api('GET', '/schedules')).schedules.some((x: Schedule) => x.id === s.id)).toBe(false);
    for (const [method, body] of [['GET', undefined], ['PUT', { body: 'Invasão de B' }], ['DELETE', undefined]] as const) {
      expect(err(await k.as(B.admin, method, `/schedules/${s.id}`, body))).toEqual({ status: 404, error: 'ERR_NO_SCHEDULE_FOUND' });
    }
    expect(err(await k.as(B.admin, 'GET', `/schedules?contactId=${ana.id}`)).status).toBe(200);
    expect((await B.api('GET', `/schedules?contactId=${ana.id}`)).count).toBe(0);
    expect(await k.services.get(schedulesService).get(B.companyId, s.id)).toBeUndefined();
    expect(await pendingJob(k, s.id)).toBeDefined();
  });

  test('a merge of duplicate contacts (issue 33 item 5) moves their schedules to the contact kept (never deleted with the duplicate); its job still sends it', async () => {
    const dup = await A.contact('Ana (duplicada)');
    const s = await A.schedule(dup.id, 'Lembrete da duplicada', 86_400_000);
    const preview = await A.api('POST', '/contacts/merge/preview', { targetId: ana.id, sourceIds: [dup.id] });
    expect(preview.counts).toMatchObject({ schedules: 1 });
    const merged = await A.api('POST', '/contacts/merge', { targetId: ana.id, sourceIds: [dup.id], previewToken: preview.previewToken });
    expect(merged.counts).toMatchObject({ schedules: 1 });
    expect((await A.api('GET', `/schedules/${s.id}`)).contactId).toBe(ana.id);
    expect(await pendingJob(k, s.id)).toBeDefined();
  });

  test('the plan gate: a company without useSchedules gets 403 ERR_FEATURE_NOT_IN_PLAN', async () => {
    const c = await Tenant.create(k, [], { without: ['useSchedules'] });
    const x = await c.contact('Sem plano');
    expect(err(await k.as(c.admin, 'GET', '/schedules'))).toEqual({ status: 403, error: 'ERR_FEATURE_NOT_IN_PLAN' });
    expect(err(await k.as(c.admin, 'POST', '/schedules', { body: 'Não pode', contactId: x.id, sendAt: future(1) }))).toEqual({ status: 403, error: 'ERR_FEATURE_NOT_IN_PLAN' });
  });

  test('i18n/errors.json translates exactly the declared codes in the four languages', () => {
    const texts = JSON.parse(readFileSync(join(__dirname, '..', 'i18n', 'errors.json'), 'utf8')) as Record<string, Record<string, string>>;
    expect(Object.keys(texts)).toEqual(['pt-BR', 'en', 'es', 'tr']);
    for (const table of Object.values(texts)) expect(Object.keys(table).sort()).toEqual(Object.keys(schedules.errors ?? {}).sort());
  });
});
