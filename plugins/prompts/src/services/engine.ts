import type { Knex } from 'knex';
import type { FastifyBaseLogger } from 'fastify';
import type OpenAI from 'openai';
import { Readable } from 'node:stream';
import { TtlCache, type Jobs, type JobRun, type UploadService } from '@atendo/sdk';
import type { ConversationTurn, MessageStoredEvent, TicketActor, TicketsService } from '@atendo/plugin-tickets/contract';
import type { QueuesService } from '@atendo/plugin-queues/contract';
import type { ConnectionsService } from '@atendo/plugin-connections/contract';
import { promptTurnJob, type PromptTurnData } from '../contract';
import type { PromptRecord, PromptStore } from './store';
import { synthesize } from './speech';

/** How long a queue's or connection's attachment read is reused (every inbound message asks). */
const ATTACHMENT_TTL_MS = 2000;


export const HANDLER_ID = 'prompts';
const BY: TicketActor = { kind: 'bot', handlerId: HANDLER_ID };
const SESSIONS = 'promptsSessions';

export interface PromptEngineDeps {
  db: Knex;
  log: FastifyBaseLogger;
  jobs: Jobs;
  tickets: TicketsService;
  queues?: QueuesService;
  connections?: ConnectionsService;
  store: PromptStore;
  baseUrl: string;
  model: string;
  timeoutMs: number;
  maxAttempts: number;
  handoverPhrase: string;
  uploads: UploadService;
  ttsUrl: string;
}

/** The `openai` package, loaded on the first completion (~11 MB resident a process without prompts never carries). */
let openai: Promise<typeof import('openai')> | undefined;
const loadOpenAI = () => (openai ??= import('openai'));

/** One chat message of the completion request. */
export type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string };

/**
 * AI prompts answering customers: the conversation handler (order -10) takes a pending ticket whose
 * `promptId` is set, or whose queue (else connection) has a prompt, and queues one `prompts.answer` job
 * per message; the job sends the prompt as the system message, the ticket's last `maxMessages` messages
 * as history (ours as assistant, the customer's as user), `maxTokens` and `temperature` to the chat
 * completions API (the official `openai` client), and sends the answer through the tickets outbound path.
 * An answer with the handover phrase, or a failure after the retries, hands the ticket to the prompt's
 * queue for humans (with a private note for the failure).
 */
export class PromptEngine {
  private readonly attachments = new TtlCache<number | null>(ATTACHMENT_TTL_MS);
  constructor(private readonly d: PromptEngineDeps) {}

  /** The chain's pre-check (the event and the cached attachments): false where onMessage passes on the ticket alone. */
  async wants(e: MessageStoredEvent): Promise<boolean> {
    const t = e.ticket;
    if (t.isGroup || t.status !== 'pending' || t.userId !== null || t.useIntegration) return false;
    if (t.promptId !== null) return true;
    return (await this.attachedPrompt(e.companyId, t.queueId, t.connectionId)) !== null;
  }

  async onMessage(turn: ConversationTurn): Promise<'handled' | 'pass'> {
    const { companyId, ticket: t, contact } = turn;
    if (contact.disableBot || t.isGroup || t.status !== 'pending' || t.userId !== null || t.useIntegration) return 'pass';
    let prompt: PromptRecord | undefined;
    if (t.promptId !== null) {
      prompt = await this.d.store.get(companyId, t.promptId);
      if (!prompt) return 'pass';
    } else {
      // Most messages: nothing attached (cached reads), no query of our own.
      const id = await this.attachedPrompt(companyId, t.queueId, t.connectionId);
      if (id === null) return 'pass';
      const session = await this.d.db(SESSIONS).where({ companyId, ticketId: t.id }).first();
      if (session?.status === 'released') return 'pass';
      prompt = await this.d.store.get(companyId, id);
      if (!prompt) return 'pass';
      await this.d.tickets.update(companyId, t.id, { promptId: prompt.id, isBot: false }, BY);
      await this.d.tickets.addLog(companyId, t.id, { type: 'chatBot', data: { by: HANDLER_ID, step: 'start', promptId: prompt.id } });
    }
    await this.d.db(SESSIONS).insert({ companyId, ticketId: t.id, promptId: prompt.id, status: 'active' }).onConflict('ticketId').merge({ promptId: prompt.id, status: 'active', updatedAt: this.d.db.fn.now() });
    await this.d.jobs.schedule(promptTurnJob, { companyId, ticketId: t.id, promptId: prompt.id, turn: { ticket: { ...t, promptId: prompt.id }, contact: turn.contact, message: turn.message } }, { key: `ticket:${companyId}:${t.id}`, maxAttempts: this.d.maxAttempts });
    return 'handled';
  }

