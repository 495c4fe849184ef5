/**
 * The prompts plugin's contract (import it as `@atendo/plugin-prompts/contract`): the AI prompt wire shape,
 * its socket event, the answer job and the plugin's error codes. Types and `define*` calls only.
 */
import { defineErrors, defineJob, defineService, Nullable, Type, type Static } from '@atendo/sdk';
import type { ContactSnapshot, InboundMessageSnapshot, TicketSnapshot } from '@atendo/plugin-tickets/contract';

export const errors = defineErrors({
  ERR_NO_PROMPT_FOUND: { status: 404, message: 'Prompt not found' },
  ERR_PROMPT_QUEUE_REQUIRED: { status: 400, message: 'Informe o setor' },
});
declare module '@atendo/sdk' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface ErrorCodes extends Record<keyof typeof errors, true> {}
}

/** Spec defaults and the voice options ("texto" plus 15 Brazilian Portuguese neural voices). */
export const PROMPT_DEFAULTS = { maxTokens: 100, temperature: 1, maxMessages: 10, voice: 'texto' } as const;
export const PROMPT_VOICES = [
  'texto',
  'pt-BR-FranciscaNeural', 'pt-BR-AntonioNeural', 'pt-BR-BrendaNeural', 'pt-BR-DonatoNeural', 'pt-BR-ElzaNeural',
  'pt-BR-FabioNeural', 'pt-BR-GiovannaNeural', 'pt-BR-HumbertoNeural', 'pt-BR-JulioNeural', 'pt-BR-LeilaNeural',
  'pt-BR-LeticiaNeural', 'pt-BR-ManuelaNeural', 'pt-BR-NicolauNeural', 'pt-BR-ValerioNeural', 'pt-BR-YaraNeural',
] as const;

/**
 * An AI prompt as every answer and event shows it (spec "Prompt"). `apiKey` and `voiceKey` are masked
 * (`sk-…abcd`: at most the first 3 and the last 4 characters); a PUT with the masked value (or '') keeps the
 * stored key.
 */
export const PromptSchema = Type.Object(
  {
    id: Type.Integer(),
    companyId: Type.Integer(),
    name: Type.String(),
    prompt: Type.String(),
    voice: Type.String(),
    voiceKey: Type.String(),
    voiceRegion: Type.String(),
    maxTokens: Type.Integer(),
    temperature: Type.Number(),
    apiKey: Type.String(),
    queueId: Nullable(Type.Integer()),
    queue: Nullable(Type.Object({ id: Type.Integer(), name: Type.String() })),
    maxMessages: Type.Integer(),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { additionalProperties: false },
);
export type Prompt = Static<typeof PromptSchema>;

/** The socket.io event of the company's prompts: `{action: 'create'|'update', prompt}` / `{action: 'delete', promptId}`. */
export const promptEvent = (companyId: number) => `company-${companyId}-prompt`;

/**
 * The product family's name of the same event (wire-shapes §5 "Other events": `prompt`, which its prompts
 * page listens for). The family broadcasts it to every tenant; here it reaches only the company's sockets.
 */
export const FAMILY_PROMPT_EVENT = 'prompt';

/** The job answering a ticket's waiting customer messages with its prompt (keyed by ticket; `turn`: the latest message). */
export interface PromptTurnData {
  companyId: number;
  ticketId: number;
  promptId: number;
  turn: { ticket: TicketSnapshot; contact: ContactSnapshot; message: InboundMessageSnapshot };
}
export const promptTurnJob = defineJob<PromptTurnData>('prompts.answer');

/** The `prompts` service: the company's prompts (public shape, keys masked). */
export interface PromptsService {
  get(companyId: number, id: number): Promise<Prompt | undefined>;
}
export const promptsService = defineService<PromptsService>('prompts');
