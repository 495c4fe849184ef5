import type { TestKernel } from '@atendo/testing';
import { complianceService } from '../src/contract';
import { bootKernel, Graph, newNumber, Tenant } from './harness';

/** Issue 34 item 3: retention's dry run and its job on a company with old conversations. */
describe('compliance: retention', () => {
  const graph = new Graph();
  let k: TestKernel;
  let A: Tenant;
  let B: Tenant;

  beforeAll(async () => {
    await graph.start();
    k = await bootKernel(graph);
    A = await Tenant.create(k, ['34201']);
    B = await Tenant.create(k, ['34202']);
  });
  afterAll(async () => {
    await k?.close();
    await graph.stop();
  });

  test('off by default; the preview counts contacts whose conversations are all closed and old; the job anonymizes exactly those', async () => {
    const old = await A.writesIn('34201', 'Velho Cliente', newNumber(), 'mensagem antiga de 2025');
    const recent = await A.writesIn('34201', 'Cliente Recente', newNumber(), 'mensagem recente');
    const stillOpen = await A.writesIn('34201', 'Ainda Aberto', newNumber(), 'ainda em atendimento');
    const otherCompany = await B.writesIn('34202', 'Velho de B', newNumber(), 'antiga de B');
    const longAgo = new Date(Date.now() - 100 * 86_400_000);
    for (const c of [old, recent]) await k.db('tickets').where({ contactId: c.id }).update({ status: 'closed' });
    for (const c of [old, stillOpen, otherCompany]) await k.db('tickets').where({ contactId: c.id }).update({ updatedAt: longAgo });
    await k.db('tickets').where({ contactId: otherCompany.id }).update({ status: 'closed' });

    expect((await A.api('GET', '/compliance/settings')).retentionDays).toBeNull();
    expect(await A.api('GET', '/compliance/retention/preview?days=30')).toEqual({ days: 30, contacts: 1 });
    expect(await A.api('GET', '/compliance/retention/preview?days=365')).toEqual({ days: 365, contacts: 0 });
    expect((await k.as(A.admin, 'GET', '/compliance/retention/preview?days=0')).statusCode).toBe(400);
    // Off: the job touches nothing.
    const svc = k.services.get(complianceService);
    expect([...(await svc.runRetention()).entries()].filter(([cid]) => cid === A.companyId)).toEqual([]);
    expect((await k.db('contacts').where({ id: old.id }).first()).anonymizedAt).toBeNull();

    await A.api('PUT', '/compliance/settings', { retentionDays: 30 });
    const done = await svc.runRetention();
    expect(done.get(A.companyId)).toBe(1);
    expect(done.has(B.companyId)).toBe(false);
    const oldRow = await k.db('contacts').where({ id: old.id }).first();
    expect(oldRow).toMatchObject({ name: `#${old.id}`, number: `anon-${old.id}`, anonymizedAt: expect.any(Date) });
    expect((await k.db('messages').where({ contactId: old.id }).first()).body).toBe('');
    for (const c of [recent, stillOpen]) expect((await k.db('contacts').where({ id: c.id }).first()).anonymizedAt).toBeNull();
    expect((await k.db('contacts').where({ id: otherCompany.id }).first()).name).toBe('Velho de B');
    // Idempotent: a second run finds nothing; the entry names the system actor.
    expect((await svc.runRetention()).get(A.companyId)).toBe(0);
    const audit = (await A.api('GET', `/audit-logs?entity=contact&entityId=${old.id}`)).records;
    expect(audit).toEqual([expect.objectContaining({ action: 'anonymize', actorKind: 'system', actorLabel: 'retention', userId: null })]);
    expect((await A.api('GET', '/audit-logs?entity=setting&entityId=compliance')).records[0]).toMatchObject({ after: { retentionDays: 30 }, userId: A.admin.id });
  });
});
