/**
 * The campaigns plugin's routes: the plan gate, contact lists and items (validation, import with progress
 * events and per-row errors), campaign settings in the product family's shapes, campaign CRUD with the
 * status machine and the edit rule, roles, and tenant isolation of lists, items, campaigns and settings.
 */
import * as XLSX from '@e965/xlsx';
import { collectEvents, waitFor, type TestKernel } from '@atendo/testing';
import { bootKernel, Graph, Tenant } from './harness';

/** A sheet (.xlsx or .xls) of `rows` (the first is the header). */
function sheet(rows: unknown[][], bookType: 'xlsx' | 'biff8' = 'xlsx'): Buffer {
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(rows), 'Plan1');
  return XLSX.write(wb, { type: 'buffer', bookType }) as Buffer;
}

/** A multipart body with one `file` part. */
function multipart(file: Buffer, filename: string, type = 'application/octet-stream'): { payload: Buffer; headers: Record<string, string> } {
  const boundary = '----campaigns' + Date.now();
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe('campaigns API', () => {
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

  test('every route is gated by useCampaigns', async () => {
    const t = await Tenant.create(k, { without: ['useCampaigns'] });
    for (const [method, url] of [['GET', '/campaigns'], ['GET', '/contact-lists'], ['GET', '/contact-list-items?contactListId=1'], ['GET', '/campaign-settings'], ['POST', '/contact-lists']] as const) {
      const res = await k.as(t.admin, method, url, method === 'POST' ? { name: 'Lista' } : undefined);
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe('ERR_FEATURE_NOT_IN_PLAN');
    }
    expect((await k.as(null, 'GET', '/campaigns')).statusCode).toBe(401);
  });

  test('contact lists and items: validation, normalised numbers, counts, duplicates, roles, events', async () => {
    const t = await Tenant.create(k);
    const base = await k.listen();
    const socket = await k.socket(t.admin.token, base);
    try {
      expect((await k.as(t.admin, 'POST', '/contact-lists', { name: 'x' })).json().error).toBe('ERR_VALIDATION');
      const listEvents = collectEvents(socket, `company-${t.companyId}-ContactList`, 800);
      const list = await t.api('POST', '/contact-lists', { name: '  Clientes VIP ' });
      expect(list).toMatchObject({ name: 'Clientes VIP', contactsCount: '0', companyId: t.companyId });
      expect((await listEvents).map((e: any) => e.action)).toContain('create'); // eslint-disable-line @typescript-eslint/no-explicit-any

      const itemEvents = collectEvents(socket, `company-${t.companyId}-ContactListItem`, 800);
      const item = await t.api('POST', '/contact-list-items', { name: 'Maria', number: '+55 (11) 98765-4321', email: 'maria@example.com', contactListId: String(list.id) });
      expect(item).toMatchObject({ name: 'Maria', number: '5511987654321', email: 'maria@example.com', isWhatsappValid: null, contactListId: list.id });
      expect(((await itemEvents) as any[]).find((e) => e.action === 'create')?.record.id).toBe(item.id); // eslint-disable-line @typescript-eslint/no-explicit-any
      for (const bad of [{ name: 'M', number: '5511987654321' }, { name: 'Maria', number: '1234' }, { name: 'Maria', email: 'not-an-email' }, { name: 'Maria', number: 'abc-defgh-ij' }]) {
        expect((await k.as(t.admin, 'POST', '/contact-list-items', { ...bad, contactListId: list.id })).json().error).toBe('ERR_VALIDATION');
      }
      expect((await k.as(t.admin, 'POST', '/contact-list-items', { name: 'Outra Maria', number: '11987654321', contactListId: list.id })).json().error).toBe('ERR_CONTACT_LIST_ITEM_DUPLICATED');
      await t.api('POST', '/contact-list-items', { name: 'Sem número', contactListId: list.id });
      expect((await t.api('GET', `/contact-lists/${list.id}`)).contactsCount).toBe('2');

      const page = await t.api('GET', `/contact-list-items?contactListId=${list.id}&searchParam=98765`);
      expect(page.contacts.map((c: { name: string }) => c.name)).toEqual(['Maria']);
      const updated = await t.api('PUT', `/contact-list-items/${item.id}`, { name: 'Maria Souza' });
      expect(updated).toMatchObject({ name: 'Maria Souza', number: '5511987654321' });

      // Deleting an item needs supervisor or admin (contacts-page:deleteContact).
      const user = await k.createUser(t.companyId, { profile: 'user' });
      expect((await k.as(user, 'DELETE', `/contact-list-items/${item.id}`)).statusCode).toBe(403);
      const supervisor = await k.createUser(t.companyId, { profile: 'supervisor' });
      expect((await k.as(supervisor, 'DELETE', `/contact-list-items/${item.id}`)).statusCode).toBe(200);
      expect((await k.as(t.admin, 'GET', `/contact-list-items/${item.id}`)).json().error).toBe('ERR_NO_CONTACT_LIST_ITEM_FOUND');

      const lists = await t.api('GET', '/contact-lists?searchParam=vip');
      expect(lists).toMatchObject({ count: 1, hasMore: false });
      expect(lists.records[0]).toMatchObject({ id: list.id, contactsCount: '1' });
      expect((await t.api('GET', '/contact-lists/list')).map((l: { id: number }) => l.id)).toEqual([list.id]);
      await t.api('PUT', `/contact-lists/${list.id}`, { name: 'Renomeada' });
      // One rule: a user who may not delete one item may not delete the whole list (its items) either.
      expect((await k.as(user, 'DELETE', `/contact-lists/${list.id}`)).json()).toMatchObject({ error: 'ERR_NO_PERMISSION' });
      expect((await k.as(user, 'DELETE', `/contact-lists/${list.id}`)).statusCode).toBe(403);
      expect((await t.api('GET', `/contact-lists/${list.id}`)).contactsCount).toBe('1');
      expect((await k.as(supervisor, 'DELETE', `/contact-lists/${list.id}`)).statusCode).toBe(200);
      expect((await k.as(t.admin, 'GET', `/contact-lists/${list.id}`)).json().error).toBe('ERR_NO_CONTACT_LIST_FOUND');
    } finally {
      socket.close();
    }
  });

  test('import (.xlsx and .xls): per-row errors, upsert by number, progress and reload events', async () => {
    const t = await Tenant.create(k);
    const list = await t.api('POST', '/contact-lists', { name: 'Importada' });
    const base = await k.listen();
    const socket = await k.socket(t.admin.token, base);
    try {
      const got: any[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
      socket.on(`company-${t.companyId}-ContactListItem-${list.id}`, (e) => got.push(e));
      const rows = [
        ['Nome', 'Número', 'E-mail'],
        ['Ana', 5511987650001, 'ana@example.com'],
        ['', '5511987650002', ''],
        ['Bia', '12', ''],
        ['Caio', '5511987650003', 'caio-at-example'],
        [],
        ['Duda', '(11) 98765-0004', 'duda@example.com'],
        ['Ana Repetida', '5511987650001', ''],
      ];
      const { payload, headers } = multipart(sheet(rows), 'contatos.xlsx');
      const res = await k.as(t.admin, 'POST', `/contact-lists/${list.id}/upload`, payload, headers);
      expect(res.statusCode).toBe(200);
      const done = res.json();
      expect(done).toMatchObject({ contactListId: list.id, status: 'done', total: 6, processed: 6, created: 3, updated: 0 });
      expect(done.errors).toEqual([
        { row: 2, error: 'DUPLICATED' },
        { row: 4, error: 'INVALID_NUMBER' },
        { row: 5, error: 'INVALID_EMAIL' },
      ]);
      await waitFor(() => got.some((e) => e.action === 'reload'), 5000);
      expect(got.map((e) => e.action)).toEqual(['import-progress', 'import-progress', 'import-done', 'reload']);
      expect(got[3].records.map((r: { name: string }) => r.name)).toEqual(['5511987650002', 'Ana Repetida', 'Duda']);
      const items = (await t.api('GET', `/contact-list-items?contactListId=${list.id}`)).contacts;
      expect(items.map((i: { number: string }) => i.number).sort()).toEqual(['5511987650001', '5511987650002', '5511987650004']);

      // Legacy .xls: the same rows update (by number) instead of duplicating.
      const xls = multipart(sheet([['name', 'number', 'email'], ['Duda Nova', '5511987650004', 'nova@example.com'], ['Eva', '5511987650005', '']], 'biff8'), 'contatos.xls');
      const res2 = await k.as(t.admin, 'POST', `/contact-lists/${list.id}/upload`, xls.payload, xls.headers);
      expect(res2.json()).toMatchObject({ total: 2, created: 1, updated: 1, errors: [] });
      expect((await t.api('GET', `/contact-lists/${list.id}`)).contactsCount).toBe('4');

      // Not a spreadsheet, or the wrong extension: refused, nothing stored.
      const txt = multipart(Buffer.from('name,number\nZé,5511987650009\n'), 'contatos.txt');
      expect((await k.as(t.admin, 'POST', `/contact-lists/${list.id}/upload`, txt.payload, txt.headers)).json().error).toBe('ERR_UPLOAD_TYPE');
      const fake = multipart(Buffer.from('not a sheet at all'), 'contatos.xlsx');
      expect((await k.as(t.admin, 'POST', `/contact-lists/${list.id}/upload`, fake.payload, fake.headers)).json().error).toBe('ERR_UPLOAD_TYPE');
      const broken = multipart(Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(64, 1)]), 'contatos.xlsx');
      expect((await k.as(t.admin, 'POST', `/contact-lists/${list.id}/upload`, broken.payload, broken.headers)).json().error).toBe('ERR_SHEET_INVALID');
      expect((await t.api('GET', `/contact-lists/${list.id}`)).contactsCount).toBe('4');
      // A .csv (`,` or `;`) is read by the same bounded reader.
      const csv = multipart(Buffer.from('name;number\nZé;5511987650009\n'), 'contatos.csv');
      expect((await k.as(t.admin, 'POST', `/contact-lists/${list.id}/upload`, csv.payload, csv.headers)).json()).toMatchObject({ total: 1, created: 1, errors: [] });
      expect((await t.api('GET', `/contact-lists/${list.id}`)).contactsCount).toBe('5');

      // The example sheet downloads and imports.
      const example = await k.as(t.admin, 'GET', '/contact-lists/example');
      expect(example.statusCode).toBe(200);
      const ex = multipart(example.rawPayload, 'exemplo.xlsx');
      expect((await k.as(t.admin, 'POST', `/contact-lists/${list.id}/upload`, ex.payload, ex.headers)).json()).toMatchObject({ total: 2, created: 2 });
    } finally {
      socket.close();
    }
  });

  test('issue 34: items carry an optional legal basis and consent date (form and import); bad values refused; another company cannot read them', async () => {
    const t = await Tenant.create(k);
    const list = await t.api('POST', '/contact-lists', { name: 'Consentidos' });
    const item = await t.api('POST', '/contact-list-items', { name: 'Lia', number: '5511987651001', legalBasis: 'consent', consentAt: '2026-01-15', contactListId: list.id });
    expect(item).toMatchObject({ legalBasis: 'consent', consentAt: '2026-01-15T00:00:00.000Z' });
    const plain = await t.api('POST', '/contact-list-items', { name: 'Rui', number: '5511987651002', contactListId: list.id });
    expect(plain).toMatchObject({ legalBasis: null, consentAt: null });
    const changed = await t.api('PUT', `/contact-list-items/${plain.id}`, { legalBasis: 'legitimate-interest', consentAt: '2026-02-01T13:30:00-03:00' });
    expect(changed).toMatchObject({ name: 'Rui', legalBasis: 'legitimate-interest', consentAt: '2026-02-01T16:30:00.000Z' });
    // Cleared with '' (the form's empty choice); other fields untouched.
    expect(await t.api('PUT', `/contact-list-items/${plain.id}`, { legalBasis: '', consentAt: null })).toMatchObject({ name: 'Rui', legalBasis: null, consentAt: null });
    const future = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    for (const bad of [{ legalBasis: 'because' }, { consentAt: 'yesterday' }, { consentAt: future }, { consentAt: '2026-13-45' }]) {
      const res = await k.as(t.admin, 'POST', '/contact-list-items', { name: 'Ruim', number: '5511987651009', contactListId: list.id, ...bad });
      expect({ bad, status: res.statusCode, error: res.json().error }).toEqual({ bad, status: 400, error: 'ERR_VALIDATION' });
    }
    expect((await t.api('GET', `/contact-list-items?contactListId=${list.id}`)).contacts.find((c: { id: number }) => c.id === item.id)).toMatchObject({ legalBasis: 'consent', consentAt: '2026-01-15T00:00:00.000Z' });

    // Import: the optional columns by their pt-BR names and words; a blank cell keeps what is stored.
    const rows = [
      ['Nome', 'Número', 'Base legal', 'Data do consentimento'],
      ['Lia Nova', '5511987651001', '', ''],
      ['Mel', '5511987651003', 'Consentimento', '20/03/2026'],
      ['Nei', '5511987651004', 'Interesse legítimo', new Date(Date.UTC(2026, 1, 10))],
      ['Ori', '5511987651005', 'porque sim', ''],
      ['Pia', '5511987651006', 'contrato', '31/02/2026'],
    ];
    const { payload, headers } = multipart(sheet(rows), 'consentimentos.xlsx');
    const done = (await k.as(t.admin, 'POST', `/contact-lists/${list.id}/upload`, payload, headers)).json();
    expect(done).toMatchObject({ total: 5, created: 2, updated: 1, errors: [{ row: 5, error: 'INVALID_LEGAL_BASIS' }, { row: 6, error: 'INVALID_CONSENT_DATE' }] });
    const byNumber = Object.fromEntries((await t.api('GET', `/contact-list-items?contactListId=${list.id}`)).contacts.map((c: { number: string; name: string; legalBasis: string | null; consentAt: string | null }) => [c.number, [c.name, c.legalBasis, c.consentAt]]));
    expect(byNumber['5511987651001']).toEqual(['Lia Nova', 'consent', '2026-01-15T00:00:00.000Z']);
    expect(byNumber['5511987651003']).toEqual(['Mel', 'consent', '2026-03-20T00:00:00.000Z']);
    expect(byNumber['5511987651004']).toEqual(['Nei', 'legitimate-interest', '2026-02-10T00:00:00.000Z']);

    // Another company reads and changes none of it.
    const other = await Tenant.create(k);
    for (const [method, url, body] of [['GET', `/contact-list-items/${item.id}`], ['PUT', `/contact-list-items/${item.id}`, { legalBasis: 'contract' }], ['GET', `/contact-list-items?contactListId=${list.id}`]] as const) {
      const res = await k.as(other.admin, method, url, body);
      expect({ url, status: res.statusCode }).toEqual({ url, status: 404 });
    }
    expect((await t.api('GET', `/contact-list-items/${item.id}`)).legalBasis).toBe('consent');
  });

  test('campaign settings: the old client shapes, defaults, validation, admin only', async () => {
    const t = await Tenant.create(k);
    expect(await t.api('GET', '/campaign-settings')).toEqual([]);
    const saved = await t.api('POST', '/campaign-settings', { settings: { messageInterval: 0, longerIntervalAfter: '5', greaterInterval: 30, variables: [{ key: 'loja', value: 'Centro' }, { key: 'cupom', value: 'X10' }] } });
    const byKey = Object.fromEntries(saved.map((r: { key: string; value: string }) => [r.key, JSON.parse(r.value)]));
    expect(byKey).toEqual({ messageInterval: 0, longerIntervalAfter: 5, greaterInterval: 30, variables: [{ key: 'loja', value: 'Centro' }, { key: 'cupom', value: 'X10' }] });
    expect((await t.api('GET', '/campaign-settings')).every((r: { companyId: number }) => r.companyId === t.companyId)).toBe(true);
    expect((await k.as(t.admin, 'POST', '/campaign-settings', { settings: { variables: [{ key: 'a', value: '1' }, { key: 'a', value: '2' }] } })).json().error).toBe('ERR_CAMPAIGN_VARIABLE_DUPLICATED');
    expect((await k.as(t.admin, 'POST', '/campaign-settings', { settings: { messageInterval: -1 } })).json().error).toBe('ERR_VALIDATION');
    // Unknown keys are dropped, not stored.
    await t.api('POST', '/campaign-settings', { settings: { other: 1 } });
    expect((await t.api('GET', '/campaign-settings')).map((r: { key: string }) => r.key).sort()).toEqual(['greaterInterval', 'longerIntervalAfter', 'messageInterval', 'variables']);
    const user = await k.createUser(t.companyId, { profile: 'user' });
    expect((await k.as(user, 'POST', '/campaign-settings', { settings: { messageInterval: 5 } })).statusCode).toBe(403);
    expect((await k.as(user, 'GET', '/campaign-settings')).statusCode).toBe(200);
  });

  test('status machine: INATIVA, PROGRAMADA, the 1-hour edit rule, refusals, company time zone', async () => {
    const t = await Tenant.create(k);
    const conn = await t.connection('320000000000001');
    const listId = await t.list([{ name: 'Zé', number: '5511987651111' }]);
    const c = await t.api('POST', '/campaigns', { name: 'Natal', message1: 'Feliz Natal {nome}', scheduledAt: '', contactListId: '', whatsappId: '' });
    expect(c).toMatchObject({ status: 'INATIVA', scheduledAt: null, contactListId: null, whatsappId: null, whatsapp: null, confirmation: false });
    expect((await k.as(t.admin, 'POST', '/campaigns', { name: 'N' })).json().error).toBe('ERR_VALIDATION');
    // Scheduling needs a list, a connection and a message.
    expect((await k.as(t.admin, 'PUT', `/campaigns/${c.id}`, { scheduledAt: '2999-12-24 09:00:00' })).json().error).toBe('ERR_CAMPAIGN_INCOMPLETE');
    // A time without offset is the company's wall time (America/Sao_Paulo by default: UTC-3).
    const scheduled = await t.api('PUT', `/campaigns/${c.id}`, { scheduledAt: '2999-12-24 09:00:00', contactListId: listId, whatsappId: String(conn) });
    expect(scheduled).toMatchObject({ status: 'PROGRAMADA', scheduledAt: '2999-12-24T12:00:00.000Z', whatsappId: String(conn), whatsappIds: [conn] });
    expect(scheduled.whatsapp).toMatchObject({ id: conn });
    expect(scheduled.counts).toMatchObject({ validContacts: 1, pending: 1 });
    // More than an hour ahead: still editable; an ISO time with offset is taken as it is.
    const moved = await t.api('PUT', `/campaigns/${c.id}`, { scheduledAt: '2999-12-24T09:00:00+00:00', name: 'Natal 2999' });
    expect(moved).toMatchObject({ status: 'PROGRAMADA', scheduledAt: '2999-12-24T09:00:00.000Z', name: 'Natal 2999' });
    // Removing the schedule: INATIVA again.
    expect((await t.api('PUT', `/campaigns/${c.id}`, { scheduledAt: null })).status).toBe('INATIVA');
    // Less than an hour ahead: read-only (sending the same values is not a change).
    const soon = await t.api('POST', '/campaigns', { name: 'Logo', message1: 'Oi', contactListId: listId, whatsappId: conn, scheduledAt: new Date(Date.now() + 30 * 60_000).toISOString() });
    expect(soon.status).toBe('PROGRAMADA');
    expect((await k.as(t.admin, 'PUT', `/campaigns/${soon.id}`, { message1: 'Mudou' })).json().error).toBe('ERR_CAMPAIGN_NOT_EDITABLE');
    expect((await k.as(t.admin, 'PUT', `/campaigns/${soon.id}`, { message1: 'Oi', name: 'Logo' })).statusCode).toBe(200);
    // Transitions only from their status.
    expect((await k.as(t.admin, 'POST', `/campaigns/${soon.id}/cancel`)).json().error).toBe('ERR_CAMPAIGN_INVALID_TRANSITION');
    expect((await k.as(t.admin, 'POST', `/campaigns/${soon.id}/restart`)).json().error).toBe('ERR_CAMPAIGN_INVALID_TRANSITION');
    // Bad references: another company's list or connection, unknown ids.
    const other = await Tenant.create(k);
    const otherList = await other.list([]);
    expect((await k.as(t.admin, 'PUT', `/campaigns/${c.id}`, { contactListId: otherList })).json().error).toBe('ERR_NO_CONTACT_LIST_FOUND');
    const otherConn = await other.connection('320000000000002');
    expect((await k.as(t.admin, 'PUT', `/campaigns/${c.id}`, { whatsappId: `${conn},${otherConn}` })).json().error).toBe('ERR_NO_WAPP_FOUND');
    expect((await k.as(t.admin, 'PUT', `/campaigns/${c.id}`, { scheduledAt: 'amanhã' })).json().error).toBe('ERR_VALIDATION');
    // The list answers the spec's columns.
    const page = await t.api('GET', '/campaigns?searchParam=natal');
    expect(page.count).toBe(1);
    expect(Object.keys(page.records[0])).toEqual(expect.arrayContaining(['id', 'name', 'status', 'contactList', 'whatsapp', 'scheduledAt', 'completedAt', 'confirmation', 'message1', 'confirmationMessage5', 'counts']));
    await t.api('DELETE', `/campaigns/${soon.id}`);
    expect((await k.as(t.admin, 'GET', `/campaigns/${soon.id}`)).json().error).toBe('ERR_NO_CAMPAIGN_FOUND');
  });

  test('tenant isolation: lists, items, campaigns and settings of another company are 404 or invisible', async () => {
    const a = await Tenant.create(k);
    const b = await Tenant.create(k);
    const listId = await a.list([{ name: 'Segredo', number: '5511987652222' }]);
    const item = (await a.api('GET', `/contact-list-items?contactListId=${listId}`)).contacts[0];
    const campaign = await a.api('POST', '/campaigns', { name: 'Secreta', message1: 'x', contactListId: listId });
    await a.settings({ messageInterval: 5, variables: [{ key: 'k', value: 'v' }] });
    const as = (m: string, u: string, body?: unknown) => k.as(b.admin, m, u, body);
    expect((await as('GET', `/contact-lists/${listId}`)).statusCode).toBe(404);
    expect((await as('PUT', `/contact-lists/${listId}`, { name: 'Minha' })).statusCode).toBe(404);
    expect((await as('DELETE', `/contact-lists/${listId}`)).statusCode).toBe(404);
    expect((await as('GET', `/contact-list-items?contactListId=${listId}`)).statusCode).toBe(404);
    expect((await as('GET', `/contact-list-items/${item.id}`)).statusCode).toBe(404);
    expect((await as('PUT', `/contact-list-items/${item.id}`, { name: 'Minha' })).statusCode).toBe(404);
    expect((await as('DELETE', `/contact-list-items/${item.id}`)).statusCode).toBe(404);
    expect((await as('POST', '/contact-list-items', { name: 'Intrusa', number: '5511987653333', contactListId: listId })).statusCode).toBe(404);
    expect((await as('GET', `/campaigns/${campaign.id}`)).statusCode).toBe(404);
    expect((await as('PUT', `/campaigns/${campaign.id}`, { name: 'Minha' })).statusCode).toBe(404);
    expect((await as('POST', `/campaigns/${campaign.id}/cancel`)).statusCode).toBe(404);
    expect((await as('DELETE', `/campaigns/${campaign.id}`)).statusCode).toBe(404);
    expect((await as('GET', '/campaigns')).json()).toMatchObject({ records: [], count: 0 });
    expect((await as('GET', '/contact-lists')).json()).toMatchObject({ records: [], count: 0 });
    expect((await as('GET', '/campaign-settings')).json()).toEqual([]);
    expect((await a.api('GET', `/campaigns/${campaign.id}`)).name).toBe('Secreta');
  });
});
