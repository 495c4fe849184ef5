/** Ticket statuses (spec 2-tickets.md §4). Active ones hold the one-active-ticket-per-contact rule. */
export const TICKET_STATUSES = ['pending', 'open', 'group', 'closed', 'nps', 'lgpd'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];
export const ACTIVE_STATUSES: TicketStatus[] = ['open', 'pending', 'group'];

/** Ticket log entry types (spec 2-tickets.md §3 "Ticket log entry"). */
export const TICKET_LOG_TYPES = ['create', 'chatBot', 'queue', 'open', 'access', 'transfered', 'receivedTransfer', 'pending', 'closed', 'reopen', 'delete'] as const;
export type TicketLogType = (typeof TICKET_LOG_TYPES)[number];

/** A tickets row (camelCase). */
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

/** A messages row (camelCase). `id` is a bigint returned as a number. */
export interface MessageRow {
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
  createdAt: Date;
  updatedAt: Date;
}

/** The viewer facts the visibility rule needs (spec 2-tickets.md §6). */
export interface Viewer {
  id: number;
  companyId: number;
  profile: string;
  super: boolean;
  allTicket: 'enable' | 'disable';
  allowGroup: boolean;
  queueIds: number[];
}
