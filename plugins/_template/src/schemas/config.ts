import { Type, type Static } from '@atendo/sdk';

/**
 * The plugin's config, read from env vars `MY_FEATURE_<KEY>` (upper snake case) and validated at boot (a
 * bad value stops the kernel with the variable's name). Defaults live here, never in the code.
 */
export const MyFeatureConfig = Type.Object({
  /** `MY_FEATURE_PAGE_SIZE`: entries per page of `GET /my-feature`. */
  pageSize: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
});
export type MyFeatureConfig = Static<typeof MyFeatureConfig>;
