import { AppError, page, type AuditService, type AuthUser, type IdentityService } from '@atendo/sdk';
import type { AuditEntryOut } from '../contract';
import type { AuditQuery } from '../schemas/audit';

/**
 * Reads the kernel's audit log for `GET /audit-logs`: a company's admins see their company's entries only;
 * super users see every company's (or one, with `companyId`). Entries are never changed here (the table
 * refuses it anyway). Each entry gets the acting user's name when that user still exists.
 */
export class AuditLogReader {
  constructor(
    private readonly audit: AuditService,
    private readonly identity: IdentityService,
    private readonly pageSize: number,
  ) {}

  /** One page, newest first. `companyId` in the query is refused (403) for callers who are not super. */
  async list(caller: AuthUser, q: AuditQuery): Promise<{ records: AuditEntryOut[]; count: number; hasMore: boolean }> {
    if (q.companyId !== undefined && !caller.super && q.companyId !== caller.companyId) throw new AppError('ERR_NO_PERMISSION', 'Only super users read other companies’ audit logs');
    if (q.from && q.to && Date.parse(q.from) > Date.parse(q.to)) throw new AppError('ERR_VALIDATION', 'from must not be after to');
    const companyId = caller.super ? (q.companyId ?? null) : caller.companyId;
    const { offset, limit, hasMore } = page(q.pageNumber, this.pageSize);
    const { records, count } = await this.audit.list(
      { companyId, entity: q.entity, entityId: q.entityId, userId: q.userId, action: q.action, from: q.from, to: q.to },
      { offset, limit },
    );
    const names = new Map<string, string>();
    const byCompany = new Map<number, Set<number>>();
    for (const r of records) if (r.userId !== null) (byCompany.get(r.companyId) ?? byCompany.set(r.companyId, new Set()).get(r.companyId)!).add(r.userId);
    // The acting user may belong to another company than the entry (a super user acting on a company).
    const actorIds = new Set(records.map((r) => r.userId).filter((id): id is number => id !== null));
    for (const [cid, ids] of byCompany) for (const u of await this.identity.listUsers(cid, [...ids])) names.set(`${u.id}`, u.name);
    const missing = [...actorIds].filter((id) => !names.has(`${id}`));
    if (missing.length && caller.super) for (const u of await this.identity.listUsers(caller.companyId, missing)) names.set(`${u.id}`, u.name);
    return {
      records: records.map((r) => ({ ...r, userName: r.userId === null ? null : (names.get(`${r.userId}`) ?? null) })),
      count,
      hasMore: hasMore(count, records.length),
    };
  }
}
