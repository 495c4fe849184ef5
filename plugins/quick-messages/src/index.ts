import { join } from 'node:path';
import { definePlugin } from '@atendo/sdk';
import { quickMessagesRoutes } from './routes';

export { MEDIA_AREA, MEDIA_TYPES, QuickMessageSchema, type QuickMessage } from './routes';

/**
 * The quick-messages plugin (spec 2-tickets.md §2 "Quick messages", §3, §6, §7): quick replies of a
 * company, offered in the message input through "/"; general ones (`geral`) for everyone, managed by
 * admins and supervisors, and each user's own. Owns the `quick_messages` table; media files are kept by
 * the kernel's upload store under `company{id}/quickMessage/`. Routes: see `quickMessagesRoutes`.
 */
export default definePlugin({
  id: 'quick-messages',
  migrationsDir: join(__dirname, '..', 'migrations'),
  async register(ctx) {
    await quickMessagesRoutes(ctx.app, { db: ctx.db, realtime: ctx.realtime, uploads: ctx.uploads });
  },
});
