import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PluginDefinition } from '@atendo/sdk';
import { collectEvents, createTestKernel, nextEvent, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import { sortPlugins } from '@atendo/core/src/plugins/loader';
import connectionsPlugin from '../src/index';
import { connectionsService, type ConnectionsService } from '../src/contract';
import { seedConnections } from '../src/seed';

// The queues plugin is optional for this plugin: load it when its package is present.
const QUEUES_ENTRY = join(__dirname, '..', '..', 'queues', 'src', 'index.ts');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const queuesPlugin: PluginDefinition | undefined = existsSync(QUEUES_ENTRY) ? (require('@atendo/plugin-queues') as { default: PluginDefinition }).default : undefined;
const withQueues = queuesPlugin ? test : test.skip;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('connections plugin', () => {
  let k: TestKernel;
  let svc: ConnectionsService;
  let A: { companyId: number; admin: TestUser };
  let B: { companyId: number; admin: TestUser };
  let userA: TestUser;
  let n = 0;
  const uniqueName = (p = 'Conn') => `${p} ${++n}`;

  beforeAll(async () => {
    k = await createTestKernel({ plugins: [...(queuesPlugin ? [queuesPlugin] : []), connectionsPlugin] });
    svc = k.services.get(connectionsService);
    A = await k.createCompany({ limits: { connections: 100 } });
    B = await k.createCompany({ limits: { connections: 100 } });
    userA = await k.createUser(A.companyId, { profile: 'user' });
  });
  afterAll(() => k.close());

  const post = (who: { token: string }, body: Json) => k.as(who, 'POST', '/whatsapp', body);
  const create = async (who: { token: string }, body: Json = {}): Promise<Json> => {
    const res = await post(who, { name: uniqueName(), ...body });
    expect({ status: res.statusCode, body: res.statusCode === 200 ? undefined : res.json() }).toEqual({ status: 200, body: undefined });
    return res.json();
  };
  const createQueue = async (who: { token: string }, name: string, color: string): Promise<number> => {
    const res = await k.as(who, 'POST', '/queue', { name, color, greetingMessage: `Hello from ${name}` });
    expect(res.statusCode).toBe(200);
    return res.json().id;
  };
  const expectError = (res: { statusCode: number; json(): Json }, status: number, code: string) => {
    expect({ status: res.statusCode, error: res.json().error }).toEqual({ status, error: code });
  };

  test('CRUD: create, list, get, update, delete with the wire shape', async () => {
    const { admin } = await k.createCompany();
    const created = await create(admin, { name: 'Principal', greetingMessage: 'Oi', timeCreateNewTicket: 30 });
    expect(created).toMatchObject({
      name: 'Principal',
      channel: 'whatsapp',
      status: 'DISCONNECTED',
      isDefault: true,
      qrcode: '',
      retries: 0,
      number: '',
      provider: 'beta',
      maxUseBotQueues: 3,
      maxUseBotQueuesNPS: 3,
      groupAsTicket: 'disabled',
      whenExpiresTicket: '0',
      timeCreateNewTicket: 30,
      greetingMessage: 'Oi',
      hasToken: false,
      schedules: [],
      queues: [],
      facebookPageUserId: null,
    });
    expect(created.companyId).toBe(admin.companyId);
    expect(created.token).toMatch(/^[A-Z0-9]{30}$/);
    expect(typeof created.updatedAt).toBe('string');

    const list = await k.as(admin, 'GET', '/whatsapp/?session=0');
    expect(list.statusCode).toBe(200);
    expect(list.json().map((c: Json) => c.id)).toEqual([created.id]);
    expect(list.json()[0].token).toBeUndefined();
    // Old clients' params are ignored: companyId never selects another company.
    const legacy = await k.as(admin, 'GET', `/whatsapp?companyId=${A.companyId}&session=0`);
    expect(legacy.json().map((c: Json) => c.id)).toEqual([created.id]);

    const one = await k.as(admin, 'GET', `/whatsapp/${created.id}?session=0`);
    expect(one.statusCode).toBe(200);
    expect(one.json().token).toBe(created.token);

    const upd = await k.as(admin, 'PUT', `/whatsapp/${created.id}`, { name: 'Principal 2', maxUseBotQueuesNPS: 5, expiresTicketNPS: 60, allowGroup: true, schedules: [{ weekday: 'Segunda', weekdayEn: 'monday', startTimeA: '08:00', endTimeA: '12:00', startTimeB: '', endTimeB: '' }] });
    expect(upd.statusCode).toBe(200);
    expect(upd.json()).toMatchObject({ id: created.id, name: 'Principal 2', maxUseBotQueuesNPS: 5, expiresTicketNPS: 60, allowGroup: true, greetingMessage: 'Oi', token: created.token });
    expect(upd.json().schedules).toEqual([{ weekday: 'Segunda', weekdayEn: 'monday', startTimeA: '08:00', endTimeA: '12:00', startTimeB: '', endTimeB: '' }]);

    const del = await k.as(admin, 'DELETE', `/whatsapp/${created.id}`);
    expect(del.statusCode).toBe(200);
    expect(del.json()).toEqual({ message: 'Connection deleted' });
    expectError(await k.as(admin, 'GET', `/whatsapp/${created.id}`), 404, 'ERR_NO_WAPP_FOUND');
    expectError(await k.as(admin, 'DELETE', `/whatsapp/${created.id}`), 404, 'ERR_NO_WAPP_FOUND');
    expect((await k.as(admin, 'GET', '/whatsapp')).json()).toEqual([]);
  });

  test('an empty token is generated, a given one kept; empty token on update keeps it; tokens are unique (409)', async () => {
    const given = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123';
    const c = await create(A.admin, { token: given });
    expect(c.token).toBe(given);
    const kept = await k.as(A.admin, 'PUT', `/whatsapp/${c.id}`, { token: '' });
    expect(kept.json().token).toBe(given);
    expectError(await post(B.admin, { name: uniqueName(), token: given }), 409, 'ERR_DUPLICATED_TOKEN');
    const other = await create(A.admin, { token: null });
    expect(other.token).toMatch(/^[A-Z0-9]{30}$/);
    expect(other.token).not.toBe(given);
    expectError(await k.as(A.admin, 'PUT', `/whatsapp/${other.id}`, { token: given }), 409, 'ERR_DUPLICATED_TOKEN');
    expect(await svc.findByApiToken(given)).toEqual({ id: c.id, companyId: A.companyId, channel: 'whatsapp' });
    expect(await svc.findByApiToken('NOPE-NOPE-NOPE-NOPE')).toBeUndefined();
  });

  test('secrets never appear in answers or pushes: facebookUserToken, tokenMeta, session', async () => {
    const base = await k.listen();
    const { admin, companyId } = await k.createCompany();
    const socket = await k.socket(admin.token, base);
    const secret = 'EAAGsecretTOKENvalue1234567890xyz';
    const metaSecret = 'meta-secret-abcdef-123456';
    try {
      const events = collectEvents(socket, `company-${companyId}-whatsapp`, 1500);
      const res = await post(admin, { name: 'Página', channel: 'facebook', facebookPageUserId: '555000111', facebookUserToken: secret, tokenMeta: metaSecret, facebookUserId: '42' });
      expect(res.statusCode).toBe(200);
      const c = res.json();
      expect(c).toMatchObject({ channel: 'facebook', status: 'CONNECTED', hasToken: true, facebookPageUserId: '555000111', facebookUserId: '42' });
      await svc.saveSession(companyId, c.id, '{"creds":"baileys-session-blob"}');
      const answers = [
        res.body,
        (await k.as(admin, 'GET', '/whatsapp')).body,
        (await k.as(admin, 'GET', '/whatsapp/')).body,
        (await k.as(admin, 'GET', `/whatsapp/${c.id}`)).body,
        (await k.as(admin, 'PUT', `/whatsapp/${c.id}`, { name: 'Página 2' })).body,
        JSON.stringify(await events),
        JSON.stringify(await svc.list(companyId)),
        JSON.stringify(await svc.get(companyId, c.id)),
      ];
      for (const text of answers) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain(metaSecret);
        expect(text).not.toContain('baileys-session-blob');
        expect(text.toLowerCase()).not.toContain('session');
        expect(text).not.toContain('facebookUserToken');
        expect(text).not.toContain('tokenMeta');
      }
      expect(JSON.parse(answers[5]).length).toBeGreaterThanOrEqual(1);
      // PUT without facebookUserToken (or with an empty one) keeps the stored token.
      await k.as(admin, 'PUT', `/whatsapp/${c.id}`, { facebookUserToken: '' });
      const withSecrets = await svc.getWithSecrets(companyId, c.id);
      expect(withSecrets).toMatchObject({ id: c.id, facebookUserToken: secret, tokenMeta: metaSecret, session: '{"creds":"baileys-session-blob"}' });
      expect(withSecrets!.token).toMatch(/^[A-Z0-9]{30}$/);
      await svc.saveSession(companyId, c.id, null);
      expect((await svc.getWithSecrets(companyId, c.id))!.session).toBeNull();
      expect(await svc.getWithSecrets(B.companyId, c.id)).toBeUndefined();
    } finally {
      socket.close();
    }
  });

  test('default connection: first is default, moving it unsets the previous (both pushed), never unset, delete promotes the oldest', async () => {
    const base = await k.listen();
    const { admin, companyId } = await k.createCompany();
    const socket = await k.socket(admin.token, base);
    const defaults = async () => (await k.db('whatsapps').where({ companyId, isDefault: true }).select('id')).map((r) => r.id);
    // Events are delivered asynchronously (over RabbitMQ in CI): before each observation window, wait for
    // the event of the previous step so that no late event leaks into the window.
    const all: Json[] = [];
    socket.on(`company-${companyId}-whatsapp`, (e: Json) => all.push(e));
    const settled = (pred: (e: Json) => boolean) => waitFor(() => all.some(pred), 5000);
    try {
      const first = await create(admin);
      expect(first.isDefault).toBe(true);
      const second = await create(admin);
      expect(second.isDefault).toBe(false);
      expect(await defaults()).toEqual([first.id]);
      await settled((e) => e.action === 'update' && e.whatsapp.id === second.id);

      const events = collectEvents<Json>(socket, `company-${companyId}-whatsapp`, 600);
      const third = await create(admin, { isDefault: true });
      expect(third.isDefault).toBe(true);
      expect(await defaults()).toEqual([third.id]);
      const got = (await events).filter((e) => e.action === 'update').map((e) => [e.whatsapp.id, e.whatsapp.isDefault]);
      expect(got).toEqual([[first.id, false], [third.id, true]]);

      expectError(await k.as(admin, 'PUT', `/whatsapp/${third.id}`, { isDefault: false }), 400, 'ERR_NO_OTHER_WHATSAPP');
      const moved = await k.as(admin, 'PUT', `/whatsapp/${second.id}`, { isDefault: true });
      expect(moved.json().isDefault).toBe(true);
      expect(await defaults()).toEqual([second.id]);
      expect((await svc.getDefault(companyId))!.id).toBe(second.id);

      // Concurrent moves (and creates claiming the default) are serialised: all succeed, one default remains.
      const extra = await create(admin);
      const racing = await Promise.all([
        ...[first.id, third.id, extra.id].map((id) => k.as(admin, 'PUT', `/whatsapp/${id}`, { isDefault: true })),
        post(admin, { name: uniqueName(), isDefault: true }),
      ]);
      expect(racing.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
      expect((await defaults()).length).toBe(1);
      await k.as(admin, 'DELETE', `/whatsapp/${extra.id}`);
      await k.as(admin, 'DELETE', `/whatsapp/${racing[3].json().id}`);
      expect((await defaults()).length).toBe(1);
      const current = (await defaults())[0];
      await settled((e) => e.action === 'delete' && e.whatsappId === racing[3].json().id);
      await new Promise((r) => setTimeout(r, 200));

      const promoted = collectEvents<Json>(socket, `company-${companyId}-whatsapp`, 600);
      expect((await k.as(admin, 'DELETE', `/whatsapp/${current}`)).statusCode).toBe(200);
      const remaining = [first.id, second.id, third.id].filter((id) => id !== current).sort((a, b) => a - b);
      expect(await defaults()).toEqual([remaining[0]]);
      // Events of the earlier deletes may still be in flight (the bus is asynchronous): look for this one.
      const pushed = await promoted;
      expect(pushed).toContainEqual({ action: 'delete', whatsappId: current });
      expect(pushed.find((e) => e.action === 'update')?.whatsapp).toMatchObject({ id: remaining[0], isDefault: true });
    } finally {
      socket.close();
    }
  });

  test('getDefault by channel falls back to the channel\'s oldest connection', async () => {
    const { admin, companyId } = await k.createCompany();
    expect(await svc.getDefault(companyId)).toBeUndefined();
    const wa = await create(admin);
    const ig = await create(admin, { channel: 'instagram', facebookPageUserId: String(9_000_000 + n), facebookUserToken: 'tok-ig-1' });
    expect((await svc.getDefault(companyId))!.id).toBe(wa.id);
    expect((await svc.getDefault(companyId, 'whatsapp'))!.id).toBe(wa.id);
    expect((await svc.getDefault(companyId, 'instagram'))!.id).toBe(ig.id);
    expect(await svc.getDefault(companyId, 'facebook')).toBeUndefined();
  });

  withQueues('queues: shape, ERR_WAPP_GREETING_REQUIRED with more than one queue, foreign queue ids refused, deleted queues dropped', async () => {
    const { admin, companyId } = await k.createCompany();
    const q1 = await createQueue(admin, 'Vendas', '#111111');
    const q2 = await createQueue(admin, 'Suporte', '#222222');
    const foreign = await createQueue(B.admin, uniqueName('Fila B'), '#33333' + (n % 10));

    expectError(await post(admin, { name: uniqueName(), queueIds: [q1, q2] }), 400, 'ERR_WAPP_GREETING_REQUIRED');
    expectError(await post(admin, { name: uniqueName(), queueIds: [q1, q2], greetingMessage: '   ' }), 400, 'ERR_WAPP_GREETING_REQUIRED');
    expectError(await post(admin, { name: uniqueName(), queueIds: [q1, foreign] , greetingMessage: 'Oi' }), 404, 'ERR_NO_QUEUE_FOUND');
    expectError(await post(admin, { name: uniqueName(), sendIdQueue: foreign }), 404, 'ERR_NO_QUEUE_FOUND');
    const single = await create(admin, { queueIds: [q1] });
    expect(single.queues).toEqual([{ id: q1, name: 'Vendas', color: '#111111', greetingMessage: 'Hello from Vendas' }]);

    const c = await create(admin, { queueIds: [q2, q1, q1], greetingMessage: 'Escolha', sendIdQueue: q2, timeSendQueue: 15 });
    expect(c.queues.map((q: Json) => q.id).sort()).toEqual([q1, q2].sort());
    expect(Object.keys(c.queues[0]).sort()).toEqual(['color', 'greetingMessage', 'id', 'name']);
    expect(c).toMatchObject({ sendIdQueue: q2, timeSendQueue: 15 });
    expect((await svc.queueIdsOf(companyId, c.id)).sort()).toEqual([q1, q2].sort());
    expect(await svc.queueIdsOf(B.companyId, c.id)).toEqual([]);

    expectError(await k.as(admin, 'PUT', `/whatsapp/${c.id}`, { greetingMessage: '' }), 400, 'ERR_WAPP_GREETING_REQUIRED');
    expectError(await k.as(admin, 'PUT', `/whatsapp/${single.id}`, { queueIds: [q1, q2] }), 400, 'ERR_WAPP_GREETING_REQUIRED');
    const narrowed = await k.as(admin, 'PUT', `/whatsapp/${c.id}`, { queueIds: [q2], greetingMessage: null });
    expect(narrowed.statusCode).toBe(200);
    expect(narrowed.json().queues.map((q: Json) => q.id)).toEqual([q2]);
    expect(narrowed.json().greetingMessage).toBeNull();

    // A queue deleted in the queues plugin disappears from the connection (and its link row is cleaned).
    expect((await k.as(admin, 'DELETE', `/queue/${q1}`)).statusCode).toBe(200);
    const after = (await k.as(admin, 'GET', `/whatsapp/${single.id}`)).json();
    expect(after.queues).toEqual([]);
    expect(await k.db('whatsappQueues').where({ companyId, queueId: q1 })).toEqual([]);
  });

  test('without the queues plugin: any queue id is refused with ERR_NO_QUEUE_FOUND, connections have no queues', async () => {
    const bare = await createTestKernel({ plugins: [connectionsPlugin] });
    try {
      const { admin, companyId } = await bare.createCompany();
      expectError(await bare.as(admin, 'POST', '/whatsapp', { name: 'Sem filas', queueIds: [1] }), 404, 'ERR_NO_QUEUE_FOUND');
      const res = await bare.as(admin, 'POST', '/whatsapp', { name: 'Sem filas', queueIds: [] });
      expect(res.statusCode).toBe(200);
      expect(res.json().queues).toEqual([]);
      // A stale link row (queues plugin removed) is neither shown nor deleted.
      await bare.db('whatsappQueues').insert({ whatsappId: res.json().id, queueId: 424242, companyId });
      expect((await bare.as(admin, 'GET', '/whatsapp')).json()[0].queues).toEqual([]);
      expect(await bare.services.get(connectionsService).queueIdsOf(companyId, res.json().id)).toEqual([]);
      expect(await bare.db('whatsappQueues').where({ queueId: 424242 })).toHaveLength(1);
    } finally {
      await bare.close();
    }
  });

  test('the loader orders connections after queues when queues is loaded, and loads it without queues', () => {
    const fake: PluginDefinition = { id: 'queues', register: () => undefined };
    expect(sortPlugins([connectionsPlugin, fake]).map((d) => d.id)).toEqual(['queues', 'connections']);
    expect(sortPlugins([connectionsPlugin]).map((d) => d.id)).toEqual(['connections']);
  });

  test('plan gates per channel (403 ERR_FEATURE_NOT_IN_PLAN), on create and update', async () => {
    const noFb = await k.createCompany({ without: ['useFacebook'] });
    expectError(await post(noFb.admin, { name: uniqueName(), channel: 'facebook', facebookPageUserId: '700000001', facebookUserToken: 't' }), 403, 'ERR_FEATURE_NOT_IN_PLAN');
    expect((await post(noFb.admin, { name: uniqueName() })).statusCode).toBe(200);
    expect((await post(noFb.admin, { name: uniqueName(), channel: 'instagram', facebookPageUserId: '700000002', facebookUserToken: 't' })).statusCode).toBe(200);

    const noIg = await k.createCompany({ without: ['useInstagram'] });
    expectError(await post(noIg.admin, { name: uniqueName(), channel: 'instagram', facebookPageUserId: '700000003', facebookUserToken: 't' }), 403, 'ERR_FEATURE_NOT_IN_PLAN');

    const noWa = await k.createCompany({ without: ['useWhatsapp'] });
    expectError(await post(noWa.admin, { name: uniqueName() }), 403, 'ERR_FEATURE_NOT_IN_PLAN');
    expectError(await post(noWa.admin, { name: uniqueName(), channel: 'whatsappapi', facebookPageUserId: '700000004', facebookUserToken: 't' }), 403, 'ERR_FEATURE_NOT_IN_PLAN');
    const fb = await post(noWa.admin, { name: uniqueName(), channel: 'facebook', facebookPageUserId: '700000005', facebookUserToken: 't' });
    expect(fb.statusCode).toBe(200);

    // The plan loses useFacebook: the facebook connection can no longer be edited, but can be deleted.
    await k.db('plans').where({ id: noWa.planId }).update({ useFacebook: false });
    k.identity.invalidatePlans(noWa.companyId);
    expectError(await k.as(noWa.admin, 'PUT', `/whatsapp/${fb.json().id}`, { name: uniqueName() }), 403, 'ERR_FEATURE_NOT_IN_PLAN');
    expect((await k.as(noWa.admin, 'GET', `/whatsapp/${fb.json().id}`)).statusCode).toBe(200);
    expect((await k.as(noWa.admin, 'DELETE', `/whatsapp/${fb.json().id}`)).statusCode).toBe(200);
  });

  test('plan limit holds under 10 concurrent creates: exactly 2 rows, one default', async () => {
    const { admin, companyId } = await k.createCompany({ limits: { connections: 2 } });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => post(admin, { name: `Paralela ${i}` })));
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes).toEqual([200, 200, 400, 400, 400, 400, 400, 400, 400, 400]);
    for (const r of results.filter((x) => x.statusCode === 400)) expect(r.json().error).toBe('ERR_PLAN_LIMIT_REACHED');
    const rows = await k.db('whatsapps').where({ companyId });
    expect(rows.length).toBe(2);
    expect(rows.filter((r) => r.isDefault).length).toBe(1);
  });

  test('cross-tenant: company B cannot read, change or delete company A\'s connection', async () => {
    const a = await create(A.admin, { greetingMessage: 'A only' });
    expectError(await k.as(B.admin, 'GET', `/whatsapp/${a.id}`), 404, 'ERR_NO_WAPP_FOUND');
    expectError(await k.as(B.admin, 'PUT', `/whatsapp/${a.id}`, { name: 'Hijacked', isDefault: true }), 404, 'ERR_NO_WAPP_FOUND');
    expectError(await k.as(B.admin, 'DELETE', `/whatsapp/${a.id}`), 404, 'ERR_NO_WAPP_FOUND');
    const bList = (await k.as(B.admin, 'GET', `/whatsapp?companyId=${A.companyId}`)).json() as Json[];
    expect(bList.every((c) => c.companyId === B.companyId)).toBe(true);
    expect(bList.some((c) => c.id === a.id)).toBe(false);
    const still = await k.db('whatsapps').where({ id: a.id }).first();
    expect(still).toMatchObject({ companyId: A.companyId, name: a.name, greetingMessage: 'A only', isDefault: a.isDefault });
    // The service is scoped the same way.
    expect(await svc.get(B.companyId, a.id)).toBeUndefined();
    await expect(svc.updateStatus(B.companyId, a.id, { status: 'CONNECTED' })).rejects.toMatchObject({ code: 'ERR_NO_WAPP_FOUND' });
    await expect(svc.saveSession(B.companyId, a.id, 'x')).rejects.toMatchObject({ code: 'ERR_NO_WAPP_FOUND' });
  });

  test('users and supervisors read but cannot write (403 ERR_NO_PERMISSION); they never see the token or QR code', async () => {
    const c = await create(A.admin);
    await svc.updateStatus(A.companyId, c.id, { status: 'qrcode', qrcode: '2@QRDATA-secret', retries: 1 });
    const supervisor = await k.createUser(A.companyId, { profile: 'supervisor' });
    for (const who of [userA, supervisor]) {
      expectError(await post(who, { name: uniqueName() }), 403, 'ERR_NO_PERMISSION');
      expectError(await k.as(who, 'PUT', `/whatsapp/${c.id}`, { name: uniqueName() }), 403, 'ERR_NO_PERMISSION');
      expectError(await k.as(who, 'DELETE', `/whatsapp/${c.id}`), 403, 'ERR_NO_PERMISSION');
      const one = await k.as(who, 'GET', `/whatsapp/${c.id}`);
      expect(one.statusCode).toBe(200);
      expect(one.json()).toMatchObject({ id: c.id, status: 'qrcode', qrcode: '', retries: 1 });
      expect(one.json().token).toBeUndefined();
      const list = await k.as(who, 'GET', '/whatsapp');
      expect(list.body).not.toContain('QRDATA');
      expect(list.body).not.toContain(c.token);
    }
    expect((await k.as(A.admin, 'GET', `/whatsapp/${c.id}`)).json().qrcode).toBe('2@QRDATA-secret');
    expectError(await k.as(null, 'GET', '/whatsapp'), 401, 'ERR_SESSION_EXPIRED');
  });

  test('pushes reach the company\'s sockets only; session pushes carry the QR code to admins only', async () => {
    const base = await k.listen();
    const sA = await k.socket(A.admin.token, base);
    const sUser = await k.socket(userA.token, base);
    const sB = await k.socket(B.admin.token, base);
    try {
      const leakedToB = collectEvents(sB, `company-${A.companyId}-whatsapp`, 700);
      const bOwn = collectEvents(sB, `company-${B.companyId}-whatsapp`, 700);
      const got = nextEvent<Json>(sA, `company-${A.companyId}-whatsapp`);
      const c = await create(A.admin, { name: 'Evento' });
      expect(await got).toMatchObject({ action: 'update', whatsapp: { id: c.id, name: 'Evento', companyId: A.companyId } });
      expect((await got).whatsapp.token).toBeUndefined();
      expect(await leakedToB).toEqual([]);
      expect(await bOwn).toEqual([]);

      const adminSession = nextEvent<Json>(sA, `company-${A.companyId}-whatsappSession`);
      const userSession = nextEvent<Json>(sUser, `company-${A.companyId}-whatsappSession`);
      const bSession = collectEvents(sB, `company-${A.companyId}-whatsappSession`, 700);
      const out = await svc.updateStatus(A.companyId, c.id, { status: 'qrcode', qrcode: 'QR-123', retries: 2, number: '5511999990000' });
      expect(out).toMatchObject({ id: c.id, status: 'qrcode', qrcode: 'QR-123', retries: 2, number: '5511999990000' });
      const a = await adminSession;
      expect(a).toEqual({ action: 'update', session: { id: c.id, status: 'qrcode', qrcode: 'QR-123', retries: 2, number: '5511999990000', updatedAt: out.updatedAt } });
      expect((await userSession).session).toMatchObject({ id: c.id, status: 'qrcode', qrcode: '' });
      expect(await bSession).toEqual([]);

      const deleted = nextEvent<Json>(sA, `company-${A.companyId}-whatsapp`);
      await k.as(A.admin, 'DELETE', `/whatsapp/${c.id}`);
      expect(await deleted).toEqual({ action: 'delete', whatsappId: c.id });
    } finally {
      sA.close();
      sUser.close();
      sB.close();
    }
  });

  test('findByExternalAccount routes Meta webhooks; accounts are unique per channel (409)', async () => {
    const page = await create(A.admin, { channel: 'facebook', facebookPageUserId: '100200300', facebookUserToken: 'fb-token' });
    const phone = await create(B.admin, { channel: 'whatsappapi', facebookPageUserId: '100200300', facebookUserToken: 'wa-token' });
    expect(await svc.findByExternalAccount('facebook', '100200300')).toEqual({ id: page.id, companyId: A.companyId, channel: 'facebook' });
    expect(await svc.findByExternalAccount('whatsappapi', '100200300')).toEqual({ id: phone.id, companyId: B.companyId, channel: 'whatsappapi' });
    expect(await svc.findByExternalAccount('instagram', '100200300')).toBeUndefined();
    expect(await svc.findByExternalAccount('facebook', '999')).toBeUndefined();
    expect(await svc.findByExternalAccount('facebook', "1' OR '1'='1")).toBeUndefined();
    expectError(await post(B.admin, { name: uniqueName(), channel: 'facebook', facebookPageUserId: '100200300', facebookUserToken: 'x' }), 409, 'ERR_DUPLICATED_EXTERNAL_ACCOUNT');
    // A whatsapp (Baileys) connection never stores an account id, so webhooks never route to it.
    const wa = await create(A.admin, { facebookPageUserId: '123123123', facebookUserToken: 'ignored' });
    expect(wa.facebookPageUserId).toBeNull();
    expect(wa.hasToken).toBe(false);
    expect(await svc.findByExternalAccount('whatsapp', '123123123')).toBeUndefined();
    // Moving a page id: the new id routes, the old one no longer does.
    await k.as(A.admin, 'PUT', `/whatsapp/${page.id}`, { facebookPageUserId: '100200301' });
    expect(await svc.findByExternalAccount('facebook', '100200300')).toBeUndefined();
    expect((await svc.findByExternalAccount('facebook', '100200301'))?.id).toBe(page.id);
  });

  test('bad input answers 4xx with catalogue codes, never 500', async () => {
    const c = await create(A.admin);
    const bads: [string, string, unknown, number, string][] = [
      ['POST', '/whatsapp', { name: 'a' }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: '  a  ' }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: 'x'.repeat(51) }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', {}, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), channel: 'telegram' }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), queueIds: ['abc'] }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), queueIds: [-1] }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), queueIds: [99999999999] }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), maxUseBotQueues: -1 }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), expiresTicket: 99999999 }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), timeSendQueue: 'soon' }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), expiresTicket: '99999999' }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), maxUseBotQueues: true }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), allowGroup: 'yes' }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), promptId: -3 }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), greetingMessage: 'x'.repeat(5001) }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), schedules: Array.from({ length: 8 }, () => ({ weekday: 'd', weekdayEn: 'd' })) }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), schedules: [{ weekday: 'Segunda', weekdayEn: 'monday', startTimeA: '25:00' }] }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), token: 'short' }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), token: 'has spaces in the token value' }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), whenExpiresTicket: '2' }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), groupAsTicket: 'maybe' }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), provider: 'alpha' }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), importOldMessages: '2001-01-01' }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), importOldMessages: 'yesterday' }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), channel: 'facebook', facebookUserToken: 'x' }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), channel: 'instagram', facebookPageUserId: '123' }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: uniqueName(), channel: 'facebook', facebookPageUserId: 'abc', facebookUserToken: 'x' }, 400, 'ERR_VALIDATION'],
      ['POST', '/whatsapp', { name: c.name.toUpperCase() }, 409, 'ERR_DUPLICATED_NAME'],
      ['PUT', `/whatsapp/${c.id}`, { channel: 'facebook' }, 400, 'ERR_VALIDATION'],
      ['PUT', `/whatsapp/${c.id}`, { name: 'b' }, 400, 'ERR_VALIDATION'],
      ['PUT', '/whatsapp/abc', { name: uniqueName() }, 400, 'ERR_VALIDATION'],
      ['PUT', '/whatsapp/0', { name: uniqueName() }, 400, 'ERR_VALIDATION'],
      ['GET', '/whatsapp/-5', undefined, 400, 'ERR_VALIDATION'],
      ['GET', '/whatsapp/99999999999', undefined, 400, 'ERR_VALIDATION'],
      ['GET', '/whatsapp/2147483647', undefined, 404, 'ERR_NO_WAPP_FOUND'],
      ['DELETE', '/whatsapp/1.5', undefined, 400, 'ERR_VALIDATION'],
      ['GET', `/whatsapp?session=${'x'.repeat(50)}`, undefined, 400, 'ERR_VALIDATION'],
    ];
    for (const [method, url, body, status, code] of bads) {
      const res = await k.as(A.admin, method, url, body);
      expect({ method, url, body, status: res.statusCode }).toEqual({ method, url, body, status });
      if (code) expect({ url, body, error: res.json().error }).toEqual({ url, body, error: code });
    }
    const notObject = await k.as(A.admin, 'POST', '/whatsapp', '"just a string"', { 'content-type': 'application/json' });
    expectError(notObject, 400, 'ERR_VALIDATION');
    const badJson = await k.as(A.admin, 'POST', '/whatsapp', '{"name": ', { 'content-type': 'application/json' });
    expect(badJson.statusCode).toBe(400);
    expect(badJson.json().error).toBe('ERR_INVALID_JSON');
    // A second name taken by another connection on update.
    const d = await create(A.admin);
    expectError(await k.as(A.admin, 'PUT', `/whatsapp/${d.id}`, { name: ` ${c.name.toLowerCase()} ` }), 409, 'ERR_DUPLICATED_NAME');
    // The same name in another company is fine.
    expect((await post(B.admin, { name: c.name })).statusCode).toBe(200);
    // Empty-string numerics of old forms mean "off".
    const blank = await create(A.admin, { expiresTicket: '', timeCreateNewTicket: null, maxUseBotQueues: '', sendIdQueue: '', promptId: 0, importOldMessages: '', whenExpiresTicket: 1 });
    expect(blank).toMatchObject({ expiresTicket: 0, timeCreateNewTicket: 0, maxUseBotQueues: 3, sendIdQueue: null, promptId: null, importOldMessages: null, whenExpiresTicket: '1' });
    // Digit strings of text inputs are numbers.
    const texts = await create(A.admin, { expiresTicket: '45', maxUseBotQueuesNPS: '2', integrationId: '' });
    expect(texts).toMatchObject({ expiresTicket: 45, maxUseBotQueuesNPS: 2, integrationId: null });
    // No integrations plugin here: an integration id may name a third party's conversation handler (SDK
    // conversationHandlers), so it is kept (foreign-ids.test.ts checks ids against the integrations plugin).
    expect((await post(A.admin, { name: uniqueName(), integrationId: '7' })).json()).toMatchObject({ integrationId: 7 });
    // A prompt id with no prompts plugin loaded names nothing.
    expect((await post(A.admin, { name: uniqueName(), promptId: '7' })).json()).toMatchObject({ error: 'ERR_VALIDATION' });
  });

  test('updateStatus validates its input; unknown ids are 404', async () => {
    const c = await create(A.admin);
    await expect(svc.updateStatus(A.companyId, c.id, { status: '' })).rejects.toMatchObject({ code: 'ERR_VALIDATION' });
    await expect(svc.updateStatus(A.companyId, c.id, { status: 'CONNECTED', retries: -1 })).rejects.toMatchObject({ code: 'ERR_VALIDATION' });
    await expect(svc.updateStatus(A.companyId, 2147483647, { status: 'CONNECTED' })).rejects.toMatchObject({ code: 'ERR_NO_WAPP_FOUND' });
    const done = await svc.updateStatus(A.companyId, c.id, { status: 'CONNECTED', qrcode: '', retries: 0 });
    expect(done).toMatchObject({ status: 'CONNECTED', qrcode: '', retries: 0 });
    expect((await k.as(A.admin, 'GET', `/whatsapp/${c.id}`)).json().status).toBe('CONNECTED');
  });

  test('status history: one row per status change with its reason, newest first; QR refreshes and retries of one status add none; admins of the company only', async () => {
    const c = await create(A.admin);
    expect((await k.as(A.admin, 'GET', `/whatsapp/${c.id}/status-history`)).json()).toEqual({ records: [] });
    await svc.updateStatus(A.companyId, c.id, { status: 'OPENING', qrcode: '', retries: 0 });
    await svc.updateStatus(A.companyId, c.id, { status: 'qrcode', qrcode: 'QR-1' });
    await svc.updateStatus(A.companyId, c.id, { status: 'qrcode', qrcode: 'QR-2' });
    await svc.updateStatus(A.companyId, c.id, { status: 'CONNECTED', qrcode: '', number: '5511999990000' });
    await svc.updateStatus(A.companyId, c.id, { status: 'DISCONNECTED', retries: 1, reason: 'livenessProbe' });
    await svc.updateStatus(A.companyId, c.id, { status: 'DISCONNECTED', retries: 2, reason: 'connectionLost' });
    await svc.updateStatus(A.companyId, c.id, { status: 'CONNECTED', retries: 0 });
    const res = await k.as(A.admin, 'GET', `/whatsapp/${c.id}/status-history`);
    expect(res.statusCode).toBe(200);
    const records = res.json().records as Json[];
    expect(records.map((r) => [r.previousStatus, r.status, r.reason, r.retries])).toEqual([
      ['DISCONNECTED', 'CONNECTED', null, 0],
      ['CONNECTED', 'DISCONNECTED', 'livenessProbe', 1],
      ['qrcode', 'CONNECTED', null, 0],
      ['OPENING', 'qrcode', null, 0],
      ['DISCONNECTED', 'OPENING', null, 0],
    ]);
    expect(Object.keys(records[0]).sort()).toEqual(['createdAt', 'id', 'previousStatus', 'reason', 'retries', 'status']);
    expect(new Date(records[0].createdAt).getTime()).toBeGreaterThan(0);
    expect((await k.as(A.admin, 'GET', `/whatsapp/${c.id}/status-history?limit=2`)).json().records).toHaveLength(2);
    expectError(await k.as(A.admin, 'GET', `/whatsapp/${c.id}/status-history?limit=0`), 400, 'ERR_VALIDATION');
    expectError(await k.as(A.admin, 'GET', `/whatsapp/${c.id}/status-history?limit=201`), 400, 'ERR_VALIDATION');
    // Another company's admin and a user of the same company see nothing.
    expectError(await k.as(B.admin, 'GET', `/whatsapp/${c.id}/status-history`), 404, 'ERR_NO_WAPP_FOUND');
    expect(await svc.statusHistory(B.companyId, c.id)).toBeUndefined();
    expectError(await k.as(userA, 'GET', `/whatsapp/${c.id}/status-history`), 403, 'ERR_NO_PERMISSION');
    await expect(svc.updateStatus(A.companyId, c.id, { status: 'OPENING', reason: 'x'.repeat(101) })).rejects.toMatchObject({ code: 'ERR_VALIDATION' });
    // The rows go with the connection.
    expect((await k.as(A.admin, 'DELETE', `/whatsapp/${c.id}`)).statusCode).toBe(200);
    expect(await k.db('whatsappStatusHistory').where({ whatsappId: c.id }).count({ n: '*' }).first()).toEqual({ n: 0 });
  });

  test('demo seed: one connection per channel in company 1, idempotent, linked to the queues', async () => {
    const ctx = { db: k.db, log: k.app.log, services: k.services, identity: k.identity, demo: true, companyId: 1 };
    if (queuesPlugin?.seed) {
      await k.createUser(1, { email: 'ana@example.com' });
      await queuesPlugin.seed(ctx);
    }
    await seedConnections(ctx);
    await seedConnections(ctx);
    await seedConnections({ ...ctx, demo: false });
    const rows = await k.db('whatsapps').where({ companyId: 1 }).orderBy('id');
    expect(rows.map((r) => [r.name, r.channel, r.facebookPageUserId, r.isDefault])).toEqual([
      ['WhatsApp Demo', 'whatsapp', null, true],
      ['WhatsApp Cloud Demo', 'whatsappapi', '100000000000001', false],
      ['Facebook Demo', 'facebook', '100000000000002', false],
      ['Instagram Demo', 'instagram', '17800000000000003', false],
    ]);
    for (const r of rows.slice(1)) expect(r.facebookUserToken).toMatch(/^[0-9a-f]{64}$/);
    expect((await svc.findByExternalAccount('instagram', '17800000000000003'))?.companyId).toBe(1);
    if (queuesPlugin) {
      const expected = (await k.as(k.superAdmin, 'GET', '/queue')).json().filter((q: Json) => ['Comercial', 'Suporte'].includes(q.name)).map((q: Json) => q.id).sort();
      expect(expected.length).toBe(2);
      for (const r of rows) expect((await svc.queueIdsOf(1, r.id)).sort()).toEqual(expected);
    }
    const list = await k.as(k.superAdmin, 'GET', '/whatsapp');
    expect(list.json().length).toBe(4);
    for (const r of rows.slice(1)) expect(list.body).not.toContain(r.facebookUserToken);
  });
});
