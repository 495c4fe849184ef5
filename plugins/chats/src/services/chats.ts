import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { AppError, iso, page, toInt, type IdentityService, type ListQuery, type Realtime } from '@atendo/sdk';
import { LAST_MESSAGE_MAX, PAGE_SIZE, type Chat, type ChatMessage } from '../contract';
import type { CreateBody, Participants, UpdateBody } from '../schemas/chats';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Row = Record<string, unknown>;
type ChatRow = Row & { id: number; uuid: string; ownerId: number | null; companyId: number };

const notFound = () => new AppError('ERR_NO_CHAT_FOUND');
const blank = (field: string) => new AppError('ERR_VALIDATION', `${field} must not be blank`);

/**
 * The internal chat of a company: `chats`, `chat_users` (participants with unread counts) and
 * `chat_messages`. Every method takes the caller's company and user: a chat of another company, or one the
 * caller does not take part in, is 404 ERR_NO_CHAT_FOUND. Writes run in one transaction; events go to the
 * participants' sockets only (each participant's user room), after commit. Names come from the identity
 * service.
 */
export class ChatStore {
  constructor(
    private readonly db: Knex,
    private readonly realtime: Realtime,
    private readonly identity: IdentityService,
  ) {}

  /** Emits `company-{cid}-{name}` with `payload` to each of `userIds` (their sockets only). */
  private emitTo(companyId: number, userIds: Iterable<number>, name: string, payload: unknown): void {
    // Never without a user id: that would reach the whole company.
    for (const userId of new Set(userIds)) if (Number.isInteger(userId)) this.realtime.emitToCompany(companyId, `company-${companyId}-${name}`, payload, { userId });
  }

  private participantsOf(chat: Chat): number[] {
    return chat.users.map((u) => u.userId);
  }

  /** Names of `ids` (users of `companyId`), read through the identity service. */
  private async namesOf(companyId: number, ids: number[]): Promise<Map<number, string>> {
    const unique = [...new Set(ids)];
    if (!unique.length) return new Map();
    return new Map((await this.identity.listUsers(companyId, unique)).map((u) => [u.id, u.name]));
  }

  private ref(names: Map<number, string>, id: number | null) {
    return id !== null && names.has(id) ? { id, name: names.get(id)! } : null;
  }

  /** Chat rows with their participants and names, in the rows' order. */
  private async hydrate(companyId: number, rows: ChatRow[], q: Knex | Knex.Transaction = this.db): Promise<Chat[]> {
    if (!rows.length) return [];
    const members: Row[] = await q('chatUsers').where({ companyId }).whereIn('chatId', rows.map((r) => r.id)).orderBy('id');
    const names = await this.namesOf(companyId, [...members.map((m) => m.userId as number), ...rows.flatMap((r) => (r.ownerId === null ? [] : [r.ownerId]))]);
    return rows.map((r) => ({
      id: r.id,
      uuid: String(r.uuid),
      title: String(r.title),
      ownerId: r.ownerId ?? null,
      owner: this.ref(names, r.ownerId ?? null),
      lastMessage: String(r.lastMessage ?? ''),
      companyId: r.companyId,
      createdAt: iso(r.createdAt),
      updatedAt: iso(r.updatedAt),
      users: members
        .filter((m) => m.chatId === r.id)
        .map((m) => ({ id: m.id as number, chatId: r.id, userId: m.userId as number, unreads: Number(m.unreads), user: this.ref(names, m.userId as number) })),
    }));
  }

  private async hydrateOne(companyId: number, row: ChatRow, q?: Knex | Knex.Transaction): Promise<Chat> {
    return (await this.hydrate(companyId, [row], q))[0];
  }

  private messageOut(row: Row, names: Map<number, string>): ChatMessage {
    const senderId = (row.senderId as number | null) ?? null;
    return {
      id: row.id as number,
      chatId: row.chatId as number,
      senderId,
      sender: this.ref(names, senderId),
      message: String(row.message ?? ''),
      mediaPath: (row.mediaPath as string | null) ?? null,
      mediaName: (row.mediaName as string | null) ?? null,
      createdAt: iso(row.createdAt),
      updatedAt: iso(row.updatedAt),
    };
  }

  /**
   * The chat `idOrUuid` of `companyId` in which `userId` takes part (locked when `trx` is given), or 404
   * ERR_NO_CHAT_FOUND.
   */
  private async loadFor(companyId: number, userId: number, idOrUuid: string, trx?: Knex.Transaction): Promise<ChatRow> {
    const q = (trx ?? this.db)('chats').where('chats.companyId', companyId);
    if (UUID_RE.test(idOrUuid)) void q.where('chats.uuid', idOrUuid.toLowerCase());
    else {
      const id = Number(idOrUuid);
      if (!Number.isSafeInteger(id) || id < 1 || id > 2147483647) throw notFound();
      void q.where('chats.id', id);
    }
    void q.whereExists((trx ?? this.db)('chatUsers').whereRaw('chat_users.chat_id = chats.id').where('chatUsers.userId', userId));
    const row = await (trx ? q.forUpdate() : q).first('chats.*');
    if (!row) throw notFound();
    return row as ChatRow;
  }

