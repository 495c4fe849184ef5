import { join } from 'node:path';
import { definePlugin } from '@atendo/sdk';
import { errors, tagCounters, tagsService } from './contract';
import { TagStore } from './services/tags';
import { tagsRoutes } from './routes/tags';

/**
 * The tags plugin (spec 2-tickets.md §2 "Tags", §3 "Tag", §7 "Tags"): owns `tags` (normal tags and kanban
 * lanes), serves the `/tags` routes, provides the `tags` service and owns the `tags.counters` extension
 * point through which the plugins owning tag links (contacts, tickets) contribute the list's counts.
 * Contract: `./contract.ts` (`@atendo/plugin-tags/contract`).
 */
export default definePlugin({
  id: 'tags',
  errors,
  migrationsDir: join(__dirname, '..', 'migrations'),
  async register(ctx) {
    const store = new TagStore(ctx.db);
    ctx.extensions.declare(tagCounters).onContribute((counter, contributor) => store.addCounter(counter, contributor));
    ctx.services.provide(tagsService, store.service());
    await tagsRoutes(ctx.app, { store, realtime: ctx.realtime, identity: ctx.identity });
  },
});
