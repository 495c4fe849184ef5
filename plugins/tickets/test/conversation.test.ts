import { randomBytes } from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { definePlugin, ENVELOPE_SCHEMA_VERSION, envelopeId, idempotencyKey, type BusMessage, type Envelope, type PluginDefinition } from '@atendo/sdk';
import { createTestKernel, waitFor, type TestKernel } from '@atendo/testing';
import {
  conversationHandlers,
  messageStored,
  ticketsService,
  type ConversationHandler,
  type ConversationTurn,
  type MessageStoredEvent,
  type TicketsService,
} from '../src/contract';
import type { MessageRow, TicketRow } from '../src/model';
import { ConversationChain, TURN_CONCURRENCY } from '../src/services/conversation';
import { createTenant, eventsMatching, insertTicket, logTypes, setCompanySetting, TICKETS_PLUGINS, ticketsDeps, type Tenant } from './helpers';

/**
 * The conversation-handler chain (`tickets.conversation-handlers`) and the `tickets` service a handler
 * answers with, through a small test plugin contributing two handlers. Inbound messages arrive as the
 * channel adapters publish them (envelopes on `channel.inbound.*`).
 */

type Script = (turn: ConversationTurn, tickets: TicketsService) => Promise<'handled' | 'pass'>;

/** What each handler does, by the first word of the message body ('pass' when absent). */
const scripts: Record<'first' | 'second', Map<string, Script>> = { first: new Map(), second: new Map() };
/** Every handler call: handler id, message id, ticket id, body. */
const calls: { handler: string; messageId: number; ticketId: number; body: string }[] = [];
let tickets: TicketsService;

function handler(id: 'first' | 'second', order: number): ConversationHandler {
  return {
    id,
    order,
    async onMessage(turn) {
      calls.push({ handler: id, messageId: turn.message.id, ticketId: turn.ticket.id, body: turn.message.body });
      const script = scripts[id].get(turn.message.body.split(' ')[0]);
      return script ? script(turn, tickets) : 'pass';
    },
  };
}

/** The test plugin: 'second' (order 20) is contributed before 'first' (order 10); the chain sorts them. */
const botPlugin = definePlugin({
  id: 'test-bot',
  dependsOn: ['tickets'],
  register(ctx) {
    tickets = ctx.services.get(ticketsService);
    ctx.extensions.contribute(conversationHandlers, handler('second', 20));
    ctx.extensions.contribute(conversationHandlers, handler('first', 10));
  },
});

let seq = 0;
const digits = () => `5521${String(Date.now() % 1e6).padStart(6, '0')}${String(seq++).padStart(3, '0')}`;
const wid = () => `wamid.${randomBytes(10).toString('hex').toUpperCase()}`;

/** An inbound WhatsApp text envelope from `number`. */
function envelope(companyId: number, connectionId: number, number: string, text: string): Envelope {
  const externalId = wid();
  const key = idempotencyKey('whatsapp', connectionId, 'message', externalId);
  return {
    schemaVersion: ENVELOPE_SCHEMA_VERSION,
    id: envelopeId(key),
    idempotencyKey: key,
    channel: 'whatsapp',
    direction: 'in',
    kind: 'message',
    companyId,
    connectionId,
    occurredAt: new Date().toISOString(),
    thread: { externalId: number, isGroup: false },
    sender: { externalId: number, name: 'Cliente Bot', phone: number, jid: `${number}@s.whatsapp.net` },
    externalId,
    content: { type: 'text', text },
  } as Envelope;
}

