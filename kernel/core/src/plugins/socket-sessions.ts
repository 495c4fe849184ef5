import type { FastifyInstance } from 'fastify';
import type { Server, Socket } from 'socket.io';
import { AppError, type AuthUser, type SessionsChangedEvent } from '@atendo/sdk';
import type { SessionClaims, SessionGuard } from '../auth/session-guard';
import { verifyToken } from './auth';

/** What a socket was authenticated with: the claims the guard re-checks, and when they stop being valid. */
export interface SocketSession {
  claims: SessionClaims;
  /** Epoch ms after which the socket is disconnected unless renewed (token `exp`, or the refresh session's end). */
  expiresAt: number;
}

/** A handshake authenticated by the browser's refresh session (no access token): see RealtimeHub's `sessionAuth`. */
export interface CookieSession {
  user: AuthUser;
  /** The refresh-session family (revoked on logout). */
  familyId: string;
  tokenVersion: number;
  /** Epoch ms when the refresh session ends. */
  expiresAt: number;
}

/** setTimeout's longest delay; longer waits re-arm. */
const MAX_TIMER_MS = 2_147_483_647;
/**
 * How often every local socket's session is judged again (SocketSessions.sweep): a company whose due date
 * passes while its sockets are open is cut within this (plus the guard's cache of a company, 60 s).
 */
export const SESSION_SWEEP_MS = 60_000;

/**
 * The session side of sockets (security issue item 2):
 * - `authenticate` (handshake): an access token must verify (HS256, `exp` present and not passed) and its
 *   session be live and as signed (SessionGuard), else `connect_error` ERR_INVALID_TOKEN (the client
 *   refreshes and reconnects); a token-less handshake is authenticated by the refresh cookie (its family
 *   is then the session checked).
 * - `attach` (connection): the socket is disconnected when its token expires (client event
 *   `renewToken(token, ack?)` with a fresh token of the same user extends it without reconnecting: ack
 *   `{ok: true}` or `{ok: false, error}`), and whenever a session change (`auth.sessions-changed`,
 *   `company.changed`, on any node) leaves its session dead: logout, password change, user deleted, company
 *   deactivated. A change of profile or super flag keeps the socket and moves it to the new profile's rooms
 *   (`rejoin`), as does a change of the user's queues.
 * - A company past its due date gets no live events, as REST answers it ERR_SUBSCRIPTION_EXPIRED: its
 *   handshakes are refused, `renewToken` is refused (ack error ERR_SUBSCRIPTION_EXPIRED) and cuts the socket,
 *   a change of the company (a due date set in the past) cuts its sockets at once, and `sweep` (every
 *   SESSION_SWEEP_MS) cuts the sockets whose company's due date passed while they were open.
 */
export class SocketSessions {
  constructor(
    private readonly app: FastifyInstance,
    private readonly io: Server,
    private readonly guard: SessionGuard,
    private readonly rejoin: (socket: Socket) => Promise<void>,
  ) {
    guard.onChange((change) => void this.recheck(change));
    this.sweeper = setInterval(() => void this.sweep(), SESSION_SWEEP_MS);
    this.sweeper.unref();
  }

  private readonly sweeper: NodeJS.Timeout;

  /** Stops the periodic sweep (the hub's close). */
  stop(): void {
    clearInterval(this.sweeper);
  }

  /**
   * Judges every local socket's session again and disconnects those whose session died or whose company is
   * past its due date (the periodic sweep; the guard's caches make it cheap). Resolves when done.
   */
  async sweep(): Promise<void> {
    const sockets = [...this.io.sockets.sockets.values()].filter((s) => s.data.session && s.data.user);
    await Promise.all(
      sockets.map(async (socket) => {
        try {
          const verdict = await this.guard.judge((socket.data.session as SocketSession).claims);
          if (!verdict.live || verdict.expired) socket.disconnect(true);
        } catch (err) {
          this.app.log.warn({ err }, 'socket session sweep failed; the socket stays until its next check');
        }
      }),
    );
  }

