/**
 * Ticket fields as the product family's client reads them (issue 32 item 3): a WhatsApp Cloud ticket says
 * `channel: 'whatsapp'` (the family's enum; its MessagesList shows the Facebook/Instagram 24-hour banner,
 * with the Instagram icon, for any other value), and its connection's channel tells it apart.
 */
import type { TestKernel } from '@atendo/testing';
import { createConnection, createContact, createTenant, insertTicket, ticketsKernel, type Tenant } from './helpers';

jest.setTimeout(60000);

let k: TestKernel;
let t: Tenant;

beforeAll(async () => {
  k = await ticketsKernel();
  t = await createTenant(k);
});
afterAll(() => k.close());

test("a WhatsApp Cloud ticket: channel 'whatsapp' on the wire (list, one ticket), whatsapp.channel 'whatsappapi'; Facebook stays facebook", async () => {
  const cloud = await createConnection(k, t.companyId, { channel: 'whatsappapi' });
  const fb = await createConnection(k, t.companyId, { channel: 'facebook' });
  const c1 = await createContact(k, t.companyId);
  const c2 = await createContact(k, t.companyId, { channel: 'facebook' });
  const tc = await insertTicket(k, t.companyId, { contactId: c1.id, whatsappId: cloud.id, status: 'pending', channel: 'whatsappapi' });
  const tf = await insertTicket(k, t.companyId, { contactId: c2.id, whatsappId: fb.id, status: 'pending', channel: 'facebook' });
  const one = (await k.as(t.admin, 'GET', `/tickets/u/${tc.uuid}`)).json();
  expect(one).toMatchObject({ id: tc.id, channel: 'whatsapp', whatsapp: { id: cloud.id, channel: 'whatsappapi' } });
  const list = (await k.as(t.admin, 'GET', '/tickets?status=pending&showAll=true')).json().tickets as { id: number; channel: string; whatsapp: { channel: string } }[];
  expect(list.find((x) => x.id === tc.id)).toMatchObject({ channel: 'whatsapp', whatsapp: { channel: 'whatsappapi' } });
  expect(list.find((x) => x.id === tf.id)).toMatchObject({ channel: 'facebook', whatsapp: { channel: 'facebook' } });
  // The stored row keeps its own channel.
  expect((await k.db('tickets').where({ id: tc.id }).first()).channel).toBe('whatsappapi');
});
