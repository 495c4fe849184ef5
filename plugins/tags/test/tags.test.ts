import { collectEvents, createTestKernel, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import { definePlugin } from '@atendo/sdk';
import tagsPlugin from '@atendo/plugin-tags';
import { tagCounters, tagsService, type TagCounter } from '@atendo/plugin-tags/contract';

/**
 * A plugin contributing to `tags.counters` the way contacts and tickets do: `ticketsCount` (answers from
 * `ticketCounts`, records its calls in `seen`) and an open key `campaignsCount`; a second `ticketsCount`
 * is refused (the error is kept in `duplicate`).
 */
const counted = { ticketCounts: new Map<number, number>(), seen: [] as [number, number[]][], duplicate: undefined as unknown };
const counterPlugin = definePlugin({
  id: 'tag-counter-test',
  dependsOn: ['tags'],
  register(ctx) {
    ctx.extensions.contribute<TagCounter>(tagCounters, {
      key: 'ticketsCount',
      count: async (companyId, ids) => {
        counted.seen.push([companyId, ids]);
        return new Map([...counted.ticketCounts].filter(([id]) => ids.includes(id)));
      },
    });
    ctx.extensions.contribute(tagCounters, { key: 'campaignsCount', count: async (_c, ids) => new Map(ids.map((id) => [id, 2])) });
    try {
      ctx.extensions.contribute(tagCounters, { key: 'ticketsCount', count: async () => new Map() });
    } catch (err) {
      counted.duplicate = err;
    }
  },
});

describe('tags plugin', () => {
  let k: TestKernel;
  let A: { companyId: number; admin: TestUser; user: TestUser; supervisor: TestUser };
  let B: { companyId: number; admin: TestUser; user: TestUser };
  let noKanban: { companyId: number; admin: TestUser };

  beforeAll(async () => {
    k = await createTestKernel({ plugins: [tagsPlugin, counterPlugin] });
    const a = await k.createCompany();
    A = { ...a, user: await k.createUser(a.companyId, { profile: 'user' }), supervisor: await k.createUser(a.companyId, { profile: 'supervisor' }) };
    const b = await k.createCompany();
    B = { ...b, user: await k.createUser(b.companyId, { profile: 'user' }) };
    noKanban = await k.createCompany({ without: ['useKanban'] });
  });
  afterAll(() => k.close());

  const create = async (who: TestUser, body: Record<string, unknown>) => {
    const res = await k.as(who, 'POST', '/tags', body);
    expect(res.statusCode).toBe(200);
    return res.json();
  };

  test('create, read, update and delete a tag; events on both event names after each write', async () => {
    const base = await k.listen();
    const socket = await k.socket(A.admin.token, base);
    const cid = A.companyId;
    const dashless: { action: string; tag?: Record<string, unknown>; tagId?: number }[] = [];
    const dashed: typeof dashless = [];
    socket.on(`company${cid}-tag`, (e) => dashless.push(e));
    socket.on(`company-${cid}-tag`, (e) => dashed.push(e));
    try {
      const tag = await create(A.admin, { name: '  Cliente VIP ', color: '#FF0000', kanban: 0, userId: 999999 });
      expect(tag).toMatchObject({ name: 'Cliente VIP', color: '#FF0000', kanban: 0, companyId: cid, userId: A.admin.id });
      expect(typeof tag.createdAt).toBe('string');

      const got = await k.as(A.user, 'GET', `/tags/${tag.id}`);
      expect(got.statusCode).toBe(200);
      expect(got.json()).toEqual(tag);

      const put = await k.as(A.admin, 'PUT', `/tags/${tag.id}`, { name: 'Cliente Ouro', color: '#00FF00' });
      expect(put.statusCode).toBe(200);
      expect(put.json()).toMatchObject({ id: tag.id, name: 'Cliente Ouro', color: '#00FF00', kanban: 0, userId: A.admin.id });

      const res = await k.as(A.admin, 'DELETE', `/tags/${tag.id}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ message: 'Tag deleted' });
      const gone = await k.as(A.admin, 'GET', `/tags/${tag.id}`);
      expect(gone.statusCode).toBe(404);
      expect(gone.json().error).toBe('ERR_NO_TAG_FOUND');

      const expected = [
        { action: 'create', tag: expect.objectContaining({ id: tag.id, name: 'Cliente VIP' }) },
        { action: 'update', tag: expect.objectContaining({ id: tag.id, name: 'Cliente Ouro', color: '#00FF00' }) },
        { action: 'delete', tagId: tag.id },
      ];
      await waitFor(() => dashless.length >= 3 && dashed.length >= 3);
      expect(dashless).toEqual(expected);
      expect(dashed).toEqual(expected);
    } finally {
      socket.close();
    }
  });

  test('any user creates tags (ticket tag picker); only admins update or delete them', async () => {
    const tag = await create(A.user, { name: 'Criada por atendente' });
    expect(tag).toMatchObject({ userId: A.user.id, kanban: 0, color: '#A4CCCC' });
    for (const who of [A.user, A.supervisor]) {
      const put = await k.as(who, 'PUT', `/tags/${tag.id}`, { name: 'Outro nome' });
      expect(put.statusCode).toBe(403);
      expect(put.json().error).toBe('ERR_NO_PERMISSION');
      const del = await k.as(who, 'DELETE', `/tags/${tag.id}`);
      expect(del.statusCode).toBe(403);
      expect(del.json().error).toBe('ERR_NO_PERMISSION');
    }
    expect((await k.as(A.admin, 'GET', `/tags/${tag.id}`)).json().name).toBe('Criada por atendente');
    expect((await k.as(null, 'GET', '/tags')).statusCode).toBe(401);
  });

  test('validation: name 3..50 after trimming, hex colour, kanban 0|1; catalogue codes, never 500', async () => {
    const bad: [unknown, string][] = [
      [{ name: 'ab' }, 'ERR_VALIDATION'],
      [{ name: '   ab   ' }, 'ERR_VALIDATION'],
      [{ name: 'x'.repeat(51) }, 'ERR_VALIDATION'],
      [{}, 'ERR_VALIDATION'],
      [{ name: 'Valid name', color: 'red' }, 'ERR_VALIDATION'],
      [{ name: 'Valid name', color: '#12345' }, 'ERR_VALIDATION'],
      [{ name: 'Valid name', color: '#1234567890' }, 'ERR_VALIDATION'],
      [{ name: 'Valid name', kanban: 2 }, 'ERR_VALIDATION'],
      [{ name: 'Valid name', kanban: 'yes' }, 'ERR_VALIDATION'],
      [{ name: { nested: true } }, 'ERR_VALIDATION'],
    ];
    for (const [body, code] of bad) {
      const res = await k.as(A.admin, 'POST', '/tags', body);
      expect({ body, status: res.statusCode, code: res.json().error }).toEqual({ body, status: 400, code });
    }
    const short = await k.as(A.admin, 'POST', '/tags', { name: 'ab' });
    expect(short.json().message).toMatch(/Tag muito curta/);
    const notJson = await k.as(A.admin, 'POST', '/tags', '{"name":', { 'content-type': 'application/json' });
    expect(notJson.statusCode).toBe(400);
    expect(notJson.json().error).toBe('ERR_INVALID_JSON');
    for (const url of ['/tags/0', '/tags/-1', '/tags/abc', '/tags/99999999999', '/tags/1.5']) {
      const res = await k.as(A.admin, 'GET', url);
      expect({ url, status: res.statusCode, code: res.json().error }).toEqual({ url, status: 400, code: 'ERR_VALIDATION' });
    }
    for (const q of ['pageNumber=0', 'pageNumber=abc', 'kanban=2', 'offset=-1', `searchParam=${'x'.repeat(201)}`]) {
      const res = await k.as(A.admin, 'GET', `/tags?${q}`);
      expect({ q, status: res.statusCode, code: res.json().error }).toEqual({ q, status: 400, code: 'ERR_VALIDATION' });
    }
    const missing = await k.as(A.admin, 'PUT', '/tags/2147483647', { name: 'Whatever' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toBe('ERR_NO_TAG_FOUND');
    expect((await k.as(A.admin, 'DELETE', '/tags/2147483647')).json().error).toBe('ERR_NO_TAG_FOUND');
  });

  test('names are unique per company and kind, case-insensitively (409 ERR_DUPLICATED_NAME)', async () => {
    const t = await create(A.admin, { name: 'Duplicada' });
    const dup = await k.as(A.admin, 'POST', '/tags', { name: 'DUPLICADA' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error).toBe('ERR_DUPLICATED_NAME');
    const lane = await create(A.admin, { name: 'duplicada', kanban: true });
    expect(lane.kanban).toBe(1);
    const other = await create(A.admin, { name: 'Outra duplicada' });
    const clash = await k.as(A.admin, 'PUT', `/tags/${other.id}`, { name: 'duplicada' });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().error).toBe('ERR_DUPLICATED_NAME');
    // Same name in another company is fine.
    await create(B.admin, { name: 'Duplicada' });
    // Racing creates of one name: exactly one wins, the others get 409 (never 500).
    const race = await Promise.all(Array.from({ length: 8 }, () => k.as(A.admin, 'POST', '/tags', { name: 'Corrida' })));
    expect(race.map((r) => r.statusCode).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    expect(t.id).toBeGreaterThan(0);
  });

  test('GET /tags pages by 20 ordered by name, with searchParam, offset and kind filters and counts', async () => {
    const c = await k.createCompany();
    for (let i = 0; i < 25; i++) await create(c.admin, { name: `Etiqueta ${String(i).padStart(2, '0')}` });
    await create(c.admin, { name: 'Raia', kanban: 1 });
    const p1 = (await k.as(c.admin, 'GET', '/tags/?pageNumber=1')).json();
    expect(p1.tags).toHaveLength(20);
    expect(p1.count).toBe(26);
    expect(p1.hasMore).toBe(true);
    expect(p1.tags[0]).toMatchObject({ name: 'Etiqueta 00', contactsCount: 0, ticketsCount: 0 });
    const p2 = (await k.as(c.admin, 'GET', '/tags?pageNumber=2')).json();
    expect(p2.tags.map((t: { name: string }) => t.name)).toEqual(['Etiqueta 20', 'Etiqueta 21', 'Etiqueta 22', 'Etiqueta 23', 'Etiqueta 24', 'Raia']);
    expect(p2.hasMore).toBe(false);
    const byOffset = (await k.as(c.admin, 'GET', '/tags?offset=24')).json();
    expect(byOffset.tags.map((t: { name: string }) => t.name)).toEqual(['Etiqueta 24', 'Raia']);
    const normal = (await k.as(c.admin, 'GET', '/tags?kanban=0&pageNumber=2')).json();
    expect(normal.count).toBe(25);
    expect(normal.tags).toHaveLength(5);
    const lanes = (await k.as(c.admin, 'GET', '/tags?kanban=1')).json();
    expect(lanes.tags.map((t: { name: string }) => t.name)).toEqual(['Raia']);
    const search = (await k.as(c.admin, 'GET', '/tags?searchParam=ETIQUETA%201')).json();
    expect(search.count).toBe(10);
    const pct = (await k.as(c.admin, 'GET', '/tags?searchParam=%25')).json();
    expect(pct.count).toBe(0);
    const list = (await k.as(c.admin, 'GET', '/tags/list?kanban=0')).json();
    expect(list).toHaveLength(25);
    expect(list[0]).toEqual(expect.objectContaining({ name: 'Etiqueta 00', kanban: 0 }));
    expect(list[0].contactsCount).toBeUndefined();
    expect((await k.as(c.admin, 'GET', '/tags/list')).json()).toHaveLength(26);
  });

  test('counters contributed to tags.counters fill the counts (open keys too); missing counters give 0; a key is taken once', async () => {
    const c = await k.createCompany();
    const t1 = await create(c.admin, { name: 'Contada' });
    const t2 = await create(c.admin, { name: 'Não contada' });
    counted.ticketCounts.set(t1.id, 7);
    counted.seen.length = 0;
    const body = (await k.as(c.admin, 'GET', '/tags')).json();
    expect(body.tags).toEqual([
      expect.objectContaining({ id: t1.id, ticketsCount: 7, contactsCount: 0, campaignsCount: 2 }),
      expect.objectContaining({ id: t2.id, ticketsCount: 0, contactsCount: 0, campaignsCount: 2 }),
    ]);
    expect(counted.seen).toEqual([[c.companyId, [t1.id, t2.id]]]);
    expect(String(counted.duplicate)).toMatch(/ticketsCount is already registered/);
  });

  test('a malformed counter key is refused at boot', async () => {
    const bad = definePlugin({ id: 'bad-counter', dependsOn: ['tags'], register: (ctx) => ctx.extensions.contribute(tagCounters, { key: 'name', count: async () => new Map() }) });
    await expect(createTestKernel({ plugins: [tagsPlugin, bad] })).rejects.toThrow(/camelCase key ending in "Count"/);
  });

  test('service: getMany and assertAll are scoped to the company', async () => {
    const svc = k.services.get(tagsService);
    const a = await create(A.admin, { name: 'Serviço A' });
    const b = await create(B.admin, { name: 'Serviço B' });
    expect((await svc.getMany(A.companyId, [a.id, b.id, 0, -3])).map((t) => t.id)).toEqual([a.id]);
    await expect(svc.assertAll(A.companyId, [a.id])).resolves.toBeUndefined();
    await expect(svc.assertAll(A.companyId, [])).resolves.toBeUndefined();
    await expect(svc.assertAll(A.companyId, [a.id, b.id])).rejects.toMatchObject({ code: 'ERR_NO_TAG_FOUND', statusCode: 404 });
    await expect(svc.assertAll(A.companyId, [Number.NaN])).rejects.toMatchObject({ code: 'ERR_NO_TAG_FOUND' });
    await k.db.transaction(async (trx) => {
      await expect(svc.assertAll(B.companyId, [b.id], trx)).resolves.toBeUndefined();
    });
  });

  test('kanban tags need the plan feature useKanban', async () => {
    const lane1 = await create(A.admin, { name: 'Lane one', color: '#111111', kanban: 1 });
    const lane2 = await create(A.admin, { name: 'A lane two', color: '#222222', kanban: 1 });
    const lista = (await k.as(A.user, 'GET', '/tags/kanban')).json().lista;
    const ids = lista.map((t: { id: number }) => t.id);
    expect(ids).toEqual([...ids].sort((x: number, y: number) => x - y));
    expect(ids).toEqual(expect.arrayContaining([lane1.id, lane2.id]));
    expect(lista.every((t: { kanban: number; companyId: number }) => t.kanban === 1 && t.companyId === A.companyId)).toBe(true);

    const n = noKanban;
    const refused = [
      await k.as(n.admin, 'GET', '/tags/kanban'),
      await k.as(n.admin, 'POST', '/tags', { name: 'Lane', kanban: 1 }),
      await k.as(n.admin, 'POST', '/tags', { name: 'Lane', kanban: true }),
      await k.as(n.admin, 'GET', '/tags?kanban=1'),
      await k.as(n.admin, 'GET', '/tags/list?kanban=1'),
    ];
    for (const r of refused) {
      expect(r.statusCode).toBe(403);
      expect(r.json().error).toBe('ERR_FEATURE_NOT_IN_PLAN');
    }
    const normal = await create(n.admin, { name: 'Normal tag' });
    const toLane = await k.as(n.admin, 'PUT', `/tags/${normal.id}`, { kanban: 1 });
    expect(toLane.statusCode).toBe(403);
    expect(toLane.json().error).toBe('ERR_FEATURE_NOT_IN_PLAN');
    expect((await k.as(n.admin, 'GET', `/tags/${normal.id}`)).json().kanban).toBe(0);
    expect((await k.as(n.admin, 'GET', '/tags?kanban=0')).json().count).toBe(1);
    expect(await k.db('tags').where({ companyId: n.companyId, kanban: 1 }).count({ c: '*' }).first()).toEqual({ c: 0 });
  });

  test("cross-tenant: company B never reads or changes company A's tags", async () => {
    const tag = await create(A.admin, { name: 'Segredo de A' });
    const lane = await create(A.admin, { name: 'Raia de A', kanban: 1 });
    for (const [method, url, body] of [
      ['GET', `/tags/${tag.id}`, undefined],
      ['PUT', `/tags/${tag.id}`, { name: 'Roubada' }],
      ['DELETE', `/tags/${tag.id}`, undefined],
      ['PUT', `/tags/${lane.id}`, { color: '#000000' }],
    ] as const) {
      const res = await k.as(B.admin, method, url, body);
      expect({ method, url, status: res.statusCode, code: res.json().error }).toEqual({ method, url, status: 404, code: 'ERR_NO_TAG_FOUND' });
    }
    const lists = [
      (await k.as(B.admin, 'GET', '/tags?searchParam=de%20A')).json().tags,
      await (await k.as(B.admin, 'GET', '/tags/list')).json(),
      (await k.as(B.user, 'GET', '/tags/kanban')).json().lista,
    ];
    for (const list of lists) {
      expect(list.some((t: { companyId: number }) => t.companyId !== B.companyId)).toBe(false);
    }
    expect((await k.as(A.admin, 'GET', `/tags/${tag.id}`)).json().name).toBe('Segredo de A');
  });

  test('B does not receive A\'s tag events', async () => {
    const base = await k.listen();
    const sb = await k.socket(B.admin.token, base);
    try {
      const got = collectEvents(sb, `company${A.companyId}-tag`, 400);
      const got2 = collectEvents(sb, `company-${A.companyId}-tag`, 400);
      await create(A.admin, { name: 'Evento privado' });
      expect(await got).toEqual([]);
      expect(await got2).toEqual([]);
    } finally {
      sb.close();
    }
  });
});
