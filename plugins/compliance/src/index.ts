import { definePlugin } from '@atendo/sdk';
import { errors } from './contract';
import { ComplianceConfig } from './schemas/config';
import { AuditLogReader } from './services/audit-log';
import { auditRoutes } from './routes/audit';

/**
 * The compliance plugin (issue 34): the audit log's route over the kernel's append-only `audit_logs`
 * (`ctx.audit`), the data subject's export and anonymization, and the opt-out keywords. See README.md.
 */
export default definePlugin<ComplianceConfig>({
  id: 'compliance',
  dependsOn: ['contacts', 'tickets'],
  errors,
  configSchema: ComplianceConfig,
  async register(ctx) {
    const reader = new AuditLogReader(ctx.audit, ctx.identity, ctx.config.pageSize);
    await auditRoutes(ctx.app, { reader });
  },
});
