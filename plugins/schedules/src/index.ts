import { join } from 'node:path';
import { definePlugin } from '@atendo/sdk';
import { contactMergers, contactsService } from '@atendo/plugin-contacts/contract';
import { connectionsService } from '@atendo/plugin-connections/contract';
import { ticketsService } from '@atendo/plugin-tickets/contract';
import { errors, schedulesService, sendScheduleJob } from './contract';
import { SchedulesConfig } from './schemas/config';
import { ScheduleStore } from './services/schedules';
import { ScheduleSender } from './services/sender';
import { scheduleRoutes } from './routes/schedules';

/**
 * The schedules plugin (spec 2-tickets.md "schedules"; issue 13 item 3): owns `schedules`, serves
 * `/schedules` behind the plan flag `useSchedules`, and sends each schedule at its time as a durable job of
 * the kernel's scheduler (`schedules.send`, key `schedule-{id}`) through the tickets plugin, into the
 * contact's conversation. See README.md.
 */
export default definePlugin<SchedulesConfig>({
  id: 'schedules',
  dependsOn: ['contacts', 'connections', 'tickets'],
  featureFlag: 'useSchedules',
  errors,
  configSchema: SchedulesConfig,
  migrationsDir: join(__dirname, '..', 'migrations'),
  async register(ctx) {
    const store = new ScheduleStore(ctx.db, ctx.realtime, ctx.identity, ctx.services.get(contactsService), ctx.jobs, ctx.config.maxAttempts);
    const sender = new ScheduleSender(ctx.db, store, ctx.services.get(ticketsService), ctx.services.get(connectionsService), ctx.identity, ctx.log);
    ctx.jobs.handle(sendScheduleJob, (job) => sender.run(job), { maxAttempts: ctx.config.maxAttempts });
    const failed = await sender.subscribe(ctx.bus);
    ctx.onClose(() => failed.unsubscribe());
    ctx.services.provide(schedulesService, {
      get: (companyId, id) => store.get(companyId, id),
      pendingForContact: (companyId, contactId) => store.pendingForContact(companyId, contactId),
      allForContact: (companyId, contactId) => store.allForContact(companyId, contactId),
      removeForContact: (companyId, contactId, trx) => store.removeForContact(companyId, contactId, trx),
    });
    // One contact per person (issue 33 item 5): a merge of duplicate contacts moves their schedules to the
    // contact kept, in the merge's transaction (deleting a contact would delete its schedules).
    ctx.extensions.contribute(contactMergers, {
      id: 'schedules',
      preview: async (companyId, _targetId, sourceIds) => {
        const [{ n }] = await ctx.db('schedules').where({ companyId }).whereIn('contactId', sourceIds).count({ n: '*' });
        return { schedules: Number(n) };
      },
      merge: async (companyId, targetId, sourceIds, trx) => ({
        counts: { schedules: await trx('schedules').where({ companyId }).whereIn('contactId', sourceIds).update({ contactId: targetId, updatedAt: trx.fn.now() }) },
      }),
    });
    await scheduleRoutes(ctx.app, { store });
  },
});
