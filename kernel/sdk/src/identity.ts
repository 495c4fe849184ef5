import type { Knex } from 'knex';
import type { Plan, PlanLimit } from './plan';
import { defineExtensionPoint, defineService } from './contracts';

/** A company (tenant) as the kernel stores it. `dueDate` is `YYYY-MM-DD` or null. */
export interface Company {
  id: number;
  name: string;
  email: string | null;
  phone: string | null;
  document: string | null;
  paymentMethod: string | null;
  status: boolean;
  dueDate: string | null;
  recurrence: string | null;
  schedules: unknown[];
  planId: number | null;
  lastLogin: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A user without secrets, as every API answer shows it. */
export interface PublicUser {
  id: number;
  companyId: number;
  name: string;
  email: string;
  profile: 'admin' | 'user' | 'supervisor';
  super: boolean;
  online: boolean;
  profileImage: string | null;
  whatsappId: number | null;
  startWork: string;
  endWork: string;
  allTicket: 'enable' | 'disable';
  allowGroup: boolean;
  defaultTheme: 'light' | 'dark';
  defaultMenu: 'open' | 'closed';
  farewellMessage: string | null;
  language: string | null;
  color: string | null;
  wpp: string | null;
  createdAt: string;
  updatedAt: string;
  [extension: string]: unknown;
}

/**
 * An extension of the user record owned by another plugin (the queues plugin adds `queues` and
 * stores `queueIds`). The kernel calls it when it serializes users and when a user is saved.
 */
export interface UserExtension {
  name: string;
  /** Adds keys to each user (same company). Must not remove or rename kernel keys. */
  decorate(companyId: number, users: PublicUser[]): Promise<void>;
  /**
   * Added (additive): adds keys only to the users of the paged admin list `GET /users` (e.g. each user's
   * open tickets, which the product family's real-time panel reads as `users[].tickets`), after `decorate`.
   */
  decorateList?(companyId: number, users: PublicUser[]): Promise<void>;
  /** Persists the extension's part of a create/update body inside the saving transaction. */
  save?(trx: Knex.Transaction, companyId: number, userId: number, body: Record<string, unknown>): Promise<void>;
}

/**
 * Kernel extension point `kernel.user-extensions`: contribute a `UserExtension` with
 * `ctx.extensions.contribute(userExtensions, ext)` (in `register`; no dependency to declare, the kernel
 * owns it). Names are unique: a second extension with a taken name refuses boot.
 */
export const userExtensions = defineExtensionPoint<UserExtension>('kernel.user-extensions');

/**
 * The kernel's identity store (companies, plans, users), the only way plugins reach those records.
 * Every method that takes a `companyId` is scoped to it.
 */
export interface IdentityService {
  getCompany(companyId: number): Promise<Company | undefined>;
  /** The company's plan; cached for a few seconds and invalidated on change. */
  getCompanyPlan(companyId: number): Promise<Plan | undefined>;
  getUser(companyId: number, userId: number): Promise<PublicUser | undefined>;
  listUsers(companyId: number, ids?: number[]): Promise<PublicUser[]>;
  /**
   * Runs `insert` inside `trx` only if the company's plan allows one more `limit`: locks the company row,
   * counts with `count(trx)`, throws AppError ERR_PLAN_LIMIT_REACHED when full. Safe under concurrency.
   */
  withinPlanLimit<T>(
    trx: Knex.Transaction,
    companyId: number,
    limit: PlanLimit,
    count: (trx: Knex.Transaction) => Promise<number>,
    insert: () => Promise<T>,
  ): Promise<T>;
  /**
   * A company setting value (see COMPANY_SETTING_DEFAULTS), default applied. Served from a per-node cache
   * of the company's settings (5 s at most; a write through the settings routes holds at once on its node
   * and on the others when its `company-{id}-settings` event arrives).
   */
  getCompanySetting(companyId: number, key: string): Promise<string>;
  /** Every company setting of the company as `{key: value}` (defaults applied), in one read (cached as above). */
  getCompanySettings(companyId: number): Promise<Record<string, string>>;
}

/** The kernel's identity store as a service (`ctx.identity` is the same object; kernel tests reach it by this ref). */
export const identityService = defineService<IdentityService>('identity');
