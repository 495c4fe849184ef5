/**
 * The ticket visibility guard (issue 18 item 4). Every route registered by any discovered plugin is read
 * from the OpenAPI document; those that name a ticket or a message (a `ticketId` / `messageId` parameter or
 * body property, or a path parameter under /tickets, /tickets-log, /messages, /ticket-notes, /ticket-tags)
 * must each appear in CALLS below (a new ticket-scoped route fails this test until it is added), and each
 * must refuse a ticket outside the caller's view: 403 ERR_NO_PERMISSION for a user of the same company
 * who cannot see the ticket (another queue, assigned to someone else), 404 for the admin of another
 * company, with nothing written. The ticket's owner passes the guard with the same requests. Then the
 * issue's case: forwarding a visible message into a contact whose active ticket the caller cannot see.
 */
import { createTestKernel, type TestKernel, type TestUser } from '@atendo/testing';
import type { TicketRow, MessageRow } from '../src/model';
import { createContact, createTag, createTenant, insertMessage, insertTicket, type Tenant } from './helpers';

jest.setTimeout(60000);

interface Operation {
  parameters?: { in: string; name: string }[];
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
}
type OpenApi = { paths: Record<string, Record<string, Operation>> };

const NAMED = new Set(['ticketId', 'messageId']);
const SCOPED_PREFIX = /^\/(tickets|tickets-log|ticket|messages|message|ticket-notes|ticket-tags)\//;

/** "METHOD /path" of every route that names a ticket or a message, from the OpenAPI document. */
function ticketScopedRoutes(doc: OpenApi): string[] {
  const out: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const params = op.parameters ?? [];
      const bodyProps = Object.values(op.requestBody?.content ?? {}).flatMap((c) => Object.keys(c.schema?.properties ?? {}));
      const names = [...params.map((p) => p.name), ...bodyProps];
      const pathParam = params.some((p) => p.in === 'path');
      if (names.some((n) => NAMED.has(n)) || (pathParam && SCOPED_PREFIX.test(path))) out.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return out.sort();
}

interface Fixture {
  ticket: TicketRow;
  message: MessageRow;
  /** A message of ours whose send failed (the resend route's subject). */
  failedId: number;
  noteId: number;
  tagId: number;
  /** A contact the forward goes to (no active ticket). */
  target: number;
}
type Call = (f: Fixture) => { url: string; body?: unknown };

/** How to call each ticket-scoped route on the fixture's ticket. */
const CALLS: Record<string, Call> = {
  'GET /tickets/{id}': (f) => ({ url: `/tickets/${f.ticket.id}` }),
  'GET /tickets/u/{uuid}': (f) => ({ url: `/tickets/u/${f.ticket.uuid}` }),
  'PUT /tickets/{id}': (f) => ({ url: `/tickets/${f.ticket.id}`, body: { useIntegration: false } }),
  'DELETE /tickets/{id}': (f) => ({ url: `/tickets/${f.ticket.id}` }),
  'GET /tickets-log/{id}': (f) => ({ url: `/tickets-log/${f.ticket.id}` }),
  'GET /messages/{ticketId}': (f) => ({ url: `/messages/${f.ticket.id}` }),
  'POST /messages/{ticketId}': (f) => ({ url: `/messages/${f.ticket.id}`, body: { body: 'guarded text' } }),
  'PUT /messages/{id}': (f) => ({ url: `/messages/${f.message.id}`, body: { body: 'edited text' } }),
  'DELETE /messages/{id}': (f) => ({ url: `/messages/${f.message.id}` }),
  'PUT /messages/{id}/reaction': (f) => ({ url: `/messages/${f.message.id}/reaction`, body: { emoji: '👍' } }),
  'POST /messages/{messageId}/resend': (f) => ({ url: `/messages/${f.failedId}/resend` }),
  'POST /message/forward': (f) => ({ url: '/message/forward', body: { messageId: f.message.id, contactId: f.target } }),
  'POST /ticket-notes': (f) => ({ url: '/ticket-notes', body: { note: 'guarded note', ticketId: f.ticket.id, contactId: f.ticket.contactId } }),
  'GET /ticket-notes/list': (f) => ({ url: `/ticket-notes/list?ticketId=${f.ticket.id}` }),
  'DELETE /ticket-notes/{id}': (f) => ({ url: `/ticket-notes/${f.noteId}` }),
  'PUT /ticket-tags/{ticketId}/{tagId}': (f) => ({ url: `/ticket-tags/${f.ticket.id}/${f.tagId}` }),
  'DELETE /ticket-tags/{ticketId}': (f) => ({ url: `/ticket-tags/${f.ticket.id}` }),
  'DELETE /ticket-tags/{ticketId}/{tagId}': (f) => ({ url: `/ticket-tags/${f.ticket.id}/${f.tagId}` }),
};

