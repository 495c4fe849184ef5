import { errorResponses, ListQuery, toInt, Type, type PluginApp } from '@atendo/sdk';
import { ChatMessageSchema, ChatSchema, MESSAGE_RATE_LIMIT } from '../contract';
import { ChatPage, ChatParams, CreateBody, MessageBody, MessagePage, MessagesQuery, ReadBody, UpdateBody } from '../schemas/chats';
import type { ChatStore } from '../services/chats';

const errors = errorResponses(400, 401, 403, 404, 429);

/**
 * Internal chat routes (spec 3-campaigns-and-tools.md "Internal chat", §3, §7; 1-platform.md §2, §4;
 * wire-shapes "GET /chats"). The plugin's plan gate (`useInternalChat`) answers 403 ERR_FEATURE_NOT_IN_PLAN
 * on every route. Chats are private to their participants: a chat of another company, or one the caller
 * does not take part in, answers 404 ERR_NO_CHAT_FOUND (nothing about it is revealed). `:id` is the
 * chat's id or uuid. `Chat` = `{id, uuid, title, ownerId, owner {id, name}|null, lastMessage, companyId,
 * createdAt, updatedAt, users: [{id, chatId, userId, unreads, user {id, name}}]}`; `ChatMessage` =
 * `{id, chatId, senderId, sender {id, name}|null, message, mediaPath, mediaName, createdAt, updatedAt}`.
 * - `GET /chats` (also `GET /chats/`) ?searchParam (title, case-insensitive) &pageNumber ->
 *   `{records: Chat[], count, hasMore}`, 20 a page, only the caller's chats, most recently active first.
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
export async function chatsRoutes(app: PluginApp, deps: { store: ChatStore }): Promise<void> {
  const { store } = deps;

  // Clients of the product family call the list with a trailing slash (`GET /chats/`): both serve it.
  for (const url of ['/chats', '/chats/']) {
    app.get(url, {
      schema: { tags: ['chats'], summary: "The caller's chats, 20 a page, most recently active first", querystring: ListQuery, response: { 200: ChatPage, ...errors } },
    }, (req) => store.list(req.auth.companyId, req.auth.id, req.query));
  }

  app.get('/chats/:id', {
    schema: { tags: ['chats'], summary: 'One chat (by id or uuid) the caller takes part in', params: ChatParams, response: { 200: ChatSchema, ...errors } },
  }, (req) => store.get(req.auth.companyId, req.auth.id, req.params.id));

  app.post('/chats', {
    schema: { tags: ['chats'], summary: 'Create a chat owned by the caller', body: CreateBody, response: { 200: ChatSchema, ...errors } },
  }, (req) => store.create(req.auth.companyId, req.auth.id, req.body));

  app.put('/chats/:id', {
    schema: { tags: ['chats'], summary: "Change a chat's title or participants (owner only)", params: ChatParams, body: UpdateBody, response: { 200: ChatSchema, ...errors } },
  }, (req) => store.update(req.auth.companyId, req.auth.id, req.params.id, req.body));

  app.delete('/chats/:id', {
    schema: { tags: ['chats'], summary: 'Delete a chat and its messages (owner only)', params: ChatParams, response: { 200: Type.Object({ message: Type.String() }), ...errors } },
  }, async (req) => {
    await store.remove(req.auth.companyId, req.auth.id, req.params.id);
    return { message: 'Chat deleted' };
  });

  app.get('/chats/:id/messages', {
    schema: { tags: ['chats'], summary: "A page of a chat's messages: page 1 is the newest, each page oldest first", params: ChatParams, querystring: MessagesQuery, response: { 200: MessagePage, ...errors } },
  }, (req) => store.messages(req.auth.companyId, req.auth.id, req.params.id, req.query.pageNumber));

  app.post('/chats/:id/messages', {
    config: {
      rateLimit: { max: MESSAGE_RATE_LIMIT, timeWindow: '1 minute', keyGenerator: (req) => `chat-message:${req.auth?.companyId}:${req.auth?.id ?? req.ip}` },
    },
    schema: { tags: ['chats'], summary: 'Post a message to a chat (participants only)', params: ChatParams, body: MessageBody, response: { 200: ChatMessageSchema, ...errors } },
  }, (req) => store.post(req.auth.companyId, req.auth.id, req.params.id, req.body.message));

  app.post('/chats/:id/read', {
    schema: { tags: ['chats'], summary: "Mark a chat read for the caller (userId must be the caller's)", params: ChatParams, body: ReadBody, response: { 200: ChatSchema, ...errors } },
  }, (req) => store.markRead(req.auth.companyId, req.auth.id, req.params.id, toInt(req.body.userId)));
}
