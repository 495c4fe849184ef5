/**
 * ContactsService.searchIds (added for the ticket search of the tickets plugin): ids of the contacts of one
 * company whose name contains the term (case-insensitive), or whose number contains the term's digits when
 * the term looks like a phone number; newest contact first; capped by `limit`.
 */
import { createTestKernel, type TestKernel } from '@atendo/testing';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';
import { contactsService, type ContactsService } from '@atendo/plugin-contacts/contract';

let k: TestKernel;
let svc: ContactsService;
let companyA: number;
let companyB: number;
const id: Record<string, number> = {};

beforeAll(async () => {
  k = await createTestKernel({ plugins: [tagsPlugin, contactsPlugin] });
  svc = k.services.get(contactsService);
  companyA = (await k.createCompany()).companyId;
  companyB = (await k.createCompany()).companyId;
  const add = async (companyId: number, key: string, name: string, number: string) => {
    const [row] = await k.db('contacts').insert({ companyId, name, number }).returning('id');
    id[key] = row.id;
  };
  await add(companyA, 'maria', 'Maria Silva', '5511987650001');
  await add(companyA, 'mariana', 'Mariana Costa', '5511912340002');
  await add(companyA, 'percent', 'Loja 100% Natural', '5521933330003');
  await add(companyA, 'joao', 'João Pereira', '5531944440004');
  await add(companyB, 'mariaB', 'Maria Outra', '5511987650001');
});

afterAll(async () => {
  await k?.close();
});

test('name contains the term, case-insensitive, newest contact first', async () => {
  expect(await svc.searchIds(companyA, 'MARIA')).toEqual([id.mariana, id.maria]);
  expect(await svc.searchIds(companyA, '  maria silva ')).toEqual([id.maria]);
  expect(await svc.searchIds(companyA, 'JOÃO')).toEqual([id.joao]);
});

test('phone-like terms match number digits; other terms do not look at numbers', async () => {
  expect(await svc.searchIds(companyA, '98765')).toEqual([id.maria]);
  expect(await svc.searchIds(companyA, '+55 (11) 9')).toEqual([id.mariana, id.maria]);
  expect(await svc.searchIds(companyA, 'Loja 5521')).toEqual([]);
});

test('LIKE wildcards are literal', async () => {
  expect(await svc.searchIds(companyA, '100%')).toEqual([id.percent]);
  expect(await svc.searchIds(companyA, '%')).toEqual([id.percent]);
  expect(await svc.searchIds(companyA, '_')).toEqual([]);
});

test('scoped to the company; blank terms and limits', async () => {
  expect(await svc.searchIds(companyB, 'maria')).toEqual([id.mariaB]);
  expect(await svc.searchIds(companyB, 'mariana')).toEqual([]);
  expect(await svc.searchIds(companyA, '   ')).toEqual([]);
  expect(await svc.searchIds(companyA, 'a', 2)).toEqual([id.joao, id.percent]);
  expect(await svc.searchIds(companyA, 'a', 0)).toHaveLength(1);
  expect(await svc.searchIds(999999, 'maria')).toEqual([]);
});
