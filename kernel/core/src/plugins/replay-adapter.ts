import { Adapter, type BroadcastOptions, type Room, type Session } from 'socket.io-adapter';

/** How long a disconnected socket's session (rooms, data) and the events it may need are kept (ms). */
export const REPLAY_WINDOW_MS = 2 * 60_000;
/** Most events kept for replay on one node (the oldest are dropped first; memory stays bounded). */
export const REPLAY_MAX_EVENTS = 20_000;
/** Most bytes of encoded events kept for replay on one node. */
export const REPLAY_MAX_BYTES = 16 * 1024 * 1024;

/** An event as socket.io encoded it (kept encoded: compact, and replayed without encoding again). */
type Encoded = (string | Buffer)[];

interface StoredPacket {
  seq: number;
  rooms: Set<Room>;
  except: Set<Room> | undefined;
  encoded: Encoded;
  bytes: number;
  at: number;
}

interface PersistedSession {
  sid: string;
  pid: string;
  rooms: Room[];
  data: unknown;
  disconnectedAt: number;
}

/**
 * The socket.io adapter of the kernel's realtime hub (in memory, one per node), with socket.io's connection
 * state recovery done in bounded memory and without work for nobody:
 *
 * - **Empty rooms cost nothing**: an event whose rooms hold no connected socket and no recently
 *   disconnected session is neither encoded nor kept.
 * - **Replay**: every other event is numbered (`<epoch>.<seq>`, appended as the last argument, which the
 *   socket.io client keeps as its offset) and kept, encoded once as it was sent, in a ring of at most
 *   REPLAY_MAX_EVENTS events and REPLAY_MAX_BYTES bytes, no older than REPLAY_WINDOW_MS. A socket that drops (network, ping timeout: socket.io's recoverable reasons) leaves
 *   its session (id, rooms, data) for REPLAY_WINDOW_MS. When its client reconnects to this node with that
 *   session and offset, socket.io restores the socket (`socket.recovered`, same id and rooms) and the events
 *   it missed are replayed once the handshake passed the middlewares (`takeMissed`, called by the hub after
 *   authentication: nothing is sent to a client before it is authenticated again), filtered by the rooms
 *   the socket has then. A reconnection to another node, after a restart, or with an offset older than the
 *   ring is a fresh connection (`recovered` false: the client reads its lists again).
 */
export class ReplayAdapter extends Adapter {
  private readonly epoch = Date.now().toString(36);
  private seq = 0;
  private ring: StoredPacket[] = [];
  private head = 0;
  private bytes = 0;
  /** What the last `_encode` produced (set while `super.broadcast` runs). */
  private captured: Encoded | undefined;
  private readonly sessions = new Map<string, PersistedSession>();
  /** Sockets restored and not yet replayed: socket id -> offset (seq) the client had, and when. */
  private readonly restored = new Map<string, { seq: number; at: number }>();

  constructor(nsp: unknown) {
    super(nsp);
    // socket.io-adapter's (private) encoding step, watched to keep what it produced: an event is encoded once.
    const encode = (Adapter.prototype as unknown as { _encode(p: unknown, o: unknown): Encoded })._encode;
    (this as unknown as { _encode(p: unknown, o: unknown): Encoded })._encode = (packet, packetOpts) => {
      const out = encode.call(this, packet, packetOpts);
      this.captured = out;
      return out;
    };
  }

  /** Events kept for replay right now (tests, metrics). */
  get stored(): number {
    return this.ring.length - this.head;
  }

  /** Bytes of the events kept for replay right now. */
  get storedBytes(): number {
    return this.bytes;
  }

  override broadcast(packet: { type: number; id?: number; data: unknown[]; nsp?: string }, opts: BroadcastOptions): void {
    const live = this.hasLiveRecipient(opts);
    const replayable = packet.type === 2 && packet.id === undefined && opts.flags?.volatile === undefined;
    if (!live && !(replayable && this.someSessionWants(opts))) return;
    let seq = 0;
    if (replayable) {
      seq = ++this.seq;
      packet.data.push(`${this.epoch}.${seq}`);
    }
    let encoded: Encoded | undefined;
    if (live) {
      this.captured = undefined;
      super.broadcast(packet, opts);
      encoded = this.captured;
      this.captured = undefined;
    }
    if (!replayable) return;
    if (!encoded) {
      packet.nsp = this.nsp.name;
      encoded = (this as unknown as { encoder: { encode(p: unknown): Encoded } }).encoder.encode(packet);
    }
    this.keep(seq, encoded, opts);
  }



  override persistSession(session: { sid: string; pid: string; rooms: Room[]; data: unknown }): void {
    this.prune(Date.now());
    this.sessions.set(session.pid, { ...session, disconnectedAt: Date.now() });
  }

