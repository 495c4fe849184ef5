import type { FastifyBaseLogger } from 'fastify';
import type { Channel, Envelope } from './envelope';
import { defineTopic, type Topic } from './contracts';

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
 * A send command (bus topic `message.send`, the one `SendCommand`), published by the tickets plugin for a
 * stored outbound message and by the connections plugin for a password-reset code. The channels plugin
 * (Meta channels) and the whatsapp-sessions plugin (Baileys `whatsapp`) consume it, each for its channels.
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
  /** The connection to send from; null when the ticket has none (consumers fail the send, `message.failed`). */
  connectionId: number | null;
  channel: Channel;
  /** Recipient: phone digits (WhatsApp), PSID / IGSID (Meta), group JID user part. */
  to: string;
  isGroup?: boolean;
  /** The contact's stored WhatsApp JID, when known (preferred over `to` when of the same kind). */
  remoteJid?: string | null;
  /** The contact's stored WhatsApp LID, when known (used when `to` is not a usable number). */
  lid?: string | null;
  /** The text; a vCard when `mediaType` is 'contactMessage'. */
  body?: string;
  /** The stored message's media type (`conversation`, `imageMessage`, `contactMessage`...). */
  mediaType?: string;
  /**
   * The media file: `path` relative to the company's uploads folder, `url` signed (7 days); `absolutePath`
   * is added by the channels plugin for its adapters (inside the company's folder only).
   */
  media?: { path: string; absolutePath?: string; url?: string; mimeType: string; fileName: string };
  /** Provider id of the quoted message. */
  quotedWid?: string | null;
  /** Shown as forwarded (WhatsApp). */
  isForwarded?: boolean;
  /**
   * Added (additive): a reaction of ours to the provider message `wid` (`emoji` '' removes it; `fromMe`:
   * whether that message is ours). Sent with `messageId` 0 (not a stored message); adapters whose channel
   * has no reactions fail it (`message.failed` with messageId 0, ignored by tickets).
   */
  reaction?: { wid: string; emoji: string; fromMe?: boolean };
}

/** Payload of `message.sent`: the provider accepted a message; `wid` is its provider id (wamid / mid / Baileys id). */
export interface MessageSentEvent {
  companyId: number;
  /** The stored message's id (0: a system message). */
  messageId: number;
  /** Provider message id. */
  wid: string;
  /** Ack reached (1 sent) when the adapter reports one; default 1. */
  ack?: number;
  ticketId?: number;
  connectionId?: number;
  channel?: Channel;
}

/** Payload of `message.failed`: a send will not happen. */
export interface MessageFailedEvent {
  companyId: number;
  /** The stored message's id (0: a system message). */
  messageId: number;
  ticketId?: number;
  connectionId?: number;
  channel?: Channel;
  /**
   * Why: the channels plugin sends `{code, text, retryable}` (`code` a Graph error code as text such as
   * `131047`, or a catalogue code such as `ERR_NO_WAPP_FOUND`; `retryable` true when retries ran out);
   * the whatsapp-sessions plugin a text.
   */
  error: string | { code: string; text: string; retryable: boolean };
}

/** Payload of `message.status`: a delivery status of the company's message `wid` (1 sent, 2 delivered, 3 read, 4 played). */
export interface MessageStatusEvent {
  companyId: number;
  wid: string;
  ack: number;
}

/** A sent message on its provider, as the `message.edit` / `message.delete` commands name it. */
export interface ProviderMessageRef {
  companyId: number;
  messageId: number;
  ticketId: number;
  /** Provider message id. */
  wid: string | null;
  fromMe: boolean;
  connectionId: number | null;
  channel: Channel;
  to: string;
  isGroup: boolean;
  remoteJid: string | null;
}

/** Payload of `message.edit`: the new text of a sent message. */
export interface EditCommand extends ProviderMessageRef {
  body: string;
}

/**
 * Command to adapters: send a stored outbound message (or a system message, `messageId` 0). One topic per channel
 * (`message.send.<channel>`, see `sendTopic`), so each command reaches its own channel's adapter only.
 */
