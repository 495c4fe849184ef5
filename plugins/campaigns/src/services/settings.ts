import type { Knex } from 'knex';
import { AppError, iso, type Realtime } from '@atendo/sdk';
import { campaignSettingsEvent, SETTING_DEFAULTS, type CampaignSettingRow, type CampaignSettings, type CampaignVariable } from '../contract';

const TABLE = 'campaigns_settings';
const NUMERIC_KEYS = ['messageInterval', 'longerIntervalAfter', 'greaterInterval'] as const;

/** What `POST /campaign-settings` takes (`settings`), numbers possibly as digit strings. */
export interface SettingsInput {
  messageInterval?: number | string;
  longerIntervalAfter?: number | string;
  greaterInterval?: number | string;
  variables?: { key: string; value: string }[];
}

const row = (r: Record<string, unknown>): CampaignSettingRow => ({
  id: r.id as number,
  key: String(r.key),
  value: String(r.value),
  companyId: r.companyId as number,
  createdAt: iso(r.createdAt),
  updatedAt: iso(r.updatedAt),
});

/**
 * The campaign settings of each company (spec §3 "Campaign settings"): key/value rows whose values are JSON
 * text (`messageInterval`, `longerIntervalAfter`, `greaterInterval`: whole seconds / messages; `variables`:
 * `[{key, value}]`). Unset keys take SETTING_DEFAULTS.
 */
export class SettingsStore {
  constructor(
    private readonly db: Knex,
    private readonly realtime: Realtime,
  ) {}

  /** The stored rows of the company, by key (`GET /campaign-settings`). */
  async rows(companyId: number): Promise<CampaignSettingRow[]> {
    return ((await this.db(TABLE).where({ companyId }).orderBy('key')) as Record<string, unknown>[]).map(row);
  }

  /** The company's settings parsed, defaults applied (a value that is not valid JSON counts as unset). */
  async get(companyId: number, db: Knex | Knex.Transaction = this.db): Promise<CampaignSettings> {
    const out: CampaignSettings = { ...SETTING_DEFAULTS, variables: [] };
    for (const r of (await db(TABLE).where({ companyId })) as { key: string; value: string }[]) {
      let v: unknown;
      try {
        v = JSON.parse(r.value);
      } catch {
        continue;
      }
      if ((NUMERIC_KEYS as readonly string[]).includes(r.key)) {
        const n = Number(v);
        if (Number.isInteger(n) && n >= 0) out[r.key as (typeof NUMERIC_KEYS)[number]] = n;
      } else if (r.key === 'variables' && Array.isArray(v)) {
        out.variables = v
          .filter((x): x is CampaignVariable => !!x && typeof x === 'object' && typeof (x as CampaignVariable).key === 'string')
          .map((x) => ({ key: x.key, value: typeof x.value === 'string' ? x.value : String(x.value ?? '') }));
      }
    }
    return out;
  }

  /**
   * Stores the given keys (one transaction) and answers every row. Numbers: whole, 0..3600 seconds
   * (`longerIntervalAfter`: 0..1000 messages); variables: keys trimmed, 1..50 characters without braces,
   * unique (400 ERR_CAMPAIGN_VARIABLE_DUPLICATED), values at most 1000 characters. Emits
   * `company-{id}-campaign-settings` {action: 'update', settings}.
   */
  async save(companyId: number, input: SettingsInput): Promise<CampaignSettingRow[]> {
    const values: Record<string, string> = {};
    for (const k of NUMERIC_KEYS) {
      const raw = input[k];
      if (raw === undefined) continue;
      const n = typeof raw === 'number' ? raw : Number(String(raw).trim());
      const max = k === 'longerIntervalAfter' ? 1000 : 3600;
      if (!Number.isInteger(n) || n < 0 || n > max) throw new AppError('ERR_VALIDATION', `${k} must be a whole number from 0 to ${max}`);
      values[k] = JSON.stringify(n);
    }
    if (input.variables !== undefined) {
      const seen = new Set<string>();
      const vars: CampaignVariable[] = [];
      for (const v of input.variables) {
        const key = (v.key ?? '').trim();
        if (!key || key.length > 50 || /[{}]/.test(key)) throw new AppError('ERR_VALIDATION', 'variable keys must have 1 to 50 characters, without braces');
        if (seen.has(key)) throw new AppError('ERR_CAMPAIGN_VARIABLE_DUPLICATED', `The variable key "${key}" is used twice`);
        seen.add(key);
        vars.push({ key, value: String(v.value ?? '') });
      }
      values.variables = JSON.stringify(vars);
    }
    await this.db.transaction(async (trx) => {
      for (const [key, value] of Object.entries(values)) {
        await trx(TABLE).insert({ companyId, key, value }).onConflict(['companyId', 'key']).merge({ value, updatedAt: trx.fn.now() });
      }
    });
    const rows = await this.rows(companyId);
    this.realtime.emitToCompany(companyId, campaignSettingsEvent(companyId), { action: 'update', settings: rows });
    return rows;
  }
}
