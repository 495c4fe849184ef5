/**
 * LGPD masking that cannot be bypassed (issue 18 item 5). With the company setting lgpdHideNumber enabled,
 * a viewer who is not an admin (profile user) never receives a contact's full number, over REST (contacts,
 * tickets, messages with their JIDs and raw provider payloads) or over sockets (contact and ticket events),
 * and cannot recover it by searching digit by digit; a search by the complete number still finds the
 * contact (server-side). Admins see and search full numbers.
 */
import { randomBytes } from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { ENVELOPE_SCHEMA_VERSION, envelopeId, idempotencyKey, type Envelope } from '@atendo/sdk';
import type { TestKernel } from '@atendo/testing';
import { waitFor } from '@atendo/testing';
import { createContact, createTenant, insertMessage, insertTicket, ticketsKernel, type ContactFixture, type Tenant } from './helpers';

jest.setTimeout(60000);

let k: TestKernel;
let t: Tenant;
let base: string;
let person: ContactFixture;
const NUMBER = '5511987654321';
const MASKED = '55119******21';

beforeAll(async () => {
  k = await ticketsKernel();
  t = await createTenant(k);
  person = await createContact(k, t.companyId, { name: 'Joana Prado', number: NUMBER });
  base = await k.listen();
  const r = await k.as(t.admin, 'PUT', '/companySettings', { column: 'lgpdHideNumber', data: 'enabled' });
  expect(r.statusCode).toBe(200);
});

afterAll(async () => {
  await k?.close();
});

/** Every event a socket receives, as JSON text. */
function record(s: Socket): string[] {
  const got: string[] = [];
  s.onAny((event: string, ...args: unknown[]) => got.push(`${event} ${JSON.stringify(args)}`));
  return got;
}

test('REST: masked numbers for a plain user everywhere (contacts, tickets, messages, JIDs, raw payloads); admins see them in full', async () => {
  const ticket = await insertTicket(k, t.companyId, { contactId: person.id, whatsappId: t.conn.id, queueId: t.queueA.id, userId: t.userA.id, status: 'open' });
  const m = await insertMessage(k, t.companyId, { ticketId: ticket.id, contactId: person.id, body: 'oi' });
  await k.db('messages').where({ id: m.id }).update({
    remoteJid: `${NUMBER}@s.whatsapp.net`,
    participant: null,
    dataJson: JSON.stringify({ key: { remoteJid: `${NUMBER}@s.whatsapp.net` }, from: NUMBER, contacts: [{ wa_id: NUMBER }] }),
  });
  const urls = [`/contacts/${person.id}`, '/contacts?searchParam=Joana', '/contacts/list?searchParam=Joana', `/tickets/${ticket.id}`, '/tickets?status=open&showAll=true', `/messages/${ticket.id}`];
  for (const url of urls) {
    const asUser = await k.as(t.userA, 'GET', url);
    expect(asUser.statusCode).toBe(200);
    expect({ url, full: asUser.body.includes('987654321') }).toEqual({ url, full: false });
    expect(asUser.body).toContain(MASKED);
    const asAdmin = await k.as(t.admin, 'GET', url);
    expect(asAdmin.statusCode).toBe(200);
    expect({ url, full: asAdmin.body.includes(NUMBER) }).toEqual({ url, full: true });
  }
});

