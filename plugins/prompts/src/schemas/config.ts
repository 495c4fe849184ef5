import { Type, type Static } from '@atendo/sdk';

/** The plugin's config, from env vars `PROMPTS_<KEY>`, validated at boot. */
export const PromptsConfig = Type.Object({
  /**
   * `PROMPTS_BASE_URL`: the chat-completions API base URL. Empty: the `openai` package's own default, which
   * honours `OPENAI_BASE_URL` (a self-hosted compatible server), else https://api.openai.com/v1.
   */
  baseUrl: Type.String({ default: '' }),
  /** `PROMPTS_MODEL`: the model asked for. */
  model: Type.String({ minLength: 1, default: 'gpt-4o-mini' }),
  /** `PROMPTS_TIMEOUT_MS`: timeout of each completion call. */
  timeoutMs: Type.Integer({ minimum: 100, maximum: 300_000, default: 30_000 }),
  /** `PROMPTS_MAX_ATTEMPTS`: attempts per customer message before the ticket goes to humans. */
  maxAttempts: Type.Integer({ minimum: 1, maximum: 10, default: 3 }),
  /**
   * `PROMPTS_HANDOVER_PHRASE`: when the model's answer contains it (case-insensitive), the ticket goes to
   * the prompt's queue for humans (the phrase is not sent). Tell the model to write it in the prompt.
   */
  handoverPhrase: Type.String({ minLength: 3, default: 'Ação: Transferir para o setor de atendimento' }),
  /**
   * `PROMPTS_TTS_URL`: the text-to-speech endpoint for voices other than "texto" (Azure Speech's WebSocket
   * endpoint, reached through Microsoft's Speech SDK; `{region}` becomes the prompt's `voiceRegion`).
   */
  ttsUrl: Type.String({ pattern: '^wss?://', default: 'wss://{region}.tts.speech.microsoft.com/cognitiveservices/websocket/v1' }),
  /**
   * `PROMPTS_ENCRYPTION_KEY`: the key encrypting API keys at rest (at least 32 characters). Empty: a random
   * key generated once in `DATA_DIR/prompts-encryption.key` (0600), shared by nodes sharing DATA_DIR.
   */
  encryptionKey: Type.String({ default: '' }),
});
export type PromptsConfig = Static<typeof PromptsConfig>;
