import type { Knex } from 'knex';
import type { AuthUser } from './auth';

/**
 * The audit log (issue 34 item 1): an append-only record of who did what to which entity, the changed
 * fields before and after, when and from which address. The kernel owns the `audit_logs` table (a trigger
 * refuses UPDATE, DELETE and TRUNCATE on it) and gives every plugin `ctx.audit`; the compliance plugin
 * serves `GET /audit-logs`. A call site records with one line, inside its own transaction when it has one:
 *
 * ```ts
 * await ctx.audit.record(trx, { req, entity: 'contact', entityId: id, action: 'update', before, after });
 * ```
 */

/** Who acted: a signed-in user, the system (jobs, retention), a bot (automation) or an API token. */
export type AuditActorKind = 'user' | 'system' | 'bot' | 'api';

/** The actor of an entry. `userId` is set for `user` (and for `api` when the token belongs to a user). */
export interface AuditActor {
  kind: AuditActorKind;
  userId?: number | null;
  /** A free label for non-user actors (`retention`, the API token's name, the flow's name). */
  label?: string | null;
  /** The client address (the request's `ip`), when the action came over HTTP. */
  ip?: string | null;
}

/** The request-shaped source of an actor: `req.auth` and `req.ip` of a Fastify request. */
export interface AuditRequestLike {
  auth?: AuthUser | null;
  ip?: string;
}

/** One entry to record. `companyId` defaults to the request's company. */
export interface AuditEntryInput {
  /** The company the entry belongs to (required when there is no `req`). */
  companyId?: number;
  /** The HTTP request that caused it: gives the acting user, the company and the address. */
  req?: AuditRequestLike;
  /** Who acted, when there is no request (jobs, bots, API tokens); overrides what `req` gives. */
  actor?: AuditActor;
  /** The entity kind: `ticket`, `message`, `contact`, `user`, `queue`, `connection`, `setting`, `plan`, `company`, `campaign`, `api-token`. */
  entity: string;
  /** The entity's id (a setting's key for settings). */
  entityId?: number | string | null;
  /** What happened: `create`, `update`, `delete`, `accept`, `transfer`, `close`, `reopen`, `block`, `export`, `anonymize`, ... */
  action: string;
  /**
   * The entity before and after. When both are given only the fields whose values differ are kept (the
   * entry shows what changed); secrets (`password`, `passwordHash`, `token`, `secret` keys) are never stored.
   */
  before?: object | null;
  after?: object | null;
  /**
   * The entity holds a data subject's personal data (a contact, a message): only the names of the changed
   * fields are stored, each text or object value replaced by `PERSONAL_VALUE` (ids, numbers, flags kept). The log is append-only, so a value stored
   * here could never be anonymized later (LGPD art. 18).
   */
  personal?: boolean;
}

/** What an audit entry shows in place of a personal value (see `AuditEntryInput.personal`). */
export const PERSONAL_VALUE = '[personal data]';

/** An entry as `GET /audit-logs` answers it. */
export interface AuditEntry {
  id: number;
  companyId: number;
  actorKind: AuditActorKind;
  userId: number | null;
  actorLabel: string | null;
  entity: string;
  entityId: string | null;
  action: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  ip: string | null;
  createdAt: string;
}

/** Filters of a listing; `companyId` null means every company (super admins only: the caller checks). */
export interface AuditFilter {
  companyId: number | null;
  entity?: string;
  entityId?: string;
  userId?: number;
  action?: string;
  /** ISO instants, inclusive. */
  from?: string;
  to?: string;
}

/** The kernel's audit recorder (`ctx.audit`). */
export interface AuditService {
  /**
   * Appends one entry through `db` (pass the caller's transaction so the entry commits or rolls back with
   * the change). Never throws for a missing actor: an entry with neither `req.auth` nor `actor` is `system`.
   */
  record(db: Knex | Knex.Transaction, entry: AuditEntryInput): Promise<void>;
  /** Appends one entry on its own (after the change committed: for call sites without a transaction at hand). */
  record(entry: AuditEntryInput): Promise<void>;
  /** One page of entries, newest first. */
  list(filter: AuditFilter, page: { offset: number; limit: number }): Promise<{ records: AuditEntry[]; count: number }>;
}

const SECRET_KEY = /pass(word)?|secret|token|hash/i;

/** Removes secret-looking keys (`password`, `passwordHash`, `token`, `secret`...) from a copy of `obj`. */
function withoutSecrets(obj: object | null | undefined): Record<string, unknown> | null {
  if (!obj) return null;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj as Record<string, unknown>)) if (!SECRET_KEY.test(k) && v !== undefined) out[k] = v;
  return out;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * The `before`/`after` an entry stores: secrets removed and, when both sides are given, only the keys
 * whose values differ (keys present on one side only count as changed).
 */
export function auditDiff(before: object | null | undefined, after: object | null | undefined, personal = false): { before: Record<string, unknown> | null; after: Record<string, unknown> | null } {
  const hide = (o: Record<string, unknown> | null): Record<string, unknown> | null =>
    o && personal ? Object.fromEntries(Object.keys(o).map((k) => [k, typeof o[k] === 'string' || (o[k] !== null && typeof o[k] === 'object') ? PERSONAL_VALUE : o[k]])) : o;
  const b = withoutSecrets(before);
  const a = withoutSecrets(after);
  if (!b || !a) return { before: hide(b), after: hide(a) };
  const keys = new Set([...Object.keys(b), ...Object.keys(a)]);
  const db: Record<string, unknown> = {};
  const da: Record<string, unknown> = {};
  for (const k of keys) {
    if (k === 'updatedAt' || same(b[k], a[k])) continue;
    if (k in b) db[k] = b[k];
    if (k in a) da[k] = a[k];
  }
  return { before: hide(db), after: hide(da) };
}

/** The actor of an entry: the explicit one, else the request's user, else `system`; the address from the request. */
export function auditActorOf(entry: Pick<AuditEntryInput, 'req' | 'actor'>): Required<AuditActor> {
  const ip = entry.actor?.ip ?? entry.req?.ip ?? null;
  if (entry.actor) return { kind: entry.actor.kind, userId: entry.actor.userId ?? null, label: entry.actor.label ?? null, ip };
  const auth = entry.req?.auth;
  if (auth) return { kind: 'user', userId: auth.id, label: null, ip };
  return { kind: 'system', userId: null, label: null, ip };
}
