import { join } from 'node:path';
import { definePlugin } from '@atendo/sdk';
import { errors } from './contract';
import { ChatStore } from './services/chats';
import { chatsRoutes } from './routes/chats';

/**
 * The chats plugin (spec 3-campaigns-and-tools.md "Internal chat"; 1-platform.md §2 top bar and side menu):
 * the internal chat between the users of a company. Owns the `chats`, `chat_users` and `chat_messages`
 * tables; participants' names are read through the identity service. Every route is gated by the plan
 * flag `useInternalChat`. Routes and events: see `chatsRoutes`. Contract: `./contract.ts`
 * (`@atendo/plugin-chats/contract`).
 */
export default definePlugin({
  id: 'chats',
  featureFlag: 'useInternalChat',
  errors,
  migrationsDir: join(__dirname, '..', 'migrations'),
  async register(ctx) {
    await chatsRoutes(ctx.app, { store: new ChatStore(ctx.db, ctx.realtime, ctx.identity) });
  },
});
