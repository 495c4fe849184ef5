import { api } from '@atendo/web-api';
import type { ChatbotNode, ChatbotQueueType, Queue, QueueEvent, QueueWithChatbots } from '@atendo/plugin-queues/contract';
import type { WeekSchedule } from '../../lib/schedules';

export type { ChatbotNode, ChatbotQueueType, Queue, QueueEvent, QueueWithChatbots };

/**
 * The queues screen's API calls (plugins/queues; spec 2-tickets.md §7 "Queues and chatbot", wire-shapes
 * "GET /queue"). The chatbot option tree is saved with the queue (`chatbots` of POST/PUT /queue, one
 * transaction: order = position, options left out are deleted).
 */

/** What a chatbot option does when chosen (spec 2-tickets.md §9). */
export const QUEUE_TYPES: readonly ChatbotQueueType[] = ['text', 'attendent', 'queue', 'integration', 'file'];
/** Deepest level of an option tree (the API refuses deeper ones). */
export const MAX_DEPTH = 5;
/** Queue rotation times in minutes (spec 2-tickets.md §9). */
export const ROTATION_MINUTES = [2, 5, 10, 15, 30, 45, 60] as const;

/** One option of a tree body. */
export interface ChatbotBody {
  id?: number;
  name: string;
  greetingMessage: string | null;
  queueType: ChatbotQueueType;
  optQueueId: number | null;
  optUserId: number | null;
  optIntegrationId: number | null;
  optFileId: number | null;
  closeTicket: boolean;
  options: ChatbotBody[];
}

/** Body of POST and PUT /queue. */
export interface QueueInput {
  name: string;
  color: string;
  orderQueue: number | null;
  greetingMessage: string | null;
  outOfHoursMessage: string | null;
  ativarRoteador: boolean;
  tempoRoteador: number;
  closeTicket: boolean;
  integrationId: number | null;
  promptId: number | null;
  fileListId: number | null;
  schedules?: WeekSchedule[];
  chatbots: ChatbotBody[];
}

/** `GET /queue/:id`: the queue with its option tree. */
export function fetchQueue(id: number, signal?: AbortSignal): Promise<QueueWithChatbots> {
  return api.get<QueueWithChatbots>(`/queue/${id}`, { signal });
}

/** `POST /queue`. */
export function createQueue(body: QueueInput): Promise<QueueWithChatbots> {
  return api.post<QueueWithChatbots>('/queue', body);
}

/** `PUT /queue/:id` (answers 201). */
export function updateQueue(id: number, body: QueueInput): Promise<QueueWithChatbots> {
  return api.put<QueueWithChatbots>(`/queue/${id}`, body);
}

/** `DELETE /queue/:id`. */
export function deleteQueue(id: number): Promise<{ message: string }> {
  return api.delete<{ message: string }>(`/queue/${id}`);
}

/** A look-up item of the optional plugins (integrations, prompts, file lists). */
export interface NamedRef {
  id: number;
  name: string;
}

/** `GET /queueIntegration`, `GET /prompt`, `GET /files/`: lists of those plugins, when installed. */
export const OPTIONAL_LISTS = {
  integrations: { path: '/queueIntegration', pick: (a: unknown) => listOf(a, 'queueIntegrations') },
  prompts: { path: '/prompt', pick: (a: unknown) => listOf(a, 'prompts') },
  files: { path: '/files/', pick: (a: unknown) => listOf(a, 'files') },
} as const;

/** The array of an answer: the answer itself, or its `key` (paged answers). */
function listOf(answer: unknown, key: string): NamedRef[] {
  const list = Array.isArray(answer) ? answer : (answer as Record<string, unknown> | null)?.[key];
  return Array.isArray(list) ? (list as NamedRef[]).filter((x) => x && typeof x.id === 'number') : [];
}
