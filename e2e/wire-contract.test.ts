/**
 * Contract suite of the product family's client (wire-shapes.md): replays, against a kernel with the
 * plugins that serve them, the calls the existing React client of this family makes and checks every field
 * the file marks as read by it (R), with the types it relies on. Plus the socket: the client opens
 * socket.io with only `query: {companyId, userId}` and the browser's session cookie, and reads the
 * `appMessage` / `ticket` payloads listed in §5.
 *
 * One company with an admin and an attendant, a queue with a chatbot option, a connection, two contacts
 * (one with extra info and a tag), a ticket opened by the attendant and messages in it, all made through
 * the API as the client would.
 */
import { io as ioClient, type Socket } from 'socket.io-client';
import { createTestKernel, nextEvent, waitFor, type TestKernel, type TestUser } from '@atendo/testing';
import queuesPlugin from '@atendo/plugin-queues';
import tagsPlugin from '@atendo/plugin-tags';
import contactsPlugin from '@atendo/plugin-contacts';
import connectionsPlugin from '@atendo/plugin-connections';
import ticketsPlugin from '@atendo/plugin-tickets';
import quickMessagesPlugin from '@atendo/plugin-quick-messages';
import chatsPlugin from '@atendo/plugin-chats';
import announcementsPlugin from '@atendo/plugin-announcements';
import dashboardPlugin from '@atendo/plugin-dashboard';
import schedulesPlugin from '@atendo/plugin-schedules';
import campaignsPlugin from '@atendo/plugin-campaigns';

jest.setTimeout(120_000);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Asserts that every dotted path of `paths` exists in `obj` with a value of the given type ('any' = present, maybe null). */
function reads(obj: unknown, paths: Record<string, 'string' | 'number' | 'boolean' | 'object' | 'array' | 'nullable' | 'any'>, where: string): void {
  for (const [path, kind] of Object.entries(paths)) {
    let v: unknown = obj;
    for (const key of path.split('.')) {
      if (v === null || v === undefined || typeof v !== 'object' || !(key in (v as object))) throw new Error(`${where}: the client reads ${path}, which is missing`);
      v = (v as Record<string, unknown>)[key];
    }
    const ok =
      kind === 'any' ||
      (kind === 'nullable' ? true : kind === 'array' ? Array.isArray(v) : kind === 'object' ? v !== null && typeof v === 'object' : typeof v === kind);
    if (!ok) throw new Error(`${where}: ${path} should be ${kind}, got ${JSON.stringify(v)}`);
  }
}

