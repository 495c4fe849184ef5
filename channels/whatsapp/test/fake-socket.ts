import { makeEventBuffer, type AnyMessageContent, type WAMessage } from '@whiskeysockets/baileys';
import type { BaileysLogger, BinaryNodeLike, SocketFactory, SocketFactoryOptions, SocketLike } from '../src/index';
import type { WAMessageKey } from '@whiskeysockets/baileys';

/** A logger that drops everything (Baileys' event buffer and the session accept it). */
export const silentLogger: BaileysLogger & { child(): BaileysLogger } = {
  level: 'silent',
  child: () => silentLogger,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** A Baileys error as a closed socket reports it (`lastDisconnect.error`). */
export function boom(statusCode: number, message = 'Connection Failure') {
  return Object.assign(new Error(message), { isBoom: true, output: { statusCode, payload: { statusCode, error: 'Error', message } } });
}

/**
 * A test double of a Baileys socket: the real event emitter (`makeEventBuffer`) plus a recording
 * `sendMessage`. Tests drive it by emitting Baileys events: `sock.ev.emit('connection.update', {qr})`.
 */
export class FakeSocket implements SocketLike {
  readonly ev = makeEventBuffer(silentLogger as never);
  readonly sent: { jid: string; content: AnyMessageContent; options?: Record<string, unknown> }[] = [];
  user: SocketLike['user'] = null;
  ended = 0;
  loggedOut = 0;
  /** Replace to make sending fail. */
  sendImpl: ((jid: string, content: AnyMessageContent) => Promise<WAMessage | undefined>) | undefined;
  private n = 0;

  constructor(readonly opts: SocketFactoryOptions) {}

  async sendMessage(jid: string, content: AnyMessageContent, options?: Record<string, unknown>): Promise<WAMessage | undefined> {
    this.sent.push({ jid, content, options });
    if (this.sendImpl) return this.sendImpl(jid, content);
    const text = (content as { text?: string }).text;
    return { key: { remoteJid: jid, fromMe: true, id: `3EB0FAKE${++this.n}` }, message: text ? { conversation: text } : {}, messageTimestamp: 1700000000 } as WAMessage;
  }

  /** Phone numbers pairing codes were asked for; `pairingImpl` replaces the answer (throw to fail). */
  readonly pairingRequests: string[] = [];
  pairingImpl: ((phone: string) => Promise<string>) | undefined;

  async requestPairingCode(phoneNumber: string): Promise<string> {
    this.pairingRequests.push(phoneNumber);
    return this.pairingImpl ? this.pairingImpl(phoneNumber) : 'ABCD1234';
  }

  /**
   * Pings (the session's liveness probe) and other queries: answered `{tag: 'iq', attrs: {type: 'result'}}`,
   * unless `dead` (connected but dead: no answer; like Baileys, undefined once the timeout passed).
   */
  dead = false;
  readonly queries: BinaryNodeLike[] = [];
  async query(node: BinaryNodeLike, timeoutMs = 60_000): Promise<BinaryNodeLike | undefined> {
    this.queries.push(node);
    if (this.dead) return new Promise((r) => setTimeout(() => r(undefined), timeoutMs));
    return { tag: 'iq', attrs: { type: 'result', id: String(this.queries.length) } };
  }

  /** On-demand history requests (the gap after a drop). */
  readonly historyRequests: { count: number; key: WAMessageKey; timestampMs: number }[] = [];
  async fetchMessageHistory(count: number, key: WAMessageKey, timestampMs: number): Promise<string> {
    this.historyRequests.push({ count, key, timestampMs });
    return `PDO${this.historyRequests.length}`;
  }

  async logout(): Promise<void> {
    this.loggedOut++;
  }

  end(): void {
    this.ended++;
  }

  /** Emits `connection.update` open with our account. */
  open(id = '5511900000001:7@s.whatsapp.net'): void {
    this.user = { id, lid: '900000000000001:7@lid', name: 'Loja' };
    this.ev.emit('connection.update', { connection: 'open' });
  }

  close(code: number): void {
    this.ev.emit('connection.update', { connection: 'close', lastDisconnect: { error: boom(code), date: new Date() } });
  }
}

/** A socket factory that records every socket it makes. */
export function fakeFactory(): { factory: SocketFactory; sockets: FakeSocket[]; last(): FakeSocket } {
  const sockets: FakeSocket[] = [];
  return {
    sockets,
    factory: (opts) => {
      const s = new FakeSocket(opts);
      sockets.push(s);
      return s;
    },
    last: () => {
      const s = sockets[sockets.length - 1];
      if (!s) throw new Error('no socket was created');
      return s;
    },
  };
}
