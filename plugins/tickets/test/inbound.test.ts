import { randomBytes } from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { ENVELOPE_SCHEMA_VERSION, envelopeId, idempotencyKey, type BusMessage, type Envelope } from '@atendo/sdk';
import { nextEvent, waitFor, type TestKernel } from '@atendo/testing';
import { contactsService } from '@atendo/plugin-contacts/contract';
import type { MessageRow, TicketRow } from '../src/model';
import { INBOUND_QUEUE, messageFields } from '../src/services/inbound';
import { createConnection, createQueue, createTag, createTenant, eventsMatching, insertMessage, insertTicket, logTypes, setCompanySetting, ticketsKernel, type Tenant } from './helpers';

/**
 * The inbound pipeline: envelopes published on `channel.inbound.<channel>.<kind>` exactly as the channel
 * adapters do (bus message id = idempotency key) become contacts, tickets, messages and live events.
 */

let seq = 0;
const QUEUE = INBOUND_QUEUE;
const digits = () => `5511${String(Date.now() % 1e6).padStart(6, '0')}${String(seq++).padStart(3, '0')}`;
const wid = () => `wamid.${randomBytes(10).toString('hex').toUpperCase()}`;

type Draft = Partial<Envelope> & Pick<Envelope, 'companyId' | 'connectionId'>;

/** A valid envelope (a text message from a 1:1 WhatsApp contact unless overridden). */
function envelope(d: Draft): Envelope {
  const channel = d.channel ?? 'whatsapp';
  const kind = d.kind ?? 'message';
  const externalId = d.externalId ?? wid();
  const key = d.idempotencyKey ?? idempotencyKey(channel, d.connectionId, kind, externalId, kind === 'message' ? undefined : randomBytes(4).toString('hex'));
  const number = d.thread?.externalId ?? digits();
  return {
    schemaVersion: ENVELOPE_SCHEMA_VERSION,
    id: envelopeId(key),
    idempotencyKey: key,
    channel,
    direction: 'in',
    kind,
    occurredAt: new Date().toISOString(),
    thread: { externalId: number, isGroup: false },
    sender: { externalId: number, name: 'João Cliente', phone: number, jid: `${number}@s.whatsapp.net` },
    externalId,
    ...(kind === 'message' ? { content: { type: 'text' as const, text: 'Olá, preciso de ajuda' } } : {}),
    raw: { key: { id: externalId } },
    ...d,
  } as Envelope;
}