describe('tickets: conversation handlers and the tickets service', () => {
  let k: TestKernel;
  let A: Tenant;
  let B: Tenant;
  const bus: BusMessage<Record<string, any>>[] = [];
  const open: Socket[] = [];

  const published = (topic: string, pred: (p: Record<string, any>) => boolean = () => true) => bus.filter((m) => (m.topic === topic || m.topic.startsWith(`${topic}.`)) && pred(m.payload)).map((m) => m.payload);
  const turnOf = (messageId: number) => k.db('conversationTurns').where({ messageId }).first();
  /** Publishes an inbound text from `number` to tenant A and waits until it is stored; returns the row. */
  const inbound = async (number: string, text: string, T: Tenant = A): Promise<MessageRow> => {
    const e = envelope(T.companyId, T.conn.id, number, text);
    await k.bus.publish(`channel.inbound.whatsapp.message`, e, { id: e.idempotencyKey });
    const m = (await waitFor(async () => (await k.db('messages').where({ companyId: T.companyId, wid: e.externalId }).first()) as MessageRow | undefined, 5000)) as MessageRow;
    return { ...m, id: Number(m.id) };
  };
  const done = (messageId: number) => waitFor(async () => {
    const t = await turnOf(messageId);
    return t && ['done', 'abandoned'].includes(t.state) ? t : undefined;
  }, 8000);
  const connect = async (u: { token: string }) => {
    const s = await k.socket(u.token, await k.listen());
    open.push(s);
    return s;
  };

  beforeAll(async () => {
    k = await createTestKernel({ plugins: [...TICKETS_PLUGINS, botPlugin as PluginDefinition] });
    A = await createTenant(k);
    B = await createTenant(k);
    await setCompanySetting(k, A.companyId, 'sendSignMessage', 'enabled');
    await k.bus.subscribe<Record<string, any>>(
      ['message.stored', 'message.send.*', 'ticket.changed', 'ticket.closed', 'ticket.updated', 'ticket.transferred', 'ticket.created'],
      (m) => {
        bus.push(m);
      },
      { queue: 'tickets-conversation-test' },
    );
  });
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
    scripts.first.clear();
    scripts.second.clear();
  });
  afterAll(() => k.close());

  test('GET /metrics: the turns running and waiting, and whether the inbound pipeline counts as busy', async () => {
    const text = (await k.app.inject('/metrics')).body;
    expect(text).toMatch(/^atendo_conversation_turns\{state="running"\} \d+$/m);
    expect(text).toMatch(/^atendo_conversation_turns\{state="waiting"\} \d+$/m);
    expect(text).toMatch(/^atendo_inbound_busy [01]$/m);
  });

  test("'handled': the first handler answers through the attendants' outbound path and hands the ticket to a queue; the second is not called", async () => {
    scripts.first.set('oi', async (turn, t) => {
      await t.sendText(turn.companyId, turn.ticket.id, `Olá ${turn.contact.name}! Escolha uma opção.`, { fromBot: true, handlerId: 'first' });
      await t.addLog(turn.companyId, turn.ticket.id, { type: 'chatBot', data: { option: 1 } });
      await t.update(turn.companyId, turn.ticket.id, { queueId: A.queueA.id, isBot: true, amountUsedBotQueues: 1 }, { kind: 'bot', handlerId: 'first' });
      return 'handled';
    });
    const s = await connect(A.admin);
    const number = digits();
    const created = eventsMatching<Record<string, any>>(s, `company-${A.companyId}-appMessage`, (p) => p.action === 'create' && p.message?.fromMe, 3000);
    const m = await inbound(number, 'oi tudo bem?');
    const turn = await done(m.id);
    expect(turn).toMatchObject({ state: 'done', handledBy: 'first', attempts: 1, companyId: A.companyId, ticketId: m.ticketId });
    expect(calls.filter((c) => c.messageId === m.id).map((c) => c.handler)).toEqual(['first']);

    // The answer: stored fromMe (no user, not signed), shown in the conversation, pushed, sent, tracked.
    const answer = (await k.db('messages').where({ ticketId: m.ticketId, fromMe: true }).first()) as MessageRow;
    expect(answer).toMatchObject({ body: 'Olá Cliente Bot! Escolha uma opção.', userId: null, ack: 0, isPrivate: false, mediaType: 'conversation' });
    const page = (await k.as(A.admin, 'GET', `/messages/${m.ticketId}`)).json();
    expect(page.messages.map((x: { id: number }) => x.id)).toEqual([m.id, Number(answer.id)]);
    expect((await created).map((p) => p.message.id)).toContain(Number(answer.id));
    await waitFor(() => published('message.send', (p) => p.messageId === Number(answer.id)).length === 1);
    expect(published('message.stored', (p) => p.messageId === Number(answer.id))[0]).toMatchObject({ fromMe: true, by: { kind: 'bot', handlerId: 'first' }, ticket: { id: m.ticketId } });
    expect(published('message.stored', (p) => p.messageId === m.id)[0]).toMatchObject({
      companyId: A.companyId,
      fromMe: false,
      isPrivate: false,
      by: { kind: 'contact' },
      body: 'oi tudo bem?',
      mediaType: 'conversation',
      hasMedia: false,
      ticket: { id: m.ticketId, status: 'pending', queueId: null, userId: null, connectionId: A.conn.id, channel: 'whatsapp', isGroup: false, isBot: false },
    });
    await k.bus.publish('message.sent', { companyId: A.companyId, messageId: Number(answer.id), wid: `WAMID.BOT${seq++}` });
    await waitFor(async () => (await k.db('messages').where({ id: answer.id }).first()).ack === 1);

    // The hand-back: queue set with its log entries and events (before/after, by the handler).
    const t = (await k.db('tickets').where({ id: m.ticketId }).first()) as TicketRow;
    expect(t).toMatchObject({ queueId: A.queueA.id, isBot: true, amountUsedBotQueues: 1, status: 'pending', userId: null });
    expect(await logTypes(k, t.id)).toEqual(['create', 'chatBot', 'queue']);
    await waitFor(() => published('ticket.changed', (p) => p.ticketId === t.id).length === 1);
    expect(published('ticket.changed', (p) => p.ticketId === t.id)[0]).toEqual({
      companyId: A.companyId,
      ticketId: t.id,
      contactId: t.contactId,
      connectionId: A.conn.id,
      before: { status: 'pending', queueId: null, userId: null },
      after: { status: 'pending', queueId: A.queueA.id, userId: null },
      changed: ['queueId'],
      by: { kind: 'bot', handlerId: 'first' },
    });
    expect(published('ticket.transferred', (p) => p.ticketId === t.id)[0]).toMatchObject({ fromQueueId: null, queueId: A.queueA.id });
  });

  test("'pass' goes to the next handler in order; every handler passing leaves the turn done without a handler", async () => {
    scripts.second.set('preço', async () => 'handled');
    const number = digits();
    const m1 = await inbound(number, 'preço do plano?');
    expect(await done(m1.id)).toMatchObject({ state: 'done', handledBy: 'second' });
    expect(calls.filter((c) => c.messageId === m1.id).map((c) => c.handler)).toEqual(['first', 'second']);
    const m2 = await inbound(number, 'obrigado');
    expect(await done(m2.id)).toMatchObject({ state: 'done', handledBy: null });
    expect(calls.filter((c) => c.messageId === m2.id).map((c) => c.handler)).toEqual(['first', 'second']);
  });

  test('a throwing handler is logged and its turn retried by the bus (once per try); the inbound pipeline and other tickets go on meanwhile', async () => {
    let tries = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    scripts.first.set('falha', async () => {
      tries++;
      if (tries === 1) throw new Error('provider timeout');
      return 'handled';
    });
    scripts.first.set('lento', async () => {
      await gate;
      return 'handled';
    });
    // A slow handler on one ticket...
    const slow = await inbound(digits(), 'lento demais');
    await waitFor(() => calls.some((c) => c.messageId === slow.id));
    // ...does not stop other messages from being stored, nor other tickets' turns (the failing one retried).
    const m = await inbound(digits(), 'falha na primeira');
    expect(await done(m.id)).toMatchObject({ state: 'done', handledBy: 'first', attempts: 2 });
    expect(tries).toBe(2);
    expect(calls.filter((c) => c.messageId === m.id).map((c) => c.handler)).toEqual(['first', 'first']);
    expect((await turnOf(slow.id)).state).toBe('running');
    release();
    expect(await done(slow.id)).toMatchObject({ state: 'done', handledBy: 'first' });
  });

  test('a handler that always throws is abandoned after 5 tries and the next messages of its ticket still run', async () => {
    scripts.first.set('sempre', async () => {
      throw new Error('always');
    });
    const number = digits();
    const bad = await inbound(number, 'sempre falha');
    const turn = await waitFor(async () => ((await turnOf(bad.id))?.state === 'abandoned' ? turnOf(bad.id) : undefined), 20000, 100);
    expect(turn).toMatchObject({ attempts: 5, error: 'always' });
    expect(calls.filter((c) => c.messageId === bad.id)).toHaveLength(5);
    const next = await inbound(number, 'depois');
    expect(await done(next.id)).toMatchObject({ state: 'done' });
  }, 30000);

  test('at most once per message: a redelivered event, and the same event on two consumers at once, run the chain once', async () => {
    const m = await inbound(digits(), 'uma vez só');
    await done(m.id);
    const payload = published('message.stored', (p) => p.messageId === m.id)[0] as MessageStoredEvent;
    // Redelivery (same payload, another bus message).
    await k.bus.publish(messageStored, payload, { id: `redelivery-${m.id}` });
    // A second process's chain taking the same event concurrently (its own in-process ordering bypassed).
    const deps = ticketsDeps(k);
    const handlers = [handler('first', 10), handler('second', 20)];
    const other = new ConversationChain(deps, { all: () => handlers, onContribute: () => () => undefined });
    const fresh = await inbound(digits(), 'duas vezes');
    const freshPayload = (await waitFor(() => published('message.stored', (p) => p.messageId === fresh.id)[0] as MessageStoredEvent | undefined)) as MessageStoredEvent;
    const msg = (id: string): BusMessage<MessageStoredEvent> => ({ id, topic: 'message.stored', payload: freshPayload, headers: {}, publishedAt: new Date().toISOString(), attempt: 1 });
    await Promise.all([other.handle(msg('x1')), other.handle(msg('x2')), k.bus.publish(messageStored, freshPayload, { id: `dup-${fresh.id}` })]);
    await done(fresh.id);
    await new Promise((r) => setTimeout(r, 300));
    expect(calls.filter((c) => c.messageId === m.id && c.handler === 'first')).toHaveLength(1);
    expect(calls.filter((c) => c.messageId === fresh.id && c.handler === 'first')).toHaveLength(1);
  });

  test("wants: a message no handler wants is recorded done and no handler runs; only the handlers that want it (no wants, or a check that throws, counts as wanting) run on its turn", async () => {
    const deps = ticketsDeps(k);
    const first = await inbound(digits(), 'abre o ticket');
    await done(first.id);
    const ticket = await k.db('tickets').where({ id: first.ticketId }).first();
    // Messages of that ticket the kernel's own chain never sees (no bus event): this chain alone runs them.
    const store = async (body: string) => {
      const [row] = await k.db('messages').insert({ companyId: A.companyId, ticketId: first.ticketId, contactId: ticket.contactId, body, fromMe: false, wid: wid() }).returning('*');
      const event = { ...(published('message.stored', (p) => p.messageId === first.id)[0] as MessageStoredEvent), messageId: Number(row.id), body };
      return { id: Number(row.id), msg: { id: `wants-${row.id}`, topic: 'message.stored', payload: event, headers: {}, publishedAt: new Date().toISOString(), attempt: 1 } as BusMessage<MessageStoredEvent> };
    };
    const offered: string[] = [];
    const h = (id: string, wants?: ConversationHandler['wants']): ConversationHandler => ({
      id,
      order: 1,
      ...(wants ? { wants } : {}),
      async onMessage(turn) {
        offered.push(`${id}:${turn.message.body}`);
        return 'pass';
      },
    });
    const chain = (handlers: ConversationHandler[]) => new ConversationChain(deps, { all: () => handlers, onContribute: () => () => undefined });

    const picky = chain([h('picky', (e) => e.body.startsWith('quero')), h('also-picky', async () => false)]);
    const skipped = await store('só olhando');
    await picky.handle(skipped.msg);
    expect(await turnOf(skipped.id)).toMatchObject({ state: 'done', handledBy: null, attempts: 0 });
    const wanted = await store('quero comprar');
    await picky.handle(wanted.msg);
    expect(await turnOf(wanted.id)).toMatchObject({ state: 'done', attempts: 1 });
    // A later wanted message's catch-up does not offer the skipped one again.
    // Only the handler that wanted it (also-picky said no: not run).
    expect(offered).toEqual(['picky:quero comprar']);

    offered.length = 0;
    const plain = await store('sem pré-teste');
    await chain([h('picky', () => false), h('plain')]).handle(plain.msg);
    const failing = await store('pré-teste quebrado');
    await chain([h('broken', () => { throw new Error('boom'); })]).handle(failing.msg);
    expect(offered).toEqual(['plain:sem pré-teste', 'broken:pré-teste quebrado']);
    expect(await turnOf(plain.id)).toMatchObject({ state: 'done', attempts: 1 });
  });

  test(`at most ${TURN_CONCURRENCY} turns run at once in a process; another ticket's message no handler wants is not held behind them`, async () => {
    const deps = ticketsDeps(k);
    // TURN_CONCURRENCY + 2 tickets, each with a message the chain below wants and holds.
    const rows = await Promise.all(Array.from({ length: TURN_CONCURRENCY + 2 }, () => inbound(digits(), 'segura')));
    const spare = await inbound(digits(), 'outro');
    for (const r of [...rows, spare]) await done(r.id);
    const event = (m: MessageRow, body: string): BusMessage<MessageStoredEvent> => ({
      id: `limit-${m.id}`,
      topic: 'message.stored',
      payload: { ...(published('message.stored', (p) => p.messageId === m.id)[0] as MessageStoredEvent), body },
      headers: {},
      publishedAt: new Date().toISOString(),
      attempt: 1,
    });
    // The kernel's chain recorded those turns: new turns need new messages in the same tickets.
    const again = async (m: MessageRow, body: string) => {
      const [row] = await k.db('messages').insert({ companyId: A.companyId, ticketId: m.ticketId, contactId: m.contactId, body, fromMe: false, wid: wid() }).returning('*');
      const e = event(m, body);
      return { ...e, payload: { ...e.payload, messageId: Number(row.id) } };
    };
    let running = 0;
    let most = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const chain = new ConversationChain(deps, {
      all: () => [
        {
          id: 'holder',
          order: 1,
          wants: (e) => e.body === 'segura',
          async onMessage() {
            running++;
            most = Math.max(most, running);
            await gate;
            running--;
            return 'handled' as const;
          },
        },
      ],
      onContribute: () => () => undefined,
    });
    const held = await Promise.all(rows.map((r) => again(r, 'segura')));
    const turns = held.map((e) => chain.handle(e));
    await waitFor(() => running === TURN_CONCURRENCY, 5000);
    // A message of another ticket that no handler wants is recorded at once, turns still held.
    const skipped = await again(spare, 'só olhando');
    await chain.handle(skipped);
    expect(await turnOf(skipped.payload.messageId)).toMatchObject({ state: 'done', handledBy: null });
    // One of the held tickets' own unwanted message waits for its turn (the ticket's order), then is recorded.
    const behindEvent = await again(rows[0], 'depois');
    let behindDone = false;
    const behind = chain.handle(behindEvent).then(() => (behindDone = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(running).toBe(TURN_CONCURRENCY);
    expect(behindDone).toBe(false);
    expect(await turnOf(behindEvent.payload.messageId)).toBeUndefined();
    release();
    await Promise.all(turns);
    await behind;
    expect(await turnOf(behindEvent.payload.messageId)).toMatchObject({ state: 'done', handledBy: null });
    expect(most).toBe(TURN_CONCURRENCY);
    for (const e of held) expect(await turnOf(e.payload.messageId)).toMatchObject({ state: 'done', handledBy: 'holder' });
  });

  test('in order per ticket, one turn at a time, in the order the messages were stored', async () => {
    let inFlight = 0;
    let most = 0;
    scripts.first.set('seq', async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 30));
      inFlight--;
      return 'handled';
    });
    const number = digits();
    const envs = [1, 2, 3, 4, 5, 6].map((i) => envelope(A.companyId, A.conn.id, number, `seq ${i}`));
    await Promise.all(envs.map((e) => k.bus.publish('channel.inbound.whatsapp.message', e, { id: e.idempotencyKey })));
    const ids = (await waitFor(async () => {
      const rows = (await k.db('messages').where({ companyId: A.companyId }).whereIn('wid', envs.map((e) => e.externalId)).orderBy('id').select('id')) as { id: string }[];
      return rows.length === envs.length ? rows.map((r) => Number(r.id)) : undefined;
    }, 5000)) as number[];
    for (const id of ids) await done(id);
    expect(calls.filter((c) => ids.includes(c.messageId)).map((c) => c.messageId)).toEqual(ids);
    expect(most).toBe(1);
  });

  test('ours and private notes are not offered; an attendant send publishes message.stored by the user', async () => {
    const c = await k.db('contacts').insert({ companyId: A.companyId, name: 'Att', number: digits(), channel: 'whatsapp' }).returning('id');
    const t = await insertTicket(k, A.companyId, { contactId: c[0].id, whatsappId: A.conn.id, status: 'open', userId: A.admin.id, queueId: A.queueA.id });
    const before = calls.length;
    const sent = await k.as(A.admin, 'POST', `/messages/${t.id}`, { body: 'resposta' });
    expect(sent.statusCode).toBe(200);
    const note = await k.as(A.admin, 'POST', `/messages/${t.id}`, { body: 'nota', isPrivate: true });
    await waitFor(() => published('message.stored', (p) => p.messageId === note.json().id).length === 1);
    expect(published('message.stored', (p) => p.messageId === sent.json().id)[0]).toMatchObject({ fromMe: true, isPrivate: false, by: { kind: 'user', userId: A.admin.id }, ticket: { id: t.id, status: 'open' } });
    expect(published('message.stored', (p) => p.messageId === note.json().id)[0]).toMatchObject({ isPrivate: true });
    await new Promise((r) => setTimeout(r, 300));
    expect(calls.length).toBe(before);
    expect(await k.db('conversationTurns').where({ ticketId: t.id })).toEqual([]);
  });

  describe('the tickets service', () => {
    const fresh = async (o: { status?: 'pending' | 'open' | 'closed'; userId?: number | null; queueId?: number | null; T?: Tenant } = {}) => {
      const T = o.T ?? A;
      const [c] = await k.db('contacts').insert({ companyId: T.companyId, name: 'Serviço', number: digits(), channel: 'whatsapp' }).returning('id');
      return insertTicket(k, T.companyId, { contactId: c.id, whatsappId: T.conn.id, status: o.status ?? 'pending', userId: o.userId ?? null, queueId: o.queueId ?? null });
    };

    test('sendText: handlers answer pending, open and group tickets; on behalf of a user only open ones; errors', async () => {
      const t = await fresh();
      const m = await tickets.sendText(A.companyId, t.id, '  Bem-vindo  ', { fromBot: true });
      expect(m).toMatchObject({ ticketId: t.id, body: 'Bem-vindo', fromMe: true, userId: null, ack: 0 });
      expect((await k.db('tickets').where({ id: t.id }).first()).lastMessage).toBe('Bem-vindo');
      // A final body is stored in one statement; its row is typed like a row knex reads.
      expect(m.createdAt).toBeInstanceOf(Date);
      // A body with message variables takes the path that reads the ticket first and fills them.
      expect((await tickets.sendText(A.companyId, t.id, 'Olá {{name}}, ticket {{ticket_id}}', { fromBot: true })).body).toBe(`Olá Serviço, ticket ${t.id}`);
      await expect(tickets.sendText(A.companyId, t.id, 'x', { userId: A.userA.id })).rejects.toMatchObject({ code: 'ERR_TICKET_NOT_OPEN', statusCode: 400 });
      await expect(tickets.sendText(A.companyId, t.id, '', { fromBot: true })).rejects.toMatchObject({ code: 'ERR_VALIDATION' });
      await expect(tickets.sendText(B.companyId, t.id, 'x', { fromBot: true })).rejects.toMatchObject({ code: 'ERR_NO_TICKET_FOUND', statusCode: 404 });
      await expect(tickets.sendText(A.companyId, t.id, 'x', { fromBot: true, quotedMsgId: 999999999 })).rejects.toMatchObject({ code: 'ERR_NO_MESSAGE_FOUND' });
      const opened = await fresh({ status: 'open', userId: A.userA.id, queueId: A.queueA.id });
      const byUser = await tickets.sendText(A.companyId, opened.id, 'Oi', { userId: A.userA.id, quotedMsgId: undefined });
      expect(byUser).toMatchObject({ userId: A.userA.id, body: 'Oi' });
      await expect(tickets.sendText(A.companyId, opened.id, 'Oi', { userId: B.userA.id })).rejects.toMatchObject({ code: 'ERR_NO_USER_FOUND' });
      const closed = await fresh({ status: 'closed' });
      await expect(tickets.sendText(A.companyId, closed.id, 'x', { fromBot: true })).rejects.toMatchObject({ code: 'ERR_TICKET_NOT_OPEN' });
    });

    test('sendText with `ticket`: the bot fields written with the message (one ticket push), ticket.updated when they change; bad values 400', async () => {
      const s = await connect(A.admin);
      const t = await fresh();
      const pushes = eventsMatching<Record<string, any>>(s, `company-${A.companyId}-ticket`, (p) => p.ticketId === t.id && p.action === 'update', 1500);
      const m = await tickets.sendText(A.companyId, t.id, 'Escolha uma opção', { fromBot: true, ticket: { isBot: true, amountUsedBotQueues: 2 } });
      expect(await k.db('tickets').where({ id: t.id }).first()).toMatchObject({ isBot: true, amountUsedBotQueues: 2, lastMessage: 'Escolha uma opção' });
      const seen = await pushes;
      expect(seen).toHaveLength(1);
      expect(seen[0].ticket).toMatchObject({ isBot: true, amountUsedBotQueues: 2, lastMessage: 'Escolha uma opção' });
      await waitFor(() => published('ticket.updated', (p) => p.ticketId === t.id).length === 1);
      expect(published('ticket.updated', (p) => p.ticketId === t.id)[0]).toMatchObject({ companyId: A.companyId, ticketId: t.id, status: 'pending' });
      // It says which fields changed (consumers such as the dashboard skip what they do not keep).
      expect([...published('ticket.updated', (p) => p.ticketId === t.id)[0].fields].sort()).toEqual(['amountUsedBotQueues', 'fromMe', 'isBot', 'lastMessage']);
      // The service's own plain-field updates say so too.
      await tickets.update(A.companyId, t.id, { isOutOfHour: true }, { kind: 'bot', handlerId: 'first' });
      await waitFor(() => published('ticket.updated', (p) => p.ticketId === t.id).length === 2);
      expect(published('ticket.updated', (p) => p.ticketId === t.id)[1].fields).toEqual(['isOutOfHour']);
      await waitFor(() => published('message.send', (p) => p.messageId === m.id).length === 1);
      // The same values again: the message is stored, no ticket.updated for fields that did not change.
      await tickets.sendText(A.companyId, t.id, 'De novo', { fromBot: true, ticket: { isBot: true } });
      await new Promise((r) => setTimeout(r, 200));
      expect(published('ticket.updated', (p) => p.ticketId === t.id)).toHaveLength(2);
      for (const ticket of [{ isBot: 'yes' }, { amountUsedBotQueues: -1 }, { amountUsedBotQueues: 1.5 }, 'nope']) {
        await expect(tickets.sendText(A.companyId, t.id, 'x', { fromBot: true, ticket: ticket as never })).rejects.toMatchObject({ code: 'ERR_VALIDATION', statusCode: 400 });
      }
    });

    test('sendMedia: a stored upload path, its type from the extension; unsafe paths and types refused', async () => {
      const t = await fresh();
      const m = await tickets.sendMedia(A.companyId, t.id, { path: 'messages/abc.png', fileName: 'menu.png', caption: 'Cardápio' }, { fromBot: true });
      expect(m).toMatchObject({ mediaType: 'image', mediaPath: 'messages/abc.png', mediaName: 'menu.png', body: 'Cardápio' });
      await waitFor(() => published('message.send', (p) => p.messageId === m.id).length === 1);
      expect(published('message.send', (p) => p.messageId === m.id)[0].media).toMatchObject({ path: 'messages/abc.png', mimeType: 'image/png', fileName: 'menu.png' });
      await expect(tickets.sendMedia(A.companyId, t.id, { path: '../etc/passwd', fileName: 'x' }, { fromBot: true })).rejects.toMatchObject({ code: 'ERR_VALIDATION' });
      await expect(tickets.sendMedia(A.companyId, t.id, { path: 'messages/x.exe', fileName: 'x.exe' }, { fromBot: true })).rejects.toMatchObject({ code: 'ERR_UPLOAD_TYPE', statusCode: 415 });
    });

    test('update: status, user and plain fields with logs, the socket update and the events; validation', async () => {
      const s = await connect(A.admin);
      const t = await fresh({ queueId: A.queueA.id });
      const updates = eventsMatching<Record<string, any>>(s, `company-${A.companyId}-ticket`, (p) => p.ticketId === t.id && p.action === 'update', 1500);
      const row = await tickets.update(A.companyId, t.id, { status: 'open', userId: A.userA.id, isBot: false, useIntegration: true, integrationId: 7, promptId: 3, isOutOfHour: true }, { kind: 'bot', handlerId: 'first' });
      expect(row).toMatchObject({ status: 'open', userId: A.userA.id, useIntegration: true, integrationId: 7, promptId: 3, isOutOfHour: true });
      expect(row.acceptedAt).not.toBeNull();
      expect(await logTypes(k, t.id)).toEqual(['open', 'transfered', 'receivedTransfer']);
      expect((await updates).map((p) => p.ticket.status)).toEqual(['open']);
      await waitFor(() => published('ticket.changed', (p) => p.ticketId === t.id).length === 1);
      expect(published('ticket.changed', (p) => p.ticketId === t.id)[0]).toMatchObject({ before: { status: 'pending', userId: null }, after: { status: 'open', userId: A.userA.id }, changed: ['status', 'userId'] });
      // Nothing to change: no write, no event.
      expect(await tickets.update(A.companyId, t.id, { status: 'open', isBot: false })).toMatchObject({ id: t.id, updatedAt: row.updatedAt });
      await expect(tickets.update(A.companyId, t.id, { status: 'open', userId: null })).rejects.toMatchObject({ code: 'ERR_VALIDATION' });
      await expect(tickets.update(A.companyId, t.id, { queueId: B.queueA.id })).rejects.toMatchObject({ code: 'ERR_NO_QUEUE_FOUND' });
      await expect(tickets.update(A.companyId, t.id, { userId: B.userA.id })).rejects.toMatchObject({ code: 'ERR_NO_USER_FOUND' });
      await expect(tickets.update(B.companyId, t.id, { isBot: true })).rejects.toMatchObject({ code: 'ERR_NO_TICKET_FOUND' });
      await expect(tickets.update(A.companyId, t.id, { status: 'bogus' as never })).rejects.toMatchObject({ code: 'ERR_VALIDATION' });
    });

    test('close: ticket.closed with who closed it, ticket.changed, log; closing again changes nothing; reopening with another active ticket is refused', async () => {
      const t = await fresh({ status: 'open', userId: A.userA.id, queueId: A.queueA.id });
      const closed = await tickets.close(A.companyId, t.id, { kind: 'bot', handlerId: 'first' });
      expect(closed).toMatchObject({ status: 'closed', unreadMessages: 0 });
      expect(closed.closedAt).not.toBeNull();
      await waitFor(() => published('ticket.closed', (p) => p.ticketId === t.id).length === 1);
      expect(published('ticket.closed', (p) => p.ticketId === t.id)[0]).toEqual({
        companyId: A.companyId,
        ticketId: t.id,
        status: 'closed',
        queueId: A.queueA.id,
        userId: A.userA.id,
        contactId: t.contactId,
        connectionId: A.conn.id,
        closedBy: { kind: 'bot', handlerId: 'first' },
      });
      await waitFor(() => published('ticket.changed', (p) => p.ticketId === t.id).length === 1);
      const logs = await k.db('ticketLogs').where({ ticketId: t.id, type: 'closed' });
      expect(logs).toHaveLength(1);
      expect(logs[0].data).toEqual({ by: 'bot', handlerId: 'first' });
      await tickets.close(A.companyId, t.id, { kind: 'system', reason: 'test' });
      await new Promise((r) => setTimeout(r, 200));
      expect(published('ticket.closed', (p) => p.ticketId === t.id)).toHaveLength(1);
      // Another active ticket of the same contact and connection: reopening answers ERR_OTHER_OPEN_TICKET.
      await insertTicket(k, A.companyId, { contactId: t.contactId, whatsappId: A.conn.id, status: 'pending' });
      await expect(tickets.update(A.companyId, t.id, { status: 'pending' })).rejects.toMatchObject({ code: 'ERR_OTHER_OPEN_TICKET', statusCode: 409 });
    });

    test('REST transitions publish ticket.changed and ticket.closed with the user; get/snapshot/addLog', async () => {
      const t = await fresh({ queueId: A.queueA.id });
      const accept = await k.as(A.userA, 'PUT', `/tickets/${t.id}`, { status: 'open', userId: A.userA.id });
      expect(accept.statusCode).toBe(200);
      await waitFor(() => published('ticket.changed', (p) => p.ticketId === t.id).length === 1);
      expect(published('ticket.changed', (p) => p.ticketId === t.id)[0]).toMatchObject({ changed: ['status', 'userId'], by: { kind: 'user', userId: A.userA.id } });
      const close = await k.as(A.userA, 'PUT', `/tickets/${t.id}`, { status: 'closed', sendFarewellMessage: false });
      expect(close.statusCode).toBe(200);
      await waitFor(() => published('ticket.closed', (p) => p.ticketId === t.id).length === 1);
      expect(published('ticket.closed', (p) => p.ticketId === t.id)[0]).toMatchObject({ closedBy: { kind: 'user', userId: A.userA.id }, connectionId: A.conn.id, contactId: t.contactId });
      expect(await tickets.get(A.companyId, t.id)).toMatchObject({ id: t.id, status: 'closed' });
      expect(await tickets.get(B.companyId, t.id)).toBeUndefined();
      expect(await tickets.snapshot(A.companyId, t.id)).toMatchObject({ id: t.id, status: 'closed', connectionId: A.conn.id, queueId: A.queueA.id });
      await tickets.addLog(A.companyId, t.id, { type: 'chatBot', data: { step: 'menu' } });
      const logs = (await k.as(A.admin, 'GET', `/tickets-log/${t.id}`)).json();
      expect(logs[logs.length - 1]).toMatchObject({ type: 'chatBot' });
      await expect(tickets.addLog(A.companyId, t.id, { type: 'nope' as never })).rejects.toMatchObject({ code: 'ERR_VALIDATION' });
      await expect(tickets.addLog(B.companyId, t.id, { type: 'chatBot' })).rejects.toMatchObject({ code: 'ERR_NO_TICKET_FOUND' });
    });
  });

  test('two handlers with one id refuse boot', async () => {
    const dup = definePlugin({
      id: 'test-bot-dup',
      dependsOn: ['tickets'],
      register(ctx) {
        ctx.extensions.contribute(conversationHandlers, handler('first', 1));
      },
    });
    await expect(createTestKernel({ plugins: [...TICKETS_PLUGINS, botPlugin as PluginDefinition, dup as PluginDefinition] })).rejects.toThrow(/conversation handler first is contributed by both test-bot and test-bot-dup/);
  });
});
