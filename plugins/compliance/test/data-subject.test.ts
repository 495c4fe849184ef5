import { waitFor, type TestKernel } from '@atendo/testing';
import { bootKernel, Graph, newNumber, Tenant } from './harness';

/**
 * Every text-like column of every table (all schemas but PostgreSQL's own) holding `needle`, as
 * `schema.table.column`: the check that an anonymized person is nowhere in the database.
 */
async function whereIs(k: TestKernel, needle: string): Promise<string[]> {
  const cols = (await k.db.raw(`
    SELECT table_schema AS s, table_name AS t, column_name AS c, data_type AS d
      FROM information_schema.columns
     WHERE table_schema NOT IN ('pg_catalog', 'information_schema')
       AND data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'bytea', 'ARRAY')
       AND table_name IN (SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE')`)).rows as { s: string; t: string; c: string; d: string }[];
  const found: string[] = [];
  for (const { s, t, c, d } of cols) {
    const expr = d === 'bytea' ? `convert_from(??, 'UTF8')` : '??::text';
    const res = await k.db.raw(`SELECT count(*)::int AS n FROM ??.?? WHERE position(lower(?) in lower(${expr})) > 0`, [s, t, needle, c]);
    if (res.rows[0].n > 0) found.push(`${s}.${t}.${c}`);
  }
  return found;
}

