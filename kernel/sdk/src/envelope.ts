import { Type, type Static } from '@sinclair/typebox';

/**
 * The normalized, versioned envelope every channel adapter produces (DESIGN.md §4). One provider
 * payload becomes zero or more envelopes, published on the bus as `channel.inbound` (topic
 * `channel.<channel>.<kind>`); the tickets plugin turns them into contacts, tickets and messages.
 *
 * Identity: `idempotencyKey` = `<channel>:<connectionId>:<kind>:<externalId>[:<suffix>]` — a redelivered
 * webhook yields the same key, so consumers store nothing twice.
 */
export const ENVELOPE_SCHEMA_VERSION = 1;

export const CHANNELS = ['whatsapp', 'whatsappapi', 'facebook', 'instagram'] as const;
export type Channel = (typeof CHANNELS)[number];

export const EnvelopeKind = Type.Union(
  ['message', 'status', 'reaction', 'edit', 'delete', 'typing', 'connection'].map((k) => Type.Literal(k)),
);
export const ContentType = Type.Union(
  ['text', 'image', 'audio', 'video', 'document', 'location', 'contact', 'sticker', 'interactive', 'unsupported'].map((k) => Type.Literal(k)),
);

export const MediaRef = Type.Object({
  /** Provider media id (Cloud API), or a URL the adapter can fetch (Messenger/Instagram CDN, Baileys direct path). */
  id: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  mimeType: Type.Optional(Type.String()),
  fileName: Type.Optional(Type.String()),
  /** Bytes, when known. */
  size: Type.Optional(Type.Integer({ minimum: 0 })),
  /** Seconds, for audio/video. */
  durationSeconds: Type.Optional(Type.Number({ minimum: 0 })),
  /** Voice note (push-to-talk). */
  voice: Type.Optional(Type.Boolean()),
  sha256: Type.Optional(Type.String()),
  /** Opaque adapter data needed to download (e.g. Baileys media key), JSON-serializable. */
  downloadHint: Type.Optional(Type.Unknown()),
});

export const Party = Type.Object({
  /** Provider id of the party: phone digits (WhatsApp), PSID (Messenger), IGSID (Instagram). */
  externalId: Type.String({ minLength: 1 }),
  name: Type.Optional(Type.String()),
  /** E.164 digits without '+', when the channel has phones. */
  phone: Type.Optional(Type.String()),
  /** WhatsApp LID (`…@lid`) where known; the phone JID is kept in `jid`. */
  lid: Type.Optional(Type.String()),
  jid: Type.Optional(Type.String()),
});

export const Envelope = Type.Object({
  schemaVersion: Type.Literal(ENVELOPE_SCHEMA_VERSION),
  /** uuid of this envelope. */
  id: Type.String(),
  idempotencyKey: Type.String({ minLength: 3 }),
  companyId: Type.Integer({ minimum: 1 }),
  connectionId: Type.Integer({ minimum: 1 }),
  channel: Type.Union(CHANNELS.map((c) => Type.Literal(c))),
  /** `in`: from the contact; `out`: sent by the business (echoes, our own sends seen again, other devices). */
  direction: Type.Union([Type.Literal('in'), Type.Literal('out')]),
  kind: EnvelopeKind,
  /** ISO-8601 time the provider says the event happened. */
  occurredAt: Type.String(),
  /** The conversation: the contact (1:1) or the group. */
  thread: Type.Object({ externalId: Type.String({ minLength: 1 }), isGroup: Type.Boolean(), name: Type.Optional(Type.String()) }),
  /** Who sent it (in groups, the participant). */
  sender: Type.Optional(Party),
  content: Type.Optional(
    Type.Object({
      type: ContentType,
      text: Type.Optional(Type.String()),
      media: Type.Optional(MediaRef),
      location: Type.Optional(Type.Object({ latitude: Type.Number(), longitude: Type.Number(), name: Type.Optional(Type.String()), address: Type.Optional(Type.String()), url: Type.Optional(Type.String()) })),
      /** vCard 3.0 text(s) for contact cards. */
      vcards: Type.Optional(Type.Array(Type.String())),
      /** Interactive replies (buttons, lists, quick replies, postbacks): the chosen id and title. */
      interactive: Type.Optional(Type.Object({ id: Type.Optional(Type.String()), title: Type.Optional(Type.String()), payload: Type.Optional(Type.String()) })),
      forwarded: Type.Optional(Type.Boolean()),
      /** Provider's own type name when `type` is `unsupported` (kept for display and debugging). */
      providerType: Type.Optional(Type.String()),
    }),
  ),
  /** The message this one replies to, by provider id. */
  replyTo: Type.Optional(Type.Object({ externalId: Type.String() })),
  /** For status/reaction/edit/delete: the provider id of the message concerned. For message: its own id. */
  externalId: Type.String({ minLength: 1 }),
  status: Type.Optional(
    Type.Object({
      state: Type.Union(['sent', 'delivered', 'read', 'played', 'failed'].map((s) => Type.Literal(s))),
      error: Type.Optional(Type.Object({ code: Type.Optional(Type.String()), title: Type.Optional(Type.String()), detail: Type.Optional(Type.String()), retryable: Type.Optional(Type.Boolean()) })),
    }),
  ),
  reaction: Type.Optional(Type.Object({ emoji: Type.String() })),
  edit: Type.Optional(Type.Object({ text: Type.String() })),
  typing: Type.Optional(Type.Object({ state: Type.Union(['composing', 'recording', 'paused', 'available', 'unavailable'].map((s) => Type.Literal(s))) })),
  connection: Type.Optional(Type.Object({ status: Type.String(), qrcode: Type.Optional(Type.String()), reason: Type.Optional(Type.String()) })),
  /** The raw provider item, JSON-serializable, kept as the message's `dataJson`. */
  raw: Type.Optional(Type.Unknown()),
});
export type Envelope = Static<typeof Envelope>;

/** ack values of the product family for each status state. */
export const ACK_OF_STATUS: Record<'sent' | 'delivered' | 'read' | 'played', number> = { sent: 1, delivered: 2, read: 3, played: 4 };

/** Builds the idempotency key of an envelope. */
export function idempotencyKey(channel: Channel, connectionId: number, kind: string, externalId: string, suffix?: string): string {
  return [channel, connectionId, kind, externalId, suffix].filter((p) => p !== undefined && p !== '').join(':');
}
