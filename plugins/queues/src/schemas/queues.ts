import { AppError, Nullable, Type, type Static } from '@atendo/sdk';
import type { ChatbotInput } from '../services/chatbots';
import type { QueueInput } from '../services/queues';
import { validateSchedules } from '../services/schedules';
import { ChatbotItem, MAX_ID, toChatbotInput } from './chatbots';

/**
 * Integer, null, or `''` (the old client's empty input; the handler maps it to null). A type list rather
 * than `anyOf` so that, were bodies coerced, null would not turn into 0 nor `''` into null before we see it.
 */
const IntegerOrEmpty = (opts: { minimum: number; maximum: number }) =>
  Type.Unsafe<number | null | ''>({ type: ['integer', 'null', 'string'], maxLength: 0, ...opts });
/** String or null, at most `maxLength` characters. */
const NullableString = (maxLength: number) => Nullable(Type.String({ maxLength }));

const COLOR = '^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{4}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$';

const ScheduleItem = Type.Object(
  {
    weekday: Type.String({ maxLength: 30 }),
    weekdayEn: Type.String({ maxLength: 30 }),
    startTimeA: Type.Optional(NullableString(5)),
    endTimeA: Type.Optional(NullableString(5)),
    startTimeB: Type.Optional(NullableString(5)),
    endTimeB: Type.Optional(NullableString(5)),
  },
  { additionalProperties: false },
);
// Weekday names, times and shift order are checked by validateSchedules (a pattern on a nullable string
// would refuse null in some ajv versions).

/**
 * Body of POST/PUT /queue (wire-shapes "POST /queue"). Empty strings of numeric fields become null (or 0
 * for `tempoRoteador`). `chatbots`: the queue's option tree (see ChatbotItem), upserted with the queue.
 */
const QueueFields = {
  name: Type.String({ minLength: 2, maxLength: 50 }),
  color: Type.String({ minLength: 3, maxLength: 9, pattern: COLOR }),
  greetingMessage: Type.Optional(NullableString(5000)),
  outOfHoursMessage: Type.Optional(NullableString(5000)),
  orderQueue: Type.Optional(IntegerOrEmpty({ minimum: 0, maximum: 1_000_000 })),
  ativarRoteador: Type.Optional(Type.Boolean()),
  tempoRoteador: Type.Optional(IntegerOrEmpty({ minimum: 0, maximum: 525_600 })),
  integrationId: Type.Optional(IntegerOrEmpty({ minimum: 1, maximum: MAX_ID })),
  fileListId: Type.Optional(IntegerOrEmpty({ minimum: 1, maximum: MAX_ID })),
  promptId: Type.Optional(IntegerOrEmpty({ minimum: 1, maximum: MAX_ID })),
  closeTicket: Type.Optional(Type.Boolean()),
  schedules: Type.Optional(Type.Array(ScheduleItem, { maxItems: 7 })),
  chatbots: Type.Optional(Type.Array(ChatbotItem(1), { maxItems: 100 })),
};
export const CreateQueueBody = Type.Object(QueueFields);
export const UpdateQueueBody = Type.Partial(Type.Object(QueueFields));
export type QueueBody = Static<typeof UpdateQueueBody>;

export const ListQueueQuery = Type.Object({
  /** Sent by old clients; ignored: the caller's company is always used. */
  companyId: Type.Optional(Type.String({ maxLength: 20 })),
});

const emptyToNull = <T>(v: T | '' | undefined): T | null | undefined => (v === '' ? null : v);

/** Turns a validated body into store input: trims, maps empty strings, validates the weekly schedule. */
export function toQueueInput(body: QueueBody): QueueInput {
  const input: QueueInput = {};
  if (body.name !== undefined) {
    input.name = body.name.trim();
    if (input.name.length < 2) throw new AppError('ERR_VALIDATION', 'name must be at least 2 characters');
  }
  if (body.color !== undefined) input.color = body.color.trim();
  for (const k of ['greetingMessage', 'outOfHoursMessage'] as const) {
    if (body[k] !== undefined) input[k] = body[k] === '' || body[k] === null ? null : body[k];
  }
  for (const k of ['orderQueue', 'integrationId', 'fileListId', 'promptId'] as const) {
    const v = emptyToNull(body[k]);
    if (v !== undefined) input[k] = v;
  }
  if (body.tempoRoteador !== undefined) input.tempoRoteador = body.tempoRoteador === '' || body.tempoRoteador === null ? 0 : body.tempoRoteador;
  if (body.ativarRoteador !== undefined) input.ativarRoteador = body.ativarRoteador;
  if (body.closeTicket !== undefined) input.closeTicket = body.closeTicket;
  if (body.schedules !== undefined) input.schedules = validateSchedules(body.schedules);
  return input;
}

/** The normalised `chatbots` of a body (undefined when absent: the stored tree is left alone). */
export const toQueueChatbots = (body: QueueBody): ChatbotInput[] | undefined => body.chatbots?.map(toChatbotInput);
