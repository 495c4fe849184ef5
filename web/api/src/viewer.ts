import { canSeeTicket as wireCanSeeTicket, seesAllTickets, type TicketViewer } from '@atendo/sdk/wire';
import { isAdmin, type SessionUser } from './types';

/**
 * The signed-in user's facts the inbox rules need (spec 2-tickets.md §6): profile, the allTicket and
 * allowGroup flags and the ids of the queues (departments) the user serves. Shared by the inbox area (lists,
 * live updates) and the shell (notifications on every page).
 */
export interface Viewer {
  id: number;
  admin: boolean;
  allTicket: boolean;
  allowGroup: boolean;
  queueIds: number[];
}

/** The fields of a ticket the visibility and notification rules read. */
export interface TicketAudienceFacts {
  isGroup: boolean;
  queueId: number | null;
  userId: number | null;
  status?: string;
}

/** The viewer facts of a session user (null when signed out). */
export function viewerOf(user: SessionUser | null | undefined): Viewer | null {
  if (!user) return null;
  return {
    id: user.id,
    admin: isAdmin(user),
    allTicket: user.allTicket === 'enable',
    allowGroup: user.allowGroup === true,
    queueIds: (user.queues ?? []).map((q) => q.id),
  };
}

/** The same facts in the shape of the API's visibility rule (`@atendo/sdk/wire`). */
export function toTicketViewer(v: Viewer): TicketViewer {
  return { id: v.id, profile: v.admin ? 'admin' : 'user', super: false, allTicket: v.allTicket ? 'enable' : 'disable', allowGroup: v.allowGroup, queueIds: v.queueIds };
}

/** Admins and allTicket users see every ticket of the company; they also get the show-all toggle. */
export function seesAll(v: Viewer): boolean {
  return seesAllTickets(toTicketViewer(v));
}

/** The show-all toggle appears only for those who may use it (permission tickets-manager:showall). */
export function canShowAll(v: Viewer): boolean {
  return seesAll(v);
}

/**
 * Whether `v` may see ticket `t`: the server's rule itself (`canSeeTicket` of `@atendo/sdk/wire`), applied to
 * live events so that a ticket leaving the viewer's departments leaves the lists: everyone-seers see all;
 * group tickets need allowGroup; other tickets need no queue, one of the viewer's queues, or to be assigned
 * to the viewer.
 */
export function canSeeTicket(v: Viewer, t: Pick<TicketAudienceFacts, 'isGroup' | 'queueId' | 'userId'>): boolean {
  return wireCanSeeTicket(toTicketViewer(v), { isGroup: Boolean(t.isGroup), queueId: t.queueId ?? null, userId: t.userId ?? null });
}

/**
 * Whether a new message of `t` notifies `v` (spec §6): the ticket is unassigned or the viewer's, and its
 * queue is one of the viewer's or none; users with allTicket also hear pending tickets of any queue.
 */
export function notifiesViewer(v: Viewer, t: TicketAudienceFacts): boolean {
  if (!canSeeTicket(v, t)) return false;
  if (t.userId !== null && t.userId !== undefined && t.userId !== v.id) return false;
  if (t.queueId === null || t.queueId === undefined || v.queueIds.includes(t.queueId)) return true;
  return v.allTicket && t.status === 'pending';
}