describe('wire contract of the product family client (wire-shapes.md, fields marked R)', () => {
  let k: TestKernel;
  let base: string;
  let companyId: number;
  let admin: TestUser;
  let agent: TestUser & { name: string };
  let queue: Json;
  let connection: Json;
  let contact: Json;
  let other: Json;
  let ticket: Json;
  let tag: Json;
  const sockets: Socket[] = [];

  const call = async (u: TestUser, method: string, url: string, body?: unknown) => {
    const res = await k.as(u, method, url, body);
    if (res.statusCode >= 400 && res.statusCode !== 409) throw new Error(`${method} ${url} -> ${res.statusCode} ${res.body}`);
    return res;
  };

  beforeAll(async () => {
    k = await createTestKernel({ plugins: [queuesPlugin, tagsPlugin, contactsPlugin, connectionsPlugin, ticketsPlugin, quickMessagesPlugin, chatsPlugin, announcementsPlugin] });
    base = await k.listen();
    const c = await k.createCompany({ name: 'Wire Co' });
    companyId = c.companyId;
    admin = c.admin;
    const a = await k.createUser(companyId, { profile: 'user', name: 'Ana Wire' });
    agent = { ...a, name: 'Ana Wire' };

    queue = (await call(admin, 'POST', '/queue', { name: 'Suporte', color: '#336699', greetingMessage: 'Olá', chatbots: [{ name: 'Segunda via', greetingMessage: 'Boleto', queueType: 'text', closeTicket: false }] })).json();
    await call(admin, 'PUT', `/users/${agent.id}`, { queueIds: [queue.id] });
    connection = (await call(admin, 'POST', '/whatsapp', { name: 'Principal', queueIds: [queue.id], isDefault: true, greetingMessage: 'Oi' })).json();
    tag = (await call(admin, 'POST', '/tags', { name: 'VIP', color: '#FF0000', kanban: 0 })).json();
    contact = (await call(admin, 'POST', '/contacts', { name: 'Maria Souza', number: '5511987654321', email: 'maria@example.com', extraInfo: [{ name: 'CPF', value: '123' }] })).json();
    await call(admin, 'POST', '/tags/sync', { contactId: contact.id, tags: [{ id: tag.id }] });
    other = (await call(admin, 'POST', '/contacts', { name: 'João Lima', number: '5511912345678' })).json();
    ticket = (await call(agent, 'POST', '/tickets', { contactId: contact.id, queueId: queue.id, whatsappId: connection.id, userId: agent.id, status: 'open' })).json();
    await call(agent, 'POST', `/messages/${ticket.id}`, { read: 1, fromMe: true, mediaUrl: '', body: 'Olá {{firstName}}', quotedMsg: null });
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await k.close();
  });

  test('POST /auth/login and POST /auth/refresh_token: token, user.{id, companyId, profileImage}, user.company.{id, dueDate}', async () => {
    const res = await k.app.inject({ method: 'POST', url: '/auth/login', payload: { email: agent.email, password: agent.password } });
    expect(res.statusCode).toBe(200);
    reads(res.json(), { token: 'string', 'user.id': 'number', 'user.companyId': 'number', 'user.profileImage': 'nullable', 'user.company.id': 'number', 'user.company.dueDate': 'any' }, 'login');
    const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).map((x) => x.split(';')[0]).find((x) => x.startsWith('jrt='))!;
    const refreshed = await k.app.inject({ method: 'POST', url: '/auth/refresh_token', headers: { cookie } });
    expect(refreshed.statusCode).toBe(200);
    reads(refreshed.json(), { token: 'string', 'user.id': 'number', 'user.queues': 'array' }, 'refresh');
  });

  test('GET /tickets: tickets[] with the row fields TicketListItemCustom reads, hasMore', async () => {
    const body = (await call(agent, 'GET', `/tickets?pageNumber=1&status=open&showAll=false&queueIds=${encodeURIComponent(JSON.stringify([queue.id]))}`)).json();
    reads(body, { tickets: 'array', hasMore: 'boolean' }, 'GET /tickets');
    const t = body.tickets.find((x: Json) => x.id === ticket.id);
    reads(
      t,
      {
        id: 'number', uuid: 'string', status: 'string', queueId: 'number', userId: 'number', isGroup: 'boolean', channel: 'string', unreadMessages: 'number', lastMessage: 'string', updatedAt: 'string',
        'contact.id': 'number', 'contact.name': 'string', 'contact.profilePicUrl': 'nullable', 'queue.name': 'string', 'queue.color': 'string', 'user.name': 'string',
        'whatsapp.name': 'string', 'whatsapp.groupAsTicket': 'string', tags: 'array', amountUsedBotQueuesNPS: 'number',
      },
      'GET /tickets ticket',
    );
    expect(t.lastMessage).toBe(`*${agent.name}:*\nOlá Maria`);
    const unread = (await call(agent, 'GET', '/tickets?withUnreadMessages=true&status=open')).json();
    reads(unread, { tickets: 'array', hasMore: 'boolean' }, 'GET /tickets?withUnreadMessages');
  });

  test('GET /tickets/u/:uuid: contact with extraInfo and tags, company, queueIntegration, whatsapp.groupAsTicket', async () => {
    const t = (await call(agent, 'GET', `/tickets/u/${ticket.uuid}`)).json();
    reads(
      t,
      {
        id: 'number', uuid: 'string', status: 'string', isGroup: 'boolean', queueId: 'number', whatsappId: 'number', channel: 'string', useIntegration: 'boolean', user: 'object',
        'contact.id': 'number', 'contact.name': 'string', 'contact.number': 'string', 'contact.email': 'string', 'contact.urlPicture': 'nullable', 'contact.active': 'boolean', 'contact.disableBot': 'boolean',
        'contact.extraInfo': 'array', 'contact.tags': 'array', 'whatsapp.groupAsTicket': 'string', 'company.id': 'number', 'company.name': 'string', queueIntegration: 'nullable',
      },
      'GET /tickets/u/:uuid',
    );
    expect(t.contact.extraInfo).toEqual([expect.objectContaining({ name: 'CPF', value: '123' })]);
    expect(t.contact.tags.map((x: Json) => x.id)).toEqual([tag.id]);
    expect(t.company).toEqual({ id: companyId, name: 'Wire Co' });
    expect(t.queueIntegration).toBeNull();
  });

  test('POST /tickets for a served contact: 409 whose error JSON.parse gives userId, user.name, queue.name, uuid', async () => {
    const res = await k.as(admin, 'POST', '/tickets', { contactId: contact.id, queueId: queue.id, whatsappId: connection.id, userId: admin.id, status: 'open' });
    expect(res.statusCode).toBe(409);
    const parsed = JSON.parse(res.json().error);
    reads(parsed, { userId: 'number', 'user.name': 'string', 'queue.name': 'string', uuid: 'string' }, 'POST /tickets 409');
    expect(parsed).toMatchObject({ userId: agent.id, uuid: ticket.uuid, user: { name: agent.name }, queue: { name: 'Suporte' } });
    expect(res.json().code).toBe('ERR_OTHER_OPEN_TICKET');
    const ok = (await call(admin, 'POST', '/tickets', { contactId: other.id, queueId: queue.id, whatsappId: connection.id, userId: admin.id, status: 'open' })).json();
    reads(ok, { uuid: 'string' }, 'POST /tickets');
  });

  test('PUT /tickets/:id: the ticket with id, userId, user.name, queue.name, uuid', async () => {
    const res = (await call(agent, 'PUT', `/tickets/${ticket.id}`, { status: 'open', userId: agent.id, queueId: queue.id })).json();
    reads(res, { id: 'number', userId: 'number', 'user.name': 'string', 'queue.name': 'string', uuid: 'string', 'company.id': 'number' }, 'PUT /tickets/:id');
  });

  test('GET /messages/:ticketId: messages[] with the fields MessagesList reads, hasMore', async () => {
    const body = (await call(agent, 'GET', `/messages/${ticket.id}?pageNumber=1`)).json();
    reads(body, { messages: 'array', hasMore: 'boolean' }, 'GET /messages');
    const [m] = body.messages;
    reads(
      m,
      { id: 'number', ticketId: 'number', fromMe: 'boolean', body: 'string', mediaType: 'string', mediaUrl: 'nullable', ack: 'number', createdAt: 'string', isDeleted: 'boolean', isEdited: 'boolean', isForwarded: 'boolean', isPrivate: 'boolean', queueId: 'number', dataJson: 'nullable', contact: 'nullable', quotedMsg: 'nullable', 'ticket.queue.name': 'string', 'ticket.queue.color': 'string' },
      'GET /messages message',
    );
    expect(m.body).toBe(`*${agent.name}:*\nOlá Maria`);
  });

  test('GET /contacts: contacts[] with tickets[last].updatedAt, hasMore; POST /contacts answers the id', async () => {
    const body = (await call(agent, 'GET', '/contacts?searchParam=&pageNumber=1')).json();
    reads(body, { contacts: 'array', hasMore: 'boolean' }, 'GET /contacts');
    const c = body.contacts.find((x: Json) => x.id === contact.id);
    reads(c, { id: 'number', name: 'string', number: 'string', email: 'string', isGroup: 'boolean', active: 'boolean', channel: 'string', urlPicture: 'nullable', tickets: 'array' }, 'GET /contacts contact');
    expect(c.tickets.length).toBeGreaterThan(0);
    reads(c.tickets[c.tickets.length - 1], { updatedAt: 'string', id: 'number', status: 'string' }, 'GET /contacts contact.tickets[last]');
    const none = body.contacts.find((x: Json) => x.id === other.id);
    expect(none.tickets.map((x: Json) => x.status)).toEqual(['open']);
  });

  test('GET /contacts/profile/:number: contactId (0 when unknown) and urlPicture', async () => {
    reads((await call(agent, 'GET', '/contacts/profile/5511987654321')).json(), { contactId: 'number', urlPicture: 'nullable' }, 'profile');
    expect((await call(agent, 'GET', '/contacts/profile/5511900001111')).json()).toEqual({ contactId: 0, urlPicture: null });
  });

  test('GET /whatsapp and GET /whatsapp/:id: the fields the connections page, NewTicketModal and WhatsAppModal read', async () => {
    const list = (await call(admin, 'GET', '/whatsapp/?session=0')).json();
    reads(list[0], { id: 'number', name: 'string', status: 'string', number: 'nullable', isDefault: 'boolean', channel: 'string', updatedAt: 'string', qrcode: 'string', retries: 'number', importOldMessages: 'nullable', statusImportMessages: 'nullable' }, 'GET /whatsapp');
    const one = (await call(admin, 'GET', `/whatsapp/${connection.id}?session=0`)).json();
    reads(one, { qrcode: 'string', promptId: 'nullable', token: 'string', greetingMediaAttachment: 'nullable', schedules: 'array', queues: 'array', prompt: 'nullable', maxUseBotQueuesNPS: 'number' }, 'GET /whatsapp/:id');
    reads(one.queues[0], { id: 'number', name: 'string', color: 'string', greetingMessage: 'string', integrationId: 'nullable', fileListId: 'nullable', closeTicket: 'boolean', promptId: 'nullable', chatbots: 'array' }, 'GET /whatsapp/:id queues[0]');
    expect(one.queues[0].chatbots).toEqual([expect.objectContaining({ name: 'Segunda via', greetingMessage: 'Boleto', closeTicket: false })]);
  });

  test('GET /queue and GET /queue/:id: id, name, color, greetingMessage, orderQueue; chatbots', async () => {
    const list = (await call(admin, 'GET', '/queue')).json();
    reads(list[0], { id: 'number', name: 'string', color: 'string', greetingMessage: 'string', orderQueue: 'nullable' }, 'GET /queue');
    const one = (await call(admin, 'GET', `/queue/${queue.id}`)).json();
    reads(one, { promptId: 'nullable', schedules: 'array', chatbots: 'array' }, 'GET /queue/:id');
    reads(one.chatbots[0], { id: 'number', name: 'string', queueType: 'string', greetingMessage: 'string', optQueueId: 'nullable', optUserId: 'nullable', optIntegrationId: 'nullable', optFileId: 'nullable', closeTicket: 'boolean' }, 'GET /queue/:id chatbots[0]');
  });

  test("GET /users: the users page fields, queues, and tickets (the real-time panel reads tickets.length); GET /users/list", async () => {
    const body = (await call(admin, 'GET', '/users/?searchParam=&pageNumber=1')).json();
    reads(body, { users: 'array', hasMore: 'boolean' }, 'GET /users');
    const u = body.users.find((x: Json) => x.id === agent.id);
    reads(u, { id: 'number', name: 'string', email: 'string', profile: 'string', online: 'boolean', profileImage: 'nullable', companyId: 'number', startWork: 'string', endWork: 'string', queues: 'array', tickets: 'array' }, 'GET /users user');
    expect(u.tickets.map((t: Json) => t.id)).toEqual([ticket.id]);
    expect(body.users.find((x: Json) => x.id === admin.id).tickets.map((t: Json) => t.contactId)).toEqual([other.id]);
    reads(u.queues[0], { id: 'number', name: 'string', color: 'string', 'UserQueue.queueId': 'number' }, 'GET /users user.queues[0]');
    const list = (await call(agent, 'GET', '/users/list')).json();
    reads(list[0], { id: 'number', name: 'string' }, 'GET /users/list');
  });

  test('settings: GET /companySettings/:id (lgpdDeleteMessage, enableLGPD, scheduleType), GET /companySettingOne?column=, GET /settings', async () => {
    const all = (await call(admin, 'GET', `/companySettings/${companyId}`)).json();
    reads(all, { lgpdDeleteMessage: 'string', enableLGPD: 'string', scheduleType: 'string', requiredTag: 'string', sendGreetingAccepted: 'string' }, 'GET /companySettings');
    for (const column of ['requiredTag', 'sendGreetingAccepted', 'lgpdHideNumber', 'sendSignMessage', 'scheduleType']) {
      reads((await call(agent, 'GET', `/companySettingOne?column=${column}`)).json(), { [column]: 'string' }, `GET /companySettingOne ${column}`);
    }
    expect(Array.isArray((await call(admin, 'GET', '/settings')).json())).toBe(true);
  });

  test('GET /companies/listPlan/:id: plan flags the menu reads', async () => {
    const body = (await call(agent, 'GET', `/companies/listPlan/${companyId}`)).json();
    reads(body, { 'plan.useCampaigns': 'boolean', 'plan.useKanban': 'boolean', 'plan.useOpenAi': 'boolean', 'plan.useSchedules': 'boolean', 'plan.useInternalChat': 'boolean', 'plan.useExternalApi': 'boolean', 'plan.useIntegration': 'boolean', 'plan.useWhatsapp': 'boolean' }, 'listPlan');
  });

  test('kanban: GET /tags/kanban lista[], GET /ticket/kanban tickets[].{id, uuid, lastMessage, contact.{name, number}, tags[].id}', async () => {
    await call(admin, 'POST', '/tags', { name: 'Lane', color: '#00FF00', kanban: 1 });
    const lanes = (await call(admin, 'GET', '/tags/kanban')).json();
    reads(lanes, { lista: 'array' }, 'GET /tags/kanban');
    reads(lanes.lista[0], { id: 'number', name: 'string', color: 'string' }, 'GET /tags/kanban lista[0]');
    const board = (await call(admin, 'GET', `/ticket/kanban?queueIds=${encodeURIComponent(JSON.stringify([queue.id]))}&teste=true`)).json();
    const t = board.tickets.find((x: Json) => x.id === ticket.id);
    reads(t, { id: 'number', uuid: 'string', lastMessage: 'string', 'contact.name': 'string', 'contact.number': 'string', tags: 'array' }, 'GET /ticket/kanban');
  });

  test('quick messages (GET /quick-messages/ with its trailing slash, GET /quick-messages/list) and chats (GET /chats/)', async () => {
    await call(admin, 'POST', '/quick-messages', { shortcode: 'oi', message: 'Olá {{name}}', geral: true });
    const page = (await call(agent, 'GET', `/quick-messages/?searchParam=&pageNumber=1&companyId=${companyId}&userId=${agent.id}`)).json();
    reads(page, { records: 'array', hasMore: 'boolean' }, 'GET /quick-messages/');
    reads(page.records[0], { id: 'number', shortcode: 'string', mediaName: 'nullable', geral: 'boolean' }, 'GET /quick-messages/ records[0]');
    expect(Array.isArray((await call(agent, 'GET', `/quick-messages/list?companyId=${companyId}&userId=${agent.id}`)).json())).toBe(true);
    await call(admin, 'POST', '/chats', { users: [{ id: agent.id, name: agent.name }], title: 'Equipe' });
    const chats = (await call(agent, 'GET', '/chats/?pageNumber=1')).json();
    reads(chats, { records: 'array', hasMore: 'boolean' }, 'GET /chats/');
    reads(chats.records[0], { id: 'number', uuid: 'string', title: 'string', lastMessage: 'nullable', ownerId: 'number', updatedAt: 'string', users: 'array' }, 'GET /chats/ records[0]');
    reads(chats.records[0].users[0], { userId: 'number', unreads: 'number', 'user.id': 'number', 'user.name': 'string' }, 'GET /chats/ users[0]');
  });

  test('GET /announcements/ and GET /version', async () => {
    const body = (await call(agent, 'GET', '/announcements/?searchParam=&pageNumber=1')).json();
    reads(body, { records: 'array', hasMore: 'boolean' }, 'GET /announcements/');
    reads((await k.app.inject({ method: 'GET', url: '/version' })).json(), { version: 'string' }, 'GET /version');
  });

  test('socket: the old client (query ids, session cookie, no token) receives appMessage create with message.{fromMe, read, ticketId, body}, ticket.{id, uuid, status, userId, queueId, isGroup}, contact.{name, urlPicture}', async () => {
    const login = await k.app.inject({ method: 'POST', url: '/auth/login', payload: { email: agent.email, password: agent.password } });
    const cookie = ([] as string[]).concat(login.headers['set-cookie'] ?? []).map((x) => x.split(';')[0]).find((x) => x.startsWith('jrt='))!;
    const s = await new Promise<Socket>((resolve, reject) => {
      const sock = ioClient(base, { transports: ['websocket', 'polling'], query: { companyId: String(companyId), userId: String(agent.id) }, extraHeaders: { cookie }, reconnection: false, forceNew: true });
      sock.on('connect', () => resolve(sock));
      sock.on('connect_error', reject);
    });
    sockets.push(s);
    s.emit('joinNotification');
    s.emit('joinChatBox', String(ticket.id));
    await waitFor(() => k.realtime.io.sockets.sockets.get(s.id!));
    const created = nextEvent<Json>(s, `company-${companyId}-appMessage`, 5000);
    const updated = nextEvent<Json>(s, `company-${companyId}-ticket`, 5000);
    await call(agent, 'POST', `/messages/${ticket.id}`, { read: 1, fromMe: true, mediaUrl: '', body: 'pelo socket' });
    const ev = await created;
    reads(ev, { action: 'string', 'message.fromMe': 'boolean', 'message.read': 'boolean', 'message.ticketId': 'number', 'message.body': 'string', 'ticket.id': 'number', 'ticket.uuid': 'string', 'ticket.status': 'string', 'ticket.userId': 'number', 'ticket.queueId': 'number', 'ticket.isGroup': 'boolean', 'contact.name': 'string', 'contact.urlPicture': 'nullable' }, 'appMessage create');
    const up = await updated;
    reads(up, { action: 'string', 'ticket.id': 'number', 'ticket.userId': 'number', 'ticket.queueId': 'number' }, 'ticket update');
  });
});

