import { api, daysUntil, HttpError, formatDate, readToken, session, writeToken, type AuthAnswer, type Company, type SessionUser } from '@atendo/web-api';

/** Company 1 never expires (spec 1-platform.md §3). */
export const PLATFORM_COMPANY_ID = 1;
export const PLATFORM_DUE_DATE = '2999-12-31';
/** A sign-in warns when the subscription ends in fewer than this many days (spec §9). */
export const DUE_WARNING_DAYS = 5;

export interface SubscriptionStatus {
  /** `YYYY-MM-DD` or ISO date-time, as the API sent it (company 1: 2999-12-31). */
  dueDate: string | undefined;
  /** Whole days until the due date (negative when past). */
  daysLeft: number | undefined;
  /** The due date is before today. */
  expired: boolean;
  /** Not expired, and due in fewer than DUE_WARNING_DAYS days. */
  dueSoon: boolean;
}

/** The subscription state of `company` on `now`'s date (spec §4 "Sign-in"). No due date: never expires. */
export function subscriptionStatus(company: Pick<Company, 'id' | 'dueDate'> | null | undefined, now: Date = new Date()): SubscriptionStatus {
  const dueDate = company?.id === PLATFORM_COMPANY_ID ? PLATFORM_DUE_DATE : company?.dueDate ?? undefined;
  const daysLeft = daysUntil(dueDate, now);
  const expired = daysLeft !== undefined && daysLeft < 0;
  return { dueDate, daysLeft, expired, dueSoon: daysLeft !== undefined && !expired && daysLeft < DUE_WARNING_DAYS };
}

export interface LoginOutcome extends SubscriptionStatus {
  user: SessionUser;
}

/**
 * `POST /auth/login`: stores the token (JSON-encoded in localStorage `token`, plus `companyId`, `userId`,
 * `companyDueDate` as the product family does) and returns the user with the subscription state. The
 * caller then signs the session in (`session.signIn(outcome.user)`), also when the company has expired
 * (it is sent to /financeiro-aberto). Rejects with the API's error (e.g. 401 ERR_INVALID_CREDENTIALS).
 */
export async function authenticate(email: string, password: string): Promise<LoginOutcome> {
  const { token, user } = await api.post<AuthAnswer>('/auth/login', { email: email.trim(), password }, { auth: false });
  const status = subscriptionStatus(user.company ?? { id: user.companyId, dueDate: undefined });
  writeToken(token);
  try {
    window.localStorage.setItem('companyId', String(user.companyId));
    window.localStorage.setItem('userId', String(user.id));
    if (status.dueDate) window.localStorage.setItem('companyDueDate', formatDate(status.dueDate));
  } catch {
    /* storage unavailable */
  }
  return { ...status, user };
}

/** `authenticate`, then sign the session in. */
export async function login(email: string, password: string): Promise<LoginOutcome> {
  const outcome = await authenticate(email, password);
  session.signIn(outcome.user);
  return outcome;
}

/** `DELETE /auth/logout` (revokes the refresh cookie; failures ignored), then signs the session out. */
export async function logout(): Promise<void> {
  try {
    await api.delete('/auth/logout');
  } catch {
    /* signing out locally is what matters */
  }
  session.signOut();
}

/** Waits before each new attempt of a session restore the API did not answer (network error, 5xx), in ms. */
export const RESTORE_RETRY_MS = [500, 1000, 2000, 4000];

/**
 * Session restore at start-up (spec §4): a stored token triggers `POST /auth/refresh_token` (cookie), whose
 * user signs the session in; no token, or a refused refresh (401: the session is dead), leaves it signed
 * out. A refresh that got no verdict (network error, an aborted request, 429, 5xx) is tried again after
 * each delay of RESTORE_RETRY_MS (the page shows "loading" meanwhile) before giving up: a reload or a
 * navigation that interrupts the request, or an API restarting, must not throw the session away.
 */
export async function restoreSession(retryMs: readonly number[] = RESTORE_RETRY_MS): Promise<void> {
  if (!readToken()) {
    session.signOut();
    return;
  }
  for (let attempt = 0; ; attempt++) {
    try {
      const { user } = await api.refresh();
      session.signIn(user);
      return;
    } catch (err) {
      const status = err instanceof HttpError ? err.status : 0;
      const verdict = status >= 400 && status < 500 && status !== 408 && status !== 429;
      if (verdict || attempt >= retryMs.length) {
        session.signOut();
        return;
      }
      await new Promise((r) => setTimeout(r, retryMs[attempt]));
    }
  }
}
