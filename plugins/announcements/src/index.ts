import { join } from 'node:path';
import { definePlugin } from '@atendo/sdk';
import { announcementsRoutes } from './routes';

export { ANNOUNCEMENT_EVENT, AnnouncementSchema, MEDIA_AREA, MEDIA_MAX_BYTES, MEDIA_TYPES, PAGE_SIZE, type Announcement } from './routes';

/**
 * The announcements plugin (spec 3-campaigns-and-tools.md "Announcements admin", "Announcement" entity,
 * §6 validation, §7 "Announcements"; 1-platform.md §2 top bar, §9 `company-announcement`): platform-wide
 * notices written by super users (priority 1 high, 2 medium, 3 low; active flag; optional image) and shown
 * to every signed-in user of every company in the top-bar popover. No plan flag gates it. Owns the
 * `announcements` table; images are kept by the kernel's upload store under the author's company folder
 * (`company{id}/announcements/`). Routes: see `announcementsRoutes`.
 */
export default definePlugin({
  id: 'announcements',
  migrationsDir: join(__dirname, '..', 'migrations'),
  async register(ctx) {
    await announcementsRoutes(ctx.app, { db: ctx.db, realtime: ctx.realtime, uploads: ctx.uploads });
  },
});
