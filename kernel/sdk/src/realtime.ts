import { defineExtensionPoint } from './contracts';

/**
 * Realtime push to browsers (socket.io). Event names follow the spec exactly:
 * `company-{id}-ticket`, `company-{id}-appMessage`, `company-{id}-user`, `company-{id}-auth`,
 * `company-{id}-whatsapp`, `company-{id}-whatsappSession`, `company-{id}-settings`, ...
 *
 * Every emit is scoped to one company: it reaches only sockets authenticated for that company
 * (optionally narrowed to a room inside it, or to one user). Emits fan out through the bus, so a
 * socket connected to any kernel process receives them.
 */
export interface EmitOptions {
  /** Narrow to a room inside the company: a ticket id, a status ('open', 'pending', ...) or 'notification'. */
  room?: string;
  /** Narrow to the sockets of one user of the company. */
  userId?: number;
  /**
   * Narrow to server-assigned audiences (union): names a plugin's audience resolver gave sockets at
   * connect time, e.g. `tickets:queue:3`. Clients cannot join audiences themselves.
   */
  audiences?: string[];
  /**
   * The product family's rooms this event goes to (wire-shapes §5): a ticket id, a status ('open',
   * 'pending', 'group', 'closed', ...) or 'notification'. A socket that joined any room (`joinChatBox`,
   * `joinTickets`, `joinNotification`) receives the event only through the rooms it joined, and only when the
   * other targeting (audiences, company) lets it see the event; a socket that never joined a room (Atendo's
   * own UI) receives it by the other targeting alone. Ignored with `userId`.
   */
  rooms?: string[];
  /** With `rooms`: only sockets that joined rooms receive it (the family's `delete` to a ticket's old status room). */
  roomsOnly?: boolean;
}

/** Names the audiences a signed-in socket belongs to (called on connect and on refresh). */
export type AudienceResolver = (user: import('./auth').AuthUser) => Promise<string[]> | string[];

/**
 * Kernel extension point `kernel.audience-resolvers`: contribute an `AudienceResolver` with
 * `ctx.extensions.contribute(audienceResolvers, resolver)` (in `register`; the kernel owns it). Every socket
 * joins what all resolvers return for its user.
 */
export const audienceResolvers = defineExtensionPoint<AudienceResolver>('kernel.audience-resolvers');

/**
 * Says whether `user` may join the chat-box room of ticket `ticketId` (`joinChatBox`): true only for a ticket
 * of the user's company that the user may see. A join is refused unless some guard says true.
 */
export type ChatBoxGuard = (user: import('./auth').AuthUser, ticketId: number) => Promise<boolean> | boolean;

/**
 * Kernel extension point `kernel.chat-box-guards`: contribute a `ChatBoxGuard` with
 * `ctx.extensions.contribute(chatBoxGuards, guard)` (the tickets plugin does: the ticket's company and visibility).
 */
export const chatBoxGuards = defineExtensionPoint<ChatBoxGuard>('kernel.chat-box-guards');

export interface Realtime {
  emitToCompany(companyId: number, event: string, payload: unknown, opts?: EmitOptions): void;
  /** Events meant for every signed-in socket of every company (announcements only). */
  emitGlobal(event: string, payload: unknown): void;
  /** Recomputes the audiences of a user's sockets (or every socket of the company) on every node. */
  refreshAudiences(companyId: number, userId?: number): void;
  /**
   * Calls `listener` with the company (null for global events), name and targeting of every event this node emits
   * (synchronously, before publishing) and of every event it delivers from the bus (every node sees every
   * emit, whichever node sent it). Meant for caches that must forget a company's data when it changes.
   * Returns a function that removes the listener. A throwing listener is logged and ignored.
   */
  observe(listener: RealtimeObserver): () => void;
}

/** See Realtime.observe. */
export type RealtimeObserver = (companyId: number | null, event: string, opts: EmitOptions) => void;

/** `company-{id}-{name}`: the spec's per-company event name. */
export function companyEvent(companyId: number, name: string): string {
  return `company-${companyId}-${name}`;
}
