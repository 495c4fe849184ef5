import { errorResponses, Nullable, Type, type PluginApp } from '@atendo/sdk';
import type { TicketsDeps } from '../services/deps';
import { listFailedSends, resendFailedSends, resendMessage, FAILED_PAGE_SIZE, RESEND_BATCH_MAX } from '../services/messages';
import { MessageSchema } from '../schemas/messages';

const MAX_ID = 2147483647;
const MessageIdParams = Type.Object({ messageId: Type.Integer({ minimum: 1, maximum: MAX_ID }) });

/** A failed send as GET /messages/failed lists it. */
const FailedSendSchema = Type.Object(
  {
    id: Type.Integer(),
    ticketId: Type.Integer(),
    contactId: Nullable(Type.Integer()),
    contactName: Nullable(Type.String()),
    channel: Type.String(),
    body: Type.String({ description: 'the text (at most 120 characters), or the file name / kind of media' }),
    mediaType: Type.String(),
    sendError: Type.String({ description: "the spec's code (ERR_SENDING_WAPP_MSG)" }),
    sendErrorDetail: Nullable(Type.String({ description: "the provider's reason" })),
    createdAt: Type.String(),
  },
  { additionalProperties: false },
);

/**
 * Delivery of messages (issue 30: delivery state and resend of failed sends):
 * - `POST /messages/:messageId/resend` -> the message, pending again (any user who may see its ticket; 404
 *   ERR_NO_MESSAGE_FOUND outside the company, 403 ERR_NO_PERMISSION, 400 ERR_VALIDATION unless it is a failed send
 *   of ours, not private, not deleted). The send command is written to the outbox with the cleared error.
 * - `GET /messages/failed?pageNumber=` -> `{records, count, hasMore}` (admin): the company's failed sends, newest
 *   first, 20 a page.
 * - `POST /messages/failed/resend {ids?}` -> `{resent, skippedOptedOut}` (admin): the given failed sends of the company,
 *   or all; those to contacts who opted out are skipped and counted (issue 34: a bulk send honours opt-outs).
 */
export async function deliveryRoutes(app: PluginApp, deps: TicketsDeps): Promise<void> {
  app.get('/messages/failed', {
    config: { role: 'admin' },
    schema: {
      tags: ['messages'],
      summary: `The company's failed sends with the provider's reason, newest first, ${FAILED_PAGE_SIZE} a page`,
      querystring: Type.Object({ pageNumber: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, default: 1 })) }, { additionalProperties: false }),
      response: { 200: Type.Object({ records: Type.Array(FailedSendSchema), count: Type.Integer(), hasMore: Type.Boolean() }), ...errorResponses(400, 401, 403) },
    },
  }, async (req) => listFailedSends(deps, req.auth.companyId, req.query.pageNumber ?? 1));

  app.post('/messages/failed/resend', {
    config: { role: 'admin' },
    schema: {
      tags: ['messages'],
      summary: `Resend the given failed sends of the company, or all of them (at most ${RESEND_BATCH_MAX} a call, the oldest first)`,
      body: Type.Object({ ids: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: MAX_ID }), { minItems: 1, maxItems: RESEND_BATCH_MAX })) }, { additionalProperties: false }),
      response: { 200: Type.Object({ resent: Type.Integer(), skippedOptedOut: Type.Integer({ description: 'failed sends to contacts who opted out, not resent (issue 34)' }) }), ...errorResponses(400, 401, 403) },
    },
  }, async (req) => resendFailedSends(deps, req.auth.companyId, req.body?.ids));

  app.post('/messages/:messageId/resend', {
    schema: {
      tags: ['messages'],
      summary: 'Resend a failed send (it becomes pending again; the send command leaves with that change)',
      params: MessageIdParams,
      response: { 200: MessageSchema, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (req) => resendMessage(deps, req.auth, req.params.messageId));
}
