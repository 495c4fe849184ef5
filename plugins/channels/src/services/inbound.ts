import type { FastifyBaseLogger } from 'fastify';
import { envelopeErrors, inboundTopic, isEnvelope, PermanentError, RetryableError, type Bus, type BusMessage, type Channel, type ChannelAdapter, type Envelope, type InboxEvent, type Subscription } from '@atendo/sdk';
import type { ConnectionsService } from '@atendo/plugin-connections/contract';
import { META_OBJECT_CHANNEL } from '../registry';
import type { AccountCache } from './account-cache';
import { downloadInboundMedia, type MediaDeps } from './media';
import { metaWebhookReceived, WEBHOOK_QUEUE, type WebhookEvent } from '../contract';

/** Envelopes published concurrently (in order) per batch. */
const PUBLISH_BATCH = 100;

export interface InboundDeps {
  bus: Bus;
  log: FastifyBaseLogger;
  connections: ConnectionsService;
  adapters: ReadonlyMap<Channel, ChannelAdapter>;
  retries: number;
  retryDelayMs: number;
  /** Queue name (default WEBHOOK_QUEUE). */
  queue?: string;
  /** Cache of the account-id lookups (without one, every entry queries the connections service). */
  accounts?: AccountCache;
  /** Downloads inbound media into the upload store before publishing (without it, media stay remote). */
  media?: MediaDeps;
}

/** Counts of one processed body (returned for logs and tests). */
export interface InboundResult {
  published: number;
  skipped: number;
  invalid: number;
}

/**
 * Processes one queued webhook body: decode, parse, pick the adapter by `object`, then entry by entry
 * (each in its own try/catch, so a malformed entry never stops the others): look the entry's account ids up
 * through the connections service, via `deps.accounts` (AccountCache) when given (unknown ids: warning, entry skipped), normalize, check each envelope
 * against the SDK `Envelope` schema (`isEnvelope`, TypeBox Value.Check) (invalid ones logged and dropped), and publish it on
 * `channel.inbound.<channel>.<kind>` with message id = its idempotency key.
 *
 * Throws `PermanentError` (dead-letter) for a body that is not a JSON object with an `entry` array or has
 * an unknown `object`; `RetryableError` when the database or the bus fails (the whole body is redelivered;
 * envelopes already published are published again with the same ids, which consumers dedupe).
 */
export async function processWebhook(deps: InboundDeps, message: BusMessage<WebhookEvent>): Promise<InboundResult> {
  const event = message.payload;
  if (!event || typeof event.body !== 'string') throw new PermanentError('webhook event without a body');
  const receivedAt = typeof event.receivedAt === 'string' ? event.receivedAt : message.publishedAt;
  return processWebhookBody(deps, Buffer.from(event.body, 'base64'), { id: message.id, receivedAt });
}

/**
 * The inbox handler of `channels.meta` (the bodies `POST /webhook` accepted): processes one body like
 * `processWebhook`, its envelopes published `durable` (resolved once the consumers have handled them on
 * the in-process bus; once RabbitMQ confirmed them), so that the inbox deletes the body only when its
 * messages can no longer be lost.
 */
export function inboxHandler(deps: InboundDeps): (e: InboxEvent) => Promise<void> {
  return async (e) => {
    await processWebhookBody(deps, e.payload, { id: e.key, receivedAt: e.receivedAt, durable: true });
  };
}

/**
 * One raw webhook body (bytes as received): see `processWebhook`. `ref.id` names it in logs (the sha256 of
 * the body); `ref.durable` publishes the envelopes with `{durable: true}`.
 */
