import type { Knex } from 'knex';

/** The default opt-out words (issue 34 item 4). */
export const DEFAULT_OPT_OUT_KEYWORDS = ['SAIR', 'PARAR', 'STOP', 'CANCELAR'];
/** The default confirmation sent to a customer who opted out. */
export const DEFAULT_OPT_OUT_REPLY = 'Pronto: você não receberá mais mensagens de campanhas. Se mudar de ideia, fale com a gente por aqui.';

/** A company's compliance settings (defaults applied). */
export interface ComplianceSettings {
  optOutKeywords: string[];
  optOutReply: string;
  /** Days after which closed conversations are anonymized; null = retention off. */
  retentionDays: number | null;
}

/** A keyword or a message as compared: trimmed, upper case, accents and final punctuation removed. */
export function normalizeKeyword(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .trim()
    .replace(/[\s.!?]+$/u, '')
    .toUpperCase();
}

/** How long a company's settings are reused by the opt-out pre-check (ms); writes on this node forget them at once. */
const TTL_MS = 5000;

/** The `compliance_settings` rows (the plugin's own table), with a short per-node cache for the inbound path. */
export class SettingsStore {
  private readonly cache = new Map<number, { at: number; value: Promise<ComplianceSettings> }>();

  constructor(private readonly db: Knex) {}

  /** The company's settings, defaults applied. */
  async get(companyId: number): Promise<ComplianceSettings> {
    const row = await this.db('complianceSettings').where({ companyId }).first();
    return {
      optOutKeywords: Array.isArray(row?.optOutKeywords) ? (row.optOutKeywords as string[]) : DEFAULT_OPT_OUT_KEYWORDS,
      optOutReply: (row?.optOutReply as string | null) || DEFAULT_OPT_OUT_REPLY,
      retentionDays: (row?.retentionDays as number | null) ?? null,
    };
  }

  /** `get`, cached for a few seconds (the inbound pre-check runs per message); concurrent misses share one read. */
  cached(companyId: number): Promise<ComplianceSettings> {
    const hit = this.cache.get(companyId);
    if (hit && Date.now() - hit.at < TTL_MS) return hit.value;
    const value = this.get(companyId);
    const entry = { at: Date.now(), value };
    this.cache.set(companyId, entry);
    // A failed read is not kept: the next message asks again.
    value.catch(() => {
      if (this.cache.get(companyId) === entry) this.cache.delete(companyId);
    });
    return value;
  }

  /** Runs `fn` in a transaction of the plugin's database. */
  transaction<T>(fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  /** Writes the given fields (upsert) inside `trx`; answers the settings after the write. */
  async save(trx: Knex.Transaction, companyId: number, patch: Partial<{ optOutKeywords: string[]; optOutReply: string | null; retentionDays: number | null }>): Promise<void> {
    const values: Record<string, unknown> = {};
    if (patch.optOutKeywords !== undefined) values.optOutKeywords = JSON.stringify([...new Set(patch.optOutKeywords.map(normalizeKeyword).filter(Boolean))]);
    if (patch.optOutReply !== undefined) values.optOutReply = patch.optOutReply?.trim() || null;
    if (patch.retentionDays !== undefined) values.retentionDays = patch.retentionDays;
    await trx('complianceSettings').insert({ companyId, ...values }).onConflict('companyId').merge({ ...values, updatedAt: trx.fn.now() });
    this.cache.delete(companyId);
  }

  /** Whether `body` is one of the company's opt-out words (the whole message); answers the matched word. */
  async matchOptOut(companyId: number, body: string): Promise<string | null> {
    if (!body || body.length > 40) return null;
    const word = normalizeKeyword(body);
    const { optOutKeywords } = await this.cached(companyId);
    return optOutKeywords.map(normalizeKeyword).includes(word) ? word : null;
  }
}
