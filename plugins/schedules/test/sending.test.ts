/**
 * Sending schedules at their time on the kernel's job scheduler, through a WhatsApp Cloud connection whose
 * Graph API is a local server: the contact's latest ticket's connection (else the default one), the message
 * stored in that ticket's conversation with its variables filled, ENVIADA with sentAt; retries with backoff
 * then ERRO with the reason; a provider's refusal turns it into ERRO; a job run twice sends once.
 */
import { collectEvents, waitFor, type TestKernel } from '@atendo/testing';
import type { Schedule } from '../src/contract';
import { sendScheduleJob } from '../src/contract';
import { bootKernel, Graph, newNumber, pendingJob, Tenant } from './harness';

jest.setTimeout(60_000);

describe('sending schedules', () => {
  let k: TestKernel;
  const graph = new Graph();
  let base: string;
  const P1 = '247000000000001';
  const P2 = '247000000000002';

  beforeAll(async () => {
    await graph.start();
    // Two attempts: one retry after e^1 ≈ 2.7 s, then ERRO.
    k = await bootKernel(graph, { env: { SCHEDULES_MAX_ATTEMPTS: '2' } });
    base = await k.listen();
  });
  afterAll(async () => {
    await k?.close();
    await graph.stop();
  });

  const row = (id: number) => k.db('schedules').where({ id }).first();
  const settled = (id: number, ms = 20_000) => waitFor(async () => {
    const r = await row(id);
    return r && r.status !== 'PENDENTE' ? r : undefined;
  }, ms, 100);

  test("at its time, through the connection of the contact's latest ticket, into that ticket's conversation, variables filled", async () => {
    const t = await Tenant.create(k, [P1, P2]);
    await k.db('users').where({ id: t.admin.id }).update({ name: 'Ana Atendente' });
    const customer = await t.writesIn(P2, 'Bruno Costa');
    const ticket = await k.db('tickets').where({ companyId: t.companyId, contactId: customer.id }).first();
    expect(ticket.whatsappId).toBe(t.connections[1].id);
    const socket = await k.socket(t.admin.token, base);
    const events = collectEvents<{ action: string; schedule: Schedule }>(socket, `company-${t.companyId}-schedule`, 9000);
    const s = await t.schedule(customer.id, 'Olá {{firstName}}, aqui é {{userName}} do ticket {{ticket_id}}.', 3000);
    await new Promise((r) => setTimeout(r, 1500));
    expect(graph.to(customer.number)).toEqual([]);

    const [sent] = (await waitFor(() => (graph.to(customer.number).length ? graph.to(customer.number) : undefined), 15_000))!;
    expect(sent.phoneId).toBe(P2);
    expect(sent.text).toBe(`Olá Bruno, aqui é Ana Atendente do ticket ${ticket.id}.`);
    expect(sent.at).toBeGreaterThanOrEqual(new Date(s.sendAt).getTime());
    const done = await settled(s.id);
    expect(done).toMatchObject({ status: 'ENVIADA', ticketId: ticket.id, error: null });
    expect(done.sentAt).toBeInstanceOf(Date);
    const message = await k.db('messages').where({ id: done.messageId }).first();
    expect(message).toMatchObject({ ticketId: ticket.id, fromMe: true, body: sent.text, isPrivate: false });
    const answer = await t.api('GET', `/schedules/${s.id}`);
    expect(answer).toMatchObject({ status: 'ENVIADA', ticketId: ticket.id, sentAt: expect.any(String) });
    await waitFor(async () => ((await pendingJob(k, s.id)) === undefined ? true : undefined), 5000, 50);
    socket.close();
    expect((await events).map((e) => [e.action, e.schedule.status])).toEqual([['create', 'PENDENTE'], ['update', 'ENVIADA']]);
  });

  test('a contact without tickets: through the default connection, into a new conversation there', async () => {
    const t = await Tenant.create(k, [`${P1}1`, `${P2}1`]);
    const contact = await t.contact('Carla Dias');
    const s = await t.schedule(contact.id, 'Sua consulta é amanhã.', 1500);
    const [sent] = (await waitFor(() => (graph.to(contact.number).length ? graph.to(contact.number) : undefined), 15_000))!;
    expect(sent).toMatchObject({ phoneId: `${P1}1`, text: 'Sua consulta é amanhã.' });
    const done = await settled(s.id);
    const ticket = await k.db('tickets').where({ id: done.ticketId }).first();
    expect(ticket).toMatchObject({ contactId: contact.id, whatsappId: t.connections[0].id, companyId: t.companyId });
  });

  test('a failed send is retried with backoff, then marked ERRO with the reason; nothing is sent', async () => {
    const t = await Tenant.create(k, []);
    const contact = await t.contact('Sem Conexão');
    const s = await t.schedule(contact.id, 'Não há por onde enviar.', 500);
    const due = new Date(s.sendAt).getTime();
    const failed = await settled(s.id);
    // Two attempts: the second one e^1 ≈ 2.7 s after the first.
    expect(Date.now() - due).toBeGreaterThanOrEqual(2500);
    expect(failed).toMatchObject({ status: 'ERRO', sentAt: null, messageId: null });
    expect(failed.error).toMatch(/^ERR_NO_DEF_WAPP_FOUND/);
    expect((await t.api('GET', `/schedules/${s.id}`)).error).toBe(failed.error);
    expect(graph.to(contact.number)).toEqual([]);
    await waitFor(async () => ((await pendingJob(k, s.id)) === undefined ? true : undefined), 5000, 50);
  });

  test('a transient failure recovers on the retry', async () => {
    const t = await Tenant.create(k, []);
    const contact = await t.contact('Segunda Tentativa');
    const s = await t.schedule(contact.id, 'Chega na segunda tentativa.', 300);
    // The first attempt fails (no connection); one appears before the retry.
    await waitFor(async () => (await k.db.raw(`SELECT attempts FROM graphile_worker._private_jobs WHERE key = ?`, [`schedules.send:schedule-${s.id}`])).rows[0]?.attempts >= 1, 10_000, 50);
    expect((await row(s.id)).status).toBe('PENDENTE');
    const phoneId = '247000000000009';
    await t.api('POST', '/whatsapp', { name: 'Agora sim', channel: 'whatsappapi', facebookPageUserId: phoneId, facebookUserToken: 'token-9' });
    const [sent] = (await waitFor(() => (graph.to(contact.number).length ? graph.to(contact.number) : undefined), 15_000))!;
    expect(sent).toMatchObject({ phoneId, text: 'Chega na segunda tentativa.' });
    expect(await settled(s.id)).toMatchObject({ status: 'ENVIADA', error: null });
  });

  test("the provider's refusal marks the schedule ERRO with the provider's reason", async () => {
    const t = await Tenant.create(k, ['247000000000021']);
    const number = newNumber();
    graph.refuse.add(number);
    const contact = await t.contact('Número Inválido', number);
    const s = await t.schedule(contact.id, 'Este não chega.', 500);
    const failed = await waitFor(async () => {
      const r = await row(s.id);
      return r?.status === 'ERRO' ? r : undefined;
    }, 20_000, 100);
    expect(failed.error).toContain('131026');
    expect(failed.sentAt).toBeNull();
    expect(graph.to(number)).toEqual([]);
  });

  test('a job that runs twice (or a second node picking it up) sends once', async () => {
    const t = await Tenant.create(k, ['247000000000031']);
    const contact = await t.contact('Uma Vez Só');
    const s = await t.schedule(contact.id, 'Uma única mensagem.', 1200);
    // Two more runs of the same schedule, unkeyed, at the same moment as the keyed one.
    for (let i = 0; i < 2; i++) await k.jobs.schedule(sendScheduleJob, { companyId: t.companyId, scheduleId: s.id }, { runAt: new Date(s.sendAt) });
    await settled(s.id);
    await new Promise((r) => setTimeout(r, 2000));
    expect(graph.to(contact.number)).toHaveLength(1);
    expect(await k.db('messages').where({ body: 'Uma única mensagem.' })).toHaveLength(1);
  });
});
