import { join } from 'node:path';
import { definePlugin } from '@atendo/sdk';
import { errors } from './contract';
import { HelpStore } from './services/helps';
import { helpsRoutes } from './routes/helps';

/**
 * The helps plugin (spec 1-platform.md §2 "Plans admin and helps admin", §3 "Help", §6, §7): help videos
 * shown on /helps to every signed-in user, managed by super users. Owns the platform-wide `helps` table.
 * Routes: see `helpsRoutes`. Contract: `./contract.ts` (`@atendo/plugin-helps/contract`).
 */
export default definePlugin({
  id: 'helps',
  errors,
  migrationsDir: join(__dirname, '../migrations'),
  async register(ctx) {
    await helpsRoutes(ctx.app, { store: new HelpStore(ctx.db) });
  },
});