/** Issue 34 item 2: the data subject's export and anonymization. */
describe('compliance: data-subject export and anonymization', () => {
  const graph = new Graph();
  let k: TestKernel;
  let A: Tenant;
  let B: Tenant;

  beforeAll(async () => {
    await graph.start();
    k = await bootKernel(graph);
    A = await Tenant.create(k, ['34101']);
    B = await Tenant.create(k, ['34102']);
  });
  afterAll(async () => {
    await k?.close();
    await graph.stop();
  });

  test('export holds the contact, the message the customer wrote, our answer and a schedule; another company gets 404', async () => {
    const number = newNumber();
    const contact = await A.writesIn('34101', 'Glória Exportável', number, 'Quero meus dados, por favor');
    const ticket = await k.db('tickets').where({ companyId: A.companyId, contactId: contact.id }).first();
    const queue = await A.api('POST', '/queue', { name: 'Fila Export', color: '#0000aa' });
    await A.api('PUT', `/tickets/${ticket.id}`, { status: 'open', userId: A.admin.id, queueId: queue.id });
    await A.api('POST', `/messages/${ticket.id}`, { body: 'Claro, segue o arquivo' });
    await A.schedule(contact.id, 'Lembrete da consulta', 3_600_000);
    // A contact-list item with the person's number, its legal basis and consent date (campaigns plugin).
    const list = await A.api('POST', '/contact-lists', { name: 'Lista Export' });
    const item = await A.api('POST', '/contact-list-items', { name: 'Glória da Lista', number, legalBasis: 'consent', consentAt: '2026-01-10', contactListId: list.id });

    const res = await k.as(A.admin, 'GET', `/contacts/${contact.id}/export`);
    expect({ status: res.statusCode, body: res.statusCode === 200 ? '' : res.body }).toEqual({ status: 200, body: '' });
    expect(res.headers['content-disposition']).toBe(`attachment; filename="contact-${contact.id}.json"`);
    const doc = res.json();
    expect(doc).toMatchObject({ format: 'atendo.contact-export', version: 1, contact: { id: contact.id, name: 'Glória Exportável', number }, consent: { lgpdAcceptedAt: null, optedOutAt: null, anonymizedAt: null } });
    expect(doc.tickets).toHaveLength(1);
    const texts = doc.tickets[0].messages.map((m: { body: string; fromContact: boolean }) => [m.fromContact, m.body]);
    expect(texts).toEqual(expect.arrayContaining([[true, 'Quero meus dados, por favor'], [false, expect.stringContaining('Claro, segue o arquivo')]]));
    expect(doc.schedules.map((s: { body: string }) => s.body)).toEqual(['Lembrete da consulta']);
    expect(doc.listItems).toEqual([expect.objectContaining({ id: item.id, contactListId: list.id, contactListName: 'Lista Export', name: 'Glória da Lista', number, legalBasis: 'consent', consentAt: '2026-01-10T00:00:00.000Z' })]);
    expect(doc.campaignRecipients).toEqual([]);
    // Another company's export of its own contact with the same number does not hold A's list item.
    const twin = await B.contact('Glória de B', number);
    expect((await B.api('GET', `/contacts/${twin.id}/export`)).listItems).toEqual([]);

    const audit = (await k.as(A.admin, 'GET', `/audit-logs?entity=contact&entityId=${contact.id}&action=export`)).json();
    expect(audit.records).toEqual([expect.objectContaining({ action: 'export', userId: A.admin.id })]);

    // Tenant scope and roles.
    for (const [method, url, body] of [['GET', `/contacts/${contact.id}/export`], ['POST', `/contacts/${contact.id}/anonymize`, { confirm: true }], ['GET', `/contacts/${contact.id}/privacy`]] as const) {
      const other = await k.as(B.admin, method, url, body);
      expect({ url, status: other.statusCode, error: other.json().error }).toEqual({ url, status: 404, error: 'ERR_NO_CONTACT_FOUND' });
    }
    const plain = await k.createUser(A.companyId, { profile: 'user' });
    expect((await k.as(plain, 'GET', `/contacts/${contact.id}/export`)).statusCode).toBe(403);
    expect((await k.as(plain, 'POST', `/contacts/${contact.id}/anonymize`, { confirm: true })).statusCode).toBe(403);
  });

  test('anonymize: no personal data left in any table; counts, ratings and the audit entry kept; confirmation required', async () => {
    const name = 'Zélia Quintanilha Sigilosa';
    const number = newNumber();
    const secret = 'meu CPF é 321.654.987-00';
    const contact = await A.writesIn('34101', name, number, secret);
    await A.api('PUT', `/contacts/${contact.id}`, { name, number, email: 'zelia.sigilosa@example.com', extraInfo: [{ name: 'Endereço', value: 'Rua das Flores Secretas 99' }] });
    const ticket = await k.db('tickets').where({ companyId: A.companyId, contactId: contact.id }).first();
    const queue = await A.api('POST', '/queue', { name: 'Fila Anon', color: '#aa0000' });
    await A.api('PUT', `/tickets/${ticket.id}`, { status: 'open', userId: A.admin.id, queueId: queue.id });
    await A.api('POST', `/messages/${ticket.id}`, { body: 'Olá Zélia, anotado o CPF' });
    await A.api('PUT', `/tickets/${ticket.id}`, { status: 'closed' });
    await k.db('tickets').where({ id: ticket.id }).update({ userRating: 9 });
    await A.schedule(contact.id, 'Zélia, sua consulta é amanhã', 3_600_000);
    // Copies held by other plugins: a contact-list item (name, number, e-mail, consent) and the campaign sent
    // to it (a recipient row), and the dashboard's read model (the ticket's last message).
    await A.api('POST', '/campaign-settings', { settings: { messageInterval: 0, longerIntervalAfter: 0, greaterInterval: 0 } });
    const list = await A.api('POST', '/contact-lists', { name: 'Lista Anon' });
    await A.api('POST', '/contact-list-items', { name: 'Zélia da Lista', number, email: 'zelia.sigilosa@example.com', legalBasis: 'consent', consentAt: '2026-01-10', contactListId: list.id });
    // The same e-mail on an item without a number is the person too.
    await A.api('POST', '/contact-list-items', { name: 'Zélia Só E-mail', email: 'Zelia.Sigilosa@example.com', contactListId: list.id });
    const other = await A.api('POST', '/contact-list-items', { name: 'Outra Pessoa', number: newNumber(), contactListId: list.id });
    const campaign = await A.api('POST', '/campaigns', { name: 'Campanha Anon', contactListId: list.id, whatsappId: String(A.connections[0].id), message1: 'Oferta para {nome}', scheduledAt: new Date(Date.now() - 1000).toISOString() });
    const campaignDone = await waitFor(async () => {
      const c = await A.api('GET', `/campaigns/${campaign.id}`);
      return c.status === 'FINALIZADA' ? c : undefined;
    }, 20_000, 100);
    await waitFor(async () => ((await k.db('dashboardTickets').where({ ticketId: ticket.id }).first())?.lastMessage?.includes('Zélia da Lista') ? true : undefined), 10_000);
    // A second contact of company B with its own data: untouched.
    const keep = await B.writesIn('34102', 'Beto Intocado', newNumber(), 'mensagem de B');

    const counts = async () => ({
      tickets: Number((await k.db('tickets').where({ companyId: A.companyId }).count({ n: '*' }))[0].n),
      messages: Number((await k.db('messages').where({ companyId: A.companyId }).count({ n: '*' }))[0].n),
      closed: Number((await k.db('tickets').where({ companyId: A.companyId, status: 'closed' }).count({ n: '*' }))[0].n),
      ratings: (await k.db('tickets').where({ companyId: A.companyId }).whereNotNull('userRating').select('userRating')).map((r: { userRating: number }) => r.userRating).sort(),
    });
    const before = await counts();
    const dashboardBefore = (await k.as(A.admin, 'GET', '/dashboard?days=7')).json();
    for (const needle of [name, number, secret, 'zelia.sigilosa@example.com', 'Rua das Flores Secretas']) expect((await whereIs(k, needle)).length).toBeGreaterThan(0);
    // The check reaches the other plugins' copies (so it fails when one of them is left behind).
    expect(await whereIs(k, 'Zélia da Lista')).toEqual(expect.arrayContaining(['public.campaigns_contact_list_items.name', 'public.campaigns_shippings.name', 'public.dashboard_tickets.last_message', 'public.messages.body']));
    expect(await whereIs(k, number)).toEqual(expect.arrayContaining(['public.campaigns_contact_list_items.number', 'public.campaigns_shippings.number']));

    const unconfirmed = await k.as(A.admin, 'POST', `/contacts/${contact.id}/anonymize`, { confirm: false });
    expect({ status: unconfirmed.statusCode, error: unconfirmed.json().error }).toEqual({ status: 400, error: 'ERR_ANONYMIZE_NOT_CONFIRMED' });
    expect((await k.as(A.admin, 'POST', `/contacts/${contact.id}/anonymize`, {})).statusCode).toBe(400);

    const res = await k.as(A.admin, 'POST', `/contacts/${contact.id}/anonymize`, { confirm: true });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ contactId: contact.id, tickets: 1, messages: expect.any(Number), schedules: 1, listItems: 2, campaignRecipients: 1 });
    expect(res.json().messages).toBeGreaterThanOrEqual(3);

    for (const needle of [name, 'Zélia', number, secret, '321.654.987-00', 'zelia.sigilosa@example.com', 'Rua das Flores Secretas', 'anotado o CPF']) {
      expect({ needle, tables: await whereIs(k, needle) }).toEqual({ needle, tables: [] });
    }
    expect(await counts()).toEqual(before);
    // The campaign's report and the dashboard's figures are unchanged; the other person stays in the list.
    expect((await A.api('GET', `/campaigns/${campaignDone.id}`)).counts).toEqual(campaignDone.counts);
    expect((await k.as(A.admin, 'GET', '/dashboard?days=7')).json()).toEqual(dashboardBefore);
    expect((await A.api('GET', `/contact-list-items?contactListId=${list.id}`)).contacts.map((c: { id: number }) => c.id)).toEqual([other.id]);
    expect(before.ratings).toContain(9);
    const privacy = (await k.as(A.admin, 'GET', `/contacts/${contact.id}/privacy`)).json();
    expect(privacy).toMatchObject({ contactId: contact.id, anonymizedAt: expect.any(String) });
    const after = (await k.as(A.admin, 'GET', `/contacts/${contact.id}`)).json();
    expect(after).toMatchObject({ name: `#${contact.id}`, number: `anon-${contact.id}`, email: '', extraInfo: [] });
    const audit = (await k.as(A.admin, 'GET', `/audit-logs?entity=contact&entityId=${contact.id}&action=anonymize`)).json();
    expect(audit.records).toEqual([expect.objectContaining({ action: 'anonymize', userId: A.admin.id, after: { tickets: 1, messages: res.json().messages, schedules: 1, listItems: 2, campaignRecipients: 1 } })]);
    // Company B's contact is untouched.
    expect((await k.db('contacts').where({ id: keep.id }).first()).name).toBe('Beto Intocado');
    expect(await whereIs(k, 'mensagem de B')).toEqual(expect.arrayContaining(['public.messages.body']));
    // The same person writing again is a new contact with a new ticket.
    const again = await A.writesIn('34101', name, number, 'voltei');
    expect(again.id).not.toBe(contact.id);
  });
});
