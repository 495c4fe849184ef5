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

/**
 * A send command (bus topic `message.send`), resolved by the channels plugin to its connection.
 * `messageId`/`ticketId` 0: a system message that is not stored in a ticket (e.g. a password-reset code);
 * adapters send it like any other and report `message.sent`/`message.failed` with `messageId: 0`, which the
 * tickets plugin ignores.
 */
export interface SendCommand {
  companyId: number;
  /** The stored message's id; 0 = not a ticket message. */
  messageId: number;
  /** The ticket's id; 0 = not a ticket message. */
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
  /** Added (additive): timeout of one provider HTTP call in milliseconds (Meta adapters; default 15000). */
  timeoutMs?: number;
  /** Publishes envelopes the adapter produced outside a webhook (Baileys socket events). */
  emit(envelopes: Envelope[]): Promise<void>;
}

/** Why `normalize` left an item out (reported through `NormalizeOptions.onSkip`). */
export type SkipReason =
  /** The payload's account id (page, Instagram account, phone-number id) has no connection. */
  | 'unknown_account'
  /** An item that does not have the documented shape (it is skipped; the rest of the payload is kept). */
  | 'malformed'
  /** A well-formed event the adapter does not turn into envelopes (optins, handover, standalone referrals, ...). */
  | 'unhandled';

/**
 * Added (additive): options of one `normalize` call. Both are optional so `normalize(raw, resolve)` keeps
 * working; `normalize` stays pure (no clock, no I/O) when `receivedAt` is given.
 */
export interface NormalizeOptions {
  /** ISO time the payload was received; used for events that carry no timestamp of their own. */
  receivedAt?: string;
  /** Called once per skipped item; `detail` is loggable (ids, no message text). */
  onSkip?(reason: SkipReason, detail: Record<string, unknown>): void;
}

/** Added (additive): a contact's public profile as a provider reports it (Meta channels send no names in webhooks). */
export interface ContactProfile {
  /** Display name ("First Last" on Messenger; name, else username, on Instagram). */
  name?: string;
  firstName?: string;
  lastName?: string;
  /** Instagram handle, without '@'. */
  username?: string;
  /** Profile picture URL (a provider CDN URL that expires). */
  pictureUrl?: string;
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
  normalize(
    raw: unknown,
    resolve: (externalAccountId: string) => { companyId: number; connectionId: number } | undefined,
    opts?: NormalizeOptions,
  ): Envelope[];
  /**
   * Added (additive): the provider account ids a payload addresses (the ids `normalize` will `resolve`), so a
   * caller can look them up asynchronously first and hand `normalize` a synchronous map. Pure; never throws.
   */
  accountIds?(raw: unknown): string[];
  send(conn: AdapterConnection, cmd: SendCommand, ctx: AdapterContext): Promise<SendResult>;
  /**
   * Added (additive): the public profile of a contact (`externalId` = PSID / IGSID), for channels whose
   * webhooks carry no names. Throws `RetryableError`/`PermanentError` like `send`.
   */
  fetchProfile?(conn: AdapterConnection, externalId: string, ctx: AdapterContext): Promise<ContactProfile>;
  start?(ctx: AdapterContext): Promise<void>;
  stop?(): Promise<void>;
}

/** Identity helper that types an adapter definition. */
export function defineChannelAdapter(adapter: ChannelAdapter): ChannelAdapter {
  return adapter;
}
