import { Type, type Static } from '@atendo/sdk';
import { DEFAULT_GRAPH_TIMEOUT_MS, DEFAULT_GRAPH_URL } from '@atendo/channel-meta-common';
import { WEBHOOK_QUEUE } from './services/inbound';
import { OUTBOUND_QUEUE } from './services/outbound';

/**
 * The plugin's config slice, read by the kernel from `CHANNELS_<KEY>` env vars (`CHANNELS_META_APP_SECRET`
 * -> `metaAppSecret`). The plain `META_*` names are read from the process environment as a fallback (see
 * `resolveSettings`).
 */
export const ChannelsConfigSchema = Type.Object({
  metaVerifyToken: Type.Optional(Type.String({ maxLength: 1000 })),
  metaAppSecret: Type.Optional(Type.String({ maxLength: 1000 })),
  metaInstagramAppSecret: Type.Optional(Type.String({ maxLength: 1000 })),
  metaGraphUrl: Type.Optional(Type.String({ pattern: '^https?://', maxLength: 500 })),
  /** Timeout of one Graph call, milliseconds. */
  graphTimeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 120_000 })),
  /** Retries of a send after a retryable failure (then `message.failed` and the dead-letter queue). */
  outboundRetries: Type.Optional(Type.Integer({ minimum: 0, maximum: 20 })),
  /** First retry delay of a send, milliseconds; doubles on each further retry (capped at `outboundMaxDelayMs`). */
  outboundRetryDelayMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })),
  outboundMaxDelayMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 3_600_000 })),
  /** Retries of a queued webhook body whose processing failed for a transient reason (database, bus). */
  webhookRetries: Type.Optional(Type.Integer({ minimum: 0, maximum: 20 })),
  webhookRetryDelayMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })),
});
export type ChannelsConfig = Static<typeof ChannelsConfigSchema>;

/** Effective settings of the plugin. Secrets are never logged. */
export interface ChannelsSettings {
  /** Token Meta echoes in the GET handshake (`hub.verify_token`); unset: every handshake is refused. */
  verifyToken?: string;
  /** App secret the POST bodies are signed with; unset: POST /webhook answers 503. */
  appSecret?: string;
  /** Instagram app secret (Instagram API with Instagram Login); accepted for `object: instagram` bodies only. */
  instagramAppSecret?: string;
  graphUrl: string;
  timeoutMs: number;
  outboundRetries: number;
  outboundRetryDelayMs: number;
  outboundMaxDelayMs: number;
  webhookRetries: number;
  webhookRetryDelayMs: number;
  /** Queue of the webhook consumer (`channels.meta-webhooks`; the kernel's bus namespaces it by exchange). */
  webhookQueue: string;
  /** Queue of the outbound consumer (`channels.outbound`). */
  outboundQueue: string;
}

const blankToUndefined = (v: string | undefined) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/**
 * Settings from the plugin config (`CHANNELS_META_VERIFY_TOKEN`, `CHANNELS_META_APP_SECRET`,
 * `CHANNELS_META_INSTAGRAM_APP_SECRET`, `CHANNELS_META_GRAPH_URL`, ...), falling back to the plain
 * `META_VERIFY_TOKEN`, `META_APP_SECRET`, `META_INSTAGRAM_APP_SECRET`, `META_GRAPH_URL` of `env`.
 * Throws when META_GRAPH_URL is not an http(s) URL.
 */
export function resolveSettings(cfg: ChannelsConfig, env: Record<string, string | undefined> = process.env): ChannelsSettings {
  const graphUrl = blankToUndefined(cfg.metaGraphUrl) ?? blankToUndefined(env.META_GRAPH_URL) ?? DEFAULT_GRAPH_URL;
  if (!/^https?:\/\/[^\s]+$/i.test(graphUrl)) throw new Error('META_GRAPH_URL must be an http(s) URL');
  return {
    verifyToken: blankToUndefined(cfg.metaVerifyToken) ?? blankToUndefined(env.META_VERIFY_TOKEN),
    appSecret: blankToUndefined(cfg.metaAppSecret) ?? blankToUndefined(env.META_APP_SECRET),
    instagramAppSecret: blankToUndefined(cfg.metaInstagramAppSecret) ?? blankToUndefined(env.META_INSTAGRAM_APP_SECRET),
    graphUrl: graphUrl.replace(/\/+$/, ''),
    timeoutMs: cfg.graphTimeoutMs ?? DEFAULT_GRAPH_TIMEOUT_MS,
    outboundRetries: cfg.outboundRetries ?? 5,
    outboundRetryDelayMs: cfg.outboundRetryDelayMs ?? 2000,
    outboundMaxDelayMs: cfg.outboundMaxDelayMs ?? 60_000,
    webhookRetries: cfg.webhookRetries ?? 3,
    webhookRetryDelayMs: cfg.webhookRetryDelayMs ?? 1000,
    webhookQueue: WEBHOOK_QUEUE,
    outboundQueue: OUTBOUND_QUEUE,
  };
}
