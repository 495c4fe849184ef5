import { join } from 'node:path';
import { audienceResolvers, definePlugin } from '@atendo/sdk';
import { errors, SUPER_AUDIENCE } from './contract';
import { AnnouncementStore } from './services/announcements';
import { announcementsRoutes } from './routes/announcements';

/**
 * The announcements plugin (spec 3-campaigns-and-tools.md "Announcements admin", "Announcement" entity,
 * §6 validation, §7 "Announcements"; 1-platform.md §2 top bar, §9 `company-announcement`): platform-wide
 * notices written by super users (priority 1 high, 2 medium, 3 low; active flag; optional image) and shown
 * to the signed-in users of the companies they target (all by default) in the top-bar popover, only while active. No plan flag gates it. Owns the
 * `announcements` table; images are kept by the kernel's upload store under the author's company folder
 * (`company{id}/announcements/`). Routes: see `announcementsRoutes`. Contract: `./contract.ts`
 * (`@atendo/plugin-announcements/contract`).
 */
export default definePlugin({
  id: 'announcements',
  dependsOn: ['kernel'],
  errors,
  migrationsDir: join(__dirname, '..', 'migrations'),
  async register(ctx) {
    // Super users' sockets hear every change (drafts too) for the admin screen; readers only what they may see.
    ctx.extensions.contribute(audienceResolvers, (user) => (user.super ? [SUPER_AUDIENCE] : []));
    await announcementsRoutes(ctx.app, { store: new AnnouncementStore(ctx.db, ctx.realtime, ctx.uploads) });
  },
});
