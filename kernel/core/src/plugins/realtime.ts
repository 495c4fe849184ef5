import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Server, type Socket } from 'socket.io';
import { AppError, maskNumbersDeep, masksNumbersFor, type AudienceResolver, type AuthUser, type Bus, type ChatBoxGuard, type EmitOptions, type Realtime, type RealtimeObserver, type Subscription } from '@atendo/sdk';
import { REPLAY_WINDOW_MS, ReplayAdapter } from './replay-adapter';

/**
 * Sent to a socket once it is connected afresh (not recovered): it carries no payload; its only use is the
 * replay offset socket.io appends, so that a client that drops before any other event can still recover.
 */
export const OFFSET_EVENT = 'realtime:offset';
import type { SessionGuard } from '../auth/session-guard';
import { SocketSessions, type CookieSession } from './socket-sessions';
import type { LgpdPolicy } from './lgpd';

const TOPIC = 'realtime.emit';
/** At most this many family rooms (ticket ids, statuses) one socket holds. */
const MAX_FAMILY_ROOMS = 200;
/** At most this many emits travel in one bus message. */
const MAX_EMITS_PER_MESSAGE = 256;

interface EmitEnvelope {
  companyId: number | null;
  event: string;
  payload: unknown;
  room?: string;
  userId?: number;
  audiences?: string[];
  rooms?: string[];
  roomsOnly?: boolean;
}

/**
 * What one `realtime.emit` bus message carries: the emits of one event-loop turn of the sending node, in
 * order (a batch of inbound messages emits two events per message: one bus message for all of them instead
 * of one each). A bare EmitEnvelope is still accepted (nodes of an older version).
 */
interface EmitBatch {
  /** The sending node (its observers were told at emit time: not told again on delivery). */
  node?: string;
  emits: EmitEnvelope[];
}

interface RefreshEnvelope {
  companyId: number;
  userId?: number;
}

/** The parts of engine.io's socket and websocket transport `corkBatchedSends` touches (not in its typings). */
interface EngineTransportLike {
  name?: string;
  send?: (packets: unknown[]) => void;
  socket?: { _socket?: { cork(): void; uncork(): void; destroyed?: boolean } };
  atendoCorked?: boolean;
}
interface EngineSocketLike {
  transport?: EngineTransportLike;
  upgraded?: boolean;
  readyState?: string;
  on(event: 'upgrade', listener: (transport: EngineTransportLike) => void): void;
  once?(event: 'upgrade' | 'close', listener: () => void): void;
  off?(event: 'upgrade' | 'close', listener: () => void): void;
  /** The credentials headers of its websocket upgrade request (set by the hub's engine middleware). */
  atendoUpgradeHeaders?: CookieCredentials;
}

/** The headers a cookie authentication reads: the cookie, and where the request came from. */
interface CookieCredentials {
  cookie?: string;
  origin?: string;
  /** `Sec-Fetch-Site` (browsers send it; `cross-site` / `same-site` without an Origin is refused). */
  site?: string;
}

/** How long a handshake made on long-polling without the session cookie waits for the websocket upgrade that carries it. */
export const UPGRADE_WAIT_MS = 10_000;

/** True when a request carries the refresh cookie (`jrt`). */
function hasSessionCookie(cookie: string | undefined): cookie is string {
  return typeof cookie === 'string' && /(?:^|;\s*)jrt=/.test(cookie);
}

/**
 * Whether a cookie-authenticated request may come from `origin`: one of FRONTEND_URL's origins; with no
 * Origin header (same-origin long-polling GETs of some browsers, non-browser clients), unless the browser
 * says the request is cross-site or same-site (`Sec-Fetch-Site`).
 */
export function originAllowed(allowed: ReadonlySet<string>, origin: string | undefined, site: string | undefined): boolean {
  if (origin) return allowed.has(origin.replace(/\/+$/, ''));
  return site !== 'cross-site' && site !== 'same-site';
}

/**
 * Wraps a websocket transport's `send(packets)` (engine.io writes each packet as its own frame, one system
 * call each) in cork/uncork of the TCP socket, so the packets buffered while the socket was busy leave in
 * one write. Other transports, and sends of one packet, are left as they are.
 */
