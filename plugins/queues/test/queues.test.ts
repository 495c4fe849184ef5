import { collectEvents, createTestKernel, nextEvent, type TestKernel, type TestUser } from '@atendo/testing';
import type { ErrorCode } from '@atendo/sdk';
import queuesPlugin from '../src';
import { DEMO_QUEUES, seedQueues } from '../src/seed';
import { queuesService } from '../src/contract';

function expectError(res: { statusCode: number; json(): { error: string } }, status: number, code: ErrorCode) {
  expect({ status: res.statusCode, error: res.json().error }).toEqual({ status, error: code });
}

const QUEUE_KEYS = [
  'ativarRoteador', 'closeTicket', 'color', 'companyId', 'createdAt', 'fileListId', 'greetingMessage', 'id', 'integrationId', 'name',
  'orderQueue', 'outOfHoursMessage', 'promptId', 'schedules', 'tempoRoteador', 'updatedAt',
];
const SCHEDULES = [
  { weekday: 'Segunda-feira', weekdayEn: 'monday', startTimeA: '08:00', endTimeA: '12:00', startTimeB: '13:00', endTimeB: '18:00' },
  { weekday: 'Sábado', weekdayEn: 'saturday', startTimeA: '09:00', endTimeA: '12:00', startTimeB: '', endTimeB: '' },
];

