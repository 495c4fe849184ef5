import { createHttpClient } from './client';
import { apiUrl } from './env';
import { session } from './session';
import { clearSessionStorage, readToken, writeToken } from './storage';

/**
 * The page's API client: base URL from `/env.js`, token in localStorage, refreshes update the session
 * user, a 401 signs the session out.
 */
export const api = createHttpClient({
  baseUrl: apiUrl,
  getToken: readToken,
  setToken: writeToken,
  clearToken: clearSessionStorage,
  onRefreshed: (answer) => {
    if (session.get().status === 'signedIn') session.signIn(answer.user);
  },
  onSignedOut: () => session.signOut(),
});