export async function processWebhookBody(deps: InboundDeps, raw: Buffer, ref: { id: string; receivedAt: string; durable?: boolean }): Promise<InboundResult> {
  const { log } = deps;
  const message = { id: ref.id };
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new PermanentError('webhook body is not JSON', { cause: err });
  }
  const record = body && typeof body === 'object' && !Array.isArray(body) ? (body as { object?: unknown; entry?: unknown }) : undefined;
  const channel = typeof record?.object === 'string' ? META_OBJECT_CHANNEL[record.object] : undefined;
  if (!record || !channel || !Array.isArray(record.entry)) throw new PermanentError('webhook body has no known object or no entry array');
  const adapter = deps.adapters.get(channel);
  if (!adapter) throw new PermanentError(`no adapter for channel ${channel}`);

  const receivedAt = ref.receivedAt;
  const result: InboundResult = { published: 0, skipped: 0, invalid: 0 };
  const known = new Map<string, { companyId: number; connectionId: number } | undefined>();

  for (let i = 0; i < record.entry.length; i++) {
    const single = { object: record.object, entry: [record.entry[i]] };
    let envelopes: Envelope[];
    try {
      for (const accountId of adapter.accountIds?.(single) ?? []) {
        if (known.has(accountId)) continue;
        let ref;
        try {
          ref = deps.accounts ? await deps.accounts.find(channel, accountId) : await deps.connections.findByExternalAccount(channel, accountId);
        } catch (err) {
          throw new RetryableError('connection lookup failed', { cause: err });
        }
        known.set(accountId, ref && ref.channel === channel ? { companyId: ref.companyId, connectionId: ref.id } : undefined);
      }
      envelopes = adapter.normalize(single, (accountId) => known.get(accountId), {
        receivedAt,
        onSkip: (reason, detail) => {
          result.skipped++;
          if (reason === 'unknown_account') log.warn({ messageId: message.id, entry: i, ...detail }, 'webhook entry for an unknown account skipped');
          else if (reason === 'malformed') log.error({ messageId: message.id, entry: i, ...detail }, 'malformed webhook item skipped');
          else log.debug({ messageId: message.id, entry: i, ...detail }, 'webhook item not handled');
        },
      });
    } catch (err) {
      if (err instanceof RetryableError) throw err;
      result.skipped++;
      log.error({ err, messageId: message.id, entry: i }, 'webhook entry failed to normalize; skipped');
      continue;
    }
    const valid: Envelope[] = [];
    for (const envelope of envelopes) {
      if (isEnvelope(envelope)) {
        valid.push(envelope);
        continue;
      }
      result.invalid++;
      const errors = envelopeErrors(envelope, 5);
      log.error({ messageId: message.id, entry: i, key: (envelope as Partial<Envelope> | undefined)?.idempotencyKey, errors }, 'envelope failed the schema; dropped');
    }
    // Publishes are issued in order and their confirms awaited together, PUBLISH_BATCH at a time (a
    // WhatsApp body may hold 1000 statuses).
    for (let j = 0; j < valid.length; j += PUBLISH_BATCH) {
      const batch = valid.slice(j, j + PUBLISH_BATCH);
      if (deps.media) {
        const media = deps.media;
        await Promise.all(batch.map((e) => downloadInboundMedia(media, e)));
      }
      try {
        await Promise.all(batch.map((e) => deps.bus.publish(inboundTopic(e), e, { id: e.idempotencyKey, headers: { companyId: String(e.companyId) }, durable: ref.durable })));
      } catch (err) {
        throw new RetryableError('publishing an envelope failed', { cause: err });
      }
      result.published += batch.length;
    }
  }
  log.info({ messageId: message.id, channel, entries: record.entry.length, ...result }, 'webhook body processed');
  return result;
}

/**
 * Starts the webhook consumer: queue `channels.meta-webhooks` (or `deps.queue`), prefetch 16, retries then
 * `<queue>.dlq`. `POST /webhook` no longer publishes there (bodies go through the durable inbox); the
 * consumer stays for bodies an earlier version queued on RabbitMQ and for dead letters put back.
 */
export function startInboundConsumer(deps: InboundDeps): Promise<Subscription> {
  return deps.bus.subscribe(
    metaWebhookReceived,
    async (message) => {
      await processWebhook(deps, message);
    },
    { queue: deps.queue ?? WEBHOOK_QUEUE, prefetch: 16, maxRetries: deps.retries, retryDelayMs: deps.retryDelayMs },
  );
}
