import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Knex } from 'knex';
import {
  AppError,
  ErrorResponse,
  IntLike,
  ListQuery,
  page,
  toInt,
  Type,
  type IdentityService,
  type Realtime,
  type Static,
  type TSchema,
} from '@atendo/sdk';

/** Chats and messages per page. */
export const PAGE_SIZE = 20;
/** `lastMessage` keeps this many characters of the newest message (a preview for lists). */
export const LAST_MESSAGE_MAX = 500;
/** Messages one user may post per minute (all chats together). */
export const MESSAGE_RATE_LIMIT = 120;

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : String(v ?? ''));
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const UserRef = Type.Object({ id: Type.Integer(), name: Type.String() }, { additionalProperties: false });

/** A participant of a chat with the number of messages they have not read yet. */
export const ChatUserSchema = Type.Object(
  { id: Type.Integer(), chatId: Type.Integer(), userId: Type.Integer(), unreads: Type.Integer(), user: Nullable(UserRef) },
  { additionalProperties: false },
);

/** A chat as the API answers it (spec 3-campaigns-and-tools.md §3 "Chat"). */
export const ChatSchema = Type.Object(
  {
    id: Type.Integer(),
    uuid: Type.String(),
    title: Type.String(),
    ownerId: Nullable(Type.Integer()),
    owner: Nullable(UserRef),
    lastMessage: Type.String(),
    companyId: Type.Integer(),
    createdAt: Type.String(),
    updatedAt: Type.String(),
    users: Type.Array(ChatUserSchema),
  },
  { additionalProperties: false },
);
export type Chat = Static<typeof ChatSchema>;

/** A chat message as the API answers it (spec §3 "Chat message"). */
export const ChatMessageSchema = Type.Object(
  {
    id: Type.Integer(),
    chatId: Type.Integer(),
    senderId: Nullable(Type.Integer()),
    sender: Nullable(UserRef),
    message: Type.String(),
    mediaPath: Nullable(Type.String()),
    mediaName: Nullable(Type.String()),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { additionalProperties: false },
);
export type ChatMessage = Static<typeof ChatMessageSchema>;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** `:id` is the chat's integer id or its uuid. */
const ChatParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 36, pattern: '^(\\d{1,10}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$' }) });
type ChatParams = Static<typeof ChatParams>;

const Title = Type.String({ minLength: 1, maxLength: 200 });
/** Participants as the product family's dialog sends them: `{id, name}` (only `id` is read). */
const Participants = Type.Array(Type.Object({ id: IntLike({ minimum: 1 }), name: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])) }), { maxItems: 500 });
const CreateBody = Type.Object({ title: Title, users: Participants });
const UpdateBody = Type.Object({ title: Type.Optional(Title), users: Type.Optional(Participants) });
const MessageBody = Type.Object({ message: Type.String({ minLength: 1, maxLength: 10000 }) });
const ReadBody = Type.Object({ userId: IntLike({ minimum: 1 }) });
const MessagesQuery = Type.Object({ pageNumber: ListQuery.properties.pageNumber });

const ChatPage = Type.Object({ records: Type.Array(ChatSchema), count: Type.Integer(), hasMore: Type.Boolean() });
const MessagePage = Type.Object({ records: Type.Array(ChatMessageSchema), count: Type.Integer(), hasMore: Type.Boolean() });
const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 429: ErrorResponse };

type Row = Record<string, unknown>;
type ChatRow = Row & { id: number; uuid: string; ownerId: number | null; companyId: number };

const notFound = () => new AppError('ERR_NO_CHAT_FOUND');
const blank = (field: string) => new AppError('ERR_VALIDATION', `${field} must not be blank`);

