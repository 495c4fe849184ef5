import { useEffect, useRef } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { toast } from 'react-toastify';
import { api, HttpError, isAdmin, useSessionUser, useSocketEvent, type SessionUser } from '@atendo/web-api';
import { getVolume, playNotificationSound } from '@atendo/web-ui';
import type { SlaBreach, SlaSocketEvent } from '@atendo/plugin-sla/contract';

/**
 * The supervisors' SLA breach notifications (issue 34 item 5; plugins/sla) on every page of the shell: the open
 * breaches of the queues the viewer supervises (`GET /sla/breaches`, for supervisors and admins) for the bell,
 * kept live by `company-{id}-sla`: a `breach` (sent only to the queue's supervisors) rings, shows a toast and a
 * desktop notification (when allowed; a click opens the ticket) and refreshes the list; an `update` of a listed
 * ticket (answered, closed, transferred) refreshes it too. Nothing is asked when the SLA plugin is not installed
 * (the route answers 404) or the viewer is a plain user.
 */
export type { SlaBreach };

/** Query key of the bell's breaches. */
export const breachesKey = (companyId: number | undefined, userId: number | undefined) => ['notifications', 'sla', companyId, userId] as const;
/** Re-read the list this long after the last live change. */
export const BREACHES_REFRESH_MS = 600;

/** `GET /sla/breaches`; [] when the SLA plugin is not installed or the viewer may not read it. */
export async function fetchBreaches(signal?: AbortSignal): Promise<SlaBreach[]> {
  try {
    return await api.get<SlaBreach[]>('/sla/breaches', { signal });
  } catch (err) {
    if (err instanceof HttpError && (err.status === 404 || err.status === 403)) return [];
    throw err;
  }
}

/** Supervisors, admins and super users: those the breaches of their queues are told to. */
export function supervises(user: Pick<SessionUser, 'profile' | 'super'> | null | undefined): boolean {
  return Boolean(user && (isAdmin(user) || String(user.profile).toLowerCase() === 'supervisor'));
}

export function useSlaBreaches(): SlaBreach[] {
  const { t } = useTranslation();
  const user = useSessionUser();
  const navigate = useNavigate();
  const client = useQueryClient();
  const supervisor = supervises(user);
  const key = breachesKey(user?.companyId, user?.id);
  const query = useQuery({ queryKey: key, queryFn: ({ signal }) => fetchBreaches(signal), enabled: supervisor, staleTime: 60_000 });
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const refresh = () => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void client.invalidateQueries({ queryKey: ['notifications', 'sla'] }), BREACHES_REFRESH_MS);
  };
  const listed = query.data ?? [];
  useSocketEvent<SlaSocketEvent>(supervisor && user ? `company-${user.companyId}-sla` : null, (e) => {
    if (e?.action === 'breach') {
      refresh();
      const text = t('notifications.sla.toast', { id: e.breach.ticketId, target: t(`notifications.sla.${e.breach.target}`) });
      playNotificationSound(getVolume());
      toast.warning(text, { toastId: `sla-${e.breach.ticketId}-${e.breach.target}`, onClick: () => navigate(`/tickets/${e.breach.uuid}`) });
      showDesktop(t('notifications.sla.title'), text, `sla-${e.breach.ticketId}`, () => navigate(`/tickets/${e.breach.uuid}`));
    } else if (e?.action === 'update' && listed.some((b) => b.ticketId === e.sla.ticketId)) refresh();
    else if (e?.action === 'delete' && listed.some((b) => b.ticketId === e.ticketId)) refresh();
  });
  return supervisor ? listed : [];
}

/** A desktop notification when the permission was granted (asked by the tickets' notifications). Never throws. */
function showDesktop(title: string, body: string, tag: string, open: () => void): void {
  const N = typeof window !== 'undefined' && 'Notification' in window ? window.Notification : undefined;
  if (!N || N.permission !== 'granted') return;
  try {
    const n = new N(title, { body, tag });
    n.onclick = () => {
      window.focus();
      open();
      n.close();
    };
  } catch {
    /* some browsers only notify from a service worker */
  }
}