/**
 * Routes that carry a `ticketId` without acting on that ticket, and why. Each must still be registered
 * (so this list cannot rot).
 */
const NOT_TICKET_SCOPED: Record<string, string> = {
  'POST /schedules': "ticketId is accepted and ignored (the product family's client sends it); the server picks the ticket at send time",
  'PUT /schedules/{id}': 'the same body as POST /schedules, each field optional',
  'GET /sla/tickets/{ticketId}': "read-only due times: a ticket without an SLA, of another company or that the caller does not see is one 404 ERR_NO_SLA_FOUND (never 403, so a hidden ticket's existence is not told); plugins/sla/test/sla.test.ts checks it",
};

/** Routes only admins may call: the owner's pass uses the company admin. */
const ADMIN_ONLY = new Set(['DELETE /tickets/{id}']);

let k: TestKernel;
let t: Tenant;
let other: Tenant;
let routes: string[];

async function fixture(): Promise<Fixture> {
  // A ticket of queue B, open and assigned to userB: userA (queue A only) cannot see it.
  const contact = await createContact(k, t.companyId);
  const ticket = await insertTicket(k, t.companyId, { contactId: contact.id, whatsappId: t.conn.id, queueId: t.queueB.id, userId: t.userB.id, status: 'open' });
  const message = await insertMessage(k, t.companyId, { ticketId: ticket.id, fromMe: true, read: true, userId: t.userB.id, body: 'from Bruno' });
  const failed = await insertMessage(k, t.companyId, { ticketId: ticket.id, fromMe: true, read: true, userId: t.userB.id, body: 'not delivered' });
  await k.db('messages').where({ id: failed.id }).update({ sendError: 'ERR_SENDING_WAPP_MSG' });
  const [note] = await k.db('ticketNotes').insert({ companyId: t.companyId, ticketId: ticket.id, contactId: contact.id, userId: t.userB.id, note: 'a note' }).returning('id');
  const tag = await createTag(k, t.companyId);
  await k.db('ticketTags').insert({ companyId: t.companyId, ticketId: ticket.id, tagId: tag.id });
  const target = await createContact(k, t.companyId);
  return { ticket, message, failedId: failed.id, noteId: Number(typeof note === 'object' ? note.id : note), tagId: tag.id, target: target.id };
}

/** Everything a refused call could have changed. */
async function state(f: Fixture): Promise<unknown> {
  const ticket = await k.db('tickets').where({ id: f.ticket.id }).first('status', 'queueId', 'userId', 'useIntegration', 'updatedAt');
  const messages = await k.db('messages').where({ ticketId: f.ticket.id }).orderBy('id').select('id', 'body', 'isDeleted', 'reactions', 'sendError');
  const notes = await k.db('ticketNotes').where({ ticketId: f.ticket.id }).orderBy('id').select('id', 'note');
  const tags = await k.db('ticketTags').where({ ticketId: f.ticket.id }).orderBy('tagId').select('tagId');
  const logs = await k.db('ticketLogs').where({ ticketId: f.ticket.id }).count<{ count: string }[]>('id as count');
  const forwarded = await k.db('tickets').where({ companyId: t.companyId, contactId: f.target }).count<{ count: string }[]>('id as count');
  return { ticket, messages, notes, tags, logs, forwarded };
}

beforeAll(async () => {
  k = await createTestKernel({ plugins: 'discover' });
  t = await createTenant(k);
  other = await createTenant(k);
  await k.app.ready();
  routes = ticketScopedRoutes(k.app.swagger() as unknown as OpenApi);
});

afterAll(async () => {
  await k?.close();
});

