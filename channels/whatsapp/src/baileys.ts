import type { AnyMessageContent, AuthenticationState, BaileysEventMap, MiscMessageGenerationOptions, WAMessage, WAMessageKey, proto } from '@whiskeysockets/baileys';

/**
 * Baileys is ESM only. It is loaded lazily with a real dynamic `import()` (never at module load), so the
 * plugin loader, the test global setup and `tsx` (whose CommonJS hook cannot resolve Baileys' ESM-only
 * dependency `whatsapp-rust-bridge`) can load this package without loading Baileys. Jest transforms it
 * (see jest.config.js `transformIgnorePatterns` / `moduleNameMapper`).
 */
export type BaileysModule = typeof import('@whiskeysockets/baileys');

let cached: Promise<BaileysModule> | undefined;

/** The Baileys module (loaded once). */
export function loadBaileys(): Promise<BaileysModule> {
  cached ??= import('@whiskeysockets/baileys').then((m) => ((m as { default?: unknown }).default && !(m as { makeWASocket?: unknown }).makeWASocket ? (m as unknown as { default: BaileysModule }).default : m));
  return cached;
}

/** The part of a Baileys event emitter the session uses (`makeEventBuffer()` gives one, as does a live socket). */
export interface SocketEvents {
  /** Batched processing of every event (consolidated when Baileys buffers). Returns the unsubscribe function. */
  process(handler: (events: Partial<BaileysEventMap>) => void | Promise<void>): () => void;
}

/**
 * The part of a Baileys socket (`WASocket`) the session uses. A test double is `{ev: makeEventBuffer(logger),
 * sendMessage}`; everything else is optional.
 */
export interface SocketLike {
  ev: SocketEvents;
  sendMessage(jid: string, content: AnyMessageContent, options?: MiscMessageGenerationOptions): Promise<WAMessage | undefined>;
  /** Our own account once paired: `{id: '5511…:12@s.whatsapp.net', lid?: '…@lid', name?}`. */
  user?: { id: string; lid?: string; name?: string } | null;
  /** Unlinks the device (WhatsApp then closes the socket with 401). */
  logout?(msg?: string): Promise<void>;
  /** Closes the socket. */
  end?(error: Error | undefined): void;
  /** Asks the sender's phone to re-upload expired media (used by `downloadMediaMessage`). */
  updateMediaMessage?(message: WAMessage): Promise<WAMessage>;
  /**
   * Pairing by phone number instead of the QR code: WhatsApp answers an 8-character code the phone's
   * owner types in "Linked devices > Link with phone number". `phoneNumber`: digits with the country code.
   */
  requestPairingCode?(phoneNumber: string): Promise<string>;
  /** Which of the given numbers or JIDs have a WhatsApp account (only those are answered, with their JID). */
  onWhatsApp?(...phoneNumber: string[]): Promise<{ jid: string; exists: unknown }[] | undefined>;
  /**
   * Sends a binary node and waits for its answer (Baileys `query`; undefined when it timed out). The session's
   * liveness probe sends WhatsApp's ping IQ (`xmlns: 'w:p'`) through it.
   */
  query?(node: BinaryNodeLike, timeoutMs?: number): Promise<BinaryNodeLike | undefined>;
  /**
   * Asks the phone for `count` messages of a chat older than `oldestMsgKey` (on-demand history sync); they
   * arrive later as a `messaging-history.set` event of sync type ON_DEMAND. Answers the request's id.
   */
  fetchMessageHistory?(count: number, oldestMsgKey: WAMessageKey, oldestMsgTimestamp: number): Promise<string>;
}

/** A WhatsApp binary node as Baileys' `query` takes and answers it. */
export interface BinaryNodeLike {
  tag: string;
  attrs: Record<string, string>;
  content?: unknown;
}

/** A Baileys-compatible logger (pino and Fastify's logger fit). */
export interface BaileysLogger {
  level: string;
  child(bindings: Record<string, unknown>): BaileysLogger;
  trace(obj: unknown, msg?: string): void;
  debug(obj: unknown, msg?: string): void;
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

/** What the session hands a socket factory. */
export interface SocketFactoryOptions {
  companyId: number;
  connectionId: number;
  auth: AuthenticationState;
  logger: BaileysLogger;
  /** Looks a message we sent up by key (Baileys re-encrypts it when a recipient asks for a retry). */
  getMessage(key: WAMessageKey): Promise<proto.IMessage | undefined>;
}

/** Creates a socket. Injected in tests; the default is Baileys' `makeWASocket` (`defaultSocketFactory`). */
export type SocketFactory = (opts: SocketFactoryOptions) => SocketLike | Promise<SocketLike>;

/**
 * Baileys' own socket: `makeWASocket` with the key store cached in memory in front of PostgreSQL (every
 * write still goes through to `auth.keys.set`), no full history sync, not marked online on connect.
 */
export const defaultSocketFactory: SocketFactory = async ({ auth, logger, getMessage }) => {
  const b = await loadBaileys();
  return b.makeWASocket({
    auth: { creds: auth.creds, keys: b.makeCacheableSignalKeyStore(auth.keys, logger as never) },
    logger: logger as never,
    browser: b.Browsers.ubuntu('Atendo'),
    markOnlineOnConnect: false,
    syncFullHistory: false,
    getMessage,
  }) as unknown as SocketLike;
};

/** Downloads the media of a message as bytes. Injected in tests; the default uses Baileys' `downloadMediaMessage`. */
export type MediaDownloader = (message: WAMessage, sock: SocketLike, logger: BaileysLogger) => Promise<Buffer>;

/** Baileys' `downloadMediaMessage`, asking the phone to re-upload expired media through the socket. */
export const defaultMediaDownloader: MediaDownloader = async (message, sock, logger) => {
  const b = await loadBaileys();
  const ctx = sock.updateMediaMessage ? { reuploadRequest: (m: WAMessage) => sock.updateMediaMessage!(m), logger: logger as never } : undefined;
  return (await b.downloadMediaMessage(message, 'buffer', {}, ctx)) as Buffer;
};
