import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor, type TestKernel } from '@atendo/testing';
import { PERSONAL_VALUE } from '@atendo/sdk';
import compliance from '../src/index';
import { bootKernel, Graph, Tenant } from './harness';

/** Issue 34 item 1: the audit log (append-only, tenant-scoped, one entry per audited action with its actor). */
describe('compliance: audit log', () => {
  const graph = new Graph();
  let k: TestKernel;
  let A: Tenant;
  let B: Tenant;

  beforeAll(async () => {
    await graph.start();
    k = await bootKernel(graph);
    A = await Tenant.create(k, ['34001']);
    B = await Tenant.create(k, ['34002']);
  });
  afterAll(async () => {
    await k?.close();
    await graph.stop();
  });

  const log = async (who: Tenant, query: string) => {
    const res = await k.as(who.admin, 'GET', `/audit-logs?${query}`);
    expect(res.statusCode).toBe(200);
    return res.json() as { records: { action: string; userId: number | null; userName: string | null; entity: string; entityId: string; before: Record<string, unknown> | null; after: Record<string, unknown> | null; ip: string | null; companyId: number }[]; count: number; hasMore: boolean };
  };

  test('ticket accept, transfer, close, reopen and delete: one entry each, with the acting user and address', async () => {
    const other = await k.createUser(A.companyId, { profile: 'user', name: 'Outra Atendente' });
    const queue = await A.api('POST', '/queue', { name: 'Fila Tickets', color: '#00aa00' });
    const contact = await A.writesIn('34001', 'Cliente Auditado');
    const ticket = await k.db('tickets').where({ companyId: A.companyId, contactId: contact.id }).first();
    expect(ticket.status).toBe('pending');
    await A.api('PUT', `/tickets/${ticket.id}`, { status: 'open', userId: A.admin.id, queueId: queue.id });
    await A.api('PUT', `/tickets/${ticket.id}`, { userId: other.id, queueId: queue.id });
    // Messages edited and deleted: recorded without their text (personal data).
    const sent = await A.api('POST', `/messages/${ticket.id}`, { body: 'Texto original da atendente' }, other);
    const mine = await k.db('messages').where({ ticketId: ticket.id, fromMe: true }).orderBy('id', 'desc').first();
    expect(sent === undefined || typeof sent === 'object').toBe(true);
    await A.api('PUT', `/messages/${mine.id}`, { body: 'Texto corrigido' }, other);
    await A.api('DELETE', `/messages/${mine.id}`, undefined, other);
    const msgLog = await log(A, `entity=message&entityId=${mine.id}`);
    expect(msgLog.records.map((r) => [r.action, r.userId])).toEqual([['delete', other.id], ['edit', other.id]]);
    expect(JSON.stringify(msgLog)).not.toMatch(/Texto/);
    await A.api('PUT', `/tickets/${ticket.id}`, { status: 'closed' });
    await A.api('PUT', `/tickets/${ticket.id}`, { status: 'open', userId: A.admin.id, queueId: queue.id });
    await A.api('DELETE', `/tickets/${ticket.id}`);

    const page = await log(A, `entity=ticket&entityId=${ticket.id}`);
    expect(page.records.map((r) => r.action)).toEqual(['delete', 'reopen', 'close', 'transfer', 'accept']);
    for (const r of page.records) expect(r).toMatchObject({ userId: A.admin.id, userName: expect.any(String), companyId: A.companyId, ip: '127.0.0.1' });
    expect(page.records[3]).toMatchObject({ before: { userId: A.admin.id }, after: { userId: other.id } });
    expect(page.records[4]).toMatchObject({ before: { status: 'pending' }, after: { status: 'open', queueId: queue.id } });
    // Filters: by user, by time window.
    expect((await log(A, `userId=${other.id}`)).records.map((r) => r.entity)).toEqual(['message', 'message']);
    expect((await log(A, `entity=ticket&from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).count).toBe(0);
    expect((await log(A, `entity=ticket&to=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).count).toBe(5);
  });

  test('contacts (edit, block), users, queues, connections, settings, campaigns-free plans and companies are recorded; contact values never', async () => {
    const c = await A.contact('Maria Pessoal', '5531999990001');
    await A.api('PUT', `/contacts/${c.id}`, { name: 'Maria Renomeada', number: '5531999990001' });
    await A.api('PUT', `/contacts/block/${c.id}`, { active: false });
    const contactLog = await log(A, `entity=contact&entityId=${c.id}`);
    expect(contactLog.records.map((r) => r.action)).toEqual(['block', 'update']);
    expect(contactLog.records[1]).toMatchObject({ before: { name: PERSONAL_VALUE }, after: { name: PERSONAL_VALUE }, userId: A.admin.id });
    expect(JSON.stringify(contactLog)).not.toMatch(/Maria/);

    const q = await A.api('POST', '/queue', { name: 'Fila Auditada', color: '#123456' });
    await k.as(A.admin, 'PUT', `/queue/${q.id}`, { name: 'Fila Renomeada', color: '#123456' });
    const queueLog = await log(A, `entity=queue&entityId=${q.id}`);
    expect(queueLog.records.map((r) => r.action)).toEqual(['update', 'create']);
    expect(queueLog.records[0]).toMatchObject({ before: { name: 'Fila Auditada' }, after: { name: 'Fila Renomeada' } });

    await A.api('PUT', `/whatsapp/${A.connections[0].id}`, { name: 'Cloud renomeada' });
    expect((await log(A, `entity=connection&entityId=${A.connections[0].id}`)).records.map((r) => r.action)).toEqual(['update', 'create']);

    const u = await A.api('POST', '/users', { name: 'Novo Usuário', email: `novo-${Date.now()}@example.com`, password: 'senha-forte-123', profile: 'user' });
    await A.api('PUT', `/users/${u.id}`, { profile: 'supervisor' });
    const userLog = await log(A, `entity=user&entityId=${u.id}`);
    expect(userLog.records.map((r) => r.action)).toEqual(['update', 'create']);
    expect(userLog.records[0]).toMatchObject({ before: { profile: 'user' }, after: { profile: 'supervisor' } });
    expect(JSON.stringify(userLog)).not.toMatch(/senha|passwordHash/);

    await A.api('PUT', '/companySettings', { column: 'lgpdHideNumber', data: 'enabled' });
    expect((await log(A, 'entity=setting&entityId=lgpdHideNumber')).records[0]).toMatchObject({ action: 'update', before: { value: 'disabled' }, after: { value: 'enabled' } });

    // Super-only entities: the plan and the company, seen by the super admin.
    const plan = await k.as(k.superAdmin, 'POST', '/plans', { name: `Plano Auditado ${Date.now()}`, users: 3, connections: 1, queues: 1, amount: '10' });
    expect(plan.statusCode).toBe(201);
    const superLog = (await k.as(k.superAdmin, 'GET', `/audit-logs?entity=plan&entityId=${plan.json().id}`)).json();
    expect(superLog.records).toEqual([expect.objectContaining({ action: 'create', userId: k.superAdmin.id, companyId: 1 })]);
  });

  const fingerprint = (token: string) => createHash('sha256').update(token).digest('hex').slice(0, 8);
  const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
  /** A multipart body with one file part `field`. */
  const multipart = (field: string, name: string, type: string, data: Buffer) => {
    const boundary = `----audit${randomBytes(6).toString('hex')}`;
    const payload = Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${name}"\r\nContent-Type: ${type}\r\n\r\n`), data, Buffer.from(`\r\n--${boundary}--\r\n`)]);
    return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
  };

  test('API tokens: created with a connection, revoked and created again when replaced, revoked with the connection; fingerprints only; another company sees none', async () => {
    const t1 = `TOK${randomBytes(12).toString('hex').toUpperCase()}`;
    const t2 = `TOK${randomBytes(12).toString('hex').toUpperCase()}`;
    const conn = await A.api('POST', '/whatsapp', { name: 'Cloud do token', channel: 'whatsappapi', facebookPageUserId: '34009', facebookUserToken: 'tok', token: t1 });
    await A.api('PUT', `/whatsapp/${conn.id}`, { token: t2 });
    await A.api('PUT', `/whatsapp/${conn.id}`, { name: 'Cloud do token 2' }); // the token kept: no entry
    await A.api('DELETE', `/whatsapp/${conn.id}`);
    const page = await log(A, `entity=api-token&entityId=${conn.id}`);
    expect(page.records.map((r) => [r.action, (r.before ?? r.after)?.fingerprint, r.userId])).toEqual([
      ['revoke', fingerprint(t2), A.admin.id],
      ['create', fingerprint(t2), A.admin.id],
      ['revoke', fingerprint(t1), A.admin.id],
      ['create', fingerprint(t1), A.admin.id],
    ]);
    expect(JSON.stringify(await k.db('auditLogs').where({ companyId: A.companyId }))).not.toMatch(new RegExp(`${t1}|${t2}`));
    expect((await log(B, `entity=api-token&entityId=${conn.id}`)).count).toBe(0);
    // The greeting media of a connection is a change of the connection.
    const media = multipart('file', 'ola.png', 'image/png', PNG);
    expect((await k.as(A.admin, 'POST', `/whatsapp/${A.connections[0].id}/media-upload`, media.payload, media.headers)).statusCode).toBe(200);
    expect((await log(A, `entity=connection&entityId=${A.connections[0].id}`)).records[0]).toMatchObject({ action: 'update', after: { greetingMediaAttachment: expect.any(String) }, userId: A.admin.id });
  });

  test('tickets closed all at once: one close entry per ticket with the acting admin', async () => {
    const c1 = await A.writesIn('34001', 'Fechar Em Massa 1');
    const c2 = await A.writesIn('34001', 'Fechar Em Massa 2');
    const ids = (await k.db('tickets').where({ companyId: A.companyId }).whereIn('contactId', [c1.id, c2.id]).pluck('id')) as number[];
    const res = await A.api('POST', '/tickets/closeAll', {});
    expect(res.closed).toBeGreaterThanOrEqual(2);
    for (const id of ids) {
      expect((await log(A, `entity=ticket&entityId=${id}`)).records).toEqual([expect.objectContaining({ action: 'close', userId: A.admin.id, ip: '127.0.0.1', before: { status: 'pending' }, after: { status: 'closed', closeAll: true } })]);
    }
  });

  test("queues' chatbot options: create, update, delete recorded with the acting admin", async () => {
    const q = await A.api('POST', '/queue', { name: 'Fila do Menu', color: '#0a0a0a' });
    const opt = await A.api('POST', '/chatbot', { name: 'Financeiro', greetingMessage: 'Escolha', queueId: q.id });
    await A.api('PUT', `/chatbot/${opt.id}`, { name: 'Financeiro e boletos' });
    await A.api('DELETE', `/chatbot/${opt.id}`);
    const page = await log(A, `entity=chatbot&entityId=${opt.id}`);
    expect(page.records.map((r) => r.action)).toEqual(['delete', 'update', 'create']);
    expect(page.records[1]).toMatchObject({ before: { name: 'Financeiro' }, after: { name: 'Financeiro e boletos' }, userId: A.admin.id });
    expect(page.records[2]).toMatchObject({ after: { name: 'Financeiro', menuOfQueueId: q.id } });
    expect((await log(B, `entity=chatbot&entityId=${opt.id}`)).count).toBe(0);
  });

  test('campaigns (create, update, media, cancel, restart, delete) and the campaign settings are recorded', async () => {
    await A.api('POST', '/campaign-settings', { settings: { messageInterval: 3600, longerIntervalAfter: 0, greaterInterval: 0 } });
    expect((await log(A, 'entity=setting&entityId=campaigns')).records[0]).toMatchObject({ action: 'update', after: { messageInterval: 3600 }, userId: A.admin.id });
    const list = await A.api('POST', '/contact-lists', { name: 'Lista Auditada' });
    for (const n of ['5531988770001', '5531988770002']) await A.api('POST', '/contact-list-items', { name: `Pessoa ${n.slice(-1)}`, number: n, contactListId: list.id });
    const c = await A.api('POST', '/campaigns', { name: 'Campanha Auditada', contactListId: list.id, whatsappId: String(A.connections[0].id), message1: 'Oi {nome}' });
    await A.api('PUT', `/campaigns/${c.id}`, { name: 'Campanha Renomeada' });
    const media = multipart('file', 'oferta.png', 'image/png', PNG);
    expect((await k.as(A.admin, 'POST', `/campaigns/${c.id}/media-upload`, media.payload, media.headers)).statusCode).toBe(200);
    await A.api('DELETE', `/campaigns/${c.id}/media-upload`);
    await A.api('PUT', `/campaigns/${c.id}`, { scheduledAt: new Date(Date.now() - 1000).toISOString() });
    // Running: the first recipient went, the second waits an hour.
    await waitFor(async () => ((await A.api('GET', `/campaigns/${c.id}`)).status === 'EM_ANDAMENTO' ? true : undefined), 15_000, 100);
    await A.api('POST', `/campaigns/${c.id}/cancel`);
    await A.api('POST', `/campaigns/${c.id}/restart`);
    await A.api('POST', `/campaigns/${c.id}/cancel`);
    await A.api('DELETE', `/campaigns/${c.id}`);
    const page = await log(A, `entity=campaign&entityId=${c.id}`);
    expect(page.records.map((r) => r.action)).toEqual(['delete', 'cancel', 'restart', 'cancel', 'update', 'update', 'update', 'update', 'create']);
    for (const r of page.records) expect(r.userId).toBe(A.admin.id);
    expect(page.records[7]).toMatchObject({ before: { name: 'Campanha Auditada' }, after: { name: 'Campanha Renomeada' } });
    expect(page.records[6]).toMatchObject({ after: { mediaName: 'oferta.png' } });
    expect(page.records[5]).toMatchObject({ after: { mediaName: null } });
    expect((await log(B, `entity=campaign&entityId=${c.id}`)).count).toBe(0);
  });

  test('companies (create, update, opening hours, renew, delete) seen by the super admin; a user\'s picture; the company itself sees its own', async () => {
    const plan = await k.db('plans').orderBy('id').first('id');
    const su = (method: string, url: string, body?: unknown) => k.as(k.superAdmin, method, url, body);
    const created = await su('POST', '/companies', { name: `Empresa Auditada ${Date.now()}`, email: `dono-aud-${Date.now()}@example.com`, password: 'senha-123', planId: plan.id, phone: '5511999990000', dueDate: '2030-01-31', recurrence: 'MONTHLY' });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as number;
    expect((await su('PUT', `/companies/${id}`, { phone: '5511999990001' })).statusCode).toBe(200);
    const schedules = [{ weekday: 'Segunda-feira', weekdayEn: 'monday', startTime: '08:00', endTime: '18:00' }];
    expect((await su('PUT', `/companies/${id}/schedules`, { schedules })).statusCode).toBe(200);
    expect((await su('POST', `/companies/${id}/renew`)).statusCode).toBe(200);
    expect((await su('DELETE', `/companies/${id}`)).statusCode).toBe(200);
    const page = (await su('GET', `/audit-logs?entity=company&entityId=${id}`)).json();
    expect(page.records.map((r: { action: string }) => r.action)).toEqual(['delete', 'renew', 'update', 'update', 'create']);
    for (const r of page.records) expect(r).toMatchObject({ userId: k.superAdmin.id, companyId: id });
    expect(page.records[1]).toMatchObject({ before: { dueDate: '2030-01-31' }, after: { dueDate: '2030-02-28' } });
    expect(page.records[2]).toMatchObject({ before: { schedules: [] }, after: { schedules } });
    expect((await log(A, `entity=company&entityId=${id}`)).count).toBe(0);
    // An admin changing its own company's opening hours is recorded for its company.
    await A.api('PUT', `/companies/${A.companyId}/schedules`, { schedules });
    expect((await log(A, `entity=company&entityId=${A.companyId}`)).records[0]).toMatchObject({ action: 'update', userId: A.admin.id, after: { schedules } });
    // A user's picture.
    const pic = multipart('profileImage', 'eu.png', 'image/png', PNG);
    expect((await k.as(A.admin, 'POST', `/users/${A.admin.id}/media-upload`, pic.payload, pic.headers)).statusCode).toBe(200);
    expect((await log(A, `entity=user&entityId=${A.admin.id}`)).records[0]).toMatchObject({ action: 'update', after: { profileImage: expect.any(String) }, userId: A.admin.id });
  });

  test('tenant scoping: a company sees only its own entries, super sees all; users are refused; bad filters 400', async () => {
    const mine = await log(B, '');
    expect(mine.records.every((r) => r.companyId === B.companyId)).toBe(true);
    expect(mine.records.some((r) => r.entity === 'ticket')).toBe(false);
    const aTicketEntry = (await log(A, 'entity=ticket')).records[0];
    expect((await log(B, `entity=ticket&entityId=${aTicketEntry.entityId}`)).count).toBe(0);
    const forbidden = await k.as(B.admin, 'GET', `/audit-logs?companyId=${A.companyId}`);
    expect({ status: forbidden.statusCode, error: forbidden.json().error }).toEqual({ status: 403, error: 'ERR_NO_PERMISSION' });
    const plainUser = await k.createUser(A.companyId, { profile: 'user' });
    expect((await k.as(plainUser, 'GET', '/audit-logs')).statusCode).toBe(403);
    expect((await k.as(null, 'GET', '/audit-logs')).statusCode).toBe(401);
    for (const q of ['userId=abc', 'from=yesterday', 'entity=DROP%20TABLE', 'pageNumber=0']) {
      const res = await k.as(A.admin, 'GET', `/audit-logs?${q}`);
      expect({ q, status: res.statusCode, error: res.json().error }).toEqual({ q, status: 400, error: 'ERR_VALIDATION' });
    }
    const all = (await k.as(k.superAdmin, 'GET', '/audit-logs?entity=ticket')).json();
    expect(all.records.some((r: { companyId: number }) => r.companyId === A.companyId)).toBe(true);
    const onlyB = (await k.as(k.superAdmin, 'GET', `/audit-logs?companyId=${B.companyId}`)).json();
    expect(onlyB.records.every((r: { companyId: number }) => r.companyId === B.companyId)).toBe(true);
  });

  test('append-only: no route changes or deletes an entry, and the database refuses UPDATE, DELETE and TRUNCATE', async () => {
    const entry = (await log(A, '')).records[0] as unknown as { id: number };
    for (const method of ['PUT', 'PATCH', 'DELETE', 'POST']) {
      const res = await k.as(k.superAdmin, method, `/audit-logs/${entry.id}`, {});
      expect(res.statusCode).toBe(404);
    }
    expect((await k.as(k.superAdmin, 'POST', '/audit-logs', { entity: 'x', action: 'y' })).statusCode).toBe(404);
    await expect(k.db.raw('UPDATE audit_logs SET action = ? WHERE id = ?', ['forged', entry.id])).rejects.toThrow(/append-only/);
    await expect(k.db.raw('DELETE FROM audit_logs WHERE id = ?', [entry.id])).rejects.toThrow(/append-only/);
    await expect(k.db.raw('TRUNCATE audit_logs')).rejects.toThrow(/append-only/);
    expect(await k.db('auditLogs').where({ id: entry.id }).first('action')).toBeTruthy();
  });

  test('i18n/errors.json translates exactly the declared codes in the four languages', () => {
    const texts = JSON.parse(readFileSync(join(__dirname, '..', 'i18n', 'errors.json'), 'utf8')) as Record<string, Record<string, string>>;
    expect(Object.keys(texts)).toEqual(['pt-BR', 'en', 'es', 'tr']);
    for (const table of Object.values(texts)) expect(Object.keys(table).sort()).toEqual(Object.keys(compliance.errors ?? {}).sort());
  });
});