test('search: a plain user finds a contact only by its complete number (never digit by digit); admins by any part', async () => {
  const contactIds = async (user: { token: string }, term: string) => {
    const r = await k.as(user, 'GET', `/contacts?searchParam=${encodeURIComponent(term)}`);
    expect(r.statusCode).toBe(200);
    return (r.json().contacts as { id: number }[]).map((c) => c.id);
  };
  const ticketIds = async (user: { token: string }, term: string) => {
    const r = await k.as(user, 'GET', `/tickets?status=search&showAll=true&searchParam=${encodeURIComponent(term)}`);
    expect(r.statusCode).toBe(200);
    return (r.json().tickets as { contact: { id: number } }[]).map((x) => x.contact.id);
  };
  const listIds = async (user: { token: string }, term: string) => {
    const r = await k.as(user, 'GET', `/contacts/list?searchParam=${encodeURIComponent(term)}`);
    return (r.json() as { id: number }[]).map((c) => c.id);
  };
  // The digit-by-digit attack: every prefix and infix of the number.
  for (const part of ['5511987', '98765', '87654321', '551198765432', '1198765432']) {
    expect(await contactIds(t.userA, part)).not.toContain(person.id);
    expect(await listIds(t.userA, part)).not.toContain(person.id);
    expect(await ticketIds(t.userA, part)).not.toContain(person.id);
    expect(await contactIds(t.admin, part)).toContain(person.id);
  }
  // The complete number, as typed in several ways, still finds it (masked in the answer).
  for (const full of [NUMBER, '+55 (11) 98765-4321', '11987654321']) {
    expect(await contactIds(t.userA, full)).toContain(person.id);
    expect(await listIds(t.userA, full)).toContain(person.id);
  }
  expect(await ticketIds(t.userA, NUMBER)).toContain(person.id);
  // A contact whose name is its number (Messenger/Instagram ids) is not found by part of that name.
  const psid = await createContact(k, t.companyId, { name: '7391846205517', number: '7391846205517', channel: 'facebook' });
  expect(await contactIds(t.userA, '739184')).not.toContain(psid.id);
  expect(await contactIds(t.userA, '7391846205517')).toContain(psid.id);
});

test('sockets: contact and ticket events reach a plain user masked and an admin in full', async () => {
  const userSocket = await k.socket(t.userA.token, base);
  const adminSocket = await k.socket(t.admin.token, base);
  try {
    const userGot = record(userSocket);
    const adminGot = record(adminSocket);
    // A contact event (the contacts plugin emits full numbers; the kernel masks per viewer).
    const r = await k.as(t.admin, 'PUT', `/contacts/${person.id}`, { name: 'Joana P. Prado' });
    expect(r.statusCode).toBe(200);
    // A ticket event with the contact inside.
    const ticket = await insertTicket(k, t.companyId, { contactId: (await createContact(k, t.companyId, { number: '5521912345678' })).id, whatsappId: t.conn.id, queueId: t.queueA.id, status: 'pending' });
    const accept = await k.as(t.userA, 'PUT', `/tickets/${ticket.id}`, { status: 'open', userId: t.userA.id });
    expect(accept.statusCode).toBe(200);
    await waitFor(() => userGot.some((e) => e.includes('Joana P. Prado')) && userGot.some((e) => e.startsWith(`company-${t.companyId}-ticket`)) && adminGot.some((e) => e.includes('Joana P. Prado')));
    const userText = userGot.join('\n');
    expect(userText).not.toContain('987654321');
    expect(userText).not.toContain('912345678');
    expect(userText).toContain(MASKED);
    expect(adminGot.join('\n')).toContain(NUMBER);
  } finally {
    userSocket.close();
    adminSocket.close();
  }
});

test('setting disabled: everyone gets full numbers again, at once', async () => {
  const r = await k.as(t.admin, 'PUT', '/companySettings', { column: 'lgpdHideNumber', data: 'disabled' });
  expect(r.statusCode).toBe(200);
  const c = await k.as(t.userA, 'GET', `/contacts/${person.id}`);
  expect(c.json().number).toBe(NUMBER);
  const userSocket = await k.socket(t.userA.token, base);
  try {
    const got = record(userSocket);
    await waitFor(async () => {
      await k.as(t.admin, 'PUT', `/contacts/${person.id}`, { name: `Joana ${Date.now()}` });
      return got.some((e) => e.includes(NUMBER));
    }, 5000, 300);
  } finally {
    userSocket.close();
  }
});

