/**
 * A Baileys stand-in that works across processes (issue 33 item 4's failover test): the test process runs a
 * small TCP server standing in for WhatsApp Web, and kernel processes get a socket factory
 * (`standInSocketFactory`) whose sockets talk to it with JSON lines. A socket says hello with its connection,
 * its node (pid) and the credentials it was given: stored credentials of a paired account (`registered` and
 * `me` in the auth state read from PostgreSQL) log in at once, anything else gets a QR code that the test
 * "scans" (`scan`). Each socket drives the kernel's real `SessionManager` through Baileys' own event buffer
 * (`makeEventBuffer`): `creds.update`, `connection.update` (qr, open, close when the TCP connection drops),
 * `messages.upsert`; `sendMessage` and the liveness ping (`query`) are answered by the stand-in.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { SocketFactory, SocketLike, BinaryNodeLike } from '@atendo/channel-whatsapp';

/** One line of the wire, either way. */
type Line = Record<string, unknown> & { type: string };

function lines(socket: Socket, onLine: (l: Line) => void): void {
  let rest = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    for (const p of parts) {
      if (!p.trim()) continue;
      try {
        onLine(JSON.parse(p) as Line);
      } catch {
        /* not JSON: ignore */
      }
    }
  });
}
const write = (socket: Socket, l: Line) => {
  if (!socket.destroyed) socket.write(`${JSON.stringify(l)}\n`);
};

/** A socket a kernel node opened, as the stand-in sees it. */
export interface StandInPeer {
  connectionId: number;
  node: string;
  registered: boolean;
  socket: Socket;
  closed: boolean;
  openedAt?: number;
}

/** The stand-in's side (run it in the test process). */
export class BaileysStandIn {
  readonly peers: StandInPeer[] = [];
  readonly qrs: { connectionId: number; node: string }[] = [];
  readonly sent: { connectionId: number; node: string; jid: string; text: string }[] = [];
  /** Pings go unanswered while true (connected but dead). */
  dead = false;
  private server: Server | undefined;
  private n = 0;
  address = '';

