import { join } from 'node:path';
import { definePlugin } from '@atendo/sdk';
import { connectionsService } from '@atendo/plugin-connections/contract';
import { errors, notificationsService } from './contract';
import { NotificationsConfig } from './schemas/config';
import { NotificationStore } from './services/notifications';
import { smtpMailer } from './services/mail';
import { notificationRoutes } from './routes/notifications';

/**
 * The notifications plugin: owns `notifications`, serves `/notifications` (the caller's own), provides the
 * `notifications` service (`notifyAdmins`: in the app, by WhatsApp through the connections, by e-mail over
 * SMTP). See README.md. This file is the definition only: wiring, no logic.
 */
export default definePlugin<NotificationsConfig>({
  id: 'notifications',
  dependsOn: ['kernel'],
  // WhatsApp messages to admins go out through a connection of the company (or of the platform company).
  optionalDependsOn: ['connections'],
  errors,
  configSchema: NotificationsConfig,
  migrationsDir: join(__dirname, '..', 'migrations'),
  async register(ctx) {
    const mailer = ctx.config.smtpUrl ? smtpMailer(ctx.config.smtpUrl, ctx.config.mailFrom) : undefined;
    if (mailer) ctx.onClose(() => mailer.close());
    const store = new NotificationStore({
      db: ctx.db,
      realtime: ctx.realtime,
      bus: ctx.bus,
      identity: ctx.identity,
      log: ctx.log,
      pageSize: ctx.config.pageSize,
      connections: ctx.services.has(connectionsService) ? ctx.services.get(connectionsService) : undefined,
      mailer,
    });
    ctx.services.provide(notificationsService, store.service());
    await notificationRoutes(ctx.app, { store });
  },
});
