import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { collectEvents, createTestKernel, nextEvent, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';
import { contactDecorators, contactsService, type ContactsService } from '@atendo/plugin-contacts/contract';
import { definePlugin } from '@atendo/sdk';
import { canonicalLid, cleanNumber, lidUser, maskNumber, normalizePhone, phoneCandidates, phoneKey, phoneVariants } from '../src/services/numbers';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** A multipart/form-data body with one file part. */
function multipart(field: string, filename: string, content: Buffer, type = XLSX) {
  const boundary = `----atendo${Math.random().toString(16).slice(2)}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { payload: Buffer.concat([head, content, tail]), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** An .xlsx with the given rows (the first is the header). */
async function sheet(rows: unknown[][]): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Contatos');
  for (const r of rows) ws.addRow(r);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

/** The rows of the first worksheet of an .xlsx as arrays of cell texts. */
async function readXlsx(buf: Buffer): Promise<string[][]> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(buf as unknown as ExcelJS.Buffer);
  const out: string[][] = [];
  wb.worksheets[0].eachRow((row) => out.push((row.values as unknown[]).slice(1).map((v) => String(v ?? ''))));
  return out;
}

describe('unit: numbers', () => {
  test('maskNumber keeps all but the last two of the final eight digits hidden; groups unchanged', () => {
    expect(maskNumber('5511987654321', false)).toBe('55119******21');
    expect(maskNumber('551187654321', false)).toBe('5511******21');
    expect(maskNumber('87654321', false)).toBe('******21');
    expect(maskNumber('1234567', false)).toBe('*****67');
    expect(maskNumber('12', false)).toBe('12');
    expect(maskNumber('', false)).toBe('');
    expect(maskNumber('120363025246125486', true)).toBe('120363025246125486');
  });

  test('cleanNumber strips spaces, dashes, dots, parentheses and a leading +; refuses anything else', () => {
    expect(cleanNumber('+55 (11) 98765-4321')).toBe('5511987654321');
    expect(cleanNumber('11.98765.4321')).toBe('11987654321');
    expect(cleanNumber('55119******21')).toBeNull();
    expect(cleanNumber('abc12345')).toBeNull();
    expect(cleanNumber('++5511987654321')).toBeNull();
    expect(cleanNumber('   ')).toBeNull();
  });

  test('normalizePhone: E.164 digits when libphonenumber knows the number, unchanged otherwise', () => {
    expect(normalizePhone('5511987654321')).toBe('5511987654321');
    expect(normalizePhone('11987654321')).toBe('5511987654321');
    expect(normalizePhone('14155552671')).toBe('14155552671');
    expect(normalizePhone('4155552671', 'US')).toBe('14155552671');
    expect(normalizePhone('999999999999')).toBe('999999999999');
  });

  test('phoneVariants: a Brazilian mobile and its 12-digit WhatsApp id are one number (libphonenumber-js decides); nothing else is', () => {
    expect(phoneVariants('5511987654321')).toEqual(['5511987654321', '551187654321']);
    expect(phoneVariants('551187654321')).toEqual(['551187654321', '5511987654321']);
    expect(phoneVariants('5521987654321')).toEqual(['5521987654321', '552187654321']);
    expect(phoneKey('5511987654321')).toBe(phoneKey('551187654321'));
    // Landlines (2..5 after the area code) have no twin; nor do newer mobiles 9 1..5, other countries, or non-numbers.
    expect(phoneVariants('551133334444')).toEqual(['551133334444']);
    expect(phoneVariants('5511912345678')).toEqual(['5511912345678']);
    expect(phoneVariants('14155552671')).toEqual(['14155552671']);
    expect(phoneVariants('104857600000123')).toEqual(['104857600000123']);
    // A typed national number is looked up under all its spellings.
    expect(phoneCandidates('11987654321')).toEqual(expect.arrayContaining(['11987654321', '5511987654321', '551187654321']));
  });

  test('LIDs: the user part of a LID JID, and its stored form without the device', () => {
    expect(lidUser('104857600000123@lid')).toBe('104857600000123');
    expect(lidUser('104857600000123:7@lid')).toBe('104857600000123');
    expect(lidUser('5511987654321@s.whatsapp.net')).toBeUndefined();
    expect(canonicalLid('104857600000123:7@lid')).toBe('104857600000123@lid');
    expect(canonicalLid('5511987654321')).toBeNull();
  });
});

describe('contacts plugin', () => {
  let k: TestKernel;
  let A: { companyId: number; admin: TestUser; user: TestUser; supervisor: TestUser };
  let B: { companyId: number; admin: TestUser; user: TestUser };
  let svc: ContactsService;

  beforeAll(async () => {
    k = await createTestKernel({ plugins: [tagsPlugin, contactsPlugin] });
    const a = await k.createCompany();
    A = { ...a, user: await k.createUser(a.companyId, { profile: 'user' }), supervisor: await k.createUser(a.companyId, { profile: 'supervisor' }) };
    const b = await k.createCompany();
    B = { ...b, user: await k.createUser(b.companyId, { profile: 'user' }) };
    svc = k.services.get(contactsService);
  });
  afterAll(() => k.close());

  // A direct write: the kernel's settings cache is told, as the settings routes do.
  const setSetting = async (companyId: number, key: string, value: string) => {
    await k.db('companySettings').insert({ companyId, key, value }).onConflict(['companyId', 'key']).merge({ value });
    k.identity.invalidateSettings(companyId);
  };

  const create = async (who: TestUser, body: Record<string, unknown>) => {
    const res = await k.as(who, 'POST', '/contacts', body);
    expect({ status: res.statusCode, body: res.json() }).toMatchObject({ status: 200 });
    return res.json();
  };
  const tag = async (who: TestUser, name: string) => (await k.as(who, 'POST', '/tags', { name })).json();

  test('create normalises the number, saves extra info, takes acceptAudioMessage from the setting, emits create', async () => {
    const base = await k.listen();
    const socket = await k.socket(A.admin.token, base);
    try {
      const ev = nextEvent<{ action: string; contact: { id: number; number: string } }>(socket, `company-${A.companyId}-contact`);
      const c = await create(A.user, {
        name: '  Maria Souza ',
        number: '+55 (11) 98765-4321',
        email: 'maria@example.com',
        extraInfo: [{ name: 'CPF', value: '123', id: 77, contactId: 999 }, { name: 'Cidade', value: 'São Paulo' }],
        lgpdAcceptedAt: '',
        unknownField: 'dropped',
      });
      expect(c).toMatchObject({
        name: 'Maria Souza',
        number: '5511987654321',
        email: 'maria@example.com',
        companyId: A.companyId,
        isGroup: false,
        active: true,
        disableBot: false,
        acceptAudioMessage: true,
        channel: 'whatsapp',
        lgpdAcceptedAt: null,
        tags: [],
      });
      expect(c.extraInfo.map((e: { name: string; value: string; contactId: number }) => [e.name, e.value, e.contactId])).toEqual([
        ['CPF', '123', c.id],
        ['Cidade', 'São Paulo', c.id],
      ]);
      expect(c.unknownField).toBeUndefined();
      expect(await ev).toMatchObject({ action: 'create', contact: { id: c.id, number: '5511987654321' } });

      const national = await create(A.user, { name: 'Nacional', number: '11 91234-5678' });
      expect(national.number).toBe('5511912345678');

      await setSetting(A.companyId, 'acceptAudioMessageContact', 'disabled');
      const noAudio = await create(A.user, { name: 'Sem audio', number: '5511900000001' });
      expect(noAudio.acceptAudioMessage).toBe(false);
      const explicit = await create(A.user, { name: 'Com audio', number: '5511900000002', acceptAudioMessage: true });
      expect(explicit.acceptAudioMessage).toBe(true);
      await setSetting(A.companyId, 'acceptAudioMessageContact', 'enabled');

      const got = await k.as(A.user, 'GET', `/contacts/${c.id}`);
      expect(got.statusCode).toBe(200);
      expect(got.json()).toEqual(c);
    } finally {
      socket.close();
    }
  });

  test('validation: catalogue 4xx codes with clear messages, never 500', async () => {
    const cases: [Record<string, unknown>, number, string, RegExp?][] = [
      [{ name: 'Ok name', number: 'abc12345' }, 400, 'ERR_VALIDATION', /Only numbers/],
      [{ name: 'Ok name', number: '55 11 9876*4321' }, 400, 'ERR_VALIDATION', /Only numbers/],
      [{ name: 'Ok name', number: '1234567' }, 400, 'ERR_VALIDATION'],
      [{ name: 'Ok name', number: '(12) 3456' }, 400, 'ERR_VALIDATION', /8 to 50 digits/],
      [{ name: 'Ok name', number: '1'.repeat(51) }, 400, 'ERR_VALIDATION'],
      [{ name: 'A', number: '5511987650000' }, 400, 'ERR_VALIDATION'],
      [{ name: 'x'.repeat(51), number: '5511987650000' }, 400, 'ERR_VALIDATION'],
      [{ number: '5511987650000' }, 400, 'ERR_VALIDATION'],
      [{ name: 'Ok name' }, 400, 'ERR_VALIDATION'],
      [{ name: 'Ok name', number: '5511987650000', email: 'not-an-email' }, 400, 'ERR_VALIDATION'],
      [{ name: 'Ok name', number: '5511987650000', disableBot: 'maybe' }, 400, 'ERR_VALIDATION'],
      [{ name: 'Ok name', number: '5511987650000', channel: 'sms' }, 400, 'ERR_VALIDATION'],
      [{ name: 'Ok name', number: '5511987650000', lgpdAcceptedAt: 'yesterday-ish' }, 400, 'ERR_VALIDATION'],
      [{ name: 'Ok name', number: '5511987650000', extraInfo: Array.from({ length: 51 }, (_, i) => ({ name: `f${i}`, value: 'v' })) }, 400, 'ERR_VALIDATION'],
      [{ name: 'Ok name', number: '5511987650000', extraInfo: [{ name: '', value: 'v' }] }, 400, 'ERR_VALIDATION'],
      [{ name: 'Ok name', number: '5511987650000', extraInfo: [{ name: 'n', value: 'v'.repeat(1001) }] }, 400, 'ERR_VALIDATION'],
      [{ name: ['array'], number: '5511987650000' }, 400, 'ERR_VALIDATION'],
    ];
    for (const [body, status, code, msg] of cases) {
      const res = await k.as(A.user, 'POST', '/contacts', body);
      expect({ body, status: res.statusCode, code: res.json().error }).toEqual({ body, status, code });
      if (msg) expect(res.json().message).toMatch(msg);
    }
    expect(await k.db('contacts').where({ companyId: A.companyId, number: '5511987650000' }).first()).toBeUndefined();

    for (const url of ['/contacts/0', '/contacts/-1', '/contacts/abc', '/contacts/99999999999', '/contactTags/0', '/contacts/toggleDisableBot/abc', '/contacts/import/not-a-uuid']) {
      const res = await k.as(A.admin, 'GET', url);
      if (res.statusCode === 404 && res.json().error === 'ERR_NOT_FOUND') continue; // method not routed
      expect({ url, status: res.statusCode, code: res.json().error }).toEqual({ url, status: 400, code: 'ERR_VALIDATION' });
    }
    for (const q of ['pageNumber=0', 'pageNumber=x', 'contactTag=notjson', 'contactTag=[1,"x"]', 'contactTag=[-1]', 'isGroup=maybe', 'channel=sms', `searchParam=${'x'.repeat(201)}`]) {
      const res = await k.as(A.admin, 'GET', `/contacts?${q}`);
      expect({ q, status: res.statusCode, code: res.json().error }).toEqual({ q, status: 400, code: 'ERR_VALIDATION' });
    }
    const block = await k.as(A.admin, 'PUT', '/contacts/block/1', { active: 'sometimes' });
    expect(block.statusCode).toBe(400);
    const sync = await k.as(A.admin, 'POST', '/tags/sync', { contactId: 'x', tags: [] });
    expect(sync.statusCode).toBe(400);
    const sync2 = await k.as(A.admin, 'POST', '/tags/sync', { contactId: 1, tags: [{ id: -4 }] });
    expect(sync2.statusCode).toBe(400);
    const profile = await k.as(A.admin, 'GET', '/contacts/profile/abc');
    expect(profile.statusCode).toBe(400);
    expect(profile.json().error).toBe('ERR_VALIDATION');
    for (const [method, url] of [['PUT', '/contacts/2147483647'], ['DELETE', '/contacts/2147483647'], ['GET', '/contacts/2147483647'], ['PUT', '/contacts/toggleAcceptAudio/2147483647'], ['GET', '/contactTags/2147483647']] as const) {
      const res = await k.as(A.admin, method, url, method === 'PUT' ? {} : undefined);
      expect({ url, status: res.statusCode, code: res.json().error }).toEqual({ url, status: 404, code: 'ERR_NO_CONTACT_FOUND' });
    }
  });

  test('a number is unique in the company: 409 ERR_DUPLICATED_CONTACT on create and update, free in other companies', async () => {
    const first = await create(A.user, { name: 'Primeiro', number: '5521999990000' });
    const again = await k.as(A.user, 'POST', '/contacts', { name: 'Segundo', number: '+55 21 99999-0000' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toBe('ERR_DUPLICATED_CONTACT');
    const other = await create(A.user, { name: 'Outro', number: '5521999990001' });
    const clash = await k.as(A.user, 'PUT', `/contacts/${other.id}`, { number: '5521999990000' });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().error).toBe('ERR_DUPLICATED_CONTACT');
    const race = await Promise.all(Array.from({ length: 6 }, () => k.as(A.user, 'POST', '/contacts', { name: 'Corrida', number: '5521999990002' })));
    expect(race.map((r) => r.statusCode).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    await create(B.user, { name: 'Em B', number: '5521999990000' });
    expect(first.id).not.toBe(other.id);
  });

  test('update replaces extra info; toggles and block flip flags and emit updates; delete is admin only', async () => {
    const base = await k.listen();
    const socket = await k.socket(A.admin.token, base);
    try {
      const c = await create(A.user, { name: 'Editável', number: '5531988887777', extraInfo: [{ name: 'a', value: '1' }, { name: 'b', value: '2' }] });
      const put = await k.as(A.user, 'PUT', `/contacts/${c.id}`, { name: 'Editado', email: 'e@example.com', extraInfo: [{ name: 'c', value: '3' }], disableBot: true });
      expect(put.statusCode).toBe(200);
      expect(put.json()).toMatchObject({ id: c.id, name: 'Editado', email: 'e@example.com', number: '5531988887777', disableBot: true });
      expect(put.json().extraInfo.map((e: { name: string }) => e.name)).toEqual(['c']);
      expect(await k.db('contactExtraInfo').where({ contactId: c.id }).count({ n: '*' }).first()).toEqual({ n: 1 });
      const keep = await k.as(A.user, 'PUT', `/contacts/${c.id}`, { name: 'Editado 2' });
      expect(keep.json().extraInfo.map((e: { name: string }) => e.name)).toEqual(['c']);

      const events: { action: string; contact?: { id: number; disableBot: boolean }; contactId?: number }[] = [];
      socket.on(`company-${A.companyId}-contact`, (e) => events.push(e));
      const t1 = await k.as(A.user, 'PUT', `/contacts/toggleDisableBot/${c.id}`);
      expect(t1.statusCode).toBe(200);
      expect(t1.json().disableBot).toBe(false);
      await waitFor(() => events.some((e) => e.action === 'update' && e.contact?.id === c.id && e.contact?.disableBot === false));
      expect((await k.as(A.user, 'PUT', `/contacts/toggleDisableBot/${c.id}`)).json().disableBot).toBe(true);
      expect((await k.as(A.user, 'PUT', `/contacts/toggleAcceptAudio/${c.id}`)).json().acceptAudioMessage).toBe(false);
      expect((await k.as(A.user, 'PUT', `/contacts/toggleAcceptAudio/${c.id}`)).json().acceptAudioMessage).toBe(true);
      const blocked = await k.as(A.user, 'PUT', `/contacts/block/${c.id}`, { active: false });
      expect(blocked.json()).toMatchObject({ id: c.id, active: false });
      expect((await k.as(A.user, 'PUT', `/contacts/block/${c.id}`, { active: false })).json().active).toBe(false);
      expect((await k.as(A.user, 'PUT', `/contacts/block/${c.id}`, { active: true })).json().active).toBe(true);

      for (const who of [A.user, A.supervisor]) {
        const refused = await k.as(who, 'DELETE', `/contacts/${c.id}`);
        expect(refused.statusCode).toBe(403);
        expect(refused.json().error).toBe('ERR_NO_PERMISSION');
      }
      const ok = await k.as(A.admin, 'DELETE', `/contacts/${c.id}`);
      expect(ok.statusCode).toBe(200);
      expect(await waitFor(() => events.find((e) => e.action === 'delete'))).toEqual({ action: 'delete', contactId: c.id });
      expect((await k.as(A.admin, 'GET', `/contacts/${c.id}`)).json().error).toBe('ERR_NO_CONTACT_FOUND');
      expect(await k.db('contactExtraInfo').where({ contactId: c.id }).first()).toBeUndefined();
    } finally {
      socket.close();
    }
  });

  test('GET /contacts: 100 a page by name, search over name and number, tag, group and channel filters', async () => {
    const c = await k.createCompany();
    const admin = c.admin;
    const rows = Array.from({ length: 105 }, (_, i) => ({ companyId: c.companyId, name: `Pessoa ${String(i).padStart(3, '0')}`, number: `55119000${String(i).padStart(5, '0')}` }));
    await k.db('contacts').insert(rows);
    await k.db('contacts').insert([
      { companyId: c.companyId, name: 'grupo da família', number: '120363000000000001', isGroup: true },
      { companyId: c.companyId, name: 'Zeca Facebook', number: '7012345678901234', channel: 'facebook' },
      { companyId: c.companyId, name: 'ana_100%', number: '5511977776666' },
    ]);
    const p1 = (await k.as(admin, 'GET', '/contacts/?pageNumber=1')).json();
    expect(p1.contacts).toHaveLength(100);
    expect(p1.count).toBe(108);
    expect(p1.hasMore).toBe(true);
    expect(p1.contacts[0]).toMatchObject({ name: 'ana_100%', tags: [], tickets: [] });
    const p2 = (await k.as(admin, 'GET', '/contacts?pageNumber=2')).json();
    expect(p2.contacts).toHaveLength(8);
    expect(p2.hasMore).toBe(false);
    expect(p2.contacts.map((x: { name: string }) => x.name).slice(-2)).toEqual(['Pessoa 104', 'Zeca Facebook']);

    expect((await k.as(admin, 'GET', '/contacts?searchParam=PESSOA%2010')).json().count).toBe(6);
    expect((await k.as(admin, 'GET', '/contacts?searchParam=00104')).json().contacts.map((x: { name: string }) => x.name)).toEqual(['Pessoa 104']);
    expect((await k.as(admin, 'GET', '/contacts?searchParam=(11)%209777')).json().contacts.map((x: { name: string }) => x.name)).toEqual(['ana_100%']);
    expect((await k.as(admin, 'GET', '/contacts?searchParam=ana_')).json().count).toBe(1);
    expect((await k.as(admin, 'GET', '/contacts?searchParam=n_')).json().count).toBe(0);
    expect((await k.as(admin, 'GET', '/contacts?searchParam=_100%25')).json().count).toBe(2);
    expect((await k.as(admin, 'GET', '/contacts?searchParam=%25')).json().count).toBe(1);
    expect((await k.as(admin, 'GET', '/contacts?isGroup=true')).json().contacts.map((x: { name: string }) => x.name)).toEqual(['grupo da família']);
    expect((await k.as(admin, 'GET', '/contacts?isGroup=false')).json().count).toBe(107);
    expect((await k.as(admin, 'GET', '/contacts?channel=facebook')).json().contacts.map((x: { name: string }) => x.name)).toEqual(['Zeca Facebook']);

    const t1 = await tag(admin, 'Tag um');
    const t2 = await tag(admin, 'Tag dois');
    const [x, y] = p1.contacts;
    expect((await k.as(admin, 'POST', '/tags/sync', { contactId: x.id, tags: [{ id: t1.id }, { id: t2.id }] })).statusCode).toBe(200);
    expect((await k.as(admin, 'POST', '/tags/sync', { contactId: y.id, tags: [t2.id] })).statusCode).toBe(200);
    const byT1 = (await k.as(admin, 'GET', `/contacts?contactTag=${encodeURIComponent(JSON.stringify([t1.id]))}`)).json();
    expect(byT1.contacts.map((r: { id: number }) => r.id)).toEqual([x.id]);
    expect(byT1.contacts[0].tags.map((t: { name: string }) => t.name)).toEqual(['Tag dois', 'Tag um']);
    expect(byT1.contacts[0].tags[0].ContactTag).toMatchObject({ contactId: x.id, tagId: t2.id });
    const byAny = (await k.as(admin, 'GET', `/contacts?contactTag=${encodeURIComponent(JSON.stringify([t1.id, t2.id]))}`)).json();
    expect(byAny.count).toBe(2);
    expect((await k.as(admin, 'GET', '/contacts?contactTag=[]')).json().count).toBe(108);

    const list = (await k.as(admin, 'GET', '/contacts/list?companyId=1')).json();
    expect(list).toHaveLength(108);
    expect(list[0]).toEqual({ id: expect.any(Number), name: 'ana_100%', number: '5511977776666', channel: 'whatsapp', isGroup: false });
    expect((await k.as(admin, 'GET', '/contacts/list?searchParam=zeca')).json()).toHaveLength(1);
  });

  test('tags: sync replaces a contact\'s tags, /contactTags reads them, counts show on GET /tags', async () => {
    const c = await create(A.user, { name: 'Com tags', number: '5541988880000' });
    const t1 = await tag(A.admin, 'Sync um');
    const t2 = await tag(A.admin, 'Sync dois');
    const t3 = await tag(A.admin, 'Sync três');
    const s1 = await k.as(A.user, 'POST', '/tags/sync', { contactId: c.id, tags: [{ id: t1.id }, { id: t2.id }, { id: t1.id }] });
    expect(s1.statusCode).toBe(200);
    expect(s1.json().tags.map((t: { id: number }) => t.id).sort()).toEqual([t1.id, t2.id].sort());
    const s2 = await k.as(A.user, 'POST', '/tags/sync', { contactId: c.id, tags: [t2.id, t3.id] });
    expect(s2.json().tags.map((t: { name: string }) => t.name)).toEqual(['Sync dois', 'Sync três']);
    const ct = await k.as(A.user, 'GET', `/contactTags/${c.id}`);
    expect(ct.statusCode).toBe(200);
    expect(ct.json().tags.map((t: { id: number }) => t.id)).toEqual([t2.id, t3.id]);
    expect(await svc.hasTags(A.companyId, c.id)).toBe(true);

    const counts = (await k.as(A.admin, 'GET', '/tags?searchParam=sync')).json().tags;
    expect(counts.map((t: { name: string; contactsCount: number }) => [t.name, t.contactsCount])).toEqual([
      ['Sync dois', 1],
      ['Sync três', 1],
      ['Sync um', 0],
    ]);

    // Another company's tag: 404 and nothing changes.
    const foreign = await tag(B.admin, 'Tag de B');
    const bad = await k.as(A.user, 'POST', '/tags/sync', { contactId: c.id, tags: [t1.id, foreign.id] });
    expect(bad.statusCode).toBe(404);
    expect(bad.json().error).toBe('ERR_NO_TAG_FOUND');
    const missing = await k.as(A.user, 'POST', '/tags/sync', { contactId: c.id, tags: [2147483647] });
    expect(missing.json().error).toBe('ERR_NO_TAG_FOUND');
    expect((await k.as(A.user, 'GET', `/contactTags/${c.id}`)).json().tags.map((t: { id: number }) => t.id)).toEqual([t2.id, t3.id]);

    const cleared = await k.as(A.user, 'POST', '/tags/sync', { contactId: c.id, tags: [] });
    expect(cleared.json().tags).toEqual([]);
    expect(await svc.hasTags(A.companyId, c.id)).toBe(false);

    // Deleting a tag removes its links.
    await k.as(A.user, 'POST', '/tags/sync', { contactId: c.id, tags: [t1.id] });
    expect((await k.as(A.admin, 'DELETE', `/tags/${t1.id}`)).statusCode).toBe(200);
    expect((await k.as(A.user, 'GET', `/contactTags/${c.id}`)).json().tags).toEqual([]);
  });

  test('GET /contacts/profile/:number answers the contact id and picture', async () => {
    const c = await create(A.user, { name: 'Com foto', number: '5551988881111' });
    await k.db('contacts').where({ id: c.id }).update({ profilePicUrl: 'https://pps.whatsapp.net/v/photo.jpg' });
    const res = await k.as(A.user, 'GET', '/contacts/profile/5551988881111');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ contactId: c.id, urlPicture: 'https://pps.whatsapp.net/v/photo.jpg' });
    expect((await k.as(A.user, 'GET', '/contacts/profile/51988881111')).json().contactId).toBe(c.id);
    await k.db('contacts').where({ id: c.id }).update({ urlPicture: 'pic 1.jpg' });
    const stored = (await k.as(A.user, 'GET', '/contacts/profile/5551988881111')).json().urlPicture as string;
    expect(stored).toMatch(new RegExp(`/public/company${A.companyId}/contacts/pic%201\\.jpg\\?e=\\d+&t=[\\w-]{43}$`));
    // Signed: an <img> (no bearer header) loads it.
    const dir = join(k.config.uploadsDir, `company${A.companyId}`, 'contacts');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'pic 1.jpg'), Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]));
    const u = new URL(stored, 'http://x');
    const img = await k.app.inject({ method: 'GET', url: `${u.pathname}${u.search}` });
    expect(img.statusCode).toBe(200);
    expect(img.headers['content-type']).toBe('image/jpeg');
    // An unknown number: 200 with contactId 0 (the product family's client then creates the contact).
    const none = await k.as(A.user, 'GET', '/contacts/profile/5551900000000');
    expect(none.statusCode).toBe(200);
    expect(none.json()).toEqual({ contactId: 0, urlPicture: null });
  });

  test('GET /contacts/profile/:number does not reveal what masking hides: a masked viewer gets the same answer for an existing number as for an unknown one', async () => {
    const m = await k.createCompany();
    const user = await k.createUser(m.companyId, { profile: 'user' });
    const sup = await k.createUser(m.companyId, { profile: 'supervisor' });
    const person = await create(m.admin, { name: 'Escondida', number: '5511976543210' });
    await k.db('contacts').where({ id: person.id }).update({ profilePicUrl: 'https://pps.whatsapp.net/v/escondida.jpg' });
    const [grp] = await k.db('contacts').insert({ companyId: m.companyId, name: 'Grupo M', number: '120363000000000077', isGroup: true }).returning('*');
    const answer = async (who: TestUser, number: string) => {
      const res = await k.as(who, 'GET', `/contacts/profile/${number}`);
      return { status: res.statusCode, body: res.json() };
    };
    const unknown = { status: 200, body: { contactId: 0, urlPicture: null } };
    const found = { status: 200, body: { contactId: person.id, urlPicture: 'https://pps.whatsapp.net/v/escondida.jpg' } };
    // Setting off: the user sees numbers, and the lookup answers the contact.
    expect(await answer(user, '5511976543210')).toEqual(found);

    await setSetting(m.companyId, 'lgpdHideNumber', 'enabled');
    // The masked viewer: the contact's number (any spelling), a group's id and an unknown number all answer alike.
    for (const n of ['5511976543210', '11976543210', '+55 (11) 97654-3210', grp.number, '5511976543299']) expect(await answer(user, n)).toEqual(unknown);
    // Bad input is refused alike, whether or not numbers are masked.
    expect(await answer(user, 'abc')).toEqual(await answer(m.admin, 'abc'));
    expect((await answer(user, 'abc')).status).toBe(400);
    // Viewers who see numbers still get the contact.
    expect(await answer(m.admin, '5511976543210')).toEqual(found);
    expect(await answer(sup, '11976543210')).toEqual(found);
    expect(await answer(m.admin, '5511976543299')).toEqual(unknown);

    await setSetting(m.companyId, 'lgpdHideNumber', 'disabled');
    expect(await answer(user, '5511976543210')).toEqual(found);
  });

  test('setLgpdAcceptedAt records and clears the consent, in the own company only', async () => {
    const c = await svc.findOrCreate(A.companyId, { number: '5561977771111', name: 'Consent', channel: 'whatsapp' });
    const at = new Date('2026-11-23T12:00:00Z');
    await svc.setLgpdAcceptedAt(A.companyId, c.id, at);
    expect((await svc.get(A.companyId, c.id))?.lgpdAcceptedAt).toBe(at.toISOString());
    await expect(svc.setLgpdAcceptedAt(B.companyId, c.id, null)).rejects.toMatchObject({ code: 'ERR_NO_CONTACT_FOUND' });
    expect((await svc.get(A.companyId, c.id))?.lgpdAcceptedAt).toBe(at.toISOString());
    await svc.setLgpdAcceptedAt(A.companyId, c.id, null);
    expect((await svc.get(A.companyId, c.id))?.lgpdAcceptedAt).toBeNull();
  });

  test("the naming rule: a caller's name (a campaign list, the messages API) names only the contact it creates; a profile name renames", async () => {
    // The tenant saved this contact with its own name.
    const saved = await k.as(A.admin, 'POST', '/contacts', { name: 'Helena Manual', number: '5561966660001' });
    expect(saved.statusCode).toBe(200);
    const id = saved.json().id;
    const one = await svc.findOrCreate(A.companyId, { number: '5561966660001', name: 'Camp Cliente 1', channel: 'whatsapp' });
    expect(one).toMatchObject({ id, name: 'Helena Manual' });
    const asNumber = await svc.findOrCreate(A.companyId, { number: '5561966660001', name: '5561966660001', nameFrom: 'caller', channel: 'whatsapp', profilePicUrl: 'https://x/h.jpg' });
    expect(asNumber).toMatchObject({ id, name: 'Helena Manual', profilePicUrl: 'https://x/h.jpg' });
    const [many, fresh] = await svc.findOrCreateMany!(A.companyId, [
      { number: '5561966660001', name: 'Camp Cliente 1', channel: 'whatsapp' },
      { number: '5561966660002', name: 'Camp Cliente 2', channel: 'whatsapp' },
    ]);
    expect(many).toMatchObject({ id, name: 'Helena Manual' });
    expect(fresh).toMatchObject({ name: 'Camp Cliente 2' });
    expect((await k.db('contacts').where({ id }).first()).name).toBe('Helena Manual');
    // The sender's own profile name (inbound) still refreshes it, in both paths.
    expect(await svc.findOrCreate(A.companyId, { number: '5561966660001', name: 'Helena Perfil', nameFrom: 'profile', channel: 'whatsapp' })).toMatchObject({ id, name: 'Helena Perfil' });
    const [viaMany] = await svc.findOrCreateMany!(A.companyId, [{ number: '5561966660002', name: 'Perfil 2', nameFrom: 'profile', channel: 'whatsapp' }]);
    expect(viaMany).toMatchObject({ id: fresh.id, name: 'Perfil 2' });
  });

  test('findOrCreate: 20 parallel calls for one number make one row; updates only given, different fields', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => svc.findOrCreate(A.companyId, { number: '5561977770000', name: i % 2 ? 'Corredor' : undefined, nameFrom: 'profile', channel: 'whatsapp' })),
    );
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect(await k.db('contacts').where({ companyId: A.companyId, number: '5561977770000' }).count({ n: '*' }).first()).toEqual({ n: 1 });
    const id = results[0].id;

    const same = await svc.findOrCreate(A.companyId, { number: '5561977770000', name: 'Corredor', nameFrom: 'profile', channel: 'whatsapp' });
    const again = await svc.findOrCreate(A.companyId, { number: '5561977770000', channel: 'whatsapp' });
    expect(again.updatedAt).toBe(same.updatedAt);
    expect(again.name).toBe('Corredor');
    const renamed = await svc.findOrCreate(A.companyId, { number: '5561977770000', name: 'Novo nome', nameFrom: 'profile', channel: 'whatsapp', profilePicUrl: 'https://x/p.jpg', lid: '12345@lid' });
    expect(renamed).toMatchObject({ id, name: 'Novo nome', profilePicUrl: 'https://x/p.jpg', lid: '12345@lid' });
    const kept = await svc.findOrCreate(A.companyId, { number: '5561977770000', name: null, channel: 'whatsapp', profilePicUrl: null });
    expect(kept).toMatchObject({ id, name: 'Novo nome', profilePicUrl: 'https://x/p.jpg' });
    const group = await svc.findOrCreate(A.companyId, { number: '120363111111111111', name: 'Grupo', channel: 'whatsapp', isGroup: true, remoteJid: '120363111111111111@g.us' });
    expect(group).toMatchObject({ isGroup: true, remoteJid: '120363111111111111@g.us', name: 'Grupo' });
    const nameless = await svc.findOrCreate(B.companyId, { number: '5561977770000', channel: 'whatsapp' });
    expect(nameless.id).not.toBe(id);
    expect(nameless).toMatchObject({ name: '5561977770000', companyId: B.companyId });
    await expect(svc.findOrCreate(A.companyId, { number: '  ', channel: 'whatsapp' })).rejects.toMatchObject({ code: 'ERR_VALIDATION' });
    expect((await svc.getMany(A.companyId, [id, nameless.id])).map((c) => c.id)).toEqual([id]);
    expect(await svc.get(B.companyId, id)).toBeUndefined();
  });

  test('findOrCreate inside a transaction: the event goes out after commit, nothing on rollback', async () => {
    const base = await k.listen();
    const socket = await k.socket(A.admin.token, base);
    try {
      const event = `company-${A.companyId}-contact`;
      const early = collectEvents<{ contact: { number: string } }>(socket, event, 300);
      let created = 0;
      await k.db.transaction(async (trx) => {
        const c = await svc.findOrCreate(A.companyId, { number: '5561955550000', name: 'Transacional', channel: 'whatsapp' }, trx);
        created = c.id;
        expect((await early).filter((e) => e.contact?.number === '5561955550000')).toEqual([]);
      });
      const after = await nextEvent<{ action: string; contact: { id: number } }>(socket, event);
      expect(after).toMatchObject({ action: 'create', contact: { id: created } });

      const rolled = collectEvents<{ contact: { number: string } }>(socket, event, 300);
      await expect(
        k.db.transaction(async (trx) => {
          await svc.findOrCreate(A.companyId, { number: '5561955550001', name: 'Desfeito', channel: 'whatsapp' }, trx);
          throw new Error('rollback');
        }),
      ).rejects.toThrow('rollback');
      expect((await rolled).filter((e) => e.contact?.number === '5561955550001')).toEqual([]);
      expect(await k.db('contacts').where({ number: '5561955550001' }).first()).toBeUndefined();
    } finally {
      socket.close();
    }
  });

  test('masking matrix: profile user sees masked numbers when lgpdHideNumber is enabled; admins, supervisors and groups never', async () => {
    const m = await k.createCompany();
    const user = await k.createUser(m.companyId, { profile: 'user' });
    const sup = await k.createUser(m.companyId, { profile: 'supervisor' });
    const person = await create(m.admin, { name: 'Pessoa', number: '5511987654321' });
    const [grp] = await k.db('contacts').insert({ companyId: m.companyId, name: 'Grupo', number: '120363000000000009', isGroup: true }).returning('*');

    const seen = async (who: TestUser) => {
      const list = (await k.as(who, 'GET', '/contacts')).json().contacts;
      const one = (await k.as(who, 'GET', `/contacts/${person.id}`)).json();
      const light = (await k.as(who, 'GET', '/contacts/list')).json();
      const exp = await readXlsx((await k.as(who, 'GET', '/contacts/export')).rawPayload);
      const byName = (rows: { name: string; number: string }[]) => Object.fromEntries(rows.map((r) => [r.name, r.number]));
      return {
        list: byName(list),
        one: one.number,
        light: byName(light),
        export: Object.fromEntries(exp.slice(1).map((r) => [r[0], r[1]])),
      };
    };
    const clear = { list: { Grupo: grp.number, Pessoa: '5511987654321' }, one: '5511987654321', light: { Grupo: grp.number, Pessoa: '5511987654321' }, export: { Grupo: grp.number, Pessoa: '5511987654321' } };
    const masked = { list: { Grupo: grp.number, Pessoa: '55119******21' }, one: '55119******21', light: { Grupo: grp.number, Pessoa: '55119******21' }, export: { Grupo: grp.number, Pessoa: '55119******21' } };

    // Setting off (default): nobody is masked.
    expect(await seen(user)).toEqual(clear);
    await setSetting(m.companyId, 'lgpdHideNumber', 'enabled');
    expect(await seen(user)).toEqual(masked);
    expect(await seen(m.admin)).toEqual(clear);
    expect(await seen(sup)).toEqual(clear);
    expect(await svc.shouldMask(m.companyId, { id: user.id, companyId: m.companyId, profile: 'user', super: true })).toBe(false);

    // Write answers are masked too; saving the masked number back keeps the stored number.
    const put = await k.as(user, 'PUT', `/contacts/${person.id}`, { name: 'Pessoa', number: '55119******21', email: 'p@example.com' });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ number: '55119******21', email: 'p@example.com' });
    expect((await k.db('contacts').where({ id: person.id }).first()).number).toBe('5511987654321');
    const wrongMask = await k.as(user, 'PUT', `/contacts/${person.id}`, { number: '55119******99' });
    expect(wrongMask.statusCode).toBe(400);
    expect(wrongMask.json().error).toBe('ERR_VALIDATION');
    expect((await k.as(user, 'PUT', `/contacts/toggleDisableBot/${person.id}`)).json().number).toBe('55119******21');
    const created = await k.as(user, 'POST', '/contacts', { name: 'Nova', number: '5511912345678' });
    expect(created.json().number).toBe('55119******78');
    expect((await k.as(user, 'POST', '/contactsImport', { name: 'Importada', number: '5511912340000' })).json().number).toBe('55119******00');

    // A Facebook/Instagram contact named by its id (no profile name) has its name masked like its number.
    const [psid] = await k.db('contacts').insert({ companyId: m.companyId, name: '7700123456789012', number: '7700123456789012', channel: 'facebook' }).returning('*');
    const fb = (await k.as(user, 'GET', `/contacts/${psid.id}`)).json();
    expect(fb).toMatchObject({ number: '77001234******12', name: '77001234******12' });
    expect((await k.as(m.admin, 'GET', `/contacts/${psid.id}`)).json()).toMatchObject({ number: '7700123456789012', name: '7700123456789012' });

    await setSetting(m.companyId, 'lgpdHideNumber', 'disabled');
    expect((await seen(user)).one).toBe('5511987654321');
  });

  test('sheet import: 202 at once, progress and final counts on the socket, bad rows reported by row number', async () => {
    const c = await k.createCompany();
    const existing = await create(c.admin, { name: 'Existente', number: '5511911110009' });
    const xlsx = await sheet([
      ['Nome', 'Número', 'E-mail'],
      ['Ana Import', '5511911110001', 'ana@example.com'],
      ['Bruno Import', 5511911110002, ''],
      ['Existente Renomeado', '5511911110009', ''],
      ['Número ruim', 'abc', ''],
      ['Sem número', '', ''],
      ['Email ruim', '5511911110003', 'not-an-email'],
      [],
      ['Carla Import', '(11) 91111-0004', null],
    ]);
    const base = await k.listen();
    const socket = await k.socket(c.admin.token, base);
    const events: { action: string; jobId?: string; processed?: number }[] = [];
    socket.on(`company-${c.companyId}-contact`, (e) => events.push(e));
    try {
      const { payload, headers } = multipart('file', 'contatos.xlsx', xlsx);
      const res = await k.as(c.admin, 'POST', '/contacts/upload', payload, headers);
      expect(res.statusCode).toBe(202);
      const { jobId, total } = res.json();
      expect(total).toBe(7);
      expect(jobId).toMatch(/^[0-9a-f-]{36}$/);
      const done = await waitFor(() => events.find((e) => e.action === 'import-done'), 10000);
      const expected = {
        action: 'import-done',
        jobId,
        status: 'done',
        processed: 7,
        total: 7,
        created: 3,
        updated: 1,
        errors: [
          { row: 5, error: expect.stringMatching(/Only numbers/) },
          { row: 6, error: 'number is required' },
          { row: 7, error: 'Invalid email' },
        ],
      };
      expect(done).toEqual(expected);
      const progress = events.filter((e) => e.action === 'import-progress');
      expect(progress).toEqual([expect.objectContaining({ jobId, processed: 5, total: 7 })]);

      const poll = await k.as(c.admin, 'GET', `/contacts/import/${jobId}`);
      expect(poll.statusCode).toBe(200);
      const { action: _a, ...rest } = expected;
      expect(poll.json()).toEqual(rest);
      const foreign = await k.as(B.admin, 'GET', `/contacts/import/${jobId}`);
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json().error).toBe('ERR_NO_IMPORT_FOUND');

      const numbers = (await k.db('contacts').where({ companyId: c.companyId }).orderBy('number')).map((r: { name: string; number: string; email: string }) => [r.name, r.number, r.email]);
      expect(numbers).toEqual([
        ['Ana Import', '5511911110001', 'ana@example.com'],
        ['Bruno Import', '5511911110002', ''],
        ['Carla Import', '5511911110004', ''],
        ['Existente Renomeado', '5511911110009', ''],
      ]);
      expect(existing.id).toBe((await k.db('contacts').where({ companyId: c.companyId, number: '5511911110009' }).first()).id);
    } finally {
      socket.close();
    }
  });

  test('sheet import refuses what is not a readable .xlsx, .xls or .csv: 415, 413, 400; never 500', async () => {
    const up = (field: string, name: string, content: Buffer, type?: string) => {
      const { payload, headers } = multipart(field, name, content, type);
      return k.as(A.admin, 'POST', '/contacts/upload', payload, headers);
    };
    const text = await up('file', 'contatos.xlsx', Buffer.from('name,number\nAna,5511999999999\n'), 'text/csv');
    expect(text.statusCode).toBe(415);
    expect(text.json()).toMatchObject({ error: 'ERR_UPLOAD_TYPE', message: expect.stringMatching(/\.xlsx.*\.xls.*\.csv/) });
    const binary = await up('file', 'contatos.csv', Buffer.from([0x00, 0x01, 0x02, 0x03, 0x89, 0x50, 0x4e, 0x47]));
    expect(binary.statusCode).toBe(415);
    const xls = await up('file', 'contatos.xls', Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(512)]), 'application/vnd.ms-excel');
    expect(xls.statusCode).toBe(400);
    expect(xls.json()).toMatchObject({ error: 'ERR_SHEET_INVALID', message: expect.stringMatching(/\.xls/) });
    const fakeZip = await up('file', 'contatos.xlsx', Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(100, 7)]));
    expect(fakeZip.statusCode).toBe(400);
    expect(fakeZip.json().error).toBe('ERR_SHEET_INVALID');
    const malformed = await k.as(A.admin, 'POST', '/contacts/upload', Buffer.from('--x\r\nContent-Disposition: form-da'), { 'content-type': 'multipart/form-data; boundary=x' });
    expect(malformed.statusCode).toBe(400);
    const big = await up('file', 'grande.xlsx', Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(5 * 1024 * 1024 + 10)]));
    expect(big.statusCode).toBe(413);
    expect(big.json().error).toBe('ERR_PAYLOAD_TOO_LARGE');
    const noNumber = await up('file', 'c.xlsx', await sheet([['Nome', 'Email'], ['Ana', 'a@example.com']]));
    expect(noNumber.statusCode).toBe(400);
    expect(noNumber.json().error).toBe('ERR_VALIDATION');
    const empty = await up('file', 'c.xlsx', await sheet([['Nome', 'Numero']]));
    expect(empty.statusCode).toBe(400);
    const wrongField = await up('planilha', 'c.xlsx', await sheet([['Nome', 'Numero'], ['Ana', '5511999999999']]));
    expect(wrongField.statusCode).toBe(400);
    const json = await k.as(A.admin, 'POST', '/contacts/upload', { file: 'x' });
    expect(json.statusCode).toBe(415);
    expect(json.json().error).toBe('ERR_UNSUPPORTED_MEDIA_TYPE');
  });

  test('POST /contactsImport creates, then updates name and email of the same number', async () => {
    const c = await k.createCompany();
    const first = await k.as(c.admin, 'POST', '/contactsImport', { name: 'Linha', number: '55 11 92222-0000', email: '' });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ name: 'Linha', number: '5511922220000', email: '' });
    const second = await k.as(c.admin, 'POST', '/contactsImport', { name: 'Linha 2', number: '5511922220000', email: 'l@example.com' });
    expect(second.json()).toMatchObject({ id: first.json().id, name: 'Linha 2', email: 'l@example.com' });
    const nameless = await k.as(c.admin, 'POST', '/contactsImport', { number: '5511922220001' });
    expect(nameless.json().name).toBe('5511922220001');
    const bad = await k.as(c.admin, 'POST', '/contactsImport', { name: 'X', number: 'abc' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('ERR_VALIDATION');
    const badEmail = await k.as(c.admin, 'POST', '/contactsImport', { name: 'X', number: '5511922220002', email: 'nope' });
    expect(badEmail.statusCode).toBe(400);
  });

  test('export downloads a valid .xlsx with name, number, email and tags', async () => {
    const c = await k.createCompany();
    const t = await tag(c.admin, 'Exportada');
    const x = await create(c.admin, { name: 'Exporta Um', number: '5511933330001', email: 'um@example.com' });
    await create(c.admin, { name: 'Exporta Dois', number: '5511933330002' });
    await k.as(c.admin, 'POST', '/tags/sync', { contactId: x.id, tags: [t.id] });
    const res = await k.as(c.admin, 'GET', '/contacts/export');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(XLSX);
    expect(res.headers['content-disposition']).toMatch(/attachment; filename="contacts\.xlsx"/);
    expect(res.rawPayload.subarray(0, 4)).toEqual(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
    expect(await readXlsx(res.rawPayload)).toEqual([
      ['name', 'number', 'email', 'tags'],
      ['Exporta Um', '5511933330001', 'um@example.com', 'Exportada'],
      ['Exporta Dois', '5511933330002', '', ''],
    ]);
  });

  test("cross-tenant: company B gets 404 on every route of A's contacts and never sees them in lists", async () => {
    const c = await create(A.user, { name: 'Segredo de A', number: '5511944440000' });
    const bTag = await tag(B.admin, 'Tag de B para A');
    const aTag = await tag(A.admin, 'Tag de A');
    const routes: [string, string, unknown][] = [
      ['GET', `/contacts/${c.id}`, undefined],
      ['PUT', `/contacts/${c.id}`, { name: 'Roubado' }],
      ['DELETE', `/contacts/${c.id}`, undefined],
      ['PUT', `/contacts/toggleDisableBot/${c.id}`, undefined],
      ['PUT', `/contacts/toggleAcceptAudio/${c.id}`, undefined],
      ['PUT', `/contacts/block/${c.id}`, { active: false }],
      ['GET', `/contactTags/${c.id}`, undefined],
      ['POST', '/tags/sync', { contactId: c.id, tags: [bTag.id] }],
    ];
    for (const [method, url, body] of routes) {
      const res = await k.as(B.admin, method, url, body);
      expect({ method, url, status: res.statusCode, code: res.json().error }).toEqual({ method, url, status: 404, code: 'ERR_NO_CONTACT_FOUND' });
    }
    // A's number looked up by B is unknown to B: contactId 0, never A's contact.
    expect((await k.as(B.admin, 'GET', '/contacts/profile/5511944440000')).json()).toEqual({ contactId: 0, urlPicture: null });
    // B syncing its own contact with A's tag: 404 ERR_NO_TAG_FOUND.
    const own = await create(B.user, { name: 'Contato de B', number: '5511944440001' });
    const cross = await k.as(B.admin, 'POST', '/tags/sync', { contactId: own.id, tags: [aTag.id] });
    expect(cross.statusCode).toBe(404);
    expect(cross.json().error).toBe('ERR_NO_TAG_FOUND');

    const list = (await k.as(B.admin, 'GET', '/contacts?searchParam=segredo')).json();
    expect(list.count).toBe(0);
    const all = (await k.as(B.admin, 'GET', '/contacts')).json().contacts;
    expect(all.every((x: { companyId: number }) => x.companyId === B.companyId)).toBe(true);
    expect((await k.as(B.admin, 'GET', '/contacts/list')).json().some((x: { id: number }) => x.id === c.id)).toBe(false);
    const exp = await readXlsx((await k.as(B.admin, 'GET', '/contacts/export')).rawPayload);
    expect(exp.some((r) => r[0] === 'Segredo de A')).toBe(false);

    const after = (await k.as(A.admin, 'GET', `/contacts/${c.id}`)).json();
    expect(after).toMatchObject({ name: 'Segredo de A', active: true, disableBot: false, acceptAudioMessage: true, tags: [] });

    // Sockets of B never receive A's contact events.
    const base = await k.listen();
    const sb = await k.socket(B.admin.token, base);
    try {
      const got = collectEvents(sb, `company-${A.companyId}-contact`, 400);
      await create(A.user, { name: 'Evento de A', number: '5511944440002' });
      expect(await got).toEqual([]);
    } finally {
      sb.close();
    }
  });

  test('no token: 401; the service is provided with its interface', async () => {
    expect((await k.as(null, 'GET', '/contacts')).statusCode).toBe(401);
    expect((await k.as(null, 'POST', '/contacts/upload')).statusCode).toBe(401);
    expect(svc.maskNumber('5511987654321', false)).toBe('55119******21');
    const m = await svc.tagsOf(A.companyId, [2147483647]);
    expect(m.get(2147483647)).toEqual([]);
  });
});

describe('contacts.decorators extension point', () => {
  let k: TestKernel;
  const calls: [number, number[]][] = [];
  /** Fills `tickets` of the contacts named "Decorada …" the way a plugin owning tickets would. */
  const decoratorPlugin = definePlugin({
    id: 'contact-decorator-test',
    dependsOn: ['contacts'],
    register(ctx) {
      ctx.extensions.contribute(contactDecorators, async (companyId, contacts) => {
        calls.push([companyId, contacts.map((c) => c.id)]);
        for (const c of contacts) if (c.name.startsWith('Decorada')) c.tickets = [{ id: 1000 + c.id, status: 'open' }];
      });
    },
  });

  beforeAll(async () => {
    k = await createTestKernel({ plugins: [tagsPlugin, contactsPlugin, decoratorPlugin] });
  });
  afterAll(() => k.close());

  test('GET /contacts rows carry what the contributed decorators add, for the caller company only', async () => {
    const a = await k.createCompany();
    const b = await k.createCompany();
    const [d] = await k.db('contacts').insert({ companyId: a.companyId, name: 'Decorada', number: '5511966660001' }).returning('id');
    const [p] = await k.db('contacts').insert({ companyId: a.companyId, name: 'Plana', number: '5511966660002' }).returning('id');
    await k.db('contacts').insert({ companyId: b.companyId, name: 'Decorada de B', number: '5511966660003' });
    const body = (await k.as(a.admin, 'GET', '/contacts')).json();
    expect(body.contacts.map((c: { id: number; tickets: unknown[] }) => [c.id, c.tickets])).toEqual([
      [d.id, [{ id: 1000 + d.id, status: 'open' }]],
      [p.id, []],
    ]);
    expect(calls).toEqual([[a.companyId, [d.id, p.id]]]);
  });
});
