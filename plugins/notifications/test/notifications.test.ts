import { createServer, type Server } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestKernel, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import { errorCatalogue, type BusMessage, type SendCommand } from '@atendo/sdk';
import connectionsPlugin from '@atendo/plugin-connections';
import { connectionsService } from '@atendo/plugin-connections/contract';
import notifications from '../src/index';
import { notificationsService, type AdminNotice, type NotificationsService } from '../src/contract';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A minimal SMTP server standing in for the mail relay: records each message's envelope and data. */
function smtpStandIn(): { server: Server; mails: { from: string; to: string[]; data: string }[]; start(): Promise<number> } {
  const mails: { from: string; to: string[]; data: string }[] = [];
  const server = createServer((socket) => {
    let buffer = '';
    let inData = false;
    let current = { from: '', to: [] as string[], data: '' };
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 stand-in ESMTP');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end === -1) return;
          current.data = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          mails.push(current);
          current = { from: '', to: [], data: '' };
          reply('250 queued');
          continue;
        }
        const nl = buffer.indexOf('\r\n');
        if (nl === -1) return;
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        const cmd = line.slice(0, 4).toUpperCase();
        if (cmd === 'EHLO') reply('250-stand-in\r\n250 8BITMIME');
        else if (cmd === 'HELO') reply('250 stand-in');
        else if (cmd === 'MAIL') (current.from = line, reply('250 OK'));
        else if (cmd === 'RCPT') (current.to.push(line.replace(/^RCPT TO:\s*/i, '').replace(/[<>]/g, '')), reply('250 OK'));
        else if (cmd === 'DATA') (inData = true, reply('354 go ahead'));
        else if (cmd === 'QUIT') (reply('221 bye'), socket.end());
        else reply('250 OK');
      }
    });
    socket.on('error', () => undefined);
  });
  return {
    server,
    mails,
    start: () => new Promise((r) => server.listen(0, '127.0.0.1', () => r((server.address() as { port: number }).port))),
  };
}

const NOTICE: AdminNotice = {
  kind: 'connection.dropped',
  text: {
    'pt-BR': { title: 'Conexão caiu', body: 'A conexão "Loja" caiu.' },
    en: { title: 'Connection dropped', body: 'The connection "Loja" dropped.' },
  },
  link: '/connections',
  data: { connectionId: 7, reason: 'livenessProbe' },
};

