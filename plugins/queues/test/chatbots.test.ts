import { collectEvents, createTestKernel, nextEvent, type TestKernel, type TestUser } from '@atendo/testing';
import type { ErrorCode } from '@atendo/sdk';
import queuesPlugin from '../src';
import { queuesService, type ChatbotNode } from '../src/contract';

type Res = { statusCode: number; json(): { error: string } };
function expectError(res: Res, status: number, code: ErrorCode) {
  expect({ status: res.statusCode, error: res.json().error }).toEqual({ status, error: code });
}

const CHATBOT_KEYS = [
  'chatbotId', 'closeTicket', 'createdAt', 'greetingMessage', 'id', 'isAgent', 'name', 'optFileId', 'optIntegrationId', 'optQueueId',
  'optUserId', 'options', 'order', 'queueId', 'queueType', 'updatedAt',
].sort();

/** A text option with a greeting. */
const opt = (name: string, extra: Record<string, unknown> = {}) => ({ name, greetingMessage: `Mensagem ${name}`, queueType: 'text', ...extra });
/** The tree as nested [name, children] pairs (order as answered). */
const names = (nodes: ChatbotNode[]): unknown[] => nodes.map((n) => [n.name, names(n.options)]);
/** Every node of a tree, depth first. */
const all = (nodes: ChatbotNode[]): ChatbotNode[] => nodes.flatMap((n) => [n, ...all(n.options)]);
const byName = (nodes: ChatbotNode[], name: string) => all(nodes).find((n) => n.name === name)!;
/** A single chain of `depth` nested options named Nivel 1..depth. */
const chain = (depth: number, from = 1): Record<string, unknown> => ({ name: `Nivel ${from}`, ...(from < depth ? { options: [chain(depth, from + 1)] } : {}) });

