import { join } from 'node:path';
import { definePlugin } from '@atendo/sdk';
import { chatsRoutes } from './routes';

export { ChatMessageSchema, ChatSchema, ChatUserSchema, LAST_MESSAGE_MAX, MESSAGE_RATE_LIMIT, PAGE_SIZE, type Chat, type ChatMessage } from './routes';

/**
 * The chats plugin (spec 3-campaigns-and-tools.md "Internal chat"; 1-platform.md §2 top bar and side menu):
 * the internal chat between the users of a company. Owns the `chats`, `chat_users` and `chat_messages`
 * tables; participants' names are read through the identity service. Every route is gated by the plan
 * flag `useInternalChat`. Routes and events: see `chatsRoutes`.
 */
export default definePlugin({
  id: 'chats',
  featureFlag: 'useInternalChat',
  migrationsDir: join(__dirname, '..', 'migrations'),
  async register(ctx) {
    await chatsRoutes(ctx.app, { db: ctx.db, realtime: ctx.realtime, identity: ctx.identity });
  },
});
