/**
 * The queues plugin's contract (import it as `@atendo/plugin-queues/contract`): the `queues` service ref and
 * interface, the queue and chatbot wire shapes (types and response schemas), the realtime event of the queue
 * screens, and the plugin's error codes. Types, TypeBox schemas and `define*` calls only: importing it pulls
 * neither fastify nor knex.
 */
import { defineErrors, defineService, Nullable, Type, type TSchema } from '@atendo/sdk';

// ---------------------------------------------------------------------------------------------------
// Errors

/** Error codes owned by the queues plugin (merged into the catalogue at boot). */
export const errors = defineErrors({
  // Codes of the product family's wire (spec 2-tickets.md §8), owned here.
  ERR_QUEUE_COLOR_ALREADY_EXISTS: { status: 409, message: 'Queue colour must be unique' },
  ERR_NO_QUEUE_FOUND: { status: 404, message: 'Queue not found' },
  ERR_NO_CHATBOT_FOUND: { status: 404, message: 'Chatbot option not found' },
  ERR_QUEUE_NAME_ALREADY_EXISTS: { status: 409, message: 'Queue name must be unique' },
});
declare module '@atendo/sdk' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface ErrorCodes extends Record<keyof typeof errors, true> {}
}

// ---------------------------------------------------------------------------------------------------
// Wire types

/** One weekday of a queue's service hours; times are `HH:mm` or `''` (no such shift). */
export interface QueueSchedule {
  weekday: string;
  weekdayEn: string;
  startTimeA: string;
  endTimeA: string;
  startTimeB: string;
  endTimeB: string;
}

/** A queue (department) as the API shows it (wire-shapes §2 "Queue"). */
export interface Queue {
  id: number;
  companyId: number;
  name: string;
  color: string;
  greetingMessage: string | null;
  outOfHoursMessage: string | null;
  orderQueue: number | null;
  ativarRoteador: boolean;
  /** Minutes. */
  tempoRoteador: number;
  schedules: QueueSchedule[];
  integrationId: number | null;
  fileListId: number | null;
  promptId: number | null;
  closeTicket: boolean;
  createdAt: Date | string;
  updatedAt: Date | string;
}

/** What an option does when chosen (spec 2-tickets.md §9 "Chatbot option types"). */
export const CHATBOT_QUEUE_TYPES = ['text', 'attendent', 'queue', 'integration', 'file'] as const;
export type ChatbotQueueType = (typeof CHATBOT_QUEUE_TYPES)[number];

/** Deepest level of a queue's option tree (root options are level 1). */
export const MAX_CHATBOT_DEPTH = 5;

/**
 * A chatbot option as the API shows it (wire-shapes §2 "Chatbot"), plus `order` (its 0-based position
 * among its siblings). Root options have `queueId` set and `chatbotId` null; nested ones the reverse.
 */
export interface Chatbot {
  id: number;
  name: string;
  greetingMessage: string | null;
  queueId: number | null;
  chatbotId: number | null;
  isAgent: boolean;
  queueType: ChatbotQueueType;
  optQueueId: number | null;
  optUserId: number | null;
  optIntegrationId: number | null;
  optFileId: number | null;
  closeTicket: boolean;
  order: number;
  createdAt: Date | string;
  updatedAt: Date | string;
}

/** An option with its ordered sub-options (recursively). */
export interface ChatbotNode extends Chatbot {
  options: ChatbotNode[];
}

/** A queue with its ordered chatbot option tree (`GET /queue/:id`, `POST`/`PUT /queue` answers and events). */
export type QueueWithChatbots = Queue & { chatbots: ChatbotNode[] };

/** One entry of `user.queues` added by the `queues` user extension; `UserQueue` is the membership row. */
export interface UserQueueRef {
  id: number;
  name: string;
  color: string;
  UserQueue: { userId: number; queueId: number; createdAt: Date | string; updatedAt: Date | string };
}

/** Socket event `company-{companyId}-queue` (every write of a queue or of one of its chatbot options). */
export type QueueEvent = { action: 'update'; queue: QueueWithChatbots } | { action: 'delete'; queueId: number };

/** The socket event name of the queue screens. */
export const queueEventName = (companyId: number) => `company-${companyId}-queue`;

// ---------------------------------------------------------------------------------------------------
// Response schemas

