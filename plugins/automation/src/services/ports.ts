import type { BotOption } from '../rules/tree';
import type { ScheduleRow } from '../rules/hours';

/**
 * What the bot needs from the other plugins, in its own words. `adapters.ts` builds these from the
 * tickets, queues, connections and contacts services (their typed contracts); tests may build them too.
 * Every method is scoped to `companyId`.
 */

/** The ticket facts the bot reads. */
export interface BotTicket {
  id: number;
  companyId: number;
  contactId: number;
  whatsappId: number | null;
  queueId: number | null;
  userId: number | null;
  status: string;
  isGroup: boolean;
  isBot: boolean;
  channel: string;
  amountUsedBotQueues: number;
  useIntegration: boolean;
  integrationId: number | null;
  promptId: number | null;
  isOutOfHour: boolean;
  createdAt: Date | string;
  updatedAt: Date | string;
}

/** Fields the bot changes on a ticket (status changes go through `assign`/`toQueue`/`close` instead). */
export interface BotTicketPatch {
  isBot?: boolean;
  isOutOfHour?: boolean;
  amountUsedBotQueues?: number;
  useIntegration?: boolean;
  integrationId?: number | null;
  /** Only the bot's own statuses (`lgpd`, `nps`) or back to `pending`. */
  status?: 'lgpd' | 'nps' | 'pending';
}

export interface TicketsPort {
  get(companyId: number, ticketId: number): Promise<BotTicket | undefined>;
  /**
   * Sends `body` in the ticket through the attendants' outbound path (stored `fromMe`, shown in the
   * conversation, acks tracked), as an automatic message of the system. `ticket`: bot fields of the ticket
   * written with the message (one ticket write and one push instead of a `sendText` and an `update`).
   */
  sendText(companyId: number, ticketId: number, body: string, ticket?: Pick<BotTicketPatch, 'isBot' | 'amountUsedBotQueues'>): Promise<void>;
  /** Changes the bot fields of the ticket. */
  update(companyId: number, ticketId: number, patch: BotTicketPatch): Promise<BotTicket>;
  /** Moves the ticket to `queueId` (pending, no user), with a `queue` log entry. */
  toQueue(companyId: number, ticketId: number, queueId: number): Promise<BotTicket>;
  /** Gives the ticket to attendant `userId` (status open, or group), with its log entries. */
  assign(companyId: number, ticketId: number, userId: number): Promise<BotTicket>;
  /**
   * Closes the ticket. `farewell` false: no farewell or completion message from the tickets plugin.
   * `message`: an automatic text sent just before closing.
   */
  close(companyId: number, ticketId: number, opts: { farewell: boolean; message?: string | null; reason: string }): Promise<void>;
  /** Writes a ticket log entry (`chatBot` steps, `queue`). */
  addLog(companyId: number, ticketId: number, type: 'chatBot' | 'queue', data?: Record<string, unknown>): Promise<void>;
  /** Pending tickets of a queue without an attendant, oldest first (at most `limit`). */
  listWaiting(companyId: number, queueId: number, limit: number): Promise<BotTicket[]>;
}

/** The connection facts the bot reads (wire "Whatsapp"). */
export interface BotConnection {
  id: number;
  name: string;
  channel: string;
  greetingMessage: string | null;
  complationMessage: string | null;
  outOfHoursMessage: string | null;
  ratingMessage: string | null;
  inactiveMessage: string | null;
  expiresInactiveMessage: string | null;
  maxUseBotQueues: number;
  maxUseBotQueuesNPS: number;
  timeUseBotQueues: number;
  expiresTicket: number;
  expiresTicketNPS: number;
  timeInactiveMessage: number;
  whenExpiresTicket: string | number | null;
  groupAsTicket: string;
  schedules: ScheduleRow[] | null;
  /** The connection's queues (ids; order comes from the queues). */
  queues: { id: number }[];
}

export interface BotQueue {
  id: number;
  name: string;
  orderQueue: number | null;
  greetingMessage: string | null;
  outOfHoursMessage: string | null;
  schedules: ScheduleRow[] | null;
  ativarRoteador: boolean;
  /** Minutes. */
  tempoRoteador: number;
  closeTicket: boolean;
  /** A file list (files plugin) sent to the customer when the bot brings the ticket into the queue, or null. */
  fileListId?: number | null;
}

export interface QueuesPort {
  getQueue(companyId: number, queueId: number): Promise<BotQueue | undefined>;
  chatbotTree(companyId: number, queueId: number): Promise<BotOption[]>;
  userIdsOfQueue(companyId: number, queueId: number): Promise<number[]>;
}

/** The files plugin's `sendList` (when installed): a file list sent into a ticket as an automatic message. */
export interface FilesPort {
  sendList(companyId: number, fileListId: number, ticketId: number): Promise<unknown>;
}

export interface ConnectionsPort {
  get(companyId: number, connectionId: number): Promise<BotConnection | undefined>;
}

export interface BotContact {
  id: number;
  name: string;
  number: string;
  isGroup: boolean;
  active: boolean;
  disableBot: boolean;
  lgpdAcceptedAt: string | Date | null;
}

export interface ContactsPort {
  get(companyId: number, contactId: number): Promise<BotContact | undefined>;
  /** Stores when the contact accepted the LGPD terms (null: not accepted). */
  setLgpdAcceptedAt(companyId: number, contactId: number, at: Date | null): Promise<void>;
}

/** The inbound message the bot answers. */
export interface BotMessage {
  id: number;
  body: string;
  fromMe: boolean;
  mediaType?: string;
}
