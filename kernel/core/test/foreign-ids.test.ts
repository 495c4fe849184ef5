/**
 * Foreign ids in bodies (issue 37 item 5): every body field holding another plugin's id is checked against
 * the caller's company (the kernel's `references` service, answered by the plugin owning the kind): company
 * A naming company B's prompt, integration, file list, tag or connection gets that plugin's 404 and nothing
 * is stored; its own ids are accepted.
 */
import { createTestKernel, type TestKernel } from '@atendo/testing';

let k: TestKernel;
type Company = Awaited<ReturnType<TestKernel['createCompany']>>;
let A: Company;
let B: Company;
/** Ids of records of company B (`b`) and of company A (`a`), by kind. */
const b: Record<string, number> = {};
const a: Record<string, number> = {};

/** Inserts a record of `kind` for `companyId` straight into its owner's table (what the owner's API would store). */
async function record(kind: string, companyId: number): Promise<number> {
  const db = k.db;
  const n = `${kind}-${companyId}-${Math.random().toString(36).slice(2, 8)}`;
  const rows: Record<string, [string, Record<string, unknown>]> = {
    prompt: ['promptsPrompts', { name: n, prompt: 'p', apiKey: 'x', queueId: (await db('queues').insert({ companyId, name: n, color: `#${Math.floor(Math.random() * 0xffffff).toString(16).padStart(6, '0')}` }).returning('id'))[0].id }],
    integration: ['integrationsQueueIntegrations', { type: 'webhook', name: n, secret: 'x' }],
    fileList: ['filesLists', { name: n }],
    tag: ['tags', { name: n, color: '#123456' }],
    connection: ['whatsapps', { name: n, token: n }],
  };
  const [table, values] = rows[kind];
  const [row] = await db(table).insert({ companyId, ...values }).returning('id');
  return row.id as number;
}

const err = (res: { statusCode: number; json(): { error?: string } }) => ({ status: res.statusCode, error: res.json().error });
const color = () => `#${Math.floor(Math.random() * 0xffffff).toString(16).padStart(6, '0')}`;

beforeAll(async () => {
  k = await createTestKernel({ plugins: 'discover', env: { PROMPTS_ENCRYPTION_KEY: 'k'.repeat(40) } });
  A = await k.createCompany();
  B = await k.createCompany();
  for (const kind of ['prompt', 'integration', 'fileList', 'tag', 'connection']) {
    b[kind] = await record(kind, B.companyId);
    a[kind] = await record(kind, A.companyId);
  }
}, 60_000);
afterAll(async () => {
  await k?.close();
});

const NOT_FOUND = { prompt: 'ERR_NO_PROMPT_FOUND', integration: 'ERR_NO_INTEGRATION_FOUND', fileList: 'ERR_NO_FILE_LIST_FOUND', tag: 'ERR_NO_TAG_FOUND', connection: 'ERR_NO_WAPP_FOUND' } as const;

describe('queues: promptId, integrationId, fileListId (create and update)', () => {
  for (const [field, kind] of [['promptId', 'prompt'], ['integrationId', 'integration'], ['fileListId', 'fileList']] as const) {
    test(`${field} of company B: 404 ${NOT_FOUND[kind]}, nothing stored; A's own is stored`, async () => {
      const name = `Q ${field} ${Math.random()}`;
      expect(err(await k.as(A.admin, 'POST', '/queue', { name, color: color(), [field]: b[kind] }))).toEqual({ status: 404, error: NOT_FOUND[kind] });
      expect(await k.db('queues').where({ companyId: A.companyId, name }).first()).toBeUndefined();
      const ok = await k.as(A.admin, 'POST', '/queue', { name, color: color(), [field]: a[kind] });
      expect(ok.statusCode).toBe(200);
      const id = ok.json().id as number;
      expect(err(await k.as(A.admin, 'PUT', `/queue/${id}`, { [field]: b[kind] }))).toEqual({ status: 404, error: NOT_FOUND[kind] });
      expect((await k.db('queues').where({ id }).first())[field]).toBe(a[kind]);
    });
  }
});

