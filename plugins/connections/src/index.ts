import { join } from 'node:path';
import { audienceResolvers, definePlugin, hasRole, Type, referencesService } from '@atendo/sdk';
import { CONNECTION_TOPICS, connectionsService, errors } from './contract';
import { connectionsRoutes } from './routes/connections';
import { seedConnections } from './seed';
import { AUDIENCE_ADMIN, AUDIENCE_USER, ConnectionStore } from './services/connections';
import { subscribeResetCodes } from './services/reset-code';

/**
 * The connections plugin: owns `whatsapps` and `whatsapp_queues`; serves the `/whatsapp` routes; provides
 * the `connections` service (see `ConnectionsService`); delivers password-reset codes (`auth.reset-code-issued`
 * -> `message.send` on company 1's connected WhatsApp connection, see services/reset-code.ts). The queues
 * plugin is optional: when loaded it is registered first (`optionalDependsOn`) and used through its `queues`
 * service to validate and show queue ids. Contract: `./contract.ts` (`@atendo/plugin-connections/contract`);
 * demo seed: `./seed.ts`.
 */
export default definePlugin({
  id: 'connections',
  dependsOn: ['kernel'],
  optionalDependsOn: ['queues'],
  topics: [...CONNECTION_TOPICS],
  errors,
  migrationsDir: join(__dirname, '..', 'migrations'),
  configSchema: Type.Object({
    /**
     * Write password-reset codes to the log (local trials only: `npm start`'s demo sets
     * DEV_LOG_RESET_CODES=true, since its connections cannot reach WhatsApp). Default false; ignored under
     * NODE_ENV=production.
     */
    logResetCodes: Type.Boolean({ default: false, env: 'DEV_LOG_RESET_CODES' }),
  }),
  async register(ctx) {
    // Other plugins' bodies refer to connections by id: checked against the caller's company here (issue 37 item 5).
    ctx.services.get(referencesService).provide('connection', {
      code: 'ERR_NO_WAPP_FOUND',
      existing: (companyId, ids) => ctx.db('whatsapps').where({ companyId }).whereIn('id', ids).pluck('id'),
    });
    const wantsCodes = ctx.config.logResetCodes === true;
    const logCodes = wantsCodes && ctx.kernel.nodeEnv !== 'production';
    if (wantsCodes && !logCodes) ctx.log.warn('DEV_LOG_RESET_CODES is ignored under NODE_ENV=production: reset codes are never logged there');
    if (logCodes) ctx.log.warn('DEV_LOG_RESET_CODES=true: password-reset codes are written to the log (local trials only)');
    const store = new ConnectionStore(ctx.db, { identity: ctx.identity, realtime: ctx.realtime, bus: ctx.bus, services: ctx.services, log: ctx.log, uploads: ctx.uploads });
    ctx.services.provide(connectionsService, store.service());
    // Admins see QR codes in pushes; other users get the same events with `qrcode: ''`.
    ctx.extensions.contribute(audienceResolvers, (user) => [hasRole(user, 'admin') ? AUDIENCE_ADMIN : AUDIENCE_USER]);
    await connectionsRoutes(ctx.app, { store, audit: ctx.audit });
    // Password-reset codes (kernel event `auth.reset-code-issued`) go out from company 1's WhatsApp connection.
    const resetCodes = await subscribeResetCodes({ bus: ctx.bus, log: ctx.log, connections: store, logCodes });
    ctx.onClose(() => resetCodes.unsubscribe());
  },
  seed: seedConnections,
});
