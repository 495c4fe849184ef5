/**
 * Durability of the bot: a timer scheduled before a kernel restart fires once after it (jobs are rows in
 * PostgreSQL), and two kernel processes sharing PostgreSQL and RabbitMQ never answer one inbound message
 * twice (needs AMQP_URL: the in-process bus is one process by definition).
 */
import knex from 'knex';
import { waitFor, type TestKernel } from '@atendo/testing';
import { dropDatabase } from '@atendo/core/src/db';
import { AutomationStore } from '../src/services/store';
import { bootKernel, Customer, Graph, pendingJob, Tenant } from './harness';

describe('automation durability', () => {
  const graph = new Graph();
  beforeAll(() => graph.start());
  afterAll(() => graph.stop());

  test('a kernel restart between a scheduled timer and its due time still fires it, once', async () => {
    // Both kernels use this database (a named database is not dropped when a kernel closes).
    const dbName = `t_auto_restart_${process.pid}_${Date.now().toString(36)}`;
    const url = new URL(process.env.ATENDO_TEST_PG_BASE!);
    url.pathname = `/${dbName}`;
    let k: TestKernel | undefined = await bootKernel(graph, dbName);
    try {
      const t = await Tenant.create(k, graph, '230000000000001', { greetingMessage: 'Escolha:', timeUseBotQueues: 5 });
      const q1 = await t.queue({ name: 'Um' });
      const q2 = await t.queue({ name: 'Dois' });
      await t.setConnection({ queueIds: [q1.id, q2.id] });
      const c = t.customer('Rita');
      await c.ask('oi');
      const ticket = await c.ticket();
      const job = await waitFor(() => pendingJob(k!, 'automation.bot-timeout', `bot:${ticket.id}`), 10_000);
      // Due in 5 minutes; the kernel stops now.
      expect(new Date(job!.run_at).getTime() - Date.now()).toBeGreaterThan(4 * 60_000);
      await k.close();
      k = undefined;
      // While no kernel runs, the time passes (the due time is moved to 2 s from now).
      const db = knex({ client: 'pg', connection: url.toString() });
      await db.raw(`UPDATE graphile_worker._private_jobs SET run_at = now() + interval '2 seconds' WHERE key = ?`, [`automation.bot-timeout:bot:${ticket.id}`]);
      await db.destroy();

      k = await bootKernel(graph, dbName);
      const k2 = k;
      await waitFor(async () => (await k2.db('tickets').where({ id: ticket.id }).first()).status === 'closed', 20_000, 100);
      // Once: one close, one abandon entry, no job left.
      await new Promise((r) => setTimeout(r, 1500));
      const logs = await k2.db('ticketLogs').where({ ticketId: ticket.id }).orderBy('id');
      expect(logs.filter((l) => l.type === 'closed')).toHaveLength(1);
      expect(logs.filter((l) => l.type === 'chatBot' && (typeof l.data === 'string' ? JSON.parse(l.data) : l.data)?.step === 'abandoned')).toHaveLength(1);
      expect(await pendingJob(k2, 'automation.bot-timeout', `bot:${ticket.id}`)).toBeUndefined();
    } finally {
      await k?.close();
      await dropDatabase(url.toString());
    }
  });

  (process.env.AMQP_URL ? test : test.skip)('two kernels on RabbitMQ: each inbound message gets one bot reply', async () => {
    const k1 = await bootKernel(graph);
    const k2 = await bootKernel(graph, k1.dbName);
    try {
      const t = await Tenant.create(k1, graph, '230000000000002', { greetingMessage: 'Menu:' });
      const q1 = await t.queue({ name: 'Um', greetingMessage: 'Fila um' });
      const q2 = await t.queue({ name: 'Dois' });
      await t.setConnection({ queueIds: [q1.id, q2.id] });
      // Webhooks arrive on either kernel (half each); the bus spreads the work over both.
      const viaK2 = new Tenant(k2, graph, t.companyId, t.admin, t.phoneId);
      const customers = Array.from({ length: 20 }, (_, i) => {
        const c = t.customer(`Cliente ${i}`);
        return i % 2 ? new Customer(viaK2, c.number, c.name) : c;
      });
      await Promise.all(customers.map((c) => c.says('oi')));
      for (const c of customers) expect(await c.receives(1, 20_000)).toEqual(['Menu:\n\n*1* - Um\n*2* - Dois']);
      await Promise.all(customers.map((c) => c.says('1')));
      for (const c of customers) expect(await c.receives(1, 20_000)).toEqual(['Fila um']);
      for (const c of customers) await c.receivesNothing(0);
      await new Promise((r) => setTimeout(r, 2000));
      for (const c of customers) expect(graph.to(c.number)).toHaveLength(2);
    } finally {
      await k2.close();
      await k1.close();
    }
  });

  test('turns of several tickets at once share their lease-and-claim and release statements, each with its own answer', async () => {
    const k = await bootKernel(graph);
    try {
      const t = await Tenant.create(k, graph, '230000000000003');
      const other = await Tenant.create(k, graph, '230000000000004');
      const ticketIds: number[] = [];
      for (let i = 0; i < 6; i++) {
        const c = t.customer(`Lote ${i}`);
        await c.says('oi');
        ticketIds.push((await c.ticket()).id);
      }
      const store = new AutomationStore(k.db);
      const statements: string[] = [];
      // The store's statements (the kernel runs its own meanwhile).
      const count = (q: { sql: string }) => /automation_bot_states|automation_processed_messages/.test(q.sql) && statements.push(q.sql);
      k.db.on('query', count);
      let inside = 0;
      let most = 0;
      // Message 9000000 + i for ticket i, except tickets 4 and 5, which name the same message: one claims it.
      const claims = await Promise.all(
        ticketIds.map((ticketId, i) =>
          store.withTurn(t.companyId, ticketId, async (state, claimed) => {
            inside++;
            most = Math.max(most, inside);
            expect(state).toMatchObject({ ticketId, companyId: t.companyId });
            await store.save(t.companyId, ticketId, { menuUses: i + 1 });
            await new Promise((r) => setTimeout(r, 20));
            inside--;
            return claimed;
          }, { claim: 9_000_000 + Math.min(i, 4) }),
        ),
      );
      k.db.removeListener('query', count);
      expect(most).toBe(ticketIds.length);
      expect(claims.slice(0, 4)).toEqual([true, true, true, true]);
      expect(claims.slice(4).sort()).toEqual([false, true]);
      // Far fewer statements than the 2 per turn of one-at-a-time (lease with claim, release with state).
      expect(statements.length).toBeLessThan(ticketIds.length * 2);
      // A redelivered message is not claimed again.
      expect(await store.withTurn(t.companyId, ticketIds[0], async (_s, claimed) => claimed, { claim: 9_000_000 })).toBe(false);
      // Every lease was released with its turn's state, and a row of another company is never leased to this one.
      const rows = await k.db('automationBotStates').whereIn('ticketId', ticketIds).orderBy('ticketId');
      expect(rows.map((r) => [r.leaseUntil, r.menuUses])).toEqual(ticketIds.map((_, i) => [null, i + 1]));
      await expect(store.withTurn(other.companyId, ticketIds[0], async () => 'taken')).rejects.toThrow(/busy/);
    } finally {
      await k.close();
    }
  }, 30_000);

  test("a turn's lease claims its message in the same statement; what it saves is written with the release", async () => {
    const k = await bootKernel(graph);
    try {
      const t = await Tenant.create(k, graph, '230000000000005');
      const c = t.customer('Uma volta');
      await c.says('oi');
      const ticketId = (await c.ticket()).id;
      const store = new AutomationStore(k.db);
      const statements: string[] = [];
      // The store's statements (the kernel runs its own meanwhile).
      const count = (q: { sql: string }) => /automation_bot_states|automation_processed_messages/.test(q.sql) && statements.push(q.sql);
      k.db.on('query', count);
      const seen = await store.withTurn(t.companyId, ticketId, async (state, claimed) => {
        expect(claimed).toBe(true);
        await store.save(t.companyId, ticketId, { stage: 'menu', menuUses: 1 });
        await store.save(t.companyId, ticketId, { path: [2, 1], queueEnteredAt: new Date('2026-12-07T10:00:00Z') });
        // Nothing written yet; the turn's own reads see it.
        expect((await k.db('automationBotStates').where({ ticketId }).first()).stage).toBeNull();
        const mid = await store.get(t.companyId, ticketId);
        return { state, mid };
      }, { claim: 9_100_001 });
      k.db.removeListener('query', count);
      expect(seen.mid).toMatchObject({ stage: 'menu', menuUses: 1, path: [2, 1] });
      // Lease + claim, the read of the test, the read of get(), the release with the state: four statements.
      expect(statements).toHaveLength(4);
      const row = await k.db('automationBotStates').where({ ticketId }).first();
      expect(row).toMatchObject({ stage: 'menu', menuUses: 1, path: [2, 1], npsUses: 0, leaseUntil: null });
      expect(new Date(row.queueEnteredAt).toISOString()).toBe('2026-12-07T10:00:00.000Z');
      // The message was claimed: a second turn naming it is told so; fields it does not save stay.
      const again = await store.withTurn(t.companyId, ticketId, async (state, claimed) => {
        await store.save(t.companyId, ticketId, { queueId: null, inactiveSent: true });
        return { claimed, stage: state.stage };
      }, { claim: 9_100_001 });
      expect(again).toEqual({ claimed: false, stage: 'menu' });
      expect(await k.db('automationBotStates').where({ ticketId }).first()).toMatchObject({ stage: 'menu', queueId: null, inactiveSent: true, menuUses: 1 });
      // A turn that throws still writes what it saved and releases its lease.
      await expect(store.withTurn(t.companyId, ticketId, async () => {
        await store.save(t.companyId, ticketId, { stage: 'human' });
        throw new Error('boom');
      })).rejects.toThrow('boom');
      expect(await k.db('automationBotStates').where({ ticketId }).first()).toMatchObject({ stage: 'human', leaseUntil: null });
      // Forgotten during the turn (the ticket closed): what was saved before goes; what was saved after stays.
      await store.withTurn(t.companyId, ticketId, async () => {
        await store.save(t.companyId, ticketId, { menuUses: 7 });
        await store.forget(t.companyId, ticketId);
        await store.save(t.companyId, ticketId, { stage: 'nps', npsUses: 1 });
      });
      expect(await k.db('automationBotStates').where({ ticketId }).first()).toMatchObject({ stage: 'nps', npsUses: 1, menuUses: 0, leaseUntil: null });
    } finally {
      await k.close();
    }
  }, 30_000);
});
