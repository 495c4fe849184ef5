/**
 * The socket rooms of the product family's client (wire-shapes §5, issue 32 item 1): `joinChatBox(ticketId)`,
 * `joinTickets(status)` and `joinNotification()` decide which ticket and message events a socket receives,
 * and a ticket that leaves a status sends `{action:'delete', ticketId}` to the old status room. A socket that
 * never joined a room (Atendo's own UI) keeps receiving every event of the tickets its user sees. Joins stay
 * inside the caller's company and visibility.
 */
import type { Socket } from 'socket.io-client';
import { nextEvent, type TestKernel } from '@atendo/testing';
import type { TicketRow } from '../src/model';
import { createContact, createTenant, eventsMatching, insertTicket, ticketsKernel, type Tenant } from './helpers';

jest.setTimeout(60000);

let k: TestKernel;
let base: string;
let t: Tenant;
let other: Tenant;
const open: Socket[] = [];

/** Emits a join with an ack and resolves with the server's answer `{ok}`. */
function join(s: Socket, event: string, ...args: unknown[]): Promise<{ ok: boolean }> {
  return new Promise((resolve) => s.emit(event, ...args, resolve));
}

async function connect(u: { token: string }): Promise<Socket> {
  const s = await k.socket(u.token, base);
  open.push(s);
  return s;
}

/** A ticket of company A with a contact of its own. */
async function ticket(o: { status: 'open' | 'pending'; userId?: number | null; queueId?: number | null; tenant?: Tenant }): Promise<TicketRow> {
  const tenant = o.tenant ?? t;
  const contact = await createContact(k, tenant.companyId);
  return insertTicket(k, tenant.companyId, { contactId: contact.id, whatsappId: tenant.conn.id, queueId: o.queueId === undefined ? tenant.queueA.id : o.queueId, userId: o.userId ?? null, status: o.status });
}

const ticketIdOf = (p: Record<string, any>): number | undefined => p.ticketId ?? p.ticket?.id ?? p.message?.ticketId;

beforeAll(async () => {
  k = await ticketsKernel();
  base = await k.listen();
  t = await createTenant(k);
  other = await createTenant(k);
});
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});
afterAll(() => k.close());