  private async attachedPrompt(companyId: number, queueId: number | null, connectionId: number | null): Promise<number | null> {
    if (queueId !== null) {
      const id = await this.attachments.get(`q:${companyId}:${queueId}`, async () => (await this.d.queues?.getQueue(companyId, queueId))?.promptId ?? null);
      if (id) return id;
    }
    if (connectionId !== null) {
      const id = await this.attachments.get(`c:${companyId}:${connectionId}`, async () => (await this.d.connections?.get(companyId, connectionId))?.promptId ?? null);
      if (id) return id;
    }
    return null;
  }

  /** The completion request's messages: the prompt, then the history oldest first. */
  async conversation(companyId: number, ticketId: number, prompt: PromptRecord, current: string): Promise<ChatMessage[]> {
    const rows = this.d.tickets.recentMessages ? await this.d.tickets.recentMessages(companyId, ticketId, prompt.maxMessages) : [];
    const history: ChatMessage[] = rows.filter((m) => m.body.trim()).map((m) => ({ role: m.fromMe ? 'assistant' : 'user', content: m.body }));
    if (!history.length || history[history.length - 1].content !== current) history.push({ role: 'user', content: current });
    return [{ role: 'system', content: prompt.prompt }, ...history.slice(-prompt.maxMessages)];
  }

  /**
   * The job (keyed by ticket: a burst of messages waiting for it gets one answer): under the ticket's
   * lease (another run finding it leased comes back shortly), answers when the ticket's last message is
   * the customer's.
   */
  async answer(run: JobRun<PromptTurnData>): Promise<void> {
    const { companyId, ticketId } = run.data;
    const db = this.d.db;
    const leased = await db(SESSIONS)
      .where({ companyId, ticketId })
      .andWhere((q) => void q.whereNull('leaseUntil').orWhere('leaseUntil', '<', db.fn.now()))
      .update({ leaseUntil: db.raw("now() + interval '10 minutes'") })
      .returning('ticketId');
    if (!leased.length) {
      await this.d.jobs.schedule(promptTurnJob, run.data, { key: `later:${companyId}:${ticketId}`, delayMs: 1500, maxAttempts: this.d.maxAttempts });
      return;
    }
    try {
      const last = this.d.tickets.recentMessages ? (await this.d.tickets.recentMessages(companyId, ticketId, 1))[0] : undefined;
      // Already answered (a later run answered the whole burst): nothing to do.
      if (last && last.fromMe) return;
      await this.answerNow(run, last?.body ?? run.data.turn.message.body);
    } finally {
      await db(SESSIONS).where({ companyId, ticketId }).update({ leaseUntil: null });
    }
  }