/**
 * Internal chat routes (spec 3-campaigns-and-tools.md "Internal chat", §3, §7; 1-platform.md §2, §4;
 * wire-shapes "GET /chats"). The plugin's plan gate (`useInternalChat`) answers 403 ERR_FEATURE_NOT_IN_PLAN
 * on every route. Chats are private to their participants: a chat of another company, or one the caller
 * does not take part in, answers 404 ERR_NO_CHAT_FOUND (nothing about it is revealed). `:id` is the
 * chat's id or uuid. `Chat` = `{id, uuid, title, ownerId, owner {id, name}|null, lastMessage, companyId,
 * createdAt, updatedAt, users: [{id, chatId, userId, unreads, user {id, name}}]}`; `ChatMessage` =
 * `{id, chatId, senderId, sender {id, name}|null, message, mediaPath, mediaName, createdAt, updatedAt}`.
 * - `GET /chats` ?searchParam (title, case-insensitive) &pageNumber -> `{records: Chat[], count, hasMore}`,
 *   20 a page, only the caller's chats, most recently active first.
 * - `GET /chats/:id` -> Chat.
 * - `POST /chats` {title 1..200, users: [{id, name?}] (<= 500)} -> 200 Chat owned by the caller, who is
 *   always a participant. Participants must be users of the caller's company: 404 ERR_NO_USER_FOUND otherwise.
 * - `PUT /chats/:id` {title?, users?} (owner only, else 403 ERR_NO_PERMISSION) -> Chat. `users` replaces
 *   the participants (the owner stays; kept participants keep their unread counts).
 * - `DELETE /chats/:id` (owner only) -> `{message}`; the messages go too.
 * - `GET /chats/:id/messages` ?pageNumber -> `{records: ChatMessage[], count, hasMore}`: page 1 holds the
 *   newest 20 messages, each page in chronological order (oldest first).
 * - `POST /chats/:id/messages` {message 1..10000, not blank} -> ChatMessage. Adds one to every other
 *   participant's unreads and sets `lastMessage`. At most MESSAGE_RATE_LIMIT a minute per user (429).
 * - `POST /chats/:id/read` {userId} -> Chat with the caller's unreads at 0. `userId` must be the caller
 *   (403 ERR_NO_PERMISSION otherwise).
 * Bad input: 400 ERR_VALIDATION. Events go to the participants' sockets only (each participant's user
 * room), after commit: `company-{cid}-chat` and `company-{cid}-chat-{chatId}` with `{action: 'new-message',
 * newMessage: ChatMessage & {chat}, chat}` or `{action: 'update', chat}`; `company-{cid}-chat` with
 * `{action: 'delete', id}` (to the participants of a deleted chat and to those removed from one);
 * `company-{cid}-chat-user-{userId}` with `{action: 'create'|'update', record: Chat}` when a chat is
 * created or changed.
 */
