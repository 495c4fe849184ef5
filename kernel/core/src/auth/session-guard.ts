import type { FastifyBaseLogger } from 'fastify';
import type { Knex } from 'knex';
import { companyChanged, sessionsChanged, type AuthUser, type Bus, type Profile, type SessionsChangedEvent, type Subscription } from '@atendo/sdk';
import { PLATFORM_COMPANY_ID } from '../identity/defaults';

/** What an access token says about its session (the claims the guard checks). */
export interface SessionClaims {
  id: number;
  companyId: number;
  profile: Profile;
  super: boolean;
  /** The user's `tokenVersion` when the token was signed (absent: 0). */
  tv?: number;
  /** The refresh-session family the token was issued from (absent: not issued from a refresh session). */
  sid?: string;
}

/** Why a session is not live. */
export type DeadReason = 'user' | 'version' | 'company' | 'session';

/**
 * The verdict on a session: dead (with why), or live with the user as the database has it now. `current`
 * differs from the claims when the profile or super flag changed since signing: HTTP requests then refuse
 * the token (the client refreshes and gets one with the new profile); sockets keep their connection and
 * move to the rooms of the new profile.
 */
export type Verdict = { live: false; reason: DeadReason } | { live: true; current: AuthUser; asSigned: boolean; expired: boolean };

/** What the guard keeps of a company: active, and its due date (`YYYY-MM-DD`, null: never expires). */
interface CompanyState {
  active: boolean;
  dueDate: string | null;
}

/**
 * True when a company with this due date (`YYYY-MM-DD`) has expired on `now`: the due date is before
 * today (UTC). A company is usable through its due date; null never expires.
 */
export function isExpired(dueDate: string | null, now: Date = new Date()): boolean {
  if (!dueDate) return false;
  return dueDate < now.toISOString().slice(0, 10);
}

interface UserState {
  companyId: number;
  profile: Profile;
  super: boolean;
  tokenVersion: number;
}

interface Entry<T> {
  value: T;
  at: number;
}

/** Entries kept per cache; past it the oldest go first (Map keeps insertion order). */
const MAX_ENTRIES = 20_000;

/**
 * Checks on every request and socket that the session behind an access token is still live: the user
 * exists in the token's company, its `tokenVersion` is the signed one (a password change or reset bumps it),
 * the company is active (company 1 always; the verdict also says whether its due date has passed, see
 * isExpired), the refresh-session family the token came from is not revoked
 * (logout, theft detection), and the profile and super flag are as signed.
 *
 * What it reads is cached per user, company and family (one indexed query each on a miss) and forgotten
 * through the bus: `changed(...)` drops the entries on this node at once and publishes
 * `auth.sessions-changed` (broadcast), which every node applies on delivery; `company.changed` drops a
 * company's state too. Entries also expire after `ttlMs` (a safety net for a lost bus message). The check
 * runs after the token's signature and expiry were verified, and must run even when that verification is
 * cached: a cached signature says nothing about revocation.
 */
export class SessionGuard {
  private readonly users = new Map<number, Entry<UserState | null>>();
  private readonly companies = new Map<number, Entry<CompanyState>>();
  private readonly families = new Map<string, Entry<boolean>>();
  private readonly listeners = new Set<(change: SessionsChangedEvent) => void>();
  private sub?: Subscription;
  /** Bumped by every applied change: a read that began before a change is not cached (it may be stale). */
  private epoch = 0;

  constructor(
    private readonly db: Knex,
    private readonly bus: Bus,
    private readonly log: FastifyBaseLogger,
    private readonly ttlMs = 60_000,
  ) {}

  /** Subscribes to the invalidations (broadcast: every node hears every change). */
  async start(): Promise<void> {
    this.sub = await this.bus.subscribe([sessionsChanged, companyChanged], (m) => {
      const change = m.payload as SessionsChangedEvent;
      // company.changed without a company (none is published so) would mean "every company".
      if (m.topic === companyChanged.name && change.companyId === undefined) this.companies.clear();
      this.apply(change);
    }, { broadcast: true, maxRetries: 0 });
  }

  async stop(): Promise<void> {
    await this.sub?.unsubscribe();
  }

  /** Calls `fn` for every change applied on this node (the realtime hub re-checks its sockets). */
  onChange(fn: (change: SessionsChangedEvent) => void): () => void {
    this.listeners.add(fn);
    return () => void this.listeners.delete(fn);
  }

  /**
   * Sessions of `change` (a user, a family, a company) changed: forgets them here at once, and on every
   * node through the bus. Call after the change committed (see `afterCommit`).
   */
  changed(change: SessionsChangedEvent): void {
    this.apply(change);
    this.bus.publish(sessionsChanged, change).catch((err: unknown) => this.log.error({ err, change }, 'publishing auth.sessions-changed failed'));
  }