  async start(): Promise<void> {
    this.server = createServer((socket) => {
      let peer: StandInPeer | undefined;
      socket.on('error', () => undefined);
      socket.on('close', () => {
        if (peer) peer.closed = true;
      });
      lines(socket, (l) => {
        if (l.type === 'hello') {
          peer = { connectionId: Number(l.connectionId), node: String(l.node), registered: Boolean(l.registered), socket, closed: false };
          this.peers.push(peer);
          if (peer.registered) this.open(peer, String(l.meId));
          else {
            this.qrs.push({ connectionId: peer.connectionId, node: peer.node });
            write(socket, { type: 'qr', qr: `2@STAND-IN-QR-${++this.n},key==` });
          }
        } else if (l.type === 'ping') {
          if (!this.dead) write(socket, { type: 'pong', reqId: l.reqId });
        } else if (l.type === 'send' && peer) {
          this.sent.push({ connectionId: peer.connectionId, node: peer.node, jid: String(l.jid), text: String((l.content as { text?: string })?.text ?? '') });
          write(socket, { type: 'sent', reqId: l.reqId, id: `3EB0STANDIN${++this.n}` });
        }
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    const { port } = this.server.address() as { port: number };
    this.address = `127.0.0.1:${port}`;
  }

  /** The live (not closed) socket of a connection, if any. */
  live(connectionId: number): StandInPeer | undefined {
    return this.peers.filter((p) => p.connectionId === connectionId && !p.closed).pop();
  }

  /** The phone scans the QR code of the connection's live socket: credentials are issued, then it opens. */
  scan(connectionId: number, meId = '5511900000001:7@s.whatsapp.net'): void {
    const peer = this.live(connectionId);
    if (!peer) throw new Error(`no live socket for connection ${connectionId}`);
    write(peer.socket, { type: 'creds', update: { registered: true, me: { id: meId, name: 'Loja' } } });
    this.open(peer, meId);
  }

  /** A customer writes to the connection (through its live socket). */
  deliver(connectionId: number, from: string, id: string, text: string): void {
    const peer = this.live(connectionId);
    if (!peer) throw new Error(`no live socket for connection ${connectionId}`);
    write(peer.socket, {
      type: 'upsert',
      messages: [{ key: { remoteJid: `${from}@s.whatsapp.net`, fromMe: false, id }, message: { conversation: text }, messageTimestamp: Math.floor(Date.now() / 1000), pushName: `Cliente ${from.slice(-4)}` }],
    });
  }

  stop(): Promise<void> {
    for (const p of this.peers) p.socket.destroy();
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  private open(peer: StandInPeer, meId: string): void {
    peer.openedAt = Date.now();
    write(peer.socket, { type: 'open', user: { id: meId, name: 'Loja' } });
  }
}

/**
 * The kernel side: a socket factory whose sockets connect to the stand-in at `address` (`host:port`). Used by
 * `baileys-node.ts` (a kernel process whose whatsapp-sessions plugin gets it).
 */
export function standInSocketFactory(address: string): SocketFactory {
  const [host, port] = address.split(':');
  return async ({ connectionId, auth, logger }) => {
    const { loadBaileys } = await import('@atendo/channel-whatsapp');
    const b = await loadBaileys();
    const ev = b.makeEventBuffer(logger as never);
    const tcp = createConnection({ host, port: Number(port) });
    tcp.on('error', () => undefined);
    const waiting = new Map<number, (l: Line | undefined) => void>();
    let req = 0;
    let ended = false;
    const ask = (l: Line, timeoutMs: number): Promise<Line | undefined> =>
      new Promise((resolve) => {
        const id = ++req;
        const t = setTimeout(() => {
          waiting.delete(id);
          resolve(undefined);
        }, timeoutMs);
        waiting.set(id, (answer) => {
          clearTimeout(t);
          resolve(answer);
        });
        write(tcp, { ...l, reqId: id });
      });
    const sock: SocketLike = {
      ev,
      user: null,
      async sendMessage(jid, content) {
        const answer = await ask({ type: 'send', jid, content: content as unknown as Record<string, unknown> }, 10_000);
        if (!answer) throw new Error('the stand-in did not answer the send');
        return { key: { remoteJid: jid, fromMe: true, id: String(answer.id) }, message: { conversation: (content as { text?: string }).text ?? '' }, messageTimestamp: Math.floor(Date.now() / 1000) } as never;
      },
      async query(_node: BinaryNodeLike, timeoutMs = 10_000) {
        const answer = await ask({ type: 'ping' }, timeoutMs);
        return answer ? { tag: 'iq', attrs: { type: 'result' } } : undefined;
      },
      end() {
        ended = true;
        tcp.destroy();
      },
      async logout() {
        tcp.destroy();
      },
    };
    lines(tcp, (l) => {
      if (l.type === 'qr') ev.emit('connection.update', { qr: String(l.qr) });
      else if (l.type === 'creds') ev.emit('creds.update', l.update as never);
      else if (l.type === 'open') {
        sock.user = l.user as SocketLike['user'];
        ev.emit('connection.update', { connection: 'open' });
      } else if (l.type === 'upsert') ev.emit('messages.upsert', { messages: l.messages as never, type: 'notify' });
      else if ((l.type === 'pong' || l.type === 'sent') && typeof l.reqId === 'number') {
        waiting.get(l.reqId)?.(l);
        waiting.delete(l.reqId);
      }
    });
    tcp.on('close', () => {
      if (ended) return;
      const error = Object.assign(new Error('Connection Closed'), { output: { statusCode: 428, payload: { statusCode: 428, error: 'Precondition Required', message: 'Connection Closed' } } });
      ev.emit('connection.update', { connection: 'close', lastDisconnect: { error, date: new Date() } });
    });
    const creds = auth.creds as { registered?: boolean; me?: { id?: string } };
    tcp.on('connect', () => write(tcp, { type: 'hello', connectionId, node: String(process.pid), registered: Boolean(creds.registered && creds.me?.id), meId: creds.me?.id ?? '' }));
    return sock;
  };
}
