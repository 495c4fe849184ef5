import { api } from '@atendo/web-api';

/**
 * The AI prompts screen's calls (plugins/prompts; spec 3-campaigns-and-tools.md "AI prompts", §7
 * "Prompts"). `apiKey` and `voiceKey` come back masked (`sk-…abcd`); sending the masked value (or '')
 * keeps the stored key.
 */
export interface Prompt {
  id: number;
  name: string;
  prompt: string;
  voice: string;
  voiceKey: string;
  voiceRegion: string;
  maxTokens: number;
  temperature: number;
  apiKey: string;
  queueId: number | null;
  queue: { id: number; name: string } | null;
  maxMessages: number;
}

export interface PromptInput {
  name: string;
  prompt: string;
  voice: string;
  voiceKey: string;
  voiceRegion: string;
  maxTokens: number;
  temperature: number;
  apiKey: string;
  queueId: number | null;
  maxMessages: number;
}

/** "texto" plus the 15 Brazilian Portuguese neural voices (spec §9). */
export const VOICES = [
  'texto',
  'pt-BR-FranciscaNeural', 'pt-BR-AntonioNeural', 'pt-BR-BrendaNeural', 'pt-BR-DonatoNeural', 'pt-BR-ElzaNeural',
  'pt-BR-FabioNeural', 'pt-BR-GiovannaNeural', 'pt-BR-HumbertoNeural', 'pt-BR-JulioNeural', 'pt-BR-LeilaNeural',
  'pt-BR-LeticiaNeural', 'pt-BR-ManuelaNeural', 'pt-BR-NicolauNeural', 'pt-BR-ValerioNeural', 'pt-BR-YaraNeural',
] as const;

/** `company-{id}-prompt` payloads. */
export type PromptEvent = { action: 'create' | 'update'; prompt: Prompt } | { action: 'delete'; promptId: number | string };

export const promptKeys = { list: ['admin', 'prompts'] as const };

/** `GET /prompt` (every prompt, by name). */
export async function fetchPrompts(signal?: AbortSignal): Promise<Prompt[]> {
  return (await api.get<{ prompts: Prompt[] }>('/prompt', { signal })).prompts;
}
export const createPrompt = (body: PromptInput) => api.post<Prompt>('/prompt', body);
export const updatePrompt = (id: number, body: PromptInput) => api.put<Prompt>(`/prompt/${id}`, body);
export const deletePrompt = (id: number) => api.delete<{ message: string }>(`/prompt/${id}`);