describe('chatbot options: optIntegrationId, optFileId', () => {
  for (const [field, kind] of [['optIntegrationId', 'integration'], ['optFileId', 'fileList']] as const) {
    test(`${field} of company B: 404 ${NOT_FOUND[kind]}`, async () => {
      const q = (await k.as(A.admin, 'POST', '/queue', { name: `Bot ${field}`, color: color() })).json();
      const foreign = { name: 'Opção', queueType: 'text', [field]: b[kind] };
      expect(err(await k.as(A.admin, 'PUT', `/queue/${q.id}`, { chatbots: [foreign] }))).toEqual({ status: 404, error: NOT_FOUND[kind] });
      expect(err(await k.as(A.admin, 'POST', '/chatbot', { ...foreign, queueId: q.id }))).toEqual({ status: 404, error: NOT_FOUND[kind] });
      expect(await k.db('chatbots').where({ queueId: q.id }).first()).toBeUndefined();
      expect((await k.as(A.admin, 'PUT', `/queue/${q.id}`, { chatbots: [{ ...foreign, [field]: a[kind] }] })).statusCode).toBeLessThan(300);
    });
  }
});

describe('connections: promptId, integrationId', () => {
  for (const [field, kind] of [['promptId', 'prompt'], ['integrationId', 'integration']] as const) {
    test(`${field} of company B: 404 ${NOT_FOUND[kind]} on create and update`, async () => {
      const name = `Conn ${field}`;
      expect(err(await k.as(A.admin, 'POST', '/whatsapp', { name, [field]: b[kind] }))).toEqual({ status: 404, error: NOT_FOUND[kind] });
      expect(await k.db('whatsapps').where({ companyId: A.companyId, name }).first()).toBeUndefined();
      expect(err(await k.as(A.admin, 'PUT', `/whatsapp/${a.connection}`, { [field]: b[kind] }))).toEqual({ status: 404, error: NOT_FOUND[kind] });
      expect((await k.db('whatsapps').where({ id: a.connection }).first())[field]).toBeNull();
      expect((await k.as(A.admin, 'PUT', `/whatsapp/${a.connection}`, { [field]: a[kind] })).statusCode).toBe(200);
    });
  }
});

test('campaigns: tagListId of company B: 404 ERR_NO_TAG_FOUND on create and update', async () => {
  expect(err(await k.as(A.admin, 'POST', '/campaigns', { name: 'Por tag', tagListId: b.tag, message1: 'Oi' }))).toEqual({ status: 404, error: 'ERR_NO_TAG_FOUND' });
  const c = await k.as(A.admin, 'POST', '/campaigns', { name: 'Por tag', tagListId: a.tag, message1: 'Oi' });
  expect(c.statusCode).toBe(200);
  expect(err(await k.as(A.admin, 'PUT', `/campaigns/${c.json().id}`, { name: 'Por tag', tagListId: b.tag }))).toEqual({ status: 404, error: 'ERR_NO_TAG_FOUND' });
  expect((await k.db('campaigns').where({ id: c.json().id }).first()).tagListId).toBe(a.tag);
});

test("users: whatsappId of company B: 404 ERR_NO_WAPP_FOUND on create and update", async () => {
  const email = `fk-${Date.now()}@example.com`;
  expect(err(await k.as(A.admin, 'POST', '/users', { name: 'Fk', email, password: 'Secret#123456', whatsappId: b.connection }))).toEqual({ status: 404, error: 'ERR_NO_WAPP_FOUND' });
  expect(await k.db('users').where({ email }).first()).toBeUndefined();
  const u = await k.createUser(A.companyId);
  expect(err(await k.as(A.admin, 'PUT', `/users/${u.id}`, { whatsappId: b.connection }))).toEqual({ status: 404, error: 'ERR_NO_WAPP_FOUND' });
  expect((await k.as(A.admin, 'PUT', `/users/${u.id}`, { whatsappId: a.connection })).statusCode).toBe(200);
  expect((await k.db('users').where({ id: u.id }).first()).whatsappId).toBe(a.connection);
});
