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
 * most once every 10 s). Returns null when signed out.
 */
export function getSocket(): Socket | null {
  if (session.get().status !== 'signedIn' || !readToken()) return null;
  if (!socket) {
    const s = io(apiUrl(), {
      transports: ['websocket', 'polling'],
      auth: (cb) => cb({ token: readToken() ?? '' }),
      reconnectionDelayMax: 10000,
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
    socket = s;
  }
  return socket;
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