export async function chatsRoutes(app: FastifyInstance, deps: { db: Knex; realtime: Realtime; identity: IdentityService }): Promise<void> {
  const { db, realtime, identity } = deps;

  /** Emits `event` with `payload` to each of `userIds` (their sockets only). */
  const emitTo = (companyId: number, userIds: Iterable<number>, name: string, payload: unknown) => {
    // Never without a user id: that would reach the whole company.
    for (const userId of new Set(userIds)) if (Number.isInteger(userId)) realtime.emitToCompany(companyId, `company-${companyId}-${name}`, payload, { userId });
  };
  const participantsOf = (chat: Chat) => chat.users.map((u) => u.userId);

  /** Names of `ids` (users of `companyId`), read through the identity service. */
  const namesOf = async (companyId: number, ids: number[]): Promise<Map<number, string>> => {
    const unique = [...new Set(ids)];
    if (!unique.length) return new Map();
    return new Map((await identity.listUsers(companyId, unique)).map((u) => [u.id, u.name]));
  };
  const ref = (names: Map<number, string>, id: number | null) => (id !== null && names.has(id) ? { id, name: names.get(id)! } : null);

  /** Chat rows with their participants and names, in the rows' order. */
  const hydrate = async (companyId: number, rows: ChatRow[], q: Knex | Knex.Transaction = db): Promise<Chat[]> => {
    if (!rows.length) return [];
    const members: Row[] = await q('chatUsers').where({ companyId }).whereIn('chatId', rows.map((r) => r.id)).orderBy('id');
    const names = await namesOf(companyId, [...members.map((m) => m.userId as number), ...rows.flatMap((r) => (r.ownerId === null ? [] : [r.ownerId]))]);
    return rows.map((r) => ({
      id: r.id,
      uuid: String(r.uuid),
      title: String(r.title),
      ownerId: r.ownerId ?? null,
      owner: ref(names, r.ownerId ?? null),
      lastMessage: String(r.lastMessage ?? ''),
      companyId: r.companyId,
      createdAt: iso(r.createdAt),
      updatedAt: iso(r.updatedAt),
      users: members
        .filter((m) => m.chatId === r.id)
        .map((m) => ({ id: m.id as number, chatId: r.id, userId: m.userId as number, unreads: Number(m.unreads), user: ref(names, m.userId as number) })),
    }));
  };
  const hydrateOne = async (companyId: number, row: ChatRow, q?: Knex | Knex.Transaction) => (await hydrate(companyId, [row], q))[0];

  const messageOut = (row: Row, names: Map<number, string>): ChatMessage => {
    const senderId = (row.senderId as number | null) ?? null;
    return {
      id: row.id as number,
      chatId: row.chatId as number,
      senderId,
      sender: ref(names, senderId),
      message: String(row.message ?? ''),
      mediaPath: (row.mediaPath as string | null) ?? null,
      mediaName: (row.mediaName as string | null) ?? null,
      createdAt: iso(row.createdAt),
      updatedAt: iso(row.updatedAt),
    };
  };

  /**
   * The chat `idOrUuid` of `companyId` in which `userId` takes part (locked when `trx` is given), or 404
   * ERR_NO_CHAT_FOUND.
   */
  const loadFor = async (companyId: number, userId: number, idOrUuid: string, trx?: Knex.Transaction): Promise<ChatRow> => {
    const q = (trx ?? db)('chats').where('chats.companyId', companyId);
    if (UUID_RE.test(idOrUuid)) void q.where('chats.uuid', idOrUuid.toLowerCase());
    else {
      const id = Number(idOrUuid);
      if (!Number.isSafeInteger(id) || id < 1 || id > 2147483647) throw notFound();
      void q.where('chats.id', id);
    }
    void q.whereExists((trx ?? db)('chatUsers').whereRaw('chat_users.chat_id = chats.id').where('chatUsers.userId', userId));
    const row = await (trx ? q.forUpdate() : q).first('chats.*');
    if (!row) throw notFound();
    return row as ChatRow;
  };
  const assertOwner = (row: ChatRow, userId: number) => {
    if (row.ownerId !== userId) throw new AppError('ERR_NO_PERMISSION', 'Only the owner of a chat may change or delete it');
  };

  /** The participant ids of a body (deduplicated, owner added), checked to be users of `companyId`. */
  const participantIds = async (companyId: number, ownerId: number, users: Static<typeof Participants>): Promise<number[]> => {
    const ids = [...new Set([ownerId, ...users.map((u) => toInt(u.id)!)])];
    if (ids.some((id) => !Number.isSafeInteger(id) || id < 1 || id > 2147483647)) throw new AppError('ERR_VALIDATION', 'users[].id must be a user id');
    const found = new Set((await identity.listUsers(companyId, ids)).map((u) => u.id));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length) throw new AppError('ERR_NO_USER_FOUND', `No user ${missing.join(', ')} in this company`);
    return ids;
  };

  app.get('/chats', {
    schema: { tags: ['chats'], summary: "The caller's chats, 20 a page, most recently active first", querystring: ListQuery, response: { 200: ChatPage, ...errors } },
  }, async (req) => {
    const { companyId, id: userId } = req.auth;
    const { searchParam, pageNumber } = req.query as ListQuery;
    const { offset, limit, hasMore } = page(pageNumber, PAGE_SIZE);
    const base = db('chats')
      .join('chatUsers', 'chatUsers.chatId', 'chats.id')
      .where({ 'chats.companyId': companyId, 'chatUsers.userId': userId });
    const term = (searchParam ?? '').trim().toLowerCase();
    if (term) void base.whereRaw('lower(chats.title) LIKE ?', [`%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`]);
    const [{ count }] = await base.clone().count<{ count: string }[]>({ count: '*' });
    const rows = await base.clone().select('chats.*').orderBy('chats.updatedAt', 'desc').orderBy('chats.id', 'desc').offset(offset).limit(limit);
    const total = Number(count);
    return { records: await hydrate(companyId, rows as ChatRow[]), count: total, hasMore: hasMore(total, rows.length) };
  });

  app.get('/chats/:id', {
    schema: { tags: ['chats'], summary: 'One chat (by id or uuid) the caller takes part in', params: ChatParams, response: { 200: ChatSchema, ...errors } },
  }, async (req) => {
    const { companyId, id: userId } = req.auth;
    return hydrateOne(companyId, await loadFor(companyId, userId, (req.params as ChatParams).id));
  });

  app.post('/chats', {
    schema: { tags: ['chats'], summary: 'Create a chat owned by the caller', body: CreateBody, response: { 200: ChatSchema, ...errors } },
  }, async (req) => {
    const { companyId, id: userId } = req.auth;
    const body = req.body as Static<typeof CreateBody>;
    const title = body.title.trim();
    if (!title) throw blank('title');
    const ids = await participantIds(companyId, userId, body.users);
    const chat = await db.transaction(async (trx) => {
      const [row] = await trx('chats').insert({ uuid: randomUUID(), companyId, ownerId: userId, title, lastMessage: '' }).returning('*');
      await trx('chatUsers').insert(ids.map((id) => ({ companyId, chatId: row.id, userId: id, unreads: 0 })));
      return hydrateOne(companyId, row as ChatRow, trx);
    });
    emitTo(companyId, ids, 'chat', { action: 'update', chat });
    for (const id of ids) emitTo(companyId, [id], `chat-user-${id}`, { action: 'create', record: chat });
    return chat;
  });

  app.put('/chats/:id', {
    schema: { tags: ['chats'], summary: "Change a chat's title or participants (owner only)", params: ChatParams, body: UpdateBody, response: { 200: ChatSchema, ...errors } },
  }, async (req) => {
    const { companyId, id: userId } = req.auth;
    const body = req.body as Static<typeof UpdateBody>;
    const title = body.title?.trim();
    if (title === '') throw blank('title');
    const ids = body.users ? await participantIds(companyId, userId, body.users) : null;
    const { chat, removed } = await db.transaction(async (trx) => {
      const row = await loadFor(companyId, userId, (req.params as ChatParams).id, trx);
      assertOwner(row, userId);
      let removed: number[] = [];
      if (ids) {
        const current: number[] = (await trx('chatUsers').where({ chatId: row.id, companyId }).select('userId')).map((m: { userId: number }) => m.userId);
        removed = current.filter((id) => !ids.includes(id));
        const added = ids.filter((id) => !current.includes(id));
        if (removed.length) await trx('chatUsers').where({ chatId: row.id, companyId }).whereIn('userId', removed).del();
        if (added.length) await trx('chatUsers').insert(added.map((id) => ({ companyId, chatId: row.id, userId: id, unreads: 0 })));
      }
      const [updated] = await trx('chats').where({ id: row.id, companyId }).update({ ...(title ? { title } : {}), updatedAt: trx.fn.now() }).returning('*');
      return { chat: await hydrateOne(companyId, updated as ChatRow, trx), removed };
    });
    const members = participantsOf(chat);
    emitTo(companyId, members, 'chat', { action: 'update', chat });
    emitTo(companyId, members, `chat-${chat.id}`, { action: 'update', chat });
    for (const id of members) emitTo(companyId, [id], `chat-user-${id}`, { action: 'update', record: chat });
    if (removed.length) emitTo(companyId, removed, 'chat', { action: 'delete', id: String(chat.id) });
    return chat;
  });

  app.delete('/chats/:id', {
    schema: { tags: ['chats'], summary: 'Delete a chat and its messages (owner only)', params: ChatParams, response: { 200: Type.Object({ message: Type.String() }), ...errors } },
  }, async (req) => {
    const { companyId, id: userId } = req.auth;
    const { chatId, members } = await db.transaction(async (trx) => {
      const row = await loadFor(companyId, userId, (req.params as ChatParams).id, trx);
      assertOwner(row, userId);
      const members: number[] = (await trx('chatUsers').where({ chatId: row.id, companyId }).select('userId')).map((m: { userId: number }) => m.userId);
      await trx('chats').where({ id: row.id, companyId }).del();
      return { chatId: row.id, members };
    });
    emitTo(companyId, members, 'chat', { action: 'delete', id: String(chatId) });
    return { message: 'Chat deleted' };
  });

  app.get('/chats/:id/messages', {
    schema: { tags: ['chats'], summary: "A page of a chat's messages: page 1 is the newest, each page oldest first", params: ChatParams, querystring: MessagesQuery, response: { 200: MessagePage, ...errors } },
  }, async (req) => {
    const { companyId, id: userId } = req.auth;
    const chat = await loadFor(companyId, userId, (req.params as ChatParams).id);
    const { offset, limit, hasMore } = page((req.query as Static<typeof MessagesQuery>).pageNumber, PAGE_SIZE);
    const base = db('chatMessages').where({ chatId: chat.id, companyId });
    const [{ count }] = await base.clone().count<{ count: string }[]>({ count: '*' });
    const rows: Row[] = (await base.clone().orderBy('id', 'desc').offset(offset).limit(limit)).reverse();
    const names = await namesOf(companyId, rows.flatMap((r) => (r.senderId === null ? [] : [r.senderId as number])));
    const total = Number(count);
    return { records: rows.map((r) => messageOut(r, names)), count: total, hasMore: hasMore(total, rows.length) };
  });

  app.post('/chats/:id/messages', {
    config: {
      rateLimit: { max: MESSAGE_RATE_LIMIT, timeWindow: '1 minute', keyGenerator: (req) => `chat-message:${req.auth?.companyId}:${req.auth?.id ?? req.ip}` },
    },
    schema: { tags: ['chats'], summary: 'Post a message to a chat (participants only)', params: ChatParams, body: MessageBody, response: { 200: ChatMessageSchema, ...errors } },
  }, async (req) => {
    const { companyId, id: userId } = req.auth;
    const text = (req.body as Static<typeof MessageBody>).message;
    if (!text.trim()) throw blank('message');
    const { row, chat } = await db.transaction(async (trx) => {
      const found = await loadFor(companyId, userId, (req.params as ChatParams).id, trx);
      const [row] = await trx('chatMessages').insert({ companyId, chatId: found.id, senderId: userId, message: text }).returning('*');
      await trx('chatUsers').where({ chatId: found.id, companyId }).whereNot({ userId }).increment('unreads', 1);
      const [updated] = await trx('chats').where({ id: found.id, companyId }).update({ lastMessage: text.slice(0, LAST_MESSAGE_MAX), updatedAt: trx.fn.now() }).returning('*');
      return { row: row as Row, chat: await hydrateOne(companyId, updated as ChatRow, trx) };
    });
    const names = new Map(chat.users.flatMap((u) => (u.user ? [[u.userId, u.user.name] as const] : [])));
    const message = messageOut(row, names);
    const payload = { action: 'new-message', newMessage: { ...message, chat }, chat };
    const members = participantsOf(chat);
    emitTo(companyId, members, 'chat', payload);
    emitTo(companyId, members, `chat-${chat.id}`, payload);
    return message;
  });

  app.post('/chats/:id/read', {
    schema: { tags: ['chats'], summary: "Mark a chat read for the caller (userId must be the caller's)", params: ChatParams, body: ReadBody, response: { 200: ChatSchema, ...errors } },
  }, async (req) => {
    const { companyId, id: userId } = req.auth;
    const found = await loadFor(companyId, userId, (req.params as ChatParams).id);
    if (toInt((req.body as Static<typeof ReadBody>).userId) !== userId) throw new AppError('ERR_NO_PERMISSION', 'A chat can be marked read only for the caller');
    await db('chatUsers').where({ chatId: found.id, companyId, userId }).update({ unreads: 0, updatedAt: db.fn.now() });
    const chat = await hydrateOne(companyId, found);
    const members = participantsOf(chat);
    emitTo(companyId, members, 'chat', { action: 'update', chat });
    emitTo(companyId, members, `chat-${chat.id}`, { action: 'update', chat });
    return chat;
  });
}