export function corkBatchedSends(transport: EngineTransportLike | undefined): void {
  if (!transport || transport.name !== 'websocket' || transport.atendoCorked || typeof transport.send !== 'function') return;
  const send = transport.send.bind(transport);
  transport.send = (packets: unknown[]) => {
    const tcp = transport.socket?._socket;
    if (packets.length < 2 || !tcp || tcp.destroyed) return send(packets);
    tcp.cork();
    try {
      send(packets);
    } finally {
      tcp.uncork();
    }
  };
  transport.atendoCorked = true;
}

/** Room names are namespaced by company, so a bare room a client asks for never crosses tenants. */
export const rooms = {
  company: (cid: number) => `c:${cid}`,
  user: (cid: number, uid: number) => `c:${cid}:u:${uid}`,
  named: (cid: number, name: string) => `c:${cid}:r:${name}`,
  audience: (cid: number, name: string) => `c:${cid}:a:${name}`,
  /** Sockets that receive contact numbers in full, and those that get them masked (lgpdHideNumber): each socket is in exactly one. */
  numbersFull: (cid: number) => `c:${cid}:n:full`,
  numbersMasked: (cid: number) => `c:${cid}:n:masked`,
  /** Sockets that joined a room of the product family (joinChatBox, joinTickets, joinNotification): they get ticket events by room. */
  routed: (cid: number) => `c:${cid}:routed`,
  /** A family room (ticket id, status, 'notification') joined by a socket that holds audience room `audience` (`rooms.audience(...)` or `rooms.company(...)`). */
  joined: (cid: number, audience: string, name: string) => `c:${cid}:x:${audience}|${name}`,
  all: 'all',
};

/** The status rooms a client may join with `joinTickets` (the family's tabs, and Atendo's other statuses). */
export const STATUS_ROOMS: ReadonlySet<string> = new Set(['open', 'pending', 'group', 'closed', 'search', 'nps', 'lgpd']);

/**
 * socket.io on the kernel's HTTP server. A socket must present a valid access token in
 * `handshake.auth.token` (or `Authorization: Bearer` / `?token=` for older clients), or, with no token at
 * all, the browser's session cookie (`sessionAuth`: clients of the product family connect with only
 * `query: {companyId, userId}`, which is never trusted); otherwise the connection is refused with
 * `connect_error` "ERR_SESSION_EXPIRED" or "ERR_INVALID_TOKEN". It then
 * joins its company's room and its user's room only.
 *
 * Rooms of the product family (wire-shapes §5): client emits `joinChatBox(ticketId)` (a ticket of its own
 * company that its user may see: the ChatBoxGuards decide), `joinTickets(status)` (a known status) and
 * `joinNotification()` join rooms inside its own company (an optional ack gets `{ok}`); `leave*` leave them.
 * From its first join on, a socket is *routed*: events emitted with `rooms` (ticket and message events)
 * reach it only through the rooms it joined, intersected with what its audiences let it see (a room joined
 * is kept as one room per audience the socket holds, `rooms.joined`, so the intersection is a plain
 * socket.io room emit and survives replay). A socket that never joined a room (Atendo's own UI) keeps
 * receiving those events by audience.
 *
 * `emitToCompany` publishes on the bus (`realtime.emit`, broadcast), and every kernel process delivers to
 * its own sockets, so sockets on any node receive every event of their company. The emits of one event-loop
 * turn travel as one bus message (EmitBatch) and are delivered in the order they were made.
 */
export class RealtimeHub implements Realtime {
  readonly io: Server;
  private sub?: Subscription;
  private refreshSub?: Subscription;
  private readonly resolvers: AudienceResolver[] = [];
  private readonly chatBoxGuards: ChatBoxGuard[] = [];
  private readonly observers = new Set<RealtimeObserver>();
  /** This hub's id on the bus (random per process). */
  private readonly node = randomUUID();
  /** Emits of the current event-loop turn, published together on the next turn. */
  private pending: EmitEnvelope[] = [];
  private readonly localFanout: boolean;
  /** Expiry, renewal and revocation of each socket's session. */
  private readonly sessions: SocketSessions;
  private readonly lgpd?: LgpdPolicy;
  /** Per company, the last emit waiting for its lgpdHideNumber value (see `send`). */
  private readonly lgpdWaits = new Map<number, Promise<void>>();

