import { Type, type Static } from '@atendo/sdk';

/** The plugin's config, from env vars `INTEGRATIONS_<KEY>`, validated at boot. */
export const IntegrationsConfig = Type.Object({
  /** `INTEGRATIONS_PAGE_SIZE`: integrations per page of `GET /queueIntegration`. */
  pageSize: Type.Integer({ minimum: 1, maximum: 100, default: 40 }),
  /** `INTEGRATIONS_TIMEOUT_MS`: timeout of each call to an integration (ms). */
  timeoutMs: Type.Integer({ minimum: 100, maximum: 120_000, default: 15_000 }),
  /** `INTEGRATIONS_MAX_ATTEMPTS`: attempts per customer message before the ticket goes to humans (backoff e^n s). */
  maxAttempts: Type.Integer({ minimum: 1, maximum: 10, default: 4 }),
  /**
   * `INTEGRATIONS_ALLOW_HOSTS`: comma-separated host names, IPs or CIDR ranges that may be reached although
   * private (an on-premises n8n, tests). Empty: only public addresses.
   */
  allowHosts: Type.String({ default: '' }),
  /** `INTEGRATIONS_DIALOGFLOW_URL`: Dialogflow ES API base URL (a local stand-in in tests). */
  dialogflowUrl: Type.String({ default: 'https://dialogflow.googleapis.com' }),
  /** `INTEGRATIONS_MAX_MEDIA_BYTES`: largest media file an integration's answer may make us download. */
  maxMediaBytes: Type.Integer({ minimum: 1, default: 16 * 1024 * 1024 }),
});
export type IntegrationsConfig = Static<typeof IntegrationsConfig>;