  override restoreSession(pid: string, offset: string): Promise<Session> {
    const session = this.sessions.get(pid);
    if (!session) return Promise.resolve(null as unknown as Session);
    this.sessions.delete(pid);
    const seq = this.parseOffset(offset);
    if (session.disconnectedAt + REPLAY_WINDOW_MS < Date.now() || seq === undefined || !this.holdsFrom(seq)) {
      return Promise.resolve(null as unknown as Session);
    }
    this.restored.set(session.sid, { seq, at: Date.now() });
    return Promise.resolve({ sid: session.sid, pid: session.pid, rooms: session.rooms, data: session.data, missedPackets: [] });
  }

  /**
   * The events a restored socket missed (after the offset its client had), for the rooms it is in now;
   * `undefined` when the socket was not restored or the events it needs were dropped meanwhile (the caller
   * then ends the connection so the client starts afresh). Each socket's list is handed out once.
   */
  takeMissed(socketId: string, rooms: ReadonlySet<Room>): Encoded[] | undefined {
    const seq = this.restored.get(socketId)?.seq;
    if (seq === undefined) return undefined;
    this.restored.delete(socketId);
    if (!this.holdsFrom(seq)) return undefined;
    const out: Encoded[] = [];
    for (let i = this.head; i < this.ring.length; i++) {
      const p = this.ring[i];
      if (p.seq <= seq) continue;
      if (includes(rooms, p)) out.push(p.encoded);
    }
    return out;
  }

  private hasLiveRecipient(opts: BroadcastOptions): boolean {
    if (opts.rooms.size === 0) return this.sids.size > 0;
    for (const room of opts.rooms) {
      const ids = this.rooms.get(room);
      if (!ids || ids.size === 0) continue;
      if (!opts.except || opts.except.size === 0) return true;
      for (const id of ids) {
        let excluded = false;
        for (const ex of opts.except) {
          if (ex === id || this.rooms.get(ex)?.has(id)) {
            excluded = true;
            break;
          }
        }
        if (!excluded) return true;
      }
    }
    return false;
  }

  private someSessionWants(opts: BroadcastOptions): boolean {
    if (this.sessions.size === 0) return false;
    const threshold = Date.now() - REPLAY_WINDOW_MS;
    for (const s of this.sessions.values()) {
      if (s.disconnectedAt < threshold) continue;
      if (includes(new Set(s.rooms), { rooms: opts.rooms, except: opts.except })) return true;
    }
    return false;
  }

  private keep(seq: number, encoded: Encoded, opts: BroadcastOptions): void {
    const now = Date.now();
    let bytes = 64;
    for (const part of encoded) bytes += typeof part === 'string' ? part.length : part.byteLength;
    this.ring.push({ seq, rooms: opts.rooms, except: opts.except, encoded, bytes, at: now });
    this.bytes += bytes;
    this.prune(now);
  }

  /** Drops events older than the window or beyond the ring's bounds, and expired sessions. */
  private prune(now: number): void {
    const oldest = now - REPLAY_WINDOW_MS;
    while (
      this.head < this.ring.length &&
      (this.ring.length - this.head > REPLAY_MAX_EVENTS || this.bytes > REPLAY_MAX_BYTES || this.ring[this.head].at < oldest)
    ) {
      this.bytes -= this.ring[this.head].bytes;
      this.ring[this.head++] = undefined as unknown as StoredPacket;
    }
    if (this.head === this.ring.length) {
      this.ring = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.ring.length) {
      this.ring = this.ring.slice(this.head);
      this.head = 0;
    }
    if (this.sessions.size) for (const [pid, s] of this.sessions) if (s.disconnectedAt < oldest) this.sessions.delete(pid);
    // Restored sockets whose handshake never completed (refused by the middlewares).
    if (this.restored.size) for (const [id, r] of this.restored) if (r.at < oldest) this.restored.delete(id);
  }

  private parseOffset(offset: string): number | undefined {
    const dot = typeof offset === 'string' ? offset.indexOf('.') : -1;
    if (dot < 0 || offset.slice(0, dot) !== this.epoch) return undefined;
    const seq = Number(offset.slice(dot + 1));
    return Number.isInteger(seq) && seq >= 0 ? seq : undefined;
  }

  /** True when every event after `seq` is still in the ring. */
  private holdsFrom(seq: number): boolean {
    if (seq > this.seq) return false;
    if (seq === this.seq) return true;
    const first = this.head < this.ring.length ? this.ring[this.head].seq : this.seq + 1;
    return first <= seq + 1;
  }
}

function includes(rooms: ReadonlySet<Room>, p: { rooms: Set<Room>; except?: Set<Room> }): boolean {
  let inside = p.rooms.size === 0;
  if (!inside) {
    for (const r of p.rooms) {
      if (rooms.has(r)) {
        inside = true;
        break;
      }
    }
  }
  if (!inside) return false;
  if (p.except) for (const r of p.except) if (rooms.has(r)) return false;
  return true;
}