test("setting off: a plain user gets the customer's number in full in every event, also right after a settings change and once the cached setting aged (issue 31: masked after a contact card)", async () => {
  const u = t;
  expect((await k.as(u.admin, 'PUT', '/companySettings', { column: 'lgpdHideNumber', data: 'disabled' })).statusCode).toBe(200);
  const number = '5511976543210';
  const customer = await createContact(k, u.companyId, { name: 'Rita Cliente', number });
  await k.db('contacts').where({ id: customer.id }).update({ remoteJid: `${number}@s.whatsapp.net` });
  const ticket = await insertTicket(k, u.companyId, { contactId: customer.id, whatsappId: u.conn.id, queueId: u.queueA.id, userId: u.userA.id, status: 'open' });
  /** A message of the customer, as the WhatsApp adapter publishes it. */
  const inbound = async (content: Envelope['content']) => {
    const externalId = `wamid.${randomBytes(8).toString('hex')}`;
    const key = idempotencyKey('whatsapp', u.conn.id, 'message', externalId);
    const env = {
      schemaVersion: ENVELOPE_SCHEMA_VERSION, id: envelopeId(key), idempotencyKey: key, channel: 'whatsapp', direction: 'in', kind: 'message', occurredAt: new Date().toISOString(),
      companyId: u.companyId, connectionId: u.conn.id, thread: { externalId: number, isGroup: false }, sender: { externalId: number, name: 'Rita Cliente', phone: number, jid: `${number}@s.whatsapp.net` },
      externalId, content, raw: { key: { id: externalId } },
    } as Envelope;
    await k.bus.publish('channel.inbound.whatsapp.message', env, { id: key });
    return externalId;
  };
  const card = { type: 'contact', vcards: ['BEGIN:VCARD\nVERSION:3.0\nFN:Pedro\nTEL;type=CELL;waid=5521955554444:+55 21 95555-4444\nEND:VCARD'] } as Envelope['content'];
  const userSocket = await k.socket(u.userA.token, base);
  const got = record(userSocket);
  /** The events the user got for the message `wid` (its appMessage and the ticket update after it), once both came. */
  const eventsOf = async (wid: string) => {
    const at = (await waitFor(() => {
      const i = got.findIndex((e) => e.startsWith(`company-${u.companyId}-appMessage`) && e.includes(wid));
      return i >= 0 && got.slice(i).some((e) => e.startsWith(`company-${u.companyId}-ticket`)) ? { i } : false;
    }, 5000)) as { i: number };
    const out = got.slice(at.i);
    got.length = 0;
    return out;
  };
  const expectFull = (events: string[]) => {
    const text = events.join('\n');
    expect(text).toContain(`"number":"${number}"`);
    expect(text).not.toContain('******');
  };
  try {
    // Another setting changes: every node forgets the company's settings, the next events come at once.
    expect((await k.as(u.admin, 'PUT', '/companySettings', { column: 'userRating', data: 'enabled' })).statusCode).toBe(200);
    expectFull(await eventsOf(await inbound(card)));
    // The cached setting is older than its lifetime (5 s) when the next message comes.
    const realNow = Date.now;
    const later = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 6000);
    try {
      expectFull(await eventsOf(await inbound(card)));
      expectFull(await eventsOf(await inbound({ type: 'text', text: 'Recebeu o contato?' } as Envelope['content'])));
    } finally {
      later.mockRestore();
    }
    // Hiding switched on: the very next events are masked (never a full number while the change spreads).
    expect((await k.as(u.admin, 'PUT', '/companySettings', { column: 'lgpdHideNumber', data: 'enabled' })).statusCode).toBe(200);
    const masked = (await eventsOf(await inbound(card))).join('\n');
    expect(masked).not.toContain(number);
    expect(masked).toContain('"number":"55119******10"');
    // The ticket as the inbox reads it afterwards: the number as the setting says.
    expect((await k.as(u.admin, 'PUT', '/companySettings', { column: 'lgpdHideNumber', data: 'disabled' })).statusCode).toBe(200);
    expect((await k.as(u.userA, 'GET', `/tickets/${ticket.id}`)).json().contact.number).toBe(number);
  } finally {
    userSocket.close();
  }
});
