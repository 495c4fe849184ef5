import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { definePlugin, PermanentError, type AdapterContext, type Channel, type ChannelAdapter, type ContactProfile } from '@atendo/sdk';
import type { ConnectionsService } from '@atendo/plugin-connections';
import { ChannelsConfigSchema, resolveSettings, type ChannelsConfig } from './config';
import { channelAdapters } from './registry';
import { webhookRoutes } from './routes/webhook';
import { AccountCache } from './services/account-cache';
import { startInboundConsumer } from './services/inbound';
import { startOutboundConsumer } from './services/outbound';

export { channelAdapters, registerChannelAdapter, META_OBJECT_CHANNEL, META_OUTBOUND_CHANNELS } from './registry';
export { resolveSettings, ChannelsConfigSchema, type ChannelsConfig, type ChannelsSettings } from './config';
export { WEBHOOK_TOPIC, WEBHOOK_BODY_LIMIT, type WebhookEvent } from './routes/webhook';
export { AccountCache, ACCOUNT_CACHE_TOPICS, type AccountCacheOptions } from './services/account-cache';
export { WEBHOOK_QUEUE, inboundTopic, processWebhook, type InboundResult } from './services/inbound';
export { OUTBOUND_QUEUE, SEND_TOPIC, SENT_TOPIC, FAILED_TOPIC, handleSend, type MessageSentEvent, type MessageFailedEvent } from './services/outbound';

/**
 * The `channels` service (`ctx.services.get<ChannelsService>('channels')`) for the pipeline: the adapters
 * and contact profiles (Meta webhooks carry no names).
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

/**
 * The channels plugin (`channels`, depends on `connections`): the Meta webhook (`GET`/`POST /webhook`), the
 * consumer that turns queued webhook bodies into envelopes (`channels.meta-webhooks` ->
 * `channel.inbound.<channel>.<kind>`), the consumer that sends `message.send` commands of the Meta channels
 * (`channels.outbound` -> `message.sent` / `message.failed`), and the `channels` service. See README.md.
 */
/**
 * Reads (or creates once) DATA_DIR/meta-secrets.json: `{appSecret, verifyToken}`, 32 random bytes each,
 * file mode 0600. Used only outside production when the META_* values are not configured.
 */
export function localMetaSecrets(dataDir: string): { appSecret: string; verifyToken: string; file: string } {
  const file = join(dataDir, 'meta-secrets.json');
  if (existsSync(file)) {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { appSecret?: string; verifyToken?: string };
    if (parsed.appSecret && parsed.verifyToken) return { appSecret: parsed.appSecret, verifyToken: parsed.verifyToken, file };
  }
  const secrets = { appSecret: randomBytes(32).toString('hex'), verifyToken: randomBytes(16).toString('hex') };
  writeFileSync(file, JSON.stringify(secrets), { mode: 0o600 });
  return { ...secrets, file };
}

/** Largest inbound media file downloaded (WhatsApp Cloud's own limit for documents is 100 MB; ours is lower). */
const MEDIA_MAX_BYTES = 16 * 1024 * 1024;

export default definePlugin<ChannelsConfig>({
  id: 'channels',
  dependsOn: ['connections'],
  configSchema: ChannelsConfigSchema,
  async register(ctx) {
    const settings = resolveSettings(ctx.config);
    if ((!settings.appSecret || !settings.verifyToken) && ctx.kernel.nodeEnv === 'development') {
      // Development and demo installs get their own random webhook secrets, kept in DATA_DIR (0600), so
      // `npm run replay` on this machine can sign fixtures without configuration. Production must set them.
      const local = localMetaSecrets(ctx.kernel.dataDir);
      settings.appSecret ??= local.appSecret;
      settings.verifyToken ??= local.verifyToken;
      ctx.log.info({ file: local.file }, 'channels: META_APP_SECRET / META_VERIFY_TOKEN not set; using generated local ones');
    }
    const connections = ctx.services.get<ConnectionsService>('connections');
    const stopping = new AbortController();

    const adapterContext = (): AdapterContext => ({
      log: ctx.log,
      graphUrl: settings.graphUrl,
      timeoutMs: settings.timeoutMs,
      emit: async () => {
        throw new PermanentError('this adapter does not emit outside webhooks');
      },
    });
    ctx.services.provide<ChannelsService>('channels', {
      adapters: channelAdapters,
      queues: { webhooks: settings.webhookQueue, outbound: settings.outboundQueue },
      async fetchProfile(companyId, connectionId, externalId) {
        const conn = await connections.getWithSecrets(companyId, connectionId);
        const channel = conn?.channel as Channel | undefined;
        const adapter = channel ? channelAdapters.get(channel) : undefined;
        if (!conn || !adapter?.fetchProfile) return undefined;
        return adapter.fetchProfile(
          { id: conn.id, companyId, channel: channel!, name: conn.name, externalAccountId: conn.facebookPageUserId ?? null, accessToken: conn.facebookUserToken ?? null },
          externalId,
          adapterContext(),
        );
      },
    });

    await webhookRoutes(ctx.app, { settings, bus: ctx.bus, log: ctx.log });
    // Webhook routing lookups (one per entry otherwise) are cached; connection.* events (broadcast, so
    // every node hears them) invalidate. Subscribed before the consumer starts.
    const accounts = new AccountCache(connections);
    const subscriptions = [
      await accounts.subscribe(ctx.bus, ctx.log),
      await startInboundConsumer({
        bus: ctx.bus,
        log: ctx.log,
        connections,
        accounts,
        adapters: channelAdapters,
        retries: settings.webhookRetries,
        retryDelayMs: settings.webhookRetryDelayMs,
        queue: settings.webhookQueue,
        media: { uploads: ctx.uploads, connections, log: ctx.log, graphUrl: settings.graphUrl, timeoutMs: settings.timeoutMs, maxBytes: MEDIA_MAX_BYTES },
      }),
      await startOutboundConsumer({
        bus: ctx.bus,
        log: ctx.log,
        connections,
        adapters: channelAdapters,
        uploads: ctx.uploads,
        uploadsDir: ctx.kernel.uploadsDir,
        graphUrl: settings.graphUrl,
        timeoutMs: settings.timeoutMs,
        retries: settings.outboundRetries,
        retryDelayMs: settings.outboundRetryDelayMs,
        maxDelayMs: settings.outboundMaxDelayMs,
        signal: stopping.signal,
        queue: settings.outboundQueue,
      }),
    ];
    ctx.onClose(async () => {
      stopping.abort();
      await Promise.all(subscriptions.map((s) => s.unsubscribe()));
    });
  },
});
