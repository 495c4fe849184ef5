import type {} from '@fastify/multipart';
import type {} from '@fastify/rate-limit';
import { errorResponses, type PluginApp } from '@atendo/sdk';
import { SEND_PATH, SendAnswer, SendBody } from '../contract';
import { authenticate, fromJson, fromMultipart, send, tokenKey, type SendDeps } from '../services/send';

/**
 * `POST /api/messages/send` (spec 3-campaigns-and-tools.md, calls "External API"): public route
 * authenticated by `Authorization: Bearer <connection token>` (the connection's `token`), not a session.
 * JSON `{number, body, userId?, queueId?, sendSignature?, bulk?}` or multipart with the same fields and one
 * file in `medias`. Answers `{message: 'Mensagem enviada com sucesso', messageId, ticketId, number}`. `bulk`
 * (issue 34): a contact who opted out is skipped with 409 ERR_OPTED_OUT. Every send is audited with the API
 * token as its actor.
 * 401 ERR_INVALID_API_TOKEN; 403 ERR_FEATURE_NOT_IN_PLAN (no useExternalApi) or ERR_NO_PERMISSION
 * (inactive company); 400 ERR_VALIDATION / ERR_INVALID_NUMBER; 404 ERR_NO_USER_FOUND / ERR_NO_QUEUE_FOUND;
 * 409 ERR_OPTED_OUT (a bulk send to an opted-out contact);
 * 413 ERR_PAYLOAD_TOO_LARGE; 415 ERR_UPLOAD_TYPE; 429 ERR_TOO_MANY_REQUESTS past MESSAGES_API_RATE_LIMIT
 * a minute per token.
 */
export async function sendRoutes(app: PluginApp, deps: SendDeps & { rateLimit: number }): Promise<void> {
  app.post(SEND_PATH, {
    config: { role: 'public', rateLimit: { max: deps.rateLimit, timeWindow: '1 minute', keyGenerator: tokenKey } },
    schema: {
      tags: ['messages-api'],
      summary: 'Send a text (JSON) or a media file (multipart "medias") through the connection of the bearer token',
      description: 'Authorization: Bearer <the connection token shown on the connection form>. The plan must include useExternalApi.',
      security: [{ bearer: [] }],
      consumes: ['application/json', 'multipart/form-data'],
      // Only JSON bodies have a schema; multipart parts are checked while they are read.
      body: { content: { 'application/json': { schema: SendBody } } },
      response: { 200: SendAnswer, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
    },
  }, async (req) => {
    const ref = await authenticate(deps, req);
    if (req.isMultipart()) {
      const { input, cleanup } = await fromMultipart(deps, ref.companyId, req);
      try {
        return await send(deps, ref, input, req);
      } catch (err) {
        await cleanup();
        throw err;
      }
    }
    return send(deps, ref, fromJson(req.body as SendBody), req);
  });
}