export const messageSend = defineTopic<SendCommand>('message.send', 'send a message on its channel (published per channel: message.send.<channel>)');
/** Result: the provider accepted the message. */
export const messageSent = defineTopic<MessageSentEvent>('message.sent', 'a message was accepted by its provider');
/** Result: sending failed for good. */
export const messageFailed = defineTopic<MessageFailedEvent>('message.failed', 'a message could not be sent');
/** Update: a delivery status of a sent message. */
export const messageStatus = defineTopic<MessageStatusEvent>('message.status', 'a sent message changed delivery status');
/** Command to adapters: edit a sent message on the provider (published per channel: `message.edit.<channel>`). */
export const messageEdit = defineTopic<EditCommand>('message.edit', 'edit a sent message on its channel (published per channel: message.edit.<channel>)');
/** Command to adapters: delete a sent message on the provider (published per channel: `message.delete.<channel>`). */
export const messageDelete = defineTopic<ProviderMessageRef>('message.delete', 'delete a sent message on its channel (published per channel: message.delete.<channel>)');

/** The channel command, result and update topics: owned by the kernel (the SDK declares them; plugins use them). */
export const CHANNEL_TOPICS = [messageSend, messageSent, messageFailed, messageStatus, messageEdit, messageDelete] as const;

const perChannel = new Map<string, Topic<unknown>>();
function channelTopic<T>(base: Topic<T>, channel: string): Topic<T> {
  if (typeof channel !== 'string' || !/^[a-z][a-z0-9-]*$/.test(channel)) throw new TypeError(`invalid channel name: ${String(channel)}`);
  const name = `${base.name}.${channel}`;
  let t = perChannel.get(name);
  if (!t) {
    t = defineTopic<T>(name, base.description) as Topic<unknown>;
    perChannel.set(name, t);
  }
  return t as Topic<T>;
}

/** `message.send.<channel>`: the send commands of one channel (its adapter's consumer is the only one bound). */
export const sendTopic = (channel: Channel | string): Topic<SendCommand> => channelTopic(messageSend, channel);
/** `message.edit.<channel>`: edits of sent messages on one channel. */
export const editTopic = (channel: Channel | string): Topic<EditCommand> => channelTopic(messageEdit, channel);
/** `message.delete.<channel>`: deletions of sent messages on one channel. */
export const deleteTopic = (channel: Channel | string): Topic<ProviderMessageRef> => channelTopic(messageDelete, channel);
/** The pattern every channel's send commands match (observers, tests): `message.send.*`. */
export const ANY_SEND = 'message.send.*';

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
 * It never touches plugin tables. `normalize` is pure and tested against the recorded payloads of fixtures/channels (repository root).
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

/**
 * What the channel adapters' consumers already handed to their provider (`ctx.sends`, kept by the kernel): a send
 * command delivered again (after a crash, a redrive, a relay published twice) is answered from here instead of
 * being sent twice. The duplicate window that is left is one send in flight: the provider accepted it and the
 * process died before `record` (Baileys closes even that window with a message id derived from `sendKey`).
 */
export interface SendLedger {
  /** The provider message id recorded for `key`, when that command was already sent. */
  find(key: string): Promise<string | undefined>;
  /** Records that the command `key` of `companyId` was sent as `externalId` (idempotent; the first record wins). */
  record(companyId: number, key: string, externalId: string): Promise<void>;
}

/**
 * The stable key of a send command: `<channel>:<companyId>:<messageId>` for a stored message (the same on every
 * delivery and every resend of it), else `bus:<bus message id>` (system messages, reactions).
 */
export function sendKey(cmd: Pick<SendCommand, 'channel' | 'companyId' | 'messageId'>, busMessageId: string): string {
  return cmd.messageId > 0 ? `${cmd.channel}:${cmd.companyId}:${cmd.messageId}` : `bus:${busMessageId}`.slice(0, 255);
}
