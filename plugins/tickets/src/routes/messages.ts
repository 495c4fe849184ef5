import type { FastifyRequest } from 'fastify';
import type {} from '@fastify/multipart';
import { AppError, errorResponses, IdParams, toBool, toInt, Type, type StoredFile, type PluginApp } from '@atendo/sdk';
import type { TicketsDeps } from '../services/deps';
import { convertVoiceNote } from '../services/voice';
import {
  assertCanSend,
  deleteMessage,
  editMessage,
  forwardMessage,
  listMessages,
  reactToMessage,
  MEDIA_AREA,
  MESSAGE_MEDIA_TYPES,
  sendMedia,
  sendMessage,
  type MediaItem,
  type SerializedMessage,
} from '../services/messages';
import {
  EditMessageBody,
  ForwardMessageBody,
  ListMessagesQuery,
  MessageSchema,
  MessagesPage,
  MessageTicketParams,
  SendMessageBody,
} from '../schemas/messages';

const errors = errorResponses(400, 401, 403, 404);

/** The zero-width joiner old clients put before a caption to mark media as private. */
const PRIVATE_MARK = '\u200d';

/** An IntLike id as a number in 1..2^31-1; 400 ERR_VALIDATION otherwise. */
function idOf(v: number | string, what: string): number {
  const n = toInt(v);
  if (n === undefined || !Number.isInteger(n) || n < 1 || n > 2147483647) throw new AppError('ERR_VALIDATION', `${what} must be an id`);
  return n;
}

/** Parses a multipart `quotedMsg` / `quotedMsgId` field: digits or a JSON object with `id`. */
function quotedIdOf(value: string): number | undefined {
  const v = value.trim();
  if (!v || v === 'null' || v === 'undefined') return undefined;
  if (/^\d{1,10}$/.test(v)) return Number(v);
  try {
    const parsed = JSON.parse(v) as { id?: unknown } | null;
    const id = Number(parsed?.id);
    if (parsed === null) return undefined;
    if (Number.isInteger(id) && id >= 1 && id <= 2147483647) return id;
  } catch {
    /* fall through */
  }
  throw new AppError('ERR_VALIDATION', 'quotedMsg must be a message id');
}

/**
 * Reads a multipart send: every `medias` file is stored at once (type-checked by the upload store), text
 * fields are collected. Stored files are removed again when anything fails. Returns the items (file +
 * caption: the n-th `body` for the n-th file when there is one per file, else the single `body`), the
 * private flag (field `isPrivate` 'true', or a caption starting with U+200D) and the quoted message id.
 */