describe('queues plugin', () => {
  let k: TestKernel;
  let a: { companyId: number; admin: TestUser };
  let b: { companyId: number; admin: TestUser };
  let aUser: TestUser;
  let n = 0;
  const email = () => `q${Date.now().toString(36)}${n++}@example.com`;
  let colorSeq = 0x100000;
  const color = () => `#${(colorSeq++).toString(16)}`;
  const create = (who: TestUser, body: Record<string, unknown>) => k.as(who, 'POST', '/queue', { color: color(), ...body });

  beforeAll(async () => {
    k = await createTestKernel({ plugins: [queuesPlugin] });
    a = await k.createCompany();
    b = await k.createCompany();
    aUser = await k.createUser(a.companyId, { profile: 'user' });
  });
  afterAll(() => k.close());

  test('admin creates, reads, updates and deletes a queue; wire shapes and status codes', async () => {
    const res = await k.as(a.admin, 'POST', '/queue', {
      name: ' Vendas ', color: '#2563EB', greetingMessage: 'Bem-vindo', outOfHoursMessage: '', orderQueue: '', ativarRoteador: true, tempoRoteador: '',
      integrationId: '', fileListId: null, promptId: '', closeTicket: false, schedules: SCHEDULES, chatbots: [{ name: 'Opção um' }], companyId: b.companyId,
    });
    expect({ status: res.statusCode, body: res.statusCode === 200 ? 'ok' : res.body }).toEqual({ status: 200, body: 'ok' });
    const q = res.json();
    expect(Object.keys(q).sort()).toEqual([...QUEUE_KEYS, 'chatbots'].sort());
    expect(q).toMatchObject({
      companyId: a.companyId, name: 'Vendas', color: '#2563EB', greetingMessage: 'Bem-vindo', outOfHoursMessage: null, orderQueue: null,
      ativarRoteador: true, tempoRoteador: 0, integrationId: null, fileListId: null, promptId: null, closeTicket: false, schedules: SCHEDULES,
      chatbots: [expect.objectContaining({ name: 'Opção um', queueId: q.id, chatbotId: null, queueType: 'text', order: 0, options: [] })],
    });

    const one = await k.as(aUser, 'GET', `/queue/${q.id}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual(q);

    // No prompts plugin loaded: no id can name a prompt (issue 37 item 5).
    expect((await k.as(a.admin, 'PUT', `/queue/${q.id}`, { promptId: 9 })).json()).toMatchObject({ error: 'ERR_VALIDATION' });
    const upd = await k.as(a.admin, 'PUT', `/queue/${q.id}`, { name: 'Vendas B2B', color: '#2563eb', orderQueue: 4, tempoRoteador: 15, promptId: null, schedules: [] });
    expect(upd.statusCode).toBe(201);
    expect(upd.json()).toMatchObject({ id: q.id, name: 'Vendas B2B', color: '#2563eb', orderQueue: 4, tempoRoteador: 15, promptId: null, schedules: [], greetingMessage: 'Bem-vindo', chatbots: q.chatbots });

    const del = await k.as(a.admin, 'DELETE', `/queue/${q.id}`);
    expect(del.statusCode).toBe(200);
    expect(del.json()).toEqual({ message: 'Queue deleted' });
    expectError(await k.as(a.admin, 'GET', `/queue/${q.id}`), 404, 'ERR_NO_QUEUE_FOUND');
    expectError(await k.as(a.admin, 'PUT', `/queue/${q.id}`, { name: 'Ghost' }), 404, 'ERR_NO_QUEUE_FOUND');
    expectError(await k.as(a.admin, 'DELETE', `/queue/${q.id}`), 404, 'ERR_NO_QUEUE_FOUND');
  });

  test('GET /queue: the caller company only, ordered by orderQueue (nulls last) then id; companyId param ignored', async () => {
    const { companyId, admin } = await k.createCompany();
    const z = (await create(admin, { name: 'Zeta', orderQueue: null })).json();
    const second = (await create(admin, { name: 'Second', orderQueue: 2 })).json();
    const first = (await create(admin, { name: 'First', orderQueue: 1 })).json();
    const y = (await create(admin, { name: 'Ypsilon' })).json();
    await create(a.admin, { name: 'Other company queue', orderQueue: 0 });
    const res = await k.as(admin, 'GET', `/queue?companyId=${a.companyId}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().map((q: { id: number }) => q.id)).toEqual([first.id, second.id, z.id, y.id]);
    for (const q of res.json()) {
      expect(q.companyId).toBe(companyId);
      expect(Object.keys(q).sort()).toEqual(QUEUE_KEYS);
    }
  });

  test('names and colours are unique per company, case-insensitively; other companies may reuse them', async () => {
    const q = (await create(a.admin, { name: 'Suporte Técnico', color: '#ABCDEF' })).json();
    expectError(await create(a.admin, { name: 'SUPORTE TÉCNICO' }), 409, 'ERR_QUEUE_NAME_ALREADY_EXISTS');
    expectError(await create(a.admin, { name: 'Outra Fila', color: '#abcdef' }), 409, 'ERR_QUEUE_COLOR_ALREADY_EXISTS');
    const other = (await create(a.admin, { name: 'Outra Fila' })).json();
    expectError(await k.as(a.admin, 'PUT', `/queue/${other.id}`, { name: 'suporte técnico' }), 409, 'ERR_QUEUE_NAME_ALREADY_EXISTS');
    expectError(await k.as(a.admin, 'PUT', `/queue/${other.id}`, { color: '#ABCDEF' }), 409, 'ERR_QUEUE_COLOR_ALREADY_EXISTS');
    const keep = await k.as(a.admin, 'PUT', `/queue/${q.id}`, { name: 'Suporte Técnico', color: '#ABCDEF', greetingMessage: 'Oi' });
    expect(keep.statusCode).toBe(201);
    const inB = await k.as(b.admin, 'POST', '/queue', { name: 'Suporte Técnico', color: '#ABCDEF' });
    expect(inB.statusCode).toBe(200);
    expect(inB.json().companyId).toBe(b.companyId);
    // Concurrent duplicates: one wins, the other gets the catalogue code (not a 500 from the unique index).
    const race = await Promise.all([1, 2].map(() => create(a.admin, { name: 'Corrida' })));
    expect(race.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(race.find((r) => r.statusCode === 409)!.json().error).toBe('ERR_QUEUE_NAME_ALREADY_EXISTS');
  });

  test("another company's queue is 404 on GET, PUT and DELETE and stays unchanged", async () => {
    const q = (await create(a.admin, { name: 'Privada A' })).json();
    for (const who of [b.admin, await k.createUser(b.companyId)]) {
      expectError(await k.as(who, 'GET', `/queue/${q.id}`), 404, 'ERR_NO_QUEUE_FOUND');
    }
    expectError(await k.as(b.admin, 'PUT', `/queue/${q.id}`, { name: 'Roubada' }), 404, 'ERR_NO_QUEUE_FOUND');
    expectError(await k.as(b.admin, 'DELETE', `/queue/${q.id}`), 404, 'ERR_NO_QUEUE_FOUND');
    expect(await k.db('queues').where({ id: q.id }).first()).toMatchObject({ name: 'Privada A', companyId: a.companyId });
    const listB = await k.as(b.admin, 'GET', '/queue');
    expect(listB.json().some((x: { id: number }) => x.id === q.id)).toBe(false);
  });

  test('plain users read queues but cannot write them', async () => {
    const q = (await create(a.admin, { name: 'Leitura' })).json();
    expect((await k.as(aUser, 'GET', '/queue')).statusCode).toBe(200);
    expect((await k.as(aUser, 'GET', `/queue/${q.id}`)).statusCode).toBe(200);
    const supervisor = await k.createUser(a.companyId, { profile: 'supervisor' });
    for (const who of [aUser, supervisor]) {
      expectError(await create(who, { name: 'Proibida' }), 403, 'ERR_NO_PERMISSION');
      expectError(await k.as(who, 'PUT', `/queue/${q.id}`, { name: 'Proibida' }), 403, 'ERR_NO_PERMISSION');
      expectError(await k.as(who, 'DELETE', `/queue/${q.id}`), 403, 'ERR_NO_PERMISSION');
    }
    expectError(await k.as(null, 'GET', '/queue'), 401, 'ERR_SESSION_EXPIRED');
    expect((await k.db('queues').where({ id: q.id }).first()).name).toBe('Leitura');
  });

  test('bad input answers 400 ERR_VALIDATION, never 500', async () => {
    const ok = { name: 'Valida', color: '#123456' };
    const bodies: Record<string, unknown>[] = [
      { color: '#123456' },
      { name: 'Sem cor' },
      { ...ok, name: 'a' },
      { ...ok, name: '  a  ' },
      { ...ok, name: 'x'.repeat(51) },
      { ...ok, color: 'blue' },
      { ...ok, color: '#12345' },
      { ...ok, color: '#1234567890' },
      { ...ok, greetingMessage: 'x'.repeat(5001) },
      { ...ok, outOfHoursMessage: 'x'.repeat(5001) },
      { ...ok, orderQueue: 'abc' },
      { ...ok, orderQueue: -1 },
      { ...ok, tempoRoteador: 1e9 },
      { ...ok, integrationId: 0.5 },
      { ...ok, promptId: 99999999999 },
      { ...ok, ativarRoteador: 'talvez' },
      { ...ok, schedules: 'always' },
      { ...ok, schedules: Array.from({ length: 8 }, () => SCHEDULES[0]) },
      { ...ok, schedules: [{ ...SCHEDULES[0], startTimeA: '25:00' }] },
      { ...ok, schedules: [{ ...SCHEDULES[0], endTimeB: '8h' }] },
      { ...ok, schedules: [{ startTimeA: '08:00' }] },
    ];
    for (const body of bodies) {
      const res = await k.as(a.admin, 'POST', '/queue', body);
      expect({ body, status: res.statusCode, error: res.json().error }).toEqual({ body, status: 400, error: 'ERR_VALIDATION' });
    }
    const q = (await create(a.admin, { name: 'Para editar' })).json();
    for (const body of [{ name: 'b' }, { color: 'red' }, { orderQueue: 'x' }, { schedules: [{ ...SCHEDULES[0], startTimeB: '99:99' }] }]) {
      const res = await k.as(a.admin, 'PUT', `/queue/${q.id}`, body);
      expect({ body, status: res.statusCode, error: res.json().error }).toEqual({ body, status: 400, error: 'ERR_VALIDATION' });
    }
    for (const url of ['/queue/-1', '/queue/0', '/queue/abc', '/queue/99999999999']) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = await k.as(a.admin, method, url, method === 'PUT' ? { name: 'Qualquer' } : undefined);
        expect({ url, method, status: res.statusCode, error: res.json().error }).toEqual({ url, method, status: 400, error: 'ERR_VALIDATION' });
      }
    }
    expect(await k.db('queues').where({ companyId: a.companyId, name: 'Valida' }).first()).toBeUndefined();
  });

  test('company-{id}-queue events reach the company sockets only', async () => {
    const base = await k.listen();
    const sa = await k.socket(aUser.token, base);
    const sb = await k.socket(b.admin.token, base);
    try {
      const leak = collectEvents(sb, `company-${a.companyId}-queue`, 600);
      const created = nextEvent<{ action: string; queue: { id: number; name: string } }>(sa, `company-${a.companyId}-queue`);
      const q = (await create(a.admin, { name: 'Com eventos' })).json();
      expect(await created).toMatchObject({ action: 'update', queue: { id: q.id, name: 'Com eventos', companyId: a.companyId } });
      const updated = nextEvent<{ action: string; queue: { name: string } }>(sa, `company-${a.companyId}-queue`);
      await k.as(a.admin, 'PUT', `/queue/${q.id}`, { name: 'Com eventos 2' });
      expect(await updated).toMatchObject({ action: 'update', queue: { id: q.id, name: 'Com eventos 2' } });
      const deleted = nextEvent(sa, `company-${a.companyId}-queue`);
      await k.as(a.admin, 'DELETE', `/queue/${q.id}`);
      expect(await deleted).toEqual({ action: 'delete', queueId: q.id });
      expect(await leak).toEqual([]);
    } finally {
      sa.close();
      sb.close();
    }
  });

  test('user extension: users carry their queues; queueIds are saved with the user, scoped to its company', async () => {
    const q1 = (await create(a.admin, { name: 'Ext Um', orderQueue: 1 })).json();
    const q2 = (await create(a.admin, { name: 'Ext Dois', orderQueue: 2 })).json();
    const qb = (await create(b.admin, { name: 'Ext B' })).json();

    const res = await k.as(a.admin, 'POST', '/users', { name: 'Atendente Filas', email: email(), password: 'abcdef', queueIds: [q2.id, q1.id, q1.id] });
    expect(res.statusCode).toBe(200);
    const user = res.json();
    expect(user.queues).toEqual([
      { id: q1.id, name: 'Ext Um', color: q1.color, UserQueue: expect.objectContaining({ userId: user.id, queueId: q1.id }) },
      { id: q2.id, name: 'Ext Dois', color: q2.color, UserQueue: expect.objectContaining({ userId: user.id, queueId: q2.id }) },
    ]);

    const listed = await k.as(a.admin, 'GET', '/users?searchParam=Atendente Filas');
    expect(listed.json().users[0].queues.map((q: { id: number }) => q.id)).toEqual([q1.id, q2.id]);
    const short = await k.as(aUser, 'GET', '/users/list');
    expect(short.json().find((u: { id: number }) => u.id === user.id).queues.map((q: { id: number }) => q.id)).toEqual([q1.id, q2.id]);
    const others = short.json().filter((u: { id: number }) => u.id !== user.id);
    expect(others.every((u: { queues: unknown[] }) => Array.isArray(u.queues) && u.queues.length === 0)).toBe(true);

    // Another company's queue is refused and nothing changes (the whole save is one transaction).
    expectError(await k.as(a.admin, 'PUT', `/users/${user.id}`, { name: 'Renomeado', queueIds: [q1.id, qb.id] }), 404, 'ERR_NO_QUEUE_FOUND');
    const row = await k.db('users').where({ id: user.id }).first();
    expect(row.name).toBe('Atendente Filas');
    expect((await k.db('userQueues').where({ userId: user.id }).orderBy('queueId').select('queueId')).map((r: { queueId: number }) => r.queueId)).toEqual([q1.id, q2.id].sort((x, y) => x - y));
    const before = await k.db('users').count({ c: '*' }).first();
    expectError(await k.as(a.admin, 'POST', '/users', { name: 'Nao Criado', email: email(), password: 'abcdef', queueIds: [qb.id] }), 404, 'ERR_NO_QUEUE_FOUND');
    expect(await k.db('users').count({ c: '*' }).first()).toEqual(before);
    expectError(await k.as(a.admin, 'PUT', `/users/${user.id}`, { queueIds: [2147483647] }), 404, 'ERR_NO_QUEUE_FOUND');

    const upd = await k.as(a.admin, 'PUT', `/users/${user.id}`, { queueIds: [q2.id] });
    expect(upd.statusCode).toBe(200);
    expect(upd.json().queues.map((q: { id: number }) => q.id)).toEqual([q2.id]);
    const untouched = await k.as(a.admin, 'PUT', `/users/${user.id}`, { name: 'Sem mudar filas' });
    expect(untouched.json().queues.map((q: { id: number }) => q.id)).toEqual([q2.id]);

    // A plain user may resend its own queues but not change them.
    const self = await k.createUser(a.companyId, { profile: 'user' });
    await k.as(a.admin, 'PUT', `/users/${self.id}`, { queueIds: [q1.id] });
    const same = await k.as(self, 'PUT', `/users/${self.id}`, { name: 'Eu Mesmo', queueIds: [q1.id] });
    expect(same.statusCode).toBe(200);
    expect(same.json().queues.map((q: { id: number }) => q.id)).toEqual([q1.id]);
    expectError(await k.as(self, 'PUT', `/users/${self.id}`, { queueIds: [q1.id, q2.id] }), 403, 'ERR_NO_PERMISSION');
    expectError(await k.as(self, 'PUT', `/users/${self.id}`, { queueIds: [] }), 403, 'ERR_NO_PERMISSION');

    // Deleting a queue removes it from its users; deleting a user removes its memberships.
    await k.as(a.admin, 'DELETE', `/queue/${q2.id}`);
    expect((await k.as(a.admin, 'GET', `/users/${user.id}`)).json().queues).toEqual([]);
    await k.as(a.admin, 'PUT', `/users/${user.id}`, { queueIds: [q1.id] });
    await k.as(a.admin, 'DELETE', `/users/${user.id}`);
    expect(await k.db('userQueues').where({ userId: user.id })).toEqual([]);
  });

  test('the queues service answers within the company only', async () => {
    const svc = k.services.get(queuesService);
    const q = (await create(a.admin, { name: 'Servico' })).json();
    const u = await k.createUser(a.companyId);
    await k.as(a.admin, 'PUT', `/users/${u.id}`, { queueIds: [q.id] });
    expect(await svc.listQueueIds(a.companyId, u.id)).toEqual([q.id]);
    expect(await svc.userIdsOfQueue(a.companyId, q.id)).toEqual([u.id]);
    expect(await svc.getQueue(a.companyId, q.id)).toMatchObject({ id: q.id, name: 'Servico', companyId: a.companyId });
    expect(await svc.listQueueIds(b.companyId, u.id)).toEqual([]);
    expect(await svc.userIdsOfQueue(b.companyId, q.id)).toEqual([]);
    expect(await svc.getQueue(b.companyId, q.id)).toBeUndefined();
  });
});