describe('tickets: inbound pipeline', () => {
  let k: TestKernel;
  let A: Tenant;
  let B: Tenant;
  const received: BusMessage<Record<string, unknown>>[] = [];
  const open: Socket[] = [];

  const publish = (e: unknown) => {
    const env = e as Envelope;
    return k.bus.publish(`channel.inbound.${env?.channel ?? 'whatsapp'}.${env?.kind ?? 'message'}`, e, { id: env?.idempotencyKey ?? `bad-${seq++}` });
  };
  const connect = async (u: { token: string }) => {
    const s = await k.socket(u.token, await k.listen());
    open.push(s);
    return s;
  };
  const messagesOf = (companyId: number, w: string) => k.db('messages').where({ companyId, wid: w }) as Promise<MessageRow[]>;
  const stored = (companyId: number, w: string) => waitFor(async () => (await messagesOf(companyId, w))[0], 5000);
  const contactByNumber = (companyId: number, number: string) => k.db('contacts').where({ companyId, number }).first();
  const ticketsOf = (companyId: number, contactId: number) => k.db('tickets').where({ companyId, contactId }).orderBy('id') as Promise<TicketRow[]>;
  /** Publishes a sentinel message of tenant `T` and waits until it is stored: envelopes published before it are handled by then. */
  const settle = async (T: Tenant) => {
    const e = envelope({ companyId: T.companyId, connectionId: T.conn.id });
    await publish(e);
    await stored(T.companyId, e.externalId);
    await new Promise((r) => setTimeout(r, 150));
  };
  /** The first `company-{cid}-{name}` payload on `s` matching `pred` within `ms`. */
  const eventOn = (s: Socket, companyId: number, name: string, pred: (p: Record<string, any>) => boolean, ms = 5000): Promise<Record<string, any>> =>
    new Promise((resolve, reject) => {
      const ev = `company-${companyId}-${name}`;
      const t = setTimeout(() => {
        s.off(ev, on);
        reject(new Error(`no ${ev} within ${ms} ms`));
      }, ms);
      const on = (p: Record<string, any>) => {
        if (!pred(p)) return;
        clearTimeout(t);
        s.off(ev, on);
        resolve(p);
      };
      s.on(ev, on);
    });

  beforeAll(async () => {
    k = await ticketsKernel();
    A = await createTenant(k);
    B = await createTenant(k);
    await k.db('whatsapps').whereIn('id', [A.conn.id, B.conn.id]).update({ allowGroup: true });
    await setCompanySetting(k, A.companyId, 'sendSignMessage', 'disabled');
    await k.bus.subscribe<Record<string, unknown>>('message.received', (m) => {
      received.push(m);
    }, { queue: 'tickets-inbound-test' });
  });
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });
  afterAll(() => k.close());

  test('a new contact: contact, pending ticket, stored message, appMessage + ticket events to the company only, message.received', async () => {
    expect(k.bus.kind).toBe(process.env.AMQP_URL ? 'rabbitmq' : 'in-process');
    const sa = await connect(A.admin);
    const sb = await connect(B.admin);
    const e = envelope({ companyId: A.companyId, connectionId: A.conn.id });
    const number = e.thread.externalId;
    const gotMessage = eventOn(sa, A.companyId, 'appMessage', (p) => p.action === 'create' && p.message?.wid === e.externalId);
    const gotTicket = eventOn(sa, A.companyId, 'ticket', (p) => p.action === 'update' && p.ticket?.contact?.number === number);
    const leakB = eventsMatching(sb, `company-${A.companyId}-appMessage`, () => true, 1500);
    const leakB2 = eventsMatching(sb, `company-${B.companyId}-appMessage`, (p: any) => p.message?.wid === e.externalId, 1500);
    await publish(e);

    const m = await stored(A.companyId, e.externalId);
    const contact = await contactByNumber(A.companyId, number);
    expect(contact).toMatchObject({ name: 'João Cliente', channel: 'whatsapp', isGroup: false, remoteJid: `${number}@s.whatsapp.net`, active: true });
    const [t] = await ticketsOf(A.companyId, contact.id);
    expect(t).toMatchObject({ status: 'pending', queueId: null, userId: null, whatsappId: A.conn.id, isGroup: false, channel: 'whatsapp', unreadMessages: 1, lastMessage: 'Olá, preciso de ajuda', fromMe: false });
    expect(m).toMatchObject({ ticketId: t.id, contactId: contact.id, fromMe: false, read: false, ack: 0, body: 'Olá, preciso de ajuda', mediaType: 'conversation', remoteJid: `${number}@s.whatsapp.net`, participant: null, isForwarded: false, quotedMsgId: null, queueId: null });
    expect(JSON.parse(m.dataJson!)).toEqual({ key: { id: e.externalId } });
    expect(m.createdAt.toISOString()).toBe(e.occurredAt);
    expect(await logTypes(k, t.id)).toEqual(['create']);

    const ev = await gotMessage;
    expect(ev.message).toMatchObject({ id: Number(m.id), ticketId: t.id, body: 'Olá, preciso de ajuda', fromMe: false, mediaUrl: null, contact: { id: contact.id, name: 'João Cliente' }, ticket: { id: t.id, queueId: null, queue: null } });
    expect(ev.message).not.toHaveProperty('mediaPath');
    expect(ev.ticket).toMatchObject({ id: t.id, status: 'pending', unreadMessages: 1, contact: { id: contact.id, number }, whatsapp: { id: A.conn.id } });
    expect(ev.contact).toMatchObject({ id: contact.id, number });
    // The pushed message has exactly the shape GET /messages/:ticketId answers (which also marks it read).
    const page = await k.as(A.admin, 'GET', `/messages/${t.id}`);
    expect(page.statusCode).toBe(200);
    expect({ ...ev.message, read: true }).toEqual(page.json().messages.find((x: { id: number }) => x.id === Number(m.id)));
    const tv = await gotTicket;
    expect(tv).toMatchObject({ action: 'update', ticketId: t.id, ticket: { id: t.id, lastMessage: 'Olá, preciso de ajuda' } });
    expect(await leakB).toEqual([]);
    expect(await leakB2).toEqual([]);

    await waitFor(() => received.some((r) => r.payload.messageId === Number(m.id)));
    expect(received.find((r) => r.payload.messageId === Number(m.id))!.payload).toEqual({ companyId: A.companyId, ticketId: t.id, messageId: Number(m.id), contactId: contact.id, fromMe: false });
  });

  test("the live events show the ticket's tags (read with the batch's lock) as GET /tickets/:id does; a new ticket has none", async () => {
    const sa = await connect(A.admin);
    const first = envelope({ companyId: A.companyId, connectionId: A.conn.id });
    const number = first.thread.externalId;
    const fresh = eventOn(sa, A.companyId, 'appMessage', (p) => p.message?.wid === first.externalId);
    await publish(first);
    expect((await fresh).ticket.tags).toEqual([]);
    const contact = await contactByNumber(A.companyId, number);
    const [t] = await ticketsOf(A.companyId, contact.id);
    const red = await createTag(k, A.companyId, { name: `Vermelha ${seq}`, color: '#FF0000' });
    const blue = await createTag(k, A.companyId, { name: `Azul ${seq}`, color: '#0000FF' });
    const foreign = await createTag(k, B.companyId, { name: `Outra ${seq}` });
    await k.db('ticketTags').insert([red, blue].map((tag) => ({ ticketId: t.id, tagId: tag.id, companyId: A.companyId })));
    // A link row naming another company is not the ticket's tag.
    await k.db('ticketTags').insert({ ticketId: t.id, tagId: foreign.id, companyId: B.companyId });
    // The contact's tags come with the batch's contact read.
    await k.db('contactTags').insert({ contactId: contact.id, tagId: blue.id, companyId: A.companyId });
    const next = envelope({ companyId: A.companyId, connectionId: A.conn.id, thread: { externalId: number, isGroup: false } });
    const gotMessage = eventOn(sa, A.companyId, 'appMessage', (p) => p.message?.wid === next.externalId);
    const gotTicket = eventOn(sa, A.companyId, 'ticket', (p) => p.ticketId === t.id && p.ticket?.lastMessage === 'Olá, preciso de ajuda' && p.ticket?.tags?.length > 0);
    await publish(next);
    const shown = (await k.as(A.admin, 'GET', `/tickets/${t.id}`)).json().tags;
    const byId = (x: { id: number }[]) => [...x].sort((a, b) => a.id - b.id);
    expect(byId(shown)).toEqual(byId([red, blue].map((tag) => ({ id: tag.id, name: tag.name, color: tag.color }))));
    expect(byId((await gotMessage).ticket.tags)).toEqual(byId(shown));
    expect(byId((await gotTicket).ticket.tags)).toEqual(byId(shown));
    const shownContactTags = (await k.as(A.admin, 'GET', `/tickets/${t.id}`)).json().contact.tags;
    expect(shownContactTags.map((x: { id: number }) => x.id)).toEqual([blue.id]);
    expect((await gotMessage).ticket.contact.tags).toEqual(shownContactTags);
    expect((await gotTicket).ticket.contact.tags).toEqual(shownContactTags);
  });

  test('an existing contact gets the sender\'s new name (contact update event); echoes never rename it', async () => {
    const number = digits();
    const [c] = await k.db('contacts').insert({ companyId: A.companyId, name: 'Nome Antigo', number, channel: 'whatsapp' }).returning('*');
    const sa = await connect(A.admin);
    const renamed = eventOn(sa, A.companyId, 'contact', (p) => p.action === 'update' && p.contact?.id === c.id);
    const e = envelope({ companyId: A.companyId, connectionId: A.conn.id, thread: { externalId: number, isGroup: false }, sender: { externalId: number, name: 'Nome Novo', jid: `${number}@s.whatsapp.net` } });
    await publish(e);
    await stored(A.companyId, e.externalId);
    expect((await renamed).contact).toMatchObject({ id: c.id, name: 'Nome Novo', remoteJid: `${number}@s.whatsapp.net` });
    const echo = envelope({ companyId: A.companyId, connectionId: A.conn.id, direction: 'out', thread: { externalId: number, isGroup: false }, sender: { externalId: '5511000000000', name: 'Empresa' } });
    await publish(echo);
    await waitFor(async () => (await messagesOf(A.companyId, echo.externalId)).length === 1, 5000);
    expect((await contactByNumber(A.companyId, number)).name).toBe('Nome Novo');
    expect(await k.db('contacts').where({ companyId: A.companyId, number })).toHaveLength(1);
  });

  test('the same envelope published twice is stored once (unread counted once)', async () => {
    const e = envelope({ companyId: A.companyId, connectionId: A.conn.id });
    await publish(e);
    await publish(e);
    await stored(A.companyId, e.externalId);
    await settle(A);
    await publish(e);
    await settle(A);
    expect(await messagesOf(A.companyId, e.externalId)).toHaveLength(1);
    const contact = await contactByNumber(A.companyId, e.thread.externalId);
    const tickets = await ticketsOf(A.companyId, contact.id);
    expect(tickets).toHaveLength(1);
    expect(tickets[0].unreadMessages).toBe(1);
    // Redelivered after its ticket was closed: no new ticket, no reopen (even within timeCreateNewTicket).
    await k.db('tickets').where({ id: tickets[0].id }).update({ status: 'closed', closedAt: new Date() });
    await k.db('whatsapps').where({ id: A.conn.id }).update({ timeCreateNewTicket: 30 });
    await k.bus.publish('connection.updated', { companyId: A.companyId, id: A.conn.id, channel: 'whatsapp', changed: ['timeCreateNewTicket'] });
    try {
      await new Promise((r) => setTimeout(r, 100));
      await publish(e);
      await settle(A);
      expect(await ticketsOf(A.companyId, contact.id)).toEqual([expect.objectContaining({ id: tickets[0].id, status: 'closed' })]);
      expect(await messagesOf(A.companyId, e.externalId)).toHaveLength(1);
    } finally {
      await k.db('whatsapps').where({ id: A.conn.id }).update({ timeCreateNewTicket: 0 });
      await k.bus.publish('connection.updated', { companyId: A.companyId, id: A.conn.id, channel: 'whatsapp', changed: ['timeCreateNewTicket'] });
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  test('a late older message (occurredAt earlier) is stored in place without replacing the last message', async () => {
    const number = digits();
    const newer = envelope({ companyId: A.companyId, connectionId: A.conn.id, thread: { externalId: number, isGroup: false }, content: { type: 'text', text: 'segunda' } });
    await publish(newer);
    const m1 = await stored(A.companyId, newer.externalId);
    const older = envelope({ companyId: A.companyId, connectionId: A.conn.id, thread: { externalId: number, isGroup: false }, occurredAt: new Date(Date.now() - 3600_000).toISOString(), content: { type: 'text', text: 'primeira' } });
    await publish(older);
    const m2 = await stored(A.companyId, older.externalId);
    expect(m2.ticketId).toBe(m1.ticketId);
    expect(m2.createdAt.getTime()).toBeLessThan(m1.createdAt.getTime());
    expect(await k.db('tickets').where({ id: m1.ticketId }).first()).toMatchObject({ lastMessage: 'segunda', unreadMessages: 2 });
  });

  test('20 concurrent envelopes of a new contact give one ticket and 20 messages', async () => {
    const number = digits();
    const list = Array.from({ length: 20 }, (_, i) => envelope({ companyId: A.companyId, connectionId: A.conn.id, thread: { externalId: number, isGroup: false }, content: { type: 'text', text: `msg ${i}` } }));
    await Promise.all(list.map(publish));
    await waitFor(async () => Number((await k.db('messages').whereIn('wid', list.map((e) => e.externalId)).count({ n: '*' }).first())!.n) === 20, 8000);
    const contact = await contactByNumber(A.companyId, number);
    const tickets = await ticketsOf(A.companyId, contact.id);
    expect(tickets).toHaveLength(1);
    expect(tickets[0].unreadMessages).toBe(20);
    expect(Number((await k.db('messages').where({ ticketId: tickets[0].id }).count({ n: '*' }).first())!.n)).toBe(20);
    expect(Number((await k.db('contacts').where({ companyId: A.companyId, number }).count({ n: '*' }).first())!.n)).toBe(1);
  });

  test('20 concurrent envelopes of one new contact, each redelivered, still give one ticket and 20 messages (race on the unique index)', async () => {
    const number = digits();
    const list = Array.from({ length: 20 }, () => envelope({ companyId: A.companyId, connectionId: A.conn.id, thread: { externalId: number, isGroup: false } }));
    await Promise.all([...list, ...list].map(publish));
    await waitFor(async () => Number((await k.db('messages').whereIn('wid', list.map((e) => e.externalId)).count({ n: '*' }).first())!.n) === 20, 8000);
    await settle(A);
    const contact = await contactByNumber(A.companyId, number);
    const tickets = await ticketsOf(A.companyId, contact.id);
    expect(tickets).toHaveLength(1);
    expect(tickets[0].unreadMessages).toBe(20);
  });

  test('a connection with exactly one queue puts new tickets in it; events reach that queue\'s users and not others', async () => {
    const q = await createQueue(k, A.companyId);
    const conn = await createConnection(k, A.companyId, { channel: 'whatsappapi' });
    await k.db('whatsappQueues').insert({ whatsappId: conn.id, queueId: A.queueA.id, companyId: A.companyId });
    const sA = await connect(A.userA);
    const sB = await connect(A.userB);
    const e = envelope({ companyId: A.companyId, connectionId: conn.id, channel: 'whatsappapi', sender: undefined });
    const got = eventOn(sA, A.companyId, 'appMessage', (p) => p.message?.wid === e.externalId);
    const notB = eventsMatching(sB, `company-${A.companyId}-appMessage`, (p: any) => p.message?.wid === e.externalId, 1500);
    await publish(e);
    const m = await stored(A.companyId, e.externalId);
    const t = (await k.db('tickets').where({ id: m.ticketId }).first()) as TicketRow;
    expect(t).toMatchObject({ status: 'pending', queueId: A.queueA.id, channel: 'whatsappapi' });
    expect(m.queueId).toBe(A.queueA.id);
    expect(m.remoteJid).toBeNull();
    expect((await got).ticket).toMatchObject({ queue: { id: A.queueA.id } });
    expect(await notB).toEqual([]);
    // Two queues: no queue chosen (the chatbot flow decides later).
    await k.db('whatsappQueues').insert({ whatsappId: conn.id, queueId: q.id, companyId: A.companyId });
    await k.bus.publish('connection.updated', { companyId: A.companyId, id: conn.id, channel: 'whatsappapi', changed: ['queueIds'] });
    await new Promise((r) => setTimeout(r, 100));
    const e2 = envelope({ companyId: A.companyId, connectionId: conn.id, channel: 'whatsappapi', sender: undefined });
    await publish(e2);
    const m2 = await stored(A.companyId, e2.externalId);
    expect(((await k.db('tickets').where({ id: m2.ticketId }).first()) as TicketRow).queueId).toBeNull();
  });

  test('an active ticket gets the message; a closed one within timeCreateNewTicket is reopened as pending keeping its queue; an older one is not', async () => {
    const conn = await createConnection(k, A.companyId, { timeCreateNewTicket: 10 });
    // Active ticket: reused, status kept.
    const n1 = digits();
    const c1 = (await k.db('contacts').insert({ companyId: A.companyId, name: 'Ativo', number: n1, channel: 'whatsapp' }).returning('*'))[0];
    const active = await insertTicket(k, A.companyId, { contactId: c1.id, whatsappId: conn.id, status: 'open', userId: A.userA.id, queueId: A.queueA.id, unreadMessages: 2 });
    const e1 = envelope({ companyId: A.companyId, connectionId: conn.id, thread: { externalId: n1, isGroup: false } });
    await publish(e1);
    expect((await stored(A.companyId, e1.externalId)).ticketId).toBe(active.id);
    expect(await k.db('tickets').where({ id: active.id }).first()).toMatchObject({ status: 'open', userId: A.userA.id, unreadMessages: 3 });

    // Closed 2 minutes ago: reopened.
    const n2 = digits();
    const c2 = (await k.db('contacts').insert({ companyId: A.companyId, name: 'Recente', number: n2, channel: 'whatsapp' }).returning('*'))[0];
    const recent = await insertTicket(k, A.companyId, { contactId: c2.id, whatsappId: conn.id, status: 'closed', userId: A.userA.id, queueId: A.queueA.id, updatedAt: new Date(Date.now() - 2 * 60_000) });
    const sa = await connect(A.admin);
    const upd = eventOn(sa, A.companyId, 'ticket', (p) => p.ticketId === recent.id);
    const e2 = envelope({ companyId: A.companyId, connectionId: conn.id, thread: { externalId: n2, isGroup: false } });
    await publish(e2);
    expect((await stored(A.companyId, e2.externalId)).ticketId).toBe(recent.id);
    expect(await k.db('tickets').where({ id: recent.id }).first()).toMatchObject({ status: 'pending', userId: null, queueId: A.queueA.id, closedAt: null, unreadMessages: 1 });
    expect(await logTypes(k, recent.id)).toEqual(['reopen']);
    expect((await upd).ticket).toMatchObject({ id: recent.id, status: 'pending' });
    expect(await ticketsOf(A.companyId, c2.id)).toHaveLength(1);

    // Closed an hour ago: a new ticket.
    const n3 = digits();
    const c3 = (await k.db('contacts').insert({ companyId: A.companyId, name: 'Antigo', number: n3, channel: 'whatsapp' }).returning('*'))[0];
    const old = await insertTicket(k, A.companyId, { contactId: c3.id, whatsappId: conn.id, status: 'closed', queueId: A.queueA.id, updatedAt: new Date(Date.now() - 60 * 60_000) });
    const e3 = envelope({ companyId: A.companyId, connectionId: conn.id, thread: { externalId: n3, isGroup: false } });
    await publish(e3);
    const m3 = await stored(A.companyId, e3.externalId);
    expect(m3.ticketId).not.toBe(old.id);
    expect(await k.db('tickets').where({ id: old.id }).first()).toMatchObject({ status: 'closed' });
    expect(await k.db('tickets').where({ id: m3.ticketId }).first()).toMatchObject({ status: 'pending', queueId: null });

    // timeCreateNewTicket 0 (A.conn): a recently closed ticket is not reopened.
    const n4 = digits();
    const c4 = (await k.db('contacts').insert({ companyId: A.companyId, name: 'Sem janela', number: n4, channel: 'whatsapp' }).returning('*'))[0];
    const closed0 = await insertTicket(k, A.companyId, { contactId: c4.id, whatsappId: A.conn.id, status: 'closed' });
    const e4 = envelope({ companyId: A.companyId, connectionId: A.conn.id, thread: { externalId: n4, isGroup: false } });
    await publish(e4);
    expect((await stored(A.companyId, e4.externalId)).ticketId).not.toBe(closed0.id);
  });

  test('groups: stored in a group ticket with the participant as sender when the connection allows groups; skipped otherwise', async () => {
    const groupId = `120363${String(seq++).padStart(6, '0')}${Date.now() % 1e6}`;
    const participant = digits();
    const sa = await connect(A.admin);
    const e = envelope({
      companyId: A.companyId,
      connectionId: A.conn.id,
      thread: { externalId: groupId, isGroup: true, name: 'Equipe Vendas' },
      sender: { externalId: participant, phone: participant, name: 'Pedro', jid: `${participant}@s.whatsapp.net` },
    });
    const got = eventOn(sa, A.companyId, 'appMessage', (p) => p.message?.wid === e.externalId);
    await publish(e);
    const m = await stored(A.companyId, e.externalId);
    const group = await contactByNumber(A.companyId, groupId);
    const person = await contactByNumber(A.companyId, participant);
    expect(group).toMatchObject({ name: 'Equipe Vendas', isGroup: true, remoteJid: `${groupId}@g.us` });
    expect(person).toMatchObject({ name: 'Pedro', isGroup: false });
    const t = (await k.db('tickets').where({ id: m.ticketId }).first()) as TicketRow;
    expect(t).toMatchObject({ contactId: group.id, status: 'group', isGroup: true, queueId: null });
    expect(m).toMatchObject({ contactId: person.id, participant: `${participant}@s.whatsapp.net`, remoteJid: `${groupId}@g.us` });
    const gev = await got;
    expect(gev.message.contact).toEqual({ id: person.id, name: 'Pedro' });
    const gpage = await k.as(A.admin, 'GET', `/messages/${t.id}`);
    expect({ ...gev.message, read: true }).toEqual(gpage.json().messages.find((x: { id: number }) => x.id === Number(m.id)));

    // groupAsTicket enabled: a group chat is a pending ticket.
    const asTicket = await createConnection(k, A.companyId, { groupAsTicket: 'enabled' });
    await k.db('whatsapps').where({ id: asTicket.id }).update({ allowGroup: true });
    const e2 = envelope({ companyId: A.companyId, connectionId: asTicket.id, thread: { externalId: `${groupId}9`, isGroup: true, name: 'Outro grupo' } });
    await publish(e2);
    const m2 = await stored(A.companyId, e2.externalId);
    expect(await k.db('tickets').where({ id: m2.ticketId }).first()).toMatchObject({ status: 'pending', isGroup: true });

    // allowGroup false: nothing stored, no contact created.
    const noGroups = await createConnection(k, A.companyId);
    const groupId2 = `${groupId}7`;
    const e3 = envelope({ companyId: A.companyId, connectionId: noGroups.id, thread: { externalId: groupId2, isGroup: true, name: 'Ignorado' } });
    await publish(e3);
    await settle(A);
    expect(await messagesOf(A.companyId, e3.externalId)).toEqual([]);
    expect(await contactByNumber(A.companyId, groupId2)).toBeUndefined();
  });

  test('a blocked contact: nothing is stored', async () => {
    const number = digits();
    const [c] = await k.db('contacts').insert({ companyId: A.companyId, name: 'Bloqueado', number, channel: 'whatsapp', active: false }).returning('*');
    const e = envelope({ companyId: A.companyId, connectionId: A.conn.id, thread: { externalId: number, isGroup: false } });
    await publish(e);
    await settle(A);
    expect(await messagesOf(A.companyId, e.externalId)).toEqual([]);
    expect(await ticketsOf(A.companyId, c.id)).toEqual([]);
  });

  test('media with a stored file: mediaPath kept, signed mediaUrl in the event, caption as body, file name as last message', async () => {
    const sa = await connect(A.admin);
    const e = envelope({
      companyId: A.companyId,
      connectionId: A.conn.id,
      content: { type: 'document', text: '', media: { mimeType: 'application/pdf', fileName: 'boleto.pdf', path: 'messages/abc-123.pdf', size: 1000 } },
    });
    const got = eventOn(sa, A.companyId, 'appMessage', (p) => p.message?.wid === e.externalId);
    await publish(e);
    const m = await stored(A.companyId, e.externalId);
    expect(m).toMatchObject({ mediaType: 'application', mediaPath: 'messages/abc-123.pdf', mediaName: 'boleto.pdf', body: '' });
    const ev = await got;
    const mpage = await k.as(A.admin, 'GET', `/messages/${m.ticketId}`);
    const listed = mpage.json().messages.find((x: { id: number }) => x.id === Number(m.id));
    expect({ ...ev.message, read: true, mediaUrl: null }).toEqual({ ...listed, mediaUrl: null });
    expect(listed.mediaUrl).toMatch(new RegExp(`/public/company${A.companyId}/messages/abc-123\\.pdf\\?`));
    expect(ev.message.mediaUrl).toMatch(new RegExp(`/public/company${A.companyId}/messages/abc-123\\.pdf\\?e=\\d+&t=`));
    expect(ev.ticket.lastMessage).toBe('boleto.pdf');

    const img = envelope({ companyId: A.companyId, connectionId: A.conn.id, content: { type: 'image', text: 'Olha isso', media: { mimeType: 'image/jpeg', path: 'messages/x.jpg' } } });
    await publish(img);
    expect(await stored(A.companyId, img.externalId)).toMatchObject({ mediaType: 'image', body: 'Olha isso', mediaPath: 'messages/x.jpg' });
    // A path that leaves the company's folder is not kept.
    const bad = envelope({ companyId: A.companyId, connectionId: A.conn.id, content: { type: 'audio', media: { mimeType: 'audio/ogg', path: '../company1/messages/x.ogg', voice: true } } });
    await publish(bad);
    expect(await stored(A.companyId, bad.externalId)).toMatchObject({ mediaType: 'audio', mediaPath: null, body: '' });
  });

  test('content mapping: location, contact cards, interactive, unsupported', () => {
    expect(messageFields({ content: { type: 'location', location: { latitude: -23.5, longitude: -46.6, name: 'Loja', address: 'Rua A, 1' } } })).toEqual({
      body: '|https://maps.google.com/maps?q=-23.5%2C-46.6&z=17&hl=pt-BR|Loja - Rua A, 1',
      mediaType: 'locationMessage',
      mediaPath: null,
      mediaName: null,
      lastMessage: 'Localização',
    });
    expect(messageFields({ content: { type: 'contact', vcards: ['BEGIN:VCARD\nFN:A\nEND:VCARD'] } })).toMatchObject({ body: 'BEGIN:VCARD\nFN:A\nEND:VCARD', mediaType: 'contactMessage', lastMessage: 'Contato' });
    expect(messageFields({ content: { type: 'contact', vcards: ['V1', 'V2'] } })).toMatchObject({ body: 'V1\nV2', mediaType: 'multi_vcard' });
    expect(messageFields({ content: { type: 'interactive', interactive: { id: 'opt1', title: 'Financeiro' }, providerType: 'button_reply' } })).toMatchObject({ body: 'Financeiro', mediaType: 'button_reply' });
    expect(messageFields({ content: { type: 'text', text: 'oi\u0000' }, replyTo: { externalId: 'x' } })).toMatchObject({ body: 'oi', mediaType: 'extendedTextMessage' });
    expect(messageFields({ content: { type: 'unsupported', providerType: 'pollCreationMessage' } })).toMatchObject({ body: '', mediaType: 'pollCreationMessage' });
  });

  test('a reply points at the quoted message of the same company (quotedMsgId); an unknown one is null', async () => {
    const first = envelope({ companyId: A.companyId, connectionId: A.conn.id });
    await publish(first);
    const q = await stored(A.companyId, first.externalId);
    const reply = envelope({ companyId: A.companyId, connectionId: A.conn.id, thread: first.thread, replyTo: { externalId: first.externalId } });
    await publish(reply);
    const m = await stored(A.companyId, reply.externalId);
    expect(Number(m.quotedMsgId)).toBe(Number(q.id));
    const page = await k.as(A.admin, 'GET', `/messages/${m.ticketId}`);
    expect(page.json().messages.find((x: { id: number }) => x.id === Number(m.id)).quotedMsg).toMatchObject({ id: Number(q.id), body: 'Olá, preciso de ajuda', fromMe: false });
    expect(m.mediaType).toBe('extendedTextMessage');
    // The same provider id in company B is not found from company A.
    const other = envelope({ companyId: B.companyId, connectionId: B.conn.id, replyTo: { externalId: first.externalId } });
    await publish(other);
    expect((await stored(B.companyId, other.externalId)).quotedMsgId).toBeNull();
  });

  describe('statuses, reactions, edits, deletes', () => {
    let ticket: TicketRow;
    beforeAll(async () => {
      const number = digits();
      const [c] = await k.db('contacts').insert({ companyId: A.companyId, name: 'Status', number, channel: 'whatsapp' }).returning('*');
      ticket = await insertTicket(k, A.companyId, { contactId: c.id, whatsappId: A.conn.id, status: 'open', userId: A.admin.id, queueId: A.queueA.id });
    });
    const status = (w: string, state: 'sent' | 'delivered' | 'read' | 'played' | 'failed', extra: Partial<Envelope> = {}) =>
      envelope({ companyId: A.companyId, connectionId: A.conn.id, kind: 'status', direction: 'out', externalId: w, status: { state }, content: undefined, ...extra });
    const rowOf = async (w: string) => (await messagesOf(A.companyId, w))[0];

    test('status envelopes move the ack forward only and push updates', async () => {
      const w = wid();
      await insertMessage(k, A.companyId, { ticketId: ticket.id, wid: w, fromMe: true, read: true, ack: 1 });
      const sa = await connect(A.admin);
      const upd = eventOn(sa, A.companyId, 'appMessage', (p) => p.action === 'update' && p.message?.wid === w && p.message.ack === 3);
      await publish(status(w, 'delivered'));
      await waitFor(async () => (await rowOf(w)).ack === 2);
      await publish(status(w, 'read'));
      await waitFor(async () => (await rowOf(w)).ack === 3);
      await upd;
      await publish(status(w, 'delivered'));
      await publish(status(w, 'sent'));
      await settle(A);
      expect((await rowOf(w)).ack).toBe(3);
      await publish(status(w, 'played'));
      await waitFor(async () => (await rowOf(w)).ack === 4);
    });

    test('a status arriving before the message.sent result is retried, then applied', async () => {
      const res = await k.as(A.admin, 'POST', `/messages/${ticket.id}`, { body: 'Pedido enviado', fromMe: true, read: 1, mediaUrl: '', quotedMsg: null, isPrivate: false });
      expect(res.statusCode).toBe(200);
      const messageId = res.json().id as number;
      const w = wid();
      await publish(status(w, 'delivered'));
      await new Promise((r) => setTimeout(r, 250));
      await k.bus.publish('message.sent', { companyId: A.companyId, messageId, wid: w });
      await waitFor(async () => (await k.db('messages').where({ id: messageId }).first()).ack === 2, 5000);
      expect(await k.db('messages').where({ id: messageId }).first()).toMatchObject({ wid: w, ack: 2, sendError: null });
    });

    test('a failed status marks send_error on our message; a status for a message never stored is dropped after its retries', async () => {
      const w = wid();
      await insertMessage(k, A.companyId, { ticketId: ticket.id, wid: w, fromMe: true, read: true, ack: 1 });
      await publish(status(w, 'failed', { status: { state: 'failed', error: { code: '131047', title: 'Re-engagement message', retryable: false } } }));
      await waitFor(async () => (await rowOf(w)).sendError === 'ERR_SENDING_WAPP_MSG');
      const ghost = status(wid(), 'read');
      await publish(ghost);
      await new Promise((r) => setTimeout(r, 1200));
      expect(await k.bus.deadLetters(QUEUE)).not.toContainEqual(expect.objectContaining({ id: ghost.idempotencyKey }));
    });

    test('reactions are added, replaced and removed (empty emoji)', async () => {
      const w = wid();
      await insertMessage(k, A.companyId, { ticketId: ticket.id, wid: w, fromMe: true, ack: 2 });
      const react = (emoji: string) => envelope({ companyId: A.companyId, connectionId: A.conn.id, kind: 'reaction', externalId: w, reaction: { emoji }, content: undefined, thread: { externalId: '5511999990000', isGroup: false }, sender: { externalId: '5511999990000' } });
      await publish(react('👍'));
      await waitFor(async () => (await rowOf(w)).reactions.length === 1);
      expect((await rowOf(w)).reactions).toEqual([expect.objectContaining({ emoji: '👍', fromMe: false, senderId: '5511999990000' })]);
      await publish(react('❤️'));
      await waitFor(async () => (await rowOf(w)).reactions[0]?.emoji === '❤️');
      await publish(react(''));
      await waitFor(async () => (await rowOf(w)).reactions.length === 0);
    });

    test('edits set the body and isEdited; deletes mark isDeleted and keep the body', async () => {
      const w = wid();
      await insertMessage(k, A.companyId, { ticketId: ticket.id, wid: w, body: 'Antes', fromMe: false });
      const sa = await connect(A.admin);
      const upd = eventOn(sa, A.companyId, 'appMessage', (p) => p.action === 'update' && p.message?.wid === w && p.message.isEdited);
      await publish(envelope({ companyId: A.companyId, connectionId: A.conn.id, kind: 'edit', externalId: w, edit: { text: 'Depois' }, content: undefined }));
      await waitFor(async () => (await rowOf(w)).isEdited);
      expect(await rowOf(w)).toMatchObject({ body: 'Depois', isEdited: true, isDeleted: false });
      expect((await upd).message.body).toBe('Depois');
      await publish(envelope({ companyId: A.companyId, connectionId: A.conn.id, kind: 'delete', externalId: w, content: undefined }));
      await waitFor(async () => (await rowOf(w)).isDeleted);
      expect(await rowOf(w)).toMatchObject({ body: 'Depois', isDeleted: true });
    });

    test('a reaction for an unknown message is dropped after one retry (not dead-lettered)', async () => {
      const e = envelope({ companyId: A.companyId, connectionId: A.conn.id, kind: 'reaction', externalId: wid(), reaction: { emoji: '👍' }, content: undefined });
      await publish(e);
      await new Promise((r) => setTimeout(r, 700));
      expect((await k.bus.deadLetters(QUEUE)).map((m) => m.id)).not.toContain(e.idempotencyKey);
    });

    test('the echo of our own send (direction out, wid already set by message.sent) is not stored again', async () => {
      const res = await k.as(A.admin, 'POST', `/messages/${ticket.id}`, { body: 'Eco', fromMe: true, read: 1, mediaUrl: '', quotedMsg: null, isPrivate: false });
      const messageId = res.json().id as number;
      const w = wid();
      await k.bus.publish('message.sent', { companyId: A.companyId, messageId, wid: w });
      await waitFor(async () => (await k.db('messages').where({ id: messageId }).first()).wid === w);
      const contact = await k.db('contacts').where({ id: ticket.contactId }).first();
      await publish(envelope({ companyId: A.companyId, connectionId: A.conn.id, direction: 'out', externalId: w, thread: { externalId: contact.number, isGroup: false }, sender: undefined, content: { type: 'text', text: 'Eco' } }));
      await settle(A);
      expect(await messagesOf(A.companyId, w)).toHaveLength(1);
      expect(Number((await k.db('messages').where({ ticketId: ticket.id, body: 'Eco' }).count({ n: '*' }).first())!.n)).toBe(1);
    });

    test('the echo racing its own message.sent: retried, then matched (one message)', async () => {
      const res = await k.as(A.admin, 'POST', `/messages/${ticket.id}`, { body: 'Corrida', fromMe: true, read: 1, mediaUrl: '', quotedMsg: null, isPrivate: false });
      const messageId = res.json().id as number;
      const w = wid();
      const contact = await k.db('contacts').where({ id: ticket.contactId }).first();
      await publish(envelope({ companyId: A.companyId, connectionId: A.conn.id, direction: 'out', externalId: w, thread: { externalId: contact.number, isGroup: false }, sender: undefined, content: { type: 'text', text: 'Corrida' } }));
      await new Promise((r) => setTimeout(r, 250));
      await k.bus.publish('message.sent', { companyId: A.companyId, messageId, wid: w });
      await new Promise((r) => setTimeout(r, 1200));
      expect(await messagesOf(A.companyId, w)).toHaveLength(1);
      expect(Number((await messagesOf(A.companyId, w))[0].id)).toBe(messageId);
    });

    test('an echo from another device (unknown wid) is stored as fromMe after its retries, ack 1, read', async () => {
      const contact = await k.db('contacts').where({ id: ticket.contactId }).first();
      const w = wid();
      const t0 = Date.now();
      await publish(envelope({ companyId: A.companyId, connectionId: A.conn.id, direction: 'out', externalId: w, thread: { externalId: contact.number, isGroup: false }, sender: undefined, content: { type: 'text', text: 'Do celular' } }));
      const m = await stored(A.companyId, w);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(550);
      expect(m).toMatchObject({ ticketId: ticket.id, fromMe: true, read: true, ack: 1, contactId: null, body: 'Do celular' });
      const t = (await k.db('tickets').where({ id: ticket.id }).first()) as TicketRow;
      expect(t).toMatchObject({ lastMessage: 'Do celular', fromMe: true, status: 'open' });
    });
  });

  test('typing: a presence event for the contact\'s active ticket', async () => {
    const e = envelope({ companyId: A.companyId, connectionId: A.conn.id });
    await publish(e);
    const m = await stored(A.companyId, e.externalId);
    const sa = await connect(A.admin);
    const sb = await connect(B.admin);
    const got = nextEvent<Record<string, unknown>>(sa, `company-${A.companyId}-presence`, 5000);
    const leak = eventsMatching(sb, `company-${A.companyId}-presence`, () => true, 1000);
    await publish(envelope({ companyId: A.companyId, connectionId: A.conn.id, kind: 'typing', externalId: e.thread.externalId, thread: e.thread, typing: { state: 'composing' }, content: undefined }));
    expect(await got).toEqual({ action: 'update-presence', ticketId: m.ticketId, presence: 'composing' });
    expect(await leak).toEqual([]);
  });

  test('connection envelopes update the connection status', async () => {
    const conn = await createConnection(k, A.companyId, { status: 'DISCONNECTED' });
    const connEnv = (status: string, qrcode?: string) =>
      envelope({ companyId: A.companyId, connectionId: conn.id, kind: 'connection', externalId: String(conn.id), thread: { externalId: String(conn.id), isGroup: false }, connection: { status, ...(qrcode ? { qrcode } : {}) }, content: undefined });
    await publish(connEnv('qrcode', 'QR-TEXT'));
    await waitFor(async () => (await k.db('whatsapps').where({ id: conn.id }).first()).status === 'qrcode');
    expect((await k.db('whatsapps').where({ id: conn.id }).first()).qrcode).toBe('QR-TEXT');
    await publish(connEnv('CONNECTED'));
    await waitFor(async () => (await k.db('whatsapps').where({ id: conn.id }).first()).status === 'CONNECTED');
    expect((await k.db('whatsapps').where({ id: conn.id }).first()).qrcode).toBe('');
    await publish(connEnv('account_error'));
    // A report older than the one applied last (envelopes run concurrently) does not win.
    await publish({ ...connEnv('qrcode', 'OLD-QR'), occurredAt: new Date(Date.now() - 60_000).toISOString() });
    await settle(A);
    expect(await k.db('whatsapps').where({ id: conn.id }).first()).toMatchObject({ status: 'CONNECTED', qrcode: '' });
  });

  test('invalid envelopes and envelopes naming another company\'s connection are dead-lettered; the consumer keeps working', async () => {
    const bad = { schemaVersion: 1, idempotencyKey: `bad:${seq++}`, kind: 'message', channel: 'whatsapp', companyId: 'one' };
    await publish(bad);
    const cross = envelope({ companyId: B.companyId, connectionId: A.conn.id });
    await publish(cross);
    const wrongChannel = envelope({ companyId: A.companyId, connectionId: A.conn.id, channel: 'facebook' });
    await publish(wrongChannel);
    await waitFor(async () => {
      const ids = (await k.bus.deadLetters(QUEUE)).map((m) => m.id);
      return [bad.idempotencyKey, cross.idempotencyKey, wrongChannel.idempotencyKey].every((id) => ids.includes(id));
    }, 5000);
    expect(await messagesOf(B.companyId, cross.externalId)).toEqual([]);
    expect(await messagesOf(A.companyId, cross.externalId)).toEqual([]);
    const good = envelope({ companyId: A.companyId, connectionId: A.conn.id });
    await publish(good);
    await stored(A.companyId, good.externalId);
  });

  test('lgpdHideNumber masks contact numbers in the socket payloads', async () => {
    const T = await createTenant(k);
    await setCompanySetting(k, T.companyId, 'lgpdHideNumber', 'enabled');
    const s = await connect(T.admin);
    const e = envelope({ companyId: T.companyId, connectionId: T.conn.id, thread: { externalId: '5511987654321', isGroup: false } });
    const got = eventOn(s, T.companyId, 'appMessage', (p) => p.message?.wid === e.externalId);
    await publish(e);
    expect((await got).ticket.contact.number).toBe('55119******21');
  });
  describe('one contact per person (issue 33 item 5)', () => {
    /** A unique Brazilian mobile (13 digits, with the 9th digit) and its 12-digit WhatsApp id. */
    const mobile = () => {
      const local = `8${String(Date.now() % 1e4).padStart(4, '0')}${String(seq++ % 1000).padStart(3, '0')}`;
      return { with9: `55119${local}`, without9: `5511${local}` };
    };
    const lidOf = () => `${1048576 + (seq++ % 1000)}${String(Date.now() % 1e8).padStart(8, '0')}`;
    const contactsOf = (companyId: number) => k.db('contacts').where({ companyId }).orderBy('id');
    /** A 1:1 envelope from `sender` as the Baileys adapter builds it (thread: the phone digits when known, else the LID's). */
    const from = (T: Tenant, sender: { phone?: string; lid?: string }, o: Partial<Envelope> = {}) => {
      const lidUser = sender.lid?.split('@')[0];
      const id = sender.phone ?? lidUser!;
      return envelope({
        companyId: T.companyId,
        connectionId: T.conn.id,
        thread: { externalId: id, isGroup: false },
        sender: { externalId: id, name: 'Pessoa Única', ...(sender.phone ? { phone: sender.phone, jid: `${sender.phone}@s.whatsapp.net` } : {}), ...(sender.lid ? { lid: sender.lid } : {}) },
        ...o,
      });
    };

    test('the measured defect: a contact saved with the 9th digit writes from its 12-digit WhatsApp id (Baileys and Cloud API): one contact, one ticket', async () => {
      const T = A;
      const cloud = await createConnection(k, T.companyId, { channel: 'whatsappapi' });
      const n = mobile();
      // Saved by an attendant as 11 9XXXX-XXXX (libphonenumber-js normalises it to 55119XXXXXXXX).
      const saved = await k.as(T.admin, 'POST', '/contacts', { name: 'Cliente Nove', number: `(11) 9${n.without9.slice(4, 8)}-${n.without9.slice(8)}` });
      expect(saved.statusCode).toBe(200);
      expect(saved.json().number).toBe(n.with9);
      const before = (await contactsOf(T.companyId)).length;

      const e1 = from(T, { phone: n.without9 });
      await publish(e1);
      const m1 = await stored(T.companyId, e1.externalId);
      expect(m1.contactId).toBe(saved.json().id);
      // The WhatsApp id it wrote from is kept: replies go to the JID that exists.
      expect(await k.db('contacts').where({ id: saved.json().id }).first()).toMatchObject({ number: n.with9, remoteJid: `${n.without9}@s.whatsapp.net` });
      const e2 = from(T, { phone: n.without9 });
      await publish(e2);
      const m2 = await stored(T.companyId, e2.externalId);
      expect(m2.ticketId).toBe(m1.ticketId);

      // The same person on a WhatsApp Cloud number (wa_id without the 9): the same contact, its ticket on that connection.
      const e3 = envelope({ companyId: T.companyId, connectionId: cloud.id, channel: 'whatsappapi', thread: { externalId: n.without9, isGroup: false }, sender: { externalId: n.without9, name: 'Cliente Nove', phone: n.without9 } });
      await publish(e3);
      const m3 = await stored(T.companyId, e3.externalId);
      expect(m3.contactId).toBe(saved.json().id);
      expect((await contactsOf(T.companyId)).length).toBe(before);
      const tickets = await ticketsOf(T.companyId, saved.json().id);
      expect(tickets.map((t) => t.whatsappId).sort()).toEqual([T.conn.id, cloud.id].sort());

      // The other way round: a contact first seen with 12 digits, later with 13, is one contact too; typing either spelling finds it.
      const o = mobile();
      const f1 = from(T, { phone: o.without9 });
      await publish(f1);
      const first = await stored(T.companyId, f1.externalId);
      const f2 = from(T, { phone: o.with9 });
      await publish(f2);
      expect((await stored(T.companyId, f2.externalId)).ticketId).toBe(first.ticketId);
      const dup = await k.as(T.admin, 'POST', '/contacts', { name: 'Outra Pessoa', number: o.with9 });
      expect(dup.statusCode).toBe(409);
      expect(dup.json().error).toBe('ERR_DUPLICATED_CONTACT');
      const profile = await k.as(T.admin, 'GET', `/contacts/profile/${o.with9}`);
      expect(profile.json().contactId).toBe(first.contactId);
    });

    test("WhatsApp LIDs (Baileys 7): a LID-only message finds the contact that has the LID; a contact first known by its LID takes the phone number later", async () => {
      const T = A;
      const n = mobile();
      const lid = `${lidOf()}@lid`;
      // Phone number and LID together (remoteJidAlt): the contact stores both.
      const a1 = from(T, { phone: n.with9, lid });
      await publish(a1);
      const m1 = await stored(T.companyId, a1.externalId);
      expect(await k.db('contacts').where({ id: m1.contactId }).first()).toMatchObject({ number: n.with9, lid });
      // Only the LID: the same contact and ticket.
      const a2 = from(T, { lid });
      await publish(a2);
      const m2 = await stored(T.companyId, a2.externalId);
      expect([m2.contactId, m2.ticketId]).toEqual([m1.contactId, m1.ticketId]);
      // A thread known only by the LID's digits and no LID (our own message sent from the phone): the same contact.
      expect((await k.services.get(contactsService).findOrCreate(T.companyId, { number: lid.split('@')[0], channel: 'whatsapp' })).id).toBe(m1.contactId);

      // First seen by its LID only: a contact named by the LID's digits ...
      const p = mobile();
      const lid2 = `${lidOf()}@lid`;
      const b1 = from(T, { lid: lid2 });
      await publish(b1);
      const first = await stored(T.companyId, b1.externalId);
      expect(await k.db('contacts').where({ id: first.contactId }).first()).toMatchObject({ number: lid2.split('@')[0], lid: lid2 });
      // ... takes its phone number when a message brings both, keeping its ticket; then its 12-digit twin finds it too.
      const b2 = from(T, { phone: p.with9, lid: lid2 });
      await publish(b2);
      expect((await stored(T.companyId, b2.externalId)).ticketId).toBe(first.ticketId);
      expect(await k.db('contacts').where({ id: first.contactId }).first()).toMatchObject({ number: p.with9, lid: lid2, remoteJid: `${p.with9}@s.whatsapp.net` });
      const b3 = from(T, { phone: p.without9 });
      await publish(b3);
      expect((await stored(T.companyId, b3.externalId)).ticketId).toBe(first.ticketId);
      expect((await contactsOf(T.companyId)).filter((c: { number: string }) => [p.with9, p.without9, lid2.split('@')[0]].includes(c.number))).toHaveLength(1);
    });

    test('a new person writing from both spellings at once gets one contact (the creation is locked on the number)', async () => {
      const T = A;
      const n = mobile();
      const burst = [n.with9, n.without9, n.with9, n.without9].map((phone) => from(T, { phone }));
      await Promise.all(burst.map((e) => publish(e)));
      const rows = await Promise.all(burst.map((e) => stored(T.companyId, e.externalId)));
      expect(new Set(rows.map((m) => m.contactId)).size).toBe(1);
      expect(new Set(rows.map((m) => m.ticketId)).size).toBe(1);
      expect((await contactsOf(T.companyId)).filter((c: { number: string }) => c.number === n.with9 || c.number === n.without9)).toHaveLength(1);
    });

    test('merging two existing duplicates: listed, previewed, then merged in one audited transaction (tickets, messages, tags moved; one conversation); tenant-scoped', async () => {
      const T = A;
      const n = mobile();
      const tag = await createTag(k, T.companyId);
      const tag2 = await createTag(k, T.companyId);
      // The duplicates as they were made before: one contact per spelling, each with a pending ticket on the same connection.
      const [keep] = await k.db('contacts').insert({ companyId: T.companyId, name: 'Ana Souza', number: n.with9, channel: 'whatsapp', email: '' }).returning('*');
      const [dup] = await k.db('contacts').insert({ companyId: T.companyId, name: 'Ana', number: n.without9, channel: 'whatsapp', email: 'ana@example.com', remoteJid: `${n.without9}@s.whatsapp.net` }).returning('*');
      // And her office line, saved as another contact (merged by hand: no rule could tell).
      const office = `551133${String(Date.now() % 1e6).padStart(6, '0')}`;
      const [other] = await k.db('contacts').insert({ companyId: T.companyId, name: 'Ana (escritório)', number: office, channel: 'whatsapp', email: '' }).returning('*');
      await k.db('contactTags').insert([{ contactId: keep.id, tagId: tag.id, companyId: T.companyId }, { contactId: dup.id, tagId: tag.id, companyId: T.companyId }, { contactId: dup.id, tagId: tag2.id, companyId: T.companyId }]);
      const t1 = await insertTicket(k, T.companyId, { contactId: keep.id, whatsappId: T.conn.id, status: 'open', userId: T.userA.id, queueId: T.queueA.id, unreadMessages: 1 });
      const t2 = await insertTicket(k, T.companyId, { contactId: dup.id, whatsappId: T.conn.id, status: 'pending', unreadMessages: 2 });
      const closed = await insertTicket(k, T.companyId, { contactId: dup.id, whatsappId: T.conn2.id, status: 'closed' });
      await insertMessage(k, T.companyId, { ticketId: t1.id, contactId: keep.id, body: 'primeira' });
      for (const body of ['oi', 'alguém aí?']) await insertMessage(k, T.companyId, { ticketId: t2.id, contactId: dup.id, body });
      await insertMessage(k, T.companyId, { ticketId: closed.id, contactId: dup.id, body: 'antiga' });
      await k.db('ticketTags').insert({ ticketId: t2.id, tagId: tag2.id, companyId: T.companyId });

      // Listed as duplicates, for this company only.
      const list = await k.as(T.admin, 'GET', '/contacts/duplicates');
      expect(list.statusCode).toBe(200);
      const group = list.json().groups.find((g: { contacts: { id: number }[] }) => g.contacts.some((c) => c.id === keep.id));
      expect(group).toMatchObject({ reasons: ['ninthDigit'], contacts: [{ id: keep.id }, { id: dup.id }] });
      expect(JSON.stringify((await k.as(B.admin, 'GET', '/contacts/duplicates')).json())).not.toContain(n.without9);
      expect((await k.as(T.userA, 'GET', '/contacts/duplicates')).statusCode).toBe(403);

      // Company B can neither preview nor merge A's contacts; nothing changes.
      const body = { targetId: keep.id, sourceIds: [dup.id, other.id] };
      expect((await k.as(B.admin, 'POST', '/contacts/merge/preview', body)).statusCode).toBe(404);
      expect((await k.as(B.admin, 'POST', '/contacts/merge', { ...body, previewToken: 'x' })).statusCode).toBe(404);
      expect((await k.as(T.userA, 'POST', '/contacts/merge/preview', body)).statusCode).toBe(403);
      // Nor can A fold B's contact into one of its own.
      expect((await k.as(T.admin, 'POST', '/contacts/merge/preview', { targetId: keep.id, sourceIds: [B.contact.id] })).statusCode).toBe(404);
      expect(await k.db('contacts').where({ id: B.contact.id }).first()).toBeTruthy();
      expect((await k.as(T.admin, 'POST', '/contacts/merge/preview', { targetId: keep.id, sourceIds: [keep.id] })).statusCode).toBe(400);

      // The preview changes nothing and says what will move.
      const preview = await k.as(T.admin, 'POST', '/contacts/merge/preview', body);
      expect(preview.statusCode).toBe(200);
      expect(preview.json()).toMatchObject({
        target: { id: keep.id, number: n.with9 },
        sources: [{ id: dup.id }, { id: other.id }],
        result: { id: keep.id, name: 'Ana Souza', number: n.with9, email: 'ana@example.com', remoteJid: `${n.without9}@s.whatsapp.net` },
        counts: { tickets: 2, ticketsJoined: 1, messages: 3, tags: 1, aliases: 2, ticketNotes: 0 },
      });
      expect(await k.db('contacts').where({ id: dup.id }).first()).toBeTruthy();
      // A merge without the preview of the contacts as they are now is refused (the contact changed since).
      expect((await k.as(T.admin, 'POST', '/contacts/merge', { ...body, previewToken: 'not-the-preview' })).statusCode).toBe(409);

      const s = await connect(T.admin);
      const gone = eventOn(s, T.companyId, 'contact', (p) => p.action === 'delete' && Number(p.contactId) === dup.id);
      const ticketGone = eventOn(s, T.companyId, 'ticket', (p) => p.action === 'delete' && p.ticketId === t2.id);
      const merged = await k.as(T.admin, 'POST', '/contacts/merge', { ...body, previewToken: preview.json().previewToken });
      expect(merged.statusCode).toBe(200);
      expect(merged.json().counts).toMatchObject({ tickets: 2, ticketsJoined: 1, messages: 3, tags: 1, aliases: 2 });
      expect(merged.json().contact).toMatchObject({ id: keep.id, email: 'ana@example.com' });
      expect(merged.json().contact.tags.map((x: { id: number }) => x.id).sort()).toEqual([tag.id, tag2.id].sort());
      await gone;
      await ticketGone;

      // One conversation: the attendant's ticket holds every message; the closed ticket moved; the duplicate is gone.
      expect(await k.db('contacts').where({ id: dup.id }).first()).toBeUndefined();
      expect(await k.db('tickets').where({ id: t2.id }).first()).toBeUndefined();
      expect(await k.db('tickets').where({ id: t1.id }).first()).toMatchObject({ contactId: keep.id, status: 'open', userId: T.userA.id, unreadMessages: 3 });
      expect(await k.db('tickets').where({ id: closed.id }).first()).toMatchObject({ contactId: keep.id });
      expect((await k.db('messages').where({ ticketId: t1.id }).orderBy('id')).map((m: MessageRow) => [m.body, m.contactId])).toEqual([['primeira', keep.id], ['oi', keep.id], ['alguém aí?', keep.id]]);
      expect(await k.db('messages').where({ companyId: T.companyId, contactId: dup.id })).toEqual([]);
      expect((await k.db('ticketTags').where({ ticketId: t1.id })).map((x: { tagId: number }) => x.tagId)).toEqual([tag2.id]);
      // Audited: who merged what into what (ids and counts, no personal data).
      const audit = await k.db('auditLogs').where({ companyId: T.companyId, entity: 'contact', action: 'merge' }).orderBy('id');
      expect(audit.map((a: { entityId: string; userId: number }) => [a.entityId, a.userId])).toEqual([[String(keep.id), T.admin.id], [String(dup.id), T.admin.id], [String(other.id), T.admin.id]]);
      expect(audit[1].after).toEqual({ mergedIntoId: keep.id });
      expect(audit[0].after).toMatchObject({ mergedIds: [dup.id, other.id], tickets: 2, messages: 3 });

      // The merged number stays the person's: a later message from it lands on the contact kept, in its ticket.
      const later = from(T, { phone: n.without9 });
      await publish(later);
      expect(await stored(T.companyId, later.externalId)).toMatchObject({ contactId: keep.id, ticketId: t1.id });
      // So does the office line merged by hand (kept as an alias of the contact).
      const fromOffice = from(T, { phone: office });
      await publish(fromOffice);
      expect(await stored(T.companyId, fromOffice.externalId)).toMatchObject({ contactId: keep.id, ticketId: t1.id });
      expect(await k.db('contacts').where({ companyId: T.companyId }).whereIn('number', [n.without9, office])).toEqual([]);
      expect((await k.as(T.admin, 'GET', '/contacts/duplicates')).json().groups.some((g: { contacts: { id: number }[] }) => g.contacts.some((c) => c.id === keep.id))).toBe(false);
    });
  });
});
