/**
 * Shapes the conversation view reads from the API (wire-shapes.md §4 GET /tickets/u/:uuid, GET/POST
 * /messages/:ticketId, §5 `company-{cid}-appMessage`; plugins/tickets/src/schemas). Only the fields the
 * view uses are typed; the server may send more.
 */

export interface QueueRef {
  id: number;
  name: string;
  color: string;
}

export interface UserRef {
  id: number;
  name: string;
}

export interface TagRef {
  id: number;
  name: string;
  color: string;
}

/** One extra-info field of a contact (`{name, value}`). */
export interface ExtraInfo {
  id?: number;
  name: string;
  value: string;
}

/** A contact as the ticket and `GET /contacts/:id` carry it (the number is masked for some viewers). */
export interface Contact {
  id: number;
  name: string;
  number: string;
  email?: string | null;
  isGroup?: boolean;
  active?: boolean;
  disableBot?: boolean;
  acceptAudioMessage?: boolean;
  urlPicture?: string | null;
  profilePicUrl?: string | null;
  channel?: string;
  extraInfo?: ExtraInfo[];
  tags?: TagRef[];
}

export type TicketStatus = 'pending' | 'open' | 'group' | 'closed' | 'nps' | 'lgpd' | string;

/** A serialized ticket (wire TicketL). */
export interface Ticket {
  id: number;
  uuid: string;
  status: TicketStatus;
  companyId: number;
  contactId: number;
  whatsappId: number | null;
  queueId: number | null;
  userId: number | null;
  isGroup: boolean;
  channel: string;
  unreadMessages?: number;
  lastMessage?: string | null;
  updatedAt?: string;
  contact: Contact | null;
  queue: QueueRef | null;
  user: UserRef | null;
  tags?: TagRef[];
  whatsapp?: { id: number; name: string; channel?: string; groupAsTicket?: string } | null;
}

/** A reaction on a message. */
export interface Reaction {
  emoji: string;
  fromMe: boolean;
  senderId?: string;
  at?: string;
}

/** The message a reply quotes. */
export interface QuotedMessage {
  id: number;
  body: string;
  fromMe: boolean;
  mediaType: string;
  mediaUrl: string | null;
  isDeleted?: boolean;
  contact: { id: number; name: string } | null;
}

/** A serialized message (wire MessageL). `ack`: 0 pending, 1 sent, 2 delivered, 3 read, 4 played. */
export interface Message {
  id: number;
  ticketId: number;
  contactId?: number | null;
  wid?: string | null;
  dataJson?: string | null;
  ack: number;
  read?: boolean;
  fromMe: boolean;
  body: string;
  mediaUrl: string | null;
  mediaName?: string | null;
  mediaType: string;
  isDeleted: boolean;
  isEdited: boolean;
  isForwarded: boolean;
  isPrivate: boolean;
  quotedMsgId?: number | null;
  queueId?: number | null;
  userId?: number | null;
  sendError?: string | null;
  /** The provider's reason for a failed send (additive; older servers omit it). */
  sendErrorDetail?: string | null;
  /** pending | sent | delivered | read | played | failed (additive; derived from ack/sendError when absent). */
  deliveryState?: DeliveryState;
  reactions?: Reaction[];
  createdAt: string;
  updatedAt?: string;
  contact?: { id: number; name: string } | null;
  quotedMsg?: QuotedMessage | null;
  ticket?: { id: number; queueId: number | null; queue: QueueRef | null } | null;
}

/** A message's delivery state: by ack (0 pending ... 4 played), or failed while `sendError` is set. */
export type DeliveryState = 'pending' | 'sent' | 'delivered' | 'read' | 'played' | 'failed';

/** Answer of `GET /messages/:ticketId`. */
export interface MessagesPage {
  messages: Message[];
  ticket?: Ticket;
  count?: number;
  hasMore: boolean;
}

/** An entry of `GET /tickets-log/:id`. */
export interface TicketLogEntry {
  id: number;
  type: string;
  createdAt: string;
  user: UserRef | null;
  queue: QueueRef | null;
}

/** A ticket note. */
export interface TicketNote {
  id: number;
  note: string;
  createdAt: string;
  user: UserRef | null;
  ticketId: number;
  contactId: number;
}

/** A quick reply of `GET /quick-messages/list`. `mediaPath` is a URL when it has media. */
export interface QuickMessage {
  id: number;
  shortcode: string;
  message: string;
  mediaPath: string | null;
  mediaName: string | null;
  mediaType?: string | null;
  isMedia?: boolean;
}

/** A queue of `GET /queue`. */
export interface Queue {
  id: number;
  name: string;
  color: string;
}

/** A user of `GET /users/list`. */
export interface UserListItem {
  id: number;
  name: string;
  profile?: string;
  queues?: { id: number; name: string }[];
}

/** A row of `GET /contacts`. */
export interface ContactListItem {
  id: number;
  name: string;
  number: string;
  channel?: string;
  isGroup?: boolean;
}

/** `company-{cid}-appMessage` payloads. */
export type AppMessageEvent =
  | { action: 'create'; message: Message; ticket?: Partial<Ticket> | null; contact?: Contact | null }
  | { action: 'update'; message: Message }
  | { action: 'delete'; message: Message };

/** `company-{cid}-ticket` payloads. */
export type TicketEvent =
  | { action: 'update'; ticket: Ticket; ticketId?: number }
  | { action: 'delete'; ticketId: number }
  | { action: 'updateUnread'; ticketId: number };

/** `company-{cid}-presence` payload. */
export interface PresenceEvent {
  action: 'update-presence';
  ticketId: number;
  presence: 'composing' | 'recording' | 'available' | 'unavailable' | 'paused' | string;
}

/** `company-{cid}-contact` payloads. */
export type ContactEvent = { action: 'create' | 'update'; contact: Contact } | { action: 'delete'; contactId: number | string };
