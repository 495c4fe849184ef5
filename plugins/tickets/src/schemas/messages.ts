import { BoolLike, IntLike, Nullable, Type, type Static } from '@atendo/sdk';
import { QueueRef, TicketSchema } from './tickets';

/**
 * TypeBox schemas of the message routes: GET/POST /messages/:ticketId, PUT/DELETE /messages/:id and
 * POST /message/forward. Wire shapes: wire-shapes.md §4 "GET /messages/:ticketId", "POST
 * /messages/:ticketId" and §5 `company-{cid}-appMessage`; rules: spec 2-tickets.md §3 "Message", §5, §7.
 */

const MAX_ID = 2147483647;
/** A message's delivery states (wire `DeliveryState`): by ack 0..4, and `failed`. */
export const DELIVERY_STATES = ['pending', 'sent', 'delivered', 'read', 'played', 'failed'] as const;
/** Longest message text, counted after trimming (characters). */
export const MESSAGE_MAX = 4096;
/** Raw text fields may carry surrounding whitespace; the trimmed text must fit MESSAGE_MAX. */
const RAW_TEXT_MAX = MESSAGE_MAX * 4;
/** Page size of GET /messages/:ticketId (the product family's). */
export const MESSAGES_PAGE_SIZE = 20;

const Id = () => Type.Integer({ minimum: 1, maximum: MAX_ID });

export const MessageTicketParams = Type.Object({ ticketId: Id() });
export type MessageTicketParams = Static<typeof MessageTicketParams>;

/**
 * Query of GET /messages/:ticketId: `pageNumber` (1-based, 20 per page, page 1 = newest) and
 * `selectedQueues` (a JSON number[] as the old client sends it; narrows the other tickets of the history).
 */
export const ListMessagesQuery = Type.Object({
  pageNumber: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, default: 1 })),
  selectedQueues: Type.Optional(Type.String({ maxLength: 2000 })),
});
export type ListMessagesQuery = Static<typeof ListMessagesQuery>;

/** `{id, name}` of a message's contact (inbound messages; null for ours). */
const ContactRef = Type.Object({ id: Type.Integer(), name: Type.String() }, { additionalProperties: false });

/** A reaction on a message: the emoji, who reacted (ourselves, or the provider id of the sender), when. */
export const ReactionSchema = Type.Object(
  { emoji: Type.String(), fromMe: Type.Boolean(), senderId: Type.Optional(Type.String()), at: Type.String() },
  { additionalProperties: false },
);

/** The message a reply quotes. */
export const QuotedMessageSchema = Type.Object(
  {
    id: Type.Integer(),
    body: Type.String(),
    fromMe: Type.Boolean(),
    mediaType: Type.String(),
    mediaUrl: Nullable(Type.String()),
    isDeleted: Type.Boolean(),
    contact: Nullable(ContactRef),
  },
  { additionalProperties: false },
);

/**
 * A serialized message (wire MessageL): the row (camelCase; no storage path) plus `mediaUrl` (a signed URL,
 * or null), `contact` {id, name}|null, `quotedMsg`|null, `ticket` {id, queueId, queue {id,name,color}|null}
 * for the ticket-change banners, and `reactions`.
 */
export const MessageSchema = Type.Object(
  {
    id: Type.Integer(),
    companyId: Type.Integer(),
    ticketId: Type.Integer(),
    contactId: Nullable(Type.Integer()),
    wid: Nullable(Type.String()),
    remoteJid: Nullable(Type.String()),
    participant: Nullable(Type.String()),
    dataJson: Nullable(Type.String()),
    ack: Type.Integer(),
    read: Type.Boolean(),
    fromMe: Type.Boolean(),
    body: Type.String(),
    mediaUrl: Nullable(Type.String()),
    mediaName: Nullable(Type.String()),
    mediaType: Type.String(),
    isDeleted: Type.Boolean(),
    isEdited: Type.Boolean(),
    isForwarded: Type.Boolean(),
    isPrivate: Type.Boolean(),
    quotedMsgId: Nullable(Type.Integer()),
    queueId: Nullable(Type.Integer()),
    userId: Nullable(Type.Integer()),
    sendError: Nullable(Type.String()),
    sendErrorDetail: Nullable(Type.String()),
    deliveryState: Type.Union(DELIVERY_STATES.map((s) => Type.Literal(s)), { description: "failed when sendError is set, else by ack (0 pending, 1 sent, 2 delivered, 3 read, 4 played)" }),
    reactions: Type.Array(ReactionSchema),
    createdAt: Type.String(),
    updatedAt: Type.String(),
    contact: Nullable(ContactRef),
    quotedMsg: Nullable(QuotedMessageSchema),
    ticket: Type.Object({ id: Type.Integer(), queueId: Nullable(Type.Integer()), queue: Nullable(QueueRef) }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);

/** Answer of GET /messages/:ticketId. */
export const MessagesPage = Type.Object({
  messages: Type.Array(MessageSchema),
  ticket: TicketSchema,
  count: Type.Integer(),
  hasMore: Type.Boolean(),
});

/**
 * JSON body of POST /messages/:ticketId. `body` is the text (trimmed: 1..4096 characters unless `vCard` is
 * given); `quotedMsg` the message replied to (only `id` is read; old clients send the whole message);
 * `isPrivate` an internal note; `vCard` a contact card to share; `signMessage` false skips the signature.
 * `read`, `fromMe` and `mediaUrl` are sent by old clients and ignored.
 */
export const SendMessageBody = Type.Object({
  body: Type.Optional(Nullable(Type.String({ maxLength: RAW_TEXT_MAX }))),
  quotedMsg: Type.Optional(Nullable(Type.Object({ id: IntLike({ minimum: 1 }) }, { additionalProperties: true }))),
  isPrivate: Type.Optional(BoolLike()),
  vCard: Type.Optional(
    Nullable(
      Type.Object(
        { name: Type.Optional(Type.String({ maxLength: 200 })), number: Type.String({ minLength: 1, maxLength: 50 }) },
        { additionalProperties: true },
      ),
    ),
  ),
  signMessage: Type.Optional(BoolLike()),
  read: Type.Optional(Type.Unsafe<unknown>({ type: ['boolean', 'integer', 'string', 'null'], maxLength: 10 })),
  fromMe: Type.Optional(Type.Unsafe<unknown>({ type: ['boolean', 'integer', 'string', 'null'], maxLength: 10 })),
  mediaUrl: Type.Optional(Type.Unsafe<unknown>({ type: ['string', 'null'], maxLength: 2000 })),
});
export type SendMessageBody = Static<typeof SendMessageBody>;

/** Body of PUT /messages/:id: the new text (trimmed: 1..4096 characters). */
export const EditMessageBody = Type.Object({ body: Type.String({ maxLength: RAW_TEXT_MAX }) });
export type EditMessageBody = Static<typeof EditMessageBody>;

/** Body of POST /message/forward. */
export const ForwardMessageBody = Type.Object({
  messageId: IntLike({ minimum: 1 }),
  contactId: IntLike({ minimum: 1 }),
  signMessage: Type.Optional(BoolLike()),
});
export type ForwardMessageBody = Static<typeof ForwardMessageBody>;