  /** The socket's user and session from its handshake; throws AppError ERR_INVALID_TOKEN / ERR_SESSION_EXPIRED / ERR_SUBSCRIPTION_EXPIRED. */
  async authenticate(header: string | undefined, cookieSession?: () => Promise<CookieSession | undefined>): Promise<{ user: AuthUser; session: SocketSession }> {
    let session: SocketSession;
    if (!header && cookieSession) {
      const s = await cookieSession();
      if (!s) throw new AppError('ERR_SESSION_EXPIRED');
      session = { claims: { ...s.user, tv: s.tokenVersion, sid: s.familyId }, expiresAt: s.expiresAt };
    } else {
      const claims = verifyToken(this.app, header);
      session = { claims, expiresAt: claims.exp! * 1000 };
    }
    const verdict = await this.guard.judge(session.claims);
    if (!verdict.live || !verdict.asSigned) throw new AppError('ERR_INVALID_TOKEN');
    // A company past its due date gets no live events until it is renewed (the open-invoices page needs none).
    if (verdict.expired) throw new AppError('ERR_SUBSCRIPTION_EXPIRED');
    return { user: verdict.current, session };
  }

  /** Arms the expiry and the renewal handler of a connected socket (`socket.data.session` set by authenticate). */
  attach(socket: Socket): void {
    this.arm(socket);
    socket.on('renewToken', (token: unknown, ack?: unknown) => {
      const answer = typeof ack === 'function' ? (ack as (r: unknown) => void) : () => undefined;
      this.renew(socket, token).then(
        () => answer({ ok: true }),
        (err: { code?: string }) => answer({ ok: false, error: err.code ?? 'ERR_INVALID_TOKEN' }),
      );
    });
    socket.on('disconnect', () => clearTimeout(socket.data.expiryTimer as NodeJS.Timeout | undefined));
  }

  private async renew(socket: Socket, token: unknown): Promise<void> {
    if (typeof token !== 'string' || token.length > 4096) throw new AppError('ERR_INVALID_TOKEN');
    const claims = verifyToken(this.app, `Bearer ${token}`);
    const user = socket.data.user as AuthUser;
    if (claims.id !== user.id || claims.companyId !== user.companyId) throw new AppError('ERR_INVALID_TOKEN');
    const verdict = await this.guard.judge(claims);
    if (!verdict.live || !verdict.asSigned) throw new AppError('ERR_INVALID_TOKEN');
    if (verdict.expired) {
      // As REST: a company past its due date gets no live events; the socket ends (after the ack leaves).
      setImmediate(() => socket.disconnect(true));
      throw new AppError('ERR_SUBSCRIPTION_EXPIRED');
    }
    socket.data.session = { claims, expiresAt: claims.exp! * 1000 } satisfies SocketSession;
    await this.adopt(socket, verdict.current);
    this.arm(socket);
  }

  /** Disconnects `socket` at its session's expiry (re-armed past setTimeout's range). */
  private arm(socket: Socket): void {
    clearTimeout(socket.data.expiryTimer as NodeJS.Timeout | undefined);
    const session = socket.data.session as SocketSession;
    const wait = session.expiresAt - Date.now();
    if (wait <= 0) {
      socket.disconnect(true);
      return;
    }
    const timer = setTimeout(() => (Date.now() >= session.expiresAt ? socket.disconnect(true) : this.arm(socket)), Math.min(wait, MAX_TIMER_MS));
    timer.unref();
    socket.data.expiryTimer = timer;
  }

  /** Takes the user as the database has it now (profile, super flag); rejoins the audiences when it changed. */
  private async adopt(socket: Socket, current: AuthUser): Promise<void> {
    const user = socket.data.user as AuthUser;
    const moved = user.profile !== current.profile || user.super !== current.super;
    user.profile = current.profile;
    user.super = current.super;
    if (moved) await this.rejoin(socket);
  }

  /** Re-judges the local sockets a change concerns: dead sessions are disconnected, live ones adopt the current user. */
  private async recheck(change: SessionsChangedEvent): Promise<void> {
    const hit: Socket[] = [];
    for (const socket of this.io.sockets.sockets.values()) {
      const session = socket.data.session as SocketSession | undefined;
      const user = socket.data.user as AuthUser | undefined;
      if (!session || !user) continue;
      if ((change.userId !== undefined && user.id === change.userId) || (change.familyId !== undefined && session.claims.sid === change.familyId) || (change.userId === undefined && change.familyId === undefined && change.companyId === user.companyId)) {
        hit.push(socket);
      }
    }
    await Promise.all(
      hit.map(async (socket) => {
        try {
          const verdict = await this.guard.judge((socket.data.session as SocketSession).claims);
          if (!verdict.live || verdict.expired) socket.disconnect(true);
          else await this.adopt(socket, verdict.current);
        } catch (err) {
          this.app.log.warn({ err }, 'socket session re-check failed; the socket stays until its next check');
        }
      }),
    );
  }
}
