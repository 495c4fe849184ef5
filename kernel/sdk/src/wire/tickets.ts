/**
 * Tickets on the wire (wire-shapes.md §4 TicketL / MessageL, §5 socket events; spec 2-tickets.md §3, §6):
 * the shapes the tickets plugin answers and pushes, and the visibility rule, shared by the plugin (its
 * serializers return these types, checked against its route schemas) and the areas (inbox, kanban...).
 * Timestamps are ISO 8601 strings. Types and pure functions only.
 */

/** Ticket statuses (spec 2-tickets.md §4). */
export const TICKET_STATUSES = ['pending', 'open', 'group', 'closed', 'nps', 'lgpd'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

/** Channels a ticket or contact can come from. */
export type TicketChannel = 'whatsapp' | 'whatsappapi' | 'facebook' | 'instagram';

/**
 * The channel of a ticket as Atendo's screens tell them apart. On the wire a ticket's `channel` is the
 * product family's enum (`whatsapp`, `facebook`, `instagram`: its client shows the Facebook/Instagram 24-hour
 * banner for any other value), so a WhatsApp Cloud ticket says `whatsapp` there; its connection's channel
 * (`whatsapp.channel`) still says `whatsappapi`.
 */
export function ticketChannelOf(t: { channel?: string | null; whatsapp?: { channel?: string | null } | null }): string {
  return t.whatsapp?.channel === 'whatsappapi' ? 'whatsappapi' : String(t.channel ?? 'whatsapp');
}

/** `{id, name}` of a user. */
export interface UserRef {
  id: number;
  name: string;
}

/** `{id, name, color}` of a queue. */
export interface QueueRef {
  id: number;
  name: string;
  color: string;
}

/** `{id, name, color}` of a tag. */
export interface TagRef {
  id: number;
  name: string;
  color: string;
}

/** One extra-info field of a contact. */
export interface ContactExtraInfoRef {
  id?: number;
  name: string;
  value: string;
}

/**
 * A contact as tickets carry it (wire-shapes §2 "Contact", the number masked for some viewers when the
 * company enables lgpdHideNumber). `tags` on list rows, `extraInfo` on single-ticket answers.
 */
export interface TicketContact {
  id: number;
  name: string;
  number: string;
  email?: string;
  isGroup?: boolean;
  channel?: TicketChannel | string;
  /** The picture to show (a stored file or the provider's URL). */
  urlPicture?: string | null;
  profilePicUrl?: string | null;
  /** false = blocked. */
  active?: boolean;
  disableBot?: boolean;
  tags?: TagRef[];
  extraInfo?: ContactExtraInfoRef[];
}

/** A ticket as lists, answers and socket events carry it (wire TicketL). */
export interface Ticket {
  id: number;
  uuid: string;
  status: TicketStatus;
  companyId: number;
  contactId: number;
  /** The connection. */
  whatsappId: number | null;
  queueId: number | null;
  userId: number | null;
  unreadMessages: number;
  lastMessage: string | null;
  isGroup: boolean;
  isBot: boolean;
  channel: string;
  /** Who wrote the last message: us (true) or the contact. */
  fromMe: boolean;
  amountUsedBotQueues: number;
  amountUsedBotQueuesNPS: number;
  promptId: number | null;
  useIntegration: boolean;
  integrationId: number | null;
  imported: boolean;
  isOutOfHour: boolean;
  /** Customer rating 1..5 (closed tickets), or null. */
  userRating: number | null;
  closedAt: string | null;
  acceptedAt: string | null;
  createdAt: string;
  updatedAt: string;
  contact: TicketContact | null;
  queue: QueueRef | null;
  user: UserRef | null;
  tags: TagRef[];
  whatsapp: { id: number; name: string; channel: string; groupAsTicket: string } | null;
  /** Single-ticket answers (`GET /tickets/u/:uuid`, `PUT /tickets/:id`): the company. */
  company?: { id: number; name: string } | null;
  /** Single-ticket answers: the queue integration (null: none). */
  queueIntegration?: { id: number; name: string } | null;
}

/** A reaction on a message: the emoji, who reacted (ourselves, or the sender's provider id), when. */
export interface Reaction {
  emoji: string;
  fromMe: boolean;
  senderId?: string;
  at: string;
}

/** The message a reply quotes. */
export interface QuotedMessage {
  id: number;
  body: string;
  fromMe: boolean;
  mediaType: string;
  mediaUrl: string | null;
  isDeleted: boolean;
  contact: UserRef | null;
}

/** A message's delivery state: `failed` when `sendError` is set, else its `ack` (0 pending ... 4 played). */
export type DeliveryState = 'pending' | 'sent' | 'delivered' | 'read' | 'played' | 'failed';

/**
 * A message as answers and events carry it (wire MessageL). `ack`: 0 pending, 1 sent, 2 delivered, 3 read,
 * 4 played. `mediaUrl` is a signed URL (or null); `contact` the sender of inbound messages.
 */
export interface Message {
  id: number;
  companyId: number;
  ticketId: number;
  contactId: number | null;
  wid: string | null;
  remoteJid: string | null;
  participant: string | null;
  dataJson: string | null;
  ack: number;
  read: boolean;
  fromMe: boolean;
  body: string;
  mediaUrl: string | null;
  mediaName: string | null;
  mediaType: string;
  isDeleted: boolean;
  isEdited: boolean;
  isForwarded: boolean;
  isPrivate: boolean;
  quotedMsgId: number | null;
  queueId: number | null;
  userId: number | null;
  sendError: string | null;
  /** The provider's reason for a failed send (its text or code), or null. Additive. */
  sendErrorDetail: string | null;
  /** Derived from `ack` and `sendError` (failed wins). Additive. */
  deliveryState: DeliveryState;
  reactions: Reaction[];
  createdAt: string;
  updatedAt: string;
  contact: UserRef | null;
  quotedMsg: QuotedMessage | null;
  /** The message's ticket and its queue (the conversation's ticket-change banners). */
  ticket: { id: number; queueId: number | null; queue: QueueRef | null };
}

/** Typing presence (`company-{id}-presence`). */
export type Presence = 'composing' | 'recording' | 'paused' | 'available' | 'unavailable';

/** `company-{id}-ticket` payloads. */
export type TicketSocketEvent =
  | { action: 'update'; ticket: Ticket; ticketId: number }
  | { action: 'delete'; ticketId: number }
  | { action: 'updateUnread'; ticketId: number };

/** `company-{id}-appMessage` payloads. */
export type AppMessageSocketEvent =
  | { action: 'create'; message: Message; ticket: Ticket; contact: TicketContact | null }
  | { action: 'update'; message: Message }
  | { action: 'delete'; message: Message };

/** `company-{id}-presence` payload. */
export interface PresenceSocketEvent {
  action: 'update-presence';
  ticketId: number;
  presence: Presence;
}

// ---------------------------------------------------------------------------------------------------
// Visibility (spec 2-tickets.md §6): one rule for the server's lists and live events and the areas

/** The facts about a user the visibility rule needs. */
export interface TicketViewer {
  id: number;
  /** `admin`, `user`, `supervisor`. */
  profile: string;
  super: boolean;
  allTicket: 'enable' | 'disable';
  allowGroup: boolean;
  /** The queues the user serves. */
  queueIds: number[];
}

/** Admins: profile admin, or the super flag. */
export function isTicketAdmin(v: Pick<TicketViewer, 'profile' | 'super'>): boolean {
  return v.super || String(v.profile).toLowerCase() === 'admin';
}

/** Admins and users with allTicket 'enable' see every ticket of their company. */
export function seesAllTickets(v: Pick<TicketViewer, 'profile' | 'super' | 'allTicket'>): boolean {
  return isTicketAdmin(v) || v.allTicket === 'enable';
}

/**
 * Whether `v` sees ticket `t` of their company: everyone-seers see all; group tickets need allowGroup;
 * other tickets need no queue, one of the viewer's queues, or to be assigned to the viewer.
 */
export function canSeeTicket(v: TicketViewer, t: { isGroup: boolean; queueId: number | null; userId: number | null }): boolean {
  if (seesAllTickets(v)) return true;
  if (t.isGroup) return v.allowGroup;
  return t.queueId === null || v.queueIds.includes(t.queueId) || t.userId === v.id;
}

/**
 * The socket audiences a ticket's events go to: `tickets:all` (admins, allTicket users), `tickets:groups`
 * (allowGroup users), `tickets:queue:<id>` or `tickets:noqueue`, and `tickets:user:<id>` of its user.
 */
export function ticketAudiences(t: { isGroup: boolean; queueId: number | null; userId: number | null }): string[] {
  if (t.isGroup) return ['tickets:all', 'tickets:groups'];
  const out = ['tickets:all', t.queueId === null ? 'tickets:noqueue' : `tickets:queue:${t.queueId}`];
  if (t.userId !== null) out.push(`tickets:user:${t.userId}`);
  return out;
}

/** The audiences a viewer's sockets join (so they get exactly the events of the tickets they see). */
export function viewerAudiences(v: TicketViewer): string[] {
  if (seesAllTickets(v)) return ['tickets:all'];
  const out = ['tickets:noqueue', `tickets:user:${v.id}`, ...v.queueIds.map((q) => `tickets:queue:${q}`)];
  if (v.allowGroup) out.push('tickets:groups');
  return out;
}
