import type { Socket } from 'socket.io-client';
import type { BusMessage } from '@atendo/sdk';
import type { TestKernel, TestUser } from '@atendo/testing';
import type { TicketRow } from '../src/model';
import {
  createAgent,
  createConnection,
  createContact,
  createTag,
  createTenant,
  eventsMatching,
  insertTicket,
  logTypes,
  setCompanySetting,
  tagContact,
  ticketsKernel,
  type Tenant,
} from './helpers';

/** PUT /tickets/:id state machine, POST /tickets, DELETE, closeAll, GET by uuid/id (spec 2-tickets.md §4). */
describe('tickets: state machine', () => {
  let k: TestKernel;
  let A: Tenant;
  let B: Tenant;
  const bus: BusMessage<Record<string, unknown>>[] = [];

  const put = (u: { token: string }, id: number | string, body: unknown) => k.as(u, 'PUT', `/tickets/${id}`, body);
  const row = (id: number) => k.db('tickets').where({ id }).first() as Promise<TicketRow>;
  const messagesOf = (ticketId: number) => k.db('messages').where({ ticketId }).orderBy('id');
  const busFor = (topic: string, ticketId: number) => bus.filter((m) => (m.topic === topic || m.topic.startsWith(`${topic}.`)) && m.payload.ticketId === ticketId);
  const waitBus = async (topic: string, ticketId: number, n = 1) => {
    for (let i = 0; i < 100 && busFor(topic, ticketId).length < n; i++) await new Promise((r) => setTimeout(r, 20));
    return busFor(topic, ticketId);
  };
  /** A fresh contact of A with a pending ticket in `queueId` on A's default connection. */
  const pending = async (o: { queueId?: number | null; isGroup?: boolean; userId?: number | null; status?: TicketRow['status']; whatsappId?: number } = {}) => {
    const c = await createContact(k, A.companyId, { name: o.isGroup ? 'Grupo Teste' : 'Maria Souza', isGroup: o.isGroup });
    const t = await insertTicket(k, A.companyId, { contactId: c.id, whatsappId: o.whatsappId ?? A.conn.id, queueId: o.queueId === undefined ? A.queueA.id : o.queueId, isGroup: o.isGroup, userId: o.userId, status: o.status });
    return { t, c };
  };

  beforeAll(async () => {
    k = await ticketsKernel();
    A = await createTenant(k);
    B = await createTenant(k);
    for (const T of [A, B]) await setCompanySetting(k, T.companyId, 'sendGreetingAccepted', 'disabled');
    await k.bus.subscribe<Record<string, unknown>>(['ticket.*', 'message.send.*'], (m) => {
      bus.push(m);
    }, { queue: 'tickets-transitions-test' });
  });
  afterAll(() => k.close());

  describe('POST /tickets', () => {
    test('an admin opens a ticket without a queue: open, assigned to the caller, default connection, logs create+open, ticket.created', async () => {
      const c = await createContact(k, A.companyId);
      const res = await k.as(A.admin, 'POST', '/tickets', { contactId: c.id, queueId: null, whatsappId: null, userId: 999999, status: 'pending', companyId: B.companyId });
      expect(res.statusCode).toBe(200);
      const t = res.json();
      expect(t).toMatchObject({ contactId: c.id, companyId: A.companyId, status: 'open', userId: A.admin.id, queueId: null, whatsappId: A.conn.id, isBot: false, isGroup: false, channel: 'whatsapp' });
      expect(typeof t.uuid).toBe('string');
      expect(t.acceptedAt).not.toBeNull();
      expect(t.contact).toMatchObject({ id: c.id, number: c.number });
      expect(t.whatsapp).toEqual({ id: A.conn.id, name: A.conn.name, channel: 'whatsapp', groupAsTicket: 'disabled' });
      expect(t.user).toEqual({ id: A.admin.id, name: 'Test User' });
      expect(await logTypes(k, t.id)).toEqual(['create', 'open']);
      expect(await waitBus('ticket.created', t.id)).toHaveLength(1);
      expect(busFor('ticket.created', t.id)[0].payload).toEqual({ companyId: A.companyId, ticketId: t.id, status: 'open', queueId: null, userId: A.admin.id });
    });

    test("a plain user opens in one of their queues; the user's own connection wins over the default", async () => {
      const u = await createAgent(k, A.companyId, { queueIds: [A.queueA.id], whatsappId: A.conn2.id });
      const c = await createContact(k, A.companyId);
      const res = await k.as(u, 'POST', '/tickets', { contactId: c.id, queueId: A.queueA.id, whatsappId: null });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ userId: u.id, queueId: A.queueA.id, whatsappId: A.conn2.id, status: 'open', queue: { id: A.queueA.id, name: A.queueA.name, color: A.queueA.color } });
      const explicit = await k.as(u, 'POST', '/tickets', { contactId: c.id, queueId: A.queueA.id, whatsappId: A.conn.id });
      expect(explicit.statusCode).toBe(200);
      expect(explicit.json().whatsappId).toBe(A.conn.id);
    });

    test('a group contact gets status group', async () => {
      const res = await k.as(A.admin, 'POST', '/tickets', { contactId: A.group.id, queueId: null, whatsappId: A.conn.id });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: 'group', isGroup: true });
    });

    test("queue rules: required unless admin ('Selecione uma fila'), must be the company's, a plain user's own", async () => {
      const c = await createContact(k, A.companyId);
      const none = await k.as(A.userA, 'POST', '/tickets', { contactId: c.id, queueId: null, whatsappId: null });
      expect(none.statusCode).toBe(400);
      expect(none.json()).toEqual({ error: 'ERR_VALIDATION', message: 'Selecione uma fila' });
      const notMine = await k.as(A.userA, 'POST', '/tickets', { contactId: c.id, queueId: A.queueB.id, whatsappId: null });
      expect(notMine.statusCode).toBe(403);
      expect(notMine.json().error).toBe('ERR_NO_PERMISSION');
      const foreign = await k.as(A.admin, 'POST', '/tickets', { contactId: c.id, queueId: B.queueA.id, whatsappId: null });
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json().error).toBe('ERR_NO_QUEUE_FOUND');
      expect(await k.db('tickets').where({ contactId: c.id })).toHaveLength(0);
    });

    test("cross-tenant contact and connection ids are unknown; a company without connections gets ERR_NO_DEF_WAPP_FOUND", async () => {
      const foreignContact = await k.as(A.admin, 'POST', '/tickets', { contactId: B.contact.id, queueId: null, whatsappId: null });
      expect(foreignContact.statusCode).toBe(404);
      expect(foreignContact.json()).toEqual({ error: 'ERR_NO_CONTACT_FOUND', message: expect.any(String) });
      const c = await createContact(k, A.companyId);
      const foreignConn = await k.as(A.admin, 'POST', '/tickets', { contactId: c.id, queueId: null, whatsappId: B.conn.id });
      expect(foreignConn.statusCode).toBe(404);
      expect(foreignConn.json().error).toBe('ERR_NO_WAPP_FOUND');
      const bare = await k.createCompany();
      const bc = await createContact(k, bare.companyId);
      const noDef = await k.as(bare.admin, 'POST', '/tickets', { contactId: bc.id, queueId: null, whatsappId: null });
      expect(noDef.statusCode).toBe(404);
      expect(noDef.json().error).toBe('ERR_NO_DEF_WAPP_FOUND');
    });

    test('bad input answers 400 ERR_VALIDATION', async () => {
      for (const body of [{}, { contactId: 'abc' }, { contactId: -1 }, { contactId: 0 }, { contactId: 2 ** 40 }, { contactId: A.contact.id, queueId: 'x' }, { contactId: A.contact.id, whatsappId: -5 }, { contactId: A.contact.id, status: 'x'.repeat(100) }]) {
        const res = await k.as(A.admin, 'POST', '/tickets', body);
        expect(res.statusCode).toBe(400);
        expect(res.json().error).toBe('ERR_VALIDATION');
      }
      const noAuth = await k.as(null, 'POST', '/tickets', { contactId: A.contact.id });
      expect(noAuth.statusCode).toBe(401);
    });

    test('ERR_OTHER_OPEN_TICKET: 409 with flat owner facts (id, name, queue, uuid) and the same under `ticket`', async () => {
      const c = await createContact(k, A.companyId);
      const first = await k.as(A.userA, 'POST', '/tickets', { contactId: c.id, queueId: A.queueA.id, whatsappId: A.conn.id });
      expect(first.statusCode).toBe(200);
      const owner = first.json();
      const again = await k.as(A.userB, 'POST', '/tickets', { contactId: c.id, queueId: A.queueB.id, whatsappId: A.conn.id });
      expect(again.statusCode).toBe(409);
      const body = again.json();
      const facts = {
        ticketId: owner.id,
        uuid: owner.uuid,
        status: 'open',
        userId: A.userA.id,
        queueId: A.queueA.id,
        user: { id: A.userA.id, name: A.userA.name },
        queue: { id: A.queueA.id, name: A.queueA.name, color: A.queueA.color },
      };
      expect(body).toEqual({ error: expect.any(String), code: 'ERR_OTHER_OPEN_TICKET', message: expect.any(String), ...facts, ticket: { id: owner.id, ...facts } });
      // The product family's client parses `error` as JSON and reads userId, user.name, queue.name, uuid.
      expect(JSON.parse(body.error)).toEqual({ code: 'ERR_OTHER_OPEN_TICKET', id: owner.id, uuid: owner.uuid, status: 'open', userId: A.userA.id, queueId: A.queueA.id, user: facts.user, queue: facts.queue });
      // Another connection is another conversation.
      const other = await k.as(A.userB, 'POST', '/tickets', { contactId: c.id, queueId: A.queueB.id, whatsappId: A.conn2.id });
      expect(other.statusCode).toBe(200);
    });

    test('10 concurrent POST /tickets for one contact: exactly one ticket, nine 409', async () => {
      const c = await createContact(k, A.companyId);
      const answers = await Promise.all(Array.from({ length: 10 }, () => k.as(A.admin, 'POST', '/tickets', { contactId: c.id, queueId: A.queueA.id, whatsappId: A.conn.id })));
      const codes = answers.map((r) => r.statusCode).sort();
      expect(codes).toEqual([200, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
      const rows = await k.db('tickets').where({ contactId: c.id });
      expect(rows).toHaveLength(1);
      for (const r of answers.filter((a) => a.statusCode === 409)) expect(r.json()).toMatchObject({ code: 'ERR_OTHER_OPEN_TICKET', ticketId: rows[0].id, userId: A.admin.id });
      expect(await logTypes(k, rows[0].id)).toEqual(['create', 'open']);
    });

    test("a closed ticket updated within the connection's timeCreateNewTicket is reopened, an older one is not", async () => {
      const conn = await createConnection(k, A.companyId, { timeCreateNewTicket: 60 });
      const c = await createContact(k, A.companyId);
      const recent = await insertTicket(k, A.companyId, { contactId: c.id, whatsappId: conn.id, queueId: A.queueA.id, status: 'closed', updatedAt: new Date(Date.now() - 10 * 60_000) });
      const res = await k.as(A.userA, 'POST', '/tickets', { contactId: c.id, queueId: A.queueA.id, whatsappId: conn.id });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: recent.id, status: 'open', userId: A.userA.id, closedAt: null });
      expect(await logTypes(k, recent.id)).toEqual(['reopen', 'open']);

      const c2 = await createContact(k, A.companyId);
      const old = await insertTicket(k, A.companyId, { contactId: c2.id, whatsappId: conn.id, queueId: A.queueA.id, status: 'closed', updatedAt: new Date(Date.now() - 120 * 60_000) });
      const fresh = await k.as(A.userA, 'POST', '/tickets', { contactId: c2.id, queueId: A.queueA.id, whatsappId: conn.id });
      expect(fresh.statusCode).toBe(200);
      expect(fresh.json().id).not.toBe(old.id);
      expect((await row(old.id)).status).toBe('closed');
    });
  });

  describe('accept', () => {
    test('pending with a queue -> open, assigned to the caller; logs open; ticket.updated', async () => {
      const { t } = await pending();
      const res = await put(A.userA, t.id, { status: 'open', userId: A.userA.id });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: t.id, status: 'open', userId: A.userA.id, queueId: A.queueA.id, user: { id: A.userA.id, name: A.userA.name } });
      expect(res.json().acceptedAt).not.toBeNull();
      expect(await logTypes(k, t.id)).toEqual(['open']);
      expect((await waitBus('ticket.updated', t.id))[0].payload).toEqual({ companyId: A.companyId, ticketId: t.id, status: 'open', queueId: A.queueA.id, userId: A.userA.id });
      expect(await messagesOf(t.id)).toHaveLength(0);
    });

    test("a user cannot accept a ticket outside their queues (403) and nothing changes", async () => {
      const { t } = await pending();
      const res = await put(A.userB, t.id, { status: 'open', userId: A.userB.id });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ error: 'ERR_NO_PERMISSION', message: expect.any(String) });
      expect(await row(t.id)).toMatchObject({ status: 'pending', userId: null });
      expect(await logTypes(k, t.id)).toEqual([]);
    });

    test("without a queue: 400 'queue required'; with queueId in the body the queue is set then the ticket accepted", async () => {
      const { t } = await pending({ queueId: null });
      const refused = await put(A.userA, t.id, { status: 'open', userId: A.userA.id });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual({ error: 'ERR_VALIDATION', message: 'queue required' });
      expect((await row(t.id)).status).toBe('pending');
      const foreignQueue = await put(A.userA, t.id, { status: 'open', userId: A.userA.id, queueId: B.queueA.id });
      expect(foreignQueue.statusCode).toBe(404);
      expect(foreignQueue.json().error).toBe('ERR_NO_QUEUE_FOUND');
      const ok = await put(A.userA, t.id, { status: 'open', userId: A.userA.id, queueId: A.queueA.id });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toMatchObject({ status: 'open', userId: A.userA.id, queueId: A.queueA.id });
      expect(await logTypes(k, t.id)).toEqual(['queue', 'open']);
    });

    test('greeting on accept when sendGreetingAccepted is enabled: default text with first name and agent, message.send published', async () => {
      await setCompanySetting(k, A.companyId, 'sendGreetingAccepted', 'enabled');
      try {
        const { t, c } = await pending();
        const res = await put(A.userA, t.id, { status: 'open', userId: A.userA.id });
        expect(res.statusCode).toBe(200);
        const text = `Olá Maria, meu nome é ${A.userA.name} e agora vou prosseguir com seu atendimento!`;
        expect(res.json().lastMessage).toBe(text);
        const msgs = await messagesOf(t.id);
        expect(msgs).toHaveLength(1);
        expect(msgs[0]).toMatchObject({ body: text, fromMe: true, ack: 0, companyId: A.companyId, userId: A.userA.id });
        const sent = await waitBus('message.send', t.id);
        expect(sent).toHaveLength(1);
        expect(sent[0].payload).toMatchObject({ companyId: A.companyId, ticketId: t.id, messageId: Number(msgs[0].id), connectionId: A.conn.id, channel: 'whatsapp', to: c.number, body: text });

        await setCompanySetting(k, A.companyId, 'greetingAcceptedMessage', 'Oi {{firstName}} ({{name}})! Aqui é {{user}}, {{userName}}. #{{ticket_id}}');
        const second = await pending();
        await put(A.userA, second.t.id, { status: 'open', userId: A.userA.id });
        expect((await messagesOf(second.t.id)).map((m) => m.body)).toEqual([`Oi Maria (Maria Souza)! Aqui é ${A.userA.name}, ${A.userA.name}. #${second.t.id}`]);
        await setCompanySetting(k, A.companyId, 'greetingAcceptedMessage', '');

        // Group tickets on a connection without groupAsTicket get no greeting (and become 'group').
        const groupUser = await createAgent(k, A.companyId, { allowGroup: true, queueIds: [A.queueA.id] });
        const g = await pending({ isGroup: true, queueId: null });
        const gres = await put(groupUser, g.t.id, { status: 'open', userId: groupUser.id });
        expect(gres.statusCode).toBe(200);
        expect(gres.json()).toMatchObject({ status: 'group', userId: groupUser.id });
        expect(await messagesOf(g.t.id)).toHaveLength(0);
      } finally {
        await setCompanySetting(k, A.companyId, 'sendGreetingAccepted', 'disabled');
      }
    });

    test('no greeting when sendGreetingAccepted is disabled', async () => {
      const { t } = await pending();
      expect((await put(A.userA, t.id, { status: 'open', userId: A.userA.id })).statusCode).toBe(200);
      expect(await messagesOf(t.id)).toHaveLength(0);
      expect(busFor('message.send', t.id)).toHaveLength(0);
    });
  });

  test('ignore: pending -> closed without farewell, bot count 0, log closed, ticket.closed', async () => {
    const conn = await createConnection(k, A.companyId, { complationMessage: 'Tchau {{name}}' });
    const { t } = await pending({ whatsappId: conn.id });
    await k.db('tickets').where({ id: t.id }).update({ amountUsedBotQueues: 2, unreadMessages: 3 });
    const res = await put(A.userA, t.id, { status: 'closed', userId: A.userA.id, sendFarewellMessage: false, amountUsedBotQueues: 0 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'closed', amountUsedBotQueues: 0, unreadMessages: 0 });
    expect(res.json().closedAt).not.toBeNull();
    expect(await messagesOf(t.id)).toHaveLength(0);
    expect(await logTypes(k, t.id)).toEqual(['closed']);
    expect((await waitBus('ticket.closed', t.id))[0].payload).toMatchObject({ status: 'closed', ticketId: t.id });
  });

  test('return to queue: open -> pending, no user, queue kept; log pending', async () => {
    const { t } = await pending({ status: 'open', userId: A.userA.id });
    const res = await put(A.userA, t.id, { status: 'pending', userId: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'pending', userId: null, queueId: A.queueA.id, user: null });
    expect(await logTypes(k, t.id)).toEqual(['pending']);
  });

  describe('transfer', () => {
    let base: string;
    let sa: Socket;
    let sb: Socket;
    let sc: Socket;
    let userC: TestUser;
    beforeAll(async () => {
      base = await k.listen();
      const queueC = (await k.db('queues').insert({ companyId: A.companyId, name: 'Queue C transfer', color: '#123456' }).returning('id'))[0].id as number;
      userC = await createAgent(k, A.companyId, { queueIds: [queueC] });
      [sa, sb, sc] = await Promise.all([k.socket(A.userA.token, base), k.socket(A.userB.token, base), k.socket(userC.token, base)]);
    });
    afterAll(() => {
      for (const s of [sa, sb, sc]) s?.close();
    });

    test('to a user: open, new user and queue; logs transfered/receivedTransfer; both old and new audiences get the event, others not', async () => {
      const { t } = await pending({ status: 'open', userId: A.userA.id });
      const ev = `company-${A.companyId}-ticket`;
      const mine = (p: { action: string; ticketId?: number }) => p.action === 'update' && p.ticketId === t.id;
      const [ea, eb, ec, res] = await Promise.all([
        eventsMatching(sa, ev, mine),
        eventsMatching(sb, ev, mine),
        eventsMatching(sc, ev, mine),
        put(A.userA, t.id, { userId: A.userB.id, queueId: A.queueB.id, status: 'open' }),
      ]);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: 'open', userId: A.userB.id, queueId: A.queueB.id });
      expect(ea).toHaveLength(1);
      expect(eb).toHaveLength(1);
      expect(ec).toHaveLength(0);
      expect((eb[0] as unknown as { ticket: { userId: number } }).ticket.userId).toBe(A.userB.id);
      const logs = await k.db('ticketLogs').where({ ticketId: t.id }).orderBy('id');
      expect(logs.map((l) => [l.type, l.userId, l.queueId])).toEqual([
        ['transfered', A.userA.id, A.queueA.id],
        ['receivedTransfer', A.userB.id, A.queueB.id],
      ]);
      expect((await waitBus('ticket.transferred', t.id))[0].payload).toEqual({ companyId: A.companyId, ticketId: t.id, status: 'open', queueId: A.queueB.id, userId: A.userB.id, fromQueueId: A.queueA.id, fromUserId: A.userA.id });
    });

    test('a pending ticket transferred to another user becomes open for that user', async () => {
      const { t } = await pending();
      const res = await put(A.admin, t.id, { userId: A.userB.id, queueId: A.queueB.id, status: 'open' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: 'open', userId: A.userB.id, queueId: A.queueB.id });
      expect(await logTypes(k, t.id)).toEqual(['transfered', 'receivedTransfer']);
    });

    test('to a department only: pending, no user, new queue; both queues hear about it', async () => {
      const { t } = await pending({ status: 'open', userId: A.userA.id });
      const ev = `company-${A.companyId}-ticket`;
      const mine = (p: { action: string; ticketId?: number }) => p.action === 'update' && p.ticketId === t.id;
      const [ea, eb, res] = await Promise.all([eventsMatching(sa, ev, mine), eventsMatching(sb, ev, mine), put(A.userA, t.id, { queueId: A.queueB.id, userId: null, status: 'pending' })]);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: 'pending', userId: null, queueId: A.queueB.id });
      expect(ea).toHaveLength(1);
      expect(eb).toHaveLength(1);
      const logs = await k.db('ticketLogs').where({ ticketId: t.id }).orderBy('id');
      expect(logs.map((l) => [l.type, l.userId, l.queueId])).toEqual([
        ['transfered', A.userA.id, A.queueA.id],
        ['receivedTransfer', null, A.queueB.id],
      ]);
    });

    test('unknown target user or queue: 404 and nothing changes', async () => {
      const { t } = await pending({ status: 'open', userId: A.userA.id });
      const u = await put(A.userA, t.id, { userId: B.userA.id, status: 'open' });
      expect(u.statusCode).toBe(404);
      expect(u.json().error).toBe('ERR_NO_USER_FOUND');
      const q = await put(A.userA, t.id, { queueId: B.queueA.id, userId: null, status: 'pending' });
      expect(q.statusCode).toBe(404);
      expect(q.json().error).toBe('ERR_NO_QUEUE_FOUND');
      expect(await row(t.id)).toMatchObject({ status: 'open', userId: A.userA.id, queueId: A.queueA.id });
      expect(await logTypes(k, t.id)).toEqual([]);
    });

    test('sendMsgTransfTicket posts the transfer message (default text with the department)', async () => {
      await setCompanySetting(k, A.companyId, 'sendMsgTransfTicket', 'enabled');
      try {
        const { t } = await pending({ status: 'open', userId: A.userA.id });
        const res = await put(A.userA, t.id, { queueId: A.queueB.id, userId: null, status: 'pending' });
        expect(res.statusCode).toBe(200);
        expect((await messagesOf(t.id)).map((m) => m.body)).toEqual([`Você foi transferido para o departamento ${A.queueB.name}`]);
        expect(await waitBus('message.send', t.id)).toHaveLength(1);
      } finally {
        await setCompanySetting(k, A.companyId, 'sendMsgTransfTicket', 'disabled');
      }
    });
  });

  describe('close', () => {
    test("with farewell: the connection's complationMessage is posted; the user's farewellMessage wins when set; ticket.closed", async () => {
      const conn = await createConnection(k, A.companyId, { complationMessage: 'Obrigado pelo contato, {{firstName}}!' });
      const { t } = await pending({ status: 'open', userId: A.userA.id, whatsappId: conn.id });
      await k.db('tickets').where({ id: t.id }).update({ unreadMessages: 4 });
      const res = await put(A.userA, t.id, { status: 'closed', userId: A.userA.id });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: 'closed', unreadMessages: 0, lastMessage: 'Obrigado pelo contato, Maria!' });
      expect(res.json().closedAt).not.toBeNull();
      expect((await messagesOf(t.id)).map((m) => m.body)).toEqual(['Obrigado pelo contato, Maria!']);
      expect(await logTypes(k, t.id)).toEqual(['closed']);
      expect((await waitBus('ticket.closed', t.id))[0].payload).toMatchObject({ status: 'closed' });
      expect(await waitBus('message.send', t.id)).toHaveLength(1);

      const polite = await createAgent(k, A.companyId, { queueIds: [A.queueA.id], farewellMessage: 'Até logo {{name}}, {{user}}' });
      const second = await pending({ status: 'open', userId: polite.id, whatsappId: conn.id });
      expect((await put(polite, second.t.id, { status: 'closed' })).statusCode).toBe(200);
      expect((await messagesOf(second.t.id)).map((m) => m.body)).toEqual([`Até logo Maria Souza, ${polite.name}`]);
    });

    test('without farewell (sendFarewellMessage false) and for group tickets: no message', async () => {
      const conn = await createConnection(k, A.companyId, { complationMessage: 'Tchau', groupAsTicket: 'enabled' });
      const { t } = await pending({ status: 'open', userId: A.userA.id, whatsappId: conn.id });
      expect((await put(A.userA, t.id, { status: 'closed', sendFarewellMessage: false })).statusCode).toBe(200);
      expect(await messagesOf(t.id)).toHaveLength(0);
      const g = await pending({ status: 'group', isGroup: true, userId: A.admin.id, whatsappId: conn.id, queueId: null });
      const res = await put(A.admin, g.t.id, { status: 'closed' });
      expect(res.statusCode).toBe(200);
      expect(res.json().status).toBe('closed');
      expect(await messagesOf(g.t.id)).toHaveLength(0);
    });

    test('requiredTag: closing an untagged ticket of an untagged contact is refused; a ticket tag or a contact tag allows it', async () => {
      await setCompanySetting(k, A.companyId, 'requiredTag', 'enabled');
      try {
        const { t } = await pending({ status: 'open', userId: A.userA.id });
        const refused = await put(A.userA, t.id, { status: 'closed' });
        expect(refused.statusCode).toBe(400);
        expect(refused.json()).toEqual({ error: 'ERR_REQUIRED_TAG', message: expect.any(String) });
        expect((await row(t.id)).status).toBe('open');
        const tag = await createTag(k, A.companyId, { kanban: 1 });
        expect((await k.as(A.userA, 'PUT', `/ticket-tags/${t.id}/${tag.id}`)).statusCode).toBe(200);
        const ok = await put(A.userA, t.id, { status: 'closed' });
        expect(ok.statusCode).toBe(200);
        expect(ok.json().status).toBe('closed');

        const second = await pending({ status: 'open', userId: A.userA.id });
        await tagContact(k, A.companyId, second.c.id, tag.id);
        expect((await put(A.userA, second.t.id, { status: 'closed' })).statusCode).toBe(200);
      } finally {
        await setCompanySetting(k, A.companyId, 'requiredTag', 'disabled');
      }
    });
  });

  describe('reopen', () => {
    test('closed -> open for the caller, closedAt cleared; log reopen', async () => {
      const { t } = await pending({ status: 'closed', userId: A.userB.id });
      const res = await put(A.userA, t.id, { status: 'open', userId: A.userA.id });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: t.id, status: 'open', userId: A.userA.id, closedAt: null, queueId: A.queueA.id });
      expect(await logTypes(k, t.id)).toEqual(['reopen']);
    });

    test("without a queue: 400 'queue required'; with queueId it reopens in that queue", async () => {
      const { t } = await pending({ status: 'closed', queueId: null });
      const refused = await put(A.userA, t.id, { status: 'open' });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().message).toBe('queue required');
      const ok = await put(A.userA, t.id, { status: 'open', queueId: A.queueA.id });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toMatchObject({ status: 'open', queueId: A.queueA.id, userId: A.userA.id });
      expect(await logTypes(k, t.id)).toEqual(['reopen', 'queue']);
    });

    test('another active ticket of the contact on the connection: answers that ticket (with user and queue) and changes nothing', async () => {
      const c = await createContact(k, A.companyId);
      const closed = await insertTicket(k, A.companyId, { contactId: c.id, whatsappId: A.conn.id, queueId: A.queueA.id, status: 'closed' });
      const active = await insertTicket(k, A.companyId, { contactId: c.id, whatsappId: A.conn.id, queueId: A.queueB.id, status: 'open', userId: A.userB.id });
      const res = await put(A.admin, closed.id, { status: 'open', userId: A.admin.id });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: active.id, uuid: active.uuid, userId: A.userB.id, user: { id: A.userB.id, name: A.userB.name }, queue: { id: A.queueB.id, name: A.queueB.name, color: A.queueB.color } });
      expect(await row(closed.id)).toMatchObject({ status: 'closed', userId: null });
      expect(await logTypes(k, closed.id)).toEqual([]);
    });
  });

  test('two concurrent reopens of two closed tickets of one contact: one reopens, both answers name it', async () => {
    const c = await createContact(k, A.companyId);
    const t1 = await insertTicket(k, A.companyId, { contactId: c.id, whatsappId: A.conn.id, queueId: A.queueA.id, status: 'closed' });
    const t2 = await insertTicket(k, A.companyId, { contactId: c.id, whatsappId: A.conn.id, queueId: A.queueA.id, status: 'closed' });
    const [r1, r2] = await Promise.all([put(A.userA, t1.id, { status: 'open' }), put(A.admin, t2.id, { status: 'open' })]);
    expect([r1.statusCode, r2.statusCode]).toEqual([200, 200]);
    const open = await k.db('tickets').where({ contactId: c.id, status: 'open' });
    expect(open).toHaveLength(1);
    expect(r1.json().id).toBe(open[0].id);
    expect(r2.json().id).toBe(open[0].id);
  });

  test('transitions outside the table answer 400 ERR_INVALID_TRANSITION naming from and to', async () => {
    const { t } = await pending({ status: 'closed' });
    const res = await put(A.admin, t.id, { status: 'pending' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('ERR_INVALID_TRANSITION');
    expect(res.json().message).toContain('closed');
    expect(res.json().message).toContain('pending');
    const twice = await put(A.admin, t.id, { status: 'closed' });
    expect(twice.statusCode).toBe(400);
    expect(twice.json().error).toBe('ERR_INVALID_TRANSITION');
    expect((await row(t.id)).status).toBe('closed');
  });

  test('plain field updates keep the status; lastMessage is ignored', async () => {
    const { t } = await pending({ status: 'open', userId: A.userA.id });
    const res = await put(A.userA, t.id, { useIntegration: true, integrationId: 7, promptId: 3, isBot: true, amountUsedBotQueues: 2, lastMessage: 'hacked' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'open', useIntegration: true, integrationId: 7, promptId: 3, isBot: true, amountUsedBotQueues: 2, lastMessage: null });
    expect(await logTypes(k, t.id)).toEqual([]);
  });

  test('PUT bad input and unknown ids: 4xx catalogue codes', async () => {
    const { t } = await pending();
    for (const body of [{ status: 'foo' }, { status: 'nps' }, { userId: 'x' }, { queueId: -1 }, { amountUsedBotQueues: -1 }, { amountUsedBotQueues: 1e9 }, { sendFarewellMessage: 'maybe' }]) {
      const res = await put(A.admin, t.id, body);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('ERR_VALIDATION');
    }
    for (const id of ['0', '-1', 'abc', '99999999999', '1.5']) {
      const res = await put(A.admin, id, { status: 'open' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('ERR_VALIDATION');
    }
    const missing = await put(A.admin, 2147483000, { status: 'open' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toBe('ERR_NO_TICKET_FOUND');
  });

  test("cross-tenant: another company's admin gets 404 and no data on GET, PUT, DELETE; the ticket is unchanged", async () => {
    const { t } = await pending();
    for (const [method, url, body] of [
      ['GET', `/tickets/${t.id}`, undefined],
      ['GET', `/tickets/u/${t.uuid}`, undefined],
      ['PUT', `/tickets/${t.id}`, { status: 'open', userId: B.admin.id }],
      ['PUT', `/tickets/${t.id}`, { status: 'closed' }],
      ['DELETE', `/tickets/${t.id}`, undefined],
    ] as const) {
      const res = await k.as(B.admin, method, url, body);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'ERR_NO_TICKET_FOUND', message: expect.any(String) });
    }
    expect(await row(t.id)).toMatchObject({ status: 'pending', userId: null });
    expect(await logTypes(k, t.id)).toEqual([]);
  });

  describe('GET /tickets/u/:uuid and /tickets/:id', () => {
    test('the serialized ticket; one access log entry per user per 5 minutes', async () => {
      const { t, c } = await pending();
      const a = await k.as(A.userA, 'GET', `/tickets/u/${t.uuid}`);
      expect(a.statusCode).toBe(200);
      expect(a.json()).toMatchObject({ id: t.id, uuid: t.uuid, status: 'pending', contact: { id: c.id, name: c.name }, queue: { id: A.queueA.id }, user: null, tags: [] });
      expect((await k.as(A.userA, 'GET', `/tickets/u/${t.uuid.toUpperCase()}`)).statusCode).toBe(200);
      expect(await logTypes(k, t.id)).toEqual(['access']);
      expect((await k.as(A.admin, 'GET', `/tickets/u/${t.uuid}`)).statusCode).toBe(200);
      expect(await logTypes(k, t.id)).toEqual(['access', 'access']);
      const byId = await k.as(A.userA, 'GET', `/tickets/${t.id}`);
      expect(byId.statusCode).toBe(200);
      expect(byId.json()).toEqual(a.json());
    });

    test('a user who cannot see the ticket: 403; bad uuid: 400; unknown uuid: 404', async () => {
      const { t } = await pending();
      const hidden = await k.as(A.userB, 'GET', `/tickets/u/${t.uuid}`);
      expect(hidden.statusCode).toBe(403);
      expect(hidden.json()).toEqual({ error: 'ERR_NO_PERMISSION', message: expect.any(String) });
      expect((await k.as(A.userB, 'GET', `/tickets/${t.id}`)).statusCode).toBe(403);
      for (const bad of ['not-a-uuid', '1234', `${t.uuid}0`, "x' OR 1=1 --"]) {
        const res = await k.as(A.userA, 'GET', `/tickets/u/${encodeURIComponent(bad)}`);
        expect(res.statusCode).toBe(400);
        expect(res.json().error).toBe('ERR_VALIDATION');
      }
      const unknown = await k.as(A.userA, 'GET', '/tickets/u/00000000-0000-4000-8000-000000000000');
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().error).toBe('ERR_NO_TICKET_FOUND');
    });

    test('lgpdHideNumber masks the contact number for plain users only', async () => {
      await setCompanySetting(k, A.companyId, 'lgpdHideNumber', 'enabled');
      try {
        const { t, c } = await pending();
        const user = (await k.as(A.userA, 'GET', `/tickets/${t.id}`)).json();
        expect(user.contact.number).not.toBe(c.number);
        expect(user.contact.number.slice(-2)).toBe(c.number.slice(-2));
        const admin = (await k.as(A.admin, 'GET', `/tickets/${t.id}`)).json();
        expect(admin.contact.number).toBe(c.number);
      } finally {
        await setCompanySetting(k, A.companyId, 'lgpdHideNumber', 'disabled');
      }
    });
  });

  describe('DELETE /tickets/:id', () => {
    test('admin only; deletes messages, notes, logs and tags; emits delete', async () => {
      const base = await k.listen();
      const { t, c } = await pending({ status: 'open', userId: A.userA.id });
      await k.db('messages').insert({ companyId: A.companyId, ticketId: t.id, body: 'hi', fromMe: false });
      await k.db('ticketNotes').insert({ companyId: A.companyId, ticketId: t.id, contactId: c.id, userId: A.userA.id, note: 'a note' });
      await k.db('ticketLogs').insert({ companyId: A.companyId, ticketId: t.id, type: 'open', userId: A.userA.id });
      const tag = await createTag(k, A.companyId);
      await k.db('ticketTags').insert({ companyId: A.companyId, ticketId: t.id, tagId: tag.id });

      const refused = await k.as(A.userA, 'DELETE', `/tickets/${t.id}`);
      expect(refused.statusCode).toBe(403);
      expect(await row(t.id)).toBeDefined();

      const s = await k.socket(A.userA.token, base);
      try {
        const ev = `company-${A.companyId}-ticket`;
        const [events, res] = await Promise.all([eventsMatching(s, ev, (p: { action: string; ticketId?: number }) => p.action === 'delete' && p.ticketId === t.id), k.as(A.admin, 'DELETE', `/tickets/${t.id}`)]);
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({ message: 'Ticket deleted' });
        expect(events).toEqual([{ action: 'delete', ticketId: t.id }]);
      } finally {
        s.close();
      }
      expect(await row(t.id)).toBeUndefined();
      for (const table of ['messages', 'ticketNotes', 'ticketLogs', 'ticketTags']) expect(await k.db(table).where({ ticketId: t.id })).toHaveLength(0);
      expect((await k.as(A.admin, 'DELETE', `/tickets/${t.id}`)).statusCode).toBe(404);
    });
  });

  describe('POST /tickets/closeAll', () => {
    test('admin only; closes the visible active tickets of the given status and queues, each logged; other companies untouched', async () => {
      const D = await createTenant(k);
      const mk = (o: { status: TicketRow['status']; queueId: number | null; isGroup?: boolean }) =>
        createContact(k, D.companyId, { isGroup: o.isGroup }).then((c) => insertTicket(k, D.companyId, { contactId: c.id, whatsappId: D.conn.id, queueId: o.queueId, status: o.status, userId: o.status === 'open' ? D.userA.id : null, isGroup: o.isGroup }));
      const pendA = await mk({ status: 'pending', queueId: D.queueA.id });
      const pendB = await mk({ status: 'pending', queueId: D.queueB.id });
      const pendNone = await mk({ status: 'pending', queueId: null });
      const openA = await mk({ status: 'open', queueId: D.queueA.id });
      const group = await mk({ status: 'group', queueId: null, isGroup: true });
      const foreign = await insertTicket(k, B.companyId, { contactId: B.contact.id, whatsappId: B.conn.id, queueId: B.queueA.id, status: 'pending' });

      const refused = await k.as(D.userA, 'POST', '/tickets/closeAll', { status: 'pending' });
      expect(refused.statusCode).toBe(403);
      const bad = await k.as(D.admin, 'POST', '/tickets/closeAll', { status: 'closed' });
      expect(bad.statusCode).toBe(400);

      const first = await k.as(D.admin, 'POST', '/tickets/closeAll', { status: 'pending', queueIds: [D.queueA.id, 0] });
      expect(first.statusCode).toBe(200);
      expect(first.json()).toEqual({ closed: 2 });
      expect((await row(pendA.id)).status).toBe('closed');
      expect((await row(pendNone.id)).status).toBe('closed');
      expect((await row(pendB.id)).status).toBe('pending');
      expect((await row(openA.id)).status).toBe('open');
      expect(await logTypes(k, pendA.id)).toEqual(['closed']);
      expect(await waitBus('ticket.closed', pendA.id)).toHaveLength(1);

      const rest = await k.as(D.admin, 'POST', '/tickets/closeAll', {});
      expect(rest.json()).toEqual({ closed: 2 });
      expect((await row(pendB.id)).status).toBe('closed');
      expect((await row(openA.id)).status).toBe('closed');
      expect((await row(group.id)).status).toBe('group');
      expect((await row(foreign.id)).status).toBe('pending');
      expect((await k.as(D.admin, 'POST', '/tickets/closeAll', {})).json()).toEqual({ closed: 0 });
    });
  });

  test('GET /tickets-log/:id lists the transitions with user and queue, oldest first', async () => {
    const { t } = await pending({ queueId: null });
    await put(A.userA, t.id, { status: 'open', queueId: A.queueA.id });
    await put(A.userA, t.id, { userId: A.userB.id, queueId: A.queueB.id, status: 'open' });
    await put(A.userB, t.id, { status: 'closed', sendFarewellMessage: false });
    const res = await k.as(A.admin, 'GET', `/tickets-log/${t.id}`);
    expect(res.statusCode).toBe(200);
    const logs = res.json();
    expect(logs.map((l: { type: string }) => l.type)).toEqual(['queue', 'open', 'transfered', 'receivedTransfer', 'closed']);
    expect(logs[1]).toEqual({ id: expect.any(Number), type: 'open', createdAt: expect.any(String), user: { id: A.userA.id, name: A.userA.name }, queue: { id: A.queueA.id, name: A.queueA.name, color: A.queueA.color } });
    expect(logs[3].user).toEqual({ id: A.userB.id, name: A.userB.name });
  });
});
