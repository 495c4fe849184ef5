import { createHttpClient } from './client';

/** Dispatched on `window` when the API answers 403 ERR_SUBSCRIPTION_EXPIRED (the shell shows /financeiro-aberto). */
export const SUBSCRIPTION_EXPIRED_EVENT = 'atendo:subscription-expired';
import { apiUrl } from './env';
import { session } from './session';
import { renewSocketToken } from './socket';
import { clearSessionStorage, readToken, writeToken } from './storage';

/**
 * The page's API client: base URL from `/env.js`, token in localStorage, refreshes update the session
 * user, a 401 signs the session out, a 403 ERR_SUBSCRIPTION_EXPIRED dispatches SUBSCRIPTION_EXPIRED_EVENT.
 */
export const api = createHttpClient({
  baseUrl: apiUrl,
  getToken: readToken,
  setToken: writeToken,
  clearToken: clearSessionStorage,
  onRefreshed: (answer) => {
    if (session.get().status === 'signedIn') session.signIn(answer.user);
    renewSocketToken(answer.token);
  },
  onSignedOut: () => session.signOut(),
  onSubscriptionExpired: () => {
    if (typeof window !== 'undefined') window.dispatchEvent(new Event(SUBSCRIPTION_EXPIRED_EVENT));
  },
});