describe('notifications plugin', () => {
  let k: TestKernel;
  let svc: NotificationsService;
  const smtp = smtpStandIn();
  let A: { companyId: number; admin: TestUser };
  let B: { companyId: number; admin: TestUser };
  const sends: BusMessage<SendCommand>[] = [];
  let base = '';

  beforeAll(async () => {
    const port = await smtp.start();
    k = await createTestKernel({ plugins: [connectionsPlugin, notifications], env: { NOTIFICATIONS_PAGE_SIZE: '2', NOTIFICATIONS_SMTP_URL: `smtp://127.0.0.1:${port}`, NOTIFICATIONS_MAIL_FROM: 'Atendo <alertas@example.com>' } });
    base = await k.listen();
    svc = k.services.get(notificationsService);
    A = await k.createCompany({ limits: { connections: 10, users: 20 } });
    B = await k.createCompany({ limits: { connections: 10, users: 20 } });
    await k.bus.subscribe<SendCommand>(['message.send.whatsapp', 'message.send.whatsappapi'], (m) => void sends.push(m), { queue: 'notifications-test.sends' });
  });
  afterAll(async () => {
    await k.close();
    smtp.server.close();
  });

  async function connection(who: TestUser, status: string): Promise<number> {
    const res = await k.as(who, 'POST', '/whatsapp', { name: `WA ${Math.random().toString(36).slice(2, 8)}` });
    expect(res.statusCode).toBe(200);
    const id = res.json().id as number;
    await k.services.get(connectionsService).updateStatus(who.companyId, id, { status });
    return id;
  }

  test("notifyAdmins: a notification for each admin of the company only (pushed to that admin's sockets), WhatsApp where the admin has a number (not through the avoided connection), e-mail to the others, in each admin's language", async () => {
    const second = await k.createUser(A.companyId, { profile: 'admin', email: 'second-admin@example.com' });
    const user = await k.createUser(A.companyId, { profile: 'user' });
    await k.db('users').where({ id: A.admin.id }).update({ wpp: '+55 (11) 98888-7777', language: 'en' });
    const dropped = await connection(A.admin, 'DISCONNECTED');
    const alive = await connection(A.admin, 'CONNECTED');
    const events: Record<string, { name: string; payload: Json }[]> = { admin: [], second: [], user: [], other: [] };
    for (const [name, who] of [['admin', A.admin], ['second', second], ['user', user], ['other', B.admin]] as const) {
      const s = await k.socket(who.token, base);
      s.onAny((ev: string, payload: Json) => events[name].push({ name: ev, payload }));
    }
    const result = await svc.notifyAdmins(A.companyId, { ...NOTICE, avoidConnectionId: dropped });
    expect(result).toMatchObject({ whatsapp: 1, email: 1 });
    expect(result.notificationIds).toHaveLength(2);
    // In the app: each admin has its own, in its language; the user and the other company have none.
    const mine = (await k.as(A.admin, 'GET', '/notifications')).json();
    expect(mine).toMatchObject({ count: 1, unread: 1, hasMore: false });
    expect(mine.records[0]).toEqual({ id: expect.any(Number), kind: 'connection.dropped', title: 'Connection dropped', body: 'The connection "Loja" dropped.', link: '/connections', data: { connectionId: 7, reason: 'livenessProbe' }, readAt: null, createdAt: expect.any(String) });
    expect((await k.as(second, 'GET', '/notifications')).json().records.map((r: Json) => r.title)).toEqual(['Conexão caiu']);
    expect((await k.as(user, 'GET', '/notifications')).json()).toEqual({ records: [], count: 0, unread: 0, hasMore: false });
    expect((await k.as(B.admin, 'GET', '/notifications')).json().count).toBe(0);
    await waitFor(() => events.admin.some((e) => e.name === `company-${A.companyId}-notification`) && events.second.some((e) => e.name === `company-${A.companyId}-notification`));
    expect(events.admin.find((e) => e.name === `company-${A.companyId}-notification`)!.payload).toMatchObject({ action: 'create', record: { title: 'Connection dropped' } });
    await new Promise((r) => setTimeout(r, 100));
    expect(events.user.filter((e) => /notification/.test(e.name))).toEqual([]);
    expect(events.other).toEqual([]);
    // WhatsApp: to the admin's digits, through the connection that is up (never the one the notice is about).
    await waitFor(() => sends.length === 1);
    expect(sends[0].payload).toMatchObject({ companyId: A.companyId, connectionId: alive, channel: 'whatsapp', to: '5511988887777', messageId: 0, ticketId: 0, body: '*Connection dropped*\nThe connection "Loja" dropped.' });
    // E-mail: the admin without a number.
    await waitFor(() => smtp.mails.length === 1);
    expect(smtp.mails[0].to).toEqual(['second-admin@example.com']);
    expect(smtp.mails[0].from).toContain('alertas@example.com');
    expect(smtp.mails[0].data).toMatch(/Subject: =\?UTF-8\?Q\?Conex=C3=A3o_caiu\?=|Subject: Conexão caiu/);
  });

  test('WhatsApp falls back to the platform company\'s connected connection; a company without admins gets nothing; bad notices are refused', async () => {
    const C = await k.createCompany({ limits: { connections: 10 } });
    await k.db('users').where({ id: C.admin.id }).update({ wpp: '5521977776666' });
    sends.length = 0;
    const platform = await connection(k.superAdmin, 'CONNECTED');
    const r = await svc.notifyAdmins(C.companyId, NOTICE);
    expect(r).toMatchObject({ whatsapp: 1, email: 0 });
    await waitFor(() => sends.length === 1);
    expect(sends[0].payload).toMatchObject({ companyId: 1, connectionId: platform, to: '5521977776666' });
    await k.db('users').where({ companyId: C.companyId }).update({ profile: 'user' });
    expect(await svc.notifyAdmins(C.companyId, NOTICE)).toEqual({ notificationIds: [], whatsapp: 0, email: 0 });
    for (const bad of [{ ...NOTICE, kind: '' }, { ...NOTICE, kind: 'Bad Kind' }, { ...NOTICE, text: {} }, { ...NOTICE, link: 'https://evil.example' }, { ...NOTICE, text: { 'pt-BR': { title: '', body: 'x' } } }]) {
      await expect(svc.notifyAdmins(A.companyId, bad as AdminNotice)).rejects.toMatchObject({ code: 'ERR_VALIDATION' });
    }
  });

  test('routes: pages (NOTIFICATIONS_PAGE_SIZE), unread filter, read one, read all; only the caller\'s own; bad input 400; no token 401', async () => {
    const D = await k.createCompany();
    const other = await k.createUser(D.companyId, { profile: 'admin' });
    for (let i = 0; i < 3; i++) await svc.notifyAdmins(D.companyId, { ...NOTICE, text: { 'pt-BR': { title: `Aviso ${i}`, body: '' } } });
    const p1 = (await k.as(D.admin, 'GET', '/notifications')).json();
    expect(p1).toMatchObject({ count: 3, unread: 3, hasMore: true });
    expect(p1.records.map((r: Json) => r.title)).toEqual(['Aviso 2', 'Aviso 1']);
    expect((await k.as(D.admin, 'GET', '/notifications?pageNumber=2')).json().records.map((r: Json) => r.title)).toEqual(['Aviso 0']);
    const id = p1.records[0].id as number;
    const read = await k.as(D.admin, 'PUT', `/notifications/${id}/read`);
    expect(read.statusCode).toBe(200);
    expect(read.json().readAt).toEqual(expect.any(String));
    expect((await k.as(D.admin, 'PUT', `/notifications/${id}/read`)).json().readAt).toBe(read.json().readAt);
    expect((await k.as(D.admin, 'GET', '/notifications?unread=true')).json()).toMatchObject({ count: 2, unread: 2 });
    // Someone else's notification: another admin of the same company, another company.
    for (const who of [other, A.admin]) {
      const res = await k.as(who, 'PUT', `/notifications/${id}/read`);
      expect({ status: res.statusCode, error: res.json().error }).toEqual({ status: 404, error: 'ERR_NO_NOTIFICATION_FOUND' });
    }
    expect((await k.as(other, 'PUT', '/notifications/read-all')).json()).toEqual({ updated: 3 });
    expect((await k.as(D.admin, 'GET', '/notifications?unread=true')).json().unread).toBe(2);
    expect((await k.as(D.admin, 'PUT', '/notifications/read-all')).json()).toEqual({ updated: 2 });
    expect((await k.as(D.admin, 'GET', '/notifications')).json().unread).toBe(0);
    for (const path of ['/notifications?pageNumber=0', '/notifications?unread=maybe']) {
      const res = await k.as(D.admin, 'GET', path);
      expect({ status: res.statusCode, error: res.json().error }).toEqual({ status: 400, error: 'ERR_VALIDATION' });
    }
    expect((await k.as(D.admin, 'PUT', '/notifications/abc/read')).statusCode).toBe(400);
    expect((await k.as(null, 'GET', '/notifications')).statusCode).toBe(401);
    expect(errorCatalogue().ERR_NO_NOTIFICATION_FOUND).toMatchObject({ status: 404, owner: 'notifications' });
  });

  test('error texts in the four languages', () => {
    const texts = JSON.parse(readFileSync(join(__dirname, '..', 'i18n', 'errors.json'), 'utf8')) as Record<string, Record<string, string>>;
    expect(Object.keys(texts).sort()).toEqual(['en', 'es', 'pt-BR', 'tr']);
    for (const lang of Object.keys(texts)) expect(Object.keys(texts[lang])).toEqual(['ERR_NO_NOTIFICATION_FOUND']);
  });
});
