import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Socket } from 'socket.io-client';
import type { BusMessage } from '@atendo/sdk';
import { nextEvent, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import { UploadStore } from '@atendo/core/src/uploads';
import type { MessageRow, TicketRow } from '../src/model';
import { buildDeps, type TicketsDeps } from '../src/services/deps';
import { applyEdit, applyReaction, applyRemoteDelete, applyStatus, createOutboundMessage, RESULTS_QUEUE } from '../src/services/messages';
import { createAgent, createConnection, createContact, createTag, createTenant, insertMessage, insertTicket, logTypes, setCompanySetting, ticketsKernel, type Tenant } from './helpers';

/** A 1x1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');
/** An ELF executable header (not an allowed message media type). */
const ELF = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(120)]);

type Part = string | { name: string; type: string; data: Buffer };

/** A multipart body built by the platform's own FormData (undici), as a browser would send it. */
async function multipart(fields: [string, Part][]): Promise<{ payload: Buffer; headers: Record<string, string> }> {
  const fd = new FormData();
  for (const [key, v] of fields) {
    if (typeof v === 'string') fd.append(key, v);
    else fd.append(key, new Blob([new Uint8Array(v.data)], { type: v.type }), v.name);
  }
  const res = new Response(fd);
  return { payload: Buffer.from(await res.arrayBuffer()), headers: { 'content-type': res.headers.get('content-type')! } };
}

/** Records every event a socket receives (any name), for exact negative assertions after a sentinel. */
function recorder(socket: Socket): { name: string; payload: Record<string, unknown> }[] {
  const events: { name: string; payload: Record<string, unknown> }[] = [];
  socket.onAny((name: string, payload: Record<string, unknown>) => {
    if (!name.startsWith('sentinel-')) events.push({ name, payload });
  });
  return events;
}

let sentinelSeq = 0;

