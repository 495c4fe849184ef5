import type { Knex } from 'knex';
import { AppError, iso, type Realtime } from '@atendo/sdk';
import type { QueuesService } from '@atendo/plugin-queues/contract';
import { FAMILY_PROMPT_EVENT, PROMPT_DEFAULTS, PROMPT_VOICES, promptEvent, type Prompt } from '../contract';
import type { PromptBody } from '../schemas/prompts';
import { mask, type SecretBox } from './crypto';

const TABLE = 'promptsPrompts';

/** A prompt with its keys in clear, for the answering job only. */
export interface PromptRecord {
  id: number;
  companyId: number;
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
  createdAt: string;
  updatedAt: string;
}

const num = (v: number | string | null | undefined, dflt: number) => (v === null || v === undefined || String(v).trim() === '' ? dflt : Number(v));

/**
 * The company's AI prompts. Keys are sealed before they are written and masked in every answer. Every
 * method filters on `companyId`; events go out after the write.
 */
export class PromptStore {
  constructor(
    private readonly db: Knex,
    private readonly realtime: Realtime,
    private readonly box: SecretBox,
    private readonly queues: QueuesService | undefined,
  ) {}

  private record(row: Record<string, unknown>): PromptRecord {
    return {
      id: row.id as number,
      companyId: row.companyId as number,
      name: String(row.name),
      prompt: String(row.prompt),
      voice: String(row.voice),
      voiceKey: this.box.open(String(row.voiceKey ?? '')),
      voiceRegion: String(row.voiceRegion ?? ''),
      maxTokens: Number(row.maxTokens),
      temperature: Number(row.temperature),
      apiKey: this.box.open(String(row.apiKey)),
      queueId: (row.queueId as number | null) ?? null,
      maxMessages: Number(row.maxMessages),
      createdAt: iso(row.createdAt),
      updatedAt: iso(row.updatedAt),
    };
  }

  private async toPublic(r: PromptRecord, queueNames?: Map<number, string>): Promise<Prompt> {
    let queue: Prompt['queue'] = null;
    if (r.queueId !== null) {
      const name = queueNames ? queueNames.get(r.queueId) : (await this.queues?.getQueue(r.companyId, r.queueId))?.name;
      if (name !== undefined) queue = { id: r.queueId, name };
    }
    return { ...r, apiKey: mask(r.apiKey), voiceKey: mask(r.voiceKey), queue };
  }

  /** One prompt with its keys, or undefined. */
  async get(companyId: number, id: number): Promise<PromptRecord | undefined> {
    const row = await this.db(TABLE).where({ companyId, id }).first();
    return row ? this.record(row) : undefined;
  }

  /** The public shape, or undefined. */
  async getPublic(companyId: number, id: number): Promise<Prompt | undefined> {
    const r = await this.get(companyId, id);
    return r ? this.toPublic(r) : undefined;
  }

  async getOr404(companyId: number, id: number): Promise<Prompt> {
    const p = await this.getPublic(companyId, id);
    if (!p) throw new AppError('ERR_NO_PROMPT_FOUND');
    return p;
  }

  /** Every prompt of the company, by name (spec: no search, no paging). */
  async list(companyId: number): Promise<{ prompts: Prompt[]; count: number; hasMore: boolean }> {
    const rows = await this.db(TABLE).where({ companyId }).orderBy('name').orderBy('id');
    const names = new Map((await this.queues?.listQueues(companyId) ?? []).map((q) => [q.id, q.name]));
    const prompts = await Promise.all(rows.map((r) => this.toPublic(this.record(r), names)));
    return { prompts, count: prompts.length, hasMore: false };
  }

