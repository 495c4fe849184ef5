import { useEffect, useRef } from 'react';
import { io, type Socket } from 'socket.io-client';
import { apiUrl } from './env';
import { api } from './instance';
import { session, useSession } from './session';
import { readToken } from './storage';

let socket: Socket | null = null;
let lastAuthRetry = 0;

/**
 * The page's one socket.io connection to the API (DESIGN.md §5: the access token goes in
 * `handshake.auth.token`; the server puts the socket in its company's and user's rooms). Opened on first
 * use while signed in; a refused handshake with an expired token refreshes the token and reconnects (at
 * most once every 10 s). A dropped connection is retried at most 3 s apart; reconnecting within two minutes
 * to the same server replays the events missed meanwhile. * The server disconnects a socket whose token expired without renewal or whose session was revoked: the
 * client then refreshes (a revoked session signs the page out) and reconnects. Every refreshed token is
 * handed to the open socket (`renewToken`), so it is not cut at expiry. Returns null when signed out.
 */
export function getSocket(): Socket | null {
  if (session.get().status !== 'signedIn' || !readToken()) return null;
  if (!socket) {
    // The API may live under a path (same-origin `/backend` behind the web server or a reverse proxy):
    // socket.io then talks to `<path>/socket.io/` on the API's origin (a path in the URL itself would be
    // read as a namespace).
    const base = new URL(apiUrl(), window.location.href);
    const s = io(base.origin, {
      path: `${base.pathname.replace(/\/+$/, '')}/socket.io/`,
      transports: ['websocket', 'polling'],
      auth: (cb) => cb({ token: readToken() ?? '' }),
      // Reconnect quickly after a drop (0.5 s doubling, at most 3 s apart, with jitter): the server replays
      // the events missed meanwhile when it still has them (`socket.recovered`), else the screens reload.
      reconnectionDelay: 500,
      reconnectionDelayMax: 3000,
    });
    s.on('connect_error', (err) => {
      if (err.message !== 'ERR_INVALID_TOKEN' || Date.now() - lastAuthRetry < 10000) return;
      lastAuthRetry = Date.now();
      api.refresh().then(
        () => {
          if (socket === s && !s.connected) s.connect();
        },
        () => undefined,
      );
    });
    s.on('disconnect', (reason) => {
      // Only a server-side disconnect stops socket.io's own reconnection: expiry or revocation.
      if (reason !== 'io server disconnect') return;
      api.refresh().then(
        () => {
          if (socket === s && !s.connected) s.connect();
        },
        () => undefined,
      );
    });
    socket = s;
  }
  return socket;
}

/** Hands a refreshed access token to the open socket, which then stays connected past the old token's expiry. */
export function renewSocketToken(token: string): void {
  if (socket?.connected) socket.emit('renewToken', token);
}

/** Closes the socket (sign-out). */
export function closeSocket(): void {
  socket?.removeAllListeners();
  socket?.disconnect();
  socket = null;
}

/**
 * Calls `handler` for every `event` on the page's socket while mounted and signed in (`event` null: none).
 * The latest handler is used without re-subscribing.
 */
export function useSocketEvent<T = unknown>(event: string | null | undefined, handler: (payload: T) => void): void {
  const ref = useRef(handler);
  ref.current = handler;
  const signedIn = useSession().status === 'signedIn';
  useEffect(() => {
    if (!event || !signedIn) return undefined;
    const s = getSocket();
    if (!s) return undefined;
    const on = (payload: T) => ref.current(payload);
    s.on(event, on);
    return () => {
      s.off(event, on);
    };
  }, [event, signedIn]);
}
