import type { FastifyBaseLogger } from 'fastify';
import type { Channel, Envelope } from './envelope';

/** What a channel supports (the inbox hides what a channel cannot do). */
export interface ChannelCapabilities {
  contentTypes: Array<'text' | 'image' | 'audio' | 'video' | 'document' | 'location' | 'contact' | 'sticker'>;
  reactions: boolean;
  edits: boolean;
  deletes: boolean;
  readReceipts: boolean;
  quotedReplies: boolean;
  groups: boolean;
  /** Hours after the contact's last message during which free-form replies are allowed (null: no window). */
  messagingWindowHours: number | null;
}

/** A stored connection as an adapter sees it (secrets included; never sent to browsers). */
export interface AdapterConnection {
  id: number;
  companyId: number;
  channel: Channel;
  name: string;
  /** Page id, Instagram account id or phone-number id (Meta channels). */
  externalAccountId: string | null;
  /** Access token (Meta channels). */
  accessToken: string | null;
}

/** A send command (bus topic `message.send`), resolved by the channels plugin to its connection. */
export interface SendCommand {
  companyId: number;
  messageId: number;
  ticketId: number;
  connectionId: number;
  channel: Channel;
  /** Recipient: phone digits (WhatsApp), PSID / IGSID (Meta), group JID user part. */
  to: string;
  isGroup?: boolean;
  body?: string;
  media?: { path: string; absolutePath?: string; url?: string; mimeType: string; fileName: string };
  quotedWid?: string | null;
}

/** Outcome of a send: the provider's message id. Throw `RetryableError`/`PermanentError` on failure. */
export interface SendResult {
  externalId: string;
}

export interface AdapterContext {
  log: FastifyBaseLogger;
  /** Graph API base URL (META_GRAPH_URL), for Meta adapters. */
  graphUrl: string;
  /** Publishes envelopes the adapter produced outside a webhook (Baileys socket events). */
  emit(envelopes: Envelope[]): Promise<void>;
}

/**
 * A channel adapter (DESIGN.md §4): turns provider payloads into envelopes and sends what the bus asks.
 * It never touches plugin tables. `normalize` is pure and tested against ../shared/fixtures/channels.
 */
export interface ChannelAdapter {
  channel: Channel;
  capabilities: ChannelCapabilities;
  /**
   * Pure: one provider payload (a webhook body, or a Baileys event `{event, data}`) to envelopes.
   * `resolve` maps the provider's account id in the payload to its stored connection.
   */
  normalize(raw: unknown, resolve: (externalAccountId: string) => { companyId: number; connectionId: number } | undefined): Envelope[];
  send(conn: AdapterConnection, cmd: SendCommand, ctx: AdapterContext): Promise<SendResult>;
  start?(ctx: AdapterContext): Promise<void>;
  stop?(): Promise<void>;
}

/** Identity helper that types an adapter definition. */
export function defineChannelAdapter(adapter: ChannelAdapter): ChannelAdapter {
  return adapter;
}
