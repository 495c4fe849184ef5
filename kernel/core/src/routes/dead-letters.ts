import type { FastifyInstance } from 'fastify';
import { ErrorResponse, Type, type TypeBoxTypeProvider } from '@atendo/sdk';
import type { DeadLetterStore } from '../inbox/dead-letters';

const DeadLetter = Type.Object({
  id: Type.String({ description: '`bus:<n>` (a consumer gave up on it) or `outbox:<n>` (the bus refused it)' }),
  kind: Type.Union([Type.Literal('bus'), Type.Literal('outbox')]),
  queue: Type.Union([Type.String(), Type.Null()], { description: 'the consumer queue that gave up (bus kind)' }),
  topic: Type.String(),
  messageId: Type.String({ description: 'the bus message id' }),
  companyId: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()], { description: 'why it was given up' }),
  attempt: Type.Integer(),
  deadAt: Type.String({ description: 'ISO-8601' }),
  redriving: Type.Boolean({ description: 'marked for redrive, to be put back within seconds' }),
  payload: Type.Unknown(),
});
const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse };
const RedriveId = Type.String({ pattern: '^(bus|outbox):\\d{1,18}$' });

/**
 * The operators' view of what the platform gave up on (admin; the super admin sees every company's):
 * - `GET /dead-letters?pageNumber=` → `{records: DeadLetter[], count, hasMore}`, newest first, 20 a page; a
 *   company admin sees its own company's (by the event's `companyId`), the super admin every company's (or one
 *   with `companyId=`).
 * - `POST /dead-letters/redrive` `{ids?: string[]}` → `{redriven}`: puts the given ones (all when `ids` is absent)
 *   back: a consumer's dead letter into its queue, a dead outbox event to the bus. Ids of another company are
 *   ignored (not an error: nothing is told about them).
 * Failed sends of messages are listed by the tickets plugin (`GET /messages/failed`) and resent per message.
 */
export async function deadLetterRoutes(root: FastifyInstance, deps: { store: DeadLetterStore }): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/dead-letters', {
    config: { role: 'admin' },
    schema: {
      tags: ['operations'],
      summary: "Dead letters and dead outbox events of the caller's company (every company's for the super admin), 20 a page",
      querystring: Type.Object({
        pageNumber: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, default: 1 })),
        companyId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'super admin only: one company' })),
      }),
      response: { 200: Type.Object({ records: Type.Array(DeadLetter), count: Type.Integer(), hasMore: Type.Boolean() }), ...errors },
    },
  }, async (req) => {
    const auth = req.auth;
    const company = auth.super ? (req.query.companyId ?? null) : auth.companyId;
    return deps.store.list(company, req.query.pageNumber ?? 1);
  });

  app.post('/dead-letters/redrive', {
    config: { role: 'admin' },
    schema: {
      tags: ['operations'],
      summary: 'Puts dead letters back (the given ids, or every one of the company when `ids` is absent)',
      body: Type.Object({ ids: Type.Optional(Type.Array(RedriveId, { minItems: 1, maxItems: 1000 })), companyId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })) }, { additionalProperties: false }),
      response: { 200: Type.Object({ redriven: Type.Integer() }), ...errors },
    },
  }, async (req) => {
    const auth = req.auth;
    const company = auth.super ? (req.body?.companyId ?? null) : auth.companyId;
    return { redriven: await deps.store.redrive(company, req.body?.ids) };
  });
}