describe('rooms of the product family', () => {
  test("a socket that joined one ticket's chat box receives that ticket's messages and ticket events, and no other's; a socket that joined nothing gets both", async () => {
    const mine = await ticket({ status: 'open', userId: t.userA.id });
    const another = await ticket({ status: 'open', userId: t.userA.id });
    const chat = await connect(t.userA);
    const ours = await connect(t.userA);
    expect(await join(chat, 'joinChatBox', `${mine.id}`)).toEqual({ ok: true });
    const msgEv = `company-${t.companyId}-appMessage`;
    const tkEv = `company-${t.companyId}-ticket`;
    const chatMsgs = eventsMatching<Record<string, any>>(chat, msgEv, () => true, 4000);
    const chatTickets = eventsMatching<Record<string, any>>(chat, tkEv, () => true, 4000);
    const ourMsgs = eventsMatching<Record<string, any>>(ours, msgEv, (p) => p.action === 'create', 4000);
    for (const [id, body] of [[another.id, 'para outro cliente'], [mine.id, 'para este cliente']] as const) {
      const res = await k.as(t.userA, 'POST', `/messages/${id}`, { body, fromMe: true, read: 1, mediaUrl: '' });
      expect(res.statusCode).toBe(200);
    }
    const got = await chatMsgs;
    expect(got.length).toBeGreaterThan(0);
    expect(got.map(ticketIdOf).every((id) => id === mine.id)).toBe(true);
    expect(got.find((p) => p.action === 'create')).toMatchObject({ message: { body: expect.stringContaining('para este cliente'), ticketId: mine.id }, ticket: { id: mine.id } });
    const tickets = await chatTickets;
    expect(tickets.length).toBeGreaterThan(0);
    expect(tickets.map(ticketIdOf).every((id) => id === mine.id)).toBe(true);
    // Atendo's own UI (no room joined): both tickets' messages, as before.
    expect((await ourMsgs).map(ticketIdOf).sort()).toEqual([mine.id, another.id].sort());
  });

  test("a socket in the pending room receives delete for a ticket accepted out of it; the open room receives its update; our UI gets the update only", async () => {
    const waiting = await ticket({ status: 'pending' });
    const pending = await connect(t.userA);
    const opened = await connect(t.userA);
    const ours = await connect(t.userA);
    expect(await join(pending, 'joinTickets', 'pending')).toEqual({ ok: true });
    expect(await join(opened, 'joinTickets', 'open')).toEqual({ ok: true });
    const ev = `company-${t.companyId}-ticket`;
    const mineOnly = (p: Record<string, any>) => ticketIdOf(p) === waiting.id;
    const inPending = eventsMatching<Record<string, any>>(pending, ev, mineOnly, 4000);
    const inOpen = eventsMatching<Record<string, any>>(opened, ev, mineOnly, 4000);
    const inOurs = eventsMatching<Record<string, any>>(ours, ev, mineOnly, 4000);
    const res = await k.as(t.userA, 'PUT', `/tickets/${waiting.id}`, { status: 'open', userId: t.userA.id, queueId: t.queueA.id });
    expect(res.statusCode).toBe(200);
    expect(await inPending).toEqual([{ action: 'delete', ticketId: waiting.id }]);
    const openEvents = await inOpen;
    expect(openEvents.map((p) => p.action)).toEqual(['update']);
    expect(openEvents[0].ticket).toMatchObject({ id: waiting.id, status: 'open', userId: t.userA.id });
    expect((await inOurs).map((p) => p.action)).toEqual(['update']);
  });

  test('a new pending ticket reaches the pending room and notification, not the open or closed rooms', async () => {
    const tabs: Record<string, Socket> = {};
    for (const status of ['pending', 'open', 'closed']) {
      tabs[status] = await connect(t.userA);
      expect(await join(tabs[status], 'joinTickets', status)).toEqual({ ok: true });
    }
    const bell = await connect(t.userA);
    expect(await join(bell, 'joinNotification')).toEqual({ ok: true });
    const contact = await createContact(k, t.companyId);
    const ev = `company-${t.companyId}-ticket`;
    const seen = Object.fromEntries(['pending', 'open', 'closed'].map((s) => [s, eventsMatching<Record<string, any>>(tabs[s], ev, (p) => p.ticket?.contact?.id === contact.id, 1500)]));
    const bellSeen = eventsMatching<Record<string, any>>(bell, ev, (p) => p.ticket?.contact?.id === contact.id, 4000);
    const res = await k.as(t.userA, 'POST', '/tickets', { contactId: contact.id, queueId: t.queueA.id, userId: t.userA.id, status: 'open' });
    expect(res.statusCode).toBe(200);
    const status = res.json().status as string;
    for (const s of ['pending', 'open', 'closed']) expect({ s, n: (await seen[s]).length }).toEqual({ s, n: s === status ? 1 : 0 });
    expect((await bellSeen).length).toBe(1);
  });

  test("joinNotification receives the messages of the tickets the user sees, never of tickets outside the user's queues", async () => {
    const visible = await ticket({ status: 'open', userId: t.userA.id });
    const hidden = await ticket({ status: 'open', userId: t.userB.id, queueId: t.queueB.id });
    const bell = await connect(t.userA);
    expect(await join(bell, 'joinNotification')).toEqual({ ok: true });
    const got = eventsMatching<Record<string, any>>(bell, `company-${t.companyId}-appMessage`, (p) => p.action === 'create', 4000);
    expect((await k.as(t.admin, 'POST', `/messages/${hidden.id}`, { body: 'fila B', fromMe: true, read: 1, mediaUrl: '' })).statusCode).toBe(200);
    expect((await k.as(t.admin, 'POST', `/messages/${visible.id}`, { body: 'fila A', fromMe: true, read: 1, mediaUrl: '' })).statusCode).toBe(200);
    expect((await got).map(ticketIdOf)).toEqual([visible.id]);
  });

  test("joinChatBox only for a ticket of the caller's company that the caller may see", async () => {
    const foreign = await ticket({ status: 'open', tenant: other });
    const queueB = await ticket({ status: 'open', userId: t.userB.id, queueId: t.queueB.id });
    const own = await ticket({ status: 'open', userId: t.userA.id });
    const s = await connect(t.userA);
    expect(await join(s, 'joinChatBox', `${foreign.id}`)).toEqual({ ok: false });
    expect(await join(s, 'joinChatBox', `${queueB.id}`)).toEqual({ ok: false });
    for (const junk of ['0', '-1', 'abc', `${own.id} `, '1'.repeat(13), { id: own.id }, null]) expect(await join(s, 'joinChatBox', junk)).toEqual({ ok: false });
    expect(await join(s, 'joinChatBox', own.id)).toEqual({ ok: true });
    // The admin sees queue B.
    const admin = await connect(t.admin);
    expect(await join(admin, 'joinChatBox', `${queueB.id}`)).toEqual({ ok: true });
    // Company B's admin cannot join A's ticket, and gets nothing of it.
    const b = await connect(other.admin);
    expect(await join(b, 'joinChatBox', `${own.id}`)).toEqual({ ok: false });
    const leak = eventsMatching(b, `company-${t.companyId}-appMessage`, () => true, 800);
    const mine = nextEvent<Record<string, any>>(s, `company-${t.companyId}-appMessage`, 5000);
    expect((await k.as(t.userA, 'POST', `/messages/${own.id}`, { body: 'oi', fromMe: true, read: 1, mediaUrl: '' })).statusCode).toBe(200);
    expect((await mine).message.ticketId).toBe(own.id);
    expect(await leak).toEqual([]);
  });

  test('a status outside the known ones is refused; leaveTickets stops the events', async () => {
    const s = await connect(t.userA);
    expect(await join(s, 'joinTickets', 'c:1')).toEqual({ ok: false });
    expect(await join(s, 'joinTickets', 'open')).toEqual({ ok: true });
    const one = await ticket({ status: 'open', userId: t.userA.id });
    const first = nextEvent<Record<string, any>>(s, `company-${t.companyId}-ticket`, 5000);
    expect((await k.as(t.userA, 'PUT', `/tickets/${one.id}`, { status: 'open', userId: t.userA.id, queueId: t.queueB.id })).statusCode).toBe(200);
    expect((await first).ticket.id).toBe(one.id);
    s.emit('leaveTickets', 'open');
    await join(s, 'joinNotification');
    s.emit('leaveNotification');
    await join(s, 'joinTickets', 'closed');
    const none = eventsMatching(s, `company-${t.companyId}-ticket`, (p: Record<string, any>) => p.ticket?.id === one.id, 800);
    expect((await k.as(t.admin, 'PUT', `/tickets/${one.id}`, { status: 'open', userId: t.userA.id, queueId: t.queueA.id })).statusCode).toBe(200);
    expect(await none).toEqual([]);
  });
});
