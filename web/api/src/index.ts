/**
 * @atendo/web-api: the HTTP client (bearer token, one refresh and retry on 403, sign-out on 401), the
 * session store, the socket.io connection and hooks, the shared react-query cache and `toastError`.
 * A module-federation singleton: the shell and every area use the same instance.
 */
import { queryClient } from './queries';
import { closeSocket } from './socket';
import { session } from './session';
import { clearSessionStorage } from './storage';

export * from './types';
export * from './env';
export * from './storage';
export { createHttpClient, HttpError, SUBSCRIPTION_EXPIRED, type HttpClient, type HttpClientOptions, type Query, type RequestOptions } from './client';
export { api, SUBSCRIPTION_EXPIRED_EVENT } from './instance';
export { session, SessionStore, useSession, useSessionUser, type SessionState, type SessionStatus } from './session';
export { getSocket, closeSocket, useSocketEvent } from './socket';
export { queryClient, useCompanyPlan, companyPlanKey, type CompanyWithPlan } from './queries';
export { errorText, toastError, ERROR_TOAST_MS } from './errors';
export * from './format';
export * from './viewer';

// Whatever signs the session out (logout, a 401, a failed refresh): drop the stored keys, the cached
// answers and the socket.
session.onSignOut(() => {
  clearSessionStorage();
  closeSocket();
  queryClient.clear();
});
