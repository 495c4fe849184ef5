import { Type, type Static } from '@atendo/sdk';

/** The plugin's config (env vars `MESSAGES_API_<KEY>`), validated at boot. */
export const MessagesApiConfig = Type.Object({
  /** `MESSAGES_API_RATE_LIMIT`: sends per minute per connection token (counted across the cluster). */
  rateLimit: Type.Integer({ minimum: 1, maximum: 100_000, default: 600 }),
});
export type MessagesApiConfig = Static<typeof MessagesApiConfig>;
