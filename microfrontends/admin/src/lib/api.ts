import { api } from '@atendo/web-api';
import type { Queue } from '@atendo/plugin-queues/contract';
import type { Connection } from '@atendo/plugin-connections/contract';

export type { Queue, Connection };

/**
 * Look-ups several admin screens share (react-query keys start with 'admin' so sign-out, which clears the
 * shared cache, reaches them): the company's queues (`GET /queue`, by orderQueue) and connections
 * (`GET /whatsapp/?session=0`).
 */
export const sharedKeys = {
  queues: ['admin', 'queues', 'all'] as const,
  connections: ['admin', 'connections', 'all'] as const,
};

/** `GET /queue`: the company's queues (no chatbots), ordered by orderQueue. */
export function fetchQueues(signal?: AbortSignal): Promise<Queue[]> {
  return api.get<Queue[]>('/queue', { signal });
}

/** `GET /whatsapp/?session=0`: the company's connections. */
export function fetchConnections(signal?: AbortSignal): Promise<Connection[]> {
  return api.get<Connection[]>('/whatsapp/', { query: { session: 0 }, signal });
}

export interface UserRef {
  id: number;
  name: string;
}

/** `GET /users/list`: the company's users, short form (chatbot "attendant" targets). */
export function fetchUserRefs(signal?: AbortSignal): Promise<UserRef[]> {
  return api.get<UserRef[]>('/users/list', { signal });
}

/**
 * A look-up list served by a plugin that may not be installed yet (queue integrations, prompts, file
 * lists): the answer, or an empty list when the route does not exist (404 ERR_NOT_FOUND).
 */
export async function fetchOptionalList<T>(path: string, pick: (answer: unknown) => T[] = (a) => (Array.isArray(a) ? (a as T[]) : []), signal?: AbortSignal): Promise<T[]> {
  try {
    return pick(await api.get<unknown>(path, { signal }));
  } catch (err) {
    const e = err as { status?: number; data?: { error?: string } };
    if (e.status === 404 && e.data?.error === 'ERR_NOT_FOUND') return [];
    throw err;
  }
}

/** `GET /companySettingOne?column=<key>`: one company setting's value. */
export async function fetchCompanySetting(column: string, signal?: AbortSignal): Promise<string> {
  const answer = await api.get<Record<string, string>>('/companySettingOne', { query: { column }, signal });
  return String(answer[column] ?? '');
}

export const settingKeys = { one: (column: string) => ['admin', 'companySetting', column] as const };
