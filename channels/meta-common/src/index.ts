/**
 * @atendo/channel-meta-common: what the three Meta adapters (whatsappapi, facebook, instagram) share.
 * - `GraphClient`: fetch with a timeout against a configurable base URL (META_GRAPH_URL), Graph errors
 *   thrown as `GraphRetryableError` / `GraphPermanentError` (subclasses of the SDK's Retryable/PermanentError).
 * - `verifySignature`: X-Hub-Signature-256 over the raw body bytes, constant-time.
 * - normalization helpers (`buildEnvelope`, time conversions, per-item error isolation) and the Messenger
 *   event grammar shared by Messenger and Instagram (`normalizeMessaging`, `sendMessaging`).
 */
export * from './graph';
export * from './signature';
export * from './normalize';
export * from './messaging';
export * from './text';
