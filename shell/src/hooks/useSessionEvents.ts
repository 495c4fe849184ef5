import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import { getSocket, session, useSocketEvent, type SessionUser } from '@atendo/web-api';

/** Delay between the "accessed from another computer" toast and the forced sign-out (spec §4). */
export const SECOND_LOGIN_DELAY_MS = 1000;

/**
 * Real-time session events of the signed-in user:
 * - `company-{id}-auth` {action:'update', user:{id}} for oneself: another computer signed in with this
 *   account; toast "Sua conta foi acessada em outro computador.", then after 1 s clear localStorage and
 *   reload (spec 1-platform.md §4);
 * - `company-{id}-user` {action:'update', user} for oneself: merge the new fields into the session user
 *   (keeping fields the event lacks, wire-shapes §6.2).
 */
export function useSessionEvents(user: SessionUser | null, reload: () => void = () => window.location.reload()): void {
  const { t } = useTranslation();
  const cid = user?.companyId;
  useSocketEvent<{ action?: string; user?: { id?: number } }>(cid !== undefined ? `company-${cid}-auth` : null, (data) => {
    if (!user || data?.action !== 'update' || data.user?.id !== user.id) return;
    toast.warn(t('session.otherLogin'), { toastId: 'other-login' });
    setTimeout(() => {
      try {
        window.localStorage.clear();
      } finally {
        reload();
      }
    }, SECOND_LOGIN_DELAY_MS);
  });
  useSocketEvent<{ action?: string; user?: Partial<SessionUser> }>(cid !== undefined ? `company-${cid}-user` : null, (data) => {
    if (!user || data?.action !== 'update' || data.user?.id !== user.id) return;
    const { company, ...rest } = data.user;
    session.update({ ...rest, ...(company ? { company: { ...user.company, ...company } } : {}) });
  });
}

/** Period of the `userStatus` signal (spec 1-platform.md §4: every 5 minutes). */
export const USER_STATUS_INTERVAL_MS = 300_000;

/** Emits `userStatus` on the page's socket when signed in and every 5 minutes after. */
export function useUserStatusHeartbeat(signedIn: boolean): void {
  useEffect(() => {
    if (!signedIn) return undefined;
    const beat = () => getSocket()?.emit('userStatus');
    beat();
    const id = setInterval(beat, USER_STATUS_INTERVAL_MS);
    return () => clearInterval(id);
  }, [signedIn]);
}
