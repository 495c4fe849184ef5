import type { TestKernel } from '@atendo/testing';
import { createAgent, createContact, createTag, createTenant, eventsMatching, insertTicket, ticketsKernel, type Tenant } from './helpers';

/** Ticket notes, the ticket log route and ticket tags (spec 2-tickets.md §3, §4 "Kanban drag", §5, §7). */
describe('tickets: notes, log and ticket tags', () => {
  let k: TestKernel;
  let A: Tenant;
  let B: Tenant;

  /** A pending ticket of A in queue A for a fresh contact. */
  const ticketA = async () => {
    const c = await createContact(k, A.companyId, { name: 'João Pereira' });
    const t = await insertTicket(k, A.companyId, { contactId: c.id, whatsappId: A.conn.id, queueId: A.queueA.id });
    return { t, c };
  };

  beforeAll(async () => {
    k = await ticketsKernel();
    A = await createTenant(k);
    B = await createTenant(k);
  });
  afterAll(() => k.close());

  describe('notes', () => {
    test('create, list (newest first, with author) and delete by the author', async () => {
      const { t, c } = await ticketA();
      const first = await k.as(A.userA, 'POST', '/ticket-notes', { note: '  Cliente pediu retorno  ', ticketId: t.id, contactId: c.id });
      expect(first.statusCode).toBe(200);
      expect(first.json()).toEqual({ id: expect.any(Number), note: 'Cliente pediu retorno', createdAt: expect.any(String), user: { id: A.userA.id, name: A.userA.name }, ticketId: t.id, contactId: c.id });
      const second = await k.as(A.admin, 'POST', '/ticket-notes', { note: 'ok', ticketId: t.id, contactId: c.id });
      expect(second.statusCode).toBe(200);

      const list = await k.as(A.userA, 'GET', `/ticket-notes/list?ticketId=${t.id}&contactId=${c.id}`);
      expect(list.statusCode).toBe(200);
      expect(list.json().map((n: { id: number }) => n.id)).toEqual([second.json().id, first.json().id]);
      expect(list.json()[0].user).toEqual({ id: A.admin.id, name: 'Test User' });
      const onlyTicket = await k.as(A.userA, 'GET', `/ticket-notes/list?ticketId=${t.id}`);
      expect(onlyTicket.json()).toHaveLength(2);

      const del = await k.as(A.userA, 'DELETE', `/ticket-notes/${first.json().id}`);
      expect(del.statusCode).toBe(200);
      expect(del.json()).toEqual({ message: 'Note deleted' });
      expect(await k.db('ticketNotes').where({ ticketId: t.id })).toHaveLength(1);
      expect((await k.as(A.userA, 'DELETE', `/ticket-notes/${first.json().id}`)).statusCode).toBe(404);
    });

    test("only the author or an admin deletes a note", async () => {
      const { t, c } = await ticketA();
      const other = await createAgent(k, A.companyId, { queueIds: [A.queueA.id] });
      const note = (await k.as(A.userA, 'POST', '/ticket-notes', { note: 'nota do A', ticketId: t.id, contactId: c.id })).json();
      const refused = await k.as(other, 'DELETE', `/ticket-notes/${note.id}`);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error).toBe('ERR_NO_PERMISSION');
      expect(await k.db('ticketNotes').where({ id: note.id })).toHaveLength(1);
      expect((await k.as(A.admin, 'DELETE', `/ticket-notes/${note.id}`)).statusCode).toBe(200);
      expect(await k.db('ticketNotes').where({ id: note.id })).toHaveLength(0);
    });

    test('bad input: too short, too long, wrong contact, bad ids -> 400 ERR_VALIDATION; unknown ticket 404', async () => {
      const { t, c } = await ticketA();
      const other = await createContact(k, A.companyId);
      for (const body of [
        { note: 'a', ticketId: t.id, contactId: c.id },
        { note: '   a   ', ticketId: t.id, contactId: c.id },
        { note: 'x'.repeat(5001), ticketId: t.id, contactId: c.id },
        { note: 'valid note', ticketId: t.id, contactId: other.id },
        { note: 'valid note', ticketId: 'abc', contactId: c.id },
        { note: 'valid note', ticketId: -1, contactId: c.id },
        { note: 12345, ticketId: t.id },
        { ticketId: t.id, contactId: c.id },
      ]) {
        const res = await k.as(A.admin, 'POST', '/ticket-notes', body);
        expect(res.statusCode).toBe(400);
        expect(res.json().error).toBe('ERR_VALIDATION');
      }
      expect((await k.as(A.admin, 'POST', '/ticket-notes', { note: 'x'.repeat(5000), ticketId: t.id, contactId: c.id })).statusCode).toBe(200);
      const missing = await k.as(A.admin, 'POST', '/ticket-notes', { note: 'valid', ticketId: 2147483000, contactId: c.id });
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error).toBe('ERR_NO_TICKET_FOUND');
      for (const qs of ['', 'ticketId=abc', 'ticketId=0', 'ticketId=99999999999', `ticketId=${t.id}&contactId=-2`]) {
        const res = await k.as(A.admin, 'GET', `/ticket-notes/list?${qs}`);
        expect(res.statusCode).toBe(400);
        expect(res.json().error).toBe('ERR_VALIDATION');
      }
      expect((await k.as(A.admin, 'DELETE', '/ticket-notes/abc')).statusCode).toBe(400);
    });

    test('a user who cannot see the ticket gets 403; another company gets 404 and no data', async () => {
      const { t, c } = await ticketA();
      const note = (await k.as(A.userA, 'POST', '/ticket-notes', { note: 'segredo', ticketId: t.id, contactId: c.id })).json();
      const hiddenPost = await k.as(A.userB, 'POST', '/ticket-notes', { note: 'intruso', ticketId: t.id, contactId: c.id });
      expect(hiddenPost.statusCode).toBe(403);
      const hiddenList = await k.as(A.userB, 'GET', `/ticket-notes/list?ticketId=${t.id}&contactId=${c.id}`);
      expect(hiddenList.statusCode).toBe(403);
      expect(hiddenList.json()).toEqual({ error: 'ERR_NO_PERMISSION', message: expect.any(String) });

      const post = await k.as(B.admin, 'POST', '/ticket-notes', { note: 'intruso', ticketId: t.id, contactId: c.id });
      expect(post.statusCode).toBe(404);
      const list = await k.as(B.admin, 'GET', `/ticket-notes/list?ticketId=${t.id}&contactId=${c.id}`);
      expect(list.statusCode).toBe(404);
      expect(list.json()).toEqual({ error: 'ERR_NO_TICKET_FOUND', message: expect.any(String) });
      const del = await k.as(B.admin, 'DELETE', `/ticket-notes/${note.id}`);
      expect(del.statusCode).toBe(404);
      expect(del.json()).toEqual({ error: 'ERR_NO_NOTE_FOUND', message: expect.any(String) });
      expect(await k.db('ticketNotes').where({ ticketId: t.id }).select('note')).toEqual([{ note: 'segredo' }]);
    });
  });

  describe('GET /tickets-log/:id', () => {
    test('entries with user and queue; 403 for a user who cannot see the ticket; 404 across companies; 400 for bad ids', async () => {
      const { t } = await ticketA();
      const ok = await k.as(A.userA, 'PUT', `/tickets/${t.id}`, { status: 'open', userId: A.userA.id });
      expect(ok.statusCode).toBe(200);
      const res = await k.as(A.userA, 'GET', `/tickets-log/${t.id}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual([{ id: expect.any(Number), type: 'open', createdAt: expect.any(String), user: { id: A.userA.id, name: A.userA.name }, queue: { id: A.queueA.id, name: A.queueA.name, color: A.queueA.color } }]);
      const hidden = await k.as(A.userB, 'GET', `/tickets-log/${t.id}`);
      expect(hidden.statusCode).toBe(403);
      const foreign = await k.as(B.admin, 'GET', `/tickets-log/${t.id}`);
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json()).toEqual({ error: 'ERR_NO_TICKET_FOUND', message: expect.any(String) });
      for (const id of ['0', 'x', '-3', '99999999999']) expect((await k.as(A.admin, 'GET', `/tickets-log/${id}`)).statusCode).toBe(400);
    });
  });

  describe('ticket tags', () => {
    test('PUT links (idempotent) and emits the ticket update; DELETE one; DELETE all (kanban move); ticketsCount', async () => {
      const base = await k.listen();
      const { t } = await ticketA();
      const lane1 = await createTag(k, A.companyId, { kanban: 1, name: 'Lane One' });
      const lane2 = await createTag(k, A.companyId, { kanban: 1, name: 'Lane Two' });
      const s = await k.socket(A.userA.token, base);
      try {
        const ev = `company-${A.companyId}-ticket`;
        const [events, res] = await Promise.all([
          eventsMatching(s, ev, (p: { action: string; ticketId?: number }) => p.action === 'update' && p.ticketId === t.id),
          k.as(A.userA, 'PUT', `/ticket-tags/${t.id}/${lane1.id}`),
        ]);
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({ ticketId: t.id, tagId: lane1.id });
        expect(events).toHaveLength(1);
        expect((events[0] as unknown as { ticket: { tags: unknown[] } }).ticket.tags).toEqual([{ id: lane1.id, name: 'Lane One', color: lane1.color }]);
      } finally {
        s.close();
      }
      expect((await k.as(A.userA, 'PUT', `/ticket-tags/${t.id}/${lane1.id}`)).statusCode).toBe(200);
      expect((await k.as(A.userA, 'PUT', `/ticket-tags/${t.id}/${lane2.id}`)).statusCode).toBe(200);
      expect((await k.db('ticketTags').where({ ticketId: t.id }).orderBy('tagId')).map((r) => r.tagId)).toEqual([lane1.id, lane2.id]);
      const shown = await k.as(A.userA, 'GET', `/tickets/${t.id}`);
      expect(shown.json().tags.map((x: { id: number }) => x.id).sort()).toEqual([lane1.id, lane2.id].sort());

      const tags = await k.as(A.admin, 'GET', '/tags?kanban=1&searchParam=Lane');
      expect(tags.statusCode).toBe(200);
      const counts = Object.fromEntries(tags.json().tags.map((x: { id: number; ticketsCount: number }) => [x.id, x.ticketsCount]));
      expect(counts).toEqual({ [lane1.id]: 1, [lane2.id]: 1 });

      const one = await k.as(A.userA, 'DELETE', `/ticket-tags/${t.id}/${lane2.id}`);
      expect(one.statusCode).toBe(200);
      expect(one.json()).toEqual({ message: 'Ticket tag removed', removed: 1 });
      const all = await k.as(A.userA, 'DELETE', `/ticket-tags/${t.id}`);
      expect(all.statusCode).toBe(200);
      expect(all.json()).toEqual({ message: 'Ticket tags removed', removed: 1 });
      expect(await k.db('ticketTags').where({ ticketId: t.id })).toHaveLength(0);
    });

    test("another company's tag: 404 ERR_NO_TAG_FOUND; bad ids: 400", async () => {
      const { t } = await ticketA();
      const foreignTag = await createTag(k, B.companyId);
      const res = await k.as(A.admin, 'PUT', `/ticket-tags/${t.id}/${foreignTag.id}`);
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toBe('ERR_NO_TAG_FOUND');
      expect(await k.db('ticketTags').where({ ticketId: t.id })).toHaveLength(0);
      for (const url of [`/ticket-tags/${t.id}/abc`, `/ticket-tags/0/1`, `/ticket-tags/${t.id}/-1`, `/ticket-tags/${t.id}/99999999999`]) {
        const r = await k.as(A.admin, 'PUT', url);
        expect(r.statusCode).toBe(400);
        expect(r.json().error).toBe('ERR_VALIDATION');
      }
      expect((await k.as(A.admin, 'DELETE', '/ticket-tags/abc')).statusCode).toBe(400);
    });

    test('a user who cannot see the ticket gets 403; another company gets 404 on every route and nothing changes', async () => {
      const { t } = await ticketA();
      const tag = await createTag(k, A.companyId);
      await k.db('ticketTags').insert({ ticketId: t.id, tagId: tag.id, companyId: A.companyId });
      const hidden = await k.as(A.userB, 'PUT', `/ticket-tags/${t.id}/${tag.id}`);
      expect(hidden.statusCode).toBe(403);
      expect((await k.as(A.userB, 'DELETE', `/ticket-tags/${t.id}`)).statusCode).toBe(403);
      const bTag = await createTag(k, B.companyId);
      for (const [method, url] of [
        ['PUT', `/ticket-tags/${t.id}/${bTag.id}`],
        ['PUT', `/ticket-tags/${t.id}/${tag.id}`],
        ['DELETE', `/ticket-tags/${t.id}/${tag.id}`],
        ['DELETE', `/ticket-tags/${t.id}`],
      ] as const) {
        const res = await k.as(B.admin, method, url);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ error: 'ERR_NO_TICKET_FOUND', message: expect.any(String) });
      }
      expect((await k.db('ticketTags').where({ ticketId: t.id })).map((r) => r.tagId)).toEqual([tag.id]);
    });
  });
});
