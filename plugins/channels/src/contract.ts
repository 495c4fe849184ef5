/**
 * The channels plugin's contract (import it as `@atendo/plugin-channels/contract`): the `channels` service
 * ref and interface, the Meta webhook topic it owns with its payload, its consumers' queue names, and the
 * shape of the `message.failed` results it publishes. Types and `define*` calls only: importing it pulls
 * neither fastify nor knex. The channel command/result topics (`message.send`, `message.sent`, ...) and the
 * envelope topics are the SDK's (kernel-owned).
 */
import { defineService, defineTopic, type Channel, type ChannelAdapter, type ContactProfile, type MessageFailedEvent } from '@atendo/sdk';

// ---------------------------------------------------------------------------------------------------
// Service

/**
 * The `channels` service: `ctx.services.get(channelsService)` after declaring `dependsOn: ['channels']` (or
 * `optionalDependsOn` and `has(channelsService)`). The adapters and contact profiles (Meta webhooks carry no
 * names) for the inbound pipeline.
 */
export interface ChannelsService {
  adapters: ReadonlyMap<Channel, ChannelAdapter>;
  /** The consumers' queue names (their dead letters are in `<queue>.dlq`). */
  queues: { webhooks: string; outbound: string };
  /**
   * The profile of contact `externalId` (PSID / IGSID) through connection `connectionId` of `companyId`:
   * `{name, firstName?, lastName?, username?, pictureUrl?}`. Resolves `undefined` when the connection does
   * not exist in that company or its channel has no profile lookup. Throws the adapter's
   * `RetryableError`/`PermanentError` on Graph failures.
   */
  fetchProfile(companyId: number, connectionId: number, externalId: string): Promise<ContactProfile | undefined>;
}

/** The `channels` service ref. */
export const channelsService = defineService<ChannelsService>('channels');

// ---------------------------------------------------------------------------------------------------
// Bus

/**
 * Payload of `webhook.meta.received`: the body exactly as received (base64 of the raw bytes, so nothing is
 * lost or re-encoded), its `object`, and when it arrived. The bus message id is the sha256 of the raw body.
 */
export interface WebhookEvent {
  object: string;
  /** Base64 of the raw request body. */
  body: string;
  /** ISO time the body was received. */
  receivedAt: string;
  /** Which secret verified the signature: the app secret, or the Instagram app secret. */
  signedWith: 'app' | 'instagram';
}

/**
 * A verified, not yet processed Meta webhook body. `POST /webhook` now commits bodies to the durable inbox
 * instead; this plugin still consumes the topic (bodies queued by an earlier version, dead letters put back).
 */
export const metaWebhookReceived = defineTopic<WebhookEvent>('webhook.meta.received', 'a verified Meta webhook body was queued');

/** The durable inbox source of the Meta webhook bodies (`POST /webhook` accepts, the plugin's handler processes). */
export const META_INBOX_SOURCE = 'channels.meta';

/** Queue of the webhook consumer (`webhook.meta.received` -> envelopes). */
export const WEBHOOK_QUEUE = 'channels.meta-webhooks';
/** Queue of the outbound consumer (`message.send` of the Meta channels). */
export const OUTBOUND_QUEUE = 'channels.outbound';

/** `message.failed` as this plugin publishes it: always the structured `error` form. */
export type MetaSendFailedEvent = MessageFailedEvent & { error: { code: string; text: string; retryable: boolean } };
