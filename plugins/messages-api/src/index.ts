import { definePlugin } from '@atendo/sdk';
import { ticketsService } from '@atendo/plugin-tickets/contract';
import { connectionsService } from '@atendo/plugin-connections/contract';
import { contactsService } from '@atendo/plugin-contacts/contract';
import { errors } from './contract';
import { MessagesApiConfig } from './schemas/config';
import { sendRoutes } from './routes/send';

/** The external messages API (`POST /api/messages/send`, bearer connection token, plan useExternalApi). See README.md. */
export default definePlugin<MessagesApiConfig>({
  id: 'messages-api',
  dependsOn: ['tickets', 'connections', 'contacts'],
  errors,
  configSchema: MessagesApiConfig,
  async register(ctx) {
    await sendRoutes(ctx.app, {
      identity: ctx.identity,
      uploads: ctx.uploads,
      tickets: ctx.services.get(ticketsService),
      connections: ctx.services.get(connectionsService),
      contacts: ctx.services.get(contactsService),
      audit: ctx.audit,
      rateLimit: ctx.config.rateLimit,
    });
  },
});
