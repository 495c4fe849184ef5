import { defineTopic } from '@atendo/sdk';
import { waitFor, type TestKernel } from '@atendo/testing';
import { RATING_RECORDED_TOPIC } from '../src/services/ratings';
import { createContact, createTenant, insertTicket, ticketsKernel, type Tenant } from './helpers';

/**
 * A customer's rating (published as `rating.recorded` by automation's NPS step) shows on the ticket:
 * `userRating` on its rows (issue 31: it stayed null while /reports showed the rating).
 */
describe('tickets: ratings recorded on their ticket', () => {
  let k: TestKernel;
  let A: Tenant;
  let B: Tenant;
  const recorded = defineTopic<{ companyId: number; ticketId: number; userId: number | null; queueId: number | null; rate: number }>(RATING_RECORDED_TOPIC);

  beforeAll(async () => {
    k = await ticketsKernel();
    A = await createTenant(k);
    B = await createTenant(k);
  }, 120_000);
  afterAll(() => k.close());

  test("the closed ticket's row shows the rate; another company's ticket of that id is untouched", async () => {
    const c = await createContact(k, A.companyId);
    const t = await insertTicket(k, A.companyId, { contactId: c.id, whatsappId: A.conn.id, queueId: A.queueA.id, userId: A.userA.id, status: 'closed' });
    await k.bus.publish(recorded, { companyId: A.companyId, ticketId: t.id, userId: A.userA.id, queueId: A.queueA.id, rate: 9 });
    await waitFor(async () => ((await k.db('tickets').where({ id: t.id }).first()).userRating === 9 ? true : undefined), 5000);
    const list = await k.as(A.admin, 'GET', '/tickets?status=closed&showAll=true');
    expect(list.statusCode).toBe(200);
    expect(list.json().tickets.find((x: { id: number }) => x.id === t.id)).toMatchObject({ id: t.id, userRating: 9 });
    const one = await k.as(A.admin, 'GET', `/tickets/${t.id}`);
    expect(one.json().userRating).toBe(9);

    // The event names its company: a ticket id of another company is never rated.
    await k.bus.publish(recorded, { companyId: B.companyId, ticketId: t.id, userId: null, queueId: null, rate: 2 });
    await new Promise((r) => setTimeout(r, 300));
    expect((await k.db('tickets').where({ id: t.id }).first()).userRating).toBe(9);
  });
});
