import { defineChannelAdapter, RetryableError, type ChannelAdapter, type ChannelCapabilities } from '@atendo/sdk';
import { normalizeEvent } from './normalize';
import type { SessionManager } from './session';

export * from './normalize';
export * from './jid';
export * from './send';
export * from './auth-state';
export * from './session';
export {
  loadBaileys,
  defaultSocketFactory,
  defaultMediaDownloader,
  type BaileysModule,
  type BaileysLogger,
  type SocketLike,
  type BinaryNodeLike,
  type SocketEvents,
  type SocketFactory,
  type SocketFactoryOptions,
  type MediaDownloader,
} from './baileys';

/** What WhatsApp Web (Baileys) connections can do. */
export const WHATSAPP_CAPABILITIES: ChannelCapabilities = {
  contentTypes: ['text', 'image', 'audio', 'video', 'document', 'location', 'contact', 'sticker'],
  reactions: true,
  edits: true,
  deletes: true,
  readReceipts: true,
  quotedReplies: true,
  groups: true,
  messagingWindowHours: null,
};

/**
 * A raw Baileys event as `normalize` takes it: the event name, its argument, and `account` — the
 * connection id as text, which `resolve` maps to `{companyId, connectionId}`.
 */
export interface BaileysRawEvent {
  event: string;
  data: unknown;
  account: string;
}

/**
 * The WhatsApp Web adapter (DESIGN.md §4). `normalize` is pure (see normalize.ts). `send` goes through the
 * live session of the connection, found with `sessions` (the whatsapp-sessions plugin owns them); without a
 * running session it throws RetryableError.
 */
export function createWhatsappAdapter(sessions: (connectionId: number) => SessionManager | undefined = () => undefined): ChannelAdapter {
  return defineChannelAdapter({
    channel: 'whatsapp',
    capabilities: WHATSAPP_CAPABILITIES,
    normalize(raw, resolve, opts) {
      const r = raw as Partial<BaileysRawEvent> | undefined;
      if (!r || typeof r.event !== 'string' || typeof r.account !== 'string') {
        opts?.onSkip?.('malformed', { why: 'not a {event, data, account} Baileys event' });
        return [];
      }
      const conn = resolve(r.account);
      if (!conn) {
        opts?.onSkip?.('unknown_account', { account: r.account });
        return [];
      }
      return normalizeEvent(r.event, r.data, { ...conn, receivedAt: opts?.receivedAt, onSkip: opts?.onSkip });
    },
    async send(conn, cmd) {
      const session = sessions(conn.id);
      if (!session) throw new RetryableError(`no WhatsApp session runs here for connection ${conn.id}`);
      return session.send(cmd);
    },
  });
}

/** The adapter without sessions (normalize only; `send` always answers RetryableError). */
export const whatsappAdapter: ChannelAdapter = createWhatsappAdapter();
export default whatsappAdapter;
