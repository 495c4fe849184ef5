import type { Message, Ticket } from './types';

/**
 * The message list of one conversation: messages in ascending `createdAt` (then id) order, the last page
 * loaded and whether older pages exist. Pure reducer (spec 2-tickets.md §2; wire-shapes §4 GET
 * /messages/:ticketId pages of 20, §5 appMessage create/update/delete).
 */
export interface MessagesState {
  messages: Message[];
  /** Last page loaded (1 = newest); 0 before the first answer. */
  page: number;
  hasMore: boolean;
  loading: boolean;
}

export type MessagesAction =
  | { type: 'reset' }
  | { type: 'loading' }
  | { type: 'failed' }
  | { type: 'page'; page: number; messages: Message[]; hasMore: boolean }
  /** A created (or just-sent) message: inserted in order, or replacing the one with its id. */
  | { type: 'upsert'; message: Message }
  /** An updated message (ack, edit, delete, reaction): replaces the one with its id; ignored when absent. */
  | { type: 'update'; message: Message }
  | { type: 'remove'; id: number };

export const initialMessagesState: MessagesState = { messages: [], page: 0, hasMore: false, loading: true };

const time = (m: Message) => {
  const t = new Date(m.createdAt).getTime();
  return Number.isFinite(t) ? t : 0;
};

/** Ascending by createdAt, then id. */
export function compareMessages(a: Message, b: Message): number {
  return time(a) - time(b) || a.id - b.id;
}

const stamp = (m: Message) => {
  const t = m.updatedAt ? new Date(m.updatedAt).getTime() : NaN;
  return Number.isFinite(t) ? t : undefined;
};

/**
 * Two versions of one message: the newer (by `updatedAt`; `incoming` when unknown or equal) wins, and the
 * ack never goes back (a late POST answer with ack 0 after a live 'sent' update keeps 'sent').
 */
export function mergeMessage(current: Message | undefined, incoming: Message): Message {
  if (!current) return incoming;
  const a = stamp(current);
  const b = stamp(incoming);
  const incomingIsOlder = a !== undefined && b !== undefined && b < a;
  const merged = incomingIsOlder ? { ...incoming, ...current } : { ...current, ...incoming };
  return { ...merged, ack: Math.max(Number(current.ack ?? 0), Number(incoming.ack ?? 0)) };
}

/** `list` merged with `incoming` (unique by id, see `mergeMessage`), sorted ascending. */
export function mergeMessages(list: Message[], incoming: Message[]): Message[] {
  const byId = new Map<number, Message>();
  for (const m of list) byId.set(m.id, m);
  for (const m of incoming) byId.set(m.id, mergeMessage(byId.get(m.id), m));
  return [...byId.values()].sort(compareMessages);
}

export function messagesReducer(state: MessagesState, action: MessagesAction): MessagesState {
  switch (action.type) {
    case 'reset':
      return initialMessagesState;
    case 'loading':
      return { ...state, loading: true };
    case 'failed':
      return { ...state, loading: false };
    case 'page':
      return {
        messages: mergeMessages(state.messages, action.messages),
        page: Math.max(state.page, action.page),
        // A refresh of a newer page (after a reconnect) does not change whether older pages remain.
        hasMore: action.page >= state.page ? action.hasMore : state.hasMore,
        loading: false,
      };
    case 'upsert':
      return { ...state, messages: mergeMessages(state.messages, [action.message]) };
    case 'update': {
      const i = state.messages.findIndex((m) => m.id === action.message.id);
      if (i < 0) return state;
      const messages = state.messages.slice();
      messages[i] = mergeMessage(messages[i], action.message);
      return { ...state, messages };
    }
    case 'remove':
      return state.messages.some((m) => m.id === action.id) ? { ...state, messages: state.messages.filter((m) => m.id !== action.id) } : state;
    default:
      return state;
  }
}

/**
 * Whether a created message belongs to the conversation of `ticket`: the ticket itself, or another ticket of
 * the same contact, connection and group flag (the conversation is the full history across tickets).
 */
export function belongsToConversation(ticket: Pick<Ticket, 'id' | 'contactId' | 'whatsappId' | 'isGroup'>, message: Pick<Message, 'ticketId'>, messageTicket?: Partial<Ticket> | null): boolean {
  if (message.ticketId === ticket.id) return true;
  if (!messageTicket || messageTicket.id !== message.ticketId) return false;
  return (
    messageTicket.contactId === ticket.contactId &&
    (messageTicket.whatsappId ?? null) === (ticket.whatsappId ?? null) &&
    (messageTicket.isGroup === undefined || Boolean(messageTicket.isGroup) === Boolean(ticket.isGroup))
  );
}
