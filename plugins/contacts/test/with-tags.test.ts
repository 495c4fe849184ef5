/**
 * ContactsService.getManyWithTags and findOrCreateMany's `tagsOut` (added so ticket payloads need no separate
 * `tagsOf` read): the same tags as `tagsOf` (join rows, timestamps, order by name), read with the contacts'
 * own rows in one statement; scoped to the company.
 */
import { createTestKernel, type TestKernel } from '@atendo/testing';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';
import { contactsService, type ContactTagRef, type ContactsService } from '@atendo/plugin-contacts/contract';

let k: TestKernel;
let svc: ContactsService;
let companyA: number;
let companyB: number;
const id: Record<string, number> = {};

/** Statements sent to PostgreSQL while `fn` runs. */
async function statements<T>(fn: () => Promise<T>): Promise<{ value: T; sqls: string[] }> {
  const sqls: string[] = [];
  // The transaction's own BEGIN/COMMIT (findOrCreateMany opens one when given none) are not statements of work.
  const count = (q: { sql: string }) => {
    if (!/^(BEGIN|COMMIT|ROLLBACK);?$/.test(q.sql.trim())) sqls.push(q.sql);
  };
  k.db.on('query', count);
  try {
    return { value: await fn(), sqls };
  } finally {
    k.db.off('query', count);
  }
}

beforeAll(async () => {
  k = await createTestKernel({ plugins: [tagsPlugin, contactsPlugin] });
  svc = k.services.get(contactsService);
  companyA = (await k.createCompany()).companyId;
  companyB = (await k.createCompany()).companyId;
  const contact = async (companyId: number, key: string, number: string) => {
    const [row] = await k.db('contacts').insert({ companyId, name: key, number }).returning('id');
    id[key] = row.id;
  };
  const tag = async (companyId: number, key: string, name: string) => {
    const [row] = await k.db('tags').insert({ companyId, name, color: '#123456' }).returning('id');
    id[key] = row.id;
  };
  await contact(companyA, 'tagged', '5511900000001');
  await contact(companyA, 'plain', '5511900000002');
  await contact(companyB, 'other', '5511900000003');
  await tag(companyA, 'zeta', 'Zeta');
  await tag(companyA, 'alfa', 'Alfa');
  await tag(companyB, 'foreign', 'Foreign');
  await k.db('contactTags').insert([
    { contactId: id.tagged, tagId: id.zeta, companyId: companyA },
    { contactId: id.tagged, tagId: id.alfa, companyId: companyA },
    { contactId: id.other, tagId: id.foreign, companyId: companyB },
  ]);
});

afterAll(async () => {
  await k?.close();
});

const names = (list: ContactTagRef[] | undefined) => (list ?? []).map((t) => t.name);

test('getManyWithTags answers what getMany and tagsOf answer', async () => {
  const ids = [id.tagged, id.plain];
  const [contacts, tags] = await Promise.all([svc.getMany(companyA, ids), svc.tagsOf(companyA, ids)]);
  const both = await svc.getManyWithTags!(companyA, ids);
  const byId = (list: { id: number }[]) => [...list].sort((a, b) => a.id - b.id);
  expect(byId(both.contacts)).toEqual(byId(contacts));
  expect(both.tags).toEqual(tags);
  expect(names(both.tags.get(id.tagged))).toEqual(['Alfa', 'Zeta']);
  expect(both.tags.get(id.tagged)![0].ContactTag).toMatchObject({ contactId: id.tagged, tagId: id.alfa });
  expect(both.tags.get(id.plain)).toEqual([]);
});

test('getManyWithTags: one statement without tags, one more to read the tags', async () => {
  const plain = await statements(() => svc.getManyWithTags!(companyA, [id.plain]));
  expect(plain.sqls).toHaveLength(1);
  const tagged = await statements(() => svc.getManyWithTags!(companyA, [id.tagged]));
  expect(tagged.sqls).toHaveLength(2);
});

test('scoped to the company: another company\'s contacts and links are not seen', async () => {
  const a = await svc.getManyWithTags!(companyA, [id.tagged, id.other]);
  expect(a.contacts.map((c) => c.id)).toEqual([id.tagged]);
  expect([...a.tags.keys()]).toEqual([id.tagged]);
  const b = await svc.getManyWithTags!(companyB, [id.other]);
  expect(names(b.tags.get(id.other))).toEqual(['Foreign']);
  expect(await svc.getManyWithTags!(companyA, [])).toEqual({ contacts: [], tags: new Map() });
});

test('findOrCreateMany fills tagsOut for known, changed and new contacts in the same statements', async () => {
  const tagsOut = new Map<number, ContactTagRef[]>();
  const inputs = [
    { number: '5511900000001', channel: 'whatsapp' as const },
    { number: '5511900000002', name: 'plain renamed', nameFrom: 'profile' as const, channel: 'whatsapp' as const },
    { number: '5511900000099', name: 'new one', channel: 'whatsapp' as const },
  ];
  const without = await statements(() => svc.findOrCreateMany!(companyA, inputs.map((x) => ({ ...x, name: x.name ? `${x.name}.` : undefined }))));
  const run = await statements(() => svc.findOrCreateMany!(companyA, inputs, undefined, { tagsOut }));
  const [tagged, plain, created] = run.value;
  expect(plain.name).toBe('plain renamed');
  expect(created.id).toBe(without.value[2].id);
  expect(tagsOut).toEqual(await svc.tagsOf(companyA, [tagged.id, plain.id, created.id]));
  expect(names(tagsOut.get(tagged.id))).toEqual(['Alfa', 'Zeta']);
  // The contacts' read and the update of the changed ones carry the links; then the tags' own read.
  expect(run.sqls).toHaveLength(3);
  expect(run.sqls.filter((q) => q.includes('contact_tags'))).toHaveLength(2);
  const fresh = new Map<number, ContactTagRef[]>();
  await svc.findOrCreateMany!(companyA, [{ number: '5511900000100', name: 'brand new', channel: 'whatsapp' }], undefined, { tagsOut: fresh });
  expect([...fresh.values()]).toEqual([[]]);
});
