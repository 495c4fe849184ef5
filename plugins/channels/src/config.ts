import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type, type Static } from '@atendo/sdk';
import { addressAllowed } from '@atendo/sdk/fetch';
import { DEFAULT_GRAPH_TIMEOUT_MS, DEFAULT_GRAPH_URL } from '@atendo/channel-meta-common';
import { OUTBOUND_QUEUE, WEBHOOK_QUEUE } from './contract';

/** Meta's media hosts: WhatsApp Cloud's lookaside, Messenger and Instagram CDNs. */
export const DEFAULT_MEDIA_HOSTS = 'lookaside.fbsbx.com,*.fbsbx.com,*.fbcdn.net,*.cdninstagram.com,*.facebook.com,*.whatsapp.net';
/** Where WhatsApp Cloud media URLs point (they need the bearer token); the Graph URL's origin is added. */
export const DEFAULT_MEDIA_TOKEN_HOSTS = 'lookaside.fbsbx.com';

/**
 * The plugin's config slice, read by the kernel from `CHANNELS_<KEY>` env vars (`CHANNELS_META_APP_SECRET`
 * -> `metaAppSecret`); for the Meta settings the plain `META_*` names are the fallback (`env` annotations,
 * read by the kernel when the `CHANNELS_*` name is unset or blank). Defaults are in the schema.
 */
