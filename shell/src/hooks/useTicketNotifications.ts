import { useEffect, useMemo, useRef } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, notifiesViewer, useSessionUser, useSocketEvent, viewerOf, type Viewer } from '@atendo/web-api';
import { getVolume, playNotificationSound, previewText } from '@atendo/web-ui';

/**
 * The attendant's notifications on every page of the shell (issue 20 item 1; spec 1-platform.md §2 "Top
 * bar", 2-tickets.md §6 "Notifications"): the tickets waiting for the viewer (pending tickets of the viewer's
 * queues and the viewer's open tickets with unread messages) for the top bar's bell, kept live; the
 * new-message sound at the remembered volume; desktop notifications through the browser's Notification API
 * (permission asked once; a click opens the ticket); and the unread total in the tab title.
 */

/** A ticket of the bell (the fields it reads from GET /tickets and the socket events). */
export interface WaitingTicket {
  id: number;
  uuid: string;
  status: string;
  queueId: number | null;
  userId: number | null;
  isGroup: boolean;
  unreadMessages: number;
  lastMessage: string | null;
  updatedAt: string;
  contact: { id: number; name: string; urlPicture?: string | null; profilePicUrl?: string | null } | null;
  queue?: { id: number; name: string; color: string } | null;
}

/** What the bell shows. */
export interface WaitingTickets {
  pending: WaitingTicket[];
  unread: WaitingTicket[];
}

/** Query key of the bell's lists. */
export const waitingKey = (companyId: number | undefined, userId: number | undefined) => ['notifications', 'tickets', companyId, userId] as const;

/** localStorage key remembering that desktop notifications were asked for (asked once). */
export const NOTIFICATION_ASKED_KEY = 'atendo.notifications.asked';

/** Re-read the bell's lists this long after the last live change (one request for a burst). */
export const WAITING_REFRESH_MS = 600;

/**
 * `GET /tickets` twice: pending tickets of the viewer's queues (and of no queue; all pending the viewer sees
 * when it serves no queue) and the viewer's own open tickets with unread messages.
 */
export async function fetchWaiting(viewer: Viewer, signal?: AbortSignal): Promise<WaitingTickets> {
  const pendingQuery: Record<string, string | number> = { status: 'pending', pageNumber: 1, showAll: 'false' };
  if (viewer.queueIds.length) pendingQuery.queueIds = JSON.stringify([...viewer.queueIds, 0]);
  const [pending, unread] = await Promise.all([
    api.get<{ tickets: WaitingTicket[] }>('/tickets', { query: pendingQuery, signal }),
    api.get<{ tickets: WaitingTicket[] }>('/tickets', { query: { status: 'open', withUnreadMessages: 'true', showAll: 'false', pageNumber: 1 }, signal }),
  ]);
  return { pending: pending.tickets ?? [], unread: (unread.tickets ?? []).filter((t) => t.userId === viewer.id && t.unreadMessages > 0) };
}

/** The bell's entries, newest activity first, each ticket once. */
export function waitingList(data: WaitingTickets | undefined): WaitingTicket[] {
  if (!data) return [];
  const seen = new Set<number>();
  return [...data.pending, ...data.unread]
    .filter((t) => (seen.has(t.id) ? false : (seen.add(t.id), true)))
    .sort((a, b) => String(b.updatedAt).localeCompare(String(a.updatedAt)));
}

/** The unread total of the tab title: the unread messages of the bell's tickets. */
export function unreadTotal(list: WaitingTicket[]): number {
  return list.reduce((sum, t) => sum + Math.max(0, Number(t.unreadMessages) || 0), 0);
}

/** `base` with the unread total in front: `(3) Atendo`; `base` alone when 0. */
export function titleWithUnread(base: string, total: number): string {
  return total > 0 ? `(${total > 99 ? '99+' : total}) ${base}` : base;
}

type NotificationCtor = typeof Notification;
const notificationApi = (): NotificationCtor | undefined => (typeof window !== 'undefined' && 'Notification' in window ? (window.Notification as NotificationCtor) : undefined);

/**
 * Asks for the desktop-notification permission once per browser (remembered in localStorage), when the
 * browser has not been asked yet. Never throws.
 */