  private async answerNow(run: JobRun<PromptTurnData>, current: string): Promise<void> {
    const { companyId, ticketId, promptId } = run.data;
    const now = await this.d.tickets.get(companyId, ticketId);
    if (!now || now.status !== 'pending' || now.userId !== null || now.useIntegration || now.promptId !== promptId) return;
    const prompt = await this.d.store.get(companyId, promptId);
    if (!prompt) {
      await this.handOver(companyId, ticketId, null, 'o prompt foi removido');
      return;
    }
    let text: string;
    try {
      const { default: OpenAIClient } = await loadOpenAI();
      const client: OpenAI = new OpenAIClient({ apiKey: prompt.apiKey, baseURL: this.d.baseUrl || undefined, timeout: this.d.timeoutMs, maxRetries: 0 });
      const messages = await this.conversation(companyId, ticketId, prompt, current);
      const res = await client.chat.completions.create({ model: this.d.model, messages, max_tokens: prompt.maxTokens, temperature: prompt.temperature });
      text = (res.choices?.[0]?.message?.content ?? '').trim();
    } catch (err) {
      const status = (err as { status?: number }).status;
      const permanent = status === 400 || status === 401 || status === 403 || status === 404;
      this.d.log.warn({ err, companyId, ticketId, promptId, attempt: run.attempt }, 'prompts: completion failed');
      if (permanent || run.attempt >= run.maxAttempts) {
        await this.handOver(companyId, ticketId, prompt.queueId, `${prompt.name}: ${status ? `the model API answered ${status}` : (err as Error).message}`);
        return;
      }
      throw err;
    }
    const at = text.toLowerCase().indexOf(this.d.handoverPhrase.toLowerCase());
    const reply = at >= 0 ? (text.slice(0, at) + text.slice(at + this.d.handoverPhrase.length)).trim() : text;
    if (reply) {
      const spoken = prompt.voice !== 'texto' && prompt.voiceKey && prompt.voiceRegion ? await this.speak(companyId, prompt, reply) : null;
      if (spoken) await this.d.tickets.sendMedia(companyId, ticketId, { path: spoken.path, fileName: spoken.fileName }, { fromBot: true, handlerId: HANDLER_ID });
      else await this.d.tickets.sendText(companyId, ticketId, reply.slice(0, 4096), { fromBot: true, handlerId: HANDLER_ID });
    }
    if (at >= 0) await this.handOver(companyId, ticketId, prompt.queueId, null);
  }

  /**
   * The answer as speech in the prompt's voice (Microsoft's Speech SDK at PROMPTS_TTS_URL, MP3; see
   * speech.ts), stored as an upload; null when the provider cannot be reached or refuses (the text is sent
   * instead).
   */
  private async speak(companyId: number, prompt: PromptRecord, text: string): Promise<{ path: string; fileName: string } | null> {
    try {
      const bytes = await synthesize(this.d.ttsUrl.replace('{region}', prompt.voiceRegion), prompt.voiceKey, prompt.voice, text, this.d.timeoutMs);
      const stored = await this.d.uploads.save(companyId, 'prompts', { file: Readable.from(bytes), filename: 'resposta.mp3', mimetype: 'audio/mpeg' }, { allow: ['audio/*'], maxBytes: 16 * 1024 * 1024 });
      return { path: stored.path, fileName: stored.fileName };
    } catch (err) {
      this.d.log.warn({ err, companyId, promptId: prompt.id }, 'prompts: text-to-speech failed, sending text');
      return null;
    }
  }

  /** To the queue's humans: promptId cleared, pending, no user; a private note when `failure` says why. */
  async handOver(companyId: number, ticketId: number, queueId: number | null, failure: string | null): Promise<void> {
    const t = await this.d.tickets.get(companyId, ticketId);
    if (!t) return;
    await this.d.db(SESSIONS).where({ companyId, ticketId }).update({ status: 'released', updatedAt: this.d.db.fn.now() });
    await this.d.tickets.update(companyId, ticketId, { promptId: null, status: 'pending', userId: null, queueId: queueId ?? t.queueId }, BY);
    await this.d.tickets.addLog(companyId, ticketId, { type: 'chatBot', data: { by: HANDLER_ID, step: 'handover', reason: failure ?? 'handover phrase' } });
    if (failure) await this.d.tickets.sendText(companyId, ticketId, `Assistente de IA indisponível: ${failure}`.slice(0, 4096), { fromBot: true, handlerId: HANDLER_ID, isPrivate: true }).catch((err) => this.d.log.warn({ err }, 'prompts: note failed'));
  }

  async forget(companyId: number, ticketId: number): Promise<void> {
    await this.d.db(SESSIONS).where({ companyId, ticketId }).del();
  }
}
