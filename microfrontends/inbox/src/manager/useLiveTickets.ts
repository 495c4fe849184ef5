import { useEffect, useRef } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { getSocket, useSocketEvent } from '@atendo/web-api';
import { inboxKeys } from '../lib/api';
import { setPresence } from '../lib/presence';
import type { Viewer } from '../lib/viewer';
import type { AppMessageEvent, ContactEvent, PresenceEvent, TicketEvent } from '../types';
import { applyLiveToCache } from './cache';

/** The tab badge counts are re-read this long after the last live change (one request for a burst). */
export const COUNTS_REFRESH_MS = 800;

/**
 * Keeps the ticket manager live (spec 2-tickets.md §4 "Live ticket list updates"; wire-shapes §5) while
 * mounted, for the signed-in user of company `companyId`:
 * - `company-{cid}-ticket`: update -> upsert in every cached list (leaving the lists it no longer
 *   matches), delete -> remove, updateUnread -> unread count 0;
 * - `company-{cid}-appMessage` create -> the ticket moves to the top of its list; the unread count goes
 *   up unless the message is ours or its conversation is open (`openUuid`) (the sound, the bell and desktop
 *   notifications are the shell's, on every page: shell/src/hooks/useTicketNotifications.ts);
 * - `company-{cid}-contact` update -> the contact is merged into its tickets' rows;
 * - `company-{cid}-presence` -> typing / recording indicators.
 * The badge counts are re-read shortly after changes, and every list after a socket reconnection
 * (events may have been missed meanwhile).
 */
export function useLiveTickets(companyId: number | undefined, viewer: Viewer | null, openUuid: string | null): void {
  const queryClient = useQueryClient();
  const openRef = useRef(openUuid);
  openRef.current = openUuid;
  const countsTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const refreshCounts = () => {
    clearTimeout(countsTimer.current);
    countsTimer.current = setTimeout(() => void queryClient.invalidateQueries({ queryKey: ['inbox', 'counts'] }), COUNTS_REFRESH_MS);
  };
  useEffect(() => () => clearTimeout(countsTimer.current), []);

  const prefix = companyId !== undefined ? `company-${companyId}` : null;

  useSocketEvent<TicketEvent>(prefix && `${prefix}-ticket`, (data) => {
    if (!viewer || !data) return;
    if (data.action === 'update' || data.action === 'create') {
      if (!data.ticket) return;
      applyLiveToCache(queryClient, viewer, { type: 'upsert', ticket: data.ticket });
      refreshCounts();
    } else if (data.action === 'delete') {
      applyLiveToCache(queryClient, viewer, { type: 'delete', ticketId: Number(data.ticketId) });
      refreshCounts();
    } else if (data.action === 'updateUnread') {
      applyLiveToCache(queryClient, viewer, { type: 'resetUnread', ticketId: Number(data.ticketId) });
    }
  });

  useSocketEvent<AppMessageEvent>(prefix && `${prefix}-appMessage`, (data) => {
    if (!viewer || data?.action !== 'create' || !data.ticket) return;
    const fromMe = Boolean(data.message?.fromMe);
    const ticket = data.contact && !data.ticket.contact ? { ...data.ticket, contact: data.contact } : data.ticket;
    applyLiveToCache(queryClient, viewer, { type: 'message', ticket, fromMe, openUuid: openRef.current });
    refreshCounts();
  });

  useSocketEvent<ContactEvent>(prefix && `${prefix}-contact`, (data) => {
    if (!viewer || data?.action !== 'update' || !data.contact) return;
    applyLiveToCache(queryClient, viewer, { type: 'contact', contact: data.contact });
  });

  useSocketEvent<PresenceEvent>(prefix && `${prefix}-presence`, (data) => {
    if (data?.action !== 'update-presence') return;
    const id = Number(data.ticketId);
    if (Number.isInteger(id)) setPresence(id, data.presence);
  });

  // After a reconnection the lists may have missed events: read them again.
  useEffect(() => {
    if (!viewer) return undefined;
    const s = getSocket();
    if (!s) return undefined;
    let lost = false;
    const onDisconnect = () => {
      lost = true;
    };
    const onConnect = () => {
      if (!lost) return;
      lost = false;
      void queryClient.invalidateQueries({ queryKey: inboxKeys.lists });
      void queryClient.invalidateQueries({ queryKey: ['inbox', 'counts'] });
    };
    s.on('disconnect', onDisconnect);
    s.on('connect', onConnect);
    return () => {
      s.off('disconnect', onDisconnect);
      s.off('connect', onConnect);
    };
  }, [queryClient, viewer]);
}