export function askNotificationPermissionOnce(): void {
  const N = notificationApi();
  if (!N || N.permission !== 'default') return;
  try {
    if (window.localStorage.getItem(NOTIFICATION_ASKED_KEY)) return;
    window.localStorage.setItem(NOTIFICATION_ASKED_KEY, new Date().toISOString());
  } catch {
    return;
  }
  try {
    void Promise.resolve(N.requestPermission()).catch(() => undefined);
  } catch {
    /* older browsers: callback form only */
  }
}

/** An `appMessage` payload, as far as notifications read it (wire-shapes §5). */
interface AppMessagePayload {
  action?: string;
  message?: { id?: number; fromMe?: boolean; isPrivate?: boolean; body?: string; ticketId?: number };
  ticket?: WaitingTicket | null;
  contact?: WaitingTicket['contact'];
}

/**
 * Mounted once by the signed-in frame: keeps the bell's lists live, rings, shows desktop notifications and
 * keeps the tab title. Returns the bell's entries.
 */
export function useTicketNotifications(): { items: WaitingTicket[]; count: number; unread: number } {
  const user = useSessionUser();
  const viewer = useMemo(() => viewerOf(user), [user]);
  const client = useQueryClient();
  const navigate = useNavigate();
  const key = waitingKey(user?.companyId, user?.id);
  const query = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => fetchWaiting(viewer as Viewer, signal),
    enabled: Boolean(viewer),
    staleTime: 30_000,
  });
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const refresh = () => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void client.invalidateQueries({ queryKey: ['notifications', 'tickets'] }), WAITING_REFRESH_MS);
  };
  useEffect(() => () => clearTimeout(timer.current), []);

  useEffect(() => {
    if (viewer) askNotificationPermissionOnce();
  }, [viewer]);

  const prefix = user ? `company-${user.companyId}` : null;
  useSocketEvent<AppMessagePayload>(prefix && `${prefix}-appMessage`, (data) => {
    if (!viewer || data?.action !== 'create' || !data.ticket) return;
    refresh();
    const m = data.message;
    if (!m || m.fromMe || m.isPrivate) return;
    if (!notifiesViewer(viewer, data.ticket)) return;
    playNotificationSound(getVolume());
    showDesktopNotification(data, (uuid) => navigate(`/tickets/${uuid}`));
  });
  useSocketEvent<{ action?: string }>(prefix && `${prefix}-ticket`, () => {
    if (viewer) refresh();
  });

  const items = waitingList(query.data);
  const unread = unreadTotal(items);
  const baseTitle = useRef<string | null>(null);
  useEffect(() => {
    if (baseTitle.current === null) baseTitle.current = document.title.replace(/^\(\d+\+?\) /, '');
    document.title = titleWithUnread(baseTitle.current, unread);
  }, [unread]);
  useEffect(
    () => () => {
      if (baseTitle.current !== null) document.title = baseTitle.current;
    },
    [],
  );
  return { items, count: items.length, unread };
}

/**
 * A desktop notification for an inbound message (when the permission is granted and the page is hidden or
 * shows another ticket): the contact's name, the message's text, the contact's picture; a click focuses the
 * window and opens the ticket.
 */
function showDesktopNotification(data: AppMessagePayload, open: (uuid: string) => void): void {
  const N = notificationApi();
  const ticket = data.ticket;
  if (!N || N.permission !== 'granted' || !ticket?.uuid) return;
  const here = typeof window !== 'undefined' && window.location.pathname === `/tickets/${ticket.uuid}`;
  if (here && !document.hidden) return;
  const contact = data.contact ?? ticket.contact;
  try {
    const n = new N(contact?.name || ticket.contact?.name || 'Atendo', {
      body: previewText(data.message?.body ?? ticket.lastMessage ?? '').slice(0, 120),
      icon: contact?.urlPicture ?? contact?.profilePicUrl ?? undefined,
      tag: `ticket-${ticket.id}`,
    });
    n.onclick = () => {
      window.focus();
      open(ticket.uuid);
      n.close();
    };
  } catch {
    /* some browsers only notify from a service worker */
  }
}
