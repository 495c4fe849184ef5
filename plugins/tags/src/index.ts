import { join } from 'node:path';
import { definePlugin, referencesService } from '@atendo/sdk';
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
    // Other plugins' bodies refer to tags by id: checked against the caller's company here (issue 37 item 5).
    ctx.services.get(referencesService).provide('tag', {
      code: 'ERR_NO_TAG_FOUND',
      existing: (companyId, ids) => ctx.db('tags').where({ companyId }).whereIn('id', ids).pluck('id'),
    });
    const store = new TagStore(ctx.db);
    ctx.extensions.declare(tagCounters).onContribute((counter, contributor) => store.addCounter(counter, contributor));
    ctx.services.provide(tagsService, store.service());
    await tagsRoutes(ctx.app, { store, realtime: ctx.realtime, identity: ctx.identity });
  },
});
