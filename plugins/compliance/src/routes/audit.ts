import { errorResponses, type PluginApp } from '@atendo/sdk';
import { AuditPage, AuditQuery } from '../schemas/audit';
import type { AuditLogReader } from '../services/audit-log';

const errors = errorResponses(400, 401, 403);

/**
 * The audit log's one route. There is deliberately no route that writes, changes or deletes an entry
 * (entries are appended by the actions themselves through `ctx.audit`, and the table refuses UPDATE/DELETE).
 * - `GET /audit-logs` (admin) ?entity&entityId&userId&action&from&to&pageNumber[&companyId: super only] ->
 *   `{records: AuditEntry[], count, hasMore}`, newest first, COMPLIANCE_PAGE_SIZE a page. A company's admin
 *   sees its own company's entries; a super user every company's. 400 ERR_VALIDATION for a bad filter;
 *   403 ERR_NO_PERMISSION for another company's `companyId` asked by a non-super.
 */
export async function auditRoutes(app: PluginApp, deps: { reader: AuditLogReader }): Promise<void> {
  app.get('/audit-logs', {
    config: { role: 'admin' },
    schema: { tags: ['compliance'], summary: 'A page of the audit log, newest first', querystring: AuditQuery, response: { 200: AuditPage, ...errors } },
  }, (req) => deps.reader.list(req.auth, req.query));
}