  /**
   * A company's record changed (status, due date): forgets it on this node at once, as `company.changed`
   * does when it arrives from the bus (the caller publishes that for the other nodes).
   */
  forgetCompany(companyId: number): void {
    this.apply({ companyId });
  }

  /**
   * `changed(change)` with `trx`: the event is written into its outbox (every node hears it once it commits, even if
   * this process dies right after) and this node forgets the sessions when it commits; nothing on rollback. At once
   * when `trx` is not a transaction. Await it inside the transaction.
   */
  async afterCommit(trx: Knex | Knex.Transaction, change: SessionsChangedEvent): Promise<void> {
    const t = trx as Knex.Transaction;
    const done = t.executionPromise;
    if (done && typeof t.isTransaction === 'boolean' && t.isTransaction) {
      await this.bus.publish(sessionsChanged, change, { trx: t });
      done.then(() => this.apply(change), () => undefined);
    } else {
      this.changed(change);
    }
  }


  private apply(change: SessionsChangedEvent): void {
    this.epoch++;
    if (change.userId !== undefined) this.users.delete(change.userId);
    if (change.familyId !== undefined) this.families.delete(change.familyId);
    if (change.companyId !== undefined) {
      this.companies.delete(change.companyId);
      // A company-wide change with no user named (deactivation, deletion) also drops its users' state.
      if (change.userId === undefined) for (const [id, e] of this.users) if (e.value?.companyId === change.companyId) this.users.delete(id);
    }
    for (const fn of this.listeners) {
      try {
        fn(change);
      } catch (err) {
        this.log.error({ err }, 'session change listener failed');
      }
    }
  }

  /** The verdict on the session behind `claims` (see Verdict). */
  async judge(claims: SessionClaims): Promise<Verdict> {
    const [user, company, familyLive] = await Promise.all([
      this.user(claims.id),
      this.company(claims.companyId),
      claims.sid === undefined ? true : this.familyLive(claims.sid),
    ]);
    if (!user || user.companyId !== claims.companyId) return { live: false, reason: 'user' };
    if (user.tokenVersion !== (claims.tv ?? 0)) return { live: false, reason: 'version' };
    if (!company.active) return { live: false, reason: 'company' };
    if (!familyLive) return { live: false, reason: 'session' };
    const current: AuthUser = { id: claims.id, companyId: claims.companyId, profile: user.profile, super: user.super };
    return { live: true, current, asSigned: user.profile === claims.profile && user.super === Boolean(claims.super), expired: isExpired(company.dueDate) };
  }

  private cached<K, T>(map: Map<K, Entry<T>>, key: K): Entry<T> | undefined {
    const e = map.get(key);
    if (e && Date.now() - e.at < this.ttlMs) return e;
    if (e) map.delete(key);
    return undefined;
  }

  private remember<K, T>(map: Map<K, Entry<T>>, key: K, value: T, epoch: number): T {
    if (epoch !== this.epoch) return value;
    if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value as K);
    map.set(key, { value, at: Date.now() });
    return value;
  }

  private async user(id: number): Promise<UserState | null> {
    const hit = this.cached(this.users, id);
    if (hit) return hit.value;
    const epoch = this.epoch;
    const row = await this.db('users').where({ id }).first('companyId', 'profile', 'super', 'tokenVersion');
    return this.remember(this.users, id, row ? { companyId: row.companyId, profile: row.profile, super: Boolean(row.super), tokenVersion: Number(row.tokenVersion) } : null, epoch);
  }

  private async company(id: number): Promise<CompanyState> {
    if (id === PLATFORM_COMPANY_ID) return { active: true, dueDate: null };
    const hit = this.cached(this.companies, id);
    if (hit) return hit.value;
    const epoch = this.epoch;
    const row = await this.db('companies').where({ id }).first('status', 'dueDate');
    return this.remember(this.companies, id, { active: Boolean(row?.status), dueDate: dueDateText(row?.dueDate) }, epoch);
  }

  private async familyLive(familyId: string): Promise<boolean> {
    if (!/^[0-9a-f-]{36}$/i.test(familyId)) return false;
    const hit = this.cached(this.families, familyId);
    if (hit) return hit.value;
    const epoch = this.epoch;
    const row = await this.db('authSessions').where({ familyId }).whereNull('revokedAt').where('expiresAt', '>', this.db.fn.now()).first('id');
    return this.remember(this.families, familyId, Boolean(row), epoch);
  }
}

/** A `dueDate` column value (date, text or Date) as `YYYY-MM-DD`, or null. */
function dueDateText(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString().slice(0, 10);
  const text = String(value).slice(0, 10);
  return /^\d{4}-\d{2}-\d{2}$/.test(text) ? text : null;
}