describe('chatbot option trees', () => {
  let k: TestKernel;
  let a: { companyId: number; admin: TestUser };
  let b: { companyId: number; admin: TestUser };
  let aUser: TestUser;
  let bUser: TestUser;
  let colorSeq = 0x200000;
  const color = () => `#${(colorSeq++).toString(16)}`;
  let nameSeq = 0;
  const newQueue = async (who: TestUser, body: Record<string, unknown> = {}) => {
    const res = await k.as(who, 'POST', '/queue', { name: `Fila ${nameSeq++}`, color: color(), ...body });
    expect({ status: res.statusCode, body: res.statusCode === 200 ? 'ok' : res.body }).toEqual({ status: 200, body: 'ok' });
    return res.json() as { id: number; name: string; chatbots: ChatbotNode[] };
  };
  const tree = async (queueId: number): Promise<ChatbotNode[]> => (await k.as(a.admin, 'GET', `/queue/${queueId}`)).json().chatbots;
  const count = async (companyId: number) => Number((await k.db('chatbots').where({ companyId }).count({ n: '*' }).first())!.n);

  beforeAll(async () => {
    k = await createTestKernel({ plugins: [queuesPlugin] });
    a = await k.createCompany();
    b = await k.createCompany();
    aUser = await k.createUser(a.companyId, { profile: 'user' });
    bUser = await k.createUser(b.companyId, { profile: 'user' });
  });
  afterAll(() => k.close());

  test('POST /queue creates the ordered, nested tree; GET /queue/:id answers the same tree; GET /queue has no chatbots', async () => {
    const target = await newQueue(a.admin);
    const q = await newQueue(a.admin, {
      chatbots: [
        opt('Vendas', {
          options: [
            opt('Planos', { options: [opt('Plano básico'), opt('Plano premium')] }),
            opt('Falar com humano', { queueType: 'attendent', optUserId: aUser.id, isAgent: true }),
          ],
        }),
        opt('Suporte', { queueType: 'queue', optQueueId: target.id, closeTicket: true }),
        opt('Financeiro', { queueType: 'integration', optIntegrationId: null, optFileId: null }),
      ],
    });
    expect(names(q.chatbots)).toEqual([
      ['Vendas', [['Planos', [['Plano básico', []], ['Plano premium', []]]], ['Falar com humano', []]]],
      ['Suporte', []],
      ['Financeiro', []],
    ]);
    for (const n of all(q.chatbots)) expect(Object.keys(n).sort()).toEqual(CHATBOT_KEYS);
    const vendas = byName(q.chatbots, 'Vendas');
    const planos = byName(q.chatbots, 'Planos');
    expect(q.chatbots.map((n) => [n.order, n.queueId, n.chatbotId])).toEqual([[0, q.id, null], [1, q.id, null], [2, q.id, null]]);
    expect(vendas.options.map((n) => [n.order, n.queueId, n.chatbotId])).toEqual([[0, null, vendas.id], [1, null, vendas.id]]);
    expect(planos.options.map((n) => [n.order, n.chatbotId])).toEqual([[0, planos.id], [1, planos.id]]);
    expect(byName(q.chatbots, 'Suporte')).toMatchObject({
      queueType: 'queue', optQueueId: target.id, optUserId: null, closeTicket: true, isAgent: false, greetingMessage: 'Mensagem Suporte',
    });
    expect(byName(q.chatbots, 'Falar com humano')).toMatchObject({ queueType: 'attendent', optUserId: aUser.id, isAgent: true, closeTicket: false });
    expect(byName(q.chatbots, 'Financeiro')).toMatchObject({ queueType: 'integration', optIntegrationId: null, optFileId: null, optQueueId: null });
    // No files plugin here: no id can name a file list (issue 37 item 5; foreign-ids.test.ts checks every kind with the
    // plugins). An integration id without the integrations plugin may name a third party's conversation handler.
    expect((await k.as(a.admin, 'POST', '/queue', { name: 'Fila ids soltos', color: color(), chatbots: [opt('Arquivos', { queueType: 'file', optFileId: 7 })] })).json()).toMatchObject({ error: 'ERR_VALIDATION' });

    const one = await k.as(aUser, 'GET', `/queue/${q.id}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual(q);
    const list = (await k.as(aUser, 'GET', '/queue')).json() as Record<string, unknown>[];
    expect(list.find((x) => x.id === q.id)).not.toHaveProperty('chatbots');
    const rows = await k.db('chatbots').whereIn('id', all(q.chatbots).map((n) => n.id));
    expect(rows.map((r: { companyId: number }) => r.companyId)).toEqual(Array(7).fill(a.companyId));
  });

  test('PUT /queue upserts the tree: order follows the body, ids keep their rows, missing options are deleted with their subtrees', async () => {
    const q = await newQueue(a.admin, {
      chatbots: [
        opt('Vendas', { options: [opt('Planos', { options: [opt('Plano básico'), opt('Plano premium')] }), opt('Falar com humano')] }),
        opt('Suporte', { options: [opt('Segunda via')] }),
        opt('Financeiro'),
      ],
    });
    const id = (name: string) => byName(q.chatbots, name).id;
    const put = (chatbots: unknown, extra: Record<string, unknown> = {}) => k.as(a.admin, 'PUT', `/queue/${q.id}`, { ...extra, chatbots });

    // Reorder, rename, insert; an item without `options` keeps its sub-options; Suporte (and Segunda via) go.
    const r1 = await put([
      { id: id('Financeiro'), name: 'Financeiro e cobrança' },
      { id: id('Vendas'), name: 'Vendas', options: [{ id: id('Falar com humano'), name: 'Falar com humano' }, { id: id('Planos'), name: 'Planos' }, opt('Novidades')] },
    ]);
    expect(r1.statusCode).toBe(201);
    const t1 = r1.json().chatbots as ChatbotNode[];
    expect(names(t1)).toEqual([
      ['Financeiro e cobrança', []],
      ['Vendas', [['Falar com humano', []], ['Planos', [['Plano básico', []], ['Plano premium', []]]], ['Novidades', []]]],
    ]);
    for (const n of ['Vendas', 'Planos', 'Falar com humano', 'Plano básico', 'Plano premium']) expect(byName(t1, n).id).toBe(id(n));
    expect(byName(t1, 'Financeiro e cobrança')).toMatchObject({ id: id('Financeiro'), order: 0, greetingMessage: 'Mensagem Financeiro' });
    expect(byName(t1, 'Vendas').options.map((n) => n.order)).toEqual([0, 1, 2]);
    expect(await k.db('chatbots').whereIn('id', [id('Suporte'), id('Segunda via')])).toEqual([]);
    expect(await tree(q.id)).toEqual(t1);

    // `options: []` deletes the sub-options; an option moves to another parent keeping its id.
    const novidades = byName(t1, 'Novidades').id;
    const r2 = await put([
      { id: id('Vendas'), name: 'Vendas', options: [{ id: id('Planos'), name: 'Planos', options: [{ id: novidades, name: 'Novidades' }] }] },
      { id: id('Financeiro'), name: 'Financeiro e cobrança', options: [] },
    ]);
    expect(r2.statusCode).toBe(201);
    const t2 = r2.json().chatbots as ChatbotNode[];
    expect(names(t2)).toEqual([['Vendas', [['Planos', [['Novidades', []]]]]], ['Financeiro e cobrança', []]]);
    expect(byName(t2, 'Novidades')).toMatchObject({ id: novidades, queueId: null, chatbotId: id('Planos'), order: 0 });
    expect(await k.db('chatbots').whereIn('id', [id('Plano básico'), id('Plano premium'), id('Falar com humano')])).toEqual([]);

    // A root option may become a sub-option and back.
    const r3 = await put([{ id: id('Financeiro'), name: 'Financeiro e cobrança', options: [{ id: id('Vendas'), name: 'Vendas' }] }]);
    expect(names(r3.json().chatbots)).toEqual([['Financeiro e cobrança', [['Vendas', [['Planos', [['Novidades', []]]]]]]]]);
    expect(byName(r3.json().chatbots, 'Vendas')).toMatchObject({ queueId: null, chatbotId: id('Financeiro') });

    // Without `chatbots` the tree is left alone; `chatbots: []` empties it.
    const r4 = await k.as(a.admin, 'PUT', `/queue/${q.id}`, { greetingMessage: 'Outra saudação' });
    expect(r4.json().chatbots).toEqual(r3.json().chatbots);
    const r5 = await put([]);
    expect(r5.json().chatbots).toEqual([]);
    expect(await k.db('chatbots').where({ queueId: q.id })).toEqual([]);
    expect(await k.db('chatbots').whereIn('id', [id('Vendas'), id('Planos'), novidades])).toEqual([]);
  });

  test('trees nest at most 5 levels, through every route', async () => {
    const q = await newQueue(a.admin, { chatbots: [chain(5)] });
    expect(names(q.chatbots)).toEqual([['Nivel 1', [['Nivel 2', [['Nivel 3', [['Nivel 4', [['Nivel 5', []]]]]]]]]]]);
    const before = await count(a.companyId);
    expectError(await k.as(a.admin, 'POST', '/queue', { name: 'Funda demais', color: color(), chatbots: [chain(6)] }), 400, 'ERR_VALIDATION');
    expectError(await k.as(a.admin, 'PUT', `/queue/${q.id}`, { chatbots: [chain(6)] }), 400, 'ERR_VALIDATION');
    const l5 = byName(q.chatbots, 'Nivel 5').id;
    const l3 = byName(q.chatbots, 'Nivel 3').id;
    expectError(await k.as(a.admin, 'POST', '/chatbot', { name: 'Nivel 6', chatbotId: l5 }), 400, 'ERR_VALIDATION');
    expectError(await k.as(a.admin, 'PUT', `/chatbot/${l3}`, { options: [chain(3)] }), 400, 'ERR_VALIDATION');
    // Moving a kept subtree one level down would make it 6 deep: refused, nothing changes (one transaction).
    const l1 = byName(q.chatbots, 'Nivel 1');
    const res = await k.as(a.admin, 'PUT', `/queue/${q.id}`, {
      name: 'Renomeada', chatbots: [{ id: l1.id, name: 'Nivel 1', options: [opt('Intermediario', { options: [{ id: l1.options[0].id, name: 'Nivel 2' }] })] }],
    });
    expectError(res, 400, 'ERR_VALIDATION');
    expect(await tree(q.id)).toEqual(q.chatbots);
    expect((await k.db('queues').where({ id: q.id }).first()).name).toBe(q.name);
    expect(await count(a.companyId)).toBe(before);
    // Five levels below a root reached with /chatbot is fine.
    const ok = await k.as(a.admin, 'POST', '/chatbot', { name: 'Nivel 5 bis', chatbotId: byName(q.chatbots, 'Nivel 4').id });
    expect(ok.statusCode).toBe(200);
  });

  test('option rules: names of 4..100 characters, type targets required, targets and ids of the company and queue only', async () => {
    const other = await newQueue(a.admin, { chatbots: [opt('De outra fila')] });
    const foreignOption = (await newQueue(b.admin, { chatbots: [opt('Opcao de B')] })).chatbots[0];
    const bQueue = await newQueue(b.admin);
    const q = await newQueue(a.admin, { chatbots: [opt('Existente')] });
    const existing = q.chatbots[0];
    const cases: [unknown[], number, ErrorCode][] = [
      [[{ name: 'abc' }], 400, 'ERR_VALIDATION'],
      [[{ name: '  abc   ' }], 400, 'ERR_VALIDATION'],
      [[{ name: 'x'.repeat(101) }], 400, 'ERR_VALIDATION'],
      [[{ greetingMessage: 'sem nome' }], 400, 'ERR_VALIDATION'],
      [[opt('Valida', { options: [{ name: 'ab' }] })], 400, 'ERR_VALIDATION'],
      [[opt('Para fila', { queueType: 'queue' })], 400, 'ERR_VALIDATION'],
      [[opt('Para fila', { queueType: 'queue', optQueueId: '' })], 400, 'ERR_VALIDATION'],
      [[opt('Para atendente', { queueType: 'attendent', optQueueId: other.id })], 400, 'ERR_VALIDATION'],
      [[opt('Tipo ruim', { queueType: 'bot' })], 400, 'ERR_VALIDATION'],
      [[opt('Fila de B', { queueType: 'queue', optQueueId: bQueue.id })], 404, 'ERR_NO_QUEUE_FOUND'],
      [[opt('Fila inexistente', { optQueueId: 2147483647 })], 404, 'ERR_NO_QUEUE_FOUND'],
      [[opt('Usuario de B', { queueType: 'attendent', optUserId: bUser.id })], 404, 'ERR_NO_USER_FOUND'],
      [[opt('Usuario inexistente', { optUserId: 2147483647 })], 404, 'ERR_NO_USER_FOUND'],
      [[{ id: other.chatbots[0].id, name: 'Roubada' }], 404, 'ERR_NO_CHATBOT_FOUND'],
      [[{ id: foreignOption.id, name: 'Roubada' }], 404, 'ERR_NO_CHATBOT_FOUND'],
      [[opt('Pai novo', { options: [{ id: foreignOption.id, name: 'Roubada' }] })], 404, 'ERR_NO_CHATBOT_FOUND'],
      [[{ id: existing.id, name: 'Existente' }, { id: existing.id, name: 'Duplicada' }], 400, 'ERR_VALIDATION'],
    ];
    for (const [chatbots, status, error] of cases) {
      const res = await k.as(a.admin, 'PUT', `/queue/${q.id}`, { name: 'Nao renomeia', chatbots });
      expect({ chatbots, status: res.statusCode, error: res.json().error }).toEqual({ chatbots, status, error });
    }
    // Nothing changed: neither the queue nor any option (the whole save is one transaction).
    expect((await k.db('queues').where({ id: q.id }).first()).name).toBe(q.name);
    expect(await tree(q.id)).toEqual(q.chatbots);
    expect((await k.db('chatbots').where({ id: foreignOption.id }).first()).name).toBe('Opcao de B');
    expect((await k.db('chatbots').where({ id: other.chatbots[0].id }).first()).name).toBe('De outra fila');

    // POST /queue: ids cannot be taken from elsewhere; a refused body creates no queue.
    const queuesBefore = await k.db('queues').where({ companyId: a.companyId }).count({ n: '*' }).first();
    expectError(await k.as(a.admin, 'POST', '/queue', { name: 'Com id', color: color(), chatbots: [{ id: existing.id, name: 'Roubada' }] }), 404, 'ERR_NO_CHATBOT_FOUND');
    expectError(await k.as(a.admin, 'POST', '/queue', { name: 'Com alvo de B', color: color(), chatbots: [opt('Alvo B', { queueType: 'queue', optQueueId: bQueue.id })] }), 404, 'ERR_NO_QUEUE_FOUND');
    expect(await k.db('queues').where({ companyId: a.companyId }).count({ n: '*' }).first()).toEqual(queuesBefore);

    // The old client's loose values: '' and null mean none, digit strings are ids, 'true' is true.
    const res = await k.as(a.admin, 'PUT', `/queue/${q.id}`, {
      chatbots: [
        { id: String(existing.id), name: '  Existente renomeada  ', greetingMessage: '', queueType: '', optQueueId: '', optUserId: null, optIntegrationId: '', optFileId: '', closeTicket: 'true', isAgent: 'false' },
        { name: 'Fila por texto', queueType: 'queue', optQueueId: String(other.id), createdAt: 'ignored', companyId: b.companyId },
      ],
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().chatbots).toEqual([
      expect.objectContaining({ id: existing.id, name: 'Existente renomeada', greetingMessage: null, queueType: 'text', optQueueId: null, optUserId: null, optIntegrationId: null, optFileId: null, closeTicket: true, isAgent: false }),
      expect.objectContaining({ name: 'Fila por texto', queueType: 'queue', optQueueId: other.id, queueId: q.id }),
    ]);
    expect((await k.db('chatbots').where({ name: 'Fila por texto' }).first()).companyId).toBe(a.companyId);
  });

  test('/chatbot: create under a queue or an option, read a subtree, update, delete a subtree', async () => {
    const target = await newQueue(a.admin);
    const q = await newQueue(a.admin, { chatbots: [opt('Primeira'), opt('Segunda')] });

    const root = await k.as(a.admin, 'POST', '/chatbot', { ...opt('Terceira'), queueId: q.id });
    expect(root.statusCode).toBe(200);
    expect(Object.keys(root.json()).sort()).toEqual(CHATBOT_KEYS);
    expect(root.json()).toMatchObject({ name: 'Terceira', queueId: q.id, chatbotId: null, order: 2, options: [] });
    const third = root.json() as ChatbotNode;

    const child = await k.as(a.admin, 'POST', '/chatbot', {
      name: 'Filha', greetingMessage: 'Escolha', chatbotId: String(third.id), queueType: 'queue', optQueueId: target.id,
      options: [opt('Neta um'), opt('Neta dois')],
    });
    expect(child.statusCode).toBe(200);
    expect(child.json()).toMatchObject({ name: 'Filha', queueId: null, chatbotId: third.id, order: 0, optQueueId: target.id });
    expect(names(child.json().options)).toEqual([['Neta um', []], ['Neta dois', []]]);
    const second = await k.as(a.admin, 'POST', '/chatbot', { name: 'Filha dois', chatbotId: third.id });
    expect(second.json().order).toBe(1);

    const got = await k.as(aUser, 'GET', `/chatbot/${third.id}`);
    expect(got.statusCode).toBe(200);
    expect(names([got.json()])).toEqual([['Terceira', [['Filha', [['Neta um', []], ['Neta dois', []]]], ['Filha dois', []]]]]);
    expect(names(await tree(q.id))).toEqual([['Primeira', []], ['Segunda', []], ['Terceira', [['Filha', [['Neta um', []], ['Neta dois', []]]], ['Filha dois', []]]]]);

    // PUT: fields merge with the stored option; `options` upserts the children.
    const filha = child.json() as ChatbotNode;
    const upd = await k.as(a.admin, 'PUT', `/chatbot/${filha.id}`, {
      name: 'Filha editada', closeTicket: true,
      options: [{ id: filha.options[1].id, name: 'Neta dois' }, opt('Neta tres')],
    });
    expect(upd.statusCode).toBe(200);
    expect(upd.json()).toMatchObject({ id: filha.id, name: 'Filha editada', greetingMessage: 'Escolha', queueType: 'queue', optQueueId: target.id, closeTicket: true, order: 0 });
    expect(names(upd.json().options)).toEqual([['Neta dois', []], ['Neta tres', []]]);
    expect(await k.db('chatbots').where({ id: filha.options[0].id }).first()).toBeUndefined();
    // Without `options` the children stay.
    const keep = await k.as(a.admin, 'PUT', `/chatbot/${filha.id}`, { greetingMessage: null });
    expect(keep.json()).toMatchObject({ greetingMessage: null, name: 'Filha editada' });
    expect(names(keep.json().options)).toEqual([['Neta dois', []], ['Neta tres', []]]);
    // The merged option must still satisfy its type.
    expectError(await k.as(a.admin, 'PUT', `/chatbot/${filha.id}`, { optQueueId: null }), 400, 'ERR_VALIDATION');
    expectError(await k.as(a.admin, 'PUT', `/chatbot/${filha.id}`, { queueType: 'attendent' }), 400, 'ERR_VALIDATION');
    expectError(await k.as(a.admin, 'PUT', `/chatbot/${filha.id}`, { name: 'abc' }), 400, 'ERR_VALIDATION');
    expectError(await k.as(a.admin, 'PUT', `/chatbot/${filha.id}`, { options: [{ id: third.id, name: 'Ciclo' }] }), 404, 'ERR_NO_CHATBOT_FOUND');
    const att = await k.as(a.admin, 'PUT', `/chatbot/${filha.id}`, { queueType: 'attendent', optUserId: aUser.id });
    expect(att.json()).toMatchObject({ queueType: 'attendent', optUserId: aUser.id, optQueueId: target.id });

    // Parent rules.
    expectError(await k.as(a.admin, 'POST', '/chatbot', { name: 'Sem pai' }), 400, 'ERR_VALIDATION');
    expectError(await k.as(a.admin, 'POST', '/chatbot', { name: 'Sem pai', queueId: '', chatbotId: null }), 400, 'ERR_VALIDATION');
    expectError(await k.as(a.admin, 'POST', '/chatbot', { name: 'Dois pais', queueId: q.id, chatbotId: third.id }), 400, 'ERR_VALIDATION');
    expectError(await k.as(a.admin, 'POST', '/chatbot', { name: 'Fila some', queueId: 2147483647 }), 404, 'ERR_NO_QUEUE_FOUND');
    expectError(await k.as(a.admin, 'POST', '/chatbot', { name: 'Pai some', chatbotId: 2147483647 }), 404, 'ERR_NO_CHATBOT_FOUND');
    expectError(await k.as(a.admin, 'POST', '/chatbot', { name: 'Com id filho', queueId: q.id, options: [{ id: filha.id, name: 'Roubada' }] }), 404, 'ERR_NO_CHATBOT_FOUND');
    expectError(await k.as(a.admin, 'POST', '/chatbot', { name: 'Tipo fila', queueId: q.id, queueType: 'queue' }), 400, 'ERR_VALIDATION');

    // DELETE removes the option and its subtree, and the others keep their order.
    const subtree = all([(await k.as(a.admin, 'GET', `/chatbot/${third.id}`)).json()]).map((n) => n.id);
    expect(subtree).toHaveLength(5);
    const del = await k.as(a.admin, 'DELETE', `/chatbot/${third.id}`);
    expect(del.statusCode).toBe(200);
    expect(del.json()).toEqual({ message: 'Chatbot deleted' });
    expect(await k.db('chatbots').whereIn('id', subtree)).toEqual([]);
    expect(names(await tree(q.id))).toEqual([['Primeira', []], ['Segunda', []]]);
    for (const method of ['GET', 'PUT', 'DELETE']) {
      expectError(await k.as(a.admin, method, `/chatbot/${third.id}`, method === 'PUT' ? { name: 'Fantasma' } : undefined), 404, 'ERR_NO_CHATBOT_FOUND');
    }
  });

  test("another company's options, queues and users are 404 on every route and stay unchanged", async () => {
    const aTarget = await newQueue(a.admin);
    const q = await newQueue(a.admin, { chatbots: [opt('Privada', { options: [opt('Privada filha')] })] });
    const optA = q.chatbots[0];
    const qb = await newQueue(b.admin, { chatbots: [opt('Da empresa B')] });
    for (const who of [b.admin, bUser]) expectError(await k.as(who, 'GET', `/chatbot/${optA.id}`), 404, 'ERR_NO_CHATBOT_FOUND');
    expectError(await k.as(b.admin, 'PUT', `/chatbot/${optA.id}`, { name: 'Roubada' }), 404, 'ERR_NO_CHATBOT_FOUND');
    expectError(await k.as(b.admin, 'DELETE', `/chatbot/${optA.id}`), 404, 'ERR_NO_CHATBOT_FOUND');
    expectError(await k.as(b.admin, 'POST', '/chatbot', { name: 'Intrusa', queueId: q.id }), 404, 'ERR_NO_QUEUE_FOUND');
    expectError(await k.as(b.admin, 'POST', '/chatbot', { name: 'Intrusa', chatbotId: optA.id }), 404, 'ERR_NO_CHATBOT_FOUND');
    expectError(await k.as(b.admin, 'POST', '/chatbot', { name: 'Alvo de A', queueId: qb.id, queueType: 'queue', optQueueId: aTarget.id }), 404, 'ERR_NO_QUEUE_FOUND');
    expectError(await k.as(b.admin, 'POST', '/chatbot', { name: 'Usuario de A', queueId: qb.id, queueType: 'attendent', optUserId: aUser.id }), 404, 'ERR_NO_USER_FOUND');
    expectError(await k.as(b.admin, 'PUT', `/chatbot/${qb.chatbots[0].id}`, { queueType: 'queue', optQueueId: aTarget.id }), 404, 'ERR_NO_QUEUE_FOUND');
    expectError(await k.as(b.admin, 'PUT', `/chatbot/${qb.chatbots[0].id}`, { options: [{ id: optA.options[0].id, name: 'Roubada' }] }), 404, 'ERR_NO_CHATBOT_FOUND');
    expectError(await k.as(b.admin, 'PUT', `/queue/${qb.id}`, { chatbots: [{ id: optA.id, name: 'Roubada' }] }), 404, 'ERR_NO_CHATBOT_FOUND');
    expectError(await k.as(b.admin, 'PUT', `/queue/${q.id}`, { chatbots: [] }), 404, 'ERR_NO_QUEUE_FOUND');
    expect(await tree(q.id)).toEqual(q.chatbots);
    expect((await k.as(b.admin, 'GET', `/queue/${qb.id}`)).json().chatbots).toEqual(qb.chatbots);
    const svc = k.services.get(queuesService);
    expect(await svc.getOption(b.companyId, optA.id)).toBeUndefined();
    expect(await svc.chatbotTree(b.companyId, q.id)).toEqual([]);
  });

  test('plain users and supervisors read options but cannot write them; anonymous callers get 401', async () => {
    const q = await newQueue(a.admin, { chatbots: [opt('Somente leitura')] });
    const id = q.chatbots[0].id;
    const supervisor = await k.createUser(a.companyId, { profile: 'supervisor' });
    for (const who of [aUser, supervisor]) {
      expect((await k.as(who, 'GET', `/chatbot/${id}`)).statusCode).toBe(200);
      expectError(await k.as(who, 'POST', '/chatbot', { name: 'Proibida', queueId: q.id }), 403, 'ERR_NO_PERMISSION');
      expectError(await k.as(who, 'PUT', `/chatbot/${id}`, { name: 'Proibida' }), 403, 'ERR_NO_PERMISSION');
      expectError(await k.as(who, 'DELETE', `/chatbot/${id}`), 403, 'ERR_NO_PERMISSION');
      expectError(await k.as(who, 'PUT', `/queue/${q.id}`, { chatbots: [] }), 403, 'ERR_NO_PERMISSION');
    }
    for (const [method, url] of [['GET', `/chatbot/${id}`], ['POST', '/chatbot'], ['PUT', `/chatbot/${id}`], ['DELETE', `/chatbot/${id}`]]) {
      expectError(await k.as(null, method, url, method === 'POST' || method === 'PUT' ? { name: 'Anonima' } : undefined), 401, 'ERR_SESSION_EXPIRED');
    }
    expect(await tree(q.id)).toEqual(q.chatbots);
  });

  test('bad input answers 4xx catalogue codes, never 500', async () => {
    const q = await newQueue(a.admin, { chatbots: [opt('Alvo de edicao')] });
    const id = q.chatbots[0].id;
    const bad: Record<string, unknown>[] = [
      { name: 12345 },
      { name: null },
      { name: 'Valida', greetingMessage: 'x'.repeat(5001) },
      { name: 'Valida', greetingMessage: 42 },
      { name: 'Valida', closeTicket: 'talvez' },
      { name: 'Valida', isAgent: 3 },
      { name: 'Valida', queueType: 'bot' },
      { name: 'Valida', queueType: 1 },
      { name: 'Valida', optQueueId: -1 },
      { name: 'Valida', optQueueId: 0 },
      { name: 'Valida', optQueueId: '0' },
      { name: 'Valida', optQueueId: 'abc' },
      { name: 'Valida', optQueueId: 1.5 },
      { name: 'Valida', optQueueId: 1e12 },
      { name: 'Valida', optQueueId: '99999999999' },
      { name: 'Valida', optUserId: true },
      { name: 'Valida', optIntegrationId: [1] },
      { name: 'Valida', options: 'nenhuma' },
      { name: 'Valida', options: [1] },
      { name: 'Valida', options: Array.from({ length: 101 }, (_, i) => ({ name: `Opcao ${i}` })) },
      { name: 'Valida', id: -5 },
      { name: 'Valida', id: 'abc' },
    ];
    for (const item of bad) {
      const put = await k.as(a.admin, 'PUT', `/queue/${q.id}`, { chatbots: [item] });
      expect({ item, status: put.statusCode, error: put.json().error }).toEqual({ item, status: 400, error: 'ERR_VALIDATION' });
      if ('id' in item) continue;
      const post = await k.as(a.admin, 'POST', '/chatbot', { ...item, queueId: q.id });
      expect({ item, route: 'POST', status: post.statusCode, error: post.json().error }).toEqual({ item, route: 'POST', status: 400, error: 'ERR_VALIDATION' });
      if (item.name !== 'Valida') continue;
      const upd = await k.as(a.admin, 'PUT', `/chatbot/${id}`, item);
      expect({ item, route: 'PUT', status: upd.statusCode, error: upd.json().error }).toEqual({ item, route: 'PUT', status: 400, error: 'ERR_VALIDATION' });
    }
    for (const body of [{ chatbots: 'todas' }, { chatbots: [null] }, { chatbots: Array.from({ length: 101 }, (_, i) => ({ name: `Opcao ${i}` })) }]) {
      expectError(await k.as(a.admin, 'PUT', `/queue/${q.id}`, body), 400, 'ERR_VALIDATION');
    }
    for (const body of [{ name: 'Valida', queueId: -1 }, { name: 'Valida', queueId: 'x' }, { name: 'Valida', chatbotId: 99999999999 }, { name: 'Valida', chatbotId: '99999999999' }]) {
      expectError(await k.as(a.admin, 'POST', '/chatbot', body), 400, 'ERR_VALIDATION');
    }
    for (const url of ['/chatbot/-1', '/chatbot/0', '/chatbot/abc', '/chatbot/99999999999', '/chatbot/1.5']) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = await k.as(a.admin, method, url, method === 'PUT' ? { name: 'Qualquer' } : undefined);
        expect({ url, method, status: res.statusCode, error: res.json().error }).toEqual({ url, method, status: 400, error: 'ERR_VALIDATION' });
      }
    }
    expect(await tree(q.id)).toEqual(q.chatbots);
  });

  test('every write emits company-{id}-queue with the queue and its tree, to that company only', async () => {
    const q = await newQueue(a.admin, { chatbots: [opt('Com evento')] });
    const base = await k.listen();
    const sa = await k.socket(aUser.token, base);
    const sb = await k.socket(b.admin.token, base);
    const event = `company-${a.companyId}-queue`;
    type Ev = { action: string; queue: { id: number; chatbots: ChatbotNode[] } };
    try {
      const leak = collectEvents(sb, event, 800);
      let next = nextEvent<Ev>(sa, event);
      const created = (await k.as(a.admin, 'POST', '/chatbot', { name: 'Nova via rota', queueId: q.id })).json();
      const e1 = await next;
      expect(e1.action).toBe('update');
      expect(e1.queue.id).toBe(q.id);
      expect(names(e1.queue.chatbots)).toEqual([['Com evento', []], ['Nova via rota', []]]);

      next = nextEvent<Ev>(sa, event);
      await k.as(a.admin, 'PUT', `/chatbot/${created.id}`, { name: 'Renomeada via rota', options: [opt('Sub via rota')] });
      expect(names((await next).queue.chatbots)).toEqual([['Com evento', []], ['Renomeada via rota', [['Sub via rota', []]]]]);

      next = nextEvent<Ev>(sa, event);
      await k.as(a.admin, 'DELETE', `/chatbot/${created.id}`);
      expect(names((await next).queue.chatbots)).toEqual([['Com evento', []]]);

      next = nextEvent<Ev>(sa, event);
      await k.as(a.admin, 'PUT', `/queue/${q.id}`, { chatbots: [opt('Via fila')] });
      expect(names((await next).queue.chatbots)).toEqual([['Via fila', []]]);
      expect(await leak).toEqual([]);
    } finally {
      sa.close();
      sb.close();
    }
  });

  test('concurrent writes to one tree are serialised: appended options get distinct positions', async () => {
    const q = await newQueue(a.admin, { chatbots: [opt('Primeira')] });
    const res = await Promise.all(Array.from({ length: 6 }, (_, i) => k.as(a.admin, 'POST', '/chatbot', { name: `Paralela ${i}`, queueId: q.id })));
    expect(res.map((r) => r.statusCode)).toEqual(Array(6).fill(200));
    expect(res.map((r) => r.json().order).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    const puts = await Promise.all([
      k.as(a.admin, 'PUT', `/queue/${q.id}`, { chatbots: [opt('Versao A')] }),
      k.as(a.admin, 'PUT', `/queue/${q.id}`, { chatbots: [opt('Versao B'), opt('Versao B2')] }),
    ]);
    expect(puts.map((r) => r.statusCode)).toEqual([201, 201]);
    const final = names(await tree(q.id));
    expect([[['Versao A', []]], [['Versao B', []], ['Versao B2', []]]]).toContainEqual(final);
  });

  test('deleting a queue deletes its options; deleting a target queue or user clears the reference', async () => {
    const target = await newQueue(a.admin);
    const attendant = await k.createUser(a.companyId, { profile: 'user' });
    const q = await newQueue(a.admin, {
      chatbots: [opt('Vai para fila', { queueType: 'queue', optQueueId: target.id, options: [opt('Sub de fila')] }), opt('Vai para atendente', { queueType: 'attendent', optUserId: attendant.id })],
    });
    await k.as(a.admin, 'DELETE', `/queue/${target.id}`);
    await k.as(a.admin, 'DELETE', `/users/${attendant.id}`);
    const t = await tree(q.id);
    expect(byName(t, 'Vai para fila').optQueueId).toBeNull();
    expect(byName(t, 'Vai para atendente').optUserId).toBeNull();
    const ids = all(t).map((n) => n.id);
    expect((await k.as(a.admin, 'DELETE', `/queue/${q.id}`)).statusCode).toBe(200);
    expect(await k.db('chatbots').whereIn('id', ids)).toEqual([]);
  });
});

describe('queue service hours and the queues service', () => {
  let k: TestKernel;
  let a: { companyId: number; admin: TestUser };
  let b: { companyId: number; admin: TestUser };
  const WEEK = [
    { weekday: 'Segunda-feira', weekdayEn: 'monday', startTimeA: '08:00', endTimeA: '12:00', startTimeB: '13:00', endTimeB: '18:00' },
    { weekday: 'Terça-feira', weekdayEn: 'tuesday', startTimeA: '', endTimeA: '', startTimeB: '', endTimeB: '' },
  ];

  beforeAll(async () => {
    k = await createTestKernel({ plugins: [queuesPlugin] });
    a = await k.createCompany();
    b = await k.createCompany();
  });
  afterAll(() => k.close());

  test('schedules are validated strictly on POST and PUT /queue', async () => {
    const ok = { name: 'Horarios', color: '#0A0B0C' };
    const bad: unknown[][] = [
      [WEEK[0], WEEK[0]],
      [{ ...WEEK[0], weekdayEn: 'lunes' }],
      [{ ...WEEK[0], weekday: 'Domingo' }],
      [{ ...WEEK[0], startTimeA: '12:30' }],
      [{ ...WEEK[0], startTimeB: '11:00' }],
      [{ ...WEEK[0], startTimeA: '', endTimeA: '' }],
      [{ ...WEEK[0], endTimeB: '' }],
      [{ ...WEEK[0], endTimeA: '24:00' }],
      [{ ...WEEK[0], startTimeA: 800 }],
      [{ ...WEEK[0], weekday: 'x'.repeat(31) }],
    ];
    for (const schedules of bad) {
      const res = await k.as(a.admin, 'POST', '/queue', { ...ok, schedules });
      expect({ schedules, status: res.statusCode, error: res.json().error }).toEqual({ schedules, status: 400, error: 'ERR_VALIDATION' });
    }
    const created = await k.as(a.admin, 'POST', '/queue', { ...ok, schedules: [{ ...WEEK[0], weekday: 'Monday', weekdayEn: 'MONDAY', startTimeB: null, endTimeB: null }] });
    expect(created.statusCode).toBe(200);
    expect(created.json().schedules).toEqual([{ ...WEEK[0], weekday: 'Monday', startTimeB: '', endTimeB: '' }]);
    expectError(await k.as(a.admin, 'PUT', `/queue/${created.json().id}`, { schedules: [{ ...WEEK[1], startTimeA: '10:00' }] }), 400, 'ERR_VALIDATION');
    const upd = await k.as(a.admin, 'PUT', `/queue/${created.json().id}`, { schedules: WEEK });
    expect(upd.statusCode).toBe(201);
    expect(upd.json().schedules).toEqual(WEEK);
  });

  test('isOpenAt, listQueues, chatbotTree and getOption answer within the company only', async () => {
    const svc = k.services.get(queuesService);
    const a = await k.createCompany(); // a company of its own, so listQueues is exact
    const withHours = (await k.as(a.admin, 'POST', '/queue', { name: 'Com horario', color: '#111111', orderQueue: 2, schedules: WEEK, chatbots: [opt('Raiz', { options: [opt('Folha')] })] })).json();
    const always = (await k.as(a.admin, 'POST', '/queue', { name: 'Sempre aberta', color: '#222222', orderQueue: 1 })).json();
    const inB = (await k.as(b.admin, 'POST', '/queue', { name: 'Fila B', color: '#333333' })).json();

    // 2026-03-02 is a Monday; São Paulo is UTC-3.
    expect(await svc.isOpenAt(a.companyId, withHours.id, new Date('2026-03-02T12:00:00Z'))).toBe(true); // 09:00
    expect(await svc.isOpenAt(a.companyId, withHours.id, new Date('2026-03-02T15:30:00Z'))).toBe(false); // 12:30
    expect(await svc.isOpenAt(a.companyId, withHours.id, new Date('2026-03-02T15:30:00Z'), 'UTC')).toBe(true); // 15:30 UTC
    expect(await svc.isOpenAt(a.companyId, withHours.id, new Date('2026-03-03T12:00:00Z'))).toBe(false); // tuesday: empty
    expect(await svc.isOpenAt(a.companyId, withHours.id, new Date('2026-03-04T12:00:00Z'))).toBe(false); // wednesday: missing
    expect(await svc.isOpenAt(a.companyId, always.id, new Date('2026-03-04T05:00:00Z'))).toBe(true);
    await expect(svc.isOpenAt(b.companyId, withHours.id, new Date())).rejects.toMatchObject({ code: 'ERR_NO_QUEUE_FOUND' });
    await expect(svc.isOpenAt(a.companyId, always.id, new Date(), 'Nowhere/City')).rejects.toMatchObject({ code: 'ERR_VALIDATION' });

    expect((await svc.listQueues(a.companyId)).map((q) => q.id)).toEqual([always.id, withHours.id]);
    expect((await svc.listQueues(b.companyId)).map((q) => q.id)).toEqual([inB.id]);

    const t = await svc.chatbotTree(a.companyId, withHours.id);
    expect(names(t)).toEqual([['Raiz', [['Folha', []]]]]);
    expect(t).toEqual(JSON.parse(JSON.stringify(withHours.chatbots), (key, v) => (key === 'createdAt' || key === 'updatedAt' ? new Date(v) : v)));
    expect(await svc.chatbotTree(b.companyId, withHours.id)).toEqual([]);
    expect(await svc.getOption(a.companyId, t[0].options[0].id)).toMatchObject({ name: 'Folha', chatbotId: t[0].id, options: [] });
    expect(await svc.getOption(b.companyId, t[0].id)).toBeUndefined();
    expect(await svc.getOption(a.companyId, 2147483647)).toBeUndefined();
  });
});
