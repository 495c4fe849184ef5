import type { Knex } from 'knex';
import { auditActorOf, auditDiff, iso, type AuditEntry, type AuditEntryInput, type AuditFilter, type AuditService } from '@atendo/sdk';

/** A row of `audit_logs` as the API shows it. */
function toEntry(row: Record<string, unknown>): AuditEntry {
  return {
    id: Number(row.id),
    companyId: Number(row.companyId),
    actorKind: row.actorKind as AuditEntry['actorKind'],
    userId: (row.userId as number | null) ?? null,
    actorLabel: (row.actorLabel as string | null) ?? null,
    entity: String(row.entity),
    entityId: (row.entityId as string | null) ?? null,
    action: String(row.action),
    before: (row.before as Record<string, unknown> | null) ?? null,
    after: (row.after as Record<string, unknown> | null) ?? null,
    ip: (row.ip as string | null) ?? null,
    createdAt: iso(row.createdAt),
  };
}

/**
 * The kernel's audit log (`ctx.audit`, SDK audit.ts): appends to `audit_logs` (append-only in the database:
 * see the migration 20261207000130_audit_logs) and reads it for `GET /audit-logs`.
 */
export class AuditLog implements AuditService {
  constructor(private readonly db: Knex) {}

  /** Appends one entry through `db` (the caller's transaction when it has one). */
  record(db: Knex | Knex.Transaction, entry: AuditEntryInput): Promise<void>;
  record(entry: AuditEntryInput): Promise<void>;
  async record(first: Knex | Knex.Transaction | AuditEntryInput, second?: AuditEntryInput): Promise<void> {
    const db = typeof first === 'function' ? first : this.db;
    const entry = typeof first === 'function' ? second! : first;
    const companyId = entry.companyId ?? entry.req?.auth?.companyId;
    if (!companyId) throw new Error(`audit entry ${entry.entity}.${entry.action} has no company`);
    const actor = auditActorOf(entry);
    const { before, after } = auditDiff(entry.before, entry.after, entry.personal);
    await db('auditLogs').insert({
      companyId,
      actorKind: actor.kind,
      userId: actor.userId,
      actorLabel: actor.label?.slice(0, 200) ?? null,
      entity: entry.entity.slice(0, 40),
      entityId: entry.entityId === undefined || entry.entityId === null ? null : String(entry.entityId).slice(0, 100),
      action: entry.action.slice(0, 40),
      before: before === null ? null : JSON.stringify(before),
      after: after === null ? null : JSON.stringify(after),
      ip: actor.ip?.slice(0, 64) ?? null,
    });
  }

  /** One page of entries matching `filter`, newest first. */
  async list(filter: AuditFilter, page: { offset: number; limit: number }): Promise<{ records: AuditEntry[]; count: number }> {
    const q = this.db('auditLogs');
    if (filter.companyId !== null) void q.where({ companyId: filter.companyId });
    if (filter.entity) void q.where({ entity: filter.entity });
    if (filter.entityId) void q.where({ entityId: filter.entityId });
    if (filter.userId) void q.where({ userId: filter.userId });
    if (filter.action) void q.where({ action: filter.action });
    if (filter.from) void q.where('createdAt', '>=', filter.from);
    if (filter.to) void q.where('createdAt', '<=', filter.to);
    const [{ n }] = await q.clone().count({ n: '*' });
    const rows = await q.clone().orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'id', order: 'desc' }]).offset(page.offset).limit(page.limit);
    return { records: rows.map(toEntry), count: Number(n) };
  }
}
