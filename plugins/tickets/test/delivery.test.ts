import type { Socket } from 'socket.io-client';
import type { BusMessage } from '@atendo/sdk';
import { waitFor, type TestKernel } from '@atendo/testing';
import type { MessageRow } from '../src/model';
import { deliveryStateOf, sendErrorDetailOf } from '../src/services/messages';
import { contactsService } from '@atendo/plugin-contacts/contract';
import { createContact, createTenant, insertMessage, insertTicket, setCompanySetting, ticketsKernel, type Tenant } from './helpers';

jest.setTimeout(90_000);

/**
 * Delivery state and resend (issue 30): `send_error_detail` from `message.failed`, the wire's `sendErrorDetail` and
 * `deliveryState`, POST /messages/:messageId/resend, GET /messages/failed, POST /messages/failed/resend, tenancy.
 */
describe('tickets: delivery state and resend', () => {
  let k: TestKernel;
  let A: Tenant;
  let B: Tenant;
  const sends: BusMessage<Record<string, unknown>>[] = [];
  const open: Socket[] = [];

  const row = async (id: number) => (await k.db('messages').where({ id }).first()) as MessageRow;
  const sendsOf = (messageId: number) => sends.filter((m) => m.payload.messageId === messageId);
  const connect = async (u: { token: string }) => {
    const s = await k.socket(u.token, await k.listen());
    open.push(s);
    return s;
  };
  /** The next `company-{T}-appMessage` update of message `id` matching `pred` on `s` (3 s). */
  const update = (s: Socket, T: Tenant, id: number, pred: (m: Record<string, any>) => boolean): Promise<Record<string, any>> =>
    new Promise((resolve, reject) => {
      const name = `company-${T.companyId}-appMessage`;
      const timer = setTimeout(() => {
        s.off(name, on);
        reject(new Error(`no appMessage update of ${id} within 3 s`));
      }, 3000);
      const on = (p: Record<string, any>) => {
        if (p.action !== 'update' || p.message?.id !== id || !pred(p.message)) return;
        clearTimeout(timer);
        s.off(name, on);
        resolve(p.message);
      };
      s.on(name, on);
    });
  const conversation = async (T: Tenant, channel = 'whatsapp') => {
    const contact = await createContact(k, T.companyId, { name: 'Joana Lima', channel });
    const ticket = await insertTicket(k, T.companyId, { contactId: contact.id, whatsappId: T.conn.id, queueId: T.queueA.id, userId: T.userA.id, status: 'open', channel });
    return { contact, ticket };
  };
  /** Sends a text as userA of `T` and waits for its send command. */
  const sendText = async (T: Tenant, ticketId: number, body: string) => {
    const res = await k.as(T.userA, 'POST', `/messages/${ticketId}`, { body });
    expect(res.statusCode).toBe(200);
    const m = res.json();
    await waitFor(() => sendsOf(m.id).length > 0);
    return m as { id: number } & Record<string, unknown>;
  };
  /** A send of `T` that the provider refused (message.failed), as the row is then. */
  const failedSend = async (T: Tenant, ticketId: number, body: string, error: unknown = { code: 131026, text: 'Message undeliverable', retryable: false }) => {
    const m = await sendText(T, ticketId, body);
    await k.bus.publish('message.failed', { companyId: T.companyId, messageId: m.id, error });
    await waitFor(async () => (await row(m.id)).sendError !== null);
    return m;
  };

  beforeAll(async () => {
    k = await ticketsKernel();
    A = await createTenant(k);
    B = await createTenant(k);
    for (const T of [A, B]) await setCompanySetting(k, T.companyId, 'sendSignMessage', 'disabled');
    await k.bus.subscribe<Record<string, unknown>>(['message.send.*'], (m) => {
      sends.push(m);
    }, { queue: 'tickets-delivery-test' });
  });
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });
  afterAll(() => k.close());

  test('migration: messages.send_error_detail is a nullable text column, failed sends have their partial index', async () => {
    const col = await k.db('information_schema.columns').where({ table_name: 'messages', column_name: 'send_error_detail' }).first('data_type', 'is_nullable');
    expect(col).toEqual({ dataType: 'text', isNullable: 'YES' });
    const idx = await k.db('pg_indexes').where({ tablename: 'messages', indexname: 'messages_failed_sends_idx' }).first('indexdef');
    expect(idx?.indexdef).toMatch(/WHERE \(send_error IS NOT NULL\)/);
  });

  test('sendErrorDetailOf: the provider reason of a string, {code, text}, code only, nothing', () => {
    expect(sendErrorDetailOf('  timeout  ')).toBe('timeout');
    expect(sendErrorDetailOf({ code: 131026, text: 'Message undeliverable', retryable: false })).toBe('Message undeliverable (131026)');
    expect(sendErrorDetailOf({ code: 'ERR_X' })).toBe('ERR_X');
    expect(sendErrorDetailOf({ foo: 1 })).toBe('{"foo":1}');
    expect(sendErrorDetailOf(undefined)).toBeNull();
    expect(sendErrorDetailOf('')).toBeNull();
    expect(sendErrorDetailOf('x'.repeat(5000))).toHaveLength(1000);
  });

  test('deliveryStateOf: failed wins, else the ack (0 pending .. 4 played)', () => {
    expect([0, 1, 2, 3, 4].map((ack) => deliveryStateOf({ ack, sendError: null }))).toEqual(['pending', 'sent', 'delivered', 'read', 'played']);
    expect(deliveryStateOf({ ack: 1, sendError: 'ERR_SENDING_WAPP_MSG' })).toBe('failed');
  });

  test('message.failed stores the reason: sendErrorDetail and deliveryState on the push and in the conversation; message.sent/status clear it and move the state', async () => {
    const { ticket } = await conversation(A);
    const s = await connect(A.userA);
    const m = await sendText(A, ticket.id, 'vai falhar');
    expect(m).toMatchObject({ sendError: null, sendErrorDetail: null, deliveryState: 'pending', ack: 0 });
    const failedPush = update(s, A, m.id, (x) => x.deliveryState === 'failed');
    await k.bus.publish('message.failed', { companyId: A.companyId, messageId: m.id, error: { code: 131026, text: 'Message undeliverable', retryable: false } });
    expect(await failedPush).toMatchObject({ ack: 0, sendError: 'ERR_SENDING_WAPP_MSG', sendErrorDetail: 'Message undeliverable (131026)', deliveryState: 'failed' });
    expect(await row(m.id)).toMatchObject({ sendError: 'ERR_SENDING_WAPP_MSG', sendErrorDetail: 'Message undeliverable (131026)' });

    const page = (await k.as(A.userA, 'GET', `/messages/${ticket.id}`)).json();
    expect(page.messages.find((x: { id: number }) => x.id === m.id)).toMatchObject({ sendErrorDetail: 'Message undeliverable (131026)', deliveryState: 'failed' });

    // The provider accepts it later (a retry of the adapter): the reason goes, the state is 'sent'; then read, played.
    const sentPush = update(s, A, m.id, (x) => x.deliveryState === 'sent');
    await k.bus.publish('message.sent', { companyId: A.companyId, messageId: m.id, wid: `WAMID.DEL${m.id}` });
    expect(await sentPush).toMatchObject({ ack: 1, sendError: null, sendErrorDetail: null });
    const readPush = update(s, A, m.id, (x) => x.deliveryState === 'read');
    await k.bus.publish('message.status', { companyId: A.companyId, wid: `WAMID.DEL${m.id}`, ack: 3 });
    expect(await readPush).toMatchObject({ ack: 3 });
    const playedPush = update(s, A, m.id, (x) => x.deliveryState === 'played');
    await k.bus.publish('message.status', { companyId: A.companyId, wid: `WAMID.DEL${m.id}`, ack: 4 });
    expect(await playedPush).toMatchObject({ ack: 4 });
  });

  test('a string error is the reason as given; a private note is delivered', async () => {
    const { ticket } = await conversation(A);
    const m = await failedSend(A, ticket.id, 'texto', 'connection closed by provider');
    expect(await row(m.id)).toMatchObject({ sendErrorDetail: 'connection closed by provider' });
    const note = (await k.as(A.userA, 'POST', `/messages/${ticket.id}`, { body: 'nota', isPrivate: true })).json();
    expect(note).toMatchObject({ isPrivate: true, ack: 2, deliveryState: 'delivered', sendErrorDetail: null });
  });

  describe('POST /messages/:messageId/resend', () => {
    test('a failed send becomes pending again in one transaction with a new send command on its channel; the update is pushed', async () => {
      const { ticket, contact } = await conversation(A);
      const s = await connect(A.userA);
      const m = await failedSend(A, ticket.id, 'reenviar isto');
      const before = sendsOf(m.id).length;
      const pushed = update(s, A, m.id, (x) => x.deliveryState === 'pending');
      const res = await k.as(A.userA, 'POST', `/messages/${m.id}/resend`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: m.id, ack: 0, sendError: null, sendErrorDetail: null, deliveryState: 'pending', body: 'reenviar isto' });
      expect(await pushed).toMatchObject({ id: m.id, deliveryState: 'pending' });
      expect(await row(m.id)).toMatchObject({ ack: 0, sendError: null, sendErrorDetail: null });
      await waitFor(() => sendsOf(m.id).length === before + 1);
      const cmd = sendsOf(m.id)[before];
      expect(cmd.topic).toBe('message.send.whatsapp');
      expect(cmd.id).toMatch(new RegExp(`^message\\.send:${A.companyId}:${m.id}:r\\d+$`));
      expect(cmd.payload).toMatchObject({ companyId: A.companyId, messageId: m.id, ticketId: ticket.id, channel: 'whatsapp', to: contact.number, body: 'reenviar isto' });

      // It failed again: it can be resent again (a new command id).
      await k.bus.publish('message.failed', { companyId: A.companyId, messageId: m.id, error: 'again' });
      await waitFor(async () => (await row(m.id)).sendErrorDetail === 'again');
      expect((await k.as(A.userA, 'POST', `/messages/${m.id}/resend`)).statusCode).toBe(200);
      await waitFor(() => sendsOf(m.id).length === before + 2);
      expect(sendsOf(m.id)[before + 1].id).not.toBe(cmd.id);
    });

    test('the send command goes to the ticket channel\'s own topic (Cloud API)', async () => {
      const { ticket } = await conversation(A, 'whatsappapi');
      const m = await failedSend(A, ticket.id, 'api');
      expect((await k.as(A.userA, 'POST', `/messages/${m.id}/resend`)).statusCode).toBe(200);
      await waitFor(() => sendsOf(m.id).filter((x) => x.id.includes(':r')).length === 1);
      expect(sendsOf(m.id).find((x) => x.id.includes(':r'))!.topic).toBe('message.send.whatsappapi');
    });

    test('400 ERR_VALIDATION unless a failed send of ours, not private, not deleted; 404 in another company; 403 for a user who cannot see the ticket', async () => {
      const { ticket, contact } = await conversation(A);
      const ok = await sendText(A, ticket.id, 'não falhou');
      const inbound = await insertMessage(k, A.companyId, { ticketId: ticket.id, contactId: contact.id, body: 'oi' });
      await k.db('messages').where({ id: inbound.id }).update({ sendError: 'ERR_SENDING_WAPP_MSG' });
      const note = (await k.as(A.userA, 'POST', `/messages/${ticket.id}`, { body: 'nota', isPrivate: true })).json();
      await k.db('messages').where({ id: note.id }).update({ sendError: 'ERR_SENDING_WAPP_MSG' });
      const deleted = await failedSend(A, ticket.id, 'apagada');
      await k.db('messages').where({ id: deleted.id }).update({ isDeleted: true });
      for (const id of [ok.id, inbound.id, note.id, deleted.id]) {
        const res = await k.as(A.userA, 'POST', `/messages/${id}/resend`);
        expect([id, res.statusCode, res.json().error]).toEqual([id, 400, 'ERR_VALIDATION']);
      }
      const failed = await failedSend(A, ticket.id, 'de A');
      const count = sendsOf(failed.id).length;
      const fromB = await k.as(B.admin, 'POST', `/messages/${failed.id}/resend`);
      expect([fromB.statusCode, fromB.json().error]).toEqual([404, 'ERR_NO_MESSAGE_FOUND']);
      // userB serves queue B only: A's ticket in queue A assigned to userA is not theirs.
      const hidden = await k.as(A.userB, 'POST', `/messages/${failed.id}/resend`);
      expect([hidden.statusCode, hidden.json().error]).toEqual([403, 'ERR_NO_PERMISSION']);
      expect((await k.as(A.userA, 'POST', '/messages/abc/resend')).json().error).toBe('ERR_VALIDATION');
      expect((await k.as(A.userA, 'POST', '/messages/999999999/resend')).statusCode).toBe(404);
      // Nothing of this resent it.
      expect(await row(failed.id)).toMatchObject({ sendError: 'ERR_SENDING_WAPP_MSG' });
      expect(sendsOf(failed.id)).toHaveLength(count);
    });
  });

  describe('GET /messages/failed and POST /messages/failed/resend (admin)', () => {
    test('lists the company\'s failed sends newest first with contact, channel, excerpt and reason; 20 a page; other companies never', async () => {
      const T = await createTenant(k);
      await setCompanySetting(k, T.companyId, 'sendSignMessage', 'disabled');
      const empty = await k.as(T.admin, 'GET', '/messages/failed');
      expect(empty.json()).toEqual({ records: [], count: 0, hasMore: false });
      const contact = await createContact(k, T.companyId, { name: 'Carla Dias' });
      const ticket = await insertTicket(k, T.companyId, { contactId: contact.id, whatsappId: T.conn.id, queueId: T.queueA.id, userId: T.userA.id, status: 'open' });
      const base = Date.now() - 3600_000;
      const ids: number[] = [];
      for (let i = 0; i < 21; i++) {
        const m = await insertMessage(k, T.companyId, { ticketId: ticket.id, fromMe: true, read: true, userId: T.userA.id, wid: null, body: `falha ${i} ${'x'.repeat(200)}`, createdAt: new Date(base + i * 1000) });
        await k.db('messages').where({ id: m.id }).update({ sendError: 'ERR_SENDING_WAPP_MSG', sendErrorDetail: `motivo ${i}` });
        ids.push(m.id);
      }
      // Not failed sends: a sent one, a deleted failed one.
      await insertMessage(k, T.companyId, { ticketId: ticket.id, fromMe: true, read: true, wid: null, body: 'ok' });
      const del = await insertMessage(k, T.companyId, { ticketId: ticket.id, fromMe: true, read: true, wid: null, body: 'apagada' });
      await k.db('messages').where({ id: del.id }).update({ sendError: 'ERR_SENDING_WAPP_MSG', isDeleted: true });

      const p1 = await k.as(T.admin, 'GET', '/messages/failed');
      expect(p1.statusCode).toBe(200);
      const b1 = p1.json();
      expect(b1.count).toBe(21);
      expect(b1.hasMore).toBe(true);
      expect(b1.records).toHaveLength(20);
      expect(b1.records.map((r: { id: number }) => r.id)).toEqual(ids.slice(1).reverse());
      expect(b1.records[0]).toEqual({
        id: ids[20], ticketId: ticket.id, contactId: contact.id, contactName: 'Carla Dias', channel: 'whatsapp',
        body: `falha 20 ${'x'.repeat(200)}`.slice(0, 120), mediaType: 'conversation', sendError: 'ERR_SENDING_WAPP_MSG', sendErrorDetail: 'motivo 20',
        createdAt: new Date(base + 20_000).toISOString(),
      });
      const b2 = (await k.as(T.admin, 'GET', '/messages/failed?pageNumber=2')).json();
      expect(b2).toMatchObject({ count: 21, hasMore: false });
      expect(b2.records.map((r: { id: number }) => r.id)).toEqual([ids[0]]);

      // Tenancy: A's admin sees none of T's.
      const fromA = (await k.as(A.admin, 'GET', '/messages/failed?pageNumber=1')).json();
      expect(fromA.records.some((r: { id: number }) => ids.includes(r.id))).toBe(false);
      // Admin only; bad input.
      expect((await k.as(T.userA, 'GET', '/messages/failed')).statusCode).toBe(403);
      expect((await k.as(T.admin, 'GET', '/messages/failed?pageNumber=0')).json().error).toBe('ERR_VALIDATION');
    });

    test('resends the given ones (ids of another company skipped) or all; admin only; schema-validated', async () => {
      const { ticket } = await conversation(A);
      const a1 = await failedSend(A, ticket.id, 'a1');
      const a2 = await failedSend(A, ticket.id, 'a2');
      const b = await conversation(B);
      const b1 = await failedSend(B, b.ticket.id, 'b1');

      expect((await k.as(A.userA, 'POST', '/messages/failed/resend', {})).statusCode).toBe(403);
      expect((await k.as(A.admin, 'POST', '/messages/failed/resend', { ids: [] })).json().error).toBe('ERR_VALIDATION');
      expect((await k.as(A.admin, 'POST', '/messages/failed/resend', { ids: ['x'] })).json().error).toBe('ERR_VALIDATION');
      expect((await k.as(A.admin, 'POST', '/messages/failed/resend', { ids: [0] })).json().error).toBe('ERR_VALIDATION');

      const one = await k.as(A.admin, 'POST', '/messages/failed/resend', { ids: [a1.id, b1.id] });
      expect(one.json()).toEqual({ resent: 1, skippedOptedOut: 0 });
      expect(await row(a1.id)).toMatchObject({ sendError: null });
      expect(await row(a2.id)).toMatchObject({ sendError: 'ERR_SENDING_WAPP_MSG' });
      expect(await row(b1.id)).toMatchObject({ sendError: 'ERR_SENDING_WAPP_MSG' });
      await waitFor(() => sendsOf(a1.id).some((x) => x.id.includes(':r')));
      expect(sendsOf(b1.id).some((x) => x.id.includes(':r'))).toBe(false);

      const all = await k.as(A.admin, 'POST', '/messages/failed/resend', {});
      expect(all.statusCode).toBe(200);
      expect(all.json().resent).toBeGreaterThanOrEqual(1);
      expect(await row(a2.id)).toMatchObject({ sendError: null, ack: 0 });
      expect(await row(b1.id)).toMatchObject({ sendError: 'ERR_SENDING_WAPP_MSG' });
      expect((await k.as(A.admin, 'GET', '/messages/failed')).json().records.map((r: { id: number }) => r.id)).not.toContain(a2.id);
      // B's admin resends B's.
      expect((await k.as(B.admin, 'POST', '/messages/failed/resend', { ids: [b1.id] })).json()).toEqual({ resent: 1, skippedOptedOut: 0 });
    });

    test('issue 34: a bulk resend skips the failed sends to a contact who opted out and counts them; one can still be resent on its own; other companies unaffected', async () => {
      const T = await createTenant(k);
      await setCompanySetting(k, T.companyId, 'sendSignMessage', 'disabled');
      const out = await conversation(T);
      const stays = await conversation(T);
      const o1 = await failedSend(T, out.ticket.id, 'promo 1');
      const o2 = await failedSend(T, out.ticket.id, 'promo 2');
      const s1 = await failedSend(T, stays.ticket.id, 'promo 3');
      await k.services.get(contactsService).setOptOut!(T.companyId, out.contact.id, { keyword: 'SAIR' });
      // Another company's failed send to its own contact (not opted out).
      const other = await conversation(B);
      const b1 = await failedSend(B, other.ticket.id, 'de B');

      expect((await k.as(T.admin, 'POST', '/messages/failed/resend', { ids: [o1.id, s1.id] })).json()).toEqual({ resent: 1, skippedOptedOut: 1 });
      expect(await row(o1.id)).toMatchObject({ sendError: 'ERR_SENDING_WAPP_MSG' });
      expect(await row(s1.id)).toMatchObject({ sendError: null });
      expect((await k.as(T.admin, 'POST', '/messages/failed/resend', {})).json()).toEqual({ resent: 0, skippedOptedOut: 2 });
      expect(sendsOf(o2.id).some((x) => x.id.includes(':r'))).toBe(false);
      expect((await k.as(B.admin, 'POST', '/messages/failed/resend', { ids: [b1.id] })).json()).toEqual({ resent: 1, skippedOptedOut: 0 });
      // The deliberate resend of one message (a conversational reply) still goes.
      expect((await k.as(T.admin, 'POST', `/messages/${o2.id}/resend`)).statusCode).toBe(200);
      await waitFor(() => sendsOf(o2.id).some((x) => x.id.includes(':r')));
    });

    test('a user who sees the ticket, not only the author, may resend one', async () => {
      const { ticket } = await conversation(A);
      const m = await failedSend(A, ticket.id, 'do colega');
      const res = await k.as(A.admin, 'POST', `/messages/${m.id}/resend`);
      expect([res.statusCode, res.json().deliveryState]).toEqual([200, 'pending']);
    });
  });
});