describe('wire contract, the supervision, schedule, campaign and plan calls (wire-shapes.md §3-4, fields marked R)', () => {
  let k: TestKernel;
  let companyId: number;
  let admin: TestUser;
  let contact: Json;
  let connection: Json;

  const call = async (u: TestUser | null, method: string, url: string, body?: unknown) => {
    const res = await k.as(u, method, url, body);
    if (res.statusCode >= 400) throw new Error(`${method} ${url} -> ${res.statusCode} ${res.body}`);
    return res;
  };

  beforeAll(async () => {
    k = await createTestKernel({ plugins: [queuesPlugin, tagsPlugin, contactsPlugin, connectionsPlugin, ticketsPlugin, dashboardPlugin, schedulesPlugin, campaignsPlugin] });
    const c = await k.createCompany({ name: 'Wire Tools Co' });
    companyId = c.companyId;
    admin = c.admin;
    connection = (await call(admin, 'POST', '/whatsapp', { name: 'Principal', isDefault: true })).json();
    contact = (await call(admin, 'POST', '/contacts', { name: 'Maria Souza', number: '5511987650000' })).json();
    await call(admin, 'POST', '/tickets', { contactId: contact.id, whatsappId: connection.id, userId: admin.id, status: 'open' });
  });
  afterAll(async () => {
    await k.close();
  });

  test('GET /dashboard: counters the page reads and attendants[] for TableAttendantsStatus; its siblings', async () => {
    const body = (await call(admin, 'GET', '/dashboard?days=30')).json();
    reads(body, { counters: 'object', attendants: 'array', 'counters.supportHappening': 'number', 'counters.supportPending': 'number', 'counters.supportFinished': 'number', 'counters.leads': 'number', 'counters.avgSupportTime': 'nullable', 'counters.avgWaitTime': 'nullable' }, 'GET /dashboard');
    expect(body.counters.supportHappening).toBe(1);
    const me = body.attendants.find((a: Json) => a.id === admin.id);
    reads(me, { name: 'string', online: 'boolean', rating: 'nullable', countRating: 'number', tickets: 'number', avgSupportTime: 'nullable', avgWaitTime: 'nullable' }, 'GET /dashboard attendants[]');
    const today = new Date().toISOString().slice(0, 10);
    const closed = await call(admin, 'GET', `/dashboard/atendimentos-encerrados?initialDate=${today}&finalDate=${today}`);
    expect(typeof JSON.parse(closed.body)).toBe('number');
    const info = (await call(admin, 'GET', `/dashboard/user-info?initialDate=${today}&finalDate=${today}`)).json();
    expect(Array.isArray(info)).toBe(true);
    const nps = (await call(admin, 'GET', `/dashboard/nps-info?initialDate=${today}&finalDate=${today}`)).json();
    reads(nps[0], { total_notas: 'number', ruim: 'number', media: 'number', boa: 'number' }, 'GET /dashboard/nps-info');
  });

  test('GET /schedules: schedules[].{id, body, sendAt, status, contact.name}, hasMore; POST /schedules answers contact and user', async () => {
    const sendAt = new Date(Date.now() + 3 * 3_600_000).toISOString().slice(0, 16);
    const created = (await call(admin, 'POST', '/schedules', { body: 'Lembrete', sendAt, contactId: contact.id, userId: admin.id, sentAt: '' })).json();
    reads(created, { id: 'number', body: 'string', sendAt: 'string', status: 'string', 'contact.name': 'string', 'user.name': 'string' }, 'POST /schedules');
    const page = (await call(admin, 'GET', '/schedules?searchParam=&pageNumber=1')).json();
    reads(page, { schedules: 'array', hasMore: 'boolean' }, 'GET /schedules');
    reads(page.schedules[0], { id: 'number', body: 'string', sendAt: 'string', status: 'string', 'contact.name': 'string' }, 'GET /schedules schedules[0]');
  });

  test('GET /contact-lists records[].{id, name, contactsCount}; GET /campaigns records[] with contactList.name and whatsapp.name', async () => {
    const list = (await call(admin, 'POST', '/contact-lists', { name: 'Clientes' })).json();
    await call(admin, 'POST', '/contact-list-items', { name: 'Maria', number: '5511987650000', contactListId: list.id });
    const lists = (await call(admin, 'GET', '/contact-lists?searchParam=&pageNumber=1')).json();
    reads(lists, { records: 'array', hasMore: 'boolean' }, 'GET /contact-lists');
    reads(lists.records[0], { id: 'number', name: 'string', contactsCount: 'any' }, 'GET /contact-lists records[0]');
    expect(Number(lists.records[0].contactsCount)).toBe(1);
    await call(admin, 'POST', '/campaigns', { name: 'Natal', message1: 'Feliz Natal {nome}', contactListId: list.id, whatsappId: connection.id, scheduledAt: '' });
    const campaigns = (await call(admin, 'GET', '/campaigns?searchParam=&pageNumber=1')).json();
    reads(campaigns, { records: 'array', hasMore: 'boolean' }, 'GET /campaigns');
    reads(
      campaigns.records[0],
      { id: 'number', name: 'string', status: 'string', contactListId: 'number', 'contactList.name': 'string', whatsappId: 'string', 'whatsapp.name': 'string', scheduledAt: 'nullable', completedAt: 'nullable', confirmation: 'boolean' },
      'GET /campaigns records[0]',
    );
    // The spec (3-campaigns-and-tools.md): whatsappId holds the chosen connections' ids joined by commas.
    expect(campaigns.records[0].whatsappId).toBe(String(connection.id));
  });

  test('GET /plans/all (super, PlansManager) and GET /plans/listPublic?isPublic=true (no token, the sign-up dropdown)', async () => {
    await call(k.superAdmin, 'POST', '/plans', { name: 'Wire Público', users: 5, connections: 2, queues: 3, amount: 49.9, isPublic: true });
    const all = (await call(k.superAdmin, 'GET', '/plans/all')).json();
    const flags = ['useWhatsapp', 'useFacebook', 'useInstagram', 'useCampaigns', 'useSchedules', 'useInternalChat', 'useExternalApi', 'useKanban', 'useOpenAi', 'useIntegration', 'isPublic'];
    reads(all.find((p: Json) => p.name === 'Wire Público'), { id: 'number', name: 'string', users: 'number', connections: 'number', queues: 'number', amount: 'any', ...Object.fromEntries(flags.map((f) => [f, 'boolean' as const])) }, 'GET /plans/all');
    const pub = (await call(null, 'GET', '/plans/listPublic?isPublic=true')).json();
    reads(pub.find((p: Json) => p.name === 'Wire Público'), { id: 'number', name: 'string', users: 'number', connections: 'number', queues: 'number', amount: 'any' }, 'GET /plans/listPublic');
  });
});
