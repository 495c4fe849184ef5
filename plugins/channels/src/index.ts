import { definePlugin, PermanentError, type AdapterContext, type Channel } from '@atendo/sdk';
import { connectionsService } from '@atendo/plugin-connections/contract';
import { ChannelsConfigSchema, localMetaSecrets, resolveSettings, type ChannelsConfig } from './config';
import { channelsService, META_INBOX_SOURCE, metaWebhookReceived } from './contract';
import { channelAdapters } from './registry';
import { webhookRoutes } from './routes/webhook';
import { AccountCache } from './services/account-cache';
import { ConnectionCache } from './services/connection-cache';
import { inboxHandler, startInboundConsumer } from './services/inbound';
import { handleSendRetry, SEND_RETRY_JOB, startOutboundConsumer, type OutboundDeps } from './services/outbound';

/**
 * The channels plugin (`channels`, depends on `connections`): the Meta webhook (`GET`/`POST /webhook`), the
 * consumer that turns queued webhook bodies into envelopes (`channels.meta-webhooks` ->
 * `channel.inbound.<channel>.<kind>`), the consumer that sends `message.send` commands of the Meta channels
 * (`channels.outbound` -> `message.sent` / `message.failed`), and the `channels` service. Contract:
 * `./contract.ts` (`@atendo/plugin-channels/contract`); config: `./config.ts`. See README.md.
 */
/** Largest inbound media file downloaded (WhatsApp Cloud's own limit for documents is 100 MB; ours is lower). */
const MEDIA_MAX_BYTES = 16 * 1024 * 1024;

export default definePlugin<ChannelsConfig>({
  id: 'channels',
  dependsOn: ['connections'],
  topics: [metaWebhookReceived],
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
    const connections = ctx.services.get(connectionsService);
    const stopping = new AbortController();

    const adapterContext = (): AdapterContext => ({
      log: ctx.log,
      graphUrl: settings.graphUrl,
      timeoutMs: settings.timeoutMs,
      emit: async () => {
        throw new PermanentError('this adapter does not emit outside webhooks');
      },
    });
    ctx.services.provide(channelsService, {
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

    await webhookRoutes(ctx.app, { settings, inbox: ctx.inbox, log: ctx.log });
    // Webhook routing lookups (one per entry otherwise) are cached; connection.* events (broadcast, so
    // every node hears them) invalidate. Subscribed before the consumer starts.
    const accounts = new AccountCache(connections);
    const inboundDeps = {
      bus: ctx.bus,
      log: ctx.log,
      connections,
      accounts,
      adapters: channelAdapters,
      retries: settings.webhookRetries,
      retryDelayMs: settings.webhookRetryDelayMs,
      queue: settings.webhookQueue,
      media: { uploads: ctx.uploads, connections, log: ctx.log, graphUrl: settings.graphUrl, timeoutMs: settings.timeoutMs, maxBytes: MEDIA_MAX_BYTES, policy: settings.media },
    };
    // The bodies POST /webhook committed to the inbox: processed there, deleted once their envelopes are safe.
    ctx.inbox.process(META_INBOX_SOURCE, inboxHandler(inboundDeps));
    const connectionCache = new ConnectionCache(connections);
    const outboundDeps: OutboundDeps = {
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
      connectionCache,
      sends: ctx.sends,
      jobs: ctx.jobs,
      retryWindowMs: settings.sendRetryHours * 3_600_000,
      retryFirstDelayMs: settings.sendRetryFirstDelayMs,
    };
    // Sends whose quick retries ran out are retried durably (registered before the worker starts).
    ctx.jobs.handle(SEND_RETRY_JOB, ({ data }) => handleSendRetry(outboundDeps, data), { maxAttempts: 3 });
    const subscriptions = [
      await accounts.subscribe(ctx.bus, ctx.log),
      await connectionCache.subscribe(ctx.bus, ctx.log),
      await startInboundConsumer(inboundDeps),
      await startOutboundConsumer(outboundDeps),
    ];
    ctx.onClose(async () => {
      stopping.abort();
      await Promise.all(subscriptions.map((s) => s.unsubscribe()));
    });
  },
});