async function readMultipart(deps: TicketsDeps, req: FastifyRequest): Promise<{ items: MediaItem[]; isPrivate: boolean; quotedMsgId?: number; voice: boolean; cleanup: () => Promise<void> }> {
  const companyId = req.auth.companyId;
  const files: StoredFile[] = [];
  const bodies: string[] = [];
  let isPrivate = false;
  let voice = false;
  let quotedMsgId: number | undefined;
  const cleanup = async () => {
    for (const f of files) await deps.uploads.remove(companyId, f.path).catch(() => undefined);
  };
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'medias') {
          part.file.resume();
          throw new AppError('ERR_VALIDATION', 'Files go in the multipart field "medias"');
        }
        files.push(await deps.uploads.save(companyId, MEDIA_AREA, part, { allow: MESSAGE_MEDIA_TYPES }));
        continue;
      }
      const value = typeof part.value === 'string' ? part.value : String(part.value ?? '');
      if (part.fieldname === 'body') bodies.push(value);
      else if (part.fieldname === 'isPrivate') isPrivate = isPrivate || value.trim() === 'true';
      else if (part.fieldname === 'voice') voice = voice || value.trim() === 'true';
      else if (part.fieldname === 'quotedMsg' || part.fieldname === 'quotedMsgId') quotedMsgId = quotedIdOf(value);
      // fromMe, read, mediaUrl and other fields of old clients are ignored.
    }
    const captions = bodies.map((b) => {
      if (b.startsWith(PRIVATE_MARK)) {
        isPrivate = true;
        return b.slice(PRIVATE_MARK.length);
      }
      return b;
    });
    const items = files.map((file, i) => ({ file, caption: captions.length === files.length ? captions[i] : (captions[0] ?? '') }));
    return { items, isPrivate, quotedMsgId, voice, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/**
 * The message routes (spec 2-tickets.md §2 "Conversation view", §5, §7 "Messages"; wire-shapes §4
 * GET/POST /messages/:ticketId, §5 `company-{cid}-appMessage`). Any signed-in user; every query is scoped
 * to the caller's company (ids of other companies answer 404) and to the tickets the caller may see (403
 * ERR_NO_PERMISSION). Messages are answered as `MessageSchema` (wire MessageL).
 * - `GET /messages/:ticketId?pageNumber&selectedQueues` -> {messages (20 per page, page 1 the newest, each
 *   page in ascending createdAt order; the history of every visible ticket of the same contact, connection
 *   and group flag), ticket, count, hasMore}. Marks the ticket's inbound messages read (updateUnread).
 * - `POST /messages/:ticketId` JSON {body, quotedMsg?: {id}, isPrivate?, vCard?: {name, number},
 *   signMessage?} or multipart (files in `medias`, caption `body`, `isPrivate`; `voice` 'true' for a voice
 *   note recorded in the browser: one audio file of at least 10,000 bytes, converted to the channel's
 *   voice-note format, services/voice.ts) -> the created message (for several files: the last one; each
 *   file is its own message). 400 ERR_VALIDATION (empty or > 4096
 *   characters, no file), 400 ERR_TICKET_NOT_OPEN, 403 ERR_NO_PERMISSION, 404 ERR_NO_TICKET_FOUND /
 *   ERR_NO_MESSAGE_FOUND (quoted message outside the conversation), 413 ERR_PAYLOAD_TOO_LARGE (UPLOAD_LIMIT),
 *   415 ERR_UPLOAD_TYPE (file type not allowed) / ERR_UNSUPPORTED_MEDIA_TYPE (neither JSON nor multipart).
 * - `PUT /messages/:id` {body} -> the edited message (own text messages, 15 minutes; the signature line stays).
 * - `PUT /messages/:id/reaction` {emoji} -> the message with the caller's reaction ('' removes it), sent
 *   through WhatsApp, the Cloud API or Instagram (services/messages/reactions.ts).
 * - `DELETE /messages/:id` -> the deleted message (own messages, or any as admin).
 * - `POST /message/forward` {messageId, contactId, signMessage?} -> the forwarded copy.
 */
export async function messageRoutes(app: PluginApp, deps: TicketsDeps): Promise<void> {
  app.get('/messages/:ticketId', {
    schema: {
      tags: ['messages'],
      summary: "A ticket's conversation, 20 messages per page (page 1 the newest); marks it read",
      params: MessageTicketParams,
      querystring: ListMessagesQuery,
      response: { 200: MessagesPage, ...errors },
    },
  }, async (req) => {
    const { ticketId } = req.params;
    return listMessages(deps, req.auth, ticketId, req.query);
  });

  app.post('/messages/:ticketId', {
    schema: {
      tags: ['messages'],
      summary: 'Send a text, private note or contact card (JSON), or media files (multipart "medias")',
      consumes: ['application/json', 'multipart/form-data'],
      params: MessageTicketParams,
      // Only JSON bodies have a schema; multipart parts are checked while they are read.
      body: { content: { 'application/json': { schema: SendMessageBody } } },
      response: { 200: MessageSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
    },
  }, async (req) => {
    const { ticketId } = req.params;
    if (req.isMultipart()) {
      // Permission and status first: nothing is stored for a caller who may not send here.
      const ticket = await assertCanSend(deps, req.auth, ticketId);
      const { items, isPrivate, quotedMsgId, voice, cleanup } = await readMultipart(deps, req);
      let sent: SerializedMessage[];
      try {
        // A voice note recorded in the browser becomes what the ticket's channel plays as one.
        if (voice) {
          if (items.length !== 1) throw new AppError('ERR_VALIDATION', 'A voice note is one file in "medias"');
          if (!deps.uploadsDir) throw new AppError('ERR_INTERNAL', 'voice notes need the upload folder');
          const { file, converted } = await convertVoiceNote({ uploads: deps.uploads, uploadsDir: deps.uploadsDir, companyId: req.auth.companyId, area: MEDIA_AREA, channel: ticket.channel, input: items[0].file, allow: MESSAGE_MEDIA_TYPES });
          if (!converted) deps.log.warn({ ticketId }, 'messages: no ffmpeg for this platform in @ffmpeg-installer/ffmpeg and no FFMPEG_PATH; the voice note is sent as recorded');
          items[0] = { ...items[0], file };
        }
        sent = await sendMedia(deps, req.auth, ticketId, items, { isPrivate, quotedMsgId });
      } catch (err) {
        await cleanup();
        // A converted voice note is not among the files read: remove it too.
        for (const i of items) await deps.uploads.remove(req.auth.companyId, i.file.path).catch(() => undefined);
        throw err;
      }
      return sent[sent.length - 1];
    }
    const body = req.body as SendMessageBody | undefined | string;
    if (body === undefined || body === null) throw new AppError('ERR_VALIDATION', 'A JSON body is required');
    if (typeof body !== 'object') throw new AppError('ERR_UNSUPPORTED_MEDIA_TYPE', 'Send JSON or multipart/form-data');
    return sendMessage(deps, req.auth, ticketId, {
      body: body.body,
      quotedMsgId: body.quotedMsg ? idOf(body.quotedMsg.id, 'quotedMsg.id') : undefined,
      isPrivate: toBool(body.isPrivate),
      vCard: body.vCard,
      signMessage: toBool(body.signMessage),
    });
  });

  app.put('/messages/:id', {
    schema: { tags: ['messages'], summary: 'Edit the text of an own message (within 15 minutes)', params: IdParams, body: EditMessageBody, response: { 200: MessageSchema, ...errors } },
  }, async (req) => {
    const m = await editMessage(deps, req.auth, req.params.id, req.body.body);
    await deps.audit?.record(deps.db, { req, entity: 'message', entityId: req.params.id, action: 'edit', after: { body: m.body, ticketId: m.ticketId }, personal: true });
    return m;
  });

  app.put('/messages/:id/reaction', {
    schema: {
      tags: ['messages'],
      summary: "The caller's reaction to a message ('' removes it), sent through the channel when it takes reactions",
      params: IdParams,
      body: Type.Object({ emoji: Type.String({ maxLength: 32 }) }),
      response: { 200: MessageSchema, ...errors },
    },
  }, async (req) => reactToMessage(deps, req.auth, req.params.id, req.body.emoji));

  app.delete('/messages/:id', {
    schema: { tags: ['messages'], summary: 'Delete a message (its author, or an admin)', params: IdParams, response: { 200: MessageSchema, ...errors } },
  }, async (req) => {
    const m = await deleteMessage(deps, req.auth, req.params.id);
    await deps.audit?.record(deps.db, { req, entity: 'message', entityId: req.params.id, action: 'delete', before: { body: m.body, ticketId: m.ticketId }, personal: true });
    return m;
  });

  app.post('/message/forward', {
    schema: { tags: ['messages'], summary: "Forward a message to a contact (the contact's active ticket, or a new one)", body: ForwardMessageBody, response: { 200: MessageSchema, ...errors } },
  }, async (req) => {
    const body = req.body;
    return forwardMessage(deps, req.auth, { messageId: idOf(body.messageId, 'messageId'), contactId: idOf(body.contactId, 'contactId'), signMessage: toBool(body.signMessage) });
  });
}
