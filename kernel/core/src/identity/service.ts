import type { Knex } from 'knex';
import argon2 from 'argon2';
import {
  AppError,
  TtlCache,
  PLAN_FEATURES,
  type Company,
  type IdentityService,
  type Plan,
  type PlanLimit,
  type PublicUser,
  type UserExtension,
} from '@atendo/sdk';
import { COMPANY_SETTING_DEFAULTS } from './defaults';

/** A users row as stored (camelCase keys). */
export interface UserRow extends Omit<PublicUser, 'createdAt' | 'updatedAt'> {
  passwordHash: string;
  tokenVersion: number;
  lastSeenAt: Date | null;
  createdAt: Date | string;
  updatedAt: Date | string;
}

const SECRET_USER_KEYS = ['passwordHash', 'tokenVersion', 'lastSeenAt'] as const;

/** Strips secrets from a users row. */
export function toPublicUser(row: UserRow | Record<string, unknown>): PublicUser {
  const out: Record<string, unknown> = { ...row };
  for (const k of SECRET_USER_KEYS) delete out[k];
  return out as PublicUser;
}

/** Normalises a plans row: booleans stay booleans, `amount` a 2-decimal string. */
export function toPlan(row: Record<string, unknown>): Plan {
  const plan = { ...row } as Record<string, unknown>;
  plan.amount = Number(row.amount ?? 0).toFixed(2);
  for (const f of PLAN_FEATURES) plan[f] = Boolean(row[f]);
  return plan as unknown as Plan;
}

/** argon2id hash of a password (memory 64 MiB, 3 passes: the library's defaults). */
export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id });
}

/** Constant-time check of a password against its hash; false for malformed hashes. */
export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

const PLAN_CACHE_MS = 5000;
/** How long a company's settings are served from this node's cache at most (ms); writes and settings events forget them at once. */
export const SETTINGS_CACHE_MS = 5000;

/**
 * The kernel's identity store. Holds the only code that reads plans, companies and users tables;
 * plugins reach it through the `IdentityService` interface of the SDK.
 */
export class Identity implements IdentityService {
  private readonly planCache = new Map<number, { plan: Plan | undefined; at: number }>();
  /** The stored company settings per company (see `getCompanySettings`). */
  private readonly settingsCache = new TtlCache<ReadonlyMap<string, string>>(SETTINGS_CACHE_MS, 10_000);
  readonly extensions: UserExtension[] = [];

  constructor(private readonly db: Knex) {}

  async getCompany(companyId: number): Promise<Company | undefined> {
    return this.db('companies').where({ id: companyId }).first();
  }

  async getCompanyPlan(companyId: number): Promise<Plan | undefined> {
    const hit = this.planCache.get(companyId);
    if (hit && Date.now() - hit.at < PLAN_CACHE_MS) return hit.plan;
    const row = await this.db('plans').join('companies', 'companies.plan_id', 'plans.id').where('companies.id', companyId).first('plans.*');
    const plan = row ? toPlan(row) : undefined;
    this.planCache.set(companyId, { plan, at: Date.now() });
    return plan;
  }

  /** Forgets cached plans (all companies, or one). Called when plans or companies change, on every node. */
  invalidatePlans(companyId?: number): void {
    if (companyId === undefined) this.planCache.clear();
    else this.planCache.delete(companyId);
  }

  async getUser(companyId: number, userId: number): Promise<PublicUser | undefined> {
    const row = await this.db('users').where({ id: userId, companyId }).first();
    if (!row) return undefined;
    const [user] = await this.decorate(companyId, [toPublicUser(row)]);
    return user;
  }

  async listUsers(companyId: number, ids?: number[]): Promise<PublicUser[]> {
    const q = this.db('users').where({ companyId }).orderBy('name');
    if (ids) q.whereIn('id', ids);
    return this.decorate(companyId, (await q).map(toPublicUser));
  }

  /** Applies every registered user extension (for example `queues`). */
  async decorate(companyId: number, users: PublicUser[]): Promise<PublicUser[]> {
    if (users.length) for (const ext of this.extensions) await ext.decorate(companyId, users);
    return users;
  }

  async withinPlanLimit<T>(
    trx: Knex.Transaction,
    companyId: number,
    limit: PlanLimit,
    count: (trx: Knex.Transaction) => Promise<number>,
    insert: () => Promise<T>,
  ): Promise<T> {
    // The row lock serialises concurrent creates of one company, so count-then-insert cannot overshoot.
    const company = await trx('companies').where({ id: companyId }).forUpdate().first('id', 'planId');
    if (!company) throw new AppError('ERR_NO_COMPANY_FOUND');
    const plan = company.planId ? await trx('plans').where({ id: company.planId }).first(limit) : undefined;
    const max = plan ? Number(plan[limit]) : 0;
    const current = await count(trx);
    if (current >= max) {
      throw new AppError('ERR_PLAN_LIMIT_REACHED', `Maximum number of ${limit} reached: ${max}`, { extra: { limit, max } });
    }
    return insert();
  }

  registerUserExtension(ext: UserExtension): void {
    if (this.extensions.some((e) => e.name === ext.name)) throw new Error(`user extension ${ext.name} already registered`);
    this.extensions.push(ext);
  }

  /**
   * One company setting (its default when the company has no row). Served from the per-node settings
   * cache (see `getCompanySettings`).
   */
  async getCompanySetting(companyId: number, key: string): Promise<string> {
    const values = await this.storedSettings(companyId);
    return values.get(key) ?? COMPANY_SETTING_DEFAULTS[key] ?? '';
  }

  /**
   * Every company setting, defaults filled in (a fresh object). The stored rows of a company are read once
   * and kept SETTINGS_CACHE_MS on this node: every writer calls `invalidateSettings` after its commit, and
   * every node forgets a company's entry on its `company-{id}-settings` events (app.ts), so a change holds
   * at once on the node that made it and within one event's delivery elsewhere.
   */
  async getCompanySettings(companyId: number): Promise<Record<string, string>> {
    const values = await this.storedSettings(companyId);
    const out: Record<string, string> = { ...COMPANY_SETTING_DEFAULTS };
    for (const [k, v] of values) out[k] = v;
    return out;
  }

  /** Forgets cached settings (one company, or all). */
  invalidateSettings(companyId?: number): void {
    if (companyId === undefined) this.settingsCache.clear();
    else this.settingsCache.delete(String(companyId));
  }

  private storedSettings(companyId: number): Promise<ReadonlyMap<string, string>> {
    return this.settingsCache.get(String(companyId), async () => {
      const rows: { key: string; value: string }[] = await this.db('companySettings').where({ companyId }).select('key', 'value');
      return new Map(rows.map((r) => [r.key, r.value]));
    });
  }

  /** All company settings as the wire's single-row object `{id, companyId, <key>: value, ...}`. */
  async companySettingsObject(companyId: number): Promise<Record<string, unknown>> {
    const rows: { key: string; value: string; updatedAt: Date }[] = await this.db('companySettings').where({ companyId });
    const out: Record<string, unknown> = { id: companyId, companyId, ...COMPANY_SETTING_DEFAULTS };
    for (const r of rows) out[r.key] = r.value;
    return out;
  }
}
