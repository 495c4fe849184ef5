import { api } from '@atendo/web-api';
import type { ListPageOf } from '@atendo/web-kit';

/**
 * The queue-integrations screen's calls (plugins/integrations; spec 3-campaigns-and-tools.md "Queue
 * integrations", "Queue integration modal", §7 "Queue integrations"). Secrets never come back: the
 * service-account JSON is '' with `hasJsonContent`, the webhook secret only as `secretHint`.
 */
export const INTEGRATION_TYPES = ['dialogflow', 'n8n', 'webhook', 'typebot'] as const;
export type IntegrationKind = (typeof INTEGRATION_TYPES)[number];
export const INTEGRATION_LANGUAGES = ['pt-BR', 'en', 'es'] as const;

export interface QueueIntegration {
  id: number;
  type: string;
  name: string;
  projectName: string;
  jsonContent: string;
  hasJsonContent: boolean;
  language: string;
  urlN8N: string;
  typebotSlug: string;
  typebotExpires: number;
  typebotDelayMessage: number;
  typebotKeywordFinish: string;
  typebotKeywordRestart: string;
  typebotUnknownMessage: string;
  typebotRestartMessage: string;
  secretHint: string;
  /** Only in the answer of the POST that generated it. */
  secret?: string;
}

export type IntegrationInput = Omit<QueueIntegration, 'id' | 'hasJsonContent' | 'secretHint' | 'secret'>;

/** `company-{id}-queueIntegration` payloads. */
export type IntegrationEvent = { action: 'create' | 'update'; queueIntegration: QueueIntegration } | { action: 'delete'; integrationId: number | string };

export const integrationKeys = { list: ['admin', 'queueIntegrations'] as const };

/** `GET /queueIntegration/?searchParam&pageNumber` (by name). */
export async function fetchIntegrations(term: string, pageNumber: number, signal?: AbortSignal): Promise<ListPageOf<QueueIntegration>> {
  const page = await api.get<{ queueIntegrations: QueueIntegration[]; count: number; hasMore: boolean }>('/queueIntegration/', { query: { searchParam: term || undefined, pageNumber }, signal });
  return { records: page.queueIntegrations, count: page.count, hasMore: page.hasMore };
}

export const createIntegration = (body: IntegrationInput) => api.post<QueueIntegration>('/queueIntegration', body);
export const updateIntegration = (id: number, body: IntegrationInput) => api.put<QueueIntegration>(`/queueIntegration/${id}`, body);
export const deleteIntegration = (id: number) => api.delete<{ message: string }>(`/queueIntegration/${id}`);
/** `POST /queueIntegration/testSession`: Dialogflow credentials `{projectName, jsonContent, language}` or a stored integration `{id}`. */
export const testIntegration = (body: { id?: number; projectName?: string; jsonContent?: string; language?: string }) => api.post<{ message: string }>('/queueIntegration/testSession', body);
