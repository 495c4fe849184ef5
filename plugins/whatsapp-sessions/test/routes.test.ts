import { stableMessageId } from '@atendo/channel-whatsapp';
import { sendKey, type SendCommand } from '@atendo/sdk';
import type { Socket } from 'socket.io-client';
import type { BusMessage } from '@atendo/sdk';
import { createTestKernel, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import connectionsPlugin from '@atendo/plugin-connections';
import notificationsPlugin from '@atendo/plugin-notifications';
import { connectionsService } from '@atendo/plugin-connections/contract';
import { fakeFactory, type FakeSocket } from '../../../channels/whatsapp/test/fake-socket';
import { createWhatsappSessionsPlugin, type WhatsappSessions } from '../src/plugin';
import { SessionLeases } from '../src/leases';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('whatsapp-sessions plugin: routes, bus consumer, multi-node', () => {
  let k: TestKernel;
  let base: string;
  let sessions: WhatsappSessions;
  const fake = fakeFactory();
  let A: { companyId: number; admin: TestUser };
  let B: { companyId: number; admin: TestUser };
  let n = 0;
  const results: BusMessage<Json>[] = [];
  const inbound: BusMessage<Json>[] = [];
  const sockets: Socket[] = [];

  const plugin = (onReady: (s: WhatsappSessions) => void, factory = fake.factory) =>
    createWhatsappSessionsPlugin({ socketFactory: factory, autostart: false, backoff: { baseMs: 10, maxMs: 40, maxFailures: 5 }, onReady, download: async () => Buffer.from('') });

  beforeAll(async () => {
    k = await createTestKernel({
      plugins: [connectionsPlugin, notificationsPlugin, plugin((s) => (sessions = s))],
      env: {
        WHATSAPP_SESSIONS_PROBE_INTERVAL_MS: '100',
        WHATSAPP_SESSIONS_PROBE_TIMEOUT_MS: '100',
        WHATSAPP_SESSIONS_PROBE_MAX_MISSES: '2',
        WHATSAPP_SESSIONS_ALERT_DELAY_MS: '400',
        WHATSAPP_SESSIONS_SEND_MAX_RETRIES: '1', WHATSAPP_SESSIONS_SEND_RETRY_DELAY_MS: '10', WHATSAPP_SESSIONS_SEND_OPEN_WAIT_MS: '20', WHATSAPP_SESSIONS_SEND_RETRY_HOURS: '0',
      },
    });
    base = await k.listen();
    A = await k.createCompany({ limits: { connections: 100 } });
    B = await k.createCompany({ limits: { connections: 100 } });
    await k.bus.subscribe<Json>(['message.sent', 'message.failed'], (m) => void results.push(m), { queue: 'test.results' });
    await k.bus.subscribe<Json>('channel.inbound.whatsapp.#', (m) => void inbound.push(m), { queue: 'test.inbound' });
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await k.close();
  });

  const expectError = (res: { statusCode: number; json(): Json }, status: number, code: string) => expect({ status: res.statusCode, error: res.json().error }).toEqual({ status, error: code });
  async function connection(who: TestUser, body: Json = {}): Promise<number> {
    const res = await k.as(who, 'POST', '/whatsapp', { name: `WA ${++n}`, ...body });
    expect(res.statusCode).toBe(200);
    return res.json().id;
  }
  const socketsOf = (id: number) => fake.sockets.filter((s) => s.opts.connectionId === id);
  const lastOf = (id: number): FakeSocket => {
    const list = socketsOf(id);
    if (!list.length) throw new Error(`no socket for connection ${id}`);
    return list[list.length - 1];
  };
  const status = async (who: TestUser, id: number) => (await k.as(who, 'GET', `/whatsapp/${id}`)).json() as Json;
  async function listen(who: TestUser): Promise<{ socket: Socket; events: { name: string; payload: Json }[] }> {
    const socket = await k.socket(who.token, base);
    sockets.push(socket);
    const events: { name: string; payload: Json }[] = [];
    socket.onAny((name: string, payload: Json) => events.push({ name, payload }));
    return { socket, events };
  }
  async function openConnection(who: TestUser, companyId: number): Promise<{ id: number; sock: FakeSocket }> {
    const id = await connection(who);
    expect((await k.as(who, 'POST', `/whatsappsession/${id}`)).statusCode).toBe(200);
    const sock = lastOf(id);
    sock.ev.emit('creds.update', { registered: true });
    sock.open('5511900000009:3@s.whatsapp.net');
    await waitFor(() => sessions.get(id)?.state === 'open');
    await waitFor(async () => (await status(who, id)).status === 'CONNECTED');
    expect(sessions.get(id)!.companyId).toBe(companyId);
    return { id, sock };
  }
  const authRows = async (id: number) => Number((await k.db('baileys_auth').where({ connectionId: id }).count({ c: '*' }).first())?.c ?? 0);
  /** True when some node holds a live lease of the connection's session. */
  const lockHeld = async (id: number) => Boolean(await k.db('whatsapp_session_leases').where({ connectionId: id }).where('expiresAt', '>', k.db.fn.now()).first('connectionId'));

  test('POST /whatsappsession/:id starts the session: OPENING then qrcode pushed to the company, never to another company', async () => {
    const a = await listen(A.admin);
    const b = await listen(B.admin);
    const userA = await k.createUser(A.companyId, { profile: 'user' });
    const u = await listen(userA);
    const id = await connection(A.admin);
    const res = await k.as(A.admin, 'POST', `/whatsappsession/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'Starting session.' });
    expect(socketsOf(id)).toHaveLength(1);
    expect(socketsOf(id)[0].opts).toMatchObject({ companyId: A.companyId, connectionId: id });
    lastOf(id).ev.emit('connection.update', { qr: '2@QR-FOR-A,key==' });
    const event = `company-${A.companyId}-whatsappSession`;
    await waitFor(() => a.events.some((e) => e.name === event && e.payload.session?.status === 'qrcode'));
    const sessionEvents = a.events.filter((e) => e.name === event).map((e) => [e.payload.action, e.payload.session.id, e.payload.session.status, e.payload.session.qrcode]);
    expect(sessionEvents).toEqual([
      ['update', id, 'OPENING', ''],
      ['update', id, 'qrcode', '2@QR-FOR-A,key=='],
    ]);
    // Non-admins of the company see the status without the QR; the other company sees nothing.
    await waitFor(() => u.events.some((e) => e.name === event && e.payload.session?.status === 'qrcode'));
    expect(u.events.filter((e) => e.name === event).map((e) => e.payload.session.qrcode)).toEqual(['', '']);
    await sleep(100);
    expect(b.events.filter((e) => /whatsapp/i.test(e.name))).toEqual([]);
    expect(JSON.stringify(b.events)).not.toContain('QR-FOR-A');
    expect(await status(A.admin, id)).toMatchObject({ status: 'qrcode', qrcode: '2@QR-FOR-A,key==' });
    // Starting again while connecting changes nothing.
    expect((await k.as(A.admin, 'POST', `/whatsappsession/${id}`)).statusCode).toBe(200);
    expect(socketsOf(id)).toHaveLength(1);
    expect(await lockHeld(id)).toBe(true);
  });

  test('cross-tenant: every route answers 404 ERR_NO_WAPP_FOUND for another company\'s connection and touches nothing', async () => {
    const { id, sock } = await openConnection(A.admin, A.companyId);
    for (const method of ['POST', 'PUT', 'DELETE']) expectError(await k.as(B.admin, method, `/whatsappsession/${id}`), 404, 'ERR_NO_WAPP_FOUND');
    expect(socketsOf(id)).toHaveLength(1);
    expect(sock.loggedOut).toBe(0);
    expect(sessions.get(id)?.state).toBe('open');
    expect((await status(A.admin, id)).status).toBe('CONNECTED');
    // Restart-all of company B does not restart A's session.
    expect((await k.as(B.admin, 'POST', '/whatsapp-restart/')).statusCode).toBe(200);
    expect(socketsOf(id)).toHaveLength(1);
    // Unknown ids.
    for (const method of ['POST', 'PUT', 'DELETE']) expectError(await k.as(A.admin, method, '/whatsappsession/2147483647'), 404, 'ERR_NO_WAPP_FOUND');
  });

  test('roles: admin only (403 ERR_NO_PERMISSION for user and supervisor), 401 without a token', async () => {
    const id = await connection(A.admin);
    const user = await k.createUser(A.companyId, { profile: 'user' });
    const supervisor = await k.createUser(A.companyId, { profile: 'supervisor' });
    for (const who of [user, supervisor]) {
      for (const method of ['POST', 'PUT', 'DELETE']) expectError(await k.as(who, method, `/whatsappsession/${id}`), 403, 'ERR_NO_PERMISSION');
      expectError(await k.as(who, 'POST', '/whatsapp-restart/'), 403, 'ERR_NO_PERMISSION');
    }
    expectError(await k.as(null, 'POST', `/whatsappsession/${id}`), 401, 'ERR_SESSION_EXPIRED');
    expectError(await k.as(null, 'POST', '/whatsapp-restart/'), 401, 'ERR_SESSION_EXPIRED');
    expect(socketsOf(id)).toHaveLength(0);
  });

  test('bad input: non-integer, zero, negative and huge ids are 400 ERR_VALIDATION; a non-WhatsApp connection is 400', async () => {
    for (const bad of ['abc', '0', '-1', '99999999999', '1.5', `${'9'.repeat(300)}`]) {
      for (const method of ['POST', 'PUT', 'DELETE']) expectError(await k.as(A.admin, method, `/whatsappsession/${bad}`), 400, 'ERR_VALIDATION');
    }
    const fb = await connection(A.admin, { channel: 'facebook', facebookPageUserId: `55500${Date.now() % 100000}`, facebookUserToken: 'EAAGtoken-value-1234567890' });
    for (const method of ['POST', 'PUT', 'DELETE']) expectError(await k.as(A.admin, method, `/whatsappsession/${fb}`), 400, 'ERR_VALIDATION');
    expect(socketsOf(fb)).toHaveLength(0);
    // A body is ignored (old clients send none; some send {}).
    const id = await connection(A.admin);
    expect((await k.as(A.admin, 'POST', `/whatsappsession/${id}`, { anything: 'x'.repeat(10) })).statusCode).toBe(200);
    expect(socketsOf(id)).toHaveLength(1);
  });

  test('DELETE /whatsappsession/:id disconnects: logout, auth state cleared, DISCONNECTED, lock released', async () => {
    const { id, sock } = await openConnection(A.admin, A.companyId);
    await waitFor(async () => (await authRows(id)) === 1);
    const res = await k.as(A.admin, 'DELETE', `/whatsappsession/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'Session disconnected.' });
    expect([sock.loggedOut, sock.ended]).toEqual([1, 1]);
    expect(await authRows(id)).toBe(0);
    expect(await status(A.admin, id)).toMatchObject({ status: 'DISCONNECTED', qrcode: '', retries: 0 });
    expect(sessions.get(id)).toBeUndefined();
    await waitFor(async () => !(await lockHeld(id)));
    // Disconnecting a connection without a running session still clears and reports.
    await k.db('baileys_auth').insert({ connectionId: id, companyId: A.companyId, keyType: 'creds', keyId: 'creds', value: '{}' });
    expect((await k.as(A.admin, 'DELETE', `/whatsappsession/${id}`)).statusCode).toBe(200);
    expect(await authRows(id)).toBe(0);
    expect(await lockHeld(id)).toBe(false);
    // Try again after a disconnect starts a fresh session (a new QR follows).
    expect((await k.as(A.admin, 'POST', `/whatsappsession/${id}`)).statusCode).toBe(200);
    expect(socketsOf(id)).toHaveLength(2);
    expect(lastOf(id).opts.auth.creds.registered).toBe(false);
  });

  test('PUT /whatsappsession/:id (new QR): logs out, clears the auth state and starts again', async () => {
    const { id, sock } = await openConnection(A.admin, A.companyId);
    await waitFor(async () => (await authRows(id)) === 1);
    const res = await k.as(A.admin, 'PUT', `/whatsappsession/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'Starting session.' });
    expect(sock.loggedOut).toBe(1);
    expect(socketsOf(id)).toHaveLength(2);
    expect(lastOf(id).opts.auth.creds.registered).toBe(false);
    expect(await authRows(id)).toBe(0);
    expect(await status(A.admin, id)).toMatchObject({ status: 'OPENING', qrcode: '' });
    lastOf(id).ev.emit('connection.update', { qr: 'NEW-QR' });
    await waitFor(async () => (await status(A.admin, id)).qrcode === 'NEW-QR');
    expect(await lockHeld(id)).toBe(true);
    // The release of the old session's lease never lands after the new session took it: a renewal keeps it.
    await sessions.leases.renew();
    expect(sessions.leases.holds(id)).toBe(true);
    expect(sessions.get(id)?.state).toBe('connecting');
  });

  test('POST /whatsappsession/:id/pairing-code pairs by phone number: PAIRING with the code (admins only), QR refreshes not pushed, then CONNECTED', async () => {
    const id = await connection(A.admin);
    const admin = await listen(A.admin);
    const user = await k.createUser(A.companyId, { profile: 'user' });
    const u = await listen(user);
    const res = await k.as(A.admin, 'POST', `/whatsappsession/${id}/pairing-code`, { phoneNumber: '+55 (11) 98888-7777' });
    expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 200, body: { message: 'Starting session.' } });
    const sock = lastOf(id);
    sock.ev.emit('connection.update', { qr: 'QR-1' });
    await waitFor(async () => (await status(A.admin, id)).status === 'PAIRING');
    expect(await status(A.admin, id)).toMatchObject({ status: 'PAIRING', qrcode: 'ABCD1234' });
    expect(sock.pairingRequests).toEqual(['5511988887777']);
    await waitFor(() => admin.events.some((e) => e.name === `company-${A.companyId}-whatsappSession` && e.payload.session?.qrcode === 'ABCD1234'));
    await waitFor(() => u.events.some((e) => e.name === `company-${A.companyId}-whatsappSession` && e.payload.session?.status === 'PAIRING'));
    expect(u.events.filter((e) => e.name === `company-${A.companyId}-whatsappSession`).map((e) => e.payload.session.qrcode).every((q) => q === '')).toBe(true);
    // A QR refresh neither asks again nor replaces the code.
    sock.ev.emit('connection.update', { qr: 'QR-2' });
    await new Promise((r) => setTimeout(r, 100));
    expect(sock.pairingRequests).toHaveLength(1);
    expect(await status(A.admin, id)).toMatchObject({ status: 'PAIRING', qrcode: 'ABCD1234' });
    sock.ev.emit('creds.update', { registered: true });
    sock.open('5511988887777:2@s.whatsapp.net');
    await waitFor(async () => (await status(A.admin, id)).status === 'CONNECTED');
    expect(await status(A.admin, id)).toMatchObject({ status: 'CONNECTED', qrcode: '', number: '5511988887777' });
  });

  test('pairing-code: bad numbers 400, users 403, another company 404; a refused code request falls back to the QR code', async () => {
    const id = await connection(A.admin);
    expectError(await k.as(A.admin, 'POST', `/whatsappsession/${id}/pairing-code`, { phoneNumber: '123' }), 400, 'ERR_VALIDATION');
    expectError(await k.as(A.admin, 'POST', `/whatsappsession/${id}/pairing-code`, { phoneNumber: 'abc def ghij' }), 400, 'ERR_VALIDATION');
    expectError(await k.as(A.admin, 'POST', `/whatsappsession/${id}/pairing-code`, {}), 400, 'ERR_VALIDATION');
    const user = await k.createUser(A.companyId, { profile: 'user' });
    expectError(await k.as(user, 'POST', `/whatsappsession/${id}/pairing-code`, { phoneNumber: '5511988887777' }), 403, 'ERR_NO_PERMISSION');
    expectError(await k.as(B.admin, 'POST', `/whatsappsession/${id}/pairing-code`, { phoneNumber: '5511988887777' }), 404, 'ERR_NO_WAPP_FOUND');
    expect(socketsOf(id)).toHaveLength(0);
    expect((await k.as(A.admin, 'POST', `/whatsappsession/${id}/pairing-code`, { phoneNumber: '5511988887777' })).statusCode).toBe(200);
    const sock = lastOf(id);
    sock.pairingImpl = async () => {
      throw new Error('rate-overlimit');
    };
    sock.ev.emit('connection.update', { qr: 'QR-FALLBACK' });
    await waitFor(async () => (await status(A.admin, id)).qrcode === 'QR-FALLBACK');
    expect(await status(A.admin, id)).toMatchObject({ status: 'qrcode' });
  });

  test('POST /whatsapp-restart/ restarts every WhatsApp connection of the caller\'s company only', async () => {
    const C = await k.createCompany({ limits: { connections: 10 } });
    const { id: open, sock } = await openConnection(C.admin, C.companyId);
    const idle = await connection(C.admin);
    const fb = await connection(C.admin, { channel: 'facebook', facebookPageUserId: `77700${Date.now() % 100000}`, facebookUserToken: 'EAAGtoken-value-abcdefghij' });
    const other = await connection(B.admin);
    const res = await k.as(C.admin, 'POST', '/whatsapp-restart');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ message: 'Whatsapp restart.' });
    expect(sock.ended).toBe(1);
    expect(sock.loggedOut).toBe(0);
    expect([socketsOf(open).length, socketsOf(idle).length, socketsOf(fb).length, socketsOf(other).length]).toEqual([2, 1, 0, 0]);
    // The restarted session reuses the stored credentials.
    expect(lastOf(open).opts.auth.creds.registered).toBe(true);
    expect((await k.as(C.admin, 'POST', '/whatsapp-restart/')).statusCode).toBe(200);
    expect([socketsOf(open).length, socketsOf(idle).length]).toEqual([3, 2]);
  });

  test('inbound: socket events are published on channel.inbound.whatsapp.<kind> with the idempotency key as message id', async () => {
    const { id, sock } = await openConnection(A.admin, A.companyId);
    sock.ev.emit('messages.upsert', { messages: [{ key: { remoteJid: '5511955550123@s.whatsapp.net', fromMe: false, id: 'IN-1' }, message: { conversation: 'Olá' }, messageTimestamp: 1700000000, pushName: 'Carla' }], type: 'notify' });
    sock.ev.emit('messages.update', [{ key: { remoteJid: '5511955550123@s.whatsapp.net', fromMe: true, id: 'OUT-1' }, update: { status: 4 } }]);
    await waitFor(() => inbound.filter((m) => m.payload.connectionId === id).length === 2);
    const mine = inbound.filter((m) => m.payload.connectionId === id);
    expect(mine.map((m) => [m.topic, m.id])).toEqual([
      ['channel.inbound.whatsapp.message', `whatsapp:${id}:message:IN-1`],
      ['channel.inbound.whatsapp.status', `whatsapp:${id}:status:OUT-1:read`],
    ]);
    expect(mine[0].payload).toMatchObject({ companyId: A.companyId, kind: 'message', direction: 'in', thread: { externalId: '5511955550123' }, content: { type: 'text', text: 'Olá' } });

    // Groups follow the connection's allowGroup, re-read on connection.updated.
    const group = (msgId: string) => ({ messages: [{ key: { remoteJid: '120363000000000042@g.us', participant: '5511955550188@s.whatsapp.net', fromMe: false, id: msgId }, message: { conversation: 'no grupo' }, messageTimestamp: 1700000000 }], type: 'notify' as const });
    sock.ev.emit('messages.upsert', group('G-1'));
    await sleep(100);
    expect(inbound.filter((m) => m.payload.connectionId === id)).toHaveLength(2);
    expect((await k.as(A.admin, 'PUT', `/whatsapp/${id}`, { allowGroup: true })).statusCode).toBe(200);
    await waitFor(async () => {
      sock.ev.emit('messages.upsert', group('G-2'));
      await sleep(30);
      return inbound.some((m) => m.payload.externalId === 'G-2');
    });
    expect(inbound.find((m) => m.payload.externalId === 'G-2')!.payload).toMatchObject({ thread: { externalId: '120363000000000042', isGroup: true }, sender: { phone: '5511955550188' } });
    expect(inbound.some((m) => m.payload.externalId === 'G-1')).toBe(false);
  });

  test('message.send: sent through the session\'s socket, message.sent with the wid; other channels ignored', async () => {
    const { id, sock } = await openConnection(A.admin, A.companyId);
    const cmd = { companyId: A.companyId, messageId: 42, ticketId: 7, connectionId: id, channel: 'whatsapp', to: '5511955550123', isGroup: false, body: 'Olá!' };
    await k.bus.publish('message.send.whatsapp', cmd);
    await waitFor(() => results.some((r) => r.payload.messageId === 42));
    expect(sock.sent.map((s) => [s.jid, s.content])).toEqual([['5511955550123@s.whatsapp.net', { text: 'Olá!' }]]);
    const sent = results.find((r) => r.payload.messageId === 42)!;
    expect(sent.topic).toBe('message.sent');
    expect(sent.payload).toEqual({ companyId: A.companyId, messageId: 42, wid: '3EB0FAKE1', ack: 1 });
    // Another channel's command is left to its consumer.
    await k.bus.publish('message.send.facebook', { ...cmd, messageId: 43, channel: 'facebook' });
    await sleep(100);
    expect(sock.sent).toHaveLength(1);
    expect(results.some((r) => r.payload.messageId === 43)).toBe(false);
  });

  test('message.send: permanent errors and a foreign company\'s connection -> message.failed; nothing sent', async () => {
    const { id, sock } = await openConnection(A.admin, A.companyId);
    await k.bus.publish('message.send.whatsapp', { companyId: A.companyId, messageId: 50, ticketId: 1, connectionId: id, channel: 'whatsapp', to: 'not-a-number', body: 'x' });
    await k.bus.publish('message.send.whatsapp', { companyId: B.companyId, messageId: 51, ticketId: 1, connectionId: id, channel: 'whatsapp', to: '5511955550123', body: 'x' });
    await k.bus.publish('message.send.whatsapp', { companyId: A.companyId, messageId: 52, ticketId: 1, connectionId: id, channel: 'whatsapp', to: '5511955550123', body: 'x', media: { path: '../../etc/passwd', mimeType: 'text/plain', fileName: 'p' } });
    await waitFor(() => [50, 51, 52].every((mid) => results.some((r) => r.payload.messageId === mid)));
    const failed = [50, 51, 52].map((mid) => results.find((r) => r.payload.messageId === mid)!);
    expect(failed.map((r) => r.topic)).toEqual(['message.failed', 'message.failed', 'message.failed']);
    expect(failed.map((r) => r.payload.companyId)).toEqual([A.companyId, B.companyId, A.companyId]);
    expect(failed[0].payload.error).toMatch(/invalid WhatsApp recipient/);
    expect(failed[1].payload.error).toMatch(/connection not found/);
    expect(failed[2].payload.error).toMatch(/not a file of the company uploads/);
    expect(sock.sent).toEqual([]);
  });

  test('password reset end to end: the code goes out on company 1\'s connected connection (messageId 0) and verifies', async () => {
    const { sock } = await openConnection(k.superAdmin as TestUser, 1);
    const u = await k.createUser(A.companyId);
    await k.db('users').where({ id: u.id }).update({ wpp: '(11) 98765-0001' });
    const before = results.length;
    const res = await k.app.inject({ method: 'POST', url: '/api/enviar-email', payload: { wpp: '+55 11 98765-0001' } });
    expect(res.statusCode).toBe(200);
    await waitFor(() => sock.sent.length === 1);
    const [jid, content] = [sock.sent[0].jid, sock.sent[0].content as { text: string }];
    expect(jid).toBe('5511987650001@s.whatsapp.net');
    const code = /\b(\d{6})\b/.exec(content.text)?.[1];
    expect(code).toBeDefined();
    // The adapter reports it with messageId 0 (not a ticket message).
    await waitFor(() => results.slice(before).some((r) => r.topic === 'message.sent' && r.payload.messageId === 0));
    const ok = await k.app.inject({ method: 'GET', url: `/api/verificar-code/5511987650001?code=${code}&userId=${res.json().userId}` });
    expect(ok.json()).toMatchObject({ valid: true, userId: res.json().userId });
  });

  test('message.send: a transient failure is retried; when no session runs, message.failed after the retries', async () => {
    const { id, sock } = await openConnection(A.admin, A.companyId);
    let calls = 0;
    sock.sendImpl = async (jid) => {
      calls++;
      if (calls === 1) throw Object.assign(new Error('Connection Closed'), { output: { statusCode: 428 } });
      return { key: { remoteJid: jid, fromMe: true, id: 'RETRIED-OK' } };
    };
    await k.bus.publish('message.send.whatsapp', { companyId: A.companyId, messageId: 60, ticketId: 1, connectionId: id, channel: 'whatsapp', to: '5511955550123', body: 'again' });
    await waitFor(() => results.some((r) => r.payload.messageId === 60));
    expect(results.find((r) => r.payload.messageId === 60)).toMatchObject({ topic: 'message.sent', payload: { wid: 'RETRIED-OK' } });
    expect(calls).toBe(2);

    const idle = await connection(A.admin);
    await k.bus.publish('message.send.whatsapp', { companyId: A.companyId, messageId: 61, ticketId: 1, connectionId: idle, channel: 'whatsapp', to: '5511955550123', body: 'x' });
    await waitFor(() => results.some((r) => r.payload.messageId === 61), 3000);
    expect(results.find((r) => r.payload.messageId === 61)).toMatchObject({ topic: 'message.failed', payload: { companyId: A.companyId, error: expect.stringMatching(/not running/) } });
  });

  test('a send carries a message id derived from its stable key; delivered again it is answered from the send ledger; edits and deletions reach the socket', async () => {
    const { id, sock } = await openConnection(A.admin, A.companyId);
    sock.sendImpl = async (jid, content) => ({ key: { remoteJid: jid, fromMe: true, id: 'STABLE-1' }, message: content as never });
    const cmd = { companyId: A.companyId, messageId: 70, ticketId: 1, connectionId: id, channel: 'whatsapp', to: '5511955550123', body: 'uma vez' };
    await k.bus.publish('message.send.whatsapp', cmd);
    await waitFor(() => results.some((r) => r.payload.messageId === 70));
    expect(sock.sent).toHaveLength(1);
    expect(sock.sent[0].options).toMatchObject({ messageId: stableMessageId(sendKey(cmd as SendCommand, 'ignored')) });
    expect(sock.sent[0].options?.messageId).toMatch(/^3EB0[0-9A-F]{18}$/);
    // The same command again (a relay after a crash, a redrive): not sent twice, reported with the same wid.
    await k.bus.publish('message.send.whatsapp', cmd);
    await waitFor(() => results.filter((r) => r.payload.messageId === 70).length === 2);
    expect(results.filter((r) => r.payload.messageId === 70).map((r) => r.payload.wid)).toEqual(['STABLE-1', 'STABLE-1']);
    expect(sock.sent).toHaveLength(1);

    const ref = { companyId: A.companyId, messageId: 70, ticketId: 1, wid: 'STABLE-1', fromMe: true, connectionId: id, channel: 'whatsapp', to: '5511955550123', isGroup: false, remoteJid: null };
    await k.bus.publish('message.edit.whatsapp', { ...ref, body: 'editada' });
    await waitFor(() => sock.sent.length === 2);
    expect(sock.sent[1]).toMatchObject({ jid: '5511955550123@s.whatsapp.net', content: { text: 'editada', edit: { id: 'STABLE-1', fromMe: true } } });
    await k.bus.publish('message.delete.whatsapp', ref);
    await waitFor(() => sock.sent.length === 3);
    expect(sock.sent[2]).toMatchObject({ jid: '5511955550123@s.whatsapp.net', content: { delete: { id: 'STABLE-1', fromMe: true } } });
    // Another channel's edits are not this consumer's.
    await k.bus.publish('message.edit.facebook', { ...ref, channel: 'facebook', body: 'x' });
    await new Promise((r) => setTimeout(r, 200));
    expect(sock.sent).toHaveLength(3);
  });

  test('connection.deleted stops the session (logout) and releases the lock', async () => {
    const { id, sock } = await openConnection(A.admin, A.companyId);
    expect((await k.as(A.admin, 'DELETE', `/whatsapp/${id}`)).statusCode).toBe(200);
    await waitFor(() => sessions.get(id) === undefined);
    expect(sock.loggedOut).toBe(1);
    await waitFor(async () => !(await lockHeld(id)));
  });

  test('autostart on (WHATSAPP_SESSIONS_AUTOSTART=true): CONNECTED connections start at boot unless another node runs them; connection.created starts new ones', async () => {
    const { id: held } = await openConnection(A.admin, A.companyId);
    const free = await connection(A.admin);
    await k.services.get(connectionsService).updateStatus(A.companyId, free, { status: 'CONNECTED' });
    const fake2 = fakeFactory();
    const k2 = await createTestKernel({
      dbName: k.dbName,
      plugins: [connectionsPlugin, createWhatsappSessionsPlugin({ socketFactory: fake2.factory, backoff: { baseMs: 10, maxMs: 40, maxFailures: 5 } })],
      env: { WHATSAPP_SESSIONS_AUTOSTART: 'true' },
    });
    try {
      await waitFor(() => fake2.sockets.some((s) => s.opts.connectionId === free));
      expect(fake2.sockets.some((s) => s.opts.connectionId === held)).toBe(false);
      const admin2 = { ...A.admin, token: k2.tokenFor(A.admin) };
      const res = await k2.as(admin2, 'POST', '/whatsapp', { name: `Created on node 2 ${++n}` });
      expect(res.statusCode).toBe(200);
      await waitFor(() => fake2.sockets.some((s) => s.opts.connectionId === res.json().id));
      // A Meta connection is not a session.
      const fb = await k2.as(admin2, 'POST', '/whatsapp', { name: `FB ${++n}`, channel: 'facebook', facebookPageUserId: `88800${Date.now() % 100000}`, facebookUserToken: 'EAAGtoken-value-zzzzzzzzzz' });
      expect(fb.statusCode).toBe(200);
      await sleep(100);
      expect(fake2.sockets.some((s) => s.opts.connectionId === fb.json().id)).toBe(false);
    } finally {
      await k2.close();
    }
    // Node 1 runs with autostart off (NODE_ENV=test): it started nothing by itself.
    expect(socketsOf(free)).toHaveLength(0);
  });

  test('multi-node: a second node sharing the database skips a connection the first one runs, and takes it once released', async () => {
    const { id } = await openConnection(A.admin, A.companyId);
    const fake2 = fakeFactory();
    let sessions2!: WhatsappSessions;
    const k2 = await createTestKernel({ dbName: k.dbName, plugins: [connectionsPlugin, plugin((s) => (sessions2 = s), fake2.factory)] });
    try {
      expect(await sessions2.run(A.companyId, id, 'start', { forward: false })).toBe('skipped');
      expect(await sessions2.autostart()).toBe(0); // the connection is CONNECTED, but node 1 holds it
      // A route call on node 2 is forwarded to the owner instead of opening a second socket.
      const admin2 = { ...A.admin, token: k2.tokenFor(A.admin) };
      expect((await k2.as(admin2, 'POST', `/whatsappsession/${id}`)).statusCode).toBe(200);
      expect(fake2.sockets).toHaveLength(0);
      expect(sessions2.get(id)).toBeUndefined();
      // Node 1 lets go (disconnect); node 2 can take the connection.
      expect((await k.as(A.admin, 'DELETE', `/whatsappsession/${id}`)).statusCode).toBe(200);
      await waitFor(async () => (await sessions2.run(A.companyId, id, 'start', { forward: false })) === 'local');
      expect(fake2.sockets.map((s) => s.opts.connectionId)).toEqual([id]);
      expect(await sessions.run(A.companyId, id, 'start', { forward: false })).toBe('skipped');
    } finally {
      await k2.close();
    }
    // Node 2 is gone: it handed its lease over (expired at once).
    await waitFor(async () => !(await lockHeld(id)));
  });

  test('a dead socket (connected, pings unanswered) is detected: DISCONNECTED (livenessProbe) in the status history, a reconnect, and the admins told in the app and on WhatsApp through another connection', async () => {
    const C = await k.createCompany({ limits: { connections: 100 } });
    await k.db('users').where({ id: C.admin.id }).update({ wpp: '55 11 97777-0000' });
    const user = await k.createUser(C.companyId, { profile: 'user' });
    const other = await openConnection(C.admin, C.companyId);
    const { id, sock } = await openConnection(C.admin, C.companyId);
    const name = (await status(C.admin, id)).name as string;
    const admin = await listen(C.admin);
    const notificationsOf = async (who: TestUser) => (await k.as(who, 'GET', '/notifications')).json() as Json;
    // Alive: pings answered, nobody told.
    await waitFor(() => sock.queries.length >= 2, 3000);
    expect((await notificationsOf(C.admin)).count).toBe(0);
    // Connected but dead: the socket stays "open" but answers nothing.
    sock.dead = true;
    await waitFor(() => socketsOf(id).length === 2, 5000);
    expect(sock.ended).toBeGreaterThan(0);
    const history = (await k.as(C.admin, 'GET', `/whatsapp/${id}/status-history`)).json().records as Json[];
    expect(history.find((r) => r.status === 'DISCONNECTED')).toMatchObject({ previousStatus: 'CONNECTED', reason: 'livenessProbe', retries: 1 });
    // Still down after WHATSAPP_SESSIONS_ALERT_DELAY_MS: the admin is told (not the user, not another company).
    await waitFor(async () => (await notificationsOf(C.admin)).count === 1, 8000);
    const [n1] = (await notificationsOf(C.admin)).records as Json[];
    expect(n1).toMatchObject({ kind: 'connection.dropped', title: `Conexão "${name}" caiu`, link: '/connections', data: { connectionId: id, reason: 'livenessProbe' }, readAt: null });
    expect(n1.body).toContain('livenessProbe');
    expect((await notificationsOf(user)).count).toBe(0);
    expect((await notificationsOf(A.admin)).records.filter((r: Json) => r.data?.connectionId === id)).toEqual([]);
    await waitFor(() => admin.events.some((e) => e.name === `company-${C.companyId}-notification` && e.payload.action === 'create'));
    // On WhatsApp: through the connection that is up, to the admin's number.
    await waitFor(() => lastOf(other.id).sent.some((m) => m.jid === '5511977770000@s.whatsapp.net'), 5000);
    expect((lastOf(other.id).sent.find((m) => m.jid === '5511977770000@s.whatsapp.net')!.content as { text: string }).text).toContain(`Conexão "${name}" caiu`);
    expect(socketsOf(id).flatMap((s) => s.sent)).toEqual([]);
    // It comes back: CONNECTED in the history.
    lastOf(id).open('5511900000009:3@s.whatsapp.net');
    await waitFor(async () => (await status(C.admin, id)).status === 'CONNECTED');
    // A drop that heals within the delay tells nobody.
    lastOf(id).close(428);
    await waitFor(() => socketsOf(id).length === 3, 3000);
    lastOf(id).open('5511900000009:3@s.whatsapp.net');
    await waitFor(async () => (await status(C.admin, id)).status === 'CONNECTED');
    await sleep(700);
    expect((await notificationsOf(C.admin)).count).toBe(1);
    // Logged out on the phone: a new QR code is needed, told at once.
    lastOf(id).close(401);
    await waitFor(async () => (await notificationsOf(C.admin)).count === 2, 5000);
    expect((await notificationsOf(C.admin)).records[0]).toMatchObject({ kind: 'connection.needs-qr', data: { connectionId: id, reason: 'loggedOut' } });
    const kinds = ((await k.as(C.admin, 'GET', `/whatsapp/${id}/status-history`)).json().records as Json[]).map((r) => [r.status, r.reason]);
    expect(kinds.slice(0, 2)).toEqual([['DISCONNECTED', 'loggedOut'], ['CONNECTED', null]]);
  });

  test('leases: a lease its node stops renewing expires and is taken over (epoch + 1); the old holder learns it lost it; company-scoped', async () => {
    const id = await connection(A.admin);
    const lost: number[][] = [];
    const orphans: number[] = [];
    const timings = { ttlMs: 400, renewMs: 100, scanMs: 100 };
    const one = new SessionLeases({ db: k.db, log: k.app.log, nodeId: 'node-one', timings, takeOver: false, onLost: (ids) => lost.push(ids) });
    const two = new SessionLeases({ db: k.db, log: k.app.log, nodeId: 'node-two', timings, onLost: () => undefined, onOrphans: (list) => void orphans.push(...list.map((o) => o.connectionId)) });
    try {
      expect(await one.tryAcquire(id, A.companyId)).toBe(true);
      expect(await two.tryAcquire(id, A.companyId)).toBe(false);
      // Another company cannot take the lease of A's connection, even once it expired.
      expect(await two.tryAcquire(id, B.companyId)).toBe(false);
      expect(await two.heldElsewhere(id)).toBe(true);
      expect((await one.lease(id))?.epoch).toBe(1);
      // Renewing keeps it alive past its ttl.
      await sleep(250);
      await one.renew();
      await sleep(250);
      expect(await two.tryAcquire(id, A.companyId)).toBe(false);
      // Node one stops renewing (as if killed): the lease expires, node two's scan sees it and takes it.
      two.start();
      await waitFor(() => orphans.includes(id), 3000);
      expect(await two.tryAcquire(id, B.companyId)).toBe(false);
      expect(await two.tryAcquire(id, A.companyId)).toBe(true);
      expect(await one.lease(id)).toMatchObject({ nodeId: 'node-two', epoch: 2 });
      // Node one wakes up: its renewal finds the lease gone and reports it lost.
      await one.renew();
      expect(lost).toEqual([[id]]);
      expect(one.holds(id)).toBe(false);
      // A handover expires the lease at once; a delete removes it.
      await two.release(id, 'handover');
      expect(await one.heldElsewhere(id)).toBe(false);
      expect(await one.tryAcquire(id, A.companyId)).toBe(true);
      await one.release(id, 'delete');
      expect(await one.lease(id)).toBeUndefined();
    } finally {
      await one.close();
      await two.close();
    }
  });
});
