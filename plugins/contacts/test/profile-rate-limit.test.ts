/**
 * `GET /contacts/profile/:number` (issue 37 item 2): each answer tells whether a number is a contact, so a
 * plain user could guess masked numbers one by one. The lookups are limited per user and company, counted
 * in PostgreSQL: two kernel nodes on one database share one allowance; another user keeps their own.
 */
import { createTestKernel, type TestKernel } from '@atendo/testing';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';

const LIMIT = 5;
// One secret for both nodes: a token signed by one is accepted by the other.
const env = { CONTACTS_PROFILE_LOOKUPS_PER_MINUTE: String(LIMIT), JWT_SECRET: 'a'.repeat(64), JWT_REFRESH_SECRET: 'b'.repeat(64) };
let k1: TestKernel;
let k2: TestKernel;

beforeAll(async () => {
  k1 = await createTestKernel({ plugins: [tagsPlugin, contactsPlugin], env });
  // A second node on the same database.
  k2 = await createTestKernel({ plugins: [tagsPlugin, contactsPlugin], env, dbName: k1.dbName });
}, 120_000);
afterAll(async () => {
  await k2?.close();
  await k1?.close();
});

test('a user gets LIMIT lookups a minute across both nodes, then 429 ERR_TOO_MANY_REQUESTS; another user is not held back', async () => {
  const c = await k1.createCompany();
  const user = await k1.createUser(c.companyId, { profile: 'user' });
  const other = await k1.createUser(c.companyId, { profile: 'user' });
  const guess = (k: TestKernel, who: { token: string }, i: number) => k.as(who, 'GET', `/contacts/profile/55119000${String(i).padStart(5, '0')}`);
  const answers: number[] = [];
  for (let i = 0; i < LIMIT; i++) answers.push((await guess(i % 2 ? k2 : k1, user, i)).statusCode);
  expect(answers).toEqual(Array(LIMIT).fill(200));
  for (const k of [k1, k2]) {
    const refused = await guess(k, user, 99);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: 'ERR_TOO_MANY_REQUESTS' });
  }
  expect((await guess(k2, other, 1)).statusCode).toBe(200);
});