test('every ticket-scoped route is known to this test (add new ones to CALLS)', () => {
  expect(routes.length).toBeGreaterThanOrEqual(Object.keys(CALLS).length);
  const unknown = routes.filter((r) => !(r in CALLS) && !(r in NOT_TICKET_SCOPED));
  expect(unknown).toEqual([]);
  // And nothing listed here is gone (a renamed route must be renamed here too).
  expect(Object.keys(CALLS).filter((r) => !routes.includes(r))).toEqual([]);
  expect(Object.keys(NOT_TICKET_SCOPED).filter((r) => !routes.includes(r))).toEqual([]);
});

test('each ticket-scoped route refuses a user who cannot see the ticket (403) and another company (404), writing nothing; the owner passes', async () => {
  const f = await fixture();
  const before = await state(f);
  const refusals: string[] = [];
  const outsiders: [TestUser, number, string][] = [
    [t.userA, 403, 'ERR_NO_PERMISSION'],
    [other.admin, 404, ''],
    [other.userA, 404, ''],
  ];
  for (const route of Object.keys(CALLS)) {
    const [method] = route.split(' ');
    const { url, body } = CALLS[route](f);
    for (const [user, status, code] of outsiders) {
      const r = await k.as(user, method, url, body);
      const got = r.json() as { error?: string };
      // Admin-only routes refuse plain users by role before any lookup (403 whatever the company).
      if (ADMIN_ONLY.has(route) && user.profile === 'user' && r.statusCode === 403 && got.error === 'ERR_NO_PERMISSION') continue;
      if (r.statusCode !== status || (code && got.error !== code) || (status === 404 && !/^ERR_NO_\w+_FOUND$/.test(got.error ?? ''))) {
        refusals.push(`${route} as ${user === t.userA ? 'userA' : 'other company'}: ${r.statusCode} ${r.body.slice(0, 120)}`);
      }
    }
  }
  expect(refusals).toEqual([]);
  expect(await state(f)).toEqual(before);

  // The same requests by the ticket's owner (admin-only routes: the company's admin) get past the guard.
  // Destructive ones last, so each finds its subject.
  const order = Object.keys(CALLS).sort((a, b) => Number(a.startsWith('DELETE')) - Number(b.startsWith('DELETE')) || Number(a === 'DELETE /tickets/{id}') - Number(b === 'DELETE /tickets/{id}'));
  const failures: string[] = [];
  for (const route of order) {
    const [method] = route.split(' ');
    const { url, body } = CALLS[route](f);
    const r = await k.as(ADMIN_ONLY.has(route) ? t.admin : t.userB, method, url, body);
    if (r.statusCode >= 400) failures.push(`${route}: ${r.statusCode} ${r.body.slice(0, 160)}`);
  }
  expect(failures).toEqual([]);
});

test('forwarding a visible message into a contact whose active ticket the caller cannot see is refused', async () => {
  // userA sees a ticket of queue A; the target contact's active ticket is in queue B, assigned to userB.
  const mineContact = await createContact(k, t.companyId);
  const mine = await insertTicket(k, t.companyId, { contactId: mineContact.id, whatsappId: t.conn.id, queueId: t.queueA.id, userId: t.userA.id, status: 'open' });
  const msg = await insertMessage(k, t.companyId, { ticketId: mine.id, body: 'forward me' });
  const hidden = await createContact(k, t.companyId);
  const theirs = await insertTicket(k, t.companyId, { contactId: hidden.id, whatsappId: t.conn.id, queueId: t.queueB.id, userId: t.userB.id, status: 'open' });
  const refused = await k.as(t.userA, 'POST', '/message/forward', { messageId: msg.id, contactId: hidden.id });
  expect(refused.statusCode).toBe(403);
  expect(refused.json().error).toBe('ERR_NO_PERMISSION');
  const [{ count }] = await k.db('messages').where({ ticketId: theirs.id }).count<{ count: string }[]>('id as count');
  expect(Number(count)).toBe(0);
  // The admin sees both tickets: the same forward lands in the contact's active ticket.
  const ok = await k.as(t.admin, 'POST', '/message/forward', { messageId: msg.id, contactId: hidden.id });
  expect(ok.statusCode).toBe(200);
  expect(ok.json().ticketId).toBe(theirs.id);
});
