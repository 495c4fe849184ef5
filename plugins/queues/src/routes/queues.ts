import type { FastifyInstance } from 'fastify';
import { AppError, IdParams, Type, type Realtime, type Static, type TSchema } from '@atendo/sdk';
import type { QueueInput, QueueStore } from '../services/queues';
import { validateSchedules } from '../services/schedules';
import type { ChatbotInput } from '../services/chatbots';
import { ChatbotItem, ChatbotOut, toChatbotInput, type ChatbotBody } from './chatbot-schemas';

/**
 * Integer, null, or `''` (the old client's empty input; the handler maps it to null). A type list rather
 * than `anyOf` so that, were bodies coerced, null would not turn into 0 nor `''` into null before we see it.
 */
const IntegerOrEmpty = (opts: { minimum: number; maximum: number }) =>
  Type.Unsafe<number | null | ''>({ type: ['integer', 'null', 'string'], maxLength: 0, ...opts });
/** String or null, at most `maxLength` characters. */
const NullableString = (maxLength: number) => Type.Unsafe<string | null>({ type: 'string', nullable: true, maxLength });
const Nullable = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });

const MAX_ID = 2147483647;
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
const CreateQueueBody = Type.Object(QueueFields);
const UpdateQueueBody = Type.Partial(Type.Object(QueueFields));
type QueueBody = Partial<Omit<Static<typeof CreateQueueBody>, 'chatbots'>> & { chatbots?: ChatbotBody[] };

const QueueSchema = Type.Object(
  {
    id: Type.Integer(),
    companyId: Type.Integer(),
    name: Type.String(),
    color: Type.String(),
    greetingMessage: NullableString(5000),
    outOfHoursMessage: NullableString(5000),
    orderQueue: Nullable(Type.Integer()),
    ativarRoteador: Type.Boolean(),
    tempoRoteador: Type.Integer(),
    schedules: Type.Array(Type.Object({}, { additionalProperties: true })),
    integrationId: Nullable(Type.Integer()),
    fileListId: Nullable(Type.Integer()),
    promptId: Nullable(Type.Integer()),
    closeTicket: Type.Boolean(),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { additionalProperties: false },
);
const QueueWithChatbots = Type.Object(
  { ...QueueSchema.properties, chatbots: Type.Array(ChatbotOut(1)) },
  { additionalProperties: false },
);
const ListQueueQuery = Type.Object({
  /** Sent by old clients; ignored: the caller's company is always used. */
  companyId: Type.Optional(Type.String({ maxLength: 20 })),
});

const emptyToNull = <T>(v: T | '' | undefined): T | null | undefined => (v === '' ? null : v);

/** Turns a validated body into store input: trims, maps empty strings, validates the weekly schedule. */
function toInput(body: QueueBody): QueueInput {
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
    const v = emptyToNull(body[k] as number | null | '' | undefined);
    if (v !== undefined) input[k] = v;
  }
  if (body.tempoRoteador !== undefined) input.tempoRoteador = body.tempoRoteador === '' || body.tempoRoteador === null ? 0 : body.tempoRoteador;
  if (body.ativarRoteador !== undefined) input.ativarRoteador = body.ativarRoteador;
  if (body.closeTicket !== undefined) input.closeTicket = body.closeTicket;
  if (body.schedules !== undefined) input.schedules = validateSchedules(body.schedules);
  return input;
}

/** The normalised `chatbots` of a body (undefined when absent: the stored tree is left alone). */
const toChatbots = (body: QueueBody): ChatbotInput[] | undefined => body.chatbots?.map(toChatbotInput);

