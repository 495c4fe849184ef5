import { join } from 'node:path';
import { definePlugin } from '@atendo/sdk';
import { entryCreated, errors, myFeatureService } from './contract';
import { MyFeatureConfig } from './schemas/config';
import { EntryStore } from './services/entries';
import { entryRoutes } from './routes/entries';
import { seed } from './seed';

/**
 * The my-feature plugin: owns `my_feature_entries`, serves `/my-feature`, provides the `my-feature` service
 * and publishes `my-feature.entry-created`. See README.md. This file is the definition only: wiring, no logic.
 */
export default definePlugin<MyFeatureConfig>({
  id: 'my-feature',
  // Plugins whose services or extension points this one uses (their contracts are imported as
  // `@atendo/plugin-<id>/contract`); `optionalDependsOn` for those it can do without.
  dependsOn: [],
  // featureFlag: 'useMyFeature', // a plan flag gating every route (403 ERR_FEATURE_NOT_IN_PLAN)
  topics: [entryCreated],
  errors,
  configSchema: MyFeatureConfig,
  migrationsDir: join(__dirname, '..', 'migrations'),
  async register(ctx) {
    const store = new EntryStore(ctx.db, ctx.realtime, ctx.bus, ctx.config.pageSize);
    ctx.services.provide(myFeatureService, store.service());
    await entryRoutes(ctx.app, { store });
  },
  seed,
});