export const ChannelsConfigSchema = Type.Object({
  /** Token Meta echoes in the GET handshake (`hub.verify_token`); unset: every handshake is refused. */
  metaVerifyToken: Type.Optional(Type.String({ maxLength: 1000, env: 'META_VERIFY_TOKEN' })),
  /** App secret the POST bodies are signed with; unset: POST /webhook answers 503. */
  metaAppSecret: Type.Optional(Type.String({ maxLength: 1000, env: 'META_APP_SECRET' })),
  /** Instagram app secret (Instagram API with Instagram Login); accepted for `object: instagram` bodies only. */
  metaInstagramAppSecret: Type.Optional(Type.String({ maxLength: 1000, env: 'META_INSTAGRAM_APP_SECRET' })),
  /** Graph base URL with its version. */
  metaGraphUrl: Type.String({ pattern: '^https?://', maxLength: 500, env: 'META_GRAPH_URL', default: DEFAULT_GRAPH_URL }),
  /** Timeout of one Graph call, milliseconds. */
  graphTimeoutMs: Type.Integer({ minimum: 100, maximum: 120_000, default: DEFAULT_GRAPH_TIMEOUT_MS }),
  /** Retries of a send after a retryable failure (then `message.failed` and the dead-letter queue). */
  outboundRetries: Type.Integer({ minimum: 0, maximum: 20, default: 5 }),
  /** First retry delay of a send, milliseconds; doubles on each further retry (capped at `outboundMaxDelayMs`). */
  outboundRetryDelayMs: Type.Integer({ minimum: 0, maximum: 600_000, default: 2000 }),
  outboundMaxDelayMs: Type.Integer({ minimum: 0, maximum: 3_600_000, default: 60_000 }),
  /**
   * How long a send keeps being retried after its first attempt on transient failures (provider outage,
   * throttling), hours: after the quick retries, durably (across restarts and nodes); then `message.failed`.
   */
  sendRetryHours: Type.Number({ minimum: 0, maximum: 168, default: 24, env: 'SEND_RETRY_HOURS' }),
  /** First delay of the durable retries, milliseconds; doubles each time up to 10 minutes. */
  sendRetryFirstDelayMs: Type.Integer({ minimum: 10, maximum: 600_000, default: 30_000 }),
  /** Retries of a queued webhook body whose processing failed for a transient reason (database, bus). */
  webhookRetries: Type.Integer({ minimum: 0, maximum: 20, default: 3 }),
  webhookRetryDelayMs: Type.Integer({ minimum: 0, maximum: 600_000, default: 1000 }),
  /**
   * Hosts inbound media may be downloaded from (comma list of `host`, `host:port` or `*.suffix`); the Graph
   * URL's origin is always allowed. Meta's CDNs by default.
   */
  mediaHosts: Type.String({ maxLength: 2000, default: DEFAULT_MEDIA_HOSTS }),
  /** Hosts the WhatsApp Cloud token may be sent to when downloading media (besides the Graph URL's origin). */
  mediaTokenHosts: Type.String({ maxLength: 2000, default: DEFAULT_MEDIA_TOKEN_HOSTS }),
  /**
   * Non-public addresses media may still come from (comma list of CIDRs or addresses; tests' local
   * servers). Empty by default: loopback, private and link-local addresses are refused after DNS resolution.
   */
  mediaAllowPrivate: Type.String({ maxLength: 2000, default: '', env: 'OUTBOUND_FETCH_ALLOW_PRIVATE' }),
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
  /** Retry window of a send, hours (SEND_RETRY_HOURS). */
  sendRetryHours: number;
  /** First delay of the durable retries, milliseconds. */
  sendRetryFirstDelayMs: number;
  webhookRetries: number;
  webhookRetryDelayMs: number;
  /** Media download policy (SDK safeFetch): hosts, hosts that get the token, private addresses allowed. */
  media: { hosts: string[]; tokenHosts: string[]; allowPrivate: string[] };
  /** Queue of the webhook consumer (`channels.meta-webhooks`; the kernel's bus namespaces it by exchange). */
  webhookQueue: string;
  /** Queue of the outbound consumer (`channels.outbound`). */
  outboundQueue: string;
}

const list = (v: string | undefined): string[] => (v ?? '').split(',').map((x) => x.trim()).filter(Boolean);
const blankToUndefined = (v: string | undefined) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/**
 * Settings from the validated config (secrets trimmed, blank ones unset; the Graph URL without trailing
 * slashes). Throws when the Graph URL is not an http(s) URL.
 */
export function resolveSettings(cfg: ChannelsConfig): ChannelsSettings {
  const graphUrl = blankToUndefined(cfg.metaGraphUrl) ?? DEFAULT_GRAPH_URL;
  if (!/^https?:\/\/[^\s]+$/i.test(graphUrl)) throw new Error('META_GRAPH_URL must be an http(s) URL');
  const allowPrivate = list(cfg.mediaAllowPrivate);
  try {
    addressAllowed('0.0.0.0', allowPrivate); // parses every entry
  } catch (err) {
    throw new Error(`CHANNELS_MEDIA_ALLOW_PRIVATE (OUTBOUND_FETCH_ALLOW_PRIVATE): ${(err as Error).message}`);
  }
  return {
    verifyToken: blankToUndefined(cfg.metaVerifyToken),
    appSecret: blankToUndefined(cfg.metaAppSecret),
    instagramAppSecret: blankToUndefined(cfg.metaInstagramAppSecret),
    graphUrl: graphUrl.replace(/\/+$/, ''),
    timeoutMs: cfg.graphTimeoutMs,
    outboundRetries: cfg.outboundRetries,
    outboundRetryDelayMs: cfg.outboundRetryDelayMs,
    outboundMaxDelayMs: cfg.outboundMaxDelayMs,
    sendRetryHours: cfg.sendRetryHours,
    sendRetryFirstDelayMs: cfg.sendRetryFirstDelayMs,
    webhookRetries: cfg.webhookRetries,
    webhookRetryDelayMs: cfg.webhookRetryDelayMs,
    webhookQueue: WEBHOOK_QUEUE,
    outboundQueue: OUTBOUND_QUEUE,
    media: { hosts: list(cfg.mediaHosts), tokenHosts: list(cfg.mediaTokenHosts), allowPrivate },
  };
}

/**
 * Reads (or creates once) DATA_DIR/meta-secrets.json: `{appSecret, verifyToken}`, 32 random bytes each,
 * file mode 0600. Used only in development when the META_* values are not configured.
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
