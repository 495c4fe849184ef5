import { createHash } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/**
 * The normalized, versioned envelope every channel adapter produces (DESIGN.md §4). One provider
 * payload becomes zero or more envelopes, published on the bus on the topic
 * `channel.inbound.<channel>.<kind>` (bus message id = `idempotencyKey`); the tickets plugin turns them into
 * contacts, tickets and messages.
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
  /**
   * Added (additive): where the adapter stored the downloaded file, relative to the company's uploads
   * (`UploadService`: `{area}/{uuid}{ext}`, serve with `uploads.url(companyId, path)`). Absent when the file
   * was not (or could not be) downloaded; the metadata above is kept either way.
   */
  path: Type.Optional(Type.String()),
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

/** A provider error: code (as text), title, detail, and whether trying again later may succeed. */
export const EnvelopeError = Type.Object({
  code: Type.Optional(Type.String()),
  title: Type.Optional(Type.String()),
  detail: Type.Optional(Type.String()),
  retryable: Type.Optional(Type.Boolean()),
});

export const Envelope = Type.Object({
  schemaVersion: Type.Literal(ENVELOPE_SCHEMA_VERSION),
  /** uuid of this envelope (adapters derive it from `idempotencyKey` with `envelopeId`, so it is stable too). */
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
      interactive: Type.Optional(
        Type.Object({
          id: Type.Optional(Type.String()),
          title: Type.Optional(Type.String()),
          payload: Type.Optional(Type.String()),
          /** Added (additive): the list row's description (WhatsApp list replies). */
          description: Type.Optional(Type.String()),
        }),
      ),
      forwarded: Type.Optional(Type.Boolean()),
      /**
       * Provider's own type name when `type` is `unsupported` (kept for display and debugging); also set for
       * provider kinds mapped onto a common type (`story_mention`, `share`, `ig_reel`, `fallback`, `postback`,
       * `quick_reply`, `button_reply`, ...) so the inbox can label them.
       */
      providerType: Type.Optional(Type.String()),
      /** Added (additive): a shared link (Messenger `fallback`, post shares): its URL and title. */
      link: Type.Optional(Type.Object({ url: Type.String(), title: Type.Optional(Type.String()) })),
      /**
       * Added (additive): how the contact arrived (Messenger/Instagram `referral`: m.me / ig.me links, ads,
       * "Get Started" with a ref), for bots and reports.
       */
      referral: Type.Optional(Type.Object({ ref: Type.Optional(Type.String()), source: Type.Optional(Type.String()), type: Type.Optional(Type.String()), adId: Type.Optional(Type.String()) })),
    }),
  ),
  /** The message this one replies to, by provider id. */
  replyTo: Type.Optional(Type.Object({ externalId: Type.String() })),
  /** For status/reaction/edit/delete: the provider id of the message concerned. For message: its own id. */
  externalId: Type.String({ minLength: 1 }),
  status: Type.Optional(
    Type.Object({
      state: Type.Union(['sent', 'delivered', 'read', 'played', 'failed'].map((s) => Type.Literal(s))),
      error: Type.Optional(EnvelopeError),
      /**
       * Added (additive): watermark receipts (Messenger `delivery`/`read`): ISO time up to which EVERY outbound
       * message of the thread has reached `state`. When set without a concrete message, `externalId` is
       * `watermark:<ms>` and consumers apply the state to all outbound messages of the thread sent at or before it.
       */
      watermark: Type.Optional(Type.String()),
    }),
  ),
  reaction: Type.Optional(Type.Object({ emoji: Type.String() })),
  edit: Type.Optional(Type.Object({ text: Type.String() })),
  typing: Type.Optional(Type.Object({ state: Type.Union(['composing', 'recording', 'paused', 'available', 'unavailable'].map((s) => Type.Literal(s))) })),
  /**
   * Connection state reports. `status: 'account_error'` (added, additive) is informational: the provider
   * reported an account-level problem (WhatsApp Cloud `value.errors[]`, e.g. 130429 rate limit) in `error`;
   * the connection's stored status is unchanged.
   */
  connection: Type.Optional(Type.Object({ status: Type.String(), qrcode: Type.Optional(Type.String()), reason: Type.Optional(Type.String()), error: Type.Optional(EnvelopeError) })),
  /** The raw provider item, JSON-serializable, kept as the message's `dataJson`. */
  raw: Type.Optional(Type.Unknown()),
});
export type Envelope = Static<typeof Envelope>;

/** The bus topic an envelope is published on: `channel.inbound.<channel>.<kind>` (payload: the `Envelope`). */
export function inboundTopic(e: Pick<Envelope, 'channel' | 'kind'>): string {
  return `channel.inbound.${e.channel}.${e.kind}`;
}

/** Pattern matching every envelope topic (the consumer of adapters' envelopes subscribes to it). */
export const INBOUND_TOPIC_PATTERN = 'channel.inbound.#';

/** ack values of the product family for each status state. */
export const ACK_OF_STATUS: Record<'sent' | 'delivered' | 'read' | 'played', number> = { sent: 1, delivered: 2, read: 3, played: 4 };

/** Builds the idempotency key of an envelope. */
export function idempotencyKey(channel: Channel, connectionId: number, kind: string, externalId: string, suffix?: string): string {
  return [channel, connectionId, kind, externalId, suffix].filter((p) => p !== undefined && p !== '').join(':');
}

/**
 * A uuid-shaped id derived from an idempotency key (sha256, version nibble 5, RFC 4122 variant): the same key
 * always gives the same id, so `normalize` stays pure and a redelivered webhook yields identical envelopes.
 */
export function envelopeId(idempotencyKey: string): string {
  const h = createHash('sha256').update(idempotencyKey).digest('hex');
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** True when `value` is a valid envelope of this schema version (TypeBox `Value.Check`). */
export function isEnvelope(value: unknown): value is Envelope {
  return Value.Check(Envelope, value);
}

/** Why `value` is not a valid envelope: up to `max` `"<path>: <message>"` lines ([] when it is valid). */
export function envelopeErrors(value: unknown, max = 10): string[] {
  const out: string[] = [];
  for (const e of Value.Errors(Envelope, value)) {
    out.push(`${e.path || '/'}: ${e.message}`);
    if (out.length >= max) break;
  }
  return out;
}
