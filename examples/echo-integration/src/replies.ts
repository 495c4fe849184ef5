import type { Knex } from 'knex';
import { AppError, errorResponses, IdParams, iso, Type, type PluginApp } from '@atendo/sdk';
import { EchoReplySchema, type EchoReply } from './contract';

/** A keyword as it is stored and matched: trimmed, lower case, inner spaces collapsed. */
export const normalizeKeyword = (text: string): string => text.trim().toLowerCase().replace(/\s+/g, ' ');

function toReply(row: Record<string, unknown>): EchoReply {
  return { id: row.id as number, companyId: row.companyId as number, keyword: String(row.keyword), reply: String(row.reply), createdAt: iso(row.createdAt), updatedAt: iso(row.updatedAt) };
}

/** The plugin's table `echo_integration_replies`; every method is scoped to the caller's company. */
export class ReplyStore {
  constructor(private readonly db: Knex) {}

  /** The company's replies, by keyword. */
  async list(companyId: number): Promise<EchoReply[]> {
    return (await this.db('echoIntegrationReplies').where({ companyId }).orderBy('keyword')).map(toReply);
  }

  /** One reply; 404 ERR_NO_ECHO_INTEGRATION_REPLY_FOUND for an id of another company or none. */
  async get(companyId: number, id: number): Promise<EchoReply> {
    const row = await this.db('echoIntegrationReplies').where({ companyId, id }).first();
    if (!row) throw new AppError('ERR_NO_ECHO_INTEGRATION_REPLY_FOUND');
    return toReply(row);
  }

  /** The reply text for a customer message, if the company has one for it. */
  async replyFor(companyId: number, text: string): Promise<string | undefined> {
    const row = await this.db('echoIntegrationReplies').where({ companyId, keyword: normalizeKeyword(text) }).first('reply');
    return row?.reply as string | undefined;
  }

  /** Creates a reply; 400 ERR_VALIDATION for a blank keyword, 409 ERR_ECHO_INTEGRATION_KEYWORD_IN_USE. */
  async create(companyId: number, keyword: string, reply: string): Promise<EchoReply> {
    const key = normalizeKeyword(keyword);
    if (!key || !reply.trim()) throw new AppError('ERR_VALIDATION', 'keyword and reply must not be blank');
    const [row] = await this.db('echoIntegrationReplies').insert({ companyId, keyword: key, reply: reply.trim() }).onConflict(['companyId', 'keyword']).ignore().returning('*');
    if (!row) throw new AppError('ERR_ECHO_INTEGRATION_KEYWORD_IN_USE');
    return toReply(row);
  }

  /** Deletes a reply; 404 ERR_NO_ECHO_INTEGRATION_REPLY_FOUND. */
  async remove(companyId: number, id: number): Promise<void> {
    if (!(await this.db('echoIntegrationReplies').where({ companyId, id }).del())) throw new AppError('ERR_NO_ECHO_INTEGRATION_REPLY_FOUND');
  }
}

const errors = errorResponses(400, 401, 403, 404, 409);
const CreateReplyBody = Type.Object({ keyword: Type.String({ minLength: 1, maxLength: 60 }), reply: Type.String({ minLength: 1, maxLength: 500 }) }, { additionalProperties: false });

/**
 * Routes, all under the plugin id, private (a token is required: 401 without one) and scoped to the
 * caller's company (another company's id is a 404):
 * - `GET /echo-integration/replies` (user) -> `{replies: EchoReply[]}` by keyword;
 * - `GET /echo-integration/replies/:id` (user) -> EchoReply; 404 ERR_NO_ECHO_INTEGRATION_REPLY_FOUND;
 * - `POST /echo-integration/replies` (admin) `{keyword 1..60, reply 1..500}` -> EchoReply; 400 ERR_VALIDATION,
 *   409 ERR_ECHO_INTEGRATION_KEYWORD_IN_USE;
 * - `DELETE /echo-integration/replies/:id` (admin) -> `{message}`; 404 ERR_NO_ECHO_INTEGRATION_REPLY_FOUND.
 */
export async function replyRoutes(app: PluginApp, store: ReplyStore): Promise<void> {
  const tags = ['echo-integration'];
  app.get('/echo-integration/replies', {
    schema: { tags, summary: "The company's canned replies", response: { 200: Type.Object({ replies: Type.Array(EchoReplySchema) }), ...errors } },
  }, async (req) => ({ replies: await store.list(req.auth.companyId) }));

  app.get('/echo-integration/replies/:id', {
    schema: { tags, summary: 'One canned reply', params: IdParams, response: { 200: EchoReplySchema, ...errors } },
  }, (req) => store.get(req.auth.companyId, req.params.id));

  app.post('/echo-integration/replies', {
    config: { role: 'admin' },
    schema: { tags, summary: 'Create a canned reply', body: CreateReplyBody, response: { 200: EchoReplySchema, ...errors } },
  }, (req) => store.create(req.auth.companyId, req.body.keyword, req.body.reply));

  app.delete('/echo-integration/replies/:id', {
    config: { role: 'admin' },
    schema: { tags, summary: 'Delete a canned reply', params: IdParams, response: { 200: Type.Object({ message: Type.String() }), ...errors } },
  }, async (req) => {
    await store.remove(req.auth.companyId, req.params.id);
    return { message: 'Reply deleted' };
  });
}