describe('tickets: messages', () => {
  let k: TestKernel;
  let A: Tenant;
  let B: Tenant;
  let deps: TicketsDeps;
  const bus: BusMessage<Record<string, unknown>>[] = [];
  const open: Socket[] = [];

  const row = (id: number) => k.db('messages').where({ id }).first() as Promise<MessageRow | undefined>;
  const ticketRow = (id: number) => k.db('tickets').where({ id }).first() as Promise<TicketRow>;
  const published = (topic: string, pred: (p: Record<string, unknown>) => boolean = () => true) => bus.filter((m) => (m.topic === topic || m.topic.startsWith(`${topic}.`)) && pred(m.payload)).map((m) => m.payload);
  const waitPublished = async (topic: string, pred: (p: Record<string, unknown>) => boolean): Promise<Record<string, unknown>[]> => {
    await waitFor(() => published(topic, pred).length > 0);
    return published(topic, pred);
  };
  const connect = async (u: { token: string }) => {
    const s = await k.socket(u.token, await k.listen());
    open.push(s);
    return s;
  };
  /** Emits a global sentinel and waits until every socket got it: every earlier emit has arrived by then. */
  const flush = async (sockets: Socket[]) => {
    const name = `sentinel-${sentinelSeq++}`;
    const got = sockets.map((s) => nextEvent(s, name, 3000));
    k.realtime.emitGlobal(name, {});
    await Promise.all(got);
  };
  /** The first `company-{A}-appMessage` payload on `s` with `action` (and matching `pred`), or a rejection after 3 s. */
  const appEvent = (s: Socket, action: string, pred: (m: Record<string, any>) => boolean = () => true): Promise<Record<string, any>> =>
    new Promise((resolve, reject) => {
      const name = `company-${A.companyId}-appMessage`;
      const t = setTimeout(() => {
        s.off(name, on);
        reject(new Error(`no appMessage ${action} within 3 s`));
      }, 3000);
      const on = (p: Record<string, any>) => {
        if (p.action !== action || !pred(p.message ?? {})) return;
        clearTimeout(t);
        s.off(name, on);
        resolve(p);
      };
      s.on(name, on);
    });
  /** A fresh contact of `T` with a ticket (default: open, assigned to userA, queue A, default connection). */
  const conversation = async (T: Tenant, o: Partial<Parameters<typeof insertTicket>[2]> = {}) => {
    const contact = await createContact(k, T.companyId, { name: 'Maria Souza' });
    const ticket = await insertTicket(k, T.companyId, { contactId: contact.id, whatsappId: T.conn.id, queueId: T.queueA.id, userId: T.userA.id, status: 'open', ...o });
    return { contact, ticket };
  };
  const send = (u: { token: string }, ticketId: number | string, body: unknown) => k.as(u, 'POST', `/messages/${ticketId}`, body);

  beforeAll(async () => {
    k = await ticketsKernel();
    A = await createTenant(k);
    B = await createTenant(k);
    for (const T of [A, B]) await setCompanySetting(k, T.companyId, 'sendSignMessage', 'disabled');
    await k.bus.subscribe<Record<string, unknown>>(['message.*', 'message.send.*', 'message.edit.*', 'message.delete.*', 'ticket.*'], (m) => {
      bus.push(m);
    }, { queue: 'tickets-messages-test' });
    const uploads = new UploadStore({ dir: k.config.uploadsDir, publicUrl: k.config.BACKEND_URL, secret: k.config.jwtSecret, maxBytes: k.config.UPLOAD_LIMIT });
    deps = buildDeps({ db: k.db, bus: k.bus, realtime: k.realtime, identity: k.identity, uploads, log: k.app.log, services: k.services });
  });
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });
  afterAll(() => k.close());

  describe('POST /messages/:ticketId (JSON)', () => {
    test('a text is stored pending (ack 0), published as message.send, then message.sent sets ack 1 + wid and pushes an update', async () => {
      const { contact, ticket } = await conversation(A);
      const s = await connect(A.userA);
      const created = appEvent(s, 'create');
      const res = await send(A.userA, ticket.id, { read: 1, fromMe: true, mediaUrl: '', body: '  Bom dia!  ', quotedMsg: null, isPrivate: false });
      expect(res.statusCode).toBe(200);
      const m = res.json();
      expect(m).toMatchObject({ ticketId: ticket.id, companyId: A.companyId, body: 'Bom dia!', fromMe: true, ack: 0, read: true, wid: null, mediaType: 'conversation', mediaUrl: null, isPrivate: false, isForwarded: false, userId: A.userA.id, queueId: A.queueA.id, contactId: null, contact: null, quotedMsg: null, sendError: null, reactions: [] });
      expect(m.ticket).toEqual({ id: ticket.id, queueId: A.queueA.id, queue: { id: A.queueA.id, name: A.queueA.name, color: A.queueA.color } });
      expect(m).not.toHaveProperty('mediaPath');

      const ev = await created;
      expect(ev.action).toBe('create');
      expect(ev.message).toMatchObject({ id: m.id, body: 'Bom dia!', ack: 0 });
      expect(ev.ticket).toMatchObject({ id: ticket.id, lastMessage: 'Bom dia!', fromMe: true });
      expect(ev.contact).toMatchObject({ id: contact.id, name: 'Maria Souza' });
      const t = await ticketRow(ticket.id);
      expect(t.lastMessage).toBe('Bom dia!');
      expect(t.fromMe).toBe(true);
      expect(t.updatedAt.getTime()).toBeGreaterThan(ticket.updatedAt.getTime());

      const [cmd] = await waitPublished('message.send', (p) => p.messageId === m.id);
      expect(cmd).toEqual({
        companyId: A.companyId,
        messageId: m.id,
        ticketId: ticket.id,
        connectionId: A.conn.id,
        channel: 'whatsapp',
        to: contact.number,
        isGroup: false,
        remoteJid: null,
        lid: null,
        body: 'Bom dia!',
        mediaType: 'conversation',
        isForwarded: false,
      });

      const update = appEvent(s, 'update', (x) => x.ack === 1);
      await k.bus.publish('message.sent', { companyId: A.companyId, messageId: m.id, wid: 'WAMID.SENT1' });
      const up = await update;
      expect(up).toMatchObject({ action: 'update', message: { id: m.id, ack: 1, wid: 'WAMID.SENT1', sendError: null } });
      expect(await row(m.id)).toMatchObject({ ack: 1, wid: 'WAMID.SENT1' });

      // Redelivered result: nothing changes and nothing is pushed.
      const events = recorder(s);
      await k.bus.publish('message.sent', { companyId: A.companyId, messageId: m.id, wid: 'WAMID.SENT1' });
      await k.bus.publish('message.status', { companyId: A.companyId, wid: 'WAMID.SENT1', ack: 3 });
      await waitFor(() => events.length >= 1);
      await flush([s]);
      expect(events.map((e) => (e.payload.message as { ack: number }).ack)).toEqual([3]);
    });

    test("the pushes show the ticket's and the contact's tags as GET /tickets/:id does, read with the message's writes (no tag reads of their own)", async () => {
      const { contact, ticket } = await conversation(A);
      const [red, blue] = [await createTag(k, A.companyId, { name: 'Vermelha msg' }), await createTag(k, A.companyId, { name: 'Azul msg' })];
      const foreign = await createTag(k, B.companyId, { name: 'Outra msg' });
      await k.db('ticketTags').insert([{ ticketId: ticket.id, tagId: red.id, companyId: A.companyId }, { ticketId: ticket.id, tagId: foreign.id, companyId: B.companyId }]);
      await k.db('contactTags').insert({ contactId: contact.id, tagId: blue.id, companyId: A.companyId });
      const s = await connect(A.userA);
      const created = appEvent(s, 'create', (m) => m.body === 'Com etiquetas');
      const sqls: string[] = [];
      const count = (q: { sql: string }) => sqls.push(q.sql);
      k.db.on('query', count);
      let ev: Record<string, any>;
      try {
        expect((await send(A.userA, ticket.id, { body: 'Com etiquetas' })).statusCode).toBe(200);
        ev = await created;
      } finally {
        k.db.off('query', count);
      }
      const shown = (await k.as(A.admin, 'GET', `/tickets/${ticket.id}`)).json();
      expect(ev.ticket.tags).toEqual([{ id: red.id, name: red.name, color: red.color }]);
      expect(ev.ticket.tags).toEqual(shown.tags);
      expect(ev.contact.tags.map((t: { id: number }) => t.id)).toEqual([blue.id]);
      expect(ev.contact.tags).toEqual(shown.contact.tags);
      // Tag links ride on the ticket's update and the contact's read.
      expect(sqls.filter((q) => /^select .* from "(ticket_tags|contact_tags)"/i.test(q))).toEqual([]);
    });

    test('message.failed marks send_error ERR_SENDING_WAPP_MSG (ack stays 0) and pushes an update; results of another company are ignored', async () => {
      const { ticket } = await conversation(A);
      const s = await connect(A.userA);
      const m = (await send(A.userA, ticket.id, { body: 'vai falhar' })).json();
      await waitPublished('message.send', (p) => p.messageId === m.id);
      // Another company's result for this id changes nothing.
      await k.bus.publish('message.sent', { companyId: B.companyId, messageId: m.id, wid: 'WAMID.FOREIGN' });
      await k.bus.publish('message.failed', { companyId: B.companyId, messageId: m.id, error: 'x' });
      const update = appEvent(s, 'update', (x) => x.id === m.id && x.sendError !== null);
      await k.bus.publish('message.failed', { companyId: A.companyId, messageId: m.id, error: 'provider said 131026: undeliverable' });
      expect(await update).toMatchObject({ action: 'update', message: { id: m.id, ack: 0, sendError: 'ERR_SENDING_WAPP_MSG', wid: null } });
      expect(await row(m.id)).toMatchObject({ ack: 0, sendError: 'ERR_SENDING_WAPP_MSG', wid: null });
    });

    test('malformed results are dead-lettered, never retried forever', async () => {
      await k.bus.publish('message.sent', { companyId: 'x', messageId: -1 });
      await k.bus.publish('message.status', { companyId: A.companyId, wid: 'W', ack: 9 });
      await waitFor(async () => (await k.bus.deadLetters(RESULTS_QUEUE)).length >= 2);
      const dlq = await k.bus.deadLetters(RESULTS_QUEUE);
      expect(dlq.map((d) => d.topic).sort()).toEqual(['message.sent', 'message.status']);
    });

    test('a private note: wid PVT…, ack 2, pushed to the ticket audiences, never published', async () => {
      const { ticket } = await conversation(A);
      const res = await send(A.userA, ticket.id, { body: 'nota interna', isPrivate: true });
      expect(res.statusCode).toBe(200);
      const m = res.json();
      expect(m).toMatchObject({ isPrivate: true, ack: 2, body: 'nota interna' });
      expect(m.wid).toMatch(/^PVT[0-9A-F]{20}$/);
      // A later message is published; the note never is.
      const later = (await send(A.userA, ticket.id, { body: 'depois' })).json();
      await waitPublished('message.send', (p) => p.messageId === later.id);
      expect(published('message.send', (p) => p.messageId === m.id)).toEqual([]);
      // Its results are ignored too.
      await k.bus.publish('message.sent', { companyId: A.companyId, messageId: m.id, wid: 'WAMID.NOPE' });
      await k.bus.publish('message.sent', { companyId: A.companyId, messageId: later.id, wid: 'WAMID.LATER' });
      await waitFor(async () => (await row(later.id))?.wid === 'WAMID.LATER');
      expect((await row(m.id))?.wid).toBe(m.wid);
    });

    test('a quoted reply: the quoted message is serialized and its wid travels as quotedWid; quotes outside the conversation are 404', async () => {
      const { contact, ticket } = await conversation(A);
      const inbound = await insertMessage(k, A.companyId, { ticketId: ticket.id, contactId: contact.id, body: 'Qual o preço?', wid: 'WAMID.Q1' });
      const res = await send(A.userA, ticket.id, { body: 'R$ 10', quotedMsg: { id: inbound.id, body: 'whatever the old client sends', fromMe: false } });
      expect(res.statusCode).toBe(200);
      const m = res.json();
      expect(m.quotedMsgId).toBe(inbound.id);
      expect(m.quotedMsg).toEqual({ id: inbound.id, body: 'Qual o preço?', fromMe: false, mediaType: 'conversation', mediaUrl: null, isDeleted: false, contact: { id: contact.id, name: 'Maria Souza' } });
      const [cmd] = await waitPublished('message.send', (p) => p.messageId === m.id);
      expect(cmd.quotedWid).toBe('WAMID.Q1');
      // The id as a digit string (old forms) works too.
      expect((await send(A.userA, ticket.id, { body: 'ok', quotedMsg: { id: String(inbound.id) } })).statusCode).toBe(200);

      const other = await conversation(A);
      const elsewhere = await insertMessage(k, A.companyId, { ticketId: other.ticket.id, contactId: other.contact.id });
      const bad = await send(A.userA, ticket.id, { body: 'x', quotedMsg: { id: elsewhere.id } });
      expect(bad.statusCode).toBe(404);
      expect(bad.json().error).toBe('ERR_NO_MESSAGE_FOUND');
      const b = await conversation(B);
      const foreign = await insertMessage(k, B.companyId, { ticketId: b.ticket.id, contactId: b.contact.id });
      const cross = await send(A.userA, ticket.id, { body: 'x', quotedMsg: { id: foreign.id } });
      expect(cross.statusCode).toBe(404);
      expect(cross.json().error).toBe('ERR_NO_MESSAGE_FOUND');
    });

    test('a quote of an earlier ticket of the same contact and connection is allowed', async () => {
      const contact = await createContact(k, A.companyId);
      const old = await insertTicket(k, A.companyId, { contactId: contact.id, whatsappId: A.conn.id, queueId: A.queueA.id, status: 'closed' });
      const q = await insertMessage(k, A.companyId, { ticketId: old.id, contactId: contact.id, body: 'antigo' });
      const ticket = await insertTicket(k, A.companyId, { contactId: contact.id, whatsappId: A.conn.id, queueId: A.queueA.id, userId: A.userA.id, status: 'open' });
      const res = await send(A.userA, ticket.id, { body: 'sobre aquilo', quotedMsg: { id: q.id } });
      expect(res.statusCode).toBe(200);
      expect(res.json().quotedMsg).toMatchObject({ id: q.id, body: 'antigo' });
    });

    test('a vCard: mediaType contactMessage, body a vCard 3.0, lastMessage "Contato"', async () => {
      const { ticket } = await conversation(A);
      const res = await send(A.userA, ticket.id, { body: '', vCard: { name: 'João; Silva', number: '+55 (11) 98888-7777', email: 'ignored@example.com' } });
      expect(res.statusCode).toBe(200);
      const m = res.json();
      expect(m.mediaType).toBe('contactMessage');
      expect(m.body).toBe(['BEGIN:VCARD', 'VERSION:3.0', 'N:;João\\; Silva;;;', 'FN:João\\; Silva', 'item1.TEL;waid=5511988887777:+5511988887777', 'item1.X-ABLabel:Celular', 'END:VCARD'].join('\n'));
      expect((await ticketRow(ticket.id)).lastMessage).toBe('Contato');
      const [cmd] = await waitPublished('message.send', (p) => p.messageId === m.id);
      expect(cmd).toMatchObject({ mediaType: 'contactMessage', body: m.body });
      const bad = await send(A.userA, ticket.id, { vCard: { name: 'x', number: 'abc' } });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error).toBe('ERR_VALIDATION');
    });

    test('signature: sendSignMessage enabled prefixes *Name:*; signMessage false, private notes and already-signed text are not (re)signed', async () => {
      const S = await createTenant(k);
      const { ticket } = await conversation(S);
      const name = S.userA.name;
      expect((await send(S.userA, ticket.id, { body: 'olá' })).json().body).toBe(`*${name}:*\nolá`);
      expect((await send(S.userA, ticket.id, { body: 'olá', signMessage: 'true' })).json().body).toBe(`*${name}:*\nolá`);
      expect((await send(S.userA, ticket.id, { body: 'sem assinatura', signMessage: false })).json().body).toBe('sem assinatura');
      expect((await send(S.userA, ticket.id, { body: `*${name}:*\njá assinado` })).json().body).toBe(`*${name}:*\njá assinado`);
      expect((await send(S.userA, ticket.id, { body: 'nota', isPrivate: true })).json().body).toBe('nota');
      await setCompanySetting(k, S.companyId, 'sendSignMessage', 'disabled');
      expect((await send(S.userA, ticket.id, { body: 'olá' })).json().body).toBe('olá');
    });

    test('message variables are filled on every outgoing text (not in private notes): name, firstName, userName, queue, connection, ticket_id, protocol, date, hour, ms', async () => {
      const { ticket } = await conversation(A);
      const res = await send(A.userA, ticket.id, { body: '{{ms}} {{firstName}} / {{name}} / {{userName}} / {{queue}} / {{connection}} / #{{ticket_id}} / {{protocol}} / {{date}} {{hour}} / {{unknown}}' });
      expect(res.statusCode).toBe(200);
      const body: string = res.json().body;
      const conn = await k.db('whatsapps').where({ id: A.conn.id }).first('name');
      expect(body).toMatch(new RegExp(`^(Bom dia|Boa tarde|Boa noite|Boa madrugada) Maria / Maria Souza / ${A.userA.name} / ${A.queueA.name} / ${conn.name} / #${ticket.id} / \\d{14}${ticket.id} / \\d{2}/\\d{2}/\\d{4} \\d{2}:\\d{2}:\\d{2} / \\{\\{unknown\\}\\}$`));
      const [cmd] = await waitPublished('message.send', (p) => p.messageId === res.json().id);
      expect(cmd.body).toBe(body);
      expect((await ticketRow(ticket.id)).lastMessage).toBe(body);
      expect((await send(A.userA, ticket.id, { body: 'nota {{name}}', isPrivate: true })).json().body).toBe('nota {{name}}');
    });

    test("one greeting on accept with either client: the old client's own greeting right after the server's is answered with the server's", async () => {
      const S = await createTenant(k);
      await setCompanySetting(k, S.companyId, 'sendSignMessage', 'disabled');
      await setCompanySetting(k, S.companyId, 'sendGreetingAccepted', 'enabled');
      const contact = await createContact(k, S.companyId, { name: 'Maria Souza' });
      const pending = await insertTicket(k, S.companyId, { contactId: contact.id, whatsappId: S.conn.id, queueId: S.queueA.id, userId: null, status: 'pending' });
      expect((await k.as(S.userA, 'PUT', `/tickets/${pending.id}`, { status: 'open', userId: S.userA.id })).statusCode).toBe(200);
      const bodies = async () => (await k.db('messages').where({ ticketId: pending.id }).orderBy('id')).map((m: MessageRow) => m.body);
      const greeting = await bodies();
      expect(greeting).toEqual([`Olá Maria, meu nome é ${S.userA.name} e agora vou prosseguir com seu atendimento!`]);
      // The product family's client posts its own greeting after the accept (TicketActionButtonsCustom).
      const old = await send(S.userA, pending.id, { read: 1, fromMe: true, mediaUrl: '', body: `*Assistente Virtual:*\n{{ms}} *{{name}}*, meu nome é *${S.userA.name}* e agora vou prosseguir com seu atendimento.` });
      expect(old.statusCode).toBe(200);
      expect(old.json().body).toBe(greeting[0]);
      expect(await bodies()).toEqual(greeting);
      expect(published('message.send', (p) => p.ticketId === pending.id)).toHaveLength(1);
      // Later texts go out as usual, with their variables filled; a second client greeting is sent too.
      expect((await send(S.userA, pending.id, { body: '{{ms}} *{{name}}*' })).json().body).toMatch(/^(Bom dia|Boa tarde|Boa noite|Boa madrugada) \*Maria Souza\*$/);
      expect((await send(S.userA, pending.id, { body: '*Assistente Virtual:*\n{{ms}} *{{name}}*, de novo' })).json().body).toMatch(/de novo$/);
      expect(await bodies()).toHaveLength(3);
      // Without the setting the server sends none, and the old client's greeting is sent (filled).
      await setCompanySetting(k, S.companyId, 'sendGreetingAccepted', 'disabled');
      const c2 = await createContact(k, S.companyId, { name: 'Joana Lima' });
      const p2 = await insertTicket(k, S.companyId, { contactId: c2.id, whatsappId: S.conn.id, queueId: S.queueA.id, userId: null, status: 'pending' });
      await k.as(S.userA, 'PUT', `/tickets/${p2.id}`, { status: 'open', userId: S.userA.id });
      const own = await send(S.userA, p2.id, { body: '*Assistente Virtual:*\n{{ms}} *{{name}}*, meu nome é X.' });
      expect(own.json().body).toMatch(/^\*Assistente Virtual:\*\n(Bom dia|Boa tarde|Boa noite|Boa madrugada) \*Joana Lima\*, meu nome é X\.$/);
    });

    test('the ticket must be open or group (400 ERR_TICKET_NOT_OPEN); group tickets accept messages', async () => {
      for (const status of ['pending', 'closed'] as const) {
        const { ticket } = await conversation(A, { status, userId: status === 'pending' ? null : A.userA.id });
        const res = await send(A.admin, ticket.id, { body: 'oi' });
        expect(res.statusCode).toBe(400);
        expect(res.json().error).toBe('ERR_TICKET_NOT_OPEN');
        expect(await k.db('messages').where({ ticketId: ticket.id })).toHaveLength(0);
      }
      const group = await createContact(k, A.companyId, { name: 'Grupo', isGroup: true, number: `120363${Date.now()}` });
      const gt = await insertTicket(k, A.companyId, { contactId: group.id, whatsappId: A.conn.id, queueId: null, userId: A.admin.id, status: 'group', isGroup: true });
      const ok = await send(A.admin, gt.id, { body: 'oi grupo' });
      expect(ok.statusCode).toBe(200);
      const [cmd] = await waitPublished('message.send', (p) => p.messageId === ok.json().id);
      expect(cmd).toMatchObject({ isGroup: true, to: group.number });
    });

    test('permissions: a user who cannot see the ticket or whose colleague owns it gets 403; admins and unassigned tickets are fine', async () => {
      const { ticket } = await conversation(A); // queue A, assigned to userA
      const b = await send(A.userB, ticket.id, { body: 'intruso' });
      expect(b.statusCode).toBe(403);
      expect(b.json().error).toBe('ERR_NO_PERMISSION');
      const colleague = await createAgent(k, A.companyId, { queueIds: [A.queueA.id] });
      const c = await send(colleague, ticket.id, { body: 'colega' });
      expect(c.statusCode).toBe(403);
      expect(c.json().error).toBe('ERR_NO_PERMISSION');
      expect((await send(A.admin, ticket.id, { body: 'admin' })).statusCode).toBe(200);
      const unassigned = await conversation(A, { userId: null });
      expect((await send(colleague, unassigned.ticket.id, { body: 'livre' })).statusCode).toBe(200);
      expect(await k.db('messages').where({ ticketId: ticket.id }).pluck('body')).toEqual(['admin']);
    });

    test('bad input: 4xx with catalogue codes, never 500', async () => {
      const { ticket } = await conversation(A);
      const cases: [string, unknown, number, string][] = [
        [`/messages/${ticket.id}`, { body: '' }, 400, 'ERR_VALIDATION'],
        [`/messages/${ticket.id}`, { body: '   \n  ' }, 400, 'ERR_VALIDATION'],
        [`/messages/${ticket.id}`, { body: null }, 400, 'ERR_VALIDATION'],
        [`/messages/${ticket.id}`, {}, 400, 'ERR_VALIDATION'],
        [`/messages/${ticket.id}`, { body: 123 }, 400, 'ERR_VALIDATION'],
        [`/messages/${ticket.id}`, { body: 'a'.repeat(4097) }, 400, 'ERR_VALIDATION'],
        [`/messages/${ticket.id}`, { body: 'a'.repeat(20000) }, 400, 'ERR_VALIDATION'],
        [`/messages/${ticket.id}`, { body: 'x', isPrivate: 'maybe' }, 400, 'ERR_VALIDATION'],
        [`/messages/${ticket.id}`, { body: 'x', quotedMsg: { id: 'abc' } }, 400, 'ERR_VALIDATION'],
        [`/messages/${ticket.id}`, { body: 'x', quotedMsg: { id: 0 } }, 400, 'ERR_VALIDATION'],
        [`/messages/${ticket.id}`, { body: 'x', quotedMsg: { id: '99999999999' } }, 400, 'ERR_VALIDATION'],
        [`/messages/${ticket.id}`, { body: 'x', vCard: { name: 'x' } }, 400, 'ERR_VALIDATION'],
        [`/messages/${ticket.id}`, [1, 2], 400, 'ERR_VALIDATION'],
        ['/messages/abc', { body: 'x' }, 400, 'ERR_VALIDATION'],
        ['/messages/0', { body: 'x' }, 400, 'ERR_VALIDATION'],
        ['/messages/-1', { body: 'x' }, 400, 'ERR_VALIDATION'],
        ['/messages/99999999999', { body: 'x' }, 400, 'ERR_VALIDATION'],
        ['/messages/2147483647', { body: 'x' }, 404, 'ERR_NO_TICKET_FOUND'],
      ];
      for (const [url, body, status, code] of cases) {
        const res = await k.as(A.userA, 'POST', url, body);
        expect({ url, body: JSON.stringify(body).slice(0, 60), status: res.statusCode, code: res.json().error }).toEqual({ url, body: JSON.stringify(body).slice(0, 60), status, code });
      }
      const exact = await send(A.userA, ticket.id, { body: `  ${'é'.repeat(4096)}  ` });
      expect(exact.statusCode).toBe(200);
      expect(exact.json().body).toBe('é'.repeat(4096));
      const text = await k.as(A.userA, 'POST', `/messages/${ticket.id}`, 'hello', { 'content-type': 'text/plain' });
      expect(text.statusCode).toBe(415);
      expect(text.json().error).toBe('ERR_UNSUPPORTED_MEDIA_TYPE');
      const form = await k.as(A.userA, 'POST', `/messages/${ticket.id}`, 'body=hello', { 'content-type': 'application/x-www-form-urlencoded' });
      expect(form.statusCode).toBe(415);
      const charset = await k.as(A.userA, 'POST', `/messages/${ticket.id}`, JSON.stringify({ body: 'utf-8 ✓' }), { 'content-type': 'application/json; charset=utf-8' });
      expect([charset.statusCode, charset.json().body]).toEqual([200, 'utf-8 ✓']);
      const charsetBad = await k.as(A.userA, 'POST', `/messages/${ticket.id}`, JSON.stringify({ body: 5 }), { 'content-type': 'application/json; charset=utf-8' });
      expect([charsetBad.statusCode, charsetBad.json().error]).toEqual([400, 'ERR_VALIDATION']);
      const broken = await k.as(A.userA, 'POST', `/messages/${ticket.id}`, '{"body":', { 'content-type': 'application/json' });
      expect(broken.statusCode).toBe(400);
      expect(broken.json().error).toBe('ERR_INVALID_JSON');
      // The per-content-type body schema still documents the route (JSON, and the multipart form of its uploads).
      const docs = await k.as(null, 'GET', '/docs/json');
      expect(docs.statusCode).toBe(200);
      expect(Object.keys(docs.json().paths['/messages/{ticketId}'].post.requestBody.content).sort()).toEqual(['application/json', 'multipart/form-data']);
    });
  });

  describe('POST /messages/:ticketId (multipart)', () => {
    const companyFiles = (companyId: number) => {
      const dir = join(k.config.uploadsDir, `company${companyId}`, 'messages');
      return existsSync(dir) ? readdirSync(dir) : [];
    };

    test('two files: two messages with their media type and URL, each published with its media; lastMessage the last file name', async () => {
      const { ticket } = await conversation(A);
      const s = await connect(A.userA);
      const events = recorder(s);
      const { payload, headers } = await multipart([
        ['fromMe', 'true'],
        ['medias', { name: 'foto.png', type: 'image/png', data: PNG }],
        ['body', 'olha a foto'],
        ['medias', { name: 'contrato.pdf', type: 'application/pdf', data: PDF }],
        ['body', 'e o contrato'],
      ]);
      const res = await k.as(A.userA, 'POST', `/messages/${ticket.id}`, payload, headers);
      expect(res.statusCode).toBe(200);
      const rows = (await k.db('messages').where({ ticketId: ticket.id }).orderBy('id')) as MessageRow[];
      expect(rows.map((r) => [r.mediaType, r.mediaName, r.body, r.ack, r.isPrivate])).toEqual([
        ['image', 'foto.png', 'olha a foto', 0, false],
        ['application', 'contrato.pdf', 'e o contrato', 0, false],
      ]);
      expect(rows[0].mediaPath).toMatch(/^messages\/[0-9a-f-]{36}\.png$/);
      expect(rows[1].mediaPath).toMatch(/^messages\/[0-9a-f-]{36}\.pdf$/);
      expect(res.json()).toMatchObject({ id: Number(rows[1].id), mediaType: 'application', mediaName: 'contrato.pdf' });
      expect(res.json().mediaUrl).toMatch(new RegExp(`/public/company${A.companyId}/messages/[0-9a-f-]{36}\\.pdf\\?e=\\d+&t=`));
      expect((await ticketRow(ticket.id)).lastMessage).toBe('contrato.pdf');

      // The signed URL serves the stored bytes.
      const url = new URL(res.json().mediaUrl);
      const file = await k.as(null, 'GET', url.pathname + url.search);
      expect(file.statusCode).toBe(200);
      expect(file.rawPayload.equals(PDF)).toBe(true);

      const [png] = await waitPublished('message.send', (p) => p.messageId === Number(rows[0].id));
      expect(png).toMatchObject({ mediaType: 'image', body: 'olha a foto', media: { path: rows[0].mediaPath, mimeType: 'image/png', fileName: 'foto.png' } });
      expect((png.media as { url: string }).url).toContain(`/public/company${A.companyId}/${rows[0].mediaPath}?e=`);
      const [pdf] = await waitPublished('message.send', (p) => p.messageId === Number(rows[1].id));
      expect(pdf.media).toMatchObject({ mimeType: 'application/pdf', fileName: 'contrato.pdf' });
      await flush([s]);
      expect(events.filter((e) => e.name === `company-${A.companyId}-appMessage`).map((e) => (e.payload.message as { id: number }).id)).toEqual(rows.map((r) => Number(r.id)));
    });

    test('one caption for several files, and the U+200D marker makes media private (never published)', async () => {
      const { ticket } = await conversation(A);
      const { payload, headers } = await multipart([
        ['medias', { name: 'a.png', type: 'image/png', data: PNG }],
        ['medias', { name: 'b.png', type: 'image/png', data: PNG }],
        ['body', '\u200dsó para a equipe'],
      ]);
      const res = await k.as(A.userA, 'POST', `/messages/${ticket.id}`, payload, headers);
      expect(res.statusCode).toBe(200);
      const rows = (await k.db('messages').where({ ticketId: ticket.id }).orderBy('id')) as MessageRow[];
      expect(rows.map((r) => [r.body, r.isPrivate, r.ack, r.wid?.slice(0, 3)])).toEqual([
        ['só para a equipe', true, 2, 'PVT'],
        ['só para a equipe', true, 2, 'PVT'],
      ]);
      const viaField = await multipart([['isPrivate', 'true'], ['medias', { name: 'c.png', type: 'image/png', data: PNG }]]);
      const res2 = await k.as(A.userA, 'POST', `/messages/${ticket.id}`, viaField.payload, viaField.headers);
      expect(res2.json()).toMatchObject({ isPrivate: true, body: '' });
      const later = (await send(A.userA, ticket.id, { body: 'marco' })).json();
      await waitPublished('message.send', (p) => p.messageId === later.id);
      expect(published('message.send', (p) => p.ticketId === ticket.id).map((p) => p.messageId)).toEqual([later.id]);
    });

    test('a refused file type is 415 ERR_UPLOAD_TYPE and nothing stays stored (not even the accepted file before it)', async () => {
      const { ticket } = await conversation(A);
      const before = companyFiles(A.companyId).length;
      const { payload, headers } = await multipart([
        ['medias', { name: 'ok.png', type: 'image/png', data: PNG }],
        ['medias', { name: 'virus.png', type: 'image/png', data: ELF }],
      ]);
      const res = await k.as(A.userA, 'POST', `/messages/${ticket.id}`, payload, headers);
      expect(res.statusCode).toBe(415);
      expect(res.json().error).toBe('ERR_UPLOAD_TYPE');
      expect(await k.db('messages').where({ ticketId: ticket.id })).toHaveLength(0);
      expect(companyFiles(A.companyId).length).toBe(before);
    });

    test('multipart refusals: no file, a wrong field, a closed ticket, another user, another company (nothing stored)', async () => {
      const { ticket } = await conversation(A);
      const before = companyFiles(A.companyId).length;
      const noFile = await multipart([['body', 'só texto']]);
      let res = await k.as(A.userA, 'POST', `/messages/${ticket.id}`, noFile.payload, noFile.headers);
      expect([res.statusCode, res.json().error]).toEqual([400, 'ERR_VALIDATION']);
      const wrongField = await multipart([['file', { name: 'a.png', type: 'image/png', data: PNG }]]);
      res = await k.as(A.userA, 'POST', `/messages/${ticket.id}`, wrongField.payload, wrongField.headers);
      expect([res.statusCode, res.json().error]).toEqual([400, 'ERR_VALIDATION']);
      const longCaption = await multipart([['medias', { name: 'a.png', type: 'image/png', data: PNG }], ['body', 'x'.repeat(4097)]]);
      res = await k.as(A.userA, 'POST', `/messages/${ticket.id}`, longCaption.payload, longCaption.headers);
      expect([res.statusCode, res.json().error]).toEqual([400, 'ERR_VALIDATION']);
      const file = await multipart([['medias', { name: 'a.png', type: 'image/png', data: PNG }]]);
      const closed = await conversation(A, { status: 'closed' });
      res = await k.as(A.userA, 'POST', `/messages/${closed.ticket.id}`, file.payload, file.headers);
      expect([res.statusCode, res.json().error]).toEqual([400, 'ERR_TICKET_NOT_OPEN']);
      res = await k.as(A.userB, 'POST', `/messages/${ticket.id}`, file.payload, file.headers);
      expect([res.statusCode, res.json().error]).toEqual([403, 'ERR_NO_PERMISSION']);
      res = await k.as(B.admin, 'POST', `/messages/${ticket.id}`, file.payload, file.headers);
      expect([res.statusCode, res.json().error]).toEqual([404, 'ERR_NO_TICKET_FOUND']);
      expect(companyFiles(A.companyId).length).toBe(before);
      expect(companyFiles(B.companyId)).toEqual([]);
      expect(await k.db('messages').where({ ticketId: ticket.id })).toHaveLength(0);
    });
  });

  describe('GET /messages/:ticketId', () => {
    test('pages of 20, newest page first, ascending within a page, across the contact\'s visible tickets; marks read once', async () => {
      const contact = await createContact(k, A.companyId, { name: 'Histórico' });
      const t0 = Date.now() - 3600_000;
      const at = (i: number) => new Date(t0 + i * 1000);
      // Queue B ticket (earliest), invisible to userA.
      const tB = await insertTicket(k, A.companyId, { contactId: contact.id, whatsappId: A.conn.id, queueId: A.queueB.id, status: 'closed' });
      for (let i = 0; i < 2; i++) await insertMessage(k, A.companyId, { ticketId: tB.id, contactId: contact.id, body: `B${i}`, createdAt: at(i), read: true });
      const t1 = await insertTicket(k, A.companyId, { contactId: contact.id, whatsappId: A.conn.id, queueId: A.queueA.id, status: 'closed' });
      for (let i = 0; i < 10; i++) await insertMessage(k, A.companyId, { ticketId: t1.id, contactId: contact.id, body: `m${i}`, createdAt: at(10 + i), read: false });
      const t2 = await insertTicket(k, A.companyId, { contactId: contact.id, whatsappId: A.conn.id, queueId: A.queueA.id, userId: A.userA.id, status: 'open', unreadMessages: 3 });
      for (let i = 10; i < 25; i++) {
        const inbound = i >= 22;
        await insertMessage(k, A.companyId, { ticketId: t2.id, contactId: inbound ? contact.id : null, fromMe: !inbound, read: !inbound, userId: inbound ? null : A.userA.id, body: `m${i}`, createdAt: at(10 + i), isPrivate: i === 15 });
      }
      // Same contact on another connection: another conversation.
      const tOther = await insertTicket(k, A.companyId, { contactId: contact.id, whatsappId: A.conn2.id, queueId: A.queueA.id, status: 'closed' });
      await insertMessage(k, A.companyId, { ticketId: tOther.id, contactId: contact.id, body: 'other', createdAt: at(100) });

      const sa = await connect(A.userA);
      const sadmin = await connect(A.admin);
      const sb = await connect(A.userB);
      const ra = recorder(sa);
      const radmin = recorder(sadmin);
      const rb = recorder(sb);

      const p1 = await k.as(A.userA, 'GET', `/messages/${t2.id}`);
      expect(p1.statusCode).toBe(200);
      const page1 = p1.json();
      expect(page1.count).toBe(25);
      expect(page1.hasMore).toBe(true);
      expect(page1.messages.map((m: { body: string }) => m.body)).toEqual(Array.from({ length: 20 }, (_, i) => `m${i + 5}`));
      expect(page1.ticket).toMatchObject({ id: t2.id, unreadMessages: 0, contact: { id: contact.id } });
      const byBody = (b: string) => page1.messages.find((m: { body: string }) => m.body === b);
      expect(byBody('m5').ticket).toEqual({ id: t1.id, queueId: A.queueA.id, queue: { id: A.queueA.id, name: A.queueA.name, color: A.queueA.color } });
      expect(byBody('m5').contact).toEqual({ id: contact.id, name: 'Histórico' });
      expect(byBody('m12').contact).toBeNull();
      expect(byBody('m15').isPrivate).toBe(true);
      expect(byBody('m24')).toMatchObject({ read: true, fromMe: false });
      // Only the ticket's own messages were marked read.
      expect(byBody('m5').read).toBe(false);
      expect((await ticketRow(t2.id)).unreadMessages).toBe(0);
      expect(await k.db('messages').where({ ticketId: t2.id, read: false })).toHaveLength(0);

      const p2 = (await k.as(A.userA, 'GET', `/messages/${t2.id}?pageNumber=2`)).json();
      expect(p2.messages.map((m: { body: string }) => m.body)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
      expect([p2.count, p2.hasMore]).toEqual([25, false]);
      const p3 = (await k.as(A.userA, 'GET', `/messages/${t2.id}?pageNumber=3`)).json();
      expect([p3.messages, p3.hasMore]).toEqual([[], false]);

      // The admin also sees the queue-B ticket's messages; selectedQueues narrows them away.
      const adminAll = (await k.as(A.admin, 'GET', `/messages/${t2.id}?pageNumber=2`)).json();
      expect(adminAll.count).toBe(27);
      expect(adminAll.messages.map((m: { body: string }) => m.body)).toEqual(['B0', 'B1', 'm0', 'm1', 'm2', 'm3', 'm4']);
      const narrowed = (await k.as(A.admin, 'GET', `/messages/${t2.id}?selectedQueues=${encodeURIComponent(JSON.stringify([A.queueA.id]))}`)).json();
      expect(narrowed.count).toBe(25);

      await flush([sa, sadmin, sb]);
      const unread = (r: typeof ra) => r.filter((e) => e.name === `company-${A.companyId}-ticket` && e.payload.action === 'updateUnread');
      // One updateUnread (the first GET), to the ticket's audiences only.
      expect(unread(ra).map((e) => e.payload)).toEqual([{ action: 'updateUnread', ticketId: t2.id }]);
      expect(unread(radmin)).toHaveLength(1);
      expect(unread(rb)).toHaveLength(0);
    });

    test('LGPD: a message the customer deleted stays readable unless enableLGPD and lgpdDeleteMessage are both enabled', async () => {
      const S = await createTenant(k);
      const { contact, ticket } = await conversation(S);
      const gone = await insertMessage(k, S.companyId, { ticketId: ticket.id, contactId: contact.id, body: 'meu CPF é 123', read: true });
      await k.db('messages').where({ id: gone.id }).update({ isDeleted: true });
      const ours = await insertMessage(k, S.companyId, { ticketId: ticket.id, fromMe: true, userId: S.userA.id, body: 'apagada por nós', read: true });
      await k.db('messages').where({ id: ours.id }).update({ isDeleted: true });
      const page = async () => (await k.as(S.userA, 'GET', `/messages/${ticket.id}`)).json().messages as { id: number; body: string; isDeleted: boolean }[];
      const byId = async (id: number) => (await page()).find((m) => m.id === id)!;
      expect(await byId(gone.id)).toMatchObject({ body: 'meu CPF é 123', isDeleted: true });
      await setCompanySetting(k, S.companyId, 'lgpdDeleteMessage', 'enabled');
      expect((await byId(gone.id)).body).toBe('meu CPF é 123');
      await setCompanySetting(k, S.companyId, 'enableLGPD', 'enabled');
      expect(await byId(gone.id)).toMatchObject({ body: '', isDeleted: true, mediaUrl: null, dataJson: null });
      expect((await byId(ours.id)).body).toBe('apagada por nós');
      await setCompanySetting(k, S.companyId, 'lgpdDeleteMessage', 'disabled');
      expect((await byId(gone.id)).body).toBe('meu CPF é 123');
    });

    test('visibility: 403 for a user without the queue, 404 for another company, 400 for bad queries', async () => {
      const { ticket } = await conversation(A);
      let res = await k.as(A.userB, 'GET', `/messages/${ticket.id}`);
      expect([res.statusCode, res.json().error]).toEqual([403, 'ERR_NO_PERMISSION']);
      res = await k.as(B.admin, 'GET', `/messages/${ticket.id}`);
      expect([res.statusCode, res.json().error]).toEqual([404, 'ERR_NO_TICKET_FOUND']);
      for (const q of ['pageNumber=0', 'pageNumber=-1', 'pageNumber=abc', 'pageNumber=1e309', 'selectedQueues=nope', 'selectedQueues=%7B%7D', `selectedQueues=${'1'.repeat(2100)}`]) {
        res = await k.as(A.userA, 'GET', `/messages/${ticket.id}?${q}`);
        expect([q, res.statusCode, res.json().error]).toEqual([q, 400, 'ERR_VALIDATION']);
      }
      for (const id of ['abc', '0', '-5', '99999999999']) {
        res = await k.as(A.userA, 'GET', `/messages/${id}`);
        expect([id, res.statusCode, res.json().error]).toEqual([id, 400, 'ERR_VALIDATION']);
      }
    });
  });

  describe('appMessage audiences', () => {
    test('create and update events reach the ticket audiences only: not another queue, not another company', async () => {
      const { ticket } = await conversation(A);
      const sockets = { userA: await connect(A.userA), admin: await connect(A.admin), userB: await connect(A.userB), otherAdmin: await connect(B.admin) };
      const rec = Object.fromEntries(Object.entries(sockets).map(([n, s]) => [n, recorder(s)])) as Record<keyof typeof sockets, ReturnType<typeof recorder>>;
      const m = (await send(A.userA, ticket.id, { body: 'para a fila A' })).json();
      await k.bus.publish('message.sent', { companyId: A.companyId, messageId: m.id, wid: 'WAMID.AUD1' });
      const actions = (r: ReturnType<typeof recorder>) => r.filter((e) => e.name === `company-${A.companyId}-appMessage`).map((e) => e.payload.action);
      await waitFor(() => actions(rec.userA).length >= 2 && actions(rec.admin).length >= 2);
      await flush(Object.values(sockets));
      expect(actions(rec.userA)).toEqual(['create', 'update']);
      expect(actions(rec.admin)).toEqual(['create', 'update']);
      expect(rec.userB.filter((e) => e.name.endsWith('-appMessage'))).toEqual([]);
      expect(rec.otherAdmin).toEqual([]);
    });
  });

  describe('DELETE /messages/:id', () => {
    test('own sent message: marked deleted (body kept), message.delete published, update pushed', async () => {
      const { contact, ticket } = await conversation(A);
      const s = await connect(A.userA);
      const m = (await send(A.userA, ticket.id, { body: 'apagar' })).json();
      await k.bus.publish('message.sent', { companyId: A.companyId, messageId: m.id, wid: 'WAMID.DEL1' });
      await waitFor(async () => (await row(m.id))?.wid === 'WAMID.DEL1');
      const update = appEvent(s, 'update', (x) => x.id === m.id && x.isDeleted);
      const res = await k.as(A.userA, 'DELETE', `/messages/${m.id}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: m.id, isDeleted: true, body: 'apagar' });
      expect(await update).toMatchObject({ action: 'update', message: { id: m.id, isDeleted: true } });
      expect(await row(m.id)).toMatchObject({ isDeleted: true, body: 'apagar' });
      const [cmd] = await waitPublished('message.delete', (p) => p.messageId === m.id);
      expect(cmd).toEqual({ companyId: A.companyId, messageId: m.id, ticketId: ticket.id, wid: 'WAMID.DEL1', fromMe: true, connectionId: A.conn.id, channel: 'whatsapp', to: contact.number, isGroup: false, remoteJid: null });
      // A second delete changes nothing and publishes nothing more.
      expect((await k.as(A.userA, 'DELETE', `/messages/${m.id}`)).statusCode).toBe(200);
      await new Promise((r) => setTimeout(r, 100));
      expect(published('message.delete', (p) => p.messageId === m.id)).toHaveLength(1);
    });

    test('a private note is removed from the table and a delete event is pushed; nothing is published', async () => {
      const { ticket } = await conversation(A);
      const s = await connect(A.userA);
      const note = (await send(A.userA, ticket.id, { body: 'nota', isPrivate: true })).json();
      const ev = appEvent(s, 'delete');
      const res = await k.as(A.userA, 'DELETE', `/messages/${note.id}`);
      expect(res.statusCode).toBe(200);
      expect(await ev).toMatchObject({ action: 'delete', message: { id: note.id, isPrivate: true } });
      expect(await row(note.id)).toBeUndefined();
      expect(published('message.delete', (p) => p.messageId === note.id)).toEqual([]);
      const again = await k.as(A.userA, 'DELETE', `/messages/${note.id}`);
      expect([again.statusCode, again.json().error]).toEqual([404, 'ERR_NO_MESSAGE_FOUND']);
    });

    test("others' messages: 403 for a plain user, allowed for an admin; 404 across companies and for bad ids", async () => {
      const { contact, ticket } = await conversation(A);
      const mine = (await send(A.userA, ticket.id, { body: 'meu' })).json();
      const inbound = await insertMessage(k, A.companyId, { ticketId: ticket.id, contactId: contact.id, body: 'do cliente' });
      const colleague = await createAgent(k, A.companyId, { queueIds: [A.queueA.id] });
      for (const id of [mine.id, inbound.id]) {
        const res = await k.as(colleague, 'DELETE', `/messages/${id}`);
        expect([res.statusCode, res.json().error]).toEqual([403, 'ERR_NO_PERMISSION']);
      }
      let res = await k.as(A.userA, 'DELETE', `/messages/${inbound.id}`);
      expect([res.statusCode, res.json().error]).toEqual([403, 'ERR_NO_PERMISSION']);
      res = await k.as(A.userB, 'DELETE', `/messages/${mine.id}`);
      expect([res.statusCode, res.json().error]).toEqual([403, 'ERR_NO_PERMISSION']);
      res = await k.as(B.admin, 'DELETE', `/messages/${mine.id}`);
      expect([res.statusCode, res.json().error]).toEqual([404, 'ERR_NO_MESSAGE_FOUND']);
      expect((await row(mine.id))?.isDeleted).toBe(false);
      res = await k.as(A.admin, 'DELETE', `/messages/${inbound.id}`);
      expect(res.statusCode).toBe(200);
      expect(res.json().isDeleted).toBe(true);
      // Inbound messages are deleted for us only: nothing goes to the provider.
      await new Promise((r) => setTimeout(r, 100));
      expect(published('message.delete', (p) => p.messageId === inbound.id)).toEqual([]);
      for (const id of ['abc', '0', '-1', '99999999999']) {
        res = await k.as(A.admin, 'DELETE', `/messages/${id}`);
        expect([id, res.statusCode, res.json().error]).toEqual([id, 400, 'ERR_VALIDATION']);
      }
      res = await k.as(A.admin, 'DELETE', '/messages/2147483647');
      expect([res.statusCode, res.json().error]).toEqual([404, 'ERR_NO_MESSAGE_FOUND']);
    });
  });

  describe('PUT /messages/:id', () => {
    test('own text within 15 minutes: body replaced, isEdited, message.edit published, update pushed', async () => {
      const { contact, ticket } = await conversation(A);
      const s = await connect(A.userA);
      const m = (await send(A.userA, ticket.id, { body: 'errado' })).json();
      await k.bus.publish('message.sent', { companyId: A.companyId, messageId: m.id, wid: 'WAMID.ED1' });
      await waitFor(async () => (await row(m.id))?.wid === 'WAMID.ED1');
      const update = appEvent(s, 'update', (x) => x.id === m.id && x.isEdited);
      const res = await k.as(A.userA, 'PUT', `/messages/${m.id}`, { body: '  certo  ' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: m.id, body: 'certo', isEdited: true });
      expect(await update).toMatchObject({ action: 'update', message: { id: m.id, body: 'certo', isEdited: true } });
      const [cmd] = await waitPublished('message.edit', (p) => p.messageId === m.id);
      expect(cmd).toEqual({ companyId: A.companyId, messageId: m.id, ticketId: ticket.id, wid: 'WAMID.ED1', fromMe: true, connectionId: A.conn.id, channel: 'whatsapp', to: contact.number, isGroup: false, remoteJid: null, body: 'certo' });
    });

    test('a signed message keeps its signature line when the new text comes without it', async () => {
      const S = await createTenant(k);
      const { ticket } = await conversation(S);
      const sent = (await send(S.userA, ticket.id, { body: 'olá' })).json();
      expect(sent.body).toBe(`*${S.userA.name}:*\nolá`);
      // Sent (the provider has it): an edit is then a command to the channel.
      await k.bus.publish('message.sent', { companyId: S.companyId, messageId: sent.id, wid: 'WAMID.SIG1' });
      await waitFor(async () => (await row(sent.id))?.wid === 'WAMID.SIG1');
      const edited = await k.as(S.userA, 'PUT', `/messages/${sent.id}`, { body: 'olá, tudo bem?' });
      expect(edited.statusCode).toBe(200);
      expect(edited.json()).toMatchObject({ body: `*${S.userA.name}:*\nolá, tudo bem?`, isEdited: true });
      const [cmd] = await waitPublished('message.edit', (p) => p.messageId === sent.id);
      expect(cmd.body).toBe(`*${S.userA.name}:*\nolá, tudo bem?`);
      // An unsigned message stays unsigned.
      const plain = (await send(S.userA, ticket.id, { body: 'sem', signMessage: false })).json();
      expect((await k.as(S.userA, 'PUT', `/messages/${plain.id}`, { body: 'sem assinatura' })).json().body).toBe('sem assinatura');
    });

    test('refusals: too old, not text, deleted, not the author, another company, bad bodies', async () => {
      const { contact, ticket } = await conversation(A);
      const old = (await send(A.userA, ticket.id, { body: 'velho' })).json();
      await k.db('messages').where({ id: old.id }).update({ createdAt: new Date(Date.now() - 16 * 60_000) });
      let res = await k.as(A.userA, 'PUT', `/messages/${old.id}`, { body: 'novo' });
      expect([res.statusCode, res.json().error]).toEqual([400, 'ERR_VALIDATION']);
      expect((await row(old.id))?.body).toBe('velho');

      const card = (await send(A.userA, ticket.id, { vCard: { name: 'X', number: '5511999999999' } })).json();
      res = await k.as(A.userA, 'PUT', `/messages/${card.id}`, { body: 'novo' });
      expect([res.statusCode, res.json().error]).toEqual([400, 'ERR_VALIDATION']);
      const media = await insertMessage(k, A.companyId, { ticketId: ticket.id, fromMe: true, userId: A.userA.id, mediaType: 'image', mediaPath: 'messages/x.png', mediaName: 'x.png', body: '' });
      res = await k.as(A.userA, 'PUT', `/messages/${media.id}`, { body: 'novo' });
      expect([res.statusCode, res.json().error]).toEqual([400, 'ERR_VALIDATION']);

      const fresh = (await send(A.userA, ticket.id, { body: 'fresco' })).json();
      await k.as(A.userA, 'DELETE', `/messages/${fresh.id}`);
      res = await k.as(A.userA, 'PUT', `/messages/${fresh.id}`, { body: 'novo' });
      expect([res.statusCode, res.json().error]).toEqual([400, 'ERR_VALIDATION']);

      const mine = (await send(A.userA, ticket.id, { body: 'meu' })).json();
      const inbound = await insertMessage(k, A.companyId, { ticketId: ticket.id, contactId: contact.id, body: 'cliente' });
      for (const [u, id, status, code] of [
        [A.admin, mine.id, 403, 'ERR_NO_PERMISSION'],
        [A.userA, inbound.id, 403, 'ERR_NO_PERMISSION'],
        [A.userB, mine.id, 403, 'ERR_NO_PERMISSION'],
        [B.admin, mine.id, 404, 'ERR_NO_MESSAGE_FOUND'],
      ] as [TestUser, number, number, string][]) {
        res = await k.as(u, 'PUT', `/messages/${id}`, { body: 'novo' });
        expect([res.statusCode, res.json().error]).toEqual([status, code]);
      }
      for (const body of [{}, { body: '' }, { body: '  ' }, { body: 5 }, { body: 'x'.repeat(4097) }, { body: null }]) {
        res = await k.as(A.userA, 'PUT', `/messages/${mine.id}`, body);
        expect([JSON.stringify(body).slice(0, 30), res.statusCode, res.json().error]).toEqual([JSON.stringify(body).slice(0, 30), 400, 'ERR_VALIDATION']);
      }
      expect((await row(mine.id))?.body).toBe('meu');
      res = await k.as(A.userA, 'PUT', '/messages/abc', { body: 'x' });
      expect([res.statusCode, res.json().error]).toEqual([400, 'ERR_VALIDATION']);
    });
  });

  describe('POST /message/forward', () => {
    test('opens a ticket for a contact without one (open, the caller, the source queue and connection); a quick repeat is not duplicated', async () => {
      const { contact, ticket } = await conversation(A);
      const src = await insertMessage(k, A.companyId, { ticketId: ticket.id, contactId: contact.id, body: 'encaminhe isto' });
      const target = await createContact(k, A.companyId, { name: 'Destino' });
      const res = await k.as(A.userA, 'POST', '/message/forward', { messageId: src.id, contactId: target.id });
      expect(res.statusCode).toBe(200);
      const m = res.json();
      expect(m).toMatchObject({ body: 'encaminhe isto', isForwarded: true, fromMe: true, ack: 0, userId: A.userA.id, mediaType: 'conversation' });
      const t = await ticketRow(m.ticketId);
      expect(t).toMatchObject({ contactId: target.id, status: 'open', userId: A.userA.id, queueId: A.queueA.id, whatsappId: A.conn.id, lastMessage: 'encaminhe isto', companyId: A.companyId });
      expect(await logTypes(k, t.id)).toEqual(['create', 'open']);
      const [cmd] = await waitPublished('message.send', (p) => p.messageId === m.id);
      expect(cmd).toMatchObject({ ticketId: t.id, to: target.number, isForwarded: true, body: 'encaminhe isto' });
      expect(await waitPublished('ticket.created', (p) => p.ticketId === t.id)).toEqual([{ companyId: A.companyId, ticketId: t.id, status: 'open', queueId: A.queueA.id, userId: A.userA.id }]);

      const [again, concurrent] = await Promise.all([
        k.as(A.userA, 'POST', '/message/forward', { messageId: String(src.id), contactId: target.id }),
        k.as(A.userA, 'POST', '/message/forward', { messageId: src.id, contactId: String(target.id) }),
      ]);
      expect([again.json().id, concurrent.json().id]).toEqual([m.id, m.id]);
      expect(await k.db('messages').where({ ticketId: t.id })).toHaveLength(1);
      expect(await k.db('tickets').where({ contactId: target.id })).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 100));
      expect(published('message.send', (p) => p.ticketId === t.id)).toHaveLength(1);

      // After the window, a new forward is a new message in the same (active) ticket.
      await k.db('messages').where({ id: m.id }).update({ createdAt: new Date(Date.now() - 11_000) });
      const later = await k.as(A.userA, 'POST', '/message/forward', { messageId: src.id, contactId: target.id });
      expect(later.json().id).not.toBe(m.id);
      expect(later.json().ticketId).toBe(t.id);
    });

    test("reuses the contact's active ticket; media keeps its file; another caller is not deduplicated against the first", async () => {
      const { contact, ticket } = await conversation(A);
      const src = await insertMessage(k, A.companyId, { ticketId: ticket.id, contactId: contact.id, mediaType: 'image', mediaPath: 'messages/abc.png', mediaName: 'foto.png', body: 'legenda' });
      const target = await createContact(k, A.companyId);
      // In the caller's queue: a target ticket the caller cannot see is refused (guard.test.ts).
      const active = await insertTicket(k, A.companyId, { contactId: target.id, whatsappId: A.conn.id, queueId: A.queueA.id, status: 'pending' });
      const res = await k.as(A.userA, 'POST', '/message/forward', { messageId: src.id, contactId: target.id, signMessage: true });
      expect(res.statusCode).toBe(200);
      const m = res.json();
      expect(m).toMatchObject({ ticketId: active.id, mediaType: 'image', mediaName: 'foto.png', body: 'legenda', isForwarded: true });
      expect(m.mediaUrl).toContain(`/public/company${A.companyId}/messages/abc.png?`);
      expect(await ticketRow(active.id)).toMatchObject({ status: 'pending', lastMessage: 'foto.png' });
      const [cmd] = await waitPublished('message.send', (p) => p.messageId === m.id);
      expect(cmd.media).toMatchObject({ path: 'messages/abc.png', mimeType: 'image/png', fileName: 'foto.png' });
      const byAdmin = await k.as(A.admin, 'POST', '/message/forward', { messageId: src.id, contactId: target.id });
      expect(byAdmin.json().id).not.toBe(m.id);
    });

    test("reopens the target's ticket closed within the connection's timeCreateNewTicket, keeping its queue", async () => {
      const conn = await createConnection(k, A.companyId, { timeCreateNewTicket: 60 });
      const { contact, ticket } = await conversation(A, { whatsappId: conn.id });
      const src = await insertMessage(k, A.companyId, { ticketId: ticket.id, contactId: contact.id, body: 'de volta' });
      const target = await createContact(k, A.companyId);
      const closed = await insertTicket(k, A.companyId, { contactId: target.id, whatsappId: conn.id, queueId: A.queueB.id, status: 'closed', updatedAt: new Date(Date.now() - 10 * 60_000) });
      const res = await k.as(A.admin, 'POST', '/message/forward', { messageId: src.id, contactId: target.id });
      expect(res.statusCode).toBe(200);
      expect(res.json().ticketId).toBe(closed.id);
      expect(await ticketRow(closed.id)).toMatchObject({ status: 'open', userId: A.admin.id, queueId: A.queueB.id, closedAt: null });
      expect(await logTypes(k, closed.id)).toEqual(['reopen', 'open']);
      expect(await waitPublished('ticket.updated', (p) => p.ticketId === closed.id)).toEqual([{ companyId: A.companyId, ticketId: closed.id, status: 'open', queueId: A.queueB.id, userId: A.admin.id }]);
      // Closed longer ago than the window: a new ticket instead.
      const target2 = await createContact(k, A.companyId);
      const old = await insertTicket(k, A.companyId, { contactId: target2.id, whatsappId: conn.id, queueId: A.queueB.id, status: 'closed', updatedAt: new Date(Date.now() - 61 * 60_000) });
      const res2 = await k.as(A.admin, 'POST', '/message/forward', { messageId: src.id, contactId: target2.id });
      expect(res2.json().ticketId).not.toBe(old.id);
      expect(await ticketRow(res2.json().ticketId)).toMatchObject({ status: 'open', queueId: ticket.queueId });
    });

    test('a contact on another channel gets the default connection of that channel', async () => {
      const ig = await createConnection(k, A.companyId, { channel: 'instagram', isDefault: false });
      const { contact, ticket } = await conversation(A);
      const src = await insertMessage(k, A.companyId, { ticketId: ticket.id, contactId: contact.id, body: 'oi' });
      const target = await createContact(k, A.companyId, { channel: 'instagram', number: `ig${Date.now()}` });
      const res = await k.as(A.admin, 'POST', '/message/forward', { messageId: src.id, contactId: target.id });
      expect(res.statusCode).toBe(200);
      expect(await ticketRow(res.json().ticketId)).toMatchObject({ whatsappId: ig.id, channel: 'instagram' });
    });

    test('refusals: private notes, deleted messages, invisible source, other company, bad ids', async () => {
      const { contact, ticket } = await conversation(A);
      const note = (await send(A.userA, ticket.id, { body: 'interno', isPrivate: true })).json();
      const target = await createContact(k, A.companyId);
      let res = await k.as(A.userA, 'POST', '/message/forward', { messageId: note.id, contactId: target.id });
      expect([res.statusCode, res.json().error]).toEqual([400, 'ERR_VALIDATION']);
      const gone = await insertMessage(k, A.companyId, { ticketId: ticket.id, contactId: contact.id });
      await k.db('messages').where({ id: gone.id }).update({ isDeleted: true });
      res = await k.as(A.userA, 'POST', '/message/forward', { messageId: gone.id, contactId: target.id });
      expect([res.statusCode, res.json().error]).toEqual([400, 'ERR_VALIDATION']);
      const src = await insertMessage(k, A.companyId, { ticketId: ticket.id, contactId: contact.id, body: 'ok' });
      res = await k.as(A.userB, 'POST', '/message/forward', { messageId: src.id, contactId: target.id });
      expect([res.statusCode, res.json().error]).toEqual([403, 'ERR_NO_PERMISSION']);
      res = await k.as(B.admin, 'POST', '/message/forward', { messageId: src.id, contactId: B.contact.id });
      expect([res.statusCode, res.json().error]).toEqual([404, 'ERR_NO_MESSAGE_FOUND']);
      res = await k.as(A.userA, 'POST', '/message/forward', { messageId: src.id, contactId: B.contact.id });
      expect([res.statusCode, res.json().error]).toEqual([404, 'ERR_NO_CONTACT_FOUND']);
      for (const body of [{}, { messageId: src.id }, { messageId: 'abc', contactId: target.id }, { messageId: src.id, contactId: 0 }, { messageId: src.id, contactId: '9999999999' }, { messageId: -1, contactId: target.id }, { messageId: src.id, contactId: target.id, signMessage: 'nope' }, { messageId: true, contactId: target.id }]) {
        res = await k.as(A.userA, 'POST', '/message/forward', body);
        expect([JSON.stringify(body), res.statusCode, res.json().error]).toEqual([JSON.stringify(body), 400, 'ERR_VALIDATION']);
      }
      expect(await k.db('tickets').where({ contactId: target.id })).toHaveLength(0);
    });
  });

  describe('service functions', () => {
    test('createOutboundMessage (automatic): stored, announced and published even on a pending ticket; non-automatic requires open', async () => {
      const { ticket } = await conversation(A, { status: 'pending', userId: null });
      const s = await connect(A.admin);
      const ev = appEvent(s, 'create');
      const out = await createOutboundMessage(deps, { ticket, body: 'Olá! Já vamos atender.', userId: null, automatic: true });
      expect(out.message).toMatchObject({ body: 'Olá! Já vamos atender.', fromMe: true, ack: 0, userId: null, ticketId: ticket.id });
      expect(out.ticket.lastMessage).toBe('Olá! Já vamos atender.');
      expect(await ev).toMatchObject({ action: 'create', message: { id: out.message.id } });
      await waitPublished('message.send', (p) => p.messageId === out.message.id);
      await expect(createOutboundMessage(deps, { ticket, body: 'x', userId: A.admin.id })).rejects.toMatchObject({ code: 'ERR_TICKET_NOT_OPEN' });
    });

    test('applyReaction: one reaction per sender, replaced, removed by an empty emoji; update pushed; scoped by company', async () => {
      const { contact, ticket } = await conversation(A);
      const m = await insertMessage(k, A.companyId, { ticketId: ticket.id, contactId: contact.id, wid: 'WAMID.R1' });
      const s = await connect(A.userA);
      const ev = appEvent(s, 'update');
      await applyReaction(deps, A.companyId, 'WAMID.R1', { emoji: '👍', fromMe: false, senderId: '5511999@s.whatsapp.net' });
      expect(await ev).toMatchObject({ action: 'update', message: { id: m.id, reactions: [{ emoji: '👍', fromMe: false, senderId: '5511999@s.whatsapp.net' }] } });
      await applyReaction(deps, A.companyId, 'WAMID.R1', { emoji: '❤️', fromMe: true });
      await applyReaction(deps, A.companyId, 'WAMID.R1', { emoji: '😂', fromMe: false, senderId: '5511999@s.whatsapp.net' });
      let r = (await row(m.id))!;
      expect(r.reactions.map((x) => [x.emoji, x.fromMe, x.senderId])).toEqual([['❤️', true, undefined], ['😂', false, '5511999@s.whatsapp.net']]);
      expect(await applyReaction(deps, B.companyId, 'WAMID.R1', { emoji: '👎', fromMe: true })).toBeUndefined();
      await applyReaction(deps, A.companyId, 'WAMID.R1', { emoji: '', fromMe: false, senderId: '5511999@s.whatsapp.net' });
      r = (await row(m.id))!;
      expect(r.reactions.map((x) => x.emoji)).toEqual(['❤️']);
      expect(await applyReaction(deps, A.companyId, 'WAMID.R1', { emoji: '', fromMe: false, senderId: 'nobody' })).toBeUndefined();
      expect(await applyReaction(deps, A.companyId, 'WAMID.UNKNOWN', { emoji: '👍', fromMe: true })).toBeUndefined();
      const listed = (await k.as(A.userA, 'GET', `/messages/${ticket.id}`)).json();
      expect(listed.messages.find((x: { id: number }) => x.id === m.id).reactions).toEqual([expect.objectContaining({ emoji: '❤️', fromMe: true })]);
    });

    test('applyEdit and applyRemoteDelete: update pushed, idempotent, scoped by company', async () => {
      const { contact, ticket } = await conversation(A);
      const m = await insertMessage(k, A.companyId, { ticketId: ticket.id, contactId: contact.id, wid: 'WAMID.E1', body: 'antes' });
      const s = await connect(A.userA);
      const events = recorder(s);
      expect(await applyEdit(deps, B.companyId, 'WAMID.E1', 'hack')).toBeUndefined();
      expect(await applyEdit(deps, A.companyId, 'WAMID.E1', 'depois')).toMatchObject({ id: m.id, body: 'depois', isEdited: true });
      expect(await applyEdit(deps, A.companyId, 'WAMID.E1', 'depois')).toBeUndefined();
      expect(await applyRemoteDelete(deps, B.companyId, 'WAMID.E1')).toBeUndefined();
      expect(await applyRemoteDelete(deps, A.companyId, 'WAMID.E1')).toMatchObject({ id: m.id, isDeleted: true, body: 'depois' });
      expect(await applyRemoteDelete(deps, A.companyId, 'WAMID.E1')).toBeUndefined();
      await flush([s]);
      expect(events.map((e) => [e.payload.action, (e.payload.message as { body: string; isEdited: boolean; isDeleted: boolean }).isDeleted])).toEqual([
        ['update', false],
        ['update', true],
      ]);
    });

    test('applyStatus: the ack only moves forward', async () => {
      const { ticket } = await conversation(A);
      const m = await insertMessage(k, A.companyId, { ticketId: ticket.id, fromMe: true, userId: A.userA.id, wid: 'WAMID.S1', ack: 1, read: true });
      expect(await applyStatus(deps, { companyId: A.companyId, wid: 'WAMID.S1', ack: 3 })).toMatchObject({ ack: 3 });
      expect(await applyStatus(deps, { companyId: A.companyId, wid: 'WAMID.S1', ack: 2 })).toBeUndefined();
      expect(await applyStatus(deps, { companyId: A.companyId, wid: 'WAMID.S1', ack: 3 })).toBeUndefined();
      expect(await applyStatus(deps, { companyId: B.companyId, wid: 'WAMID.S1', ack: 4 })).toBeUndefined();
      expect((await row(m.id))?.ack).toBe(3);
      // Through the bus as an adapter reports it.
      await k.bus.publish('message.status', { companyId: A.companyId, wid: 'WAMID.S1', ack: 4 });
      await waitFor(async () => (await row(m.id))?.ack === 4);
      await k.bus.publish('message.status', { companyId: A.companyId, wid: 'WAMID.S1', ack: 2 });
      await k.bus.publish('message.status', { companyId: A.companyId, wid: 'WAMID.NONE', ack: 4 });
      const other = await insertMessage(k, A.companyId, { ticketId: ticket.id, fromMe: true, wid: 'WAMID.S2', ack: 0 });
      await k.bus.publish('message.status', { companyId: A.companyId, wid: 'WAMID.S2', ack: 2 });
      await waitFor(async () => (await row(other.id))?.ack === 2);
      expect((await row(m.id))?.ack).toBe(4);
    });
  });
});
