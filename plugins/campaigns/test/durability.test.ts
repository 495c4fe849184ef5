/**
 * Durability of the dispatcher: a kernel stopped mid-campaign and started again resumes without sending a
 * recipient twice; a node that died holding the dispatch job (its job locked, as a killed process leaves it)
 * is covered by the watchdog; two kernels on one database dispatch one campaign together and never send a
 * recipient twice (the job queue and the row locks are in PostgreSQL, whichever bus carries the messages).
 */
import knex from 'knex';
import { waitFor, type TestKernel } from '@atendo/testing';
import { dropDatabase } from '@atendo/core/src/db';
import { bootKernel, Graph, phone, Tenant } from './harness';

const dbUrl = (dbName: string) => {
  const url = new URL(process.env.ATENDO_TEST_PG_BASE!);
  url.pathname = `/${dbName}`;
  return url.toString();
};

describe('campaign durability', () => {
  const graph = new Graph();
  beforeAll(() => graph.start());
  afterAll(() => graph.stop());

  test('a kernel restart mid-campaign, then a node dying with the job locked: resumed, nobody gets two', async () => {
    const dbName = `t_camp_restart_${process.pid}_${Date.now().toString(36)}`;
    let k: TestKernel | undefined = await bootKernel(graph, { dbName });
    try {
      const t = await Tenant.create(k);
      const conn = await t.connection('340000000000001');
      await t.settings({ messageInterval: 2, longerIntervalAfter: 0, greaterInterval: 0 });
      const people = Array.from({ length: 6 }, (_, i) => ({ name: `Volta ${i + 1}`, number: phone() }));
      const listId = await t.list(people);
      const c = await t.campaign({ contactListId: listId, whatsappId: conn, message1: 'Oi {nome}' });
      await waitFor(() => (graph.to(people[1].number).length ? true : undefined), 15_000, 50);
      await k.close();
      k = undefined;
      const sentBefore = people.filter((p) => graph.to(p.number).length).length;
      expect(sentBefore).toBeGreaterThanOrEqual(2);
      expect(sentBefore).toBeLessThan(6);

      // Down for a while, then a kernel on the same database takes over.
      await new Promise((r) => setTimeout(r, 2500));
      k = await bootKernel(graph, { dbName });
      const t2 = new Tenant(k, t.companyId, t.admin);
      await waitFor(() => (graph.to(people[3].number).length ? true : undefined), 20_000, 50);

      // Now the node "dies" holding its dispatch job: the job stays locked by a worker that is gone.
      await k.close();
      k = undefined;
      const db = knex({ client: 'pg', connection: dbUrl(dbName) });
      try {
        await db.raw(`UPDATE graphile_worker._private_jobs SET locked_at = now(), locked_by = 'dead-node', run_at = now() WHERE key = ?`, [`campaigns.dispatch:dispatch:${c.id}`]);
        await db.raw(`UPDATE campaigns SET ticked_at = now() - interval '10 minutes', next_send_at = now() - interval '5 minutes' WHERE id = ?`, [c.id]);
        // The watchdog's next tick is due now (instead of within the minute).
        await db.raw(`UPDATE graphile_worker._private_jobs SET run_at = now() WHERE key = 'campaigns.watchdog@every'`);
      } finally {
        await db.destroy();
      }
      k = await bootKernel(graph, { dbName });
      const t3 = new Tenant(k, t2.companyId, t2.admin);
      await t3.until(c.id, 'FINALIZADA', 90_000);
      await waitFor(() => (people.every((p) => graph.to(p.number).length) ? true : undefined), 10_000);
      await new Promise((r) => setTimeout(r, 1000));
      for (const p of people) expect(graph.to(p.number).map((s) => s.text)).toEqual([`Oi ${p.name}`]);
    } finally {
      await k?.close();
      await dropDatabase(dbUrl(dbName));
    }
  }, 150_000);

  test('two kernels on one database: every recipient exactly once', async () => {
    const k1 = await bootKernel(graph, { env: { CAMPAIGNS_BATCH_SIZE: '5', CAMPAIGNS_RUN_BUDGET_MS: '100' } });
    const k2 = await bootKernel(graph, { dbName: k1.dbName, env: { CAMPAIGNS_BATCH_SIZE: '5', CAMPAIGNS_RUN_BUDGET_MS: '100' } });
    try {
      const t = await Tenant.create(k1);
      const a = await t.connection('340000000000002');
      const b = await t.connection('340000000000003');
      await t.settings({ messageInterval: 0, longerIntervalAfter: 0, greaterInterval: 0 });
      const people = Array.from({ length: 120 }, (_, i) => ({ name: `Dupla ${i + 1}`, number: phone() }));
      const list = await t.api('POST', '/contact-lists', { name: 'Dupla' });
      await k1.db('campaigns_contact_list_items').insert(people.map((p) => ({ companyId: t.companyId, contactListId: list.id, ...p })));
      // Several campaigns at once, so both nodes' workers pick dispatch runs.
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) ids.push((await t.campaign({ name: `Dupla ${i}`, contactListId: list.id, whatsappId: `${a},${b}`, message1: `Campanha ${i} para {nome}` })).id);
      for (const id of ids) await t.until(id, 'FINALIZADA', 60_000);
      await waitFor(() => (people.every((p) => graph.to(p.number).length === 3) ? true : undefined), 15_000);
      await new Promise((r) => setTimeout(r, 1000));
      for (const p of people) expect(graph.to(p.number).map((s) => s.text).sort()).toEqual([0, 1, 2].map((i) => `Campanha ${i} para ${p.name}`));
      // One stored message per recipient and campaign.
      const byNode = await k1.db('messages').where({ companyId: t.companyId, fromMe: true }).count({ n: '*' });
      expect(Number(byNode[0].n)).toBe(360);
    } finally {
      await k2.close();
      await k1.close();
    }
  }, 120_000);
});
