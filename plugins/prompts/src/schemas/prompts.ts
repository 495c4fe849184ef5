import { Nullable, Type, type Static } from '@atendo/sdk';
import { PromptSchema } from '../contract';

const Num = (min: number, max: number, integer = true) =>
  Type.Optional(Type.Union([integer ? Type.Integer({ minimum: min, maximum: max }) : Type.Number({ minimum: min, maximum: max }), Type.String({ pattern: '^\\s*-?\\d+(\\.\\d+)?\\s*$' }), Type.Null()]));

/**
 * Body of `POST /prompt` and `PUT /prompt/:id`: name 5..100, prompt >= 50 characters, queueId (a queue of
 * the company; missing: 400 ERR_PROMPT_QUEUE_REQUIRED "Informe o setor"), voice ("texto" or one of the
 * voices), voiceKey, voiceRegion, maxTokens 1..4096 (default 100), temperature 0..2 (default 1),
 * maxMessages 1..50 (default 10), apiKey (required on create; on update '' or the masked value keeps it).
 */
export const PromptBody = Type.Object(
  {
    name: Type.String({ maxLength: 100 }),
    prompt: Type.String({ maxLength: 20_000 }),
    voice: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
    voiceKey: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
    voiceRegion: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
    maxTokens: Num(1, 4096),
    temperature: Num(0, 2, false),
    apiKey: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
    queueId: Type.Optional(Nullable(Type.Union([Type.Integer({ minimum: 1, maximum: 2147483647 }), Type.String({ maxLength: 12 })]))),
    maxMessages: Num(1, 50),
  },
  { additionalProperties: true },
);
export type PromptBody = Static<typeof PromptBody>;

/** Answer of `GET /prompt`. */
export const PromptList = Type.Object({ prompts: Type.Array(PromptSchema), count: Type.Integer(), hasMore: Type.Boolean() });
