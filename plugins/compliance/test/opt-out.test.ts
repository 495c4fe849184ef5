import { waitFor, type TestKernel } from '@atendo/testing';
import type { PluginDefinition } from '@atendo/sdk';
import { bootKernel, Graph, PLUGINS, phone, Tenant } from '../../campaigns/test/harness';
import compliance from '../src/index';

/** Issue 34 item 4: opt-out words, the confirmation, campaigns skipping opted-out contacts, the admin's reversal. */
describe('compliance: opt-out', () => {
  const graph = new Graph();
  let k: TestKernel;
  let A: Tenant;
  let B: Tenant;

  beforeAll(async () => {
    await graph.start([8285, 8286, 8287, 8288, 8289]);
    k = await bootKernel(graph, { plugins: [...PLUGINS(), compliance as PluginDefinition] });
    A = await Tenant.create(k);
    await A.connection('341000000000001');
    await A.settings({ messageInterval: 0, longerIntervalAfter: 0, greaterInterval: 0 });
    B = await Tenant.create(k);
  });
  afterAll(async () => {
    await k?.close();
    await graph.stop();
  });

  const contactOf = async (number: string) => waitFor(async () => (await k.db('contacts').where({ companyId: A.companyId, number }).first()) ?? undefined, 10_000);

  test('"Sair" opts the customer out with the confirmation; the next campaign skips it and counts it; reversal audited', async () => {
    const out = phone();
    const stays = phone();
    await A.says(out, 'oi, tudo bem?');
    await A.says(out, '  Sair! ');
    const contact = await contactOf(out);
    await waitFor(async () => ((await k.db('contacts').where({ id: contact.id }).first()).optedOutAt ? true : undefined), 10_000);
    await waitFor(() => (graph.to(out).some((m) => /não receberá mais mensagens/.test(m.text)) ? true : undefined), 10_000);
    const privacy = (await A.api('GET', `/contacts/${contact.id}/privacy`));
    expect(privacy).toMatchObject({ optedOutAt: expect.any(String), optOutKeyword: 'SAIR' });
    // A word inside a sentence is not an opt-out.
    await A.says(stays, 'não quero sair da lista');
    const other = await contactOf(stays);
    await new Promise((r) => setTimeout(r, 300));
    expect((await k.db('contacts').where({ id: other.id }).first()).optedOutAt).toBeNull();

    const list = await A.list([{ name: 'Sai', number: out }, { name: 'Fica', number: stays }]);
    const before = graph.to(out).length;
    const c = await A.campaign({ contactListId: list, whatsappId: String(A.connections[0].id), message1: 'Promoção {nome}' });
    const done = await A.until(c.id, 'FINALIZADA');
    expect(done.counts).toMatchObject({ validContacts: 2, delivered: 1, failed: 1, optedOut: 1 });
    await waitFor(() => (graph.to(stays).some((m) => m.text === 'Promoção Fica') ? true : undefined), 10_000);
    expect(graph.to(out).length).toBe(before);
    const shipping = (await A.api('GET', `/campaigns/${c.id}?shipping=true`)).shipping as { number: string; status: string; error: string | null }[];
    expect(shipping.find((s) => s.number === out)).toMatchObject({ status: 'failed', error: 'ERR_OPTED_OUT' });

    // The admin's view, another company's, the reversal at the customer's request.
    const listed = await A.api('GET', '/compliance/opt-outs');
    expect(listed.records.map((r: { id: number }) => r.id)).toEqual([contact.id]);
    expect((await k.as(B.admin, 'GET', '/compliance/opt-outs')).json()).toEqual({ records: [], count: 0, hasMore: false });
    expect((await k.as(B.admin, 'DELETE', `/contacts/${contact.id}/opt-out`)).statusCode).toBe(404);
    const plain = await k.createUser(A.companyId, { profile: 'user' });
    expect((await k.as(plain, 'DELETE', `/contacts/${contact.id}/opt-out`)).statusCode).toBe(403);
    expect(await A.api('DELETE', `/contacts/${contact.id}/opt-out`)).toMatchObject({ contactId: contact.id, optedOutAt: null });
    expect((await A.api('GET', `/contacts/${contact.id}/privacy`))).toMatchObject({ optedOutAt: null, optOutKeyword: null });
    // Recorded by hand when the customer asks by other means (another company and plain users cannot).
    expect((await k.as(B.admin, 'POST', `/contacts/${contact.id}/opt-out`)).statusCode).toBe(404);
    expect((await k.as(plain, 'POST', `/contacts/${contact.id}/opt-out`)).statusCode).toBe(403);
    expect(await A.api('POST', `/contacts/${contact.id}/opt-out`)).toMatchObject({ contactId: contact.id, optedOutAt: expect.any(String), optOutKeyword: 'MANUAL' });
    const audit = (await A.api('GET', `/audit-logs?entity=contact&entityId=${contact.id}`)).records.map((r: { action: string; actorKind: string; userId: number | null }) => [r.action, r.actorKind, r.userId]);
    expect(audit).toEqual([['opt-out', 'user', A.admin.id], ['opt-in', 'user', A.admin.id], ['opt-out', 'bot', null]]);
  });

  test('the words are configurable per company (stored upper case, no accents); bad settings are 400', async () => {
    expect(await A.api('GET', '/compliance/settings')).toEqual({ optOutKeywords: ['SAIR', 'PARAR', 'STOP', 'CANCELAR'], optOutReply: expect.any(String), retentionDays: null });
    const saved = await A.api('PUT', '/compliance/settings', { optOutKeywords: ['descadastrar', 'Não quero'], optOutReply: 'Ok, removido.' });
    expect(saved).toEqual({ optOutKeywords: ['DESCADASTRAR', 'NAO QUERO'], optOutReply: 'Ok, removido.', retentionDays: null });
    expect((await k.as(B.admin, 'GET', '/compliance/settings')).json().optOutKeywords).toEqual(['SAIR', 'PARAR', 'STOP', 'CANCELAR']);
    for (const body of [{ optOutKeywords: [] }, { optOutKeywords: [''] }, { retentionDays: 0 }, { optOutReply: 'x'.repeat(1001) }]) {
      const res = await k.as(A.admin, 'PUT', '/compliance/settings', body);
      expect({ body, status: res.statusCode, error: res.json().error }).toEqual({ body, status: 400, error: 'ERR_VALIDATION' });
    }
    const n = phone();
    await A.says(n, 'nao quero');
    const contact = await contactOf(n);
    await waitFor(async () => ((await k.db('contacts').where({ id: contact.id }).first()).optOutKeyword === 'NAO QUERO' ? true : undefined), 10_000);
    await waitFor(() => (graph.to(n).some((m) => m.text === 'Ok, removido.') ? true : undefined), 10_000);
    const m = phone();
    await A.says(m, 'sair');
    const stays = await contactOf(m);
    await new Promise((r) => setTimeout(r, 300));
    expect((await k.db('contacts').where({ id: stays.id }).first()).optedOutAt).toBeNull();
  });
});
