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
}

/** Names the audiences a signed-in socket belongs to (called on connect and on refresh). */
export type AudienceResolver = (user: import('./auth').AuthUser) => Promise<string[]> | string[];

/**
 * Kernel extension point `kernel.audience-resolvers`: contribute an `AudienceResolver` with
 * `ctx.extensions.contribute(audienceResolvers, resolver)` (in `register`; the kernel owns it). Every socket
 * joins what all resolvers return for its user.
 */
export const audienceResolvers = defineExtensionPoint<AudienceResolver>('kernel.audience-resolvers');

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