  constructor(
    private readonly app: FastifyInstance,
    private readonly bus: Bus,
    opts: {
      origins: string[];
      onPresence?: (user: AuthUser, online: boolean) => void;
      /**
       * Authenticates a handshake that carries no access token by the browser's session: the raw `Cookie`
       * header in, the signed-in user out (undefined: no valid session). Clients of the product family open
       * socket.io with only `query: {companyId, userId}`; those ids are never trusted.
       */
      sessionAuth?: (cookieHeader: string) => Promise<CookieSession | undefined>;
      /**
       * This node is the only one (the bus is in-process with a broker of its own): emits are delivered to
       * the local sockets directly, without a round trip through the bus (no JSON encoding and parsing of
       * every event batch).
       */
      localFanout?: boolean;
      /** The live-session check every handshake passes and every session change re-runs (SocketSessions). */
      guard: SessionGuard;
      /** The LGPD number mask: events reach viewers who are not admins with contact numbers masked. */
      lgpd?: LgpdPolicy;
    },
  ) {
    this.localFanout = opts.localFanout === true;
    this.lgpd = opts.lgpd;
    this.io = new Server(app.server, {
      cors: { origin: opts.origins, credentials: true },
      pingInterval: 18000,
      pingTimeout: 18000,
      serveClient: false,
      maxHttpBufferSize: 1e5,
      // A client that drops and reconnects to this node within the window gets the events it missed (see
      // ReplayAdapter); the middlewares (authentication, audiences) run again first.
      connectionStateRecovery: { maxDisconnectionDuration: REPLAY_WINDOW_MS, skipMiddlewares: false },
      adapter: ReplayAdapter as never,
    });
    this.sessions = new SocketSessions(app, this.io, opts.guard, (socket) => this.joinAudiences(socket));
    // The headers of websocket upgrade requests, kept on their engine.io connection: a client that opened on
    // HTTP long-polling without credentials presents its cookie there (see cookieCredentials).
    this.io.engine.use((req: { _query?: Record<string, string>; headers: Record<string, string | string[] | undefined> }, _res: unknown, next: () => void) => {
      const sid = req._query?.sid;
      if (sid && req._query?.transport === 'websocket') {
        const conn = (this.io.engine as unknown as { clients: Record<string, EngineSocketLike> }).clients[sid];
        if (conn) conn.atendoUpgradeHeaders = { cookie: req.headers.cookie as string | undefined, origin: req.headers.origin as string | undefined, site: req.headers['sec-fetch-site'] as string | undefined };
      }
      next();
    });
    const allowed = new Set(opts.origins.map((o) => o.replace(/\/+$/, '')));
    this.io.use((socket, next) => {
      const hs = socket.handshake;
      const raw = (hs.auth?.token as string | undefined) ?? (typeof hs.query.token === 'string' ? hs.query.token : undefined);
      const header = raw ? `Bearer ${raw}` : hs.headers.authorization;
      const sessionAuth = opts.sessionAuth;
      const byCookie = !header && sessionAuth
        ? async () => {
            const creds = await this.cookieCredentials(socket);
            if (!creds) return undefined;
            // Cross-site websocket hijacking: a cookie authenticates only a request from an allowed origin.
            if (!originAllowed(allowed, creds.origin, creds.site)) throw new AppError('ERR_NO_PERMISSION', 'This origin may not use the session cookie');
            return sessionAuth(creds.cookie);
          }
        : undefined;
      this.sessions.authenticate(header, byCookie).then(
        ({ user, session }) => {
          socket.data.user = user;
          socket.data.session = session;
          // Audiences are joined before `connect` reaches the client, so no event is missed.
          this.joinAudiences(socket).then(() => next(), () => next());
        },
        (err: { code?: string }) => next(new Error(err instanceof AppError ? err.code : 'ERR_INVALID_TOKEN')),
      );
    });
    // Frames that engine.io buffered while a websocket was busy leave in one write when it drains.
    this.io.engine.on('connection', (raw: EngineSocketLike) => {
      corkBatchedSends(raw.transport);
      raw.on('upgrade', (transport: EngineTransportLike) => corkBatchedSends(transport));
    });
    this.io.on('connection', (socket: Socket) => {
      const user = socket.data.user as AuthUser;
      void socket.join([rooms.company(user.companyId), rooms.user(user.companyId, user.id), rooms.all]);
      this.sessions.attach(socket);
      if (socket.recovered) {
        // Authenticated again (middlewares above): replay what it missed, for the rooms it has now.
        const missed = (this.io.of('/').adapter as unknown as ReplayAdapter).takeMissed(socket.id, socket.rooms);
        if (!missed) {
          // The events it needs are gone: end the connection, the client reconnects afresh and reloads.
          socket.conn.close();
          return;
        }
        const client = socket.client as unknown as { writeToEngine(encoded: unknown, opts: object): void };
        for (const encoded of missed) client.writeToEngine(encoded, {});
      } else socket.emit(OFFSET_EVENT);
      const answer = (ack: unknown, ok: boolean) => {
        if (typeof ack === 'function') (ack as (r: unknown) => void)({ ok });
      };
      socket.on('joinChatBox', (id: unknown, ack?: unknown) => {
        const name = typeof id === 'string' || typeof id === 'number' ? String(id) : '';
        // From the first join on, the socket is routed, even before the ticket is checked (no event of another ticket meanwhile).
        void socket.join(rooms.routed(user.companyId));
        if (!/^[1-9]\d{0,11}$/.test(name)) return answer(ack, false);
        this.mayJoinChatBox(socket.data.user as AuthUser, Number(name)).then(
          (ok) => {
            if (ok && socket.connected) this.joinFamilyRoom(socket, name);
            answer(ack, ok && socket.connected);
          },
          (err: unknown) => {
            this.app.log.warn({ err }, 'chat box guard failed');
            answer(ack, false);
          },
        );
      });
      socket.on('joinTickets', (status: unknown, ack?: unknown) => {
        void socket.join(rooms.routed(user.companyId));
        const ok = typeof status === 'string' && STATUS_ROOMS.has(status);
        if (ok) this.joinFamilyRoom(socket, status);
        answer(ack, ok);
      });
      socket.on('joinNotification', (ack?: unknown) => {
        void socket.join(rooms.routed(user.companyId));
        this.joinFamilyRoom(socket, 'notification');
        answer(ack, true);
      });
      const leave = (name: unknown) => {
        if (typeof name === 'string' || typeof name === 'number') this.leaveFamilyRoom(socket, String(name));
      };
      socket.on('leaveChatBox', leave);
      socket.on('leaveTickets', leave);
      socket.on('leaveNotification', () => leave('notification'));
      socket.on('userStatus', () => opts.onPresence?.(user, true));
      opts.onPresence?.(user, true);
      socket.on('disconnect', () => {
        const left = this.io.sockets.adapter.rooms.get(rooms.user(user.companyId, user.id));
        if (!left || left.size === 0) opts.onPresence?.(user, false);
      });
    });
  }

