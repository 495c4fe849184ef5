import type { TestKernel } from '@atendo/testing';
import { createConnection, createQueue, insertTicket, setCompanySetting, ticketsKernel } from './helpers';

/**
 * A company fresh from sign-up has no queue (issue 31 item 2): its admin and its agents must be able to
 * accept, reopen and open tickets without one. The queue is asked for only once the company has queues.
 */
describe('tickets: a company fresh from sign-up (no queue)', () => {
  let k: TestKernel;
  let companyId: number;
  let admin: { token: string; id: number };
  let connId: number;

  const put = (u: { token: string }, id: number, body: unknown) => k.as(u, 'PUT', `/tickets/${id}`, body);
  const newContact = async (name: string, number: string) => {
    const res = await k.as(admin, 'POST', '/contacts', { name, number });
    expect(res.statusCode).toBe(200);
    return res.json() as { id: number };
  };

  beforeAll(async () => {
    k = await ticketsKernel();
    const plan = await k.db('plans').where({ isPublic: true }).first('id');
    const signup = await k.app.inject({
      method: 'POST',
      url: '/auth/signup',
      payload: { companyName: 'Loja Nova', name: 'Ana', email: 'ana@lojanova.com', password: 'segredo1', phone: '11988887777', planId: plan.id },
    });
    expect(signup.statusCode).toBe(201);
    companyId = signup.json().id;
    const login = await k.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'ana@lojanova.com', password: 'segredo1' } });
    expect(login.statusCode).toBe(200);
    admin = { token: login.json().token, id: login.json().user.id };
    // Sign-up creates no queue: that is the state this test is about.
    expect(await k.db('queues').where({ companyId }).count('id as n').first()).toMatchObject({ n: 0 });
    await setCompanySetting(k, companyId, 'sendGreetingAccepted', 'disabled');
    connId = (await createConnection(k, companyId, { isDefault: true })).id;
  }, 60_000);
  afterAll(() => k.close());

  test('the admin accepts the first pending ticket without a queue', async () => {
    const c = await newContact('Primeiro Cliente', '5511970000001');
    const t = await insertTicket(k, companyId, { contactId: c.id, whatsappId: connId });
    const res = await put(admin, t.id, { status: 'open', userId: admin.id });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: t.id, status: 'open', userId: admin.id, queueId: null });
  });

  test('an agent of the company accepts and reopens without a queue, and opens a ticket without one', async () => {
    const agent = await k.createUser(companyId, { profile: 'user' });
    const c = await newContact('Segundo Cliente', '5511970000002');
    const t = await insertTicket(k, companyId, { contactId: c.id, whatsappId: connId });
    const accepted = await put(agent, t.id, { status: 'open', userId: agent.id });
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json()).toMatchObject({ status: 'open', userId: agent.id, queueId: null });
    expect((await put(agent, t.id, { status: 'closed' })).statusCode).toBe(200);
    const reopened = await put(agent, t.id, { status: 'open', userId: agent.id });
    expect(reopened.statusCode).toBe(200);
    expect(reopened.json()).toMatchObject({ id: t.id, status: 'open', queueId: null });
    const c2 = await newContact('Terceiro Cliente', '5511970000003');
    const opened = await k.as(agent, 'POST', '/tickets', { contactId: c2.id, queueId: null, whatsappId: null });
    expect(opened.statusCode).toBe(200);
    expect(opened.json()).toMatchObject({ status: 'open', userId: agent.id, queueId: null });
  });

  test('once the company has a queue, accepting a ticket without one asks for it again', async () => {
    const q = await createQueue(k, companyId);
    try {
      const c = await newContact('Quarto Cliente', '5511970000004');
      const t = await insertTicket(k, companyId, { contactId: c.id, whatsappId: connId });
      const refused = await put(admin, t.id, { status: 'open', userId: admin.id });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual({ error: 'ERR_VALIDATION', message: 'queue required' });
      const ok = await put(admin, t.id, { status: 'open', userId: admin.id, queueId: q.id });
      expect(ok.statusCode).toBe(200);
    } finally {
      await k.db('queues').where({ id: q.id }).del();
    }
  });
});
