import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { AppError, ErrorResponse, Type, type Inbox, type PluginApp } from '@atendo/sdk';
import { safeEqual, verifySignature } from '@atendo/channel-meta-common';
import { META_OBJECT_CHANNEL } from '../registry';
import type { ChannelsSettings } from '../config';
import { META_INBOX_SOURCE, type WebhookEvent } from '../contract';

/** Largest webhook body: 1 MiB (WhatsApp batches up to 1000 updates per POST). */
export const WEBHOOK_BODY_LIMIT = 1_048_576;

const HandshakeQuery = Type.Object({
  'hub.mode': Type.Optional(Type.String({ maxLength: 64 })),
  'hub.verify_token': Type.Optional(Type.String({ maxLength: 1000 })),
  'hub.challenge': Type.Optional(Type.String({ maxLength: 1000 })),
});

const Received = Type.Object({ received: Type.Boolean() });

/**
 * The Meta webhook routes (one callback URL for Messenger, Instagram and WhatsApp Cloud):
 *
 * `GET /webhook` (public) — subscription handshake (GRAPH_API.md §1): `hub.mode=subscribe` and a
 * `hub.verify_token` equal to META_VERIFY_TOKEN (constant-time) -> 200 `text/plain` with `hub.challenge`;
 * anything else (or no token configured) -> 403 ERR_NO_PERMISSION.
 *
 * `POST /webhook` (public) — event notifications (GRAPH_API.md §2). In this order, nothing being queued
 * unless every step passes:
 * 1. the body must be `application/json` (kept as the raw bytes by a parser scoped to this route): else
 *    415 ERR_UNSUPPORTED_MEDIA_TYPE; larger than 1 MiB: 413 ERR_PAYLOAD_TOO_LARGE;
 * 2. `X-Hub-Signature-256` must be present and shaped `sha256=<64 hex>`: else 401 ERR_INVALID_SIGNATURE;
 * 3. META_APP_SECRET must be configured: else 503 ERR_SERVICE_UNAVAILABLE (logged; unsigned bodies are
 *    never accepted);
 * 4. the signature must be the HMAC-SHA256 of the raw bytes with the app secret (or, for `object:
 *    instagram` bodies only, with META_INSTAGRAM_APP_SECRET): else 401 ERR_INVALID_SIGNATURE;
 * 5. the bytes must be a JSON object: else 400 ERR_INVALID_JSON; its `object` must be `page`, `instagram`
 *    or `whatsapp_business_account`: else 400 ERR_VALIDATION;
 * 6. the raw body is committed to the kernel's durable inbox (source `channels.meta`, key = sha256 of the
 *    body, meta `{object, signedWith}`) and the answer 200 `{received: true}` is sent only once it is
 *    committed: a crash after the answer loses nothing. The same body while still waiting is kept once.
 *    A full inbox backlog (INBOX_MAX_BACKLOG) or an unreachable database answers 503
 *    ERR_SERVICE_UNAVAILABLE, so Meta delivers again.
 * Processing (normalizing, routing to connections, publishing the envelopes) is the inbox handler's
 * (services/inbound.ts `inboxHandler`).
 */
export async function webhookRoutes(app: PluginApp, deps: { settings: ChannelsSettings; inbox: Inbox; log: FastifyBaseLogger }): Promise<void> {
  const { settings, inbox, log } = deps;
  if (!settings.appSecret) log.warn('META_APP_SECRET is not set: POST /webhook answers 503 until it is configured');
  if (!settings.verifyToken) log.warn('META_VERIFY_TOKEN is not set: webhook subscription handshakes are refused');

  await app.register(async (scope: PluginApp) => {
    // The signature covers the exact bytes: keep them. Scoped to this encapsulated context only.
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_req, body, done) => done(null, body));

    scope.get(
      '/webhook',
      {
        config: { role: 'public' },
        schema: {
          tags: ['channels'],
          summary: 'Meta webhook subscription handshake: echoes hub.challenge when hub.verify_token matches',
          querystring: HandshakeQuery,
          response: { 200: Type.String(), 403: ErrorResponse },
        },
      },
      async (req, reply) => {
        const q = req.query;
        if (q['hub.mode'] !== 'subscribe' || !settings.verifyToken || !safeEqual(q['hub.verify_token'], settings.verifyToken)) {
          req.log.warn({ mode: q['hub.mode'] ?? null, configured: Boolean(settings.verifyToken) }, 'webhook handshake refused');
          throw new AppError('ERR_NO_PERMISSION', 'Webhook verification failed');
        }
        return reply.type('text/plain; charset=utf-8').send(q['hub.challenge'] ?? '');
      },
    );

    scope.post(
      '/webhook',
      {
        config: { role: 'public' },
        bodyLimit: WEBHOOK_BODY_LIMIT,
        schema: {
          tags: ['channels'],
          summary: 'Meta webhook events (Messenger, Instagram, WhatsApp Cloud): signature-checked, queued, then acknowledged',
          description: 'Body: the raw JSON Meta sends, signed in X-Hub-Signature-256 (HMAC-SHA256 of the bytes with the app secret).',
          response: { 200: Received, 400: ErrorResponse, 401: ErrorResponse, 413: ErrorResponse, 415: ErrorResponse, 503: ErrorResponse },
        },
      },
      async (req) => {
        const raw = req.body;
        if (!Buffer.isBuffer(raw)) throw new AppError('ERR_UNSUPPORTED_MEDIA_TYPE', 'Webhook bodies must be application/json');
        const header = req.headers['x-hub-signature-256'];
        const signature = typeof header === 'string' ? header.trim() : undefined;
        if (!signature || !/^sha256=[0-9a-fA-F]{64}$/.test(signature)) throw new AppError('ERR_INVALID_SIGNATURE', 'Missing or malformed X-Hub-Signature-256');
        if (!settings.appSecret) {
          req.log.error('webhook body refused: META_APP_SECRET is not configured, so signatures cannot be verified');
          throw new AppError('ERR_SERVICE_UNAVAILABLE', 'Webhook secret not configured');
        }
        let signedWith: WebhookEvent['signedWith'];
        if (verifySignature(raw, signature, settings.appSecret)) signedWith = 'app';
        else if (settings.instagramAppSecret && verifySignature(raw, signature, settings.instagramAppSecret)) signedWith = 'instagram';
        else {
          req.log.warn({ bytes: raw.length }, 'webhook body refused: signature mismatch');
          throw new AppError('ERR_INVALID_SIGNATURE');
        }
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw.toString('utf8'));
        } catch {
          throw new AppError('ERR_INVALID_JSON');
        }
        const object = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as { object?: unknown }).object : undefined;
        if (typeof object !== 'string' || !Object.prototype.hasOwnProperty.call(META_OBJECT_CHANNEL, object)) {
          throw new AppError('ERR_VALIDATION', '`object` must be page, instagram or whatsapp_business_account');
        }
        if (signedWith === 'instagram' && object !== 'instagram') throw new AppError('ERR_INVALID_SIGNATURE');
        const id = createHash('sha256').update(raw).digest('hex');
        // Committed to the durable inbox before the answer: acknowledged means kept. A full backlog or an
        // unreachable database rejects with 503 ERR_SERVICE_UNAVAILABLE (Meta delivers again).
        const { duplicate } = await inbox.accept(META_INBOX_SOURCE, { key: id, payload: raw, meta: { object, signedWith } });
        req.log.debug({ id, object, bytes: raw.length, duplicate }, 'webhook body accepted');
        return { received: true };
      },
    );
  });
}