  private assertOwner(row: ChatRow, userId: number): void {
    if (row.ownerId !== userId) throw new AppError('ERR_NO_PERMISSION', 'Only the owner of a chat may change or delete it');
  }

  /** The participant ids of a body (deduplicated, owner added), checked to be users of `companyId`. */
  private async participantIds(companyId: number, ownerId: number, users: Participants): Promise<number[]> {
    const ids = [...new Set([ownerId, ...users.map((u) => toInt(u.id)!)])];
    if (ids.some((id) => !Number.isSafeInteger(id) || id < 1 || id > 2147483647)) throw new AppError('ERR_VALIDATION', 'users[].id must be a user id');
    const found = new Set((await this.identity.listUsers(companyId, ids)).map((u) => u.id));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length) throw new AppError('ERR_NO_USER_FOUND', `No user ${missing.join(', ')} in this company`);
    return ids;
  }

  /** A page (20) of the caller's chats, most recently active first; `searchParam` matches the title. */
  async list(companyId: number, userId: number, q: ListQuery): Promise<{ records: Chat[]; count: number; hasMore: boolean }> {
    const { offset, limit, hasMore } = page(q.pageNumber, PAGE_SIZE);
    const base = this.db('chats')
      .join('chatUsers', 'chatUsers.chatId', 'chats.id')
      .where({ 'chats.companyId': companyId, 'chatUsers.userId': userId });
    const term = (q.searchParam ?? '').trim().toLowerCase();
    if (term) void base.whereRaw('lower(chats.title) LIKE ?', [`%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`]);
    const [{ count }] = await base.clone().count<{ count: string }[]>({ count: '*' });
    const rows = await base.clone().select('chats.*').orderBy('chats.updatedAt', 'desc').orderBy('chats.id', 'desc').offset(offset).limit(limit);
    const total = Number(count);
    return { records: await this.hydrate(companyId, rows as ChatRow[]), count: total, hasMore: hasMore(total, rows.length) };
  }

  /** One chat the caller takes part in. */
  async get(companyId: number, userId: number, idOrUuid: string): Promise<Chat> {
    return this.hydrateOne(companyId, await this.loadFor(companyId, userId, idOrUuid));
  }

  /** Creates a chat owned by `userId` (always a participant); emits to the participants. */
  async create(companyId: number, userId: number, body: CreateBody): Promise<Chat> {
    const title = body.title.trim();
    if (!title) throw blank('title');
    const ids = await this.participantIds(companyId, userId, body.users);
    const chat = await this.db.transaction(async (trx) => {
      const [row] = await trx('chats').insert({ uuid: randomUUID(), companyId, ownerId: userId, title, lastMessage: '' }).returning('*');
      await trx('chatUsers').insert(ids.map((id) => ({ companyId, chatId: row.id, userId: id, unreads: 0 })));
      return this.hydrateOne(companyId, row as ChatRow, trx);
    });
    this.emitTo(companyId, ids, 'chat', { action: 'update', chat });
    for (const id of ids) this.emitTo(companyId, [id], `chat-user-${id}`, { action: 'create', record: chat });
    return chat;
  }

  /**
   * Changes the title or replaces the participants (owner only; the owner stays, kept participants keep their
   * unreads); emits update to the participants and delete to those removed.
   */
  async update(companyId: number, userId: number, idOrUuid: string, body: UpdateBody): Promise<Chat> {
    const title = body.title?.trim();
    if (title === '') throw blank('title');
    const ids = body.users ? await this.participantIds(companyId, userId, body.users) : null;
    const { chat, removed } = await this.db.transaction(async (trx) => {
      const row = await this.loadFor(companyId, userId, idOrUuid, trx);
      this.assertOwner(row, userId);
      let removed: number[] = [];
      if (ids) {
        const current: number[] = (await trx('chatUsers').where({ chatId: row.id, companyId }).select('userId')).map((m: { userId: number }) => m.userId);
        removed = current.filter((id) => !ids.includes(id));
        const added = ids.filter((id) => !current.includes(id));
        if (removed.length) await trx('chatUsers').where({ chatId: row.id, companyId }).whereIn('userId', removed).del();
        if (added.length) await trx('chatUsers').insert(added.map((id) => ({ companyId, chatId: row.id, userId: id, unreads: 0 })));
      }
      const [updated] = await trx('chats').where({ id: row.id, companyId }).update({ ...(title ? { title } : {}), updatedAt: trx.fn.now() }).returning('*');
      return { chat: await this.hydrateOne(companyId, updated as ChatRow, trx), removed };
    });
    const members = this.participantsOf(chat);
    this.emitTo(companyId, members, 'chat', { action: 'update', chat });
    this.emitTo(companyId, members, `chat-${chat.id}`, { action: 'update', chat });
    for (const id of members) this.emitTo(companyId, [id], `chat-user-${id}`, { action: 'update', record: chat });
    if (removed.length) this.emitTo(companyId, removed, 'chat', { action: 'delete', id: String(chat.id) });
    return chat;
  }

  /** Deletes a chat and its messages (owner only); emits delete to its participants. */
  async remove(companyId: number, userId: number, idOrUuid: string): Promise<void> {
    const { chatId, members } = await this.db.transaction(async (trx) => {
      const row = await this.loadFor(companyId, userId, idOrUuid, trx);
      this.assertOwner(row, userId);
      const members: number[] = (await trx('chatUsers').where({ chatId: row.id, companyId }).select('userId')).map((m: { userId: number }) => m.userId);
      await trx('chats').where({ id: row.id, companyId }).del();
      return { chatId: row.id, members };
    });
    this.emitTo(companyId, members, 'chat', { action: 'delete', id: String(chatId) });
  }

  /** A page (20) of a chat's messages: page 1 holds the newest, each page in chronological order. */
  async messages(companyId: number, userId: number, idOrUuid: string, pageNumber: number | undefined): Promise<{ records: ChatMessage[]; count: number; hasMore: boolean }> {
    const chat = await this.loadFor(companyId, userId, idOrUuid);
    const { offset, limit, hasMore } = page(pageNumber, PAGE_SIZE);
    const base = this.db('chatMessages').where({ chatId: chat.id, companyId });
    const [{ count }] = await base.clone().count<{ count: string }[]>({ count: '*' });
    const rows: Row[] = (await base.clone().orderBy('id', 'desc').offset(offset).limit(limit)).reverse();
    const names = await this.namesOf(companyId, rows.flatMap((r) => (r.senderId === null ? [] : [r.senderId as number])));
    const total = Number(count);
    return { records: rows.map((r) => this.messageOut(r, names)), count: total, hasMore: hasMore(total, rows.length) };
  }

  /**
   * Posts `text` (not blank) as `userId`: one more unread for every other participant, `lastMessage` set;
   * emits `new-message` to the participants.
   */
  async post(companyId: number, userId: number, idOrUuid: string, text: string): Promise<ChatMessage> {
    if (!text.trim()) throw blank('message');
    const { row, chat } = await this.db.transaction(async (trx) => {
      const found = await this.loadFor(companyId, userId, idOrUuid, trx);
      const [row] = await trx('chatMessages').insert({ companyId, chatId: found.id, senderId: userId, message: text }).returning('*');
      await trx('chatUsers').where({ chatId: found.id, companyId }).whereNot({ userId }).increment('unreads', 1);
      const [updated] = await trx('chats').where({ id: found.id, companyId }).update({ lastMessage: text.slice(0, LAST_MESSAGE_MAX), updatedAt: trx.fn.now() }).returning('*');
      return { row: row as Row, chat: await this.hydrateOne(companyId, updated as ChatRow, trx) };
    });
    const names = new Map(chat.users.flatMap((u) => (u.user ? [[u.userId, u.user.name] as const] : [])));
    const message = this.messageOut(row, names);
    const payload = { action: 'new-message', newMessage: { ...message, chat }, chat };
    const members = this.participantsOf(chat);
    this.emitTo(companyId, members, 'chat', payload);
    this.emitTo(companyId, members, `chat-${chat.id}`, payload);
    return message;
  }

  /** Sets the caller's unreads to 0 (`forUserId` must be the caller: 403 otherwise); emits update. */
  async markRead(companyId: number, userId: number, idOrUuid: string, forUserId: number | undefined): Promise<Chat> {
    const found = await this.loadFor(companyId, userId, idOrUuid);
    if (forUserId !== userId) throw new AppError('ERR_NO_PERMISSION', 'A chat can be marked read only for the caller');
    await this.db('chatUsers').where({ chatId: found.id, companyId, userId }).update({ unreads: 0, updatedAt: this.db.fn.now() });
    const chat = await this.hydrateOne(companyId, found);
    const members = this.participantsOf(chat);
    this.emitTo(companyId, members, 'chat', { action: 'update', chat });
    this.emitTo(companyId, members, `chat-${chat.id}`, { action: 'update', chat });
    return chat;
  }
}