  private async columns(companyId: number, body: PromptBody, existing?: PromptRecord): Promise<Record<string, unknown>> {
    const name = body.name.trim();
    if (name.length < 5 || name.length > 100) throw new AppError('ERR_VALIDATION', 'name must have 5 to 100 characters');
    const prompt = body.prompt.trim();
    if (prompt.length < 50) throw new AppError('ERR_VALIDATION', 'prompt must have at least 50 characters');
    const queueId = body.queueId === undefined || body.queueId === null || body.queueId === '' ? null : Number(body.queueId);
    if (queueId === null) throw new AppError('ERR_PROMPT_QUEUE_REQUIRED');
    if (!Number.isInteger(queueId) || queueId < 1) throw new AppError('ERR_VALIDATION', 'queueId must be a queue id');
    if (this.queues && !(await this.queues.getQueue(companyId, queueId))) throw new AppError('ERR_NO_QUEUE_FOUND');
    const voice = (body.voice ?? '').trim() || PROMPT_DEFAULTS.voice;
    if (!(PROMPT_VOICES as readonly string[]).includes(voice)) throw new AppError('ERR_VALIDATION', 'voice is not one of the voices');
    const maxTokens = num(body.maxTokens, PROMPT_DEFAULTS.maxTokens);
    const temperature = num(body.temperature, PROMPT_DEFAULTS.temperature);
    const maxMessages = num(body.maxMessages, PROMPT_DEFAULTS.maxMessages);
    if (!Number.isInteger(maxTokens) || maxTokens < 1 || maxTokens > 4096) throw new AppError('ERR_VALIDATION', 'maxTokens must be 1 to 4096');
    if (!Number.isFinite(temperature) || temperature < 0 || temperature > 2) throw new AppError('ERR_VALIDATION', 'temperature must be 0 to 2');
    if (!Number.isInteger(maxMessages) || maxMessages < 1 || maxMessages > 50) throw new AppError('ERR_VALIDATION', 'maxMessages must be 1 to 50');
    const voiceRegion = (body.voiceRegion ?? '').trim().toLowerCase();
    if (voiceRegion && !/^[a-z0-9]{2,40}$/.test(voiceRegion)) throw new AppError('ERR_VALIDATION', 'voiceRegion must be a region name such as brazilsouth');
    const cols: Record<string, unknown> = { name, prompt, voice, voiceRegion, maxTokens, temperature, maxMessages, queueId };
    // A key sent back as shown (masked) or empty keeps the stored one.
    const key = (body.apiKey ?? '').trim();
    if (key && !(existing && key === mask(existing.apiKey))) cols.apiKey = this.box.seal(key);
    else if (!existing) throw new AppError('ERR_VALIDATION', 'apiKey is required');
    const voiceKey = (body.voiceKey ?? '').trim();
    if (voiceKey && !(existing && voiceKey === mask(existing.voiceKey))) cols.voiceKey = this.box.seal(voiceKey);
    return cols;
  }

  async create(companyId: number, body: PromptBody): Promise<Prompt> {
    const cols = await this.columns(companyId, body);
    const [row] = await this.db(TABLE).insert({ companyId, ...cols }).returning('*');
    const out = await this.toPublic(this.record(row));
    this.emit(companyId, { action: 'create', prompt: out });
    return out;
  }

  async update(companyId: number, id: number, body: PromptBody): Promise<Prompt> {
    const existing = await this.get(companyId, id);
    if (!existing) throw new AppError('ERR_NO_PROMPT_FOUND');
    const cols = await this.columns(companyId, body, existing);
    const [row] = await this.db(TABLE).where({ companyId, id }).update({ ...cols, updatedAt: this.db.fn.now() }).returning('*');
    if (!row) throw new AppError('ERR_NO_PROMPT_FOUND');
    const out = await this.toPublic(this.record(row));
    this.emit(companyId, { action: 'update', prompt: out });
    return out;
  }

  async remove(companyId: number, id: number): Promise<void> {
    const n = await this.db(TABLE).where({ companyId, id }).del();
    if (!n) throw new AppError('ERR_NO_PROMPT_FOUND');
    this.emit(companyId, { action: 'delete', promptId: id });
  }

  /** Pushes a prompt event as `company-{id}-prompt` and as the family's `prompt`, both to the company's sockets only. */
  private emit(companyId: number, payload: unknown): void {
    this.realtime.emitToCompany(companyId, promptEvent(companyId), payload);
    this.realtime.emitToCompany(companyId, FAMILY_PROMPT_EVENT, payload);
  }
}
