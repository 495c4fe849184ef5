import { join } from 'node:path';
import { definePlugin } from '@atendo/sdk';
import { errors } from './contract';
import { QuickMessageStore } from './services/quick-messages';
import { quickMessagesRoutes } from './routes/quick-messages';

/**
 * The quick-messages plugin (spec 2-tickets.md §2 "Quick messages", §3, §6, §7): quick replies of a
 * company, offered in the message input through "/"; general ones (`geral`) for everyone, managed by
 * admins and supervisors, and each user's own. Owns the `quick_messages` table; media files are kept by
 * the kernel's upload store under `company{id}/quickMessage/`. Routes: see `quickMessagesRoutes`.
 * Contract: `./contract.ts` (`@atendo/plugin-quick-messages/contract`).
 */
export default definePlugin({
  id: 'quick-messages',
  errors,
  migrationsDir: join(__dirname, '..', 'migrations'),
  // Shipped as 20261121000700_quick_messages, the timestamp of contacts' migration: databases that ran it
  // under that name keep it as applied.
  migrationRenames: { '20261121000700_quick_messages': '20261121000800_quick_messages' },
  async register(ctx) {
    await quickMessagesRoutes(ctx.app, { store: new QuickMessageStore(ctx.db, ctx.realtime, ctx.uploads) });
  },
});
