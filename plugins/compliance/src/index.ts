import { join } from 'node:path';
import { definePlugin, type ServiceRef } from '@atendo/sdk';
import { contactsService } from '@atendo/plugin-contacts/contract';
import { conversationHandlers, ticketsService } from '@atendo/plugin-tickets/contract';
import { schedulesService } from '@atendo/plugin-schedules/contract';
import { campaignsService } from '@atendo/plugin-campaigns/contract';
import { dashboardService } from '@atendo/plugin-dashboard/contract';
import { complianceService, errors, retentionJob } from './contract';
import { Retention } from './services/retention';
import { ComplianceConfig } from './schemas/config';
import { AuditLogReader } from './services/audit-log';
import { DataSubject } from './services/data-subject';
import { auditRoutes } from './routes/audit';
import { dataSubjectRoutes } from './routes/data-subject';
import { optOutRoutes } from './routes/opt-out';
import { OptOuts } from './services/opt-out';
import { SettingsStore } from './services/settings';

/**
 * The compliance plugin (issue 34): the audit log's route over the kernel's append-only `audit_logs`
 * (`ctx.audit`), the data subject's export and anonymization (through the contacts, tickets and, when
 * loaded, schedules, campaigns and dashboard services), and the opt-out keywords. See README.md.
 */
export default definePlugin<ComplianceConfig>({
  id: 'compliance',
  dependsOn: ['contacts', 'tickets'],
  optionalDependsOn: ['schedules', 'campaigns', 'dashboard'],
  errors,
  configSchema: ComplianceConfig,
  migrationsDir: join(__dirname, '..', 'migrations'),
  async register(ctx) {
    const contacts = ctx.services.get(contactsService);
    const tickets = ctx.services.get(ticketsService);
    const optional = <T>(ref: ServiceRef<T>): T | undefined => (ctx.services.has(ref) ? ctx.services.get(ref) : undefined);
    const holders = { schedules: optional(schedulesService), campaigns: optional(campaignsService), dashboard: optional(dashboardService) };
    const reader = new AuditLogReader(ctx.audit, ctx.identity, ctx.config.pageSize);
    const subject = new DataSubject(ctx.db, ctx.audit, contacts, tickets, holders);
    const settings = new SettingsStore(ctx.db);
    const optOuts = new OptOuts(settings, contacts, tickets, ctx.audit, ctx.log);
    ctx.extensions.contribute(conversationHandlers, optOuts.handler());
    await auditRoutes(ctx.app, { reader });
    await dataSubjectRoutes(ctx.app, { subject, contacts });
    const retention = new Retention(ctx.db, contacts, tickets, subject);
    ctx.jobs.handle(retentionJob, async () => {
      const done = await retention.runAll();
      for (const [companyId, n] of done) if (n) ctx.log.info({ companyId, anonymized: n }, 'compliance: retention ran');
    });
    await ctx.jobs.every(retentionJob, '17 3 * * *', {});
    ctx.services.provide(complianceService, { runRetention: (now) => retention.runAll(now) });
    await optOutRoutes(ctx.app, { optOuts, settings, audit: ctx.audit, retention });
  },
});
