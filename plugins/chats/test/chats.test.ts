import type { Socket } from 'socket.io-client';
import { errorCatalogue } from '@atendo/sdk';
import { collectEvents, createTestKernel, nextEvent, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import chats from '../src/index';

describe('internal chat', () => {
  let k: TestKernel;
  let A: number;
  let adminA: TestUser;
  let ana: TestUser;
  let bia: TestUser;
  let caio: TestUser;
  let adminB: TestUser;
  let userB: TestUser;
  let noChat: TestUser;

  beforeAll(async () => {
    k = await createTestKernel({ plugins: [chats] });
    const a = await k.createCompany();
    const b = await k.createCompany();
    A = a.companyId;
    adminA = a.admin;
    adminB = b.admin;
    ana = await k.createUser(A, { profile: 'user', name: 'Ana' });
    bia = await k.createUser(A, { profile: 'user', name: 'Bia' });
    caio = await k.createUser(A, { profile: 'user', name: 'Caio' });
    userB = await k.createUser(b.companyId, { profile: 'user', name: 'Bruno' });
    noChat = (await k.createCompany({ without: ['useInternalChat'] })).admin;
  });
  afterAll(() => k.close());

  const createChat = async (owner: TestUser, title: string, users: TestUser[]) => {
    const res = await k.as(owner, 'POST', '/chats', { title, users: users.map((u) => ({ id: u.id, name: 'ignored' })) });
    expect(res.statusCode).toBe(200);
    return res.json();
  };
  const unreadsOf = (chat: { users: { userId: number; unreads: number }[] }, user: TestUser) => chat.users.find((u) => u.userId === user.id)?.unreads;

  test('CRUD with the wire shape: the owner is the caller and always a participant', async () => {
    const res = await k.as(ana, 'POST', '/chats', { title: '  Plantão  ', users: [{ id: bia.id, name: 'Bia' }, { id: String(bia.id) }] });
    expect(res.statusCode).toBe(200);
    const chat = res.json();
    expect(chat).toEqual({
      id: expect.any(Number),
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      title: 'Plantão',
      ownerId: ana.id,
      owner: { id: ana.id, name: 'Ana' },
      lastMessage: '',
      companyId: A,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      users: expect.any(Array),
    });
    expect(chat.users.map((u: { userId: number }) => u.userId).sort()).toEqual([ana.id, bia.id].sort());
    expect(chat.users[0]).toEqual({ id: expect.any(Number), chatId: chat.id, userId: expect.any(Number), unreads: 0, user: { id: expect.any(Number), name: expect.any(String) } });

    for (const key of [String(chat.id), chat.uuid, chat.uuid.toUpperCase()]) {
      const got = await k.as(bia, 'GET', `/chats/${key}`);
      expect(got.statusCode).toBe(200);
      expect(got.json()).toEqual(chat);
    }

    const put = await k.as(ana, 'PUT', `/chats/${chat.uuid}`, { title: 'Renamed', users: [{ id: caio.id }] });
    expect(put.statusCode).toBe(200);
    expect(put.json().title).toBe('Renamed');
    expect(put.json().users.map((u: { userId: number }) => u.userId).sort()).toEqual([ana.id, caio.id].sort());
    expect((await k.as(bia, 'GET', `/chats/${chat.id}`)).statusCode).toBe(404);
    expect((await k.as(caio, 'GET', `/chats/${chat.id}`)).json().title).toBe('Renamed');

    const del = await k.as(ana, 'DELETE', `/chats/${chat.id}`);
    expect(del.statusCode).toBe(200);
    expect(del.json()).toEqual({ message: 'Chat deleted' });
    const gone = await k.as(ana, 'GET', `/chats/${chat.id}`);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error).toBe('ERR_NO_CHAT_FOUND');
    expect(errorCatalogue().ERR_NO_CHAT_FOUND).toMatchObject({ status: 404, owner: 'chats' });
    expect(await k.db('chatUsers').where({ chatId: chat.id })).toEqual([]);
  });

  test('GET /chats lists only the caller\'s chats, searchable, paginated, most recently active first', async () => {
    const mine = await createChat(adminA, 'List one', [bia]);
    const other = await createChat(adminA, 'List two', [bia]);
    const notMine = await createChat(ana, 'List hidden', [caio]);
    await k.as(adminA, 'POST', `/chats/${mine.id}/messages`, { message: 'bump' });
    const res = await k.as(bia, 'GET', '/chats?searchParam=list');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.records.map((c: { id: number }) => c.id)).toEqual([mine.id, other.id]);
    expect(body).toMatchObject({ count: 2, hasMore: false });
    expect(body.records[0].lastMessage).toBe('bump');
    expect((await k.as(caio, 'GET', '/chats?searchParam=LIST')).json().records.map((c: { id: number }) => c.id)).toEqual([notMine.id]);
    expect((await k.as(bia, 'GET', '/chats?searchParam=%25')).json().records).toEqual([]);
    // Clients of the product family call it with a trailing slash: the same list, not the :id route.
    const slash = await k.as(bia, 'GET', '/chats/?searchParam=list');
    expect(slash.statusCode).toBe(200);
    expect(slash.json()).toEqual(body);

    for (let i = 0; i < 21; i++) await createChat(caio, `Page ${i}`, []);
    const p1 = (await k.as(caio, 'GET', '/chats?searchParam=page')).json();
    expect(p1).toMatchObject({ count: 21, hasMore: true });
    expect(p1.records).toHaveLength(20);
    const p2 = (await k.as(caio, 'GET', '/chats?searchParam=page&pageNumber=2')).json();
    expect(p2).toMatchObject({ count: 21, hasMore: false });
    expect(p2.records.map((c: { title: string }) => c.title)).toEqual(['Page 0']);
  });

  test('a non-participant of the same company gets 404 and no data on every route', async () => {
    const chat = await createChat(ana, 'Private', [bia]);
    await k.as(ana, 'POST', `/chats/${chat.id}/messages`, { message: 'secret' });
    for (const [method, url, body] of [
      ['GET', `/chats/${chat.id}`, undefined],
      ['GET', `/chats/${chat.uuid}`, undefined],
      ['PUT', `/chats/${chat.id}`, { title: 'hijack' }],
      ['DELETE', `/chats/${chat.id}`, undefined],
      ['GET', `/chats/${chat.id}/messages`, undefined],
      ['POST', `/chats/${chat.id}/messages`, { message: 'intrusion' }],
      ['POST', `/chats/${chat.id}/read`, { userId: caio.id }],
    ] as const) {
      for (const who of [caio, adminA]) {
        const res = await k.as(who, method, url, body);
        expect({ method, url, status: res.statusCode, error: res.json().error }).toEqual({ method, url, status: 404, error: 'ERR_NO_CHAT_FOUND' });
        expect(res.body).not.toContain('secret');
      }
    }
    const after = (await k.as(ana, 'GET', `/chats/${chat.id}`)).json();
    expect(after.title).toBe('Private');
    expect(after.lastMessage).toBe('secret');
    expect((await k.as(ana, 'GET', `/chats/${chat.id}/messages`)).json().records.map((m: { message: string }) => m.message)).toEqual(['secret']);
  });

  test('only the owner edits or deletes (403 ERR_NO_PERMISSION for other participants)', async () => {
    const chat = await createChat(ana, 'Owned', [bia]);
    for (const [method, body] of [['PUT', { title: 'nope' }], ['DELETE', undefined]] as const) {
      const res = await k.as(bia, method, `/chats/${chat.id}`, body);
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe('ERR_NO_PERMISSION');
    }
    expect((await k.as(bia, 'GET', `/chats/${chat.id}`)).json().title).toBe('Owned');
    // The owner cannot be removed from the participants.
    const put = await k.as(ana, 'PUT', `/chats/${chat.id}`, { users: [] });
    expect(put.json().users.map((u: { userId: number }) => u.userId)).toEqual([ana.id]);
  });

  test('messages: unreads counted for the others, lastMessage set, read zeroes only the caller', async () => {
    const chat = await createChat(ana, 'Counting', [bia, caio]);
    const sent = await k.as(ana, 'POST', `/chats/${chat.uuid}/messages`, { message: 'Olá time' });
    expect(sent.statusCode).toBe(200);
    expect(sent.json()).toEqual({
      id: expect.any(Number),
      chatId: chat.id,
      senderId: ana.id,
      sender: { id: ana.id, name: 'Ana' },
      message: 'Olá time',
      mediaPath: null,
      mediaName: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    await k.as(ana, 'POST', `/chats/${chat.id}/messages`, { message: 'second' });
    await k.as(bia, 'POST', `/chats/${chat.id}/messages`, { message: 'reply' });
    let got = (await k.as(caio, 'GET', `/chats/${chat.id}`)).json();
    expect([unreadsOf(got, ana), unreadsOf(got, bia), unreadsOf(got, caio)]).toEqual([1, 2, 3]);
    expect(got.lastMessage).toBe('reply');

    const notMe = await k.as(caio, 'POST', `/chats/${chat.id}/read`, { userId: bia.id });
    expect(notMe.statusCode).toBe(403);
    expect(notMe.json().error).toBe('ERR_NO_PERMISSION');
    const read = await k.as(caio, 'POST', `/chats/${chat.id}/read`, { userId: String(caio.id) });
    expect(read.statusCode).toBe(200);
    expect([unreadsOf(read.json(), ana), unreadsOf(read.json(), bia), unreadsOf(read.json(), caio)]).toEqual([1, 2, 0]);
    got = (await k.as(bia, 'GET', `/chats/${chat.id}`)).json();
    expect([unreadsOf(got, bia), unreadsOf(got, caio)]).toEqual([2, 0]);

    const long = 'x'.repeat(800);
    await k.as(bia, 'POST', `/chats/${chat.id}/messages`, { message: long });
    got = (await k.as(bia, 'GET', `/chats/${chat.id}`)).json();
    expect(got.lastMessage).toHaveLength(500);
    expect((await k.as(bia, 'GET', `/chats/${chat.id}/messages`)).json().records.at(-1).message).toBe(long);
  });

  test('message history: page 1 is the newest, each page in chronological order', async () => {
    const chat = await createChat(ana, 'History', [bia]);
    for (let i = 1; i <= 25; i++) await k.as(i % 2 ? ana : bia, 'POST', `/chats/${chat.id}/messages`, { message: `m${i}` });
    const p1 = (await k.as(bia, 'GET', `/chats/${chat.id}/messages`)).json();
    expect(p1).toMatchObject({ count: 25, hasMore: true });
    expect(p1.records.map((m: { message: string }) => m.message)).toEqual(Array.from({ length: 20 }, (_, i) => `m${i + 6}`));
    expect(p1.records[0].sender).toEqual({ id: bia.id, name: 'Bia' });
    const p2 = (await k.as(bia, 'GET', `/chats/${chat.id}/messages?pageNumber=2`)).json();
    expect(p2).toMatchObject({ count: 25, hasMore: false });
    expect(p2.records.map((m: { message: string }) => m.message)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
  });

  test('bad input: 400 ERR_VALIDATION and nothing stored', async () => {
    const chat = await createChat(ana, 'Valid', [bia]);
    const before = await k.db('chats').count<{ count: string }[]>({ count: '*' });
    for (const [method, url, body] of [
      ['POST', '/chats', { title: '', users: [{ id: bia.id }] }],
      ['POST', '/chats', { title: '   ', users: [{ id: bia.id }] }],
      ['POST', '/chats', { title: 'x'.repeat(201), users: [] }],
      ['POST', '/chats', { title: 'No users' }],
      ['POST', '/chats', { title: 5, users: [] }],
      ['POST', '/chats', { title: 'Bad user', users: [{ id: 'abc' }] }],
      ['POST', '/chats', { title: 'Bad user', users: [bia.id] }],
      ['PUT', `/chats/${chat.id}`, { title: '  ' }],
      ['PUT', `/chats/${chat.id}`, { users: 'all' }],
      ['POST', `/chats/${chat.id}/messages`, { message: '' }],
      ['POST', `/chats/${chat.id}/messages`, { message: ' \n\t ' }],
      ['POST', `/chats/${chat.id}/messages`, { message: 'x'.repeat(10001) }],
      ['POST', `/chats/${chat.id}/messages`, { message: 42 }],
      ['POST', `/chats/${chat.id}/messages`, {}],
      ['POST', `/chats/${chat.id}/read`, {}],
      ['POST', `/chats/${chat.id}/read`, { userId: 'me' }],
      ['GET', '/chats/not-an-id', undefined],
      ['GET', `/chats/${chat.id}/messages?pageNumber=0`, undefined],
      ['GET', `/chats?searchParam=${'x'.repeat(201)}`, undefined],
    ] as const) {
      const res = await k.as(ana, method, url, body);
      expect({ method, url, status: res.statusCode, error: res.json().error }).toEqual({ method, url, status: 400, error: 'ERR_VALIDATION' });
    }
    expect(await k.db('chats').count<{ count: string }[]>({ count: '*' })).toEqual(before);
    expect(await k.db('chatMessages').where({ chatId: chat.id })).toEqual([]);
    expect((await k.as(ana, 'GET', '/chats/9999999999')).statusCode).toBe(404);
    expect((await k.as(ana, 'GET', '/chats/123e4567-e89b-42d3-a456-426614174000')).statusCode).toBe(404);
    expect((await k.as(null, 'GET', '/chats')).statusCode).toBe(401);
  });

  test('tenancy: participants must be users of the caller\'s company; company B sees nothing of A', async () => {
    const refused = await k.as(ana, 'POST', '/chats', { title: 'Cross', users: [{ id: userB.id }] });
    expect(refused.statusCode).toBe(404);
    expect(refused.json().error).toBe('ERR_NO_USER_FOUND');
    expect(await k.db('chats').where({ title: 'Cross' })).toEqual([]);
    const chat = await createChat(ana, 'Company A only', [bia]);
    const addForeign = await k.as(ana, 'PUT', `/chats/${chat.id}`, { users: [{ id: bia.id }, { id: userB.id }] });
    expect(addForeign.statusCode).toBe(404);
    expect((await k.as(ana, 'GET', `/chats/${chat.id}`)).json().users).toHaveLength(2);

    await k.as(ana, 'POST', `/chats/${chat.id}/messages`, { message: 'for A' });
    for (const who of [adminB, userB]) {
      expect((await k.as(who, 'GET', '/chats')).json()).toEqual({ records: [], count: 0, hasMore: false });
      for (const [method, url, body] of [
        ['GET', `/chats/${chat.id}`, undefined],
        ['GET', `/chats/${chat.uuid}`, undefined],
        ['PUT', `/chats/${chat.id}`, { title: 'x' }],
        ['DELETE', `/chats/${chat.id}`, undefined],
        ['GET', `/chats/${chat.id}/messages`, undefined],
        ['POST', `/chats/${chat.id}/messages`, { message: 'x' }],
        ['POST', `/chats/${chat.id}/read`, { userId: who.id }],
      ] as const) {
        const res = await k.as(who, method, url, body);
        expect({ url, method, status: res.statusCode }).toEqual({ url, method, status: 404 });
        expect(res.body).not.toContain('for A');
      }
    }
    expect((await k.as(ana, 'GET', `/chats/${chat.id}`)).json().title).toBe('Company A only');
  });

  test('plan gate: without useInternalChat every route answers 403 ERR_FEATURE_NOT_IN_PLAN', async () => {
    for (const [method, url, body] of [
      ['GET', '/chats', undefined],
      ['POST', '/chats', { title: 'x', users: [] }],
      ['GET', '/chats/1', undefined],
      ['POST', '/chats/1/messages', { message: 'x' }],
      ['POST', '/chats/1/read', { userId: noChat.id }],
    ] as const) {
      const res = await k.as(noChat, method, url, body);
      expect({ url, status: res.statusCode, error: res.json().error }).toEqual({ url, status: 403, error: 'ERR_FEATURE_NOT_IN_PLAN' });
    }
    expect(await k.db('chats').where({ companyId: noChat.companyId })).toEqual([]);
  });

  describe('events', () => {
    let base: string;
    const sockets: Socket[] = [];
    const connect = async (u: TestUser) => {
      const s = await k.socket(u.token, base);
      sockets.push(s);
      return s;
    };
    beforeAll(async () => {
      base = await k.listen();
    });
    afterAll(() => {
      for (const s of sockets) s.close();
    });

    test('company-{id}-chat reaches the participants only: create, new-message, update, delete', async () => {
      const [sAna, sBia, sCaio, sAdmin, sB] = await Promise.all([connect(ana), connect(bia), connect(caio), connect(adminA), connect(userB)]);
      const ev = `company-${A}-chat`;
      const outsiders = [sCaio, sAdmin].map((s) => collectEvents(s, ev, 1500));
      const foreign = collectEvents(sB, `company-${userB.companyId}-chat`, 1500);

      const created = nextEvent<{ action: string; chat: { id: number } }>(sBia, ev);
      const perUser = nextEvent<{ action: string; record: { id: number } }>(sBia, `company-${A}-chat-user-${bia.id}`);
      const chat = await createChat(ana, 'Live', [bia]);
      expect(await created).toMatchObject({ action: 'update', chat: { id: chat.id, title: 'Live' } });
      expect(await perUser).toMatchObject({ action: 'create', record: { id: chat.id } });

      const newMsg = nextEvent<{ action: string; newMessage: { message: string; chat: { id: number; users: { userId: number; unreads: number }[] } }; chat: { id: number; lastMessage: string; users: { userId: number; unreads: number }[] } }>(sBia, ev);
      const perChat = nextEvent<{ action: string }>(sBia, `company-${A}-chat-${chat.id}`);
      const anaGets = nextEvent<{ action: string }>(sAna, ev);
      await k.as(ana, 'POST', `/chats/${chat.id}/messages`, { message: 'ping' });
      const e = await newMsg;
      expect(e).toMatchObject({ action: 'new-message', newMessage: { message: 'ping', sender: { id: ana.id, name: 'Ana' }, chat: { id: chat.id } }, chat: { id: chat.id, lastMessage: 'ping' } });
      expect(unreadsOf(e.chat, bia)).toBe(1);
      expect(unreadsOf(e.chat, ana)).toBe(0);
      expect(await perChat).toMatchObject({ action: 'new-message' });
      expect(await anaGets).toMatchObject({ action: 'new-message' });

      const readEvt = nextEvent<{ action: string; chat: { users: { userId: number; unreads: number }[] } }>(sBia, ev);
      await k.as(bia, 'POST', `/chats/${chat.id}/read`, { userId: bia.id });
      const r = await readEvt;
      expect(r.action).toBe('update');
      expect(unreadsOf(r.chat, bia)).toBe(0);

      const gone = nextEvent<{ action: string; id: string }>(sBia, ev);
      await k.as(ana, 'DELETE', `/chats/${chat.id}`);
      expect(await gone).toEqual({ action: 'delete', id: String(chat.id) });

      expect((await Promise.all(outsiders)).flat()).toEqual([]);
      expect(await foreign).toEqual([]);
    });

    test('a participant removed by PUT gets a delete event and no later messages', async () => {
      const [sBia, sCaio] = await Promise.all([connect(bia), connect(caio)]);
      const ev = `company-${A}-chat`;
      const created = nextEvent(sCaio, ev);
      const chat = await createChat(ana, 'Shrinking', [bia, caio]);
      expect(await created).toMatchObject({ action: 'update', chat: { id: chat.id } });
      const removed = nextEvent<{ action: string; id: string }>(sCaio, ev);
      await k.as(ana, 'PUT', `/chats/${chat.id}`, { users: [{ id: bia.id }] });
      expect(await removed).toEqual({ action: 'delete', id: String(chat.id) });
      const later = collectEvents(sCaio, ev, 800);
      const biaGets = nextEvent(sBia, ev);
      await k.as(ana, 'POST', `/chats/${chat.id}/messages`, { message: 'after removal' });
      await biaGets;
      expect(await later).toEqual([]);
      await waitFor(async () => (await k.db('chatUsers').where({ chatId: chat.id })).length === 2);
    });
  });
});