  /**
   * The cookie a token-less handshake authenticates with, and the origin it came from: the handshake
   * request's, or, when that request had no session cookie and the connection is on HTTP long-polling (the
   * family's sockets opened with no options: cross-origin polling requests carry no cookie), the websocket
   * upgrade's, waited for at most UPGRADE_WAIT_MS (the client probes the upgrade at once). Undefined when
   * no request of the connection carried the cookie.
   */
  private async cookieCredentials(socket: Socket): Promise<(CookieCredentials & { cookie: string }) | undefined> {
    const hs = socket.handshake;
    const first: CookieCredentials = { cookie: hs.headers.cookie, origin: hs.headers.origin, site: hs.headers['sec-fetch-site'] as string | undefined };
    if (hasSessionCookie(first.cookie)) return first as CookieCredentials & { cookie: string };
    const conn = socket.conn as unknown as EngineSocketLike;
    if (!conn.atendoUpgradeHeaders && !conn.upgraded && conn.transport?.name === 'polling' && conn.once && conn.off) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          conn.off!('upgrade', done);
          conn.off!('close', done);
          resolve();
        };
        const timer = setTimeout(done, UPGRADE_WAIT_MS);
        conn.once!('upgrade', done);
        conn.once!('close', done);
      });
    }
    const up = conn.atendoUpgradeHeaders;
    return up && hasSessionCookie(up.cookie) ? (up as CookieCredentials & { cookie: string }) : undefined;
  }

  /** Starts consuming the bus fan-out (not needed with local fan-out). */
  async start(): Promise<void> {
    if (!this.localFanout) this.sub = await this.bus.subscribe<EmitBatch | EmitEnvelope>(
      TOPIC,
      (m) => {
        const p = m.payload;
        if ('emits' in p && Array.isArray(p.emits)) {
          const own = p.node === this.node;
          const corked = p.emits.length > 1 ? this.corkSockets() : [];
          try {
            for (const e of p.emits) this.deliver(e, !own);
          } finally {
            for (const c of corked) c.uncork();
          }
        } else this.deliver(p as EmitEnvelope, true);
      },
      { broadcast: true, prefetch: 256, maxRetries: 0 },
    );
    this.refreshSub = await this.bus.subscribe<RefreshEnvelope>('realtime.refresh', (m) => this.refreshLocal(m.payload), { broadcast: true, maxRetries: 0 });
  }

  registerAudienceResolver(resolver: AudienceResolver): void {
    this.resolvers.push(resolver);
  }

  /** Adds a guard of `joinChatBox` (see ChatBoxGuard): a join passes when some guard says true. */
  registerChatBoxGuard(guard: ChatBoxGuard): void {
    this.chatBoxGuards.push(guard);
  }

  private async mayJoinChatBox(user: AuthUser, ticketId: number): Promise<boolean> {
    for (const guard of this.chatBoxGuards) if (await guard(user, ticketId)) return true;
    return false;
  }

  /** The family rooms a socket joined (ticket ids, statuses, 'notification'). */
  private familyRooms(socket: Socket): Set<string> {
    let set = socket.data.familyRooms as Set<string> | undefined;
    if (!set) {
      set = new Set();
      socket.data.familyRooms = set;
    }
    return set;
  }

  private joinFamilyRoom(socket: Socket, name: string): void {
    const user = socket.data.user as AuthUser;
    const set = this.familyRooms(socket);
    // Bounded: a client cannot make the server hold rooms without end.
    if (!set.has(name) && set.size >= MAX_FAMILY_ROOMS) return;
    set.add(name);
    void socket.join(rooms.named(user.companyId, name));
    this.syncJoined(socket);
  }

  private leaveFamilyRoom(socket: Socket, name: string): void {
    const user = socket.data.user as AuthUser;
    this.familyRooms(socket).delete(name);
    void socket.leave(rooms.named(user.companyId, name));
    this.syncJoined(socket);
  }

  /**
   * Keeps the socket's `rooms.joined` rooms equal to (its audiences and its company room) x (the family rooms
   * it joined): called when either side changes.
   */
  private syncJoined(socket: Socket): void {
    const user = socket.data.user as AuthUser;
    const cid = user.companyId;
    const names = this.familyRooms(socket);
    const holders = [rooms.company(cid)];
    const audiencePrefix = rooms.audience(cid, '');
    for (const room of socket.rooms) if (room.startsWith(audiencePrefix)) holders.push(room);
    const wanted = new Set<string>();
    for (const h of holders) for (const n of names) wanted.add(rooms.joined(cid, h, n));
    const prefix = `c:${cid}:x:`;
    for (const room of socket.rooms) if (room.startsWith(prefix) && !wanted.has(room)) void socket.leave(room);
    const missing = [...wanted].filter((r) => !socket.rooms.has(r));
    if (missing.length) void socket.join(missing);
  }

  refreshAudiences(companyId: number, userId?: number): void {
    this.bus.publish<RefreshEnvelope>('realtime.refresh', { companyId, userId }, { volatile: true }).catch((err) => this.app.log.error({ err }, 'realtime refresh publish failed'));
  }

  /** Joins the socket to the audiences every resolver names, leaving audiences it no longer has. */
  private async joinAudiences(socket: Socket): Promise<void> {
    const user = socket.data.user as AuthUser;
    const wanted = new Set<string>();
    for (const r of this.resolvers) {
      try {
        for (const name of await r(user)) wanted.add(rooms.audience(user.companyId, name));
      } catch (err) {
        this.app.log.error({ err }, 'audience resolver failed');
      }
    }
    // Numbers in full or masked (lgpdHideNumber), by the user's profile as it is now.
    const masked = masksNumbersFor(user);
    wanted.add(masked ? rooms.numbersMasked(user.companyId) : rooms.numbersFull(user.companyId));
    void socket.leave(masked ? rooms.numbersFull(user.companyId) : rooms.numbersMasked(user.companyId));
    if (masked && this.lgpd) this.lgpd.known(user.companyId); // warm the company's setting
    const prefix = rooms.audience(user.companyId, '');
    for (const room of socket.rooms) if (room.startsWith(prefix) && !wanted.has(room)) void socket.leave(room);
    if (wanted.size) void socket.join([...wanted]);
    if ((socket.data.familyRooms as Set<string> | undefined)?.size) this.syncJoined(socket);
  }

  private async refreshLocal(e: RefreshEnvelope): Promise<void> {
    const target = e.userId !== undefined ? rooms.user(e.companyId, e.userId) : rooms.company(e.companyId);
    const ids = this.io.sockets.adapter.rooms.get(target);
    if (!ids) return;
    await Promise.all([...ids].map((id) => this.io.sockets.sockets.get(id)).filter((s): s is Socket => Boolean(s)).map((s) => this.joinAudiences(s)));
  }

  observe(listener: RealtimeObserver): () => void {
    this.observers.add(listener);
    return () => {
      this.observers.delete(listener);
    };
  }

  private notify(e: EmitEnvelope): void {
    if (!this.observers.size) return;
    const opts: EmitOptions = { room: e.room, userId: e.userId, audiences: e.audiences, rooms: e.rooms, roomsOnly: e.roomsOnly };
    for (const listener of this.observers) {
      try {
        listener(e.companyId, e.event, opts);
      } catch (err) {
        this.app.log.error({ err, event: e.event }, 'realtime observer failed');
      }
    }
  }

  /**
   * Corks the TCP sockets under this node's websocket connections, so the frames a batch of emits writes to
   * one connection leave in one write (socket.io writes every event as its own frame, each a system call;
   * a batch of inbound messages is two events per message). Delivery is synchronous: the caller uncorks
   * right after. Sockets on HTTP long-polling are left alone (their packets are already buffered).
   */
  private corkSockets(): { uncork(): void }[] {
    const out: { uncork(): void }[] = [];
    const clients = (this.io.engine as unknown as { clients?: Record<string, { transport?: { socket?: { _socket?: { cork?: () => void; uncork(): void; destroyed?: boolean } } } }> }).clients;
    for (const id in clients) {
      const raw = clients[id].transport?.socket?._socket;
      if (raw && typeof raw.cork === 'function' && !raw.destroyed) {
        raw.cork();
        out.push(raw);
      }
    }
    return out;
  }

  private deliver(e: EmitEnvelope, notify: boolean): void {
    if (notify) this.notify(e);
    let target: string | string[];
    if (e.companyId === null) target = rooms.all;
    else if (e.audiences !== undefined) {
      if (!e.audiences.length) return;
      const cid = e.companyId;
      target = e.audiences.map((a) => rooms.audience(cid, a));
    } else if (e.userId !== undefined) target = rooms.user(e.companyId, e.userId);
    else if (e.room !== undefined) target = rooms.named(e.companyId, e.room);
    else target = rooms.company(e.companyId);
    const cid = e.companyId;
    if (cid === null || !e.rooms || e.userId !== undefined) return this.send(cid, target, [], e);
    // Family rooms: sockets that never joined one get it by the targeting above; routed sockets through
    // the rooms they joined while holding that targeting (one room per pair, see rooms.joined).
    if (!e.roomsOnly) this.send(cid, target, [rooms.routed(cid)], e);
    const holders = Array.isArray(target) ? target : [target];
    const via: string[] = [];
    for (const h of holders) for (const name of e.rooms) via.push(rooms.joined(cid, h, name));
    if (via.length) this.send(cid, via, [], e);
  }

  /**
   * Emits `e` to `target` minus `except`, as the company's lgpdHideNumber rule wants it for each socket. When
   * the company's value is not known on this node (its first event here, a settings change just forgot it, or
   * the cached value is older than LGPD_SETTING_TTL_MS), the emit waits for the value instead of guessing: a
   * guess of "hidden" showed attendants masked numbers of companies that do not hide them (the customer's
   * number masked in the inbox after a message, issue 31), a guess of "shown" would leak them. The company's
   * later emits wait behind it, so its events keep their order.
   */
  private send(cid: number | null, target: string | string[], except: string[], e: EmitEnvelope): void {
    if (cid !== null && this.lgpd) {
      const queued = this.lgpdWaits.get(cid);
      if (queued || this.lgpd.known(cid) === undefined) {
        const next = (queued ?? this.lgpd.ready(cid)).then(() => {
          try {
            this.sendNow(cid, target, except, e);
          } catch (err) {
            this.app.log.error({ err, event: e.event }, 'realtime delivery failed');
          }
        });
        this.lgpdWaits.set(cid, next);
        void next.then(() => {
          if (this.lgpdWaits.get(cid) === next) this.lgpdWaits.delete(cid);
        });
        return;
      }
    }
    this.sendNow(cid, target, except, e);
  }

  /** `send` once the company's lgpdHideNumber value is known (masked copies when it could not be read). */
  private sendNow(cid: number | null, target: string | string[], except: string[], e: EmitEnvelope): void {
    if (cid !== null && this.lgpd && this.lgpd.known(cid) !== false) {
      // lgpdHideNumber (or not known yet): viewers who are not admins get the masked copy, the others the event as it is.
      const masked = maskNumbersDeep(e.payload);
      if (masked !== e.payload) {
        this.io.to(target).except([...except, rooms.numbersMasked(cid)]).emit(e.event, e.payload);
        this.io.to(target).except([...except, rooms.numbersFull(cid)]).emit(e.event, masked);
        return;
      }
    }
    if (except.length) this.io.to(target).except(except).emit(e.event, e.payload);
    else this.io.to(target).emit(e.event, e.payload);
  }

  emitToCompany(companyId: number, event: string, payload: unknown, opts: EmitOptions = {}): void {
    this.publish({ companyId, event, payload, room: opts.room, userId: opts.userId, audiences: opts.audiences, ...(opts.rooms ? { rooms: opts.rooms, roomsOnly: opts.roomsOnly } : {}) });
  }

  emitGlobal(event: string, payload: unknown): void {
    this.publish({ companyId: null, event, payload });
  }

  private publish(e: EmitEnvelope): void {
    this.notify(e);
    this.pending.push(e);
    if (this.pending.length === 1) setImmediate(() => this.flush());
    else if (this.pending.length >= MAX_EMITS_PER_MESSAGE) this.flush();
  }

  /** Publishes the emits gathered since the last flush as one bus message (or delivers them here, with local fan-out). */
  private flush(): void {
    const emits = this.pending;
    if (!emits.length) return;
    this.pending = [];
    if (this.localFanout) {
      const corked = emits.length > 1 ? this.corkSockets() : [];
      try {
        for (const e of emits) {
          try {
            this.deliver(e, false);
          } catch (err) {
            this.app.log.error({ err, event: e.event }, 'realtime delivery failed');
          }
        }
      } finally {
        for (const c of corked) c.uncork();
      }
      return;
    }
    this.bus.publish<EmitBatch>(TOPIC, { node: this.node, emits }, { volatile: true }).catch((err) => this.app.log.error({ err, events: emits.length, first: emits[0].event }, 'realtime publish failed'));
  }

  /** Judges every local socket's session now, cutting the dead and the expired (see SocketSessions.sweep). */
  sweepSessions(): Promise<void> {
    return this.sessions.sweep();
  }

  async close(): Promise<void> {
    this.sessions.stop();
    this.flush();
    await this.sub?.unsubscribe();
    await this.refreshSub?.unsubscribe();
    this.io.disconnectSockets(true);
    await new Promise<void>((resolve) => {
      // socket.io closes the HTTP server too; the kernel closes that itself.
      this.io.engine.close();
      resolve();
    });
  }
}