describe('queues demo seed', () => {
  let k: TestKernel;
  beforeAll(async () => {
    k = await createTestKernel({ plugins: [queuesPlugin], env: { SEED_DEMO: 'true' } });
  });
  afterAll(() => k.close());

  const state = async () => {
    const queues = await k.db('queues').where({ companyId: 1 }).orderBy('id').select('id', 'name', 'color');
    const members = await k.db('userQueues as uq')
      .join('users as u', 'u.id', 'uq.userId')
      .join('queues as q', 'q.id', 'uq.queueId')
      .orderBy(['u.email', 'q.name'])
      .select('u.email', 'q.name');
    return { queues, members };
  };

  test('company 1 gets the demo queues and the demo attendants serve them; running it again changes nothing', async () => {
    const first = await state();
    expect(first.queues.map((q: { name: string; color: string }) => [q.name, q.color])).toEqual(DEMO_QUEUES.map((q) => [q.name, q.color]));
    expect(first.members.map((m: { email: string; name: string }) => `${m.email}:${m.name}`)).toEqual([
      'ana@example.com:Comercial', 'ana@example.com:Suporte', 'bruno@example.com:Suporte',
      'carla@example.com:Comercial', 'carla@example.com:Financeiro', 'carla@example.com:Suporte',
    ]);
    const ctx = { db: k.db, log: k.app.log, services: k.services, identity: k.identity, demo: true, companyId: 1 };
    await seedQueues(ctx);
    expect(await state()).toEqual(first);
    await seedQueues({ ...ctx, demo: false });
    expect(await state()).toEqual(first);
  });
});
