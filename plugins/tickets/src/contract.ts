/**
 * The tickets plugin's contract (import it as `@atendo/plugin-tickets/contract`): the `tickets` service ref
 * and interface, the bus topics tickets owns with their payloads, the `tickets.conversation-handlers`
 * extension point, the row types the service returns, and the plugin's error codes.
 * Types and `define*` calls only: importing it pulls neither fastify nor knex.
 *
 * Events are published after the writing transaction commits, from the same code path whatever started the
 * write (REST, the inbound pipeline, the service below). A process dying between commit and publish loses
 * the event, never the data.
 */
import { defineErrors, defineExtensionPoint, defineService, defineTopic } from '@atendo/sdk';
import type { TicketStatus } from '@atendo/sdk/wire';
import type { Knex } from 'knex';

// ---------------------------------------------------------------------------------------------------
// Errors

/** Error codes owned by the tickets plugin (merged into the catalogue at boot). */
export const errors = defineErrors({
  // Codes of the product family's wire (spec 2-tickets.md §8), owned here.
  ERR_OTHER_OPEN_TICKET: { status: 409, message: 'An open ticket already exists for the contact' },
  ERR_CREATING_TICKET: { status: 400, message: 'Ticket could not be created' },
  ERR_NO_TICKET_FOUND: { status: 404, message: 'Ticket not found' },
  ERR_CREATING_MESSAGE: { status: 400, message: 'Message could not be created' },
  ERR_FETCH_WAPP_MSG: { status: 400, message: 'Message could not be fetched, maybe too old' },
  ERR_DELETE_WAPP_MSG: { status: 400, message: 'Deleting a message failed' },
  ERR_INVALID_TRANSITION: { status: 400, message: 'This ticket status change is not allowed' },
  ERR_NO_NOTE_FOUND: { status: 404, message: 'Ticket note not found' },
  ERR_NO_MESSAGE_FOUND: { status: 404, message: 'Message not found' },
  ERR_TICKET_NOT_OPEN: { status: 400, message: 'Messages can be sent only to open or group tickets' },
  ERR_REQUIRED_TAG: { status: 400, message: 'The contact or the ticket needs a tag before closing' },
});
declare module '@atendo/sdk' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface ErrorCodes extends Record<keyof typeof errors, true> {}
}

// ---------------------------------------------------------------------------------------------------
// Rows

/** Ticket statuses (spec 2-tickets.md §4; the list is the wire's, `TICKET_STATUSES` of `@atendo/sdk/wire`). */
export type { TicketStatus } from '@atendo/sdk/wire';

/** Ticket log entry types (spec 2-tickets.md §3 "Ticket log entry"). */
export const TICKET_LOG_TYPES = ['create', 'chatBot', 'queue', 'open', 'access', 'transfered', 'receivedTransfer', 'pending', 'closed', 'reopen', 'delete'] as const;
export type TicketLogType = (typeof TICKET_LOG_TYPES)[number];