/** A stored timestamp: a `Date` from the database, serialized as its ISO string. */
const Stamp = Type.Unsafe<Date | string>({ type: 'string' });

/** A queue in answers (`Queue`). */
export const QueueSchema = Type.Object(
  {
    id: Type.Integer(),
    companyId: Type.Integer(),
    name: Type.String(),
    color: Type.String(),
    greetingMessage: Nullable(Type.String({ maxLength: 5000 })),
    outOfHoursMessage: Nullable(Type.String({ maxLength: 5000 })),
    orderQueue: Nullable(Type.Integer()),
    ativarRoteador: Type.Boolean(),
    tempoRoteador: Type.Integer(),
    schedules: Type.Array(Type.Object({}, { additionalProperties: true })),
    integrationId: Nullable(Type.Integer()),
    fileListId: Nullable(Type.Integer()),
    promptId: Nullable(Type.Integer()),
    closeTicket: Type.Boolean(),
    createdAt: Stamp,
    updatedAt: Stamp,
  },
  { additionalProperties: false },
);

/** A chatbot option at `level` (1 = root) with its `options`, in answers (`ChatbotNode`). */
export function ChatbotSchema(level = 1): TSchema {
  return Type.Object(
    {
      id: Type.Integer(),
      name: Type.String(),
      greetingMessage: Nullable(Type.String()),
      queueId: Nullable(Type.Integer()),
      chatbotId: Nullable(Type.Integer()),
      isAgent: Type.Boolean(),
      queueType: Type.String(),
      optQueueId: Nullable(Type.Integer()),
      optUserId: Nullable(Type.Integer()),
      optIntegrationId: Nullable(Type.Integer()),
      optFileId: Nullable(Type.Integer()),
      closeTicket: Type.Boolean(),
      order: Type.Integer(),
      createdAt: Stamp,
      updatedAt: Stamp,
      options: level >= MAX_CHATBOT_DEPTH ? Type.Array(Type.Object({}, { additionalProperties: true })) : Type.Array(ChatbotSchema(level + 1)),
    },
    { additionalProperties: false },
  );
}

/** A queue with its chatbot tree, in answers (`QueueWithChatbots`). */
export const QueueWithChatbotsSchema = Type.Object({ ...QueueSchema.properties, chatbots: Type.Array(ChatbotSchema(1)) }, { additionalProperties: false });

// ---------------------------------------------------------------------------------------------------
// Service

/**
 * The `queues` service: `ctx.services.get(queuesService)` after declaring `dependsOn: ['queues']` (or
 * `optionalDependsOn` and `has(queuesService)`). Every method is scoped to `companyId`: ids of another
 * company are unknown.
 */
export interface QueuesService {
  /** Ids of the queues `userId` serves (empty when the user is unknown in the company). */
  listQueueIds(companyId: number, userId: number): Promise<number[]>;
  /** Ids of the users serving `queueId` (empty when the queue is unknown in the company). */
  userIdsOfQueue(companyId: number, queueId: number): Promise<number[]>;
  /** One queue, or undefined when it does not exist in the company. */
  getQueue(companyId: number, id: number): Promise<Queue | undefined>;
  /**
   * All queues of the company (ordered by `orderQueue`, nulls last, then id; without chatbots), for example
   * to serialize ticket lists with one query.
   */
  listQueues(companyId: number): Promise<Queue[]>;
  /**
   * True when `date` falls inside the queue's weekly service hours on the wall clock of `timeZone` (IANA
   * name, default America/Sao_Paulo). A queue without schedules is always open; a weekday missing from its
   * schedules or with empty times is closed; shifts are [start, end) to the minute, an end of 23:59 meaning
   * the end of the day.
   * @throws AppError 404 ERR_NO_QUEUE_FOUND when the queue is not in the company; 400 ERR_VALIDATION for
   *   an unknown time zone or an invalid date.
   */
  isOpenAt(companyId: number, queueId: number, date: Date, timeZone?: string): Promise<boolean>;
  /** The queue's chatbot options as an ordered tree (`[]` when none, or the queue is not in the company). */
  chatbotTree(companyId: number, queueId: number): Promise<ChatbotNode[]>;
  /** One chatbot option with its ordered sub-options, or undefined when it is not in the company. */
  getOption(companyId: number, chatbotId: number): Promise<ChatbotNode | undefined>;
}

/** The `queues` service ref. */
export const queuesService = defineService<QueuesService>('queues');