/**
 * Queue routes (spec 2-tickets.md §2 "Queues", §7 "Queues and chatbot"; wire-shapes "GET /queue"):
 * - `GET /queue` (any signed-in user) -> `Queue[]` of the caller's company, ordered by `orderQueue` (nulls
 *   last) then id. The `companyId` query parameter of old clients is ignored.
 * - `GET /queue/:id` (any signed-in user) -> `Queue & {chatbots: ChatbotNode[]}` (the ordered option tree,
 *   sub-options under `options`); 404 ERR_NO_QUEUE_FOUND.
 * - `POST /queue` (admin) -> 200 `Queue & {chatbots}`; 400 ERR_PLAN_LIMIT_REACHED at the plan's `queues`
 *   limit; 409 ERR_QUEUE_NAME_ALREADY_EXISTS / ERR_QUEUE_COLOR_ALREADY_EXISTS.
 * - `PUT /queue/:id` (admin) -> 201 `Queue & {chatbots}` (as the old API); same errors, plus 404.
 *   With `chatbots`, POST and PUT upsert the option tree in the queue's transaction (order = array index;
 *   options missing from the body are deleted; an item without `options` keeps its sub-options). Option
 *   errors: 400 ERR_VALIDATION (name under 4 characters, 'queue' without optQueueId, 'attendent' without
 *   optUserId, deeper than 5 levels, duplicated ids), 404 ERR_NO_CHATBOT_FOUND (an id of another queue or
 *   company), 404 ERR_NO_QUEUE_FOUND / ERR_NO_USER_FOUND (optQueueId / optUserId outside the company).
 * - `DELETE /queue/:id` (admin) -> 200 `{message}`; memberships and chatbot options go with it; 404.
 * Writes emit `company-{id}-queue` `{action:'update', queue (with chatbots)}` / `{action:'delete', queueId}`
 * after commit.
 */
export async function queuesRoutes(app: FastifyInstance, deps: { store: QueueStore; realtime: Realtime }): Promise<void> {
  const { store, realtime } = deps;
  const emit = (companyId: number, payload: unknown) => realtime.emitToCompany(companyId, `company-${companyId}-queue`, payload);

  app.get('/queue', {
    schema: { tags: ['queues'], summary: "The company's queues", querystring: ListQueueQuery, response: { 200: Type.Array(QueueSchema) } },
  }, async (req) => store.list(req.auth.companyId));

  app.get('/queue/:id', {
    schema: { tags: ['queues'], summary: 'One queue with its chatbot options', params: IdParams, response: { 200: QueueWithChatbots } },
  }, async (req) => {
    const { id } = req.params as IdParams;
    const queue = await store.getWithChatbots(req.auth.companyId, id);
    if (!queue) throw new AppError('ERR_NO_QUEUE_FOUND');
    return queue;
  });

  app.post('/queue', {
    config: { role: 'admin' },
    schema: { tags: ['queues'], summary: 'Create a queue', body: CreateQueueBody, response: { 200: QueueWithChatbots } },
  }, async (req) => {
    const companyId = req.auth.companyId;
    const body = req.body as QueueBody;
    const input = toInput(body) as QueueInput & { name: string; color: string };
    const queue = await store.create(companyId, input, toChatbots(body));
    emit(companyId, { action: 'update', queue });
    return queue;
  });

  app.put('/queue/:id', {
    config: { role: 'admin' },
    schema: { tags: ['queues'], summary: 'Update a queue', params: IdParams, body: UpdateQueueBody, response: { 201: QueueWithChatbots } },
  }, async (req, reply) => {
    const companyId = req.auth.companyId;
    const { id } = req.params as IdParams;
    const body = req.body as QueueBody;
    const queue = await store.update(companyId, id, toInput(body), toChatbots(body));
    emit(companyId, { action: 'update', queue });
    return reply.status(201).send(queue);
  });

  app.delete('/queue/:id', {
    config: { role: 'admin' },
    schema: { tags: ['queues'], summary: 'Delete a queue', params: IdParams, response: { 200: Type.Object({ message: Type.String() }) } },
  }, async (req) => {
    const companyId = req.auth.companyId;
    const { id } = req.params as IdParams;
    await store.remove(companyId, id);
    emit(companyId, { action: 'delete', queueId: id });
    return { message: 'Queue deleted' };
  });
}