/** A tickets row (camelCase) as the service returns it. `whatsappId` is the connection. */
export interface TicketRow {
  id: number;
  uuid: string;
  companyId: number;
  contactId: number;
  whatsappId: number | null;
  queueId: number | null;
  userId: number | null;
  status: TicketStatus;
  unreadMessages: number;
  lastMessage: string | null;
  isGroup: boolean;
  isBot: boolean;
  channel: string;
  fromMe: boolean;
  amountUsedBotQueues: number;
  amountUsedBotQueuesNps: number;
  promptId: number | null;
  useIntegration: boolean;
  integrationId: number | null;
  imported: boolean;
  isOutOfHour: boolean;
  userRating: number | null;
  closedAt: Date | null;
  acceptedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A messages row (camelCase) as the service returns it. `id` is a bigint returned as a number. */
export interface MessageRow {
  id: number;
  companyId: number;
  ticketId: number;
  /** The sender's contact for inbound messages (the participant in groups); null for ours. */
  contactId: number | null;
  /** The provider's message id (null while ours is pending; `PVT…` for private notes). */
  wid: string | null;
  remoteJid: string | null;
  participant: string | null;
  dataJson: string | null;
  /** 0 pending, 1 sent, 2 delivered, 3 read, 4 played. */
  ack: number;
  read: boolean;
  fromMe: boolean;
  body: string;
  /** Path of the media file relative to the company's uploads (`UploadService.url` signs it). */
  mediaPath: string | null;
  mediaName: string | null;
  mediaType: string;
  isDeleted: boolean;
  isEdited: boolean;
  isForwarded: boolean;
  isPrivate: boolean;
  quotedMsgId: number | null;
  queueId: number | null;
  userId: number | null;
  reactions: { emoji: string; fromMe: boolean; senderId?: string; at: string }[];
  sendError: string | null;
  /** The provider's reason for a failed send (`message.failed`'s `error`), or null. */
  sendErrorDetail: string | null;
  createdAt: Date;
  updatedAt: Date;
}

// ---------------------------------------------------------------------------------------------------
// Snapshots (bus payloads and conversation turns: plain JSON, timestamps as ISO strings)

/** Who did something to a ticket or wrote a message. */
export type TicketActor =
  /** An attendant (REST, or a service call on a user's behalf). */
  | { kind: 'user'; userId: number }
  /** A conversation handler (`ConversationHandler.id`: 'automation', 'prompts', ...). */
  | { kind: 'bot'; handlerId: string }
  /** The contact (an inbound message; in groups the participant's contact). */
  | { kind: 'contact'; contactId: number }
  /** A message of ours sent from another device (the phone, WhatsApp Web, Business Suite). */
  | { kind: 'device' }
  /** The platform itself (automatic texts, close-all, plugins without a user). */
  | { kind: 'system'; reason: string };

/** The ticket facts a handler or subscriber needs, at the time of the event. */
export interface TicketSnapshot {
  id: number;
  uuid: string;
  status: TicketStatus;
  queueId: number | null;
  userId: number | null;
  contactId: number;
  /** The connection (`whatsappId` on the wire); null when it was deleted. */
  connectionId: number | null;
  /** `whatsapp`, `whatsappapi`, `facebook`, `instagram`, ... */
  channel: string;
  isGroup: boolean;
  isBot: boolean;
  /** Chatbot / queue-option steps used so far (spec "amountUsedBotQueues"). */
  amountUsedBotQueues: number;
  isOutOfHour: boolean;
  useIntegration: boolean;
  integrationId: number | null;
  promptId: number | null;
  unreadMessages: number;
}

/** The contact facts a handler needs. */
export interface ContactSnapshot {
  id: number;
  name: string;
  /** Digits for phones, PSID/IGSID for Meta channels, group id for groups. */
  number: string;
  email: string;
  channel: string;
  isGroup: boolean;
  /** The contact asked not to be answered by bots (handlers should pass). */
  disableBot: boolean;
  /** ISO time the contact accepted the LGPD terms, or null. */
  lgpdAcceptedAt: string | null;
}

/** An inbound message as a conversation handler sees it. */
export interface InboundMessageSnapshot {
  id: number;
  /** Provider message id. */
  wid: string | null;
  body: string;
  /** `conversation`, `extendedTextMessage`, `image`, `audio`, `video`, `application`, `locationMessage`, `contactMessage`, interactive reply types, ... */
  mediaType: string;
  /** Signed URL of the media file (7 days), or null. */
  mediaUrl: string | null;
  /** The file name of the media, or null. */
  mediaName: string | null;
  /** The message it replies to (a message id of the same company), or null. */
  quotedMsgId: number | null;
  isForwarded: boolean;
  /** The sender's contact (the participant in groups; the ticket's contact otherwise). */
  senderContactId: number | null;
  /** ISO time the provider reported. */
  createdAt: string;
}

// ---------------------------------------------------------------------------------------------------
// Topics

/** Payload of `ticket.created`, `ticket.updated` and `ticket.transferred` (`from*` set on transfers). */
export interface TicketBusEvent {
  companyId: number;
  ticketId: number;
  status: TicketStatus;
  queueId: number | null;
  userId: number | null;
  fromQueueId?: number | null;
  fromUserId?: number | null;
  /**
   * Added (additive, `ticket.updated` only): the ticket fields (TicketRow names) the update changed, when
   * the publisher knows them (a send's bot fields, the service's updates). Absent: any field may have.
   */
  fields?: string[];
}

/** Payload of `ticket.closed`: the `ticket.*` fields plus the contact, the connection and who closed it. */
export interface TicketClosedEvent extends TicketBusEvent {
  contactId: number;
  /** The connection (`whatsappId`), or null. */
  connectionId: number | null;
  closedBy: TicketActor;
}

/** The fields `ticket.changed` compares. */
export interface TicketState {
  status: TicketStatus;
  queueId: number | null;
  userId: number | null;
}

/**
 * Payload of `ticket.changed`: an existing ticket's status, queue or user changed (accept, return,
 * transfers, close, reopen — by REST, by a message reopening it, by a handler through the service).
 * New tickets publish `ticket.created` instead.
 */
export interface TicketChangedEvent {
  companyId: number;
  ticketId: number;
  contactId: number;
  connectionId: number | null;
  before: TicketState;
  after: TicketState;
  /** The fields that differ, in the order status, queueId, userId. */
  changed: Array<keyof TicketState>;
  by: TicketActor;
}

/** Payload of `message.received` (kept for existing subscribers; `message.stored` carries more). */
export interface MessageReceivedEvent {
  companyId: number;
  ticketId: number;
  messageId: number;
  /** The ticket's contact (for groups the group contact). */
  contactId: number;
  fromMe: boolean;
}

/**
 * Payload of `message.stored`: an inbound or outbound message was stored (inbound: the pipeline's batch
 * committed; outbound: an attendant's send, an automatic text, a forward or a handler's answer). Private
 * notes are included (`isPrivate`). Bus message id `message.stored:<companyId>:<messageId>`.
 */
export interface MessageStoredEvent {
  companyId: number;
  ticketId: number;
  messageId: number;
  fromMe: boolean;
  isPrivate: boolean;
  /** Who wrote it: the contact (inbound), a user, a handler (`bot`), the platform, or another device. */
  by: TicketActor;
  body: string;
  mediaType: string;
  /** True when the message carries a media file. */
  hasMedia: boolean;
  /** ISO time of the message. */
  createdAt: string;
  /** The ticket after the write. */
  ticket: TicketSnapshot;
}

/** `ticket.created`: a ticket was opened (REST, inbound, forward). */
export const ticketCreated = defineTopic<TicketBusEvent>('ticket.created', 'a ticket was opened');
/** `ticket.updated`: a ticket's state or plain fields changed (accept, return, reopen, plain-field updates). */
export const ticketUpdated = defineTopic<TicketBusEvent>('ticket.updated', 'a ticket was updated');
/** `ticket.transferred`: a ticket moved to another user or queue (`fromQueueId`, `fromUserId`). */
export const ticketTransferred = defineTopic<TicketBusEvent>('ticket.transferred', 'a ticket was transferred');
/** `ticket.closed`: a ticket was closed (REST close or ignore, close-all, a handler). */
export const ticketClosed = defineTopic<TicketClosedEvent>('ticket.closed', 'a ticket was closed');
/** `ticket.deleted`: an admin deleted a ticket (with its messages); the payload is its last state. */
export const ticketDeleted = defineTopic<TicketBusEvent>('ticket.deleted', 'a ticket was deleted');
/** `ticket.changed`: status, queue or user of an existing ticket changed, with before and after. */
export const ticketChanged = defineTopic<TicketChangedEvent>('ticket.changed', "a ticket's status, queue or user changed");
/** `message.received`: the inbound pipeline stored a message (inbound, or ours from another device). */
export const messageReceived = defineTopic<MessageReceivedEvent>('message.received', 'the inbound pipeline stored a message');
/** `message.stored`: any message was stored in a ticket (inbound or outbound). */
export const messageStored = defineTopic<MessageStoredEvent>('message.stored', 'a message was stored in a ticket');

/** Every topic the tickets plugin owns (its `definePlugin({topics})`). */
export const TICKETS_TOPICS = [ticketCreated, ticketUpdated, ticketTransferred, ticketClosed, ticketDeleted, ticketChanged, messageReceived, messageStored] as const;

// ---------------------------------------------------------------------------------------------------
// Conversation handlers

/** One inbound message, offered to the conversation handlers in order. */
export interface ConversationTurn {
  companyId: number;
  /** The ticket as it is when the turn runs (earlier turns of the same ticket may have changed it). */
  ticket: TicketSnapshot;
  /** The ticket's contact (the group for group tickets). */
  contact: ContactSnapshot;
  message: InboundMessageSnapshot;
}

/**
 * A conversation handler (the automation engine, AI prompts, integrations, third-party plugins),
 * contributed to `conversationHandlers` by a plugin with `tickets` in its `dependsOn`/`optionalDependsOn`.
 *
 * The tickets plugin offers every stored inbound message (not ours, not private) to the handlers, lowest
 * `order` first, once per message (a redelivered message is not offered again), one message of a ticket at
 * a time and in the order they were stored. A handler answers and hands back through `TicketsService`
 * (`sendText`, `sendMedia`, `update`, `addLog`, `close`), which go through the same paths as attendants.
 * A handler that throws is logged; the turn is retried later (the chain restarts at the first handler, so
 * handlers answering 'pass' should have done nothing), at most 5 tries per message. Handlers never delay the
 * inbound pipeline (the chain runs on its own bus queue, `tickets.conversation`).
 */
export interface ConversationHandler {
  /** 'automation', 'integrations', 'prompts', ... (unique among handlers; logged and recorded per turn). */
  id: string;
  /** Lower runs first. */
  order: number;
  /** 'handled': this handler answered or owns the ticket now; the chain stops. 'pass': next handler. */
  onMessage(turn: ConversationTurn): Promise<'handled' | 'pass'>;
  /**
   * Optional quick pre-check on the `message.stored` event (its ticket snapshot, body and media type), before
   * the chain records a turn: false means `onMessage` would answer 'pass' for this message. When every handler
   * answers false, the chain records the message as done without a turn (one statement instead of the turn's
   * claim, loads and bookkeeping); otherwise only the handlers that answered true run on the message's turn
   * (earlier messages caught up in the same turn run every handler). Answer true whenever unsure; no answer
   * (or a throw) counts as true. Keep it to the event, cached reads and at most one indexed read (the bot
   * reads its stage of the ticket: a conversation it handed to humans then costs one statement per message).
   */
  wants?(event: MessageStoredEvent): boolean | Promise<boolean>;
  /**
   * Optional. Asked, lowest `order` first, when an attendant closes an open ticket normally (PUT
   * /tickets/:id status closed, farewell not refused; not close-all, not the service's `close`), inside the
   * closing transaction. 'rating' keeps the conversation for a rating: the ticket goes to status `nps`
   * instead of closed, no farewell is sent, `ticket.changed` (to `nps`) follows, and the handler asks,
   * collects the answer and closes the ticket through the service. 'close': the next handler is asked;
   * when none answers 'rating' the ticket closes as usual. Keep it quick (reads only).
   */
  onClosing?(companyId: number, ticket: TicketSnapshot): Promise<'rating' | 'close'>;
}

/** Extension point `tickets.conversation-handlers`: the chain each stored inbound message runs through. */
export const conversationHandlers = defineExtensionPoint<ConversationHandler>('tickets.conversation-handlers');

// ---------------------------------------------------------------------------------------------------
// The service

/** Options of `sendText` / `sendMedia`. */
export interface SendOptions {
  /**
   * true: a handler's answer, stored without a user (`userId` ignored); allowed while the ticket is pending,
   * open or group. false or absent: sent on behalf of `userId` (or of nobody); the ticket must be open or
   * group, as for attendants (400 ERR_TICKET_NOT_OPEN).
   */
  fromBot?: boolean;
  /** The handler answering (`message.stored` `by: {kind: 'bot', handlerId}`); default 'bot'. */
  handlerId?: string;
  /** The attendant sending (the message's `userId`); 404 ERR_NO_USER_FOUND unless a user of the company. */
  userId?: number | null;
  /** A message of the same conversation this one replies to; 404 ERR_NO_MESSAGE_FOUND otherwise. */
  quotedMsgId?: number;
  /**
   * Added (additive, for handlers handing a ticket to humans): a private note for the attendants (stored
   * with wid `PVT…`, shown in the conversation, never sent to the contact). Text only.
   */
  isPrivate?: boolean;
  /**
   * Bot fields of the ticket written in the same transaction as the message (one ticket write and one
   * `company-{id}-ticket` push for both, instead of a `sendText` and an `update`); `ticket.updated` is
   * published when they change. 400 ERR_VALIDATION as `update`.
   */
  ticket?: { isBot?: boolean; amountUsedBotQueues?: number };
}

/** A stored upload to send (`ctx.uploads.save(companyId, area, ...)` returned it, or a quick message's file). */
export interface SendMediaInput {
  /** Path relative to the company's uploads (`{area}/{file}`); its type is read from the extension. */
  path: string;
  /** The file name shown to the contact. */
  fileName: string;
  /** Caption (at most 4096 characters). */
  caption?: string;
}

/** One message of `sendToContacts`: a text, or a stored upload with an optional caption. */
export interface ContactSendInput {
  /** A contact of the company (404 ERR_NO_CONTACT_FOUND otherwise). */
  contactId: number;
  /** The text (1..4096 characters), or the caption of `media` (may be empty then). Message variables are filled. */
  body: string;
  /** A stored upload (as `sendMedia`). */
  media?: SendMediaInput;
}

/** Options of `sendToContacts`. */
export interface SendToContactsOptions {
  /**
   * Write inside this transaction (the caller's rows and the messages commit together, or neither does).
   * Nothing is pushed or published then until the caller runs the answer's `announce()` after its commit.
   */
  trx?: Knex.Transaction;
  /** Who sends (`message.stored` `by: {kind: 'bot', handlerId}`, the ticket log); default 'bulk'. */
  handlerId?: string;
}

/** What `sendToContacts` answers. */
export interface ContactSendResult {
  /** The stored messages (fromMe, ack 0), in input order. */
  messages: MessageRow[];
  /**
   * Pushes the messages and their tickets (`appMessage` create, ticket update), publishes `ticket.created`
   * for new tickets, `message.stored` and `message.send`. Without `trx` it already ran; with `trx` call it
   * once the transaction committed (never before: a rolled-back message must not be sent). Never throws.
   */
  announce(): Promise<void>;
}

/** What `update` may change; absent keys are left unchanged. */
export interface TicketPatch {
  /**
   * New status. 'open' needs a user (the patch's or the ticket's; 400 ERR_VALIDATION). From 'closed' to an
   * active status reopens the ticket (409 ERR_OTHER_OPEN_TICKET when the contact has another active
   * ticket on the connection). 'closed' closes it like `close` (no farewell, no requiredTag check).
   */
  status?: TicketStatus;
  /** A queue of the company (404 ERR_NO_QUEUE_FOUND) or null. */
  queueId?: number | null;
  /** A user of the company (404 ERR_NO_USER_FOUND) or null. */
  userId?: number | null;
  isBot?: boolean;
  amountUsedBotQueues?: number;
  isOutOfHour?: boolean;
  useIntegration?: boolean;
  integrationId?: number | null;
  promptId?: number | null;
}

/** One ticket-log entry to append (spec 2-tickets.md §3). */
export interface TicketLogInput {
  type: TicketLogType;
  /** The user the entry is about (null: none). */
  userId?: number | null;
  /** The queue the entry is about (default: the ticket's). */
  queueId?: number | null;
  /** Free JSON shown with the entry (e.g. the chatbot option chosen). */
  data?: Record<string, unknown>;
}

/**
 * The `tickets` service (`ctx.services.get(ticketsService)`, with `tickets` in `dependsOn` or
 * `optionalDependsOn`). Every method is scoped to `companyId`: ids of another company answer as unknown
 * (undefined, or 404 ERR_NO_TICKET_FOUND). Writes run in one transaction and emit the same socket events
 * (`company-{id}-ticket`, `company-{id}-appMessage`) and bus events as the REST routes, after commit.
 */
export interface TicketsService {
  /** The ticket `id` of `companyId`, or undefined. */
  get(companyId: number, id: number): Promise<TicketRow | undefined>;
  /** The tickets of `companyId` among `ids` (unknown ids skipped), in no particular order; one statement. */
  getMany(companyId: number, ids: number[]): Promise<TicketRow[]>;
  /** The active (open, pending or group) ticket of the contact on the connection (`null`: no connection), or undefined. */
  findActiveForContact(companyId: number, contactId: number, whatsappId: number | null): Promise<TicketRow | undefined>;
  /** The ticket as handlers see it (`ConversationTurn.ticket`), or undefined. */
  snapshot(companyId: number, id: number): Promise<TicketSnapshot | undefined>;
  /**
   * Sends a text through the attendants' outbound path: stored pending (fromMe, ack 0) with the ticket's
   * `lastMessage`, pushed (`appMessage` create, ticket update), published as `message.send` and
   * `message.stored`; acks follow from the channel. Not signed. Errors: 404 ERR_NO_TICKET_FOUND, 400
   * ERR_VALIDATION (empty or over 4096 characters), 400 ERR_TICKET_NOT_OPEN (see `SendOptions.fromBot`),
   * 404 ERR_NO_USER_FOUND, 404 ERR_NO_MESSAGE_FOUND (quotedMsgId). Returns the stored row.
   */
  sendText(companyId: number, ticketId: number, body: string, opts?: SendOptions): Promise<MessageRow>;
  /**
   * Sends a stored upload (image, audio, video, document) the same way; mediaType from the file's type.
   * Errors: as `sendText`, plus 400 ERR_VALIDATION (not a safe relative path) and 415 ERR_UPLOAD_TYPE (a
   * type messages may not carry).
   */
  sendMedia(companyId: number, ticketId: number, media: SendMediaInput, opts?: SendOptions): Promise<MessageRow>;
  /**
   * Changes the ticket (see `TicketPatch`) in one transaction holding its row lock, writes the log
   * entries ('queue' on a queue change, 'open' / 'pending' / 'reopen' / 'closed' on status changes,
   * 'transfered' + 'receivedTransfer' on a user change), then pushes `company-{id}-ticket` update to the
   * audiences that see it now and saw it before, and publishes `ticket.updated` (or `ticket.transferred`
   * when queue or user changed, `ticket.closed` when closed) and `ticket.changed` when status, queue or
   * user changed. `by` defaults to `{kind: 'system', reason: 'service'}`. Returns the row after the write
   * (unchanged when the patch changes nothing). Errors: 404 ERR_NO_TICKET_FOUND, ERR_NO_QUEUE_FOUND,
   * ERR_NO_USER_FOUND; 400 ERR_VALIDATION; 409 ERR_OTHER_OPEN_TICKET.
   */
  update(companyId: number, ticketId: number, patch: TicketPatch, by?: TicketActor): Promise<TicketRow>;
  /** Appends a ticket-log entry (GET /tickets-log/:id shows it). 404 ERR_NO_TICKET_FOUND. */
  addLog(companyId: number, ticketId: number, entry: TicketLogInput): Promise<void>;
  /**
   * Closes the ticket (any status; closing a closed ticket changes nothing): closedAt now, unread 0, log
   * 'closed' (`data.by`), pushes the update, publishes `ticket.closed` (with `closedBy: by`) and
   * `ticket.changed`. No farewell message and no requiredTag check (a handler sends its own goodbye with
   * `sendText` first). Returns the row after the write. 404 ERR_NO_TICKET_FOUND.
   */
  close(companyId: number, ticketId: number, by: TicketActor): Promise<TicketRow>;
  /**
   * Added (additive, for bulk senders such as campaigns): sends each input to its contact through connection
   * `connectionId` by the attendants' outbound path, at most 500 inputs a call, in one transaction: each
   * message goes into the contact's conversation ticket on that connection (open, pending, group, lgpd,
   * nps), else into its newest closed ticket there, else into a new ticket created closed (no user, no queue;
   * log 'create'), so bulk sends do not fill the inbox: the contact's reply reopens or opens a ticket by the
   * connection's usual rules. Messages are stored fromMe (ack 0, no user) and the tickets' `lastMessage`
   * updated; see `SendToContactsOptions.trx` and `ContactSendResult.announce` for when they are pushed and
   * handed to the channel. Errors (nothing stored): 404 ERR_NO_WAPP_FOUND, 404 ERR_NO_CONTACT_FOUND,
   * 400 ERR_VALIDATION (empty or over-long text, more than 500 inputs, bad media path), 415 ERR_UPLOAD_TYPE.
   */
  sendToContacts?(companyId: number, connectionId: number, inputs: ContactSendInput[], opts?: SendToContactsOptions): Promise<ContactSendResult>;
  /**
   * Added (additive, for AI prompts and integrations): the ticket's last `limit` (1..100) messages that are
   * not private notes and not deleted, in the order they were stored, oldest first ([] for a ticket of
   * another company).
   */
  recentMessages?(companyId: number, ticketId: number, limit: number): Promise<MessageRow[]>;
  /**
   * The waiting line of a queue: its pending tickets without a user, oldest first (by creation, then id),
   * at most `limit` (1..1000). [] for a queue of another company. Used by the bot (waiting positions,
   * router).
   */
  listWaiting(companyId: number, queueId: number, limit: number): Promise<TicketRow[]>;
  /**
   * Added (additive, for the on-duty roster): the company's pending tickets without a user (any queue)
   * created at or before `olderThan`: how many, and the oldest (by creation, then id) or null.
   */
  waitingSummary?(companyId: number, olderThan: Date): Promise<{ count: number; oldest: TicketRow | null }>;
  /**
   * Added (additive, for the external messages API): the active ticket of the contact on the connection,
   * or a new one. A new ticket is open with `userId` when given (logs 'create' + 'open'), else pending
   * without a user (logs 'create'); `queueId` is set when given. A found ticket gets `queueId` and
   * `userId` (then status open) through `update` when given and different. Pushes and publishes as the
   * REST routes do. Errors: 404 ERR_NO_CONTACT_FOUND, ERR_NO_WAPP_FOUND, ERR_NO_QUEUE_FOUND,
   * ERR_NO_USER_FOUND; ERR_CREATING_TICKET when concurrent opens keep colliding.
   */
  findOrOpen?(companyId: number, input: { contactId: number; whatsappId: number; queueId?: number | null; userId?: number | null }): Promise<TicketRow>;
  /**
   * Added (additive, for scheduled messages): the contact's newest ticket (by `updatedAt`, then id) whose
   * connection still exists (`whatsappId` not null), whatever its status, or undefined when the contact has
   * none. Tells which connection last served the contact.
   */
  latestForContact?(companyId: number, contactId: number): Promise<TicketRow | undefined>;
  /**
   * Added (additive, for read models such as the dashboard's backfill): the company's tickets with
   * `id > afterId`, by id ascending, at most `limit` (1..1000), whatever their status. Page with the last
   * id answered until an empty page.
   */
  listAfter?(companyId: number, afterId: number, limit: number): Promise<TicketRow[]>;
  /**
   * Added (additive, issue 34: the data subject's access right): every ticket of the contact (its own, and
   * group tickets where it wrote) with their messages (texts and signed media links) and notes, oldest first.
   */
  exportForContact?(companyId: number, contactId: number): Promise<ContactTicketsExport>;
  /**
   * Added (additive, issue 34: anonymization): erases, inside `trx`, the texts and media of every message of
   * the contact's tickets (and of its messages in groups), the tickets' last message, their notes, and the
   * provider payloads and addresses of those messages; rows, statuses, timestamps and ratings stay (counts and
   * statistics unchanged). Media files no other message uses are removed after `trx` commits. Answers how
   * many tickets and messages were touched, and `lastMessageTicketIds`: the tickets whose last message was
   * emptied (its own, and group tickets whose newest message was the contact's), for read models that copy it.
   */
  anonymizeContact?(companyId: number, contactId: number, trx: Knex.Transaction): Promise<{ tickets: number; messages: number; lastMessageTicketIds?: number[]; afterCommit: () => Promise<void> }>;
  /**
   * Added (additive, issue 34: retention): ids of contacts (not groups) above `afterContactId` whose every
   * ticket is closed and none changed since `before`, ascending, at most `limit` (1..1000).
   */
  staleContactIds?(companyId: number, before: Date, afterContactId: number, limit: number): Promise<number[]>;
  /**
   * Added (additive, issue 33 item 5: one contact per person): what `mergeContacts` would move, read-only:
   * `tickets` (the sources' tickets), `ticketsJoined` (conversation tickets joined into another one on the
   * same connection), `messages` (in the sources' tickets, and theirs in groups), `ticketNotes`.
   */
  previewContactMerge?(companyId: number, targetId: number, sourceIds: number[]): Promise<{ tickets: number; ticketsJoined: number; messages: number; ticketNotes: number }>;
  /**
   * Added (additive, issue 33 item 5): inside `trx` (the contacts plugin's merge), moves the tickets,
   * messages and notes of the contacts `sourceIds` to the contact `targetId`; two conversation tickets
   * (open, pending, group, nps, lgpd) of the contacts on one connection become one (the one an attendant
   * holds, else the target's, else the latest): the other's messages, notes, log entries and tags move into
   * it and it is deleted (`ticket.deleted`). Moved tickets publish `ticket.updated` (`fields:
   * ['contactId']`), in the transaction's outbox. Answers the counts (as `previewContactMerge` before the
   * merge) and the socket pushes to run after the commit. Ids are the caller's (contacts of `companyId`).
   */
  mergeContacts?(companyId: number, targetId: number, sourceIds: number[], trx: Knex.Transaction): Promise<{ counts: { tickets: number; ticketsJoined: number; messages: number; ticketNotes: number }; afterCommit: () => Promise<void> }>;
}

/** What `exportForContact` answers: the contact's tickets with their messages and notes. */
export interface ContactTicketsExport {
  tickets: {
    id: number;
    uuid: string;
    status: string;
    queueId: number | null;
    userId: number | null;
    whatsappId: number | null;
    channel: string;
    isGroup: boolean;
    userRating: number | null;
    createdAt: string;
    updatedAt: string;
    messages: { id: number; fromMe: boolean; fromContact: boolean; body: string; mediaType: string; mediaName: string | null; mediaUrl: string | null; isDeleted: boolean; isEdited: boolean; isPrivate: boolean; createdAt: string }[];
    notes: { id: number; userId: number | null; note: string; createdAt: string }[];
  }[];
}

/** The typed handle of the `tickets` service. */
export const ticketsService = defineService<TicketsService>('tickets');
