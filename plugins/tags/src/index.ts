import { join } from 'node:path';
import { definePlugin } from '@atendo/sdk';
import { TagStore } from './services/tags';
import { tagsRoutes } from './routes/tags';

export type { Tag, TagCounter, TagCounterKey, TagsService, TagWithCounts } from './services/tags';
export { TagSchema, TagWithCountsSchema } from './schemas/tags';

/**
 * The tags plugin (spec 2-tickets.md §2 "Tags", §3 "Tag", §7 "Tags"): owns `tags` (normal tags and kanban
 * lanes), serves the `/tags` routes and provides the `tags` service (`TagsService`): `getMany`,
 * `assertAll` and the `registerCounter` extension point through which the plugins owning tag links
 * (contacts, tickets) contribute `contactsCount` / `ticketsCount`.
 */
export default definePlugin({
  id: 'tags',
  migrationsDir: join(__dirname, '..', 'migrations'),
  async register(ctx) {
    const store = new TagStore(ctx.db);
    ctx.services.provide('tags', store.service());
    await tagsRoutes(ctx.app, { store, realtime: ctx.realtime, identity: ctx.identity });
  },
});
