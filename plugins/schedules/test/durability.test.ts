/**
 * Durability of schedules (issue 13 item 3): one that falls due while no kernel runs is sent once when a
 * kernel comes back; two kernel processes sharing PostgreSQL never send a schedule twice.
 */
import { waitFor, type TestKernel } from '@atendo/testing';
import { dropDatabase } from '@atendo/core/src/db';
import { withDb } from '@atendo/testing/src/global-setup';
import { bootKernel, Graph, Tenant } from './harness';

jest.setTimeout(120_000);

describe('schedules durability', () => {
  const graph = new Graph();
  beforeAll(() => graph.start());
  afterAll(() => graph.stop());

  test('due while the kernel was stopped: sent once after it starts again', async () => {
    const dbName = `t_sched_restart_${process.pid}_${Date.now().toString(36)}`;
    let k: TestKernel | undefined = await bootKernel(graph, { dbName });
    try {
      const t = await Tenant.create(k, ['248000000000001']);
      const customer = await t.writesIn('248000000000001', 'Daniela');
      const s = await t.schedule(customer.id, 'Enviada depois do reinício.', 6000);
      await k.close();
      k = undefined;
      // The send time passes with no kernel running.
      await new Promise((r) => setTimeout(r, Math.max(0, new Date(s.sendAt).getTime() + 1500 - Date.now())));
      expect(graph.to(customer.number)).toEqual([]);

      k = await bootKernel(graph, { dbName });
      const k2 = k;
      await waitFor(() => (graph.to(customer.number).length ? true : undefined), 20_000, 100);
      await new Promise((r) => setTimeout(r, 2000));
      expect(graph.to(customer.number).map((m) => m.text)).toEqual(['Enviada depois do reinício.']);
      const row = await k2.db('schedules').where({ id: s.id }).first();
      expect(row).toMatchObject({ status: 'ENVIADA' });
      expect(row.sentAt.getTime()).toBeGreaterThan(new Date(s.sendAt).getTime());
      expect(await k2.db('messages').where({ body: 'Enviada depois do reinício.' })).toHaveLength(1);
    } finally {
      await k?.close();
      await dropDatabase(withDb(process.env.ATENDO_TEST_PG_BASE!, dbName));
    }
  });

  test('two kernel processes on one database: every schedule is sent exactly once', async () => {
    const k1 = await bootKernel(graph);
    const k2 = await bootKernel(graph, { dbName: k1.dbName });
    try {
      const t = await Tenant.create(k1, ['248000000000002']);
      const contacts = [];
      for (let i = 0; i < 20; i++) contacts.push(await t.contact(`Cliente ${i}`));
      // Half created through each node, all due at the same moment.
      const at = new Date(Date.now() + 5000).toISOString();
      const viaK2 = new Tenant(k2, t.companyId, t.admin);
      const made = await Promise.all(contacts.map((c, i) => (i % 2 ? viaK2 : t).api('POST', '/schedules', { body: `Mensagem para ${c.name}`, contactId: c.id, sendAt: at })));
      await waitFor(async () => ((await k1.db('schedules').whereIn('id', made.map((s) => s.id)).where({ status: 'ENVIADA' })).length === made.length ? true : undefined), 30_000, 200);
      await new Promise((r) => setTimeout(r, 2500));
      for (const c of contacts) expect(graph.to(c.number).map((m) => m.text)).toEqual([`Mensagem para ${c.name}`]);
      const bodies = await k1.db('messages').whereIn('body', contacts.map((c) => `Mensagem para ${c.name}`)).select('body');
      expect(bodies).toHaveLength(20);
    } finally {
      await k2.close();
      await k1.close();
    }
  });
});
