import { Type, type Static } from '@atendo/sdk';

/** The plugin's config, read from env vars `PLANTAO_<KEY>` and validated at boot. */
export const PlantaoConfig = Type.Object({
  /** `PLANTAO_CRON`: when the notifier looks at the roster (5 or 6 cron fields, UTC); default every minute. */
  cron: Type.String({ minLength: 9, maxLength: 60, default: '* * * * *' }),
});
export type PlantaoConfig = Static<typeof PlantaoConfig>;
