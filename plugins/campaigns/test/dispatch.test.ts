/**
 * The dispatcher end to end on WhatsApp Cloud connections against a local Graph server: variants in turn,
 * variables, rotation among connections, media, pacing to the second, cancel and restart without a
 * duplicate, a disconnected connection pausing the campaign, messages landing in tickets.
 */
import { waitFor, type TestKernel } from '@atendo/testing';
import { bootKernel, Graph, noMore, phone, Tenant } from './harness';

describe('campaign dispatcher', () => {
  const graph = new Graph();
  let k: TestKernel;
  beforeAll(async () => {
    await graph.start();
    k = await bootKernel(graph);
  });
  afterAll(async () => {
    await k?.close();
    await graph.stop();
  });

  test('a campaign to the contacts of a tag (tagListId): its WhatsApp contacts only, counted before start, each once', async () => {
    const t = await Tenant.create(k);
    const conn = await t.connection('310000000000009');
    await t.settings({ messageInterval: 0, longerIntervalAfter: 0, greaterInterval: 0 });
    const vip = await t.api('POST', '/tags', { name: 'VIP', color: '#ff0000' });
    const other = await t.api('POST', '/tags', { name: 'Outros', color: '#00ff00' });
    const people = Array.from({ length: 3 }, (_, i) => ({ name: `Cliente ${i + 1}`, number: phone() }));
    const ids: number[] = [];
    for (const p of people) ids.push((await t.api('POST', '/contacts', p)).id);
    const untagged = (await t.api('POST', '/contacts', { name: 'Sem tag', number: phone() })).id;
    for (const id of ids) await t.api('POST', '/tags/sync', { contactId: id, tags: [{ id: vip.id }] });
    await t.api('POST', '/tags/sync', { contactId: untagged, tags: [{ id: other.id }] });
    // A blocked contact with the tag is not a recipient.
    const blocked = (await t.api('POST', '/contacts', { name: 'Bloqueado', number: phone() })).id;
    await t.api('POST', '/tags/sync', { contactId: blocked, tags: [{ id: vip.id }] });
    await k.db('contacts').where({ id: blocked }).update({ active: false });
    const inactive = await t.api('POST', '/campaigns', { name: 'Por tag', tagListId: vip.id, whatsappId: String(conn), message1: 'Oi {nome}' });
    expect(inactive).toMatchObject({ status: 'INATIVA', tagListId: vip.id, contactListId: null, counts: { validContacts: 3 } });
    const c = await t.api('PUT', `/campaigns/${inactive.id}`, { scheduledAt: new Date(Date.now() - 1000).toISOString() });
    // Due now: the answer may already show the dispatcher's first run.
    expect(['PROGRAMADA', 'EM_ANDAMENTO']).toContain(c.status);
    const done = await t.until(c.id, 'FINALIZADA');
    expect(done.counts).toMatchObject({ validContacts: 3, delivered: 3, failed: 0 });
    await waitFor(() => (people.every((p) => graph.to(p.number).length >= 1) ? true : undefined), 10_000);
    expect(people.map((p) => graph.to(p.number).map((m) => m.text))).toEqual(people.map((p) => [`Oi ${p.name}`]));
    const shippings = await k.db('campaigns_shippings').where({ campaignId: c.id }).orderBy('seq');
    expect(shippings.map((r) => [r.seq, r.number, r.contactListItemId])).toEqual(people.map((p, i) => [i + 1, p.number, null]));
    // Neither a list nor a tag: it cannot be scheduled.
    const none = await k.as(t.admin, 'POST', '/campaigns', { name: 'Sem destino', whatsappId: String(conn), message1: 'x', scheduledAt: new Date().toISOString() });
    expect([none.statusCode, none.json().error]).toEqual([400, 'ERR_CAMPAIGN_INCOMPLETE']);
  });

  test("the product family's form and report: tagListId \"Nenhuma\" is no tag; GET /campaigns/:id answers shipping and contactList.contacts", async () => {
    const t = await Tenant.create(k);
    const conn = await t.connection('310000000000011');
    await t.settings({ messageInterval: 0, longerIntervalAfter: 0, greaterInterval: 0 });
    const people = Array.from({ length: 2 }, (_, i) => ({ name: `Família ${i + 1}`, number: phone() }));
    const listId = await t.list(people);
    // CampaignModal's values as it posts them: '' becomes null, the tag select keeps its initial label.
    const form = {
      name: 'Pela família', message1: 'Olá {nome}', message2: null, message3: null, message4: null, message5: null,
      confirmationMessage1: null, confirmationMessage2: null, confirmationMessage3: null, confirmationMessage4: null, confirmationMessage5: null,
      status: 'INATIVA', confirmation: false, scheduledAt: null, contactListId: listId, tagListId: 'Nenhuma', companyId: t.companyId, whatsappId: String(conn),
    };
    const created = await k.as(t.admin, 'POST', '/campaigns', form);
    expect(created.statusCode).toBe(200);
    expect(created.json()).toMatchObject({ status: 'INATIVA', contactListId: listId, tagListId: null });
    // Its report before the start: no recipient yet, the list's items with their number check.
    const before = await t.api('GET', `/campaigns/${created.json().id}`);
    expect(before.shipping).toEqual([]);
    expect(before.contactList.contacts).toHaveLength(2);
    expect(before.contactList.contacts[0]).toEqual({ id: expect.any(Number), isWhatsappValid: null });
    await t.api('PUT', `/campaigns/${created.json().id}`, { ...form, scheduledAt: new Date(Date.now() - 1000).toISOString() });
    await t.until(created.json().id, 'FINALIZADA');
    const report = await t.api('GET', `/campaigns/${created.json().id}`);
    expect(report.shipping).toHaveLength(2);
    expect(report.shipping.filter((x: { deliveredAt: string | null }) => x.deliveredAt !== null)).toHaveLength(2);
    expect(report.contactList.contacts).toHaveLength(2);
    // Atendo's screens ask without them.
    const lean = await t.api('GET', `/campaigns/${created.json().id}?shipping=false`);
    expect(lean.shipping).toBeUndefined();
    expect(lean.contactList.contacts).toBeUndefined();
    expect(lean.counts).toMatchObject({ delivered: 2 });
  });

  test('variants in turn, variables filled, connections in rotation, every message in a ticket, FINALIZADA', async () => {
    const t = await Tenant.create(k);
    const c1 = await t.connection('310000000000001');
    const c2 = await t.connection('310000000000002');
    await t.settings({ messageInterval: 0, longerIntervalAfter: 0, greaterInterval: 0, variables: [{ key: 'loja', value: 'Loja Centro' }] });
    const people = Array.from({ length: 6 }, (_, i) => ({ name: `Pessoa ${i + 1}`, number: phone(), email: `p${i + 1}@example.com` }));
    const listId = await t.list(people);
    const c = await t.campaign({
      contactListId: listId,
      whatsappId: `${c1},${c2}`,
      message1: 'Olá {nome}, oferta da {loja}',
      message2: 'Oi {nome} ({numero}), veja {email}',
      message3: 'Ei {{firstName}}!',
    });
    // Due now: the answer may already show the dispatcher's first run.
    expect(['PROGRAMADA', 'EM_ANDAMENTO']).toContain(c.status);
    const done = await t.until(c.id, 'FINALIZADA');
    expect(done.completedAt).not.toBeNull();
    expect(done.counts).toMatchObject({ validContacts: 6, delivered: 6, pending: 0, failed: 0 });

    // Stored and counted as delivered when the campaign ends; the provider's send follows through the outbound queue.
    await waitFor(() => (people.every((p) => graph.to(p.number).length >= 1) ? true : undefined), 10_000);
    const texts = people.map((p) => graph.to(p.number));
    for (const got of texts) expect(got).toHaveLength(1);
    expect(texts.map((g) => g[0].text)).toEqual([
      'Olá Pessoa 1, oferta da Loja Centro',
      `Oi Pessoa 2 (${people[1].number}), veja p2@example.com`,
      'Ei Pessoa!',
      'Olá Pessoa 4, oferta da Loja Centro',
      `Oi Pessoa 5 (${people[4].number}), veja p5@example.com`,
      'Ei Pessoa!',
    ]);
    // Rotation: recipients alternate between the two connections' phone numbers.
    expect(texts.map((g) => g[0].phoneId)).toEqual(['310000000000001', '310000000000002', '310000000000001', '310000000000002', '310000000000001', '310000000000002']);
    // Each message is stored in a ticket of its contact (created closed: the inbox is not flooded).
    for (const p of people) {
      const contact = await k.db('contacts').where({ companyId: t.companyId, number: p.number }).first();
      const tickets = await k.db('tickets').where({ companyId: t.companyId, contactId: contact.id });
      expect(tickets).toHaveLength(1);
      expect(tickets[0].status).toBe('closed');
      const msgs = await k.db('messages').where({ ticketId: tickets[0].id });
      expect(msgs).toHaveLength(1);
      expect(msgs[0].fromMe).toBe(true);
      await waitFor(async () => (await k.db('messages').where({ id: msgs[0].id }).first()).ack >= 1, 5000);
    }
    const shipping = (await t.api('GET', `/campaigns/${c.id}?shipping=true`)).shipping;
    expect(shipping.map((s: { variant: number }) => s.variant)).toEqual([1, 2, 3, 1, 2, 3]);
    expect(shipping.every((s: { deliveredAt: string | null }) => s.deliveredAt)).toBe(true);
  });

  test('media goes with the message; a second campaign to the same contact reuses its ticket', async () => {
    const t = await Tenant.create(k);
    const conn = await t.connection('310000000000003');
    await t.settings({ messageInterval: 0 });
    const n = phone();
    const listId = await t.list([{ name: 'Ana Lima', number: n }]);
    const c = await t.api('POST', '/campaigns', { name: 'Com mídia', contactListId: listId, whatsappId: conn, message1: 'Veja a foto, {nome}' });
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    const boundary = '----x' + Date.now();
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="foto.png"\r\nContent-Type: image/png\r\n\r\n`),
      png,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const up = await k.as(t.admin, 'POST', `/campaigns/${c.id}/media-upload`, payload, { 'content-type': `multipart/form-data; boundary=${boundary}` });
    expect(up.statusCode).toBe(200);
    expect(up.json().mediaName).toBe('foto.png');
    await t.api('PUT', `/campaigns/${c.id}`, { scheduledAt: new Date().toISOString() });
    await t.until(c.id, 'FINALIZADA');
    const got = (await waitFor(() => (graph.to(n).length ? graph.to(n) : undefined), 5000))!;
    expect(got).toHaveLength(1);
    expect(got[0].type).toBe('image');
    expect(got[0].text).toBe('Veja a foto, Ana Lima');

    const again = await t.campaign({ name: 'Segunda', contactListId: listId, whatsappId: conn, message1: 'De novo' });
    await t.until(again.id, 'FINALIZADA');
    await waitFor(() => (graph.to(n).length === 2 ? true : undefined), 5000);
    const contact = await k.db('contacts').where({ companyId: t.companyId, number: n }).first();
    expect(await k.db('tickets').where({ companyId: t.companyId, contactId: contact.id })).toHaveLength(1);
  });

  test("a campaign leaves the tenant's saved contacts named as they are; a list's name names only the contacts it creates", async () => {
    const t = await Tenant.create(k);
    const conn = await t.connection('310000000000012');
    await t.settings({ messageInterval: 0, longerIntervalAfter: 0, greaterInterval: 0 });
    const known = phone();
    const unknown = phone();
    const saved = await t.api('POST', '/contacts', { name: 'Helena Manual', number: known });
    const listId = await t.list([{ name: 'Camp Cliente 1', number: known }, { name: 'Camp Cliente 2', number: unknown }]);
    const c = await t.campaign({ contactListId: listId, whatsappId: conn, message1: 'Oi {nome}' });
    await t.until(c.id, 'FINALIZADA');
    expect((await k.db('contacts').where({ id: saved.id }).first()).name).toBe('Helena Manual');
    expect((await k.db('contacts').where({ companyId: t.companyId, number: unknown }).first()).name).toBe('Camp Cliente 2');
    // The list's name still fills {nome} in the list's message.
    await waitFor(() => (graph.to(known).length ? true : undefined), 10_000);
    expect(graph.to(known)[0].text).toBe('Oi Camp Cliente 1');
  });

  test('pacing: messageInterval 5, longerIntervalAfter 2, greaterInterval 20 -> sends at 0, 5, 25, 30 s (each gap within 1 s)', async () => {
    const t = await Tenant.create(k);
    const conn = await t.connection('310000000000004');
    await t.settings({ messageInterval: 5, longerIntervalAfter: 2, greaterInterval: 20 });
    const people = Array.from({ length: 4 }, (_, i) => ({ name: `Ritmo ${i + 1}`, number: phone() }));
    const listId = await t.list(people);
    const c = await t.campaign({ contactListId: listId, whatsappId: conn, message1: 'Oi {nome}' });
    await t.until(c.id, 'FINALIZADA', 45_000);
    await waitFor(() => (people.every((p) => graph.to(p.number).length === 1) ? true : undefined), 5000);
    const at = people.map((p) => graph.to(p.number)[0].at);
    const gaps = at.slice(1).map((v, i) => (v - at[i]) / 1000);
    // Measured where the recipients get them (the local Graph server): each gap within one second of the rule.
    const expected = [5, 20, 5];
    gaps.forEach((g, i) => expect(Math.abs(g - expected[i])).toBeLessThan(1));
  }, 60_000);

  test('cancel stops before the next send; restart continues where it stopped, nobody gets two', async () => {
    const t = await Tenant.create(k);
    const conn = await t.connection('310000000000005');
    await t.settings({ messageInterval: 5, longerIntervalAfter: 0, greaterInterval: 0 });
    const people = Array.from({ length: 3 }, (_, i) => ({ name: `Pausa ${i + 1}`, number: phone() }));
    const listId = await t.list(people);
    const c = await t.campaign({ contactListId: listId, whatsappId: conn, message1: 'Oi {nome}' });
    await waitFor(() => (graph.to(people[0].number).length ? true : undefined), 10_000);
    const cancelled = await t.api('POST', `/campaigns/${c.id}/cancel`);
    expect(cancelled.status).toBe('CANCELADA');
    await noMore(graph, people[1].number, 0, 6500);
    // A cancelled campaign cannot be cancelled again; a running one cannot be restarted.
    expect((await k.as(t.admin, 'POST', `/campaigns/${c.id}/cancel`)).json().error).toBe('ERR_CAMPAIGN_INVALID_TRANSITION');
    // Messages stay editable while cancelled; the rest is refused.
    await t.api('PUT', `/campaigns/${c.id}`, { message1: 'Voltamos, {nome}' });
    expect((await k.as(t.admin, 'PUT', `/campaigns/${c.id}`, { name: 'Outro nome' })).json().error).toBe('ERR_CAMPAIGN_NOT_EDITABLE');
    const restarted = await t.api('POST', `/campaigns/${c.id}/restart`);
    expect(restarted.status).toBe('EM_ANDAMENTO');
    expect((await k.as(t.admin, 'POST', `/campaigns/${c.id}/restart`)).json().error).toBe('ERR_CAMPAIGN_INVALID_TRANSITION');
    await t.until(c.id, 'FINALIZADA', 30_000);
    // FINALIZADA counts the stored delivery; the provider's send follows through the outbound queue.
    await waitFor(() => (graph.to(people[2].number).length ? true : undefined), 10_000);
    await noMore(graph, people[2].number, 1, 500);
    expect(graph.to(people[0].number).map((s) => s.text)).toEqual(['Oi Pausa 1']);
    expect(graph.to(people[1].number).map((s) => s.text)).toEqual(['Voltamos, Pausa 2']);
    expect(graph.to(people[2].number).map((s) => s.text)).toEqual(['Voltamos, Pausa 3']);
  }, 60_000);

  test('a disconnected connection pauses the campaign (nothing fails); reconnecting resumes it', async () => {
    const t = await Tenant.create(k);
    const conn = await t.connection('310000000000006');
    await t.settings({ messageInterval: 0 });
    const people = Array.from({ length: 3 }, (_, i) => ({ name: `Queda ${i + 1}`, number: phone() }));
    const listId = await t.list(people);
    await k.db('whatsapps').where({ id: conn }).update({ status: 'DISCONNECTED' });
    const c = await t.campaign({ contactListId: listId, whatsappId: conn, message1: 'Oi {nome}' });
    const paused = await waitFor(async () => {
      const x = await t.api('GET', `/campaigns/${c.id}`);
      return x.paused === 'connection' ? x : undefined;
    }, 10_000);
    expect(paused.status).toBe('EM_ANDAMENTO');
    expect(paused.counts).toMatchObject({ pending: 3, failed: 0, delivered: 0 });
    for (const p of people) expect(graph.to(p.number)).toHaveLength(0);
    // The session comes back (the connections service's status update, as the session plugin does it).
    await k.db('whatsapps').where({ id: conn }).update({ status: 'CONNECTED' });
    await t.api('PUT', `/whatsapp/${conn}`, { name: 'Cloud de volta' });
    const done = await t.until(c.id, 'FINALIZADA', 15_000);
    expect(done.paused).toBeNull();
    await waitFor(() => (people.every((p) => graph.to(p.number).length >= 1) ? true : undefined), 10_000);
    for (const p of people) expect(graph.to(p.number)).toHaveLength(1);
  }, 30_000);
});
