import { AppError, BoolLike, Nullable, Type, toBool, type TUnsafe } from '@atendo/sdk';
import { CHATBOT_QUEUE_TYPES, MAX_CHATBOT_DEPTH, type ChatbotQueueType } from '../contract';
import type { ChatbotInput } from '../services/chatbots';

export const MAX_ID = 2147483647;

/** A positive id as a JSON integer or a digit string ('12'); normalised by `toId`. */
export const IdLike = Type.Unsafe<number | string>({ type: ['integer', 'string'], minimum: 1, maximum: MAX_ID, pattern: '^\\s*\\d{1,10}\\s*$', maxLength: 12 });
/** An optional reference: positive id, digit string, `''` or null (the last two mean none). */
const OptIdLike = Type.Unsafe<number | string | null>({ type: ['integer', 'string', 'null'], minimum: 1, maximum: MAX_ID, pattern: '^\\s*\\d{0,10}\\s*$', maxLength: 12 });
/** One of CHATBOT_QUEUE_TYPES; `''` / null (old client's empty select) mean 'text'. */
const QueueTypeLike = Type.Unsafe<ChatbotQueueType | '' | null>({ type: ['string', 'null'], enum: [...CHATBOT_QUEUE_TYPES, '', null] });

/** The option fields shared by every chatbot body. `name`: 4..100 characters once trimmed (spec §5). */
const fields = (nameRequired: boolean) => ({
  name: nameRequired ? Type.String({ minLength: 4, maxLength: 100 }) : Type.Optional(Type.String({ minLength: 4, maxLength: 100 })),
  greetingMessage: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
  queueType: Type.Optional(QueueTypeLike),
  optQueueId: Type.Optional(OptIdLike),
  optUserId: Type.Optional(OptIdLike),
  optIntegrationId: Type.Optional(OptIdLike),
  optFileId: Type.Optional(OptIdLike),
  closeTicket: Type.Optional(BoolLike()),
  isAgent: Type.Optional(BoolLike()),
});

/**
 * `options` of an option at `level` (1 = root): a list (at most 100 per level) of items nested up to
 * MAX_CHATBOT_DEPTH levels; deeper lists must be empty (so too-deep bodies are refused, not silently cut).
 * null means "not given".
 */
function optionsSchema(level: number): TUnsafe<ChatbotBody[] | null> {
  if (level >= MAX_CHATBOT_DEPTH) return Type.Unsafe<ChatbotBody[] | null>({ type: 'array', nullable: true, maxItems: 0 });
  return Type.Unsafe<ChatbotBody[] | null>({ ...Type.Array(ChatbotItem(level + 1), { maxItems: 100 }), nullable: true });
}

/**
 * One option of a tree body (`chatbots` of POST/PUT /queue, `options` of the /chatbot bodies) at `level`:
 * `{id?, name, greetingMessage?, queueType?, optQueueId?, optUserId?, optIntegrationId?, optFileId?,
 * closeTicket?, isAgent?, options?}`. Unknown keys (createdAt, queueId, ... sent back by old clients) are
 * dropped.
 */
export function ChatbotItem(level = 1): TUnsafe<ChatbotBody> {
  return Type.Unsafe<ChatbotBody>(Type.Object({ id: Type.Optional(IdLike), ...fields(true), options: Type.Optional(optionsSchema(level)) }, { additionalProperties: false }));
}

/** Body of POST /chatbot: the option plus its parent, `queueId` (root option) or `chatbotId` (sub-option). */
export const CreateChatbotBody = Type.Object(
  { ...fields(true), queueId: Type.Optional(OptIdLike), chatbotId: Type.Optional(OptIdLike), options: Type.Optional(optionsSchema(1)) },
  { additionalProperties: false },
);
/** Body of PUT /chatbot/:id: any option field; `options` (a list) upserts the sub-options. */
export const UpdateChatbotBody = Type.Object({ ...fields(false), options: Type.Optional(optionsSchema(1)) }, { additionalProperties: false });

/** The raw (validated) shape of an option body. */
export interface ChatbotBody {
  id?: number | string;
  name?: string;
  greetingMessage?: string | null;
  queueType?: ChatbotQueueType | '' | null;
  optQueueId?: number | string | null;
  optUserId?: number | string | null;
  optIntegrationId?: number | string | null;
  optFileId?: number | string | null;
  closeTicket?: boolean | string;
  isAgent?: boolean | string;
  options?: ChatbotBody[] | null;
}

/** A validated IdLike as a number; 400 ERR_VALIDATION when out of range. */
export function toId(v: number | string, field: string): number {
  const n = typeof v === 'number' ? v : Number(v.trim());
  if (!Number.isInteger(n) || n < 1 || n > MAX_ID) throw new AppError('ERR_VALIDATION', `${field} must be a positive id`);
  return n;
}

/** A validated OptIdLike: undefined stays undefined, `''`/null become null. */
export function toOptId(v: number | string | null | undefined, field: string): number | null | undefined {
  if (v === undefined) return undefined;
  if (v === null || (typeof v === 'string' && v.trim() === '')) return null;
  return toId(v, field);
}

/**
 * Normalises a validated option body (recursively): trims the name (400 ERR_VALIDATION under 4
 * characters), maps `''`/null to null (`queueType`: to 'text'), digit strings to numbers and
 * 'true'/'enabled' to true.
 */
export function toChatbotInput(body: ChatbotBody): ChatbotInput {
  const input: ChatbotInput = {};
  if (body.id !== undefined) input.id = toId(body.id, 'id');
  if (body.name !== undefined) {
    input.name = body.name.trim();
    if (input.name.length < 4) throw new AppError('ERR_VALIDATION', 'chatbot option name must be at least 4 characters');
  }
  if (body.greetingMessage !== undefined) input.greetingMessage = body.greetingMessage === '' ? null : body.greetingMessage;
  if (body.queueType !== undefined) input.queueType = body.queueType || 'text';
  for (const k of ['optQueueId', 'optUserId', 'optIntegrationId', 'optFileId'] as const) {
    const v = toOptId(body[k], k);
    if (v !== undefined) input[k] = v;
  }
  if (body.closeTicket !== undefined) input.closeTicket = toBool(body.closeTicket);
  if (body.isAgent !== undefined) input.isAgent = toBool(body.isAgent);
  if (body.options !== undefined && body.options !== null) input.options = body.options.map(toChatbotInput);
  return input;
}
