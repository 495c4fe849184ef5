import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BufferJSON, initAuthCreds, proto, type WAMessage } from '@whiskeysockets/baileys';
import { definePlugin, PermanentError, RetryableError, type Envelope, type UploadService } from '@atendo/sdk';
import { createTestKernel, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import connectionsPlugin from '@atendo/plugin-connections';
import { connectionsService, type ConnectionsService } from '@atendo/plugin-connections/contract';
import { createWhatsappSessionsPlugin } from '@atendo/plugin-whatsapp-sessions/plugin';
import {
  AUTH_TABLE,
  backoffDelay,
  DEFAULT_BACKOFF,
  messageFromDownloadHint,
  normalizeEvent,
  SessionManager,
  usePostgresAuthState,
  type BaileysDownloadHint,
  type MediaDownloader,
  type SessionAlert,
  type SessionConnections,
  type SessionDeps,
} from '../src/index';
import { fakeFactory, silentLogger, type FakeSocket } from './fake-socket';
import { expectValidEnvelope, fixtureFiles, loadFixture } from './fixtures';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('SessionManager (fake socket on Baileys makeEventBuffer, real PostgreSQL)', () => {
  let k: TestKernel;
  let svc: ConnectionsService;
  let uploads: UploadService;
  let uploadsDir: string;
  let companyId: number;
  let admin: TestUser;
  let n = 0;
  const updates: { id: number; status: string; qrcode?: string; retries?: number; number?: string }[] = [];
  const running: SessionManager[] = [];

  beforeAll(async () => {
    const probe = definePlugin({
      id: 'probe',
      register(ctx) {
        uploads = ctx.uploads;
        uploadsDir = ctx.kernel.uploadsDir;
      },
    });
    k = await createTestKernel({ plugins: [connectionsPlugin, createWhatsappSessionsPlugin({ autostart: false }), probe] });
    svc = k.services.get(connectionsService);
    ({ companyId, admin } = await k.createCompany({ limits: { connections: 100 } }));
  });
  afterEach(async () => {
    for (const s of running.splice(0)) await s.stop().catch(() => undefined);
  });
  afterAll(() => k.close());

  const recording: SessionConnections = {
    get: (c, id) => svc.get(c, id),
    updateStatus: async (c, id, u) => {
      updates.push({ id, ...u });
      return svc.updateStatus(c, id, u);
    },
  };
  const statusesOf = (id: number) => updates.filter((u) => u.id === id).map((u) => u.status);

  async function connection(body: Record<string, unknown> = {}): Promise<number> {
    const res = await k.as(admin, 'POST', '/whatsapp', { name: `WA ${++n}`, ...body });
    expect(res.statusCode).toBe(200);
    return res.json().id;
  }

  function session(id: number, extra: Partial<SessionDeps> = {}) {
    const f = fakeFactory();
    const emitted: Envelope[] = [];
    const s = new SessionManager(companyId, id, {
      db: k.db,
      connections: recording,
      log: silentLogger as never,
      emit: async (e) => void emitted.push(...e),
      uploads,
      uploadsDir,
      socketFactory: f.factory,
      backoff: { baseMs: 10, maxMs: 40, maxFailures: 5 },
      download: async () => {
        throw new Error('no network here');
      },
      ...extra,
    });
    running.push(s);
    return { s, f, emitted };
  }

  async function openSession(id: number, extra: Partial<SessionDeps> = {}) {
    const ctx = session(id, extra);
    await ctx.s.start();
    await waitFor(() => ctx.f.sockets.length === 1);
    ctx.f.last().open();
    await waitFor(() => ctx.s.state === 'open');
    return ctx;
  }

  const authRows = async (id: number) => (await k.db(AUTH_TABLE).where({ connectionId: id }).select('keyType', 'keyId')) as { keyType: string; keyId: string }[];

  test('start pushes OPENING; qr -> status qrcode with the QR text; open -> CONNECTED with the number', async () => {
    const id = await connection();
    const { s, f } = session(id);
    await s.start();
    expect(f.sockets).toHaveLength(1);
    expect(await svc.get(companyId, id)).toMatchObject({ status: 'OPENING', qrcode: '', retries: 0 });
    f.last().ev.emit('connection.update', { connection: 'connecting', receivedPendingNotifications: false });
    f.last().ev.emit('connection.update', { qr: '2@QRDATA,abc==,def==' });
    await waitFor(async () => (await svc.get(companyId, id))?.status === 'qrcode');
    expect(await svc.get(companyId, id)).toMatchObject({ status: 'qrcode', qrcode: '2@QRDATA,abc==,def==' });
    f.last().open('5511900000001:12@s.whatsapp.net');
    await waitFor(() => s.state === 'open');
    await waitFor(async () => (await svc.get(companyId, id))?.status === 'CONNECTED');
    expect(await svc.get(companyId, id)).toMatchObject({ status: 'CONNECTED', qrcode: '', retries: 0, number: '5511900000001' });
    expect(statusesOf(id)).toEqual(['OPENING', 'qrcode', 'CONNECTED']);
    // A second start while open changes nothing.
    await s.start();
    expect(f.sockets).toHaveLength(1);
  });

  test('close 401 (logged out, the fixture) is final: auth state cleared, DISCONNECTED, no reconnect', async () => {
    const id = await connection();
    const { s, f } = await openSession(id);
    await f.last().opts.auth.keys.set({ 'pre-key': { '1': { public: Buffer.from([1]), private: Buffer.from([2]) } } });
    f.last().ev.emit('creds.update', { me: { id: '5511900000001:12@s.whatsapp.net' } });
    await waitFor(async () => (await authRows(id)).length === 2);
    const { data } = loadFixture('connection.update--close-logged-out-401.json');
    f.last().ev.emit('connection.update', data);
    await waitFor(() => s.state === 'stopped');
    expect(s.lastStopReason).toBe('loggedOut');
    await waitFor(async () => (await svc.get(companyId, id))?.status === 'DISCONNECTED');
    expect(await authRows(id)).toEqual([]);
    await sleep(80); // longer than any backoff
    expect(f.sockets).toHaveLength(1);
    expect(statusesOf(id).slice(-1)).toEqual(['DISCONNECTED']);
  });

  test('close 500 (bad session) clears and stops; 440 (replaced) stops and keeps the auth state', async () => {
    const bad = await connection();
    const a = await openSession(bad);
    a.f.last().ev.emit('creds.update', { registered: true });
    await waitFor(async () => (await authRows(bad)).length === 1);
    a.f.last().close(500);
    await waitFor(() => a.s.state === 'stopped');
    expect(await authRows(bad)).toEqual([]);

    const replaced = await connection();
    const b = await openSession(replaced);
    b.f.last().ev.emit('creds.update', { registered: true });
    await waitFor(async () => (await authRows(replaced)).length === 1);
    b.f.last().close(440);
    await waitFor(() => b.s.state === 'stopped');
    expect(await authRows(replaced)).toHaveLength(1);
    await sleep(60);
    expect([a.f.sockets.length, b.f.sockets.length]).toEqual([1, 1]);
  });

  test('close 428 / 408 reconnects after a backoff; open resets the failure count', async () => {
    const id = await connection();
    const { s, f } = await openSession(id);
    f.last().close(428);
    await waitFor(() => s.state === 'waiting' || f.sockets.length === 2);
    await waitFor(() => f.sockets.length === 2, 2000);
    expect(await svc.get(companyId, id)).toMatchObject({ retries: 1 });
    f.last().close(408);
    await waitFor(() => f.sockets.length === 3, 2000);
    expect(s.retries).toBe(2);
    f.last().open();
    await waitFor(() => s.state === 'open');
    expect(s.retries).toBe(0);
    expect(statusesOf(id)).toEqual(['OPENING', 'CONNECTED', 'DISCONNECTED', 'DISCONNECTED', 'CONNECTED']);
    expect(updates.filter((u) => u.id === id && u.status === 'DISCONNECTED').map((u) => u.retries)).toEqual([1, 2]);
  });

  test('liveness probe: a socket that stops answering pings is connected but dead: closed (livenessProbe), DISCONNECTED, reconnected with backoff; alerts dropped then recovered', async () => {
    const id = await connection();
    const alerts: SessionAlert[] = [];
    const { s, f } = await openSession(id, { probe: { intervalMs: 25, timeoutMs: 25, maxMisses: 2 }, onAlert: (a) => void alerts.push(a) });
    const first = f.last();
    // Alive: pings are answered, nothing happens.
    await waitFor(() => first.queries.length >= 3, 2000);
    expect(first.queries[0]).toMatchObject({ tag: 'iq', attrs: { type: 'get', xmlns: 'w:p' }, content: [{ tag: 'ping' }] });
    expect(s.state).toBe('open');
    expect(alerts).toEqual([]);
    // Connected but dead: the socket never closes by itself, pings go unanswered.
    first.dead = true;
    await waitFor(() => f.sockets.length === 2, 3000);
    expect(first.ended).toBeGreaterThan(0);
    const disconnected = updates.filter((u) => u.id === id && u.status === 'DISCONNECTED');
    expect(disconnected).toEqual([expect.objectContaining({ retries: 1, reason: 'livenessProbe' })]);
    expect(alerts.map((a) => [a.kind, a.reason])).toEqual([['dropped', 'livenessProbe']]);
    // The old socket's late close is ignored; the new one opens: recovered, the probe runs on it.
    first.close(408);
    f.last().open();
    await waitFor(() => s.state === 'open');
    expect(alerts.map((a) => a.kind)).toEqual(['dropped', 'recovered']);
    expect(alerts[1].downMs).toBeGreaterThanOrEqual(0);
    await waitFor(() => f.last().queries.length >= 1, 2000);
    expect(statusesOf(id)).toEqual(['OPENING', 'CONNECTED', 'DISCONNECTED', 'CONNECTED']);
    // A session stopped on purpose raises no alert.
    await s.stop({ logout: true, status: 'DISCONNECTED' });
    expect(alerts).toHaveLength(2);
  });

  test('alerts: logged out -> needs-qr, replaced -> closed, too many failures -> dropped then timeout', async () => {
    const alerts: Record<number, string[]> = {};
    const on = (id: number) => (a: SessionAlert) => void (alerts[id] = [...(alerts[id] ?? []), `${a.kind}:${a.reason}`]);
    const out = await connection();
    const a = await openSession(out, { onAlert: on(out) });
    a.f.last().close(401);
    await waitFor(() => a.s.state === 'stopped');
    const replaced = await connection();
    const b = await openSession(replaced, { onAlert: on(replaced) });
    b.f.last().close(440);
    await waitFor(() => b.s.state === 'stopped');
    const flaky = await connection();
    const c = await openSession(flaky, { onAlert: on(flaky), backoff: { baseMs: 5, maxMs: 10, maxFailures: 3 } });
    for (let i = 1; i <= 3; i++) {
      await waitFor(() => c.f.sockets.length === i, 2000);
      c.f.last().close(428);
    }
    await waitFor(() => c.s.state === 'stopped', 2000);
    expect(alerts).toEqual({ [out]: ['needs-qr:loggedOut'], [replaced]: ['closed:connectionReplaced'], [flaky]: ['dropped:connectionClosed', 'timeout:connectionClosed'] });
    expect(updates.filter((u) => u.id === out).slice(-1)[0]).toMatchObject({ status: 'DISCONNECTED', reason: 'loggedOut' });
    expect(updates.filter((u) => u.id === flaky).slice(-1)[0]).toMatchObject({ status: 'TIMEOUT', reason: 'connectionClosed' });
  });

  test('gap: after a drop, the first message of a chat asks the phone for the messages before it (once per chat); ON_DEMAND history inside the gap is emitted, older history is not', async () => {
    const id = await connection();
    const { s, f, emitted } = await openSession(id, { gapSync: { windowMs: 5000, count: 30, maxChats: 5 } });
    const chat = '5511988887777@s.whatsapp.net';
    const msg = (mid: string, text: string, tsSec: number, jid = chat) => ({ key: { remoteJid: jid, fromMe: false, id: mid }, message: { conversation: text }, messageTimestamp: tsSec, pushName: 'Cliente' });
    const now = Math.floor(Date.now() / 1000);
    f.last().ev.emit('messages.upsert', { messages: [msg('BEFORE1', 'antes', now)], type: 'notify' });
    await waitFor(() => emitted.length === 1);
    expect(f.last().historyRequests).toEqual([]); // no gap yet
    f.last().close(408);
    await waitFor(() => f.sockets.length === 2, 2000);
    await sleep(1100); // the gap lasts a while
    const during = Math.floor(Date.now() / 1000) - 1;
    f.last().open();
    await waitFor(() => s.state === 'open');
    const second = f.last();
    second.ev.emit('messages.upsert', { messages: [msg('AFTER1', 'voltei', Math.floor(Date.now() / 1000))], type: 'notify' });
    second.ev.emit('messages.upsert', { messages: [msg('AFTER2', 'de novo', Math.floor(Date.now() / 1000))], type: 'notify' });
    await waitFor(() => emitted.length === 3);
    expect(second.historyRequests).toHaveLength(1);
    expect(second.historyRequests[0]).toMatchObject({ count: 30, key: { remoteJid: chat, id: 'AFTER1' } });
    // The phone answers with an ON_DEMAND sync: a message of the gap, one from long before, one already seen.
    second.ev.emit('messaging-history.set', {
      chats: [],
      contacts: [],
      messages: [msg('GAP1', 'perdida', during), msg('OLD1', 'velha', now - 86_400), msg('BEFORE1', 'antes', now)],
      syncType: proto.HistorySync.HistorySyncType.ON_DEMAND,
    } as never);
    await waitFor(() => emitted.length >= 5, 2000);
    await sleep(50);
    const ids = emitted.map((e) => e.externalId);
    expect(ids).toEqual(['BEFORE1', 'AFTER1', 'AFTER2', 'GAP1', 'BEFORE1']);
    expect(emitted[3]).toMatchObject({ kind: 'message', direction: 'in', content: { text: 'perdida' }, idempotencyKey: `whatsapp:${id}:message:GAP1` });
    // A sync of another type (the initial RECENT one) is not imported.
    second.ev.emit('messaging-history.set', { chats: [], contacts: [], messages: [msg('GAP2', 'outra', during)], syncType: proto.HistorySync.HistorySyncType.RECENT } as never);
    await sleep(100);
    expect(emitted.map((e) => e.externalId)).not.toContain('GAP2');
  });

  test('515 restart required reconnects at once without counting a failure', async () => {
    const id = await connection();
    const { s, f } = await openSession(id, { backoff: { baseMs: 5000, maxMs: 5000, maxFailures: 5 } });
    f.last().close(515);
    await waitFor(() => f.sockets.length === 2, 500); // far below the 5 s backoff
    expect(s.retries).toBe(0);
    expect(s.state).toBe('connecting');
  });

  test('5 consecutive failures -> TIMEOUT and the session stops until a manual start', async () => {
    const id = await connection();
    const { s, f } = session(id);
    await s.start();
    for (let i = 1; i <= 5; i++) {
      await waitFor(() => f.sockets.length === i, 2000);
      f.last().close(408);
    }
    await waitFor(() => s.state === 'stopped', 2000);
    expect(s.lastStopReason).toBe('timeout');
    await waitFor(async () => (await svc.get(companyId, id))?.status === 'TIMEOUT');
    expect(await svc.get(companyId, id)).toMatchObject({ status: 'TIMEOUT', retries: 5 });
    await sleep(100);
    expect(f.sockets).toHaveLength(5);
    // A manual start tries again from zero.
    await s.start();
    expect(f.sockets).toHaveLength(6);
    expect(s.retries).toBe(0);
  });

  test('a socket factory that throws counts as a failure (fails soft, bounded)', async () => {
    const id = await connection();
    let calls = 0;
    const { s } = session(id, {
      socketFactory: () => {
        calls++;
        throw new Error('getaddrinfo ENOTFOUND web.whatsapp.com');
      },
      backoff: { baseMs: 5, maxMs: 10, maxFailures: 3 },
    });
    await s.start();
    await waitFor(() => s.state === 'stopped', 2000);
    expect(calls).toBe(3);
    await waitFor(async () => (await svc.get(companyId, id))?.status === 'TIMEOUT');
  });

  test('backoff: 2 s doubling to 60 s, jitter within ±25 % and the bounds', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((i) => backoffDelay(i, DEFAULT_BACKOFF, () => 0.5))).toEqual([2000, 4000, 8000, 16000, 32000, 60000, 60000]);
    expect(backoffDelay(1, DEFAULT_BACKOFF, () => 0)).toBe(2000);
    expect(backoffDelay(3, DEFAULT_BACKOFF, () => 0)).toBe(6000);
    expect(backoffDelay(3, DEFAULT_BACKOFF, () => 0.999)).toBe(Math.round(8000 * (0.75 + 0.5 * 0.999)));
    expect(backoffDelay(9, DEFAULT_BACKOFF, () => 1)).toBe(60000);
  });

  test('keys.set is persisted in one transaction per call and read back after a restart; creds.update persisted', async () => {
    const id = await connection();
    const first = await openSession(id);
    const auth = first.f.last().opts.auth;
    const session1 = Buffer.from('signal-session-bytes');
    await auth.keys.set({
      'pre-key': { '1': { public: Buffer.from([1, 2]), private: Buffer.from([3, 4]) }, '2': { public: Buffer.from([5]), private: Buffer.from([6]) } },
      session: { '5511955550123.0': session1 },
      'app-state-sync-key': { AAAA: { keyData: Buffer.from([9, 9]), timestamp: 5 } as never },
    });
    const rows = await authRows(id);
    expect(rows.map((r) => `${r.keyType}/${r.keyId}`).sort()).toEqual(['app-state-sync-key/AAAA', 'pre-key/1', 'pre-key/2', 'session/5511955550123.0']);
    // Deletion through set(null), in the same call as an upsert.
    await auth.keys.set({ 'pre-key': { '2': null, '3': { public: Buffer.from([7]), private: Buffer.from([8]) } } });
    first.f.last().ev.emit('creds.update', { me: { id: '5511900000001:12@s.whatsapp.net', name: 'Loja' }, registered: true });
    await waitFor(async () => (await authRows(id)).some((r) => r.keyType === 'creds'));
    const credsRow = await k.db(AUTH_TABLE).where({ connectionId: id, keyType: 'creds' }).first('value', 'companyId');
    expect(credsRow.companyId).toBe(companyId);
    expect(JSON.parse(credsRow.value, BufferJSON.reviver).me).toEqual({ id: '5511900000001:12@s.whatsapp.net', name: 'Loja' });

    // Restart: a new socket on state read back from PostgreSQL.
    await first.s.restart();
    await waitFor(() => first.f.sockets.length === 2);
    const again = first.f.last().opts.auth;
    expect(again).not.toBe(auth);
    expect(again.creds.me).toEqual({ id: '5511900000001:12@s.whatsapp.net', name: 'Loja' });
    expect(again.creds.registered).toBe(true);
    expect(Buffer.from(again.creds.noiseKey.private).equals(Buffer.from(auth.creds.noiseKey.private))).toBe(true);
    const preKeys = await again.keys.get('pre-key', ['1', '2', '3', 'missing']);
    expect(Object.keys(preKeys).sort()).toEqual(['1', '3']);
    expect(Buffer.from(preKeys['1'].private).equals(Buffer.from([3, 4]))).toBe(true);
    const sessions = await again.keys.get('session', ['5511955550123.0']);
    expect(Buffer.from(sessions['5511955550123.0']).equals(session1)).toBe(true);
    const appKeys = await again.keys.get('app-state-sync-key', ['AAAA']);
    expect(appKeys.AAAA).toBeInstanceOf(proto.Message.AppStateSyncKeyData);
    expect(Buffer.from(appKeys.AAAA.keyData!).equals(Buffer.from([9, 9]))).toBe(true);
  });

  test('a keys.set that fails half-way writes nothing of that call (one transaction)', async () => {
    const id = await connection();
    const baileys = { BufferJSON, initAuthCreds, proto } as never;
    const { state } = await usePostgresAuthState({ db: k.db, companyId, connectionId: id, baileys });
    const preKeys: Record<string, { public: Buffer; private: Buffer }> = {};
    for (let i = 0; i < 600; i++) preKeys[String(i)] = { public: Buffer.from([i % 256]), private: Buffer.from([1]) };
    // 600 rows go in two INSERT statements; a key type longer than the column (64) fails the last one.
    const bad = { 'pre-key': preKeys, ['t'.repeat(80)]: { x: Buffer.from([1]) } } as never;
    await expect(state.keys.set(bad)).rejects.toThrow();
    expect(await authRows(id)).toEqual([]);
    // The queue survives a failed call.
    await state.keys.set({ 'pre-key': { '1': preKeys['1'] } });
    expect(await authRows(id)).toEqual([{ keyType: 'pre-key', keyId: '1' }]);
  });

  test('fixtures fed through the event interface come out as the normalized envelopes (groups only when allowed)', async () => {
    const id = await connection({ allowGroup: false });
    const { f, emitted } = await openSession(id);
    const events = fixtureFiles().filter((file) => !file.startsWith('connection.update'));
    for (const file of events) {
      const { event, data } = loadFixture(file);
      (f.last().ev.emit as (name: string, arg: unknown) => boolean)(event, data);
    }
    const expected = events.flatMap((file) => {
      const { event, data } = loadFixture(file);
      return normalizeEvent(event, data, { companyId, connectionId: id, receivedAt: '2026-01-01T00:00:00.000Z', me: { id: '5511900000001:7@s.whatsapp.net', lid: '900000000000001:7@lid', name: 'Loja' } });
    });
    const notGroup = expected.filter((e) => !e.thread.isGroup);
    await waitFor(() => emitted.length >= notGroup.length, 3000);
    await sleep(50);
    // Envelopes whose time comes from the receipt time (no timestamp in the payload) differ only there.
    const strip = (e: Envelope) => ({ ...e, id: e.kind === 'typing' ? '' : e.id, idempotencyKey: e.kind === 'typing' ? '' : e.idempotencyKey, occurredAt: e.kind === 'typing' || e.externalId === 'ACDE9E0A8A5FE7440F67F7084670848A' && e.kind === 'delete' && !e.sender ? '' : e.occurredAt });
    expect(emitted.map(strip)).toEqual(notGroup.map(strip));
    for (const e of emitted) expectValidEnvelope(e);
    expect(emitted.some((e) => e.thread.isGroup)).toBe(false);
    // The RTL echo typed on the phone is ours: direction out, sender = our account.
    expect(emitted.find((e) => e.externalId === '3EB08437265DE4D60859B2')).toMatchObject({ direction: 'out', sender: { externalId: '5511900000001', lid: '900000000000001@lid' } });
    // The media envelopes kept their metadata although the download failed (no network): no file.
    const image = emitted.find((e) => e.externalId === 'ACE014B4DB3DDB68101E0273BBFDDD90' && e.kind === 'message')!;
    expect(image.content!.media).toMatchObject({ mimeType: 'image/jpeg', size: 41161 });
    expect(image.content!.media!.path).toBeUndefined();
  });

  test('group messages are emitted when the connection allows groups (and after a settings refresh)', async () => {
    const id = await connection({ allowGroup: false });
    const { s, f, emitted } = await openSession(id);
    const { data } = loadFixture('messages.upsert--group-reply-lid.json');
    f.last().ev.emit('messages.upsert', data);
    await sleep(50);
    expect(emitted).toEqual([]);
    expect((await k.as(admin, 'PUT', `/whatsapp/${id}`, { allowGroup: true })).statusCode).toBe(200);
    await s.refreshSettings();
    f.last().ev.emit('messages.upsert', data);
    await waitFor(() => emitted.length === 1);
    expect(emitted[0]).toMatchObject({ kind: 'message', thread: { externalId: '120363000000000042', isGroup: true }, sender: { phone: '5511955550188', lid: '205000000000077@lid' }, replyTo: { externalId: '37DF1986E039FBA0916ABB3B9CCBBF33' } });
  });

  test('media: downloaded with the injected downloader through the socket and stored under messages/ before emitting', async () => {
    const id = await connection();
    const { data } = loadFixture('messages.upsert--image-caption.json');
    const jpeg = Buffer.from(data.messages[0].message.imageMessage.jpegThumbnail, 'base64');
    const calls: { id: string; sock: unknown }[] = [];
    const download: MediaDownloader = async (msg, sock) => {
      calls.push({ id: msg.key.id!, sock });
      return jpeg;
    };
    const { f, emitted } = await openSession(id, { download });
    f.last().ev.emit('messages.upsert', data);
    await waitFor(() => emitted.length === 1);
    expect(calls).toEqual([{ id: 'ACE014B4DB3DDB68101E0273BBFDDD90', sock: f.last() }]);
    const media = emitted[0].content!.media!;
    expect(media.path).toMatch(/^messages\/[0-9a-f-]{36}\.jpg$/);
    expect(media.size).toBe(jpeg.length);
    expect(media.mimeType).toBe('image/jpeg');
    const file = join(uploadsDir, `company${companyId}`, media.path!);
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file).equals(jpeg)).toBe(true);
    expectValidEnvelope(emitted[0]);
  });

  test('media: a failed or refused download keeps the envelope (metadata, no file)', async () => {
    const id = await connection();
    const { data: doc } = loadFixture('messages.upsert--document-with-caption.json');
    const { data: audio } = loadFixture('messages.upsert--audio-ptt.json');
    // An executable is not an allowed type: stored nothing, still emitted.
    const exe = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200)]);
    let calls = 0;
    const { f, emitted } = await openSession(id, {
      download: async (msg) => {
        calls++;
        if (msg.key.id === 'AC4AAD69361B0B2B021E049CAC1C700C') throw Object.assign(new Error('Failed to fetch stream'), { status: 410 });
        return exe;
      },
    });
    f.last().ev.emit('messages.upsert', doc);
    f.last().ev.emit('messages.upsert', audio);
    await waitFor(() => emitted.length === 2);
    expect(calls).toBe(2);
    expect(emitted.map((e) => [e.externalId, e.content!.type, e.content!.media!.path, e.content!.media!.fileName ?? null])).toEqual([
      ['3EB0DFAA3F4C27988164C7', 'document', undefined, 'clientes-2024-01-03.csv'],
      ['AC4AAD69361B0B2B021E049CAC1C700C', 'audio', undefined, null],
    ]);
    expect(emitted[1].content!.media).toMatchObject({ voice: true, durationSeconds: 4, mimeType: 'audio/ogg; codecs=opus' });
  });

  test('messageFromDownloadHint rebuilds a downloadable message from an envelope', () => {
    const { event, data } = loadFixture('messages.upsert--audio-ptt.json');
    const [e] = normalizeEvent(event, data, { companyId, connectionId: 1 });
    const msg = messageFromDownloadHint({ remoteJid: '104857600000123@lid', id: e.externalId, fromMe: false }, e.content!.media!.downloadHint as BaileysDownloadHint);
    const audioMessage = msg.message!.audioMessage!;
    expect(Buffer.from(audioMessage.mediaKey!).toString('base64')).toBe('VRoJd63BoioYCZvQGJWRi6dPkkwNEZhs12zC132RxBY=');
    expect(audioMessage.directPath).toBe(data.messages[0].message.audioMessage.directPath);
    expect(audioMessage.url).toBe(data.messages[0].message.audioMessage.url);
    expect(audioMessage.mediaKeyTimestamp).toBe(1767367534);
  });

  test('send: text, quoted reply with the stored key, group JID, media from the uploads, contact card', async () => {
    const id = await connection({ allowGroup: true });
    const { s, f, emitted } = await openSession(id);
    // A message arrives; replying to it quotes its real key.
    const { data } = loadFixture('messages.upsert--text-conversation.json');
    f.last().ev.emit('messages.upsert', data);
    await waitFor(() => emitted.length === 1);
    const base = { companyId, messageId: 1, ticketId: 1, connectionId: id, channel: 'whatsapp' as const };
    const r1 = await s.send({ ...base, to: '5511955550123', body: 'Entregamos sim!', quotedWid: 'ACB97E0ADC923D3D3E546C1D43473624' });
    expect(r1.externalId).toBe('3EB0FAKE1');
    expect(f.last().sent[0]).toMatchObject({ jid: '5511955550123@s.whatsapp.net', content: { text: 'Entregamos sim!' } });
    expect(f.last().sent[0].options!.quoted).toEqual({
      key: { remoteJid: '5511955550123@s.whatsapp.net', fromMe: false, id: 'ACB97E0ADC923D3D3E546C1D43473624' },
      message: data.messages[0].message,
    });
    // An unknown quoted id falls back to a minimal key in the chat.
    await s.send({ ...base, to: '5511955550123', body: 'x', quotedWid: 'UNKNOWNID' });
    expect(f.last().sent[1].options!.quoted).toEqual({ key: { id: 'UNKNOWNID', remoteJid: '5511955550123@s.whatsapp.net', fromMe: false }, message: { conversation: '' } });
    // Groups and stored LID JIDs.
    await s.send({ ...base, to: '120363000000000042', isGroup: true, body: 'grupo' });
    expect(f.last().sent[2].jid).toBe('120363000000000042@g.us');
    await s.send({ ...base, to: '104857600000123', remoteJid: '104857600000123@lid', body: 'lid' } as never);
    expect(f.last().sent[3].jid).toBe('104857600000123@lid');
    // Media: the stored upload's absolute file.
    const stored = await uploads.save(companyId, 'messages', { file: (await import('node:stream')).Readable.from([Buffer.from('%PDF-1.4\n%test\n')]), filename: 'boleto.pdf', mimetype: 'application/pdf' }, { allow: ['application/pdf'] });
    await s.send({ ...base, to: '5511955550123', body: 'segue', media: { path: stored.path, mimeType: 'application/pdf', fileName: 'boleto.pdf' } });
    expect(f.last().sent[4].content).toEqual({ document: { url: join(uploadsDir, `company${companyId}`, stored.path) }, mimetype: 'application/pdf', fileName: 'boleto.pdf', caption: 'segue' });
    await s.send({ ...base, to: '5511955550123', body: 'BEGIN:VCARD\nVERSION:3.0\nFN:Ana Souza\nEND:VCARD', mediaType: 'contactMessage' } as never);
    expect(f.last().sent[5].content).toEqual({ contacts: { displayName: 'Ana Souza', contacts: [{ vcard: 'BEGIN:VCARD\nVERSION:3.0\nFN:Ana Souza\nEND:VCARD' }] } });
    // The echo of our own send is not published again.
    const before = emitted.length;
    f.last().ev.emit('messages.upsert', { messages: [{ key: { remoteJid: '5511955550123@s.whatsapp.net', fromMe: true, id: '3EB0FAKE1' }, message: { conversation: 'Entregamos sim!' }, messageTimestamp: 1700000000 }], type: 'append' });
    f.last().ev.emit('messages.upsert', { messages: [{ key: { remoteJid: '5511955550123@s.whatsapp.net', fromMe: true, id: 'TYPEDONPHONE' }, message: { conversation: 'do celular' }, messageTimestamp: 1700000000 }], type: 'notify' });
    await waitFor(() => emitted.length === before + 1);
    expect(emitted[before]).toMatchObject({ externalId: 'TYPEDONPHONE', direction: 'out' });
  });

  test('send errors: bad recipient, foreign media path, missing file and empty body are permanent; not connected and transient failures are retryable', async () => {
    const id = await connection();
    const { s, f } = await openSession(id);
    const base = { companyId, messageId: 1, ticketId: 1, connectionId: id, channel: 'whatsapp' as const };
    await expect(s.send({ ...base, to: 'abc', body: 'x' })).rejects.toBeInstanceOf(PermanentError);
    await expect(s.send({ ...base, to: '5511955550123', body: 'x', media: { path: '../company1/messages/a.pdf', mimeType: 'application/pdf', fileName: 'a.pdf' } })).rejects.toBeInstanceOf(PermanentError);
    await expect(s.send({ ...base, to: '5511955550123', body: 'x', media: { path: 'messages/nope.pdf', mimeType: 'application/pdf', fileName: 'a.pdf' } })).rejects.toThrow(/not found/);
    await expect(s.send({ ...base, to: '5511955550123', body: '   ' })).rejects.toBeInstanceOf(PermanentError);
    f.last().sendImpl = async () => {
      throw Object.assign(new Error('Connection Closed'), { output: { statusCode: 428 } });
    };
    await expect(s.send({ ...base, to: '5511955550123', body: 'x' })).rejects.toBeInstanceOf(RetryableError);
    f.last().sendImpl = async () => {
      throw Object.assign(new Error('bad request'), { output: { statusCode: 400 } });
    };
    await expect(s.send({ ...base, to: '5511955550123', body: 'x' })).rejects.toBeInstanceOf(PermanentError);
    f.last().close(428);
    await waitFor(() => s.state !== 'open');
    await expect(s.send({ ...base, to: '5511955550123', body: 'x' })).rejects.toBeInstanceOf(RetryableError);
  });

  test('stop with logout: logs out an open socket, clears, pushes DISCONNECTED; later events of the old socket are ignored', async () => {
    const id = await connection();
    const { s, f } = await openSession(id);
    const sock = f.last() as FakeSocket;
    sock.ev.emit('creds.update', { registered: true });
    await waitFor(async () => (await authRows(id)).length === 1);
    await s.stop({ logout: true, clear: true, status: 'DISCONNECTED' });
    expect([sock.loggedOut, sock.ended]).toEqual([1, 1]);
    expect(await authRows(id)).toEqual([]);
    expect(await svc.get(companyId, id)).toMatchObject({ status: 'DISCONNECTED', qrcode: '', retries: 0 });
    sock.close(401);
    sock.ev.emit('connection.update', { qr: 'late' });
    await sleep(50);
    expect((await svc.get(companyId, id))?.status).toBe('DISCONNECTED');
    expect(f.sockets).toHaveLength(1);
  });

  test('a deleted connection stops its session at the next status change', async () => {
    const id = await connection();
    const { s, f } = await openSession(id);
    expect((await k.as(admin, 'DELETE', `/whatsapp/${id}`)).statusCode).toBe(200);
    f.last().close(408);
    await waitFor(() => s.state === 'stopped', 2000);
    expect(s.lastStopReason).toBe('deleted');
    await sleep(60);
    expect(f.sockets).toHaveLength(1);
  });

  test('getMessage (Baileys retries) answers our recent messages', async () => {
    const id = await connection();
    const { s, f } = await openSession(id);
    await s.send({ companyId, messageId: 1, ticketId: 1, connectionId: id, channel: 'whatsapp', to: '5511955550123', body: 'retry me' });
    expect(await f.last().opts.getMessage({ id: '3EB0FAKE1', remoteJid: '5511955550123@s.whatsapp.net', fromMe: true })).toEqual({ conversation: 'retry me' });
    expect(await f.last().opts.getMessage({ id: 'nope' })).toBeUndefined();
  });

  test('the real Baileys socket (default factory) fails soft: bounded retries, then TIMEOUT (or a QR where WhatsApp is reachable)', async () => {
    const id = await connection();
    const s = new SessionManager(companyId, id, { db: k.db, connections: recording, log: silentLogger as never, emit: async () => undefined, backoff: { baseMs: 20, maxMs: 40, maxFailures: 2 } });
    running.push(s);
    await s.start();
    await waitFor(async () => s.state === 'stopped' || (await svc.get(companyId, id))?.status === 'qrcode', 20000, 50);
    if (s.state === 'stopped') {
      expect(s.lastStopReason).toBe('timeout');
      expect(await svc.get(companyId, id)).toMatchObject({ status: 'TIMEOUT', retries: 2 });
      expect(statusesOf(id)).toEqual(['OPENING', 'DISCONNECTED', 'OPENING', 'TIMEOUT']);
    }
  }, 30000);

  test('raw WAMessage of an emitted envelope keeps the key for the pipeline (dataJson)', async () => {
    const id = await connection();
    const { f, emitted } = await openSession(id);
    const live: WAMessage = { key: { remoteJid: '5511955550123@s.whatsapp.net', fromMe: false, id: 'LIVE1' }, message: { conversation: 'oi' }, messageTimestamp: 1700000000, pushName: 'Carla' };
    f.last().ev.emit('messages.upsert', { messages: [live], type: 'notify' });
    await waitFor(() => emitted.length === 1);
    expect(emitted[0].raw).toEqual({ key: { remoteJid: '5511955550123@s.whatsapp.net', fromMe: false, id: 'LIVE1' }, message: { conversation: 'oi' }, messageTimestamp: 1700000000, pushName: 'Carla' });
  });
});
