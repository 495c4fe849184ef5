import { randomBytes } from 'node:crypto';
import { createTestKernel, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import queuesPlugin from '@atendo/plugin-queues';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';
import connectionsPlugin from '@atendo/plugin-connections';
import ticketsPlugin from '@atendo/plugin-tickets';
import channelsPlugin from '@atendo/plugin-channels';
import { contactsService } from '@atendo/plugin-contacts/contract';
import messagesApi from '../src/index';
import { normaliseNumber, tokenFingerprint } from '../src/services/send';
import { Graph } from './graph';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const token = () => randomBytes(15).toString('hex').toUpperCase();

/** A multipart body by hand: text fields, then one file part. */
function multipart(fields: Record<string, string>, file?: { field: string; name: string; type: string; data: Buffer }) {
  const boundary = `----atendo${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  if (file) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`), file.data, Buffer.from('\r\n'));
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe('external messages API (POST /api/messages/send)', () => {
  let k: TestKernel;
  let graph: Graph;
  const co: Record<'A' | 'B' | 'C', { companyId: number; admin: TestUser; token: string; connectionId: number; phoneId: string }> = {} as never;

  const send = (tok: string | null, body: unknown, extra: { payload?: Buffer; headers?: Record<string, string> } = {}) =>
    k.app.inject({
      method: 'POST',
      url: '/api/messages/send',
      payload: (extra.payload ?? body) as never,
      headers: { ...(tok !== null ? { authorization: `Bearer ${tok}` } : {}), ...(extra.headers ?? { 'content-type': 'application/json' }) },
    });

  beforeAll(async () => {
    graph = new Graph();
    await graph.start();
    k = await createTestKernel({
      plugins: [queuesPlugin, tagsPlugin, contactsPlugin, connectionsPlugin, ticketsPlugin, channelsPlugin, messagesApi],
      env: { CHANNELS_META_APP_SECRET: randomBytes(8).toString('hex'), CHANNELS_META_VERIFY_TOKEN: 'v', CHANNELS_META_GRAPH_URL: graph.url, MESSAGES_API_RATE_LIMIT: '6' },
    });
    for (const [name, without] of [['A', []], ['B', ['useExternalApi']], ['C', []]] as const) {
      const c = await k.createCompany({ without: [...without] });
      const phoneId = String(2000000 + Math.floor(Math.random() * 1e6));
      const t = token();
      const res = await k.as(c.admin, 'POST', '/whatsapp', { name: `Cloud ${name}`, channel: 'whatsappapi', facebookPageUserId: phoneId, facebookUserToken: 'tok', token: t });
      if (res.statusCode !== 200) throw new Error(res.body);
      co[name] = { ...c, token: t, connectionId: res.json().id, phoneId };
    }
  });
  afterAll(async () => {
    await k.close();
    await graph.stop();
  });

  test('numbers are normalised with libphonenumber-js', () => {
    expect(normaliseNumber('+55 (11) 98765-4321')).toBe('5511987654321');
    expect(normaliseNumber('5511987654321')).toBe('5511987654321');
    expect(normaliseNumber('(11) 98765-4321')).toBe('5511987654321');
    expect(normaliseNumber('+1 415 555 2671')).toBe('14155552671');
    expect(() => normaliseNumber('123')).toThrow();
  });

  test('a text goes out through the Graph server into a ticket found or opened; signed with the user', async () => {
    const A = co.A;
    const res = await send(A.token, { number: '+55 (11) 98765-4321', body: 'Olá pela API' });
    expect(res.statusCode).toBe(200);
    const out = res.json();
    expect(out).toEqual({ message: 'Mensagem enviada com sucesso', messageId: expect.any(Number), ticketId: expect.any(Number), number: '5511987654321' });
    await waitFor(() => (graph.to('5511987654321').includes('Olá pela API') ? true : undefined), 10_000);
    const ticket = await k.db('tickets').where({ id: out.ticketId }).first();
    expect(ticket).toMatchObject({ companyId: A.companyId, whatsappId: A.connectionId, status: 'pending', userId: null });
    expect(await k.db('messages').where({ id: out.messageId }).first()).toMatchObject({ ticketId: out.ticketId, fromMe: true, body: 'Olá pela API' });

    // With a user and a queue: the same ticket, now open with them; the text signed.
    const queue = (await k.as(A.admin, 'POST', '/queue', { name: 'Vendas', color: '#abcdef' })).json();
    const agent = await k.createUser(A.companyId, { profile: 'user', name: 'Ana' });
    const signed = await send(A.token, { number: '5511987654321', body: 'Segunda', userId: agent.id, queueId: String(queue.id), sendSignature: true });
    expect(signed.statusCode).toBe(200);
    expect(signed.json().ticketId).toBe(out.ticketId);
    expect(await k.db('tickets').where({ id: out.ticketId }).first()).toMatchObject({ status: 'open', userId: agent.id, queueId: queue.id });
    await waitFor(() => (graph.to('5511987654321').includes('*Ana:*\nSegunda') ? true : undefined), 10_000);
  });

  test("sending to a contact the tenant saved keeps its name (a new number is named by its number)", async () => {
    const c = await k.createCompany();
    const C = { ...c, token: token() };
    const conn = await k.as(C.admin, 'POST', '/whatsapp', { name: 'Cloud D', channel: 'whatsappapi', facebookPageUserId: String(3000000 + Math.floor(Math.random() * 1e6)), facebookUserToken: 'tok', token: C.token });
    expect(conn.statusCode).toBe(200);
    const saved = await k.as(C.admin, 'POST', '/contacts', { name: 'Helena Manual', number: '5511976540001' });
    expect(saved.statusCode).toBe(200);
    const res = await send(C.token, { number: '+55 11 97654-0001', body: 'Olá Helena' });
    expect(res.statusCode).toBe(200);
    expect((await k.db('tickets').where({ id: res.json().ticketId }).first()).contactId).toBe(saved.json().id);
    expect((await k.db('contacts').where({ id: saved.json().id }).first()).name).toBe('Helena Manual');
    const fresh = await send(C.token, { number: '5511976540002', body: 'Olá' });
    expect(fresh.statusCode).toBe(200);
    expect((await k.db('contacts').where({ companyId: C.companyId, number: '5511976540002' }).first()).name).toBe('5511976540002');
  });

  test('a media file (multipart "medias") goes out with the body as caption; bad types refused', async () => {
    const A = co.A;
    const m = multipart({ number: '5511912340000', body: 'Segue a foto' }, { field: 'medias', name: 'foto.png', type: 'image/png', data: PNG });
    const res = await send(A.token, undefined, m);
    expect(res.statusCode).toBe(200);
    const msg = await k.db('messages').where({ id: res.json().messageId }).first();
    expect(msg).toMatchObject({ mediaType: 'image', body: 'Segue a foto' });
    const sent = await waitFor(() => graph.sent.find((s) => s.to === '5511912340000'), 10_000);
    expect(sent!.type).toBe('image');
    const bad = multipart({ number: '5511912340000', body: 'x' }, { field: 'medias', name: 'x.png', type: 'image/png', data: Buffer.from('MZ\x90\x00 not an image') });
    expect((await send(A.token, undefined, bad)).json().error).toBe('ERR_UPLOAD_TYPE');
  });

  test('401 for a missing or wrong token, 403 without useExternalApi, 404 for another company\'s user or queue', async () => {
    expect((await send(null, { number: '5511987654321', body: 'x' })).statusCode).toBe(401);
    const wrong = await send(token(), { number: '5511987654321', body: 'x' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error).toBe('ERR_INVALID_API_TOKEN');
    const noPlan = await send(co.B.token, { number: '5511987654321', body: 'x' });
    expect(noPlan.statusCode).toBe(403);
    expect(noPlan.json().error).toBe('ERR_FEATURE_NOT_IN_PLAN');
    // C's token naming A's user or queue: unknown to C; A's ticket is untouched.
    const aTicket = await k.db('tickets').where({ companyId: co.A.companyId }).orderBy('id').first();
    const aQueue = await k.db('queues').where({ companyId: co.A.companyId }).first();
    expect((await send(co.C.token, { number: '5511987654321', body: 'x', userId: co.A.admin.id })).json().error).toBe('ERR_NO_USER_FOUND');
    expect((await send(co.C.token, { number: '5511987654321', body: 'x', queueId: aQueue.id })).json().error).toBe('ERR_NO_QUEUE_FOUND');
    const cSend = (await send(co.C.token, { number: '5511987654321', body: 'de C' })).json();
    expect(cSend.ticketId).not.toBe(aTicket.id);
    expect(await k.db('tickets').where({ id: cSend.ticketId }).first()).toMatchObject({ companyId: co.C.companyId, whatsappId: co.C.connectionId });
    expect((await send(co.C.token, { number: 'abc', body: 'x' })).json().error).toBe('ERR_INVALID_NUMBER');
  });

  test('a company past its due date gets 403 ERR_SUBSCRIPTION_EXPIRED until renewed', async () => {
    const c = await k.createCompany();
    const t = token();
    const res = await k.as(c.admin, 'POST', '/whatsapp', { name: 'Cloud D', channel: 'whatsappapi', facebookPageUserId: String(3000000 + Math.floor(Math.random() * 1e6)), facebookUserToken: 'tok', token: t });
    expect(res.statusCode).toBe(200);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await k.db('companies').where({ id: c.companyId }).update({ dueDate: yesterday });
    const refused = await send(t, { number: '5511987650000', body: 'x' });
    expect({ status: refused.statusCode, error: refused.json().error }).toEqual({ status: 403, error: 'ERR_SUBSCRIPTION_EXPIRED' });
    await k.db('companies').where({ id: c.companyId }).update({ dueDate: new Date().toISOString().slice(0, 10) });
    expect((await send(t, { number: '5511987650000', body: 'em dia' })).statusCode).toBe(200);
  });

  test('issue 34: a send marked bulk skips an opted-out contact (409 ERR_OPTED_OUT, nothing stored or sent); unmarked sends and other companies are not affected; every send audited with the token as actor', async () => {
    // A company of its own (the rate limit is per token).
    const mk = async () => {
      const c = await k.createCompany();
      const t = token();
      const res = await k.as(c.admin, 'POST', '/whatsapp', { name: 'Cloud Bulk', channel: 'whatsappapi', facebookPageUserId: String(4000000 + Math.floor(Math.random() * 1e6)), facebookUserToken: 'tok', token: t });
      expect(res.statusCode).toBe(200);
      return { ...c, token: t, connectionId: res.json().id as number };
    };
    const D = await mk();
    const E = await mk();
    const number = '5511987657777';
    const first = await send(D.token, { number, body: 'Promoção 1', bulk: true });
    expect(first.statusCode).toBe(200);
    const contact = await k.db('contacts').where({ companyId: D.companyId, number }).first();
    await k.services.get(contactsService).setOptOut!(D.companyId, contact.id, { keyword: 'SAIR' });
    const messages = async () => Number((await k.db('messages').where({ companyId: D.companyId, contactId: contact.id }).orWhere({ ticketId: first.json().ticketId }).count({ n: '*' }))[0].n);
    const before = await messages();
    const sentBefore = graph.to(number).length;

    const skipped = await send(D.token, { number: '+55 11 98765-7777', body: 'Promoção 2', bulk: true });
    expect({ status: skipped.statusCode, error: skipped.json().error }).toEqual({ status: 409, error: 'ERR_OPTED_OUT' });
    const media = multipart({ number, body: 'Promoção 3', bulk: 'true' }, { field: 'medias', name: 'p.png', type: 'image/png', data: PNG });
    const skippedMedia = await send(D.token, null, media);
    expect({ status: skippedMedia.statusCode, error: skippedMedia.json().error }).toEqual({ status: 409, error: 'ERR_OPTED_OUT' });
    expect(await messages()).toBe(before);
    // A conversational (unmarked) send still goes; another company's contact with that number is not opted out.
    expect((await send(D.token, { number, body: 'Seu pedido saiu para entrega' })).statusCode).toBe(200);
    expect((await send(D.token, { number, body: 'Seu pedido chegou', bulk: false })).statusCode).toBe(200);
    expect((await send(E.token, { number, body: 'Promoção de E', bulk: true })).statusCode).toBe(200);
    await waitFor(() => (graph.to(number).includes('Promoção de E') ? true : undefined), 10_000);
    expect(graph.to(number).filter((t) => /Promoção [23]/.test(t))).toEqual([]);
    expect(graph.to(number).length).toBeGreaterThanOrEqual(sentBefore + 3);

    // The audit log: one entry per send, the API token (connection and fingerprint) as actor, the address; never the token.
    const entries = await k.db('auditLogs').where({ companyId: D.companyId, entity: 'api-token', action: 'send' }).orderBy('id');
    expect(entries.map((e: { entityId: string; actorKind: string; userId: number | null; actorLabel: string; ip: string }) => [e.entityId, e.actorKind, e.userId, e.actorLabel, e.ip])).toEqual(
      Array(3).fill([String(D.connectionId), 'api', null, `#${D.connectionId} · ${tokenFingerprint(D.token)}`, '127.0.0.1']),
    );
    expect(entries.map((e: { after: { bulk: boolean } }) => e.after.bulk)).toEqual([true, false, false]);
    expect(entries[0].after).toMatchObject({ messageId: first.json().messageId, ticketId: first.json().ticketId });
    expect(JSON.stringify(entries)).not.toContain(D.token);
    expect(await k.db('auditLogs').where({ companyId: E.companyId, entity: 'api-token', action: 'send' }).count({ n: '*' })).toEqual([{ n: 1 }]);
  });

  test('rate limited per token (MESSAGES_API_RATE_LIMIT a minute)', async () => {
    const t = token();
    const codes: number[] = [];
    for (let i = 0; i < 7; i++) codes.push((await send(t, { number: '5511987654321', body: 'x' })).statusCode);
    expect(codes).toEqual([401, 401, 401, 401, 401, 401, 429]);
    expect((await send(token(), { number: '5511987654321', body: 'x' })).statusCode).toBe(401);
  });

  test('documented in the OpenAPI document', async () => {
    const doc = k.app.swagger() as { paths: Record<string, Record<string, { security?: unknown; requestBody?: { content: Record<string, unknown> } }>> };
    const op = doc.paths['/api/messages/send'].post;
    expect(op.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(op.requestBody!.content)).toEqual(expect.arrayContaining(['application/json']));
  });
});
